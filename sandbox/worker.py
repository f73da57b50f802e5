"""``SandboxWorker``: one persistent, isolated worker process per box.

The caller's process never executes box code: it compile-checks (safe), spawns
a worker, and exchanges JSON lines with it. Box faults come back as
``CallResult`` values; a worker that dies or overruns is killed with its whole
process group and restarted transparently (the code is re-sent) on the next
call. Box module-level globals persist between calls of one worker process
(that is the box's business) but not across a restart; the curated ``random``
is reseeded before every call, so equal inputs give equal outputs.

Every box has a ``checkpoint(index, **values)`` builtin. A call with a
``TraceRequest`` returns the values of one checkpoint visit instead of the entry's
return value, and stops the program there.
"""

from __future__ import annotations

import logging
import time
import weakref
from typing import TYPE_CHECKING, Any, ClassVar

from oracle_bench.errors import (
    IsolationUnavailableError,
    SandboxCallFailedError,
    SandboxCompileError,
    SandboxMemoryError,
    SandboxTimeoutError,
    UsageError,
    WorkerError,
)
from sandbox import _protocol as proto
from sandbox import layers as _layers
from sandbox._curated import DEFAULT_RANDOM_SEED
from sandbox._process import TIMEOUT_SIGNALS, ReadStatus, WorkerProcess
from sandbox._workdir import Workdir, make_workdir
from sandbox.limits import SandboxLimits
from sandbox.policy import compile_check
from sandbox.results import (
    CRASH_MESSAGE,
    MEMORY_MESSAGE,
    TIMEOUT_MESSAGE,
    CallError,
    CallResult,
    ErrorKind,
    JSONValue,
)
from sandbox.trace import TraceRequest

if TYPE_CHECKING:
    from sandbox.docker.runtime import DockerRuntime

__all__ = ["SandboxWorker", "run_once"]

logger = logging.getLogger(__name__)

# Python start-up, imports and isolation set-up, on top of the box's own budget.
_STARTUP_GRACE_SECONDS = 10.0
# Room for the reply envelope and error messages beyond the value's own cap.
_ENVELOPE_BYTES = 4096
_WIRE_KINDS = frozenset(kind.value for kind in ErrorKind)


class _Resources:
    """What must be released even if a worker object is garbage-collected unclosed.

    The worker's folder is locked while it lives, so that one left by a SIGKILLed owner
    (whose finalizer never ran) is swept by the next worker made (``sandbox._workdir``).
    """

    def __init__(self, runtime: DockerRuntime | None) -> None:
        self.process: WorkerProcess | None = None
        self.runtime = runtime
        self._workdir: Workdir | None = make_workdir()
        self.tmpdir: str | None = self._workdir.path

    def spawn(self, tmpdir: str) -> WorkerProcess:
        return WorkerProcess(tmpdir) if self.runtime is None else self.runtime.spawn(tmpdir)

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process = None

    def release(self) -> None:
        self.stop()
        if self.runtime is not None:
            self.runtime.close()
            self.runtime = None
        if self._workdir is not None:
            self._workdir.remove()
            self._workdir = None
            self.tmpdir = None


