"""Evaluate a suite: boxes x agents x repetitions, resumable, one trajectory per episode.

Layout of ``out_dir``::

    trajectories/<box>__<agent>__r<rep>.json   one per episode, written atomically
    run.json                                   RunManifest: arguments, versions, digests, timing
    summary.json, summary.csv                  aggregates (see evaluator.summary)

Rerunning with the same arguments skips every episode whose trajectory exists,
validates, completed, and matches the job (box digest, agent, spec, feedback, seed,
repetition); failed episodes are retried. One sandbox worker serves all of a box's
pending episodes (restarted after a failed episode); a box whose worker cannot start
gets failed trajectories with the reason and the run goes on.

A suite whose family is ``DFA`` runs DFA episodes instead (``evaluator.dfa_protocol``):
no turn@shot spec or feedback mode, a budget factor instead, DFA agents (``lstar``,
``kv``, ``ttt``), :class:`~evaluator.dfa_trajectory.DfaTrajectory` files in the same
layout (reused when they also match the budget factor) and a
:class:`~evaluator.dfa_summary.DfaSummary`. The box's code answers membership queries
in its sandbox worker; equivalence queries are answered from hidden.json.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict

from blackboxes.box import SuiteInfo
from blackboxes.families import Family, get_family
from blackboxes.store import Box, load_box, load_suite
from evaluator.agents import AgentContext, check_agent_name, make_agent
from evaluator.dfa_metrics import DEFAULT_SIMILARITY_LEN, dfa_episode_metrics
from evaluator.dfa_protocol import (
    DEFAULT_BUDGET_FACTOR,
    DEFAULT_MAX_INVALID_STREAK,
    DfaAgentContext,
    box_target,
    check_budget_factor,
    check_dfa_agent_name,
    dfa_intro,
    episode_budget,
    failed_dfa_trajectory,
    make_dfa_agent,
    run_dfa_episode,
)
from evaluator.dfa_summary import (
    DEFAULT_BUCKETS,
    Bucket,
    DfaSummary,
    format_buckets,
    summarise_dfa,
    write_dfa_summary,
)
from evaluator.dfa_trajectory import DfaTrajectory, load_dfa_trajectory, save_dfa_trajectory
from evaluator.protocol import EpisodeContext, failed_trajectory, run_episode
from evaluator.spec import FeedbackMode, TurnShot, parse_feedback
from evaluator.summary import Summary, summarise, write_summary
from evaluator.trajectory import (
    CorruptTrajectoryError,
    Trajectory,
    load_trajectory,
    save_trajectory,
)
from oracle_bench import __version__
from oracle_bench.errors import OracleBenchError, UsageError
from oracle_bench.jsonio import atomic_write_text, canonical_json, sha256_hex
from oracle_bench.rng import rng_for

if TYPE_CHECKING:
    from sandbox import SandboxLimits

__all__ = [
    "DFA_FAMILY",
    "MAX_SIMILARITY_LEN",
    "EpisodeJob",
    "ProgressEvent",
    "RunManifest",
    "RunResult",
    "evaluate_suite",
    "is_dfa_suite",
    "trajectory_path",
]

log = logging.getLogger(__name__)

DFA_FAMILY = "DFA"
MAX_SIMILARITY_LEN = 10_000
"""Beyond this K the big-integer counts only cost time: the score no longer moves."""


def is_dfa_suite(suite: SuiteInfo) -> bool:
    """True for a suite of DFA boxes (MQ/EQ episodes rather than turn@shot)."""
    return suite.family.upper() == DFA_FAMILY


@dataclass(frozen=True)
class EpisodeJob:
    box_id: str
    agent: str
    repetition: int


@dataclass(frozen=True)
class ProgressEvent:
    """Reported after every episode (run or skipped)."""

    done: int
    total: int
    job: EpisodeJob
    action: Literal["ran", "skipped"]
    status: Literal["completed", "failed"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class RunArguments(_Model):
    suite_dir: str
    agents: list[str]
    spec: str | None
    """None for a DFA suite."""
    feedback: str | None
    seed: int
    repeats: int
    out_dir: str
    budget_factor: float | None = None
    """DFA suites only."""
    buckets: str | None = None
    """DFA suites only: the summary's state buckets, e.g. ``2-3,4-5,6-7,8-9``."""
    similarity_len: int | None = None
    """DFA suites only: K of the best-hypothesis similarity (words of length <= K)."""


