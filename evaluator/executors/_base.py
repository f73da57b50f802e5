"""The contract between the runner and an executor: what a run hands over, what comes back.

The runner decides *which* episodes run (the pending jobs, in job order) and owns the
run folder: it turns a :class:`Played` episode into a written trajectory (``finish``),
reports progress (``on_done``) and says when to stop starting (``may_start``). An
executor decides *where* episodes are played and how many at once: threads of this
process (``local``) or Ray tasks on a cluster (``ray``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

if TYPE_CHECKING:
    from blackboxes.box import SuiteInfo
    from blackboxes.store import Box
    from evaluator._schedule import ScheduleResult
    from evaluator.kinds import EpisodeKind, KindRun, RunContext
    from evaluator.llm_agents import LlmAgentSettings
    from evaluator.runner import EpisodeJob
    from sandbox import SandboxLimits

__all__ = [
    "EpisodeHooks",
    "EpisodeOutcome",
    "EpisodePlan",
    "Executor",
    "ExecutorFactory",
    "Played",
    "SuiteContext",
    "check_option_names",
]


@dataclass(frozen=True)
class SuiteContext:
    """A :class:`~evaluator.kinds.RunContext` held as plain values: what a kind's run
    needs away from the runner (a Ray task on a worker node, a dataset item)."""

    suite: SuiteInfo
    boxes: list[Box]
    seed: int
    repeats: int
    limits: SandboxLimits | None
    llm_names: frozenset[str]
    llm: LlmAgentSettings | None = None
    """The LLM agents' settings (None: the defaults)."""

    def llm_settings(self) -> LlmAgentSettings:
        from evaluator.llm_agents import LlmAgentSettings

        return self.llm if self.llm is not None else LlmAgentSettings()


@dataclass(frozen=True)
class Played:
    """An episode as its play left it, before the runner records it."""

    record: Any
    """The kind's record (completed or failed; a box that would not start included);
    None when the episode stopped unrecorded."""
    stopped: str | None = None
    """Why it stopped unrecorded: the budget's reason or ``interrupted``."""


@dataclass(frozen=True)
class EpisodeOutcome:
    """An episode settled by the runner: written, or interrupted (rerun on resume)."""

    job: EpisodeJob
    record: Any
    """The written trajectory; None when interrupted."""
    action: Literal["ran", "skipped", "interrupted"]
    error: str | None = None


@dataclass(frozen=True)
class EpisodePlan:
    """What a run hands its executor: the episodes to play and everything they need."""

    kind: EpisodeKind
    kind_settings: Any
    kind_run: KindRun
    """The kind's run on the driver (local episodes play through it; the Ray executor
    makes failed records with it)."""
    context: RunContext
    """What the kind's run sees of the runner's run (the suite, seed, limits...)."""
    boxes: Mapping[str, Box]
    jobs: Sequence[EpisodeJob]
    """The pending jobs, in job order."""
    concurrency: int
    workers: int
    limits: SandboxLimits | None
    llm: LlmAgentSettings | None
    """The run's LLM settings (budget, call cache, retry hook included); None without
    LLM agents."""
    worker_factory: Callable[[Any], Any] | None = None
    """What the pool starts per box (None: a sandbox worker running the box's code; a
    served suite's check that the server has the box)."""


@dataclass(frozen=True)
class EpisodeHooks:
    """The runner's side of a run, called by the executor."""

    finish: Callable[[EpisodeJob, Played], EpisodeOutcome]
    """Record a played episode (writes its trajectory); any thread."""
    on_done: Callable[[EpisodeJob, EpisodeOutcome], None]
    """After each finished job, one at a time, in completion order."""
    may_start: Callable[[], bool]
    """Asked before each start: False once the budget is spent or Ctrl-C was pressed."""
    on_interrupt: Callable[[], None]
    """Ctrl-C: agents in flight stop at their next LLM call."""
    path: Callable[[EpisodeJob], Any]
    """The job's trajectory path (names a record in validation errors)."""


class Executor(Protocol):
    """Plays a run's episodes (see the module docstring); registered by name."""

    def run(self, plan: EpisodePlan, hooks: EpisodeHooks) -> ScheduleResult:
        """Play ``plan.jobs`` in order, at most ``plan.concurrency`` at once; call
        ``hooks.finish`` then ``hooks.on_done`` for each; stop starting when
        ``hooks.may_start()`` says no. Ctrl-C: ``hooks.on_interrupt()``, settle the
        episodes in flight, return ``interrupted=True``."""
        ...


ExecutorFactory = Callable[[Mapping[str, Any]], Executor]
"""Makes an executor from its options; :class:`~oracle_bench.errors.UsageError` for an
option it does not take, ``ExecutorError`` when it cannot run here at all."""


def check_option_names(name: str, options: Mapping[str, Any], known: Sequence[str]) -> None:
    """A one-line ``UsageError`` for an option the executor ``name`` does not take."""
    from oracle_bench.errors import UsageError

    unknown = sorted(set(options) - set(known))
    if unknown:
        takes = ", ".join(known) or "none"
        raise UsageError(
            f"the {name} executor takes no option {', '.join(unknown)} (options: {takes})"
        )
