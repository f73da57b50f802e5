"""A turn@shot run: the runner's episodes of one suite with one spec and feedback mode."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from blackboxes.box import BoxInfo
from blackboxes.families import Family, family_for_box
from blackboxes.store import Box
from evaluator._jobs import close_agent, stored_record
from evaluator._solutions import SandboxSolutions
from evaluator.failures import FailureCause, retried_on_resume
from evaluator.kinds._base import EpisodeJobLike, RunContext
from evaluator.kinds.turns._kind import TurnsSettings
from evaluator.kinds.turns.agents import AgentContext, make_agent
from evaluator.kinds.turns.protocol import EpisodeContext, failed_trajectory, run_episode
from evaluator.kinds.turns.trajectory import Trajectory, load_trajectory
from oracle_bench.rng import rng_for

__all__ = ["TurnsRun", "make_turns_agent"]

log = logging.getLogger(__name__)


def make_turns_agent(info: BoxInfo, job: EpisodeJobLike, run: RunContext) -> Any:
    """``job``'s agent on the box ``info`` describes (see ``EpisodeKind.make_agent``)."""
    agent_ctx = AgentContext(
        family_for_box(info),
        info.level,
        rng_for(run.seed, "agent", job.agent, info.id, job.repetition),
    )
    if job.agent in run.llm_names:
        from evaluator.kinds.turns.llm import LlmAgent

        return LlmAgent(job.agent, agent_ctx, run.llm_settings())
    return make_agent(job.agent, agent_ctx)


class TurnsRun:
    """The :class:`~evaluator.kinds.KindRun` of turn@shot episodes."""

    def __init__(self, run: RunContext, settings: TurnsSettings) -> None:
        self.run = run
        self.settings = settings
        self.families: dict[str, Family] = {
            box.info.id: family_for_box(box.info) for box in run.boxes
        }

    def ctx(self, job: EpisodeJobLike) -> EpisodeContext:
        s = self.settings
        return EpisodeContext(
            suite=self.run.suite.name,
            agent_name=job.agent,
            spec=s.spec,
            feedback=s.feedback,
            seed=self.run.seed,
            repetition=job.repetition,
            invalid_costs_turn=s.invalid_turns == "count",
            max_reasks=s.max_reasks,
        )

    def reusable(self, path: Path, box: Box, job: EpisodeJobLike) -> Trajectory | None:
        """The stored trajectory if it is a final record of exactly this job: completed, or
        failed for a cause a rerun would not change (agent, box; see evaluator.failures)."""
        traj = stored_record(path, load_trajectory)
        if traj is None:
            return None
        ctx = self.ctx(job)
        same = (
            not retried_on_resume(traj.status, traj.failure)
            and traj.box_id == box.info.id
            and traj.box_digest == box.digest
            and traj.agent == ctx.agent_name
            and (traj.spec.turns, traj.spec.shots) == (ctx.spec.turns, ctx.spec.shots)
            and traj.feedback == ctx.feedback
            and traj.seed == ctx.seed
            and traj.repetition == ctx.repetition
        )
        return traj if same else None

    def cannot_start(
        self, box: Box, job: EpisodeJobLike, error: str, failure: FailureCause
    ) -> Trajectory:
        return failed_trajectory(box, self.families[box.info.id], self.ctx(job), error, failure)

    def play(
        self, box: Box, job: EpisodeJobLike, env: Any, agent: Callable[[], Any] | None = None
    ) -> Trajectory:
        family = self.families[box.info.id]
        ctx = self.ctx(job)
        try:
            played: Any = (
                agent() if agent is not None else make_turns_agent(box.info, job, self.run)
            )
        except Exception as exc:
            log.info("agent %s cannot start: %s", job.agent, exc)
            return failed_trajectory(box, family, ctx, f"{type(exc).__name__}: {exc}", "agent")
        try:
            return run_episode(box, family, played, env, ctx, SandboxSolutions(self.run.limits))
        finally:
            close_agent(played)
