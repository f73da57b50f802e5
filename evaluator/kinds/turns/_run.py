"""A turn@shot run: the runner's episodes of one suite with one spec and feedback mode."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

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

__all__ = ["TurnsRun"]

log = logging.getLogger(__name__)


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

    def play(self, box: Box, job: EpisodeJobLike, env: Any) -> Trajectory:
        family = self.families[box.info.id]
        ctx = self.ctx(job)
        agent_ctx = AgentContext(
            family,
            box.info.level,
            rng_for(ctx.seed, "agent", ctx.agent_name, box.info.id, ctx.repetition),
        )
        try:
            if job.agent in self.run.llm_names:
                from evaluator.kinds.turns.llm import LlmAgent

                agent: Any = LlmAgent(job.agent, agent_ctx, self.run.llm_settings())
            else:
                agent = make_agent(job.agent, agent_ctx)
        except Exception as exc:
            log.info("agent %s cannot start: %s", job.agent, exc)
            return failed_trajectory(box, family, ctx, f"{type(exc).__name__}: {exc}", "agent")
        try:
            return run_episode(box, family, agent, env, ctx, SandboxSolutions(self.run.limits))
        finally:
            close_agent(agent)
