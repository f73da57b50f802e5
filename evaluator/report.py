"""Recompute a run's results from its directory: ``oracle-eval report RUN_DIR``.

Every metric is a function of the trajectories (``RUN_DIR/trajectories/*.json``), so the
summary files (``summary.json``, ``summary.csv``, ``boxes.csv``; for DFA runs also
``metrics.json``) are rebuilt here without the suite and without rerunning any agent.
Turn@shot and DFA trajectories are told apart by their ``kind`` field; a directory mixing
both is refused.

The run's settings (suite, spec, feedback, seed, repeats, budget factor, buckets,
similarity length) come from its manifest(s): ``run.json`` and/or the shards'
``run.shard-<i>-of-<n>.json`` (they must agree). Trajectories outside the manifest's job
list (an agent not listed, a repetition >= repeats: leftovers of an earlier invocation)
are left out, as the runner's own summary leaves them out. Without a manifest the
settings come from the trajectories themselves (repeats: the highest repetition + 1).
Every kept trajectory must belong to the same run (suite, seed, spec and feedback, or
budget factor) and each job (box, agent, repetition) may appear once: the trajectories
of all shards in one directory make one summary.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from evaluator.dfa_metrics import (
    DEFAULT_SIMILARITY_LEN,
    DfaEpisodeMetrics,
    check_similarity_len,
    dfa_episode_metrics,
)
from evaluator.dfa_summary import (
    DEFAULT_BUCKETS,
    Bucket,
    DfaSummary,
    parse_buckets,
    summarise_dfa,
    write_dfa_summary,
)
from evaluator.dfa_trajectory import DfaTrajectory
from evaluator.summary import Summary, summarise, write_summary
from evaluator.trajectory import CorruptTrajectoryError, Trajectory
from oracle_bench.errors import EvaluationError, UsageError

__all__ = [
    "RunDirError",
    "RunRecords",
    "RunReport",
    "RunSettings",
    "load_run",
    "report_run",
    "summarise_run",
    "write_run_summary",
]

log = logging.getLogger(__name__)

"""The runner's bound on ``--similarity-len``."""

Kind = Literal["turns", "dfa"]
AnyTrajectory = Trajectory | DfaTrajectory


class RunDirError(EvaluationError):
    """A run directory whose files do not make one run. ``path`` names the file."""

    def __init__(self, message: str, path: Path) -> None:
        self.path = Path(path)
        super().__init__(f"{path}: {message}")


