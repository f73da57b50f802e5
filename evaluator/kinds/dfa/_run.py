"""A DFA run: the runner's episodes of one suite with one budget factor."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from blackboxes.box import BoxInfo
from blackboxes.store import Box
from evaluator._jobs import close_agent, stored_record
from evaluator.failures import FailureCause, retried_on_resume
from evaluator.kinds._base import EpisodeJobLike, RunContext
from evaluator.kinds.dfa._kind import DfaSettings
from evaluator.kinds.dfa.protocol import (
    DEFAULT_MAX_INVALID_STREAK,
    DfaAgentContext,
    box_target,
    dfa_intro,
    episode_budget,
    failed_dfa_trajectory,
    make_dfa_agent,
    run_dfa_episode,
)
from evaluator.kinds.dfa.trajectory import DfaTrajectory, load_dfa_trajectory
from oracle_bench.errors import CorruptBoxError, EvaluationError
from oracle_bench.rng import rng_for

__all__ = ["DfaRun", "make_kind_agent"]

log = logging.getLogger(__name__)


def make_kind_agent(
    info: BoxInfo, job: EpisodeJobLike, run: RunContext, budget_factor: float
) -> Any:
    """``job``'s agent on the box ``info`` describes (see ``EpisodeKind.make_agent``):
    the alphabet and the reference cost are public (box.json)."""
    if info.dfa is None:
        raise EvaluationError(f"box {info.id} is not a DFA box (no 'dfa' facts)")
    alphabet = tuple(info.dfa.alphabet)
    budget = episode_budget(info.dfa.reference_cost, budget_factor)
    ctx = DfaAgentContext(
        alphabet=alphabet,
        budget=budget,
        intro=dfa_intro(alphabet, budget, DEFAULT_MAX_INVALID_STREAK),
        rng=rng_for(run.seed, "agent", job.agent, info.id, job.repetition),
    )
    if job.agent in run.llm_names:
        from evaluator.kinds.dfa.llm import LlmDfaAgent

        return LlmDfaAgent(job.agent, ctx, run.llm_settings())
    return make_dfa_agent(job.agent, ctx)


class DfaRun:
    """The :class:`~evaluator.kinds.KindRun` of DFA episodes. The box's code answers
    membership queries in its sandbox worker; equivalence queries are answered from
    hidden.json."""

    def __init__(self, run: RunContext, settings: DfaSettings) -> None:
        self.run = run
        self.settings = settings
        for box in run.boxes:
            try:
                box_target(box)
            except EvaluationError as exc:
                # Every record of an episode names its target: without one the suite
                # itself is unusable, for every agent.
                raise CorruptBoxError(str(exc), box.path) from None

    def common(self, job: EpisodeJobLike) -> dict[str, Any]:
        return {
            "suite": self.run.suite.name,
            "budget_factor": self.settings.budget_factor,
            "seed": self.run.seed,
            "repetition": job.repetition,
        }

    def reusable(self, path: Path, box: Box, job: EpisodeJobLike) -> DfaTrajectory | None:
        """The stored trajectory if it is a final record of exactly this job (completed,
        or failed for a cause a rerun would not change)."""
        traj = stored_record(path, load_dfa_trajectory)
        if traj is None:
            return None
        same = (
            not retried_on_resume(traj.status, traj.failure)
            and traj.box_id == box.info.id
            and traj.box_digest == box.digest
            and traj.agent == job.agent
            and traj.seed == self.run.seed
            and traj.repetition == job.repetition
            and traj.budget_factor == self.settings.budget_factor
        )
        return traj if same else None

    def cannot_start(
        self, box: Box, job: EpisodeJobLike, error: str, failure: FailureCause
    ) -> DfaTrajectory:
        return failed_dfa_trajectory(box, job.agent, error, failure, **self.common(job))

    def play(
        self, box: Box, job: EpisodeJobLike, env: Any, agent: Callable[[], Any] | None = None
    ) -> DfaTrajectory:
        common = self.common(job)
        try:
            played: Any = (
                agent()
                if agent is not None
                else make_kind_agent(box.info, job, self.run, self.settings.budget_factor)
            )
        except Exception as exc:
            log.info("agent %s cannot start: %s", job.agent, exc)
            message = f"{type(exc).__name__}: {exc}"
            return failed_dfa_trajectory(box, job.agent, message, "agent", **common)
        try:
            layers = sorted(str(getattr(layer, "value", layer)) for layer in env.layers)
        except Exception:
            layers = []
        try:
            return run_dfa_episode(
                box, job.agent, played, env.call, sandbox_layers=layers, **common
            )
        finally:
            close_agent(played)