class SandboxWorker:
    """Runs one box's ``entry`` function in an isolated, persistent worker.

    ``require`` names the isolation layers the caller demands; ``None`` means the
    default policy (process, restricted, rlimits, and uid drop or seccomp). The
    strongest set available is always attempted; a missing required layer raises
    ``IsolationUnavailableError`` before any box code runs. There is no in-process
    fallback. ``limits.runtime`` chooses where the worker runs: ``"process"`` (a child
    process) or ``"docker"`` (a container of ``limits.image``, adding the ``container``
    layer; ``DockerUnavailableError`` when it cannot: see ``sandbox.docker.runtime``).
    Not thread-safe; use one instance per thread (or a ``WorkerPool``).
    """

    # Test-only worker switches (see sandbox._worker); never set in production code.
    _hooks: ClassVar[frozenset[str]] = frozenset()

    def __init__(
        self,
        code: str,
        *,
        entry: str = "blackbox",
        limits: SandboxLimits = SandboxLimits(),  # noqa: B008 - frozen, shared safely
        require: frozenset[str] | None = None,
        random_seed: int = DEFAULT_RANDOM_SEED,
    ) -> None:
        if not entry.isidentifier() or entry.startswith("_"):
            raise UsageError(f"entry must be a public identifier, got {entry!r}")
        self._policy = _layers.IsolationPolicy.from_require(require)
        docker = limits.runtime == "docker"
        if not docker:
            # Fail closed before spawning anything if the machine cannot provide it. (A
            # container's layers are checked by its worker before any box code runs.)
            self._policy.enforce(_layers.available_layers())
        # (The test-only "unrestricted" hook bypasses the restricted layer on purpose.)
        errors = [] if "unrestricted" in self._hooks else compile_check(code)
        if errors:
            raise _compile_error("\n".join(errors))
        self._limits = limits
        runtime = None
        if docker:
            from sandbox.docker.runtime import DockerRuntime

            runtime = DockerRuntime(limits)
        self._provided = frozenset() if runtime is None else runtime.layers
        self._startup_grace = _STARTUP_GRACE_SECONDS if runtime is None else runtime.startup_grace
        # The worker checks what it must set up itself; the parent vouches for the rest.
        wire_policy = self._policy.without(self._provided) if self._provided else self._policy
        self._init_line = (
            proto.dumps(
                {
                    "code": code,
                    "entry": entry,
                    "limits": limits.to_wire(),
                    "seed": random_seed,
                    "hooks": sorted(self._hooks),
                    **wire_policy.to_wire(),
                }
            )
            + b"\n"
        )
        self._layers: frozenset[str] = frozenset()
        try:
            self._resources = _Resources(runtime)
        except BaseException:
            if runtime is not None:
                runtime.close()
            raise
        self._finalizer = weakref.finalize(self, self._resources.release)
        try:
            self._start()
        except BaseException:
            self.close()
            raise

    # -- public -----------------------------------------------------------------

    @property
    def layers(self) -> frozenset[str]:
        """Isolation layers active in the current worker process."""
        return self._layers

    @property
    def limits(self) -> SandboxLimits:
        return self._limits

    def call(self, *args: JSONValue, trace: TraceRequest | None = None) -> CallResult:
        """Call the box; box faults are returned, never raised.

        Without ``trace`` the value is the entry's return value. With
        ``TraceRequest(k, v)`` the program stops at the v-th call of ``checkpoint(k, ...)``
        and the value is ``{"values": {...its keyword values...}, "visits": v}``, or
        ``{"values": None, "visits": n}`` if the program ended after only ``n < v`` visits
        of ``k`` (its return value is ignored). Too many checkpoint calls in one call
        (``limits.max_trace_visits``) or values above ``limits.output_bytes`` are a
        ``trace_limit`` error; values that are not strict JSON are ``invalid_output``.
        """
        try:
            encoded = proto.dumps_value(list(args))
        except (TypeError, ValueError) as exc:
            raise UsageError(f"arguments must be finite JSON values: {exc}") from exc
        if trace is None:
            request = b'{"a":' + encoded + b"}\n"
        else:
            request = b'{"a":' + encoded + b',"t":' + self._trace_wire(trace) + b"}\n"
        if not self._finalizer.alive:
            raise WorkerError("the worker is closed")
        process = self._resources.process
        if process is None:
            try:
                self._start()
            except (SandboxCallFailedError, WorkerError, IsolationUnavailableError, OSError) as exc:
                logger.warning("sandbox worker restart failed: %s", exc)
                self._resources.stop()
                return _failure(ErrorKind.CRASH, CRASH_MESSAGE)
            process = self._resources.process
            if process is None:  # pragma: no cover - _start sets it or raises
                return _failure(ErrorKind.CRASH, CRASH_MESSAGE)
        deadline = time.monotonic() + self._limits.wall_seconds
        if not process.send(request, deadline):
            return self._abort(process, None)
        line = process.read_line(self._limits.output_bytes + _ENVELOPE_BYTES, deadline)
        if isinstance(line, ReadStatus):
            return self._abort(process, line)
        return self._decode(process, line, traced=trace is not None)

    def close(self) -> None:
        """Kill the worker and remove its temporary directory (idempotent)."""
        self._finalizer()

    def __enter__(self) -> SandboxWorker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- internals --------------------------------------------------------------

    def _start(self) -> None:
        """Spawn, hand over the code, and wait for the worker's verdict."""
        tmpdir = self._resources.tmpdir
        if tmpdir is None:
            raise WorkerError("the worker is closed")
        process = self._resources.spawn(tmpdir)
        self._resources.process = process
        deadline = time.monotonic() + self._startup_grace + self._limits.wall_seconds
        if not process.send(self._init_line, deadline):
            self._resources.stop()
            raise WorkerError("the worker did not accept its code")
        line = process.read_line(1 << 20, deadline)
        if line is ReadStatus.TIMEOUT:
            self._resources.stop()
            raise SandboxTimeoutError(
                ErrorKind.TIMEOUT.value, "loading the box: " + TIMEOUT_MESSAGE
            )
        if isinstance(line, ReadStatus):
            signum = process.exit_signal() if line is ReadStatus.EOF else None
            detail = process.diagnosis()
            self._resources.stop()
            if signum in TIMEOUT_SIGNALS:
                raise SandboxTimeoutError(
                    ErrorKind.TIMEOUT.value, "loading the box: " + TIMEOUT_MESSAGE
                )
            raise WorkerError(
                f"the worker failed during start-up ({line.value})"
                + (f": {detail}" if detail else "")
            )
        try:
            reply = proto.loads(line)
        except ValueError as exc:
            self._resources.stop()
            raise WorkerError("the worker sent a malformed start-up reply") from exc
        if not isinstance(reply, dict) or not reply.get("ok"):
            self._resources.stop()
            _raise_startup_failure(reply if isinstance(reply, dict) else {})
        # Only the parent can tell that the worker is in a container.
        claimed = frozenset(str(x) for x in reply.get("layers", ())) - {_layers.LAYER_CONTAINER}
        layers = claimed | self._provided
        try:
            # Belt and braces: the worker checked too, before loading any code.
            self._policy.enforce(layers)
        except IsolationUnavailableError:
            self._resources.stop()
            raise
        self._layers = layers

    def _abort(self, process: WorkerProcess, status: ReadStatus | None) -> CallResult:
        """The worker overran, flooded or died: kill it, restart lazily, report."""
        if status is ReadStatus.TIMEOUT:
            error = CallError(ErrorKind.TIMEOUT, TIMEOUT_MESSAGE)
        elif status is ReadStatus.OVERFLOW:
            error = CallError(
                ErrorKind.INVALID_OUTPUT,
                f"result exceeds the output limit of {self._limits.output_bytes} bytes",
            )
        else:
            signum = process.exit_signal()
            if signum in TIMEOUT_SIGNALS:
                error = CallError(ErrorKind.TIMEOUT, TIMEOUT_MESSAGE)
            else:
                error = CallError(ErrorKind.CRASH, CRASH_MESSAGE)
        self._resources.stop()
        return CallResult(value=None, error=error)

    def _trace_wire(self, trace: TraceRequest) -> bytes:
        if not isinstance(trace, TraceRequest):
            raise UsageError(f"trace must be a TraceRequest, got {type(trace).__name__}")
        if trace.visit > self._limits.max_trace_visits:
            raise UsageError(
                f"visit must be <= max_trace_visits ({self._limits.max_trace_visits}), "
                f"got {trace.visit}"
            )
        return b"[%d,%d]" % (trace.checkpoint, trace.visit)

    def _decode(self, process: WorkerProcess, line: bytes, *, traced: bool) -> CallResult:
        try:
            reply: Any = proto.loads(line)
        except (ValueError, RecursionError):
            self._resources.stop()
            return _failure(ErrorKind.INVALID_OUTPUT, "the black box reply was not valid JSON")
        if not isinstance(reply, dict):
            self._resources.stop()
            return _failure(ErrorKind.INVALID_OUTPUT, "the black box reply was malformed")
        if reply.get("r"):
            # The worker is near its lifetime CPU cap and has exited; replace it next time.
            self._resources.stop()
        if "v" in reply:
            value = reply["v"]
            if traced and not _is_trace_value(value):
                self._resources.stop()
                return _failure(ErrorKind.INVALID_OUTPUT, "the black box reply was malformed")
            return CallResult(value=value, error=None)
        kind, message = reply.get("e"), reply.get("m")
        if kind not in _WIRE_KINDS or not isinstance(message, str):
            self._resources.stop()
            return _failure(ErrorKind.INVALID_OUTPUT, "the black box reply was malformed")
        if kind == ErrorKind.MEMORY:
            message = MEMORY_MESSAGE
        return _failure(ErrorKind(kind), message)


