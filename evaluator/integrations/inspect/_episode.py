"""One episode of one sample, played as ``oracle-eval`` plays it, outside the runner.

The runner's own loop (``evaluator.runner._Run._episode``) is private to a run folder:
it writes files, shares a worker pool across jobs and charges a run budget. An Inspect
sample needs the same steps for one job: the kind's run plays the box in a sandbox
worker started beside the agent's first model call, a box that cannot start fails the
episode with its cause, and the record gets the settings the runner adds. Each episode
has its own one-worker pool, closed when it ends: Inspect decides which samples run
when, so no pool outlives a sample.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from blackboxes.box import SuiteInfo
from blackboxes.store import Box
from evaluator._pool import BoxWorkerPool, start_sandbox_worker
from evaluator._run_folder import episode_settings
from evaluator._starts import BoxStarts
from evaluator.executors import play_job
from evaluator.kinds import EpisodeKind, KindRun
from evaluator.llm_agents import LlmAgentSettings
from evaluator.runner import EpisodeJob
from oracle_bench.errors import EvaluationError

if TYPE_CHECKING:
    from sandbox import SandboxLimits

__all__ = ["SuiteRun", "play_episode"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SuiteRun:
    """A suite's run as a kind sees it (:class:`~evaluator.kinds.RunContext`), for the
    LLM agents that play through Inspect."""

    suite: SuiteInfo
    boxes: list[Box]
    seed: int
    repeats: int
    llm_names: frozenset[str]
    settings: LlmAgentSettings
    kind: EpisodeKind
    kind_settings: Any
    limits: SandboxLimits | None = None
    model_options: Mapping[str, Any] = field(default_factory=dict)
    """The model's options as recorded (Inspect's generate config)."""

    def llm_settings(self) -> LlmAgentSettings:
        return self.settings

    def job_record(self) -> dict[str, Any]:
        """What the runner adds to every LLM agent's trajectory: the settings that shaped
        it (``--protocol``, ``--history``, ...) and whether the suite's seed is public."""
        s = self.settings
        arguments = {
            **self.kind.arguments(self.kind_settings),
            "llm": {
                "options": dict(self.model_options),
                "protocol": s.protocol,
                "history": "full" if s.history is None else str(s.history),
                "max_reasks": s.max_reasks,
            },
        }
        seed = self.suite.seed
        return {
            "settings": episode_settings(arguments),
            "suite_seed": "secret" if seed is None else seed,
        }


def play_episode(run: SuiteRun, kind_run: KindRun, box: Box, job: EpisodeJob) -> Any:
    """The record of ``job`` on ``box`` (completed or failed, never raised for the
    episode's own failure), with the runner's job fields. Blocking: run it in a thread."""
    pool = BoxWorkerPool(1, start_sandbox_worker(run.limits))
    starts = BoxStarts(pool, 1)
    try:
        played = play_job(kind_run, pool, starts, box, job, job.scope)
    finally:
        pool.close()
        starts.close()
    if played.record is None:  # only a run budget stops an episode, and Inspect has none
        raise EvaluationError(f"episode {job.scope} stopped: {played.stopped}")
    return played.record.model_copy(update=run.job_record())
