"""A game run: the runner's episodes of one suite of game boxes."""

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
from evaluator.kinds.game._kind import GameSettings
from evaluator.kinds.game.protocol import (
    GameAgentContext,
    GameEpisodeContext,
    GameFamily,
    failed_game_trajectory,
    make_game_agent,
    run_game_episode,
)
from evaluator.kinds.game.trajectory import GameTrajectory, load_game_trajectory
from oracle_bench.errors import CorruptBoxError, OracleBenchError
from oracle_bench.rng import rng_for

__all__ = ["GameRun", "make_kind_agent"]

log = logging.getLogger(__name__)


def make_kind_agent(info: BoxInfo, job: EpisodeJobLike, run: RunContext) -> Any:
    """``job``'s agent on the box ``info`` describes (see ``EpisodeKind.make_agent``)."""
    family: Any = family_for_box(info)
    agent_ctx = GameAgentContext(
        family=family,
        level=info.level,
        rng=rng_for(run.seed, "agent", job.agent, info.id, job.repetition),
    )
    if job.agent in run.llm_names:
        from evaluator.kinds.game.llm import LlmGameAgent

        return LlmGameAgent(job.agent, agent_ctx, run.llm_settings())
    return make_game_agent(job.agent, agent_ctx)


class GameRun:
    """The :class:`~evaluator.kinds.KindRun` of game episodes."""

    def __init__(self, run: RunContext, settings: GameSettings) -> None:
        self.run = run
        self.settings = settings
        self.families: dict[str, GameFamily] = {}
        for box in run.boxes:
            family: Any = family_for_box(box.info)
            try:
                family.true_opponent(box.hidden)
                list(family.evaluation_settings)
            except (AttributeError, OracleBenchError, ValueError) as exc:
                raise CorruptBoxError(
                    f"box {box.info.id} is not a game box: {exc}", box.path
                ) from None
            self.families[box.info.id] = family

    def ctx(self, job: EpisodeJobLike) -> GameEpisodeContext:
        return GameEpisodeContext(
            suite=self.run.suite.name,
            agent_name=job.agent,
            spec=self.settings.spec,
            context=self.settings.context,
            seed=self.run.seed,
            repetition=job.repetition,
        )

    def reusable(self, path: Path, box: Box, job: EpisodeJobLike) -> GameTrajectory | None:
        traj = stored_record(path, load_game_trajectory)
        if traj is None:
            return None
        s = self.settings
        same = (
            not retried_on_resume(traj.status, traj.failure)
            and traj.box_id == box.info.id
            and traj.box_digest == box.digest
            and traj.agent == job.agent
            and (traj.turns, traj.shots) == (s.spec.turns, s.spec.shots)
            and traj.context == s.context
            and traj.seed == self.run.seed
            and traj.repetition == job.repetition
        )
        return traj if same else None

    def cannot_start(
        self, box: Box, job: EpisodeJobLike, error: str, failure: FailureCause
    ) -> GameTrajectory:
        return failed_game_trajectory(
            box, self.families[box.info.id], self.ctx(job), error, failure
        )

    def play(
        self, box: Box, job: EpisodeJobLike, env: Any, agent: Callable[[], Any] | None = None
    ) -> GameTrajectory:
        family = self.families[box.info.id]
        ctx = self.ctx(job)
        try:
            played: Any = agent() if agent is not None else make_kind_agent(box.info, job, self.run)
        except Exception as exc:
            log.info("agent %s cannot start: %s", job.agent, exc)
            message = f"{type(exc).__name__}: {exc}"
            return failed_game_trajectory(box, family, ctx, message, "agent")
        try:
            return run_game_episode(box, family, played, env, ctx)
        finally:
            close_agent(played)
