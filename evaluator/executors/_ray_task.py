"""One episode as a Ray task, on whichever node Ray places it.

The task gets what it needs shipped (:class:`TaskShared` once per run through the
object store, the box once per box, the job), makes the kind's run on the node, starts
the box's sandbox worker there, plays the episode (``evaluator.executors._episode``)
and returns the record as JSON: the driver validates it and writes the trajectory, so
worker nodes need no file system in common with it.

A worker process keeps one small pool of sandbox workers for the run it last served
(:func:`_sandboxes`), so consecutive episodes of a box on the same process reuse its
worker as the local executor's pool does; a task of another run replaces it.
"""

from __future__ import annotations

import atexit
import hashlib
import os
import tempfile
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evaluator._pool import BoxWorkerPool, start_sandbox_worker
from evaluator._starts import BoxStarts
from evaluator.executors._base import SuiteContext
from evaluator.executors._episode import play_job

if TYPE_CHECKING:
    from blackboxes.box import SuiteInfo
    from blackboxes.store import Box
    from evaluator.llm_agents import LlmAgentSettings
    from evaluator.runner import EpisodeJob
    from sandbox import SandboxLimits

__all__ = ["TaskShared", "play_task", "provider_environment"]

PROVIDER_VARIABLES = (
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
)
"""What providers read from the environment: the driver's values go to its tasks."""

_WORKERS_PER_PROCESS = 1
"""Sandbox workers a Ray worker process keeps: it plays one episode at a time, and an
episode's box calls go one after another."""


@dataclass(frozen=True)
class TaskShared:
    """What every episode task of a run shares."""

    run_id: str
    """Unique per run: a worker process's pooled sandboxes serve one run only."""
    kind: str
    kind_settings: Any
    suite: SuiteInfo
    seed: int
    repeats: int
    limits: SandboxLimits | None
    llm_names: frozenset[str]
    llm: LlmAgentSettings | None
    """Shipped without budget, cache, hooks or pool (see ``_ray_llm``)."""
    environment: Mapping[str, str] = field(default_factory=dict)
    """The driver's provider variables (:data:`PROVIDER_VARIABLES`), for LLM runs."""
    pricing: str | None = None
    """The text of the driver's ``$ORACLE_BENCH_PRICING`` file: calls are priced on the
    worker as the driver would price them (the budget depends on it)."""


def provider_environment() -> tuple[dict[str, str], str | None]:
    """The driver's provider variables and pricing file text (``TaskShared`` fields)."""
    from providers.pricing import PRICING_ENV

    found = {name: os.environ[name] for name in PROVIDER_VARIABLES if os.environ.get(name)}
    path = os.environ.get(PRICING_ENV)
    return found, Path(path).read_text(encoding="utf-8") if path else None


@contextmanager
def _driver_environment(shared: TaskShared) -> Iterator[None]:
    """This task sees the driver's provider variables and pricing, not the node's (a
    worker process runs one task at a time, so its environment is the task's)."""
    from providers.pricing import PRICING_ENV

    wanted: dict[str, str | None] = {
        name: shared.environment.get(name) for name in PROVIDER_VARIABLES
    }
    wanted[PRICING_ENV] = None
    if shared.pricing is not None:
        digest = hashlib.sha256(shared.pricing.encode("utf-8")).hexdigest()[:16]
        path = Path(tempfile.gettempdir()) / f"oracle-bench-pricing-{digest}.json"
        if not path.exists():
            scratch = path.with_name(f"{path.name}.{os.getpid()}.tmp")
            scratch.write_text(shared.pricing, encoding="utf-8")
            os.replace(scratch, path)
        wanted[PRICING_ENV] = str(path)
    before = {name: os.environ.get(name) for name in wanted}
    _set(wanted)
    try:
        yield
    finally:
        _set(before)


def _set(values: Mapping[str, str | None]) -> None:
    for name, value in values.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


_LOCK = threading.Lock()
_CURRENT: tuple[str, BoxWorkerPool, BoxStarts] | None = None


def _close_current() -> None:
    global _CURRENT
    with _LOCK:
        current, _CURRENT = _CURRENT, None
    if current is not None:
        current[1].close()
        current[2].close()


atexit.register(_close_current)


def _sandboxes(shared: TaskShared) -> tuple[BoxWorkerPool, BoxStarts]:
    """This process's sandbox pool for ``shared``'s run (a new run's replaces the last)."""
    global _CURRENT
    with _LOCK:
        current = _CURRENT
        if current is not None and current[0] == shared.run_id:
            return current[1], current[2]
    _close_current()
    pool = BoxWorkerPool(_WORKERS_PER_PROCESS, start_sandbox_worker(shared.limits))
    starts = BoxStarts(pool, 1)
    with _LOCK:
        _CURRENT = (shared.run_id, pool, starts)
    return pool, starts


def play_task(shared: TaskShared, box: Box, job: EpisodeJob, services: Any) -> dict[str, Any]:
    """Play ``job`` on ``box``: ``{"record": JSON}`` or ``{"stopped": reason}``, with
    ``"seq"``, the number of the last LLM event the episode caused."""
    from evaluator.executors._ray_llm import EventTracker, attach_services

    tracker = EventTracker()
    llm = None
    if shared.llm is not None and services is not None:
        llm = attach_services(shared.llm, services, tracker)
    with _driver_environment(shared):
        return _play(shared, box, job, llm, tracker)


def _play(
    shared: TaskShared, box: Box, job: EpisodeJob, llm: LlmAgentSettings | None, tracker: Any
) -> dict[str, Any]:
    from evaluator.kinds import get_kind

    context = SuiteContext(
        suite=shared.suite,
        boxes=[box],
        seed=shared.seed,
        repeats=shared.repeats,
        limits=shared.limits,
        llm_names=shared.llm_names,
        llm=llm,
    )
    kind_run = get_kind(shared.kind).start(context, shared.kind_settings)
    pool, starts = _sandboxes(shared)
    played = play_job(kind_run, pool, starts, box, job, job.scope)
    if played.record is None:
        return {"stopped": played.stopped, "seq": tracker.seq}
    return {"record": played.record.model_dump(mode="json"), "seq": tracker.seq}