class RunManifest(_Model):
    """run.json: what was run, on what, with which tool; the only file with timings."""

    schema_version: int = 1
    tool_version: str
    arguments: RunArguments
    suite: str
    suite_json_sha256: str
    box_digests: dict[str, str]
    started: str
    finished: str
    duration_s: float
    episodes: int
    executed: int
    skipped: int
    failed: int


@dataclass(frozen=True)
class RunResult:
    out_dir: Path
    summary: Summary | DfaSummary
    """A :class:`DfaSummary` for a DFA suite."""
    manifest: RunManifest
    trajectories: tuple[Path, ...]

    @property
    def executed(self) -> int:
        return self.manifest.executed

    @property
    def skipped(self) -> int:
        return self.manifest.skipped

    @property
    def failed(self) -> int:
        return self.manifest.failed


_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def trajectory_path(out_dir: Path, job: EpisodeJob) -> Path:
    """``<out>/trajectories/<box>__<agent>__r<rep>.json`` (agent made file-name safe)."""
    agent = _UNSAFE.sub("-", job.agent)
    return Path(out_dir) / "trajectories" / f"{job.box_id}__{agent}__r{job.repetition}.json"


_T = TypeVar("_T")


def _stored(path: Path, load: Callable[[Path], _T]) -> _T | None:
    """The record at ``path``, or None if there is none or it is corrupt (then rerun)."""
    if not path.exists():
        return None
    try:
        return load(path)
    except CorruptTrajectoryError as exc:
        log.warning("rerunning episode: %s", exc)
        return None


def _reusable(path: Path, box: Box, ctx: EpisodeContext) -> Trajectory | None:
    """The stored trajectory if it is a completed record of exactly this job."""
    traj = _stored(path, load_trajectory)
    if traj is None:
        return None
    same = (
        traj.status == "completed"
        and traj.box_id == box.info.id
        and traj.box_digest == box.digest
        and traj.agent == ctx.agent_name
        and (traj.spec.turns, traj.spec.shots) == (ctx.spec.turns, ctx.spec.shots)
        and traj.feedback == ctx.feedback
        and traj.seed == ctx.seed
        and traj.repetition == ctx.repetition
    )
    return traj if same else None


