"""Why an episode failed, and what that means for the scores.

Every failed episode carries one cause (``Trajectory.failure``):

``agent``
    The agent broke something: it raised, its reply or code could not be processed, it
    produced something hostile, a player quit. The episode **scores 0** and is in every
    mean and interval, so a model that crashes on hard boxes does not look better.
``box``
    The box could not load or answer (it fails to compile in the sandbox, times out or
    crashes on a held-out input, answers a membership query with something else than
    0/1): a defect of the suite. The box is **excluded for every agent alike**, so
    comparisons stay paired, and the run reports it loudly.
``infrastructure``
    Something outside agent and box: a provider error after its retries, the sandbox's
    isolation unavailable, a worker process that could not start. **Excluded** from the
    scores and listed per group; a resumed run retries these episodes, and only these.

Any failure makes ``oracle-eval`` exit with :data:`EXIT_FAILURES` unless
``--allow-failures``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict

from evaluator._defaults import EXIT_FAILURES
from oracle_bench.errors import (
    BoxError,
    EvaluationError,
    IsolationUnavailableError,
    ProviderError,
    SandboxCallFailedError,
    SandboxCompileError,
    WorkerError,
)

__all__ = [
    "EXIT_FAILURES",
    "FAILURE_CAUSES",
    "BoxFailureError",
    "FailureCause",
    "FailureRow",
    "cause_from_error_text",
    "cause_of",
    "failed_boxes",
    "failure_counts",
    "failure_rows",
    "failure_summary",
    "failure_warnings",
    "fill_failure",
    "retried_on_resume",
    "scored",
]

FailureCause = Literal["agent", "box", "infrastructure"]
FAILURE_CAUSES: tuple[FailureCause, ...] = ("agent", "box", "infrastructure")


class BoxFailureError(EvaluationError):
    """The box could not answer what the protocol must ask it (a held-out input, an MQ):
    the episode fails with cause ``box``."""

    failure_cause: FailureCause = "box"


def cause_of(exc: BaseException) -> FailureCause:
    """The cause of an exception that ended an episode.

    An exception may name its cause with a ``failure_cause`` attribute; provider errors,
    unavailable isolation and worker start-up failures are ``infrastructure``; a box
    refused by the sandbox compiler or failing while it loads is ``box``; anything else
    came from the agent's side of the episode (``agent``).
    """
    named = getattr(exc, "failure_cause", None)
    if named in FAILURE_CAUSES:
        return named
    if isinstance(exc, ProviderError | IsolationUnavailableError | WorkerError):
        return "infrastructure"
    if isinstance(exc, SandboxCompileError | SandboxCallFailedError | BoxError):
        return "box"
    return "agent"


# Error texts of failed episodes written before causes were recorded, by their prefix.
_INFRASTRUCTURE_PREFIXES = (
    "Provider",
    "IsolationUnavailableError",
    "WorkerError",
)
_BOX_PREFIXES = (
    "SandboxCompileError",
    "SandboxCallFailedError",
    "SandboxTimeoutError",
    "SandboxMemoryError",
    "BoxFaultError",
    "BoxFailureError",
    "EvaluationError: the box failed",
)


def cause_from_error_text(error: str | None) -> FailureCause:
    """The cause of a failed episode recorded without one (trajectories written before
    causes existed), read from its ``Type: message`` error text."""
    text = error or ""
    if text.startswith(_INFRASTRUCTURE_PREFIXES):
        return "infrastructure"
    if text.startswith(_BOX_PREFIXES):
        return "box"
    return "agent"


def retried_on_resume(status: str, failure: FailureCause | None) -> bool:
    """Whether a resumed run plays the episode again: only infrastructure failures."""
    return status == "failed" and failure == "infrastructure"


def fill_failure(data: Any) -> Any:
    """A ``mode="before"`` validator for episode records: a failed record without a
    ``failure`` (written before causes were recorded) gets the one its error text implies;
    a completed record must not have one."""
    if not isinstance(data, dict):
        return data
    status, failure = data.get("status"), data.get("failure")
    if status == "failed" and failure is None:
        error = data.get("error")
        return {**data, "failure": cause_from_error_text(error if isinstance(error, str) else None)}
    if status == "completed" and failure is not None:
        raise ValueError("a completed episode has no failure cause")
    return data


class _Record(Protocol):
    @property
    def box_id(self) -> str: ...

    @property
    def agent(self) -> str: ...

    @property
    def repetition(self) -> int: ...

    @property
    def status(self) -> str: ...

    @property
    def failure(self) -> FailureCause | None: ...

    @property
    def error(self) -> str | None: ...


class FailureRow(BaseModel):
    """One failed episode, as summaries list them."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    box_id: str
    agent: str
    repetition: int
    cause: FailureCause
    error: str | None


