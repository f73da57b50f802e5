"""A puzzle run: the runner's episodes of one suite of puzzle boxes."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from blackboxes.box import BoxInfo
from blackboxes.families import family_for_box
from blackboxes.store import Box
from evaluator._jobs import close_agent, stored_record
from evaluator.failures import FailureCause, retried_on_resume
from evaluator.kinds._base import EpisodeJobLike, RunContext
from evaluator.kinds.puzzle._kind import PuzzleSettings
from evaluator.kinds.puzzle.protocol import (
    PuzzleAgentContext,
    PuzzleEpisodeContext,
    PuzzleFamily,
    failed_puzzle_trajectory,
    make_puzzle_agent,
    run_puzzle_episode,
)
from evaluator.kinds.puzzle.trajectory import PuzzleTrajectory, load_puzzle_trajectory
from oracle_bench.errors import CorruptBoxError
from oracle_bench.rng import rng_for

__all__ = ["PuzzleRun", "make_kind_agent"]

log = logging.getLogger(__name__)


def make_kind_agent(info: BoxInfo, job: EpisodeJobLike, run: RunContext) -> Any:
    """``job``'s agent on the box ``info`` describes (see ``EpisodeKind.make_agent``)."""
    family: Any = family_for_box(info)
    agent_ctx = PuzzleAgentContext(
        puzzle=family.puzzle,
        params=family.params,
        level=info.level,
        rng=rng_for(run.seed, "agent", job.agent, info.id, job.repetition),
    )
    if job.agent in run.llm_names:
        from evaluator.kinds.puzzle.llm import LlmPuzzleAgent

        return LlmPuzzleAgent(job.agent, agent_ctx, run.llm_settings())
    return make_puzzle_agent(job.agent, agent_ctx)


class PuzzleRun:
    """The :class:`~evaluator.kinds.KindRun` of puzzle episodes."""

    def __init__(self, run: RunContext, settings: PuzzleSettings) -> None:
        self.run = run
        self.settings = settings
        self.families: dict[str, PuzzleFamily] = {}
        for box in run.boxes:
            family: Any = family_for_box(box.info)
            if getattr(family, "puzzle", None) is None or getattr(family, "params", None) is None:
                raise CorruptBoxError(f"box {box.info.id} is not a puzzle box", box.path)
            self.families[box.info.id] = family

    def ctx(self, job: EpisodeJobLike) -> PuzzleEpisodeContext:
        s = self.settings
        return PuzzleEpisodeContext(
            suite=self.run.suite.name,
            agent_name=job.agent,
            spec=s.spec,
            feedback=s.feedback,
            context=s.context,
            seed=self.run.seed,
            repetition=job.repetition,
        )

    def reusable(self, path: Path, box: Box, job: EpisodeJobLike) -> PuzzleTrajectory | None:
        traj = stored_record(path, load_puzzle_trajectory)
        if traj is None:
            return None
        s = self.settings
        same = (
            not retried_on_resume(traj.status, traj.failure)
            and traj.box_id == box.info.id
            and traj.box_digest == box.digest
            and traj.agent == job.agent
            and (traj.turns, traj.shots) == (s.spec.turns, s.spec.shots)
            and traj.feedback == s.feedback
            and traj.context == s.context
            and traj.seed == self.run.seed
            and traj.repetition == job.repetition
        )
        return traj if same else None

    def cannot_start(
        self, box: Box, job: EpisodeJobLike, error: str, failure: FailureCause
    ) -> PuzzleTrajectory:
        family = self.families[box.info.id]
        return failed_puzzle_trajectory(box, family, self.ctx(job), error, failure)

    def play(
        self, box: Box, job: EpisodeJobLike, env: Any, agent: Callable[[], Any] | None = None
    ) -> PuzzleTrajectory:
        family = self.families[box.info.id]
        ctx = self.ctx(job)
        try:
            played: Any = agent() if agent is not None else make_kind_agent(box.info, job, self.run)
        except Exception as exc:
            log.info("agent %s cannot start: %s", job.agent, exc)
            message = f"{type(exc).__name__}: {exc}"
            return failed_puzzle_trajectory(box, family, ctx, message, "agent")
        try:
            return run_puzzle_episode(box, family, played, env, ctx)
        finally:
            close_agent(played)