class _Worker:
    """Lazily started, restartable sandbox worker for one box."""

    def __init__(self, box: Box, limits: SandboxLimits | None) -> None:
        self.box = box
        self.limits = limits
        self._worker: Any = None

    def get(self) -> Any:
        if self._worker is None:
            from sandbox import SandboxLimits, SandboxWorker

            worker = SandboxWorker(
                self.box.code,
                entry=self.box.info.entry,
                limits=self.limits if self.limits is not None else SandboxLimits(),
            )
            self._worker = worker.__enter__()
        return self._worker

    def close(self) -> None:
        worker, self._worker = self._worker, None
        if worker is not None:
            try:
                worker.__exit__(None, None, None)
            except Exception as exc:  # closing must not end the run
                log.warning("box %s: closing the sandbox worker failed: %s", self.box.info.id, exc)


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def evaluate_suite(
    suite_dir: Path,
    agents: Sequence[str],
    spec: TurnShot | None,
    feedback: FeedbackMode | None,
    seed: int,
    out_dir: Path,
    repeats: int = 1,
    progress: Callable[[ProgressEvent], None] | None = None,
    limits: SandboxLimits | None = None,
    *,
    budget_factor: float | None = None,
    buckets: Sequence[Bucket] | None = None,
    similarity_len: int | None = None,
) -> RunResult:
    """Run every (box, agent, repetition) episode of a suite that is not already done.

    Turn@shot suites need ``spec`` (``feedback`` defaults to instant) and refuse
    ``budget_factor``/``buckets``; DFA suites refuse ``spec`` and ``feedback`` and take
    ``budget_factor`` (default 2), ``buckets`` (the summary's state ranges) and
    ``similarity_len`` (K of the best-hypothesis similarity, default 200). Agent
    names are checked against the suite's kind of episode.

    Raises :class:`UsageError` for bad arguments and ``BoxError`` for a missing,
    corrupt or tampered suite; an episode's own failure is recorded, never raised.
    """
    if repeats < 1:
        raise UsageError(f"invalid repeats {repeats}: must be >= 1")
    if not agents:
        raise UsageError("no agent given")
    if feedback is not None:
        feedback = parse_feedback(feedback)
    if budget_factor is not None:
        budget_factor = check_budget_factor(budget_factor)
    if similarity_len is not None and not 0 <= similarity_len <= MAX_SIMILARITY_LEN:
        raise UsageError(
            f"invalid --similarity-len {similarity_len}: must be in 0..{MAX_SIMILARITY_LEN}"
        )
    suite_dir, out_dir = Path(suite_dir), Path(out_dir)
    suite = load_suite(suite_dir)
    dfa = is_dfa_suite(suite)
    if dfa:
        if spec is not None:
            raise UsageError(
                f"suite {suite.name} is a DFA suite: it takes no TURNS@SHOTS spec "
                "(its budget is --budget-factor x the box's reference cost)"
            )
        if feedback is not None:
            raise UsageError(f"suite {suite.name} is a DFA suite: it takes no feedback mode")
        agents = [check_dfa_agent_name(a) for a in agents]
    else:
        if spec is None:
            raise UsageError(f"suite {suite.name} needs a TURNS@SHOTS spec, e.g. 10@1")
        if budget_factor is not None or buckets is not None or similarity_len is not None:
            raise UsageError(
                "--budget-factor, --buckets and --similarity-len apply to DFA suites only; "
                f"suite {suite.name} is {suite.family}"
            )
        agents = [check_agent_name(a) for a in agents]
    if len(set(agents)) != len(agents):
        raise UsageError(f"agent listed twice: {', '.join(agents)}")
    boxes = [load_box(suite_dir, entry) for entry in suite.boxes]
    run = _Run(suite_dir, out_dir, suite, boxes, list(agents), seed, repeats, progress, limits)
    if dfa:
        factor = DEFAULT_BUDGET_FACTOR if budget_factor is None else budget_factor
        k = DEFAULT_SIMILARITY_LEN if similarity_len is None else similarity_len
        return run.dfa(factor, tuple(DEFAULT_BUCKETS if buckets is None else buckets), k)
    assert spec is not None
    return run.turns(spec, feedback or "instant")