def failure_rows(records: Iterable[_Record]) -> list[FailureRow]:
    """Every failed episode of ``records``, in (box, agent, repetition) order."""
    rows = [
        FailureRow(
            box_id=r.box_id,
            agent=r.agent,
            repetition=r.repetition,
            cause=r.failure or "agent",
            error=r.error,
        )
        for r in records
        if r.status == "failed"
    ]
    return sorted(rows, key=lambda f: (f.box_id, f.agent, f.repetition))


def failure_counts(records: Iterable[_Record]) -> dict[str, int]:
    """``{"failed_agent": n, "failed_box": n, "failed_infrastructure": n}``."""
    counts = dict.fromkeys(FAILURE_CAUSES, 0)
    for r in records:
        if r.status == "failed":
            counts[r.failure or "agent"] += 1
    return {f"failed_{cause}": n for cause, n in counts.items()}


def failed_boxes(records: Iterable[_Record]) -> frozenset[str]:
    """Boxes with a box-caused failure in any episode: left out for every agent alike."""
    return frozenset(r.box_id for r in records if r.status == "failed" and r.failure == "box")


def scored(record: _Record) -> bool:
    """Whether an episode counts in scores (of a box not left out): completed, or failed
    through the agent (it scores 0). Box and infrastructure failures do not."""
    return record.status == "completed" or (
        record.status == "failed" and record.failure in (None, "agent")
    )


def failure_summary(counts: dict[str, int]) -> str:
    """``"2 agent, 1 box"``: the non-zero counts of :func:`failure_counts`, or ``""``."""
    return ", ".join(
        f"{counts.get(f'failed_{cause}', 0)} {cause}"
        for cause in FAILURE_CAUSES
        if counts.get(f"failed_{cause}", 0)
    )


def _line(text: str | None, limit: int = 160) -> str:
    flat = " ".join((text or "").split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def failure_warnings(failures: Iterable[FailureRow], excluded: Iterable[str]) -> list[str]:
    """The lines a run prints under its tables about failed episodes, loudest first."""
    rows = [f.model_copy(update={"error": _line(f.error)}) for f in failures]
    lines: list[str] = []
    out = sorted(excluded)
    if out:
        first = next((f for f in rows if f.cause == "box" and f.box_id == out[0]), None)
        reason = f" ({out[0]}: {first.error})" if first is not None and first.error else ""
        lines.append(
            f"SUITE ERROR: {len(out)} box(es) failed and are left out of every agent's "
            f"scores: {', '.join(out)}{reason}"
        )
    infra = [f for f in rows if f.cause == "infrastructure"]
    if infra:
        lines.append(
            f"{len(infra)} episode(s) failed on infrastructure (provider or sandbox; e.g. "
            f"{infra[0].box_id} {infra[0].agent}: {infra[0].error}): not scored; rerun the "
            "same command to retry them"
        )
    agent = [f for f in rows if f.cause == "agent"]
    if agent:
        lines.append(
            f"{len(agent)} episode(s) failed through the agent (e.g. {agent[0].box_id} "
            f"{agent[0].agent}: {agent[0].error}): scored 0"
        )
    return lines
