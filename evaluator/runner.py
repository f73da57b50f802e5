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
"""

from __future__ import annotations

import datetime as dt
import logging
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict

from blackboxes.families import Family, get_family
from blackboxes.store import Box, load_suite_boxes
from evaluator.agents import AgentContext, check_agent_name, make_agent
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
    "EpisodeJob",
    "ProgressEvent",
    "RunManifest",
    "RunResult",
    "evaluate_suite",
    "trajectory_path",
]

log = logging.getLogger(__name__)


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
    spec: str
    feedback: str
    seed: int
    repeats: int
    out_dir: str


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
    summary: Summary
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


def _reusable(path: Path, box: Box, ctx: EpisodeContext) -> Trajectory | None:
    """The stored trajectory if it is a completed record of exactly this job."""
    if not path.exists():
        return None
    try:
        traj = load_trajectory(path)
    except CorruptTrajectoryError as exc:
        log.warning("rerunning episode: %s", exc)
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
    spec: TurnShot,
    feedback: FeedbackMode,
    seed: int,
    out_dir: Path,
    repeats: int = 1,
    progress: Callable[[ProgressEvent], None] | None = None,
    limits: SandboxLimits | None = None,
) -> RunResult:
    """Run every (box, agent, repetition) episode of a suite that is not already done.

    Raises :class:`UsageError` for bad arguments and ``BoxError`` for a missing,
    corrupt or tampered suite; an episode's own failure is recorded, never raised.
    """
    if repeats < 1:
        raise UsageError(f"invalid repeats {repeats}: must be >= 1")
    if not agents:
        raise UsageError("no agent given")
    agents = [check_agent_name(a) for a in agents]
    if len(set(agents)) != len(agents):
        raise UsageError(f"agent listed twice: {', '.join(agents)}")
    feedback = parse_feedback(feedback)
    suite_dir, out_dir = Path(suite_dir), Path(out_dir)
    suite, boxes = load_suite_boxes(suite_dir)
    families: dict[str, Family] = {box.info.id: get_family(box.info.family) for box in boxes}

    started, clock = _now(), time.monotonic()
    total = len(boxes) * len(agents) * repeats
    done = executed = skipped = 0
    trajectories: list[Trajectory] = []
    paths: list[Path] = []
    for box in boxes:
        family = families[box.info.id]
        worker = _Worker(box, limits)
        try:
            for agent_name in agents:
                for rep in range(repeats):
                    job = EpisodeJob(box.info.id, agent_name, rep)
                    ctx = EpisodeContext(
                        suite=suite.name,
                        agent_name=agent_name,
                        spec=spec,
                        feedback=feedback,
                        seed=seed,
                        repetition=rep,
                    )
                    path = trajectory_path(out_dir, job)
                    traj = _reusable(path, box, ctx)
                    if traj is not None:
                        skipped += 1
                        action: Literal["ran", "skipped"] = "skipped"
                    else:
                        traj = _run_one(box, family, ctx, worker)
                        save_trajectory(traj, path)
                        executed += 1
                        action = "ran"
                        if traj.status == "failed":
                            worker.close()  # a fresh worker for the next episode
                    trajectories.append(traj)
                    paths.append(path)
                    done += 1
                    if progress is not None:
                        progress(ProgressEvent(done, total, job, action, traj.status))
        finally:
            worker.close()

    summary = summarise(
        trajectories,
        suite=suite.name,
        spec=str(spec),
        feedback=feedback,
        seed=seed,
        repeats=repeats,
    )
    write_summary(summary, out_dir)
    manifest = RunManifest(
        tool_version=__version__,
        arguments=RunArguments(
            suite_dir=str(suite_dir),
            agents=list(agents),
            spec=str(spec),
            feedback=feedback,
            seed=seed,
            repeats=repeats,
            out_dir=str(out_dir),
        ),
        suite=suite.name,
        suite_json_sha256=sha256_hex((suite_dir / "suite.json").read_bytes()),
        box_digests={box.info.id: box.digest for box in boxes},
        started=started,
        finished=_now(),
        duration_s=round(time.monotonic() - clock, 3),
        episodes=total,
        executed=executed,
        skipped=skipped,
        failed=sum(t.status == "failed" for t in trajectories),
    )
    atomic_write_text(out_dir / "run.json", canonical_json(manifest.model_dump(mode="json")))
    return RunResult(out_dir=out_dir, summary=summary, manifest=manifest, trajectories=tuple(paths))


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