@dataclass
class _Run:
    """The shared loop of both kinds of suite: jobs, resume, workers, manifest."""

    suite_dir: Path
    out_dir: Path
    suite: SuiteInfo
    boxes: list[Box]
    agents: list[str]
    seed: int
    repeats: int
    progress: Callable[[ProgressEvent], None] | None
    limits: SandboxLimits | None

    def loop(
        self,
        episode: Callable[[Box, str, int, Path, _Worker], tuple[Any, bool]],
    ) -> tuple[list[Any], list[Path], int, int, str, float]:
        """Run ``episode(box, agent, rep, path, worker) -> (trajectory, ran)`` over all jobs."""
        started, clock = _now(), time.monotonic()
        total = len(self.boxes) * len(self.agents) * self.repeats
        done = executed = skipped = 0
        trajectories: list[Any] = []
        paths: list[Path] = []
        for box in self.boxes:
            worker = _Worker(box, self.limits)
            try:
                for agent_name in self.agents:
                    for rep in range(self.repeats):
                        job = EpisodeJob(box.info.id, agent_name, rep)
                        path = trajectory_path(self.out_dir, job)
                        traj, ran = episode(box, agent_name, rep, path, worker)
                        if ran:
                            executed += 1
                            if traj.status == "failed":
                                worker.close()  # a fresh worker for the next episode
                        else:
                            skipped += 1
                        trajectories.append(traj)
                        paths.append(path)
                        done += 1
                        if self.progress is not None:
                            action: Literal["ran", "skipped"] = "ran" if ran else "skipped"
                            self.progress(ProgressEvent(done, total, job, action, traj.status))
            finally:
                worker.close()
        return trajectories, paths, executed, skipped, started, clock

    def finish(
        self,
        arguments: RunArguments,
        summary: Summary | DfaSummary,
        trajectories: Sequence[Any],
        paths: list[Path],
        executed: int,
        skipped: int,
        started: str,
        clock: float,
    ) -> RunResult:
        manifest = RunManifest(
            tool_version=__version__,
            arguments=arguments,
            suite=self.suite.name,
            suite_json_sha256=sha256_hex((self.suite_dir / "suite.json").read_bytes()),
            box_digests={box.info.id: box.digest for box in self.boxes},
            started=started,
            finished=_now(),
            duration_s=round(time.monotonic() - clock, 3),
            episodes=len(trajectories),
            executed=executed,
            skipped=skipped,
            failed=sum(t.status == "failed" for t in trajectories),
        )
        atomic_write_text(
            self.out_dir / "run.json", canonical_json(manifest.model_dump(mode="json"))
        )
        return RunResult(
            out_dir=self.out_dir, summary=summary, manifest=manifest, trajectories=tuple(paths)
        )

    # -- turn@shot ---------------------------------------------------------------
    def turns(self, spec: TurnShot, feedback: FeedbackMode) -> RunResult:
        families: dict[str, Family] = {
            box.info.id: get_family(box.info.family) for box in self.boxes
        }

        def episode(
            box: Box, agent_name: str, rep: int, path: Path, worker: _Worker
        ) -> tuple[Trajectory, bool]:
            ctx = EpisodeContext(
                suite=self.suite.name,
                agent_name=agent_name,
                spec=spec,
                feedback=feedback,
                seed=self.seed,
                repetition=rep,
            )
            traj = _reusable(path, box, ctx)
            if traj is not None:
                return traj, False
            traj = _run_one(box, families[box.info.id], ctx, worker)
            save_trajectory(traj, path)
            return traj, True

        trajectories, paths, executed, skipped, started, clock = self.loop(episode)
        summary = summarise(
            trajectories,
            suite=self.suite.name,
            spec=str(spec),
            feedback=feedback,
            seed=self.seed,
            repeats=self.repeats,
        )
        write_summary(summary, self.out_dir)
        arguments = RunArguments(
            suite_dir=str(self.suite_dir),
            agents=list(self.agents),
            spec=str(spec),
            feedback=feedback,
            seed=self.seed,
            repeats=self.repeats,
            out_dir=str(self.out_dir),
        )
        return self.finish(
            arguments, summary, trajectories, paths, executed, skipped, started, clock
        )

    # -- DFA ---------------------------------------------------------------------
    def dfa(
        self, budget_factor: float, buckets: tuple[Bucket, ...], similarity_len: int
    ) -> RunResult:
        def episode(
            box: Box, agent_name: str, rep: int, path: Path, worker: _Worker
        ) -> tuple[DfaTrajectory, bool]:
            traj = _reusable_dfa(path, box, agent_name, self.seed, rep, budget_factor)
            if traj is not None:
                return traj, False
            traj = _run_one_dfa(
                box, agent_name, self.suite.name, self.seed, rep, budget_factor, worker
            )
            save_dfa_trajectory(traj, path)
            return traj, True

        trajectories, paths, executed, skipped, started, clock = self.loop(episode)
        metrics = [dfa_episode_metrics(t, similarity_len=similarity_len) for t in trajectories]
        summary = summarise_dfa(
            trajectories,
            suite=self.suite.name,
            seed=self.seed,
            repeats=self.repeats,
            budget_factor=budget_factor,
            buckets=buckets,
            metrics=metrics,
            similarity_len=similarity_len,
        )
        by_file = {
            p.name: (t.agent, m) for p, t, m in zip(paths, trajectories, metrics, strict=True)
        }
        write_dfa_summary(summary, self.out_dir, by_file)
        arguments = RunArguments(
            suite_dir=str(self.suite_dir),
            agents=list(self.agents),
            spec=None,
            feedback=None,
            seed=self.seed,
            repeats=self.repeats,
            out_dir=str(self.out_dir),
            budget_factor=budget_factor,
            buckets=format_buckets(buckets),
            similarity_len=similarity_len,
        )
        return self.finish(
            arguments, summary, trajectories, paths, executed, skipped, started, clock
        )