class _Loose(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class _ManifestArguments(_Loose):
    agents: list[str] | None = None
    spec: str | None = None
    feedback: str | None = None
    seed: int | None = None
    repeats: int | None = None
    budget_factor: float | None = None
    buckets: str | None = None
    similarity_len: int | None = None


class _Manifest(_Loose):
    """The fields of a run manifest a report needs (any manifest version)."""

    suite: str
    arguments: _ManifestArguments
    box_digests: dict[str, str] | None = None


@dataclass(frozen=True)
class RunSettings:
    """What a summary needs to know about a run besides its trajectories."""

    kind: Kind
    suite: str
    seed: int
    repeats: int
    spec: str | None = None
    """Turn@shot runs: ``"20@2"``."""
    feedback: str | None = None
    budget_factor: float | None = None
    """DFA runs."""
    buckets: tuple[Bucket, ...] = DEFAULT_BUCKETS
    similarity_len: int = DEFAULT_SIMILARITY_LEN
    agents: tuple[str, ...] | None = None
    """The job list's agents (None without a manifest)."""
    boxes: frozenset[str] | None = None
    """The job list's boxes (None without a manifest)."""


@dataclass(frozen=True)
class RunRecords:
    """A run directory, read and checked."""

    run_dir: Path
    settings: RunSettings
    trajectories: tuple[AnyTrajectory, ...]
    paths: tuple[Path, ...]
    """Parallel to ``trajectories``."""
    manifests: tuple[Path, ...]
    """The manifests the settings came from (empty: inferred from the trajectories)."""
    ignored: tuple[Path, ...]
    """Trajectories outside the manifest's job list."""

    @property
    def expected(self) -> int | None:
        """Episodes of the whole job list (every shard): boxes x agents x repeats, or None
        without a manifest."""
        s = self.settings
        if s.agents is None or s.boxes is None:
            return None
        return len(s.boxes) * len(s.agents) * s.repeats

    @property
    def missing(self) -> int:
        """Episodes of the job list with no trajectory here (a shard not run or not
        copied, a run stopped by its budget, a deleted file): the summary leaves them out."""
        expected = self.expected
        return 0 if expected is None else max(expected - len(self.trajectories), 0)


def _read_json(path: Path) -> Any:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise CorruptTrajectoryError(f"unreadable ({exc})", path) from None
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CorruptTrajectoryError(f"not valid JSON ({exc})", path) from None


def _validate(raw: Any, model: type[Any], path: Path) -> Any:
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "<root>"
        raise CorruptTrajectoryError(
            f"invalid {model.__name__}: {where}: {first['msg']} ({exc.error_count()} error(s))",
            path,
        ) from None


def _load_trajectory(path: Path) -> AnyTrajectory:
    raw = _read_json(path)
    if isinstance(raw, dict) and raw.get("kind") == "dfa":
        return _validate(raw, DfaTrajectory, path)
    return _validate(raw, Trajectory, path)


def _manifest_paths(run_dir: Path) -> list[Path]:
    paths = [run_dir / "run.json"] if (run_dir / "run.json").is_file() else []
    return paths + sorted(p for p in run_dir.glob("run.shard-*.json") if p.is_file())


def _from_manifest(path: Path) -> RunSettings:
    manifest: _Manifest = _validate(_read_json(path), _Manifest, path)
    args = manifest.arguments
    if args.seed is None or args.repeats is None:
        raise CorruptTrajectoryError("run manifest without seed or repeats", path)
    if args.spec is not None:
        return RunSettings(
            kind="turns",
            suite=manifest.suite,
            seed=args.seed,
            repeats=args.repeats,
            spec=args.spec,
            feedback=args.feedback or "instant",
            agents=tuple(args.agents) if args.agents is not None else None,
            boxes=frozenset(manifest.box_digests) if manifest.box_digests else None,
        )
    if args.budget_factor is None:
        raise CorruptTrajectoryError("run manifest with neither a spec nor a budget factor", path)
    try:
        buckets = DEFAULT_BUCKETS if args.buckets is None else parse_buckets(args.buckets)
    except UsageError as exc:
        raise CorruptTrajectoryError(str(exc), path) from None
    return RunSettings(
        kind="dfa",
        suite=manifest.suite,
        seed=args.seed,
        repeats=args.repeats,
        budget_factor=args.budget_factor,
        buckets=buckets,
        similarity_len=(
            DEFAULT_SIMILARITY_LEN if args.similarity_len is None else args.similarity_len
        ),
        agents=tuple(args.agents) if args.agents is not None else None,
        boxes=frozenset(manifest.box_digests) if manifest.box_digests else None,
    )


def _from_trajectory(traj: AnyTrajectory, repeats: int) -> RunSettings:
    if isinstance(traj, DfaTrajectory):
        return RunSettings(
            kind="dfa",
            suite=traj.suite,
            seed=traj.seed,
            repeats=repeats,
            budget_factor=traj.budget_factor,
        )
    return RunSettings(
        kind="turns",
        suite=traj.suite,
        seed=traj.seed,
        repeats=repeats,
        spec=f"{traj.spec.turns}@{traj.spec.shots}",
        feedback=traj.feedback,
    )


def _kind(traj: AnyTrajectory) -> Kind:
    return "dfa" if isinstance(traj, DfaTrajectory) else "turns"


_KIND_NAMES: dict[Kind, str] = {"turns": "turn@shot", "dfa": "DFA"}


def _identity(traj: AnyTrajectory) -> dict[str, Any]:
    """The fields every trajectory of one run shares."""
    if isinstance(traj, DfaTrajectory):
        return {"suite": traj.suite, "seed": traj.seed, "budget factor": traj.budget_factor}
    return {
        "suite": traj.suite,
        "seed": traj.seed,
        "spec": f"{traj.spec.turns}@{traj.spec.shots}",
        "feedback": traj.feedback,
    }


def _settings_identity(settings: RunSettings) -> dict[str, Any]:
    if settings.kind == "dfa":
        return {
            "suite": settings.suite,
            "seed": settings.seed,
            "budget factor": settings.budget_factor,
        }
    return {
        "suite": settings.suite,
        "seed": settings.seed,
        "spec": settings.spec,
        "feedback": settings.feedback,
    }


def _differs(a: dict[str, Any], b: dict[str, Any]) -> str | None:
    for key, value in a.items():
        if b.get(key) != value:
            return f"{key} {value!r} vs {b.get(key)!r}"
    return None


def load_run(run_dir: Path) -> RunRecords:
    """Read and check every trajectory and manifest of ``run_dir``.

    Raises :class:`UsageError` when ``run_dir`` is not a directory or holds no
    trajectory, :class:`CorruptTrajectoryError` for an unreadable or invalid file, and
    :class:`RunDirError` when the files do not make one run (both kinds of trajectory,
    a job twice, a trajectory or manifest of another run); each names the file.
    """
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        what = "does not exist" if not run_dir.exists() else "is not a directory"
        raise UsageError(f"{run_dir} {what} (expected a run directory made by oracle-eval)")
    files = sorted(p for p in (run_dir / "trajectories").glob("*.json") if p.is_file())
    if not files:
        raise UsageError(f"{run_dir}: no trajectories (expected {run_dir / 'trajectories'}/*.json)")
    loaded = [(path, _load_trajectory(path)) for path in files]
    kinds = [_kind(t) for _, t in loaded]
    if len(set(kinds)) > 1:
        # Name a file of the minority kind: most likely the stray one.
        major = max(set(kinds), key=lambda k: (kinds.count(k), k))
        stray = next(p for (p, _), k in zip(loaded, kinds, strict=True) if k != major)
        example = next(p for (p, _), k in zip(loaded, kinds, strict=True) if k == major)
        raise RunDirError(
            f"a {_KIND_NAMES[next(k for k in kinds if k != major)]} trajectory among "
            f"{_KIND_NAMES[major]} ones (e.g. {example.name}): one run per directory",
            stray,
        )
    first = loaded[0][1]

    manifests = _manifest_paths(run_dir)
    settings: RunSettings | None = None
    for path in manifests:
        mine = _from_manifest(path)
        if mine.kind != _kind(first):
            raise RunDirError(f"a {mine.kind} run manifest for {_kind(first)} trajectories", path)
        if settings is None:
            settings = mine
        elif mine != settings:
            raise RunDirError(f"the manifest disagrees with {manifests[0].name}", path)

    ignored: list[Path] = []
    if settings is not None:
        kept = []
        for path, traj in loaded:
            outside = (
                traj.repetition >= settings.repeats
                or (settings.agents is not None and traj.agent not in settings.agents)
                or (settings.boxes is not None and traj.box_id not in settings.boxes)
            )
            if outside:
                log.warning("%s: not in the run's job list; left out", path)
                ignored.append(path)
            else:
                kept.append((path, traj))
        if not kept:
            raise RunDirError("no trajectory belongs to this run's job list", manifests[0])
        loaded = kept
        expected = _settings_identity(settings)
        for path, traj in loaded:
            problem = _differs(expected, _identity(traj))
            if problem is not None:
                raise RunDirError(
                    f"trajectory of another run ({problem} in {manifests[0].name})", path
                )
    else:
        repeats = max(t.repetition for _, t in loaded) + 1
        settings = _from_trajectory(loaded[0][1], repeats)
        expected = _identity(loaded[0][1])
        for path, traj in loaded[1:]:
            problem = _differs(_identity(traj), expected)
            if problem is not None:
                raise RunDirError(
                    f"trajectory of another run than {loaded[0][0].name} ({problem})", path
                )

    seen: dict[tuple[str, str, int], Path] = {}
    for path, traj in loaded:
        job = (traj.box_id, traj.agent, traj.repetition)
        if job in seen:
            raise RunDirError(
                f"the same episode as {seen[job].name} "
                f"(box {job[0]}, agent {job[1]}, repetition {job[2]})",
                path,
            )
        seen[job] = path
    return RunRecords(
        run_dir=run_dir,
        settings=settings,
        trajectories=tuple(t for _, t in loaded),
        paths=tuple(p for p, _ in loaded),
        manifests=tuple(manifests),
        ignored=tuple(ignored),
    )


def _check_options(
    settings: RunSettings,
    buckets: Sequence[Bucket] | None,
    similarity_len: int | None,
) -> None:
    if settings.kind == "turns" and (buckets is not None or similarity_len is not None):
        raise UsageError(
            f"--buckets and --similarity-len apply to DFA runs only; this is a "
            f"{settings.spec} run of suite {settings.suite}"
        )
    if similarity_len is not None:
        check_similarity_len(similarity_len)


@dataclass(frozen=True)
class RunReport:
    """A recomputed summary and, for a DFA run, every episode's metrics by file name."""

    summary: Summary | DfaSummary
    episode_metrics: dict[str, tuple[str, DfaEpisodeMetrics]] | None = None


def summarise_run(
    records: RunRecords,
    *,
    seed: int | None = None,
    buckets: Sequence[Bucket] | None = None,
    similarity_len: int | None = None,
) -> RunReport:
    """The run's summary, recomputed from its trajectories.

    ``seed`` re-draws the bootstrap intervals with another seed (recorded as
    ``bootstrap_seed``); ``buckets`` and ``similarity_len`` (DFA runs only) override the
    run's. Raises :class:`UsageError` for options that do not apply.
    """
    s = records.settings
    _check_options(s, buckets, similarity_len)
    boot = None if seed is None or seed == s.seed else seed
    turns = [t for t in records.trajectories if isinstance(t, Trajectory)]
    dfa = [t for t in records.trajectories if isinstance(t, DfaTrajectory)]
    if s.spec is not None and s.feedback is not None and not dfa:
        summary = summarise(
            turns,
            suite=s.suite,
            spec=s.spec,
            feedback=s.feedback,
            seed=s.seed,
            repeats=s.repeats,
            bootstrap_seed=boot,
        )
        return RunReport(summary)
    if s.budget_factor is None or turns:
        raise EvaluationError(f"{records.run_dir}: the run's settings do not fit its trajectories")
    k = s.similarity_len if similarity_len is None else similarity_len
    metrics = [dfa_episode_metrics(t, similarity_len=k) for t in dfa]
    dfa_summary = summarise_dfa(
        dfa,
        suite=s.suite,
        seed=s.seed,
        repeats=s.repeats,
        budget_factor=s.budget_factor,
        buckets=tuple(s.buckets if buckets is None else buckets),
        metrics=metrics,
        similarity_len=k,
        bootstrap_seed=boot,
    )
    by_file = {
        path.name: (t.agent, m) for path, t, m in zip(records.paths, dfa, metrics, strict=True)
    }
    return RunReport(dfa_summary, by_file)


def write_run_summary(
    records: RunRecords, report: RunReport, out_dir: Path | None = None
) -> list[Path]:
    """Write the summary files into ``out_dir`` (default: the run directory); returns
    their paths."""
    out = records.run_dir if out_dir is None else Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    if isinstance(report.summary, DfaSummary):
        write_dfa_summary(report.summary, out, report.episode_metrics)
        names = ["summary.json", "summary.csv", "boxes.csv", "metrics.csv", "metrics.json"]
    else:
        write_summary(report.summary, out)
        names = ["summary.json", "summary.csv", "boxes.csv"]
    return [out / name for name in names]


def report_run(
    run_dir: Path,
    *,
    seed: int | None = None,
    buckets: Sequence[Bucket] | None = None,
    similarity_len: int | None = None,
) -> Summary | DfaSummary:
    """Recompute every metric of ``run_dir`` from its trajectories and rewrite its summary
    files (see the module docstring); errors as :func:`load_run` and
    :func:`summarise_run`."""
    records = load_run(run_dir)
    report = summarise_run(records, seed=seed, buckets=buckets, similarity_len=similarity_len)
    write_run_summary(records, report)
    return report.summary
