"""The project's exception tree.

Every error the project raises on purpose derives from :class:`OracleBenchError`,
and each subclass also inherits the builtin a caller would naturally catch::

    OracleBenchError(Exception)
    ├── UsageError(ValueError)                 bad arguments or specs (turn@shot, options)
    │   └── UnknownNameError(LookupError)      an unknown family, agent, kind or provider
    ├── BoxError                               the Box format on disk
    │   ├── BoxNotFoundError(FileNotFoundError)
    │   ├── CorruptBoxError(ValueError)        unreadable JSON or failing validation
    │   ├── TamperedBoxError(ValueError)       a file whose digest no longer matches
    │   └── BoxOutputError(ValueError)         an output that does not fit the protocol
    ├── FamilyError(ValueError)                a family refused a rule, a query or an answer
    │   └── InvalidQueryError                  a query the family cannot parse
    ├── SandboxError(RuntimeError)             running untrusted code
    │   ├── IsolationUnavailableError(OSError) requested isolation cannot be had: fail closed
    │   ├── SandboxCompileError(SyntaxError)   the restricted compiler refused the code
    │   └── WorkerError                        the worker process misbehaved (protocol, start-up)
    ├── ProviderError(RuntimeError)            an LLM provider call failed (after retries)
    │   ├── ProviderConfigError(UsageError)    unknown provider, missing key, unreachable URL
    │   ├── ProviderUnavailableError(ConnectionError)
    │   ├── ProviderTimeoutError(TimeoutError)
    │   ├── ProviderRateLimitError             429s outlasting the retries
    │   └── ProviderResponseError(ValueError)  a malformed or truncated reply
    ├── GenerationError(RuntimeError)          the generator graph
    ├── EvaluationError(RuntimeError)          the evaluation runner
    └── ExecutorError(RuntimeError)            an executor cannot run (Ray missing or unreachable)

Faults *inside* a box call (timeouts, memory, crashes, bad output) are not raised:
the sandbox returns them as typed values (see ``sandbox.CallError``) so the evaluator
can render them to the agent deterministically. The raising counterparts below
exist for callers that want an exception from such a value.
"""

from __future__ import annotations

from pathlib import Path

__all__ = [
    "BoxError",
    "BoxNotFoundError",
    "BoxOutputError",
    "CorruptBoxError",
    "DockerUnavailableError",
    "EvaluationError",
    "ExecutorError",
    "FamilyError",
    "GenerationError",
    "InvalidQueryError",
    "IsolationUnavailableError",
    "OracleBenchError",
    "ProviderConfigError",
    "ProviderError",
    "ProviderRateLimitError",
    "ProviderResponseError",
    "ProviderTimeoutError",
    "ProviderUnavailableError",
    "PublishError",
    "RemoteEnvError",
    "RemoteProtocolError",
    "SandboxCallFailedError",
    "SandboxCompileError",
    "SandboxError",
    "SandboxMemoryError",
    "SandboxTimeoutError",
    "SandboxTraceLimitError",
    "TamperedBoxError",
    "UnknownNameError",
    "UsageError",
    "WorkerError",
]


class OracleBenchError(Exception):
    """Root of every error oracle-bench raises on purpose."""


class UsageError(OracleBenchError, ValueError):
    """A user-supplied argument or spec is malformed."""


class UnknownNameError(UsageError, LookupError):
    """A name (family, agent, rule kind, provider) is not registered.

    ``available`` lists what would have been accepted, so messages can say so.
    """

    def __init__(self, what: str, name: str, available: list[str]) -> None:
        self.what = what
        self.name = name
        self.available = sorted(available)
        listing = ", ".join(self.available) or "none"
        super().__init__(f"unknown {what} {name!r}; available: {listing}")


class BoxError(OracleBenchError):
    """A box or suite on disk is unusable. ``path`` names the offending file."""

    def __init__(self, message: str, path: Path | str | None = None) -> None:
        self.path = Path(path) if path is not None else None
        super().__init__(f"{path}: {message}" if path is not None else message)


class BoxNotFoundError(BoxError, FileNotFoundError):
    """A suite, box or one of a box's files is missing."""


class CorruptBoxError(BoxError, ValueError):
    """A file exists but is not valid JSON or fails its schema."""


class TamperedBoxError(BoxError, ValueError):
    """A file's content no longer matches the digest recorded in suite.json."""


class BoxOutputError(BoxError, ValueError):
    """A box's output does not fit its family's protocol (a box fault, not the agent's)."""


class FamilyError(OracleBenchError, ValueError):
    """A family refused a rule, query or answer."""


class InvalidQueryError(FamilyError):
    """A query the family cannot parse; the message is shown to the agent."""


class SandboxError(OracleBenchError, RuntimeError):
    """Running untrusted code failed at the infrastructure level."""


class IsolationUnavailableError(SandboxError, OSError):
    """A requested isolation layer is not available here; the sandbox refuses to run."""


class SandboxCompileError(SandboxError, SyntaxError):
    """The restricted compiler (or the import policy) refused the code."""


class WorkerError(SandboxError):
    """The worker process could not be started or broke the protocol."""


class SandboxCallFailedError(SandboxError):
    """Raised from a failed call result on request (``CallResult.unwrap``)."""

    def __init__(self, kind: str, message: str) -> None:
        self.kind = kind
        super().__init__(f"{kind}: {message}")


class SandboxTimeoutError(SandboxCallFailedError, TimeoutError):
    """A box call exceeded its wall-clock or CPU budget."""


class SandboxMemoryError(SandboxCallFailedError, MemoryError):
    """A box call exceeded its memory budget."""


class SandboxTraceLimitError(SandboxCallFailedError):
    """A box call made too many ``checkpoint`` calls, or its traced values were too big."""


class ProviderError(OracleBenchError, RuntimeError):
    """An LLM provider call failed after the retry layer gave up. ``provider`` names it."""

    def __init__(self, message: str, provider: str = "") -> None:
        self.provider = provider
        super().__init__(f"{provider}: {message}" if provider else message)


class ProviderConfigError(UsageError):
    """A provider cannot be used as configured: unknown name, missing API key, bad URL.

    Raised before any work starts; the message names what to set.
    """


class ProviderUnavailableError(ProviderError, ConnectionError):
    """The provider could not be reached (connection refused, DNS, reset)."""


class ProviderTimeoutError(ProviderError, TimeoutError):
    """A provider call timed out."""


class ProviderRateLimitError(ProviderError):
    """The provider kept answering 429 after every retry."""


class ProviderResponseError(ProviderError, ValueError):
    """The provider answered with a malformed, truncated or unusable body (or a 4xx)."""


class GenerationError(OracleBenchError, RuntimeError):
    """The generator graph failed outside a candidate's own verdict."""


class EvaluationError(OracleBenchError, RuntimeError):
    """The evaluation runner failed outside an episode's own record."""


class ExecutorError(OracleBenchError, RuntimeError):
    """An executor cannot run episodes or candidates: Ray is not installed, its cluster
    cannot be reached, or a task failed outside any episode's own record."""


class DockerUnavailableError(SandboxError, ConnectionError):
    """No Docker engine answers (or the docker SDK is missing): the docker runtime and
    ``oracle-publish`` fail closed instead of falling back to something weaker."""


class PublishError(OracleBenchError, RuntimeError):
    """``oracle-publish`` could not build, label or save an image."""


class RemoteEnvError(EvaluationError, ConnectionError):
    """A served box (``--env URL``) could not be reached or refused a request."""


class RemoteProtocolError(RemoteEnvError, ValueError):
    """A served box or its client sent a message outside the episode protocol."""