def _run_one(box: Box, family: Family, ctx: EpisodeContext, worker: _Worker) -> Trajectory:
    try:
        env = worker.get()
    except OracleBenchError as exc:
        # SandboxCompileError, IsolationUnavailableError, WorkerError: the box cannot start.
        log.warning("box %s cannot start: %s", box.info.id, exc)
        return failed_trajectory(box, family, ctx, f"{type(exc).__name__}: {exc}")
    agent_rng = rng_for(ctx.seed, "agent", ctx.agent_name, box.info.id, ctx.repetition)
    try:
        agent = make_agent(ctx.agent_name, AgentContext(family, box.info.level, agent_rng))
    except Exception as exc:
        log.warning("agent %s cannot start: %s", ctx.agent_name, exc)
        return failed_trajectory(box, family, ctx, f"{type(exc).__name__}: {exc}")
    return run_episode(box, family, agent, env, ctx)


def _reusable_dfa(
    path: Path, box: Box, agent: str, seed: int, repetition: int, budget_factor: float
) -> DfaTrajectory | None:
    """The stored DFA trajectory if it is a completed record of exactly this job."""
    traj = _stored(path, load_dfa_trajectory)
    if traj is None:
        return None
    same = (
        traj.status == "completed"
        and traj.box_id == box.info.id
        and traj.box_digest == box.digest
        and traj.agent == agent
        and traj.seed == seed
        and traj.repetition == repetition
        and traj.budget_factor == budget_factor
    )
    return traj if same else None


def _run_one_dfa(
    box: Box,
    agent_name: str,
    suite: str,
    seed: int,
    repetition: int,
    budget_factor: float,
    worker: _Worker,
) -> DfaTrajectory:
    common: dict[str, Any] = {
        "suite": suite,
        "budget_factor": budget_factor,
        "seed": seed,
        "repetition": repetition,
    }
    try:
        env = worker.get()
    except OracleBenchError as exc:
        log.warning("box %s cannot start: %s", box.info.id, exc)
        return failed_dfa_trajectory(box, agent_name, f"{type(exc).__name__}: {exc}", **common)
    target, info = box_target(box)
    budget = episode_budget(info.reference_cost, budget_factor)
    ctx = DfaAgentContext(
        alphabet=target.alphabet,
        budget=budget,
        intro=dfa_intro(target.alphabet, budget, DEFAULT_MAX_INVALID_STREAK),
        rng=rng_for(seed, "agent", agent_name, box.info.id, repetition),
    )
    try:
        agent = make_dfa_agent(agent_name, ctx)
    except Exception as exc:
        log.warning("agent %s cannot start: %s", agent_name, exc)
        return failed_dfa_trajectory(box, agent_name, f"{type(exc).__name__}: {exc}", **common)
    try:
        layers = sorted(str(getattr(layer, "value", layer)) for layer in env.layers)
    except Exception:
        layers = []
    return run_dfa_episode(box, agent_name, agent, env.call, sandbox_layers=layers, **common)