def _compile_error(message: str) -> SandboxCompileError:
    error = SandboxCompileError(message)
    # SyntaxError.__str__ prints ``msg``, which the MRO's BaseException.__init__ leaves unset.
    error.msg = message
    return error


def _is_trace_value(value: object) -> bool:
    if not isinstance(value, dict) or list(value) != ["values", "visits"]:
        return False
    visits = value["visits"]
    return (value["values"] is None or isinstance(value["values"], dict)) and (
        type(visits) is int and visits >= 0
    )


def _failure(kind: ErrorKind, message: str) -> CallResult:
    return CallResult(value=None, error=CallError(kind, message))


def _raise_startup_failure(reply: dict[str, Any]) -> None:
    kind = reply.get("kind")
    message = str(reply.get("message", "unknown start-up failure"))
    if kind == proto.KIND_COMPILE:
        raise _compile_error(message)
    if kind == proto.KIND_ISOLATION:
        raise IsolationUnavailableError(message)
    if kind == proto.KIND_TIMEOUT:
        raise SandboxTimeoutError(kind, "loading the box: " + message)
    if kind == proto.KIND_MEMORY:
        raise SandboxMemoryError(kind, "loading the box: " + MEMORY_MESSAGE)
    if kind in (proto.KIND_EXCEPTION, proto.KIND_POLICY):
        raise SandboxCallFailedError(str(kind), "loading the box: " + message)
    raise WorkerError(f"the worker refused the box: {message}")


def run_once(
    code: str,
    *args: JSONValue,
    entry: str = "blackbox",
    limits: SandboxLimits = SandboxLimits(),  # noqa: B008
    require: frozenset[str] | None = None,
    trace: TraceRequest | None = None,
) -> CallResult:
    """Start a worker, make one call (traced if ``trace``), close it."""
    with SandboxWorker(code, entry=entry, limits=limits, require=require) as worker:
        return worker.call(*args, trace=trace)
