"""Recompute a run's results from its directory: ``oracle-eval report RUN_DIR``.

Every metric is a function of the trajectories (``RUN_DIR/trajectories/*.json``), so the
summary files (``summary.json``, ``summary.csv``, ``boxes.csv``; for DFA runs also
``metrics.json``) are rebuilt here without the suite and without rerunning any agent.
A trajectory's ``kind`` field names its kind of episode (:mod:`evaluator.kinds`; the
turn@shot records written before the field existed carry none), which reads, summarises
and tabulates it; a directory mixing kinds is refused.

The run's settings (suite, seed, repeats and the kind's own: spec and feedback, or budget
factor, buckets and similarity length) come from its manifest(s): ``run.json`` and/or the shards'
``run.shard-<i>-of-<n>.json`` (they must agree). Trajectories outside the manifest's job
list (an agent not listed, a repetition >= repeats: leftovers of an earlier invocation)
are left out, as the runner's own summary leaves them out. Without a manifest the
settings come from the trajectories themselves (repeats: the highest repetition + 1).
Every kept trajectory must belong to the same run (suite, seed and the kind's settings:
spec and feedback, or budget factor) and each job (box, agent, repetition) may appear
once: the trajectories of all shards in one directory make one summary.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from evaluator.kinds import (
    EpisodeKind,
    KindReport,
    KindSummary,
    check_options,
    manifest_kind,
    record_kind,
)
from evaluator.records import CorruptTrajectoryError, validate_record
from oracle_bench.errors import EvaluationError, UnknownNameError, UsageError

__all__ = [
    "RunDirError",
    "RunRecords",
    "RunSettings",
    "load_run",
    "load_run_or_log",
    "load_runs",
    "report_run",
    "summarise_run",
    "write_run_summary",
]

log = logging.getLogger(__name__)


class RunDirError(EvaluationError):
    """A run directory whose files do not make one run. ``path`` names the file."""

    def __init__(self, message: str, path: Path) -> None:
        self.path = Path(path)
        super().__init__(f"{path}: {message}")


class _Loose(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class _ManifestArguments(_Loose):
    agents: list[str] | None = None
    seed: int | None = None
    repeats: int | None = None


class _Manifest(_Loose):
    """The fields of a run manifest a report needs (any manifest version)."""

    suite: str
    arguments: _ManifestArguments
    box_digests: dict[str, str] | None = None


@dataclass(frozen=True)
class RunSettings:
    """What a summary needs to know about a run besides its trajectories."""

    kind: EpisodeKind
    suite: str
    seed: int
    repeats: int
    settings: Any
    """The kind's own settings (``EpisodeKind.configure``)."""
    agents: tuple[str, ...] | None = None
    """The job list's agents (None without a manifest)."""
    boxes: frozenset[str] | None = None
    """The job list's boxes (None without a manifest)."""


@dataclass(frozen=True)
class RunRecords:
    """A run directory, read and checked."""

    run_dir: Path
    settings: RunSettings
    trajectories: tuple[Any, ...]
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


def _load_trajectory(path: Path) -> tuple[EpisodeKind, Any]:
    raw = _read_json(path)
    try:
        kind = record_kind(raw)
    except UnknownNameError as exc:
        raise CorruptTrajectoryError(str(exc), path) from None
    return kind, kind.load_record(raw, path)


def _manifest_paths(run_dir: Path) -> list[Path]:
    paths = [run_dir / "run.json"] if (run_dir / "run.json").is_file() else []
    return paths + sorted(p for p in run_dir.glob("run.shard-*.json") if p.is_file())


def _from_manifest(path: Path, kind: EpisodeKind) -> RunSettings:
    raw = _read_json(path)
    manifest: _Manifest = validate_record(raw, _Manifest, path)
    args = manifest.arguments
    if args.seed is None or args.repeats is None:
        raise CorruptTrajectoryError("run manifest without seed or repeats", path)
    try:
        named = manifest_kind(raw) if isinstance(raw, dict) else None
    except UnknownNameError as exc:
        raise CorruptTrajectoryError(str(exc), path) from None
    if named is None:
        raise CorruptTrajectoryError("a run manifest that names no kind of episode", path)
    if named is not kind:
        raise RunDirError(f"a {named.title} run manifest for {kind.title} trajectories", path)
    arguments = raw["arguments"] if isinstance(raw.get("arguments"), Mapping) else {}
    return RunSettings(
        kind=kind,
        suite=manifest.suite,
        seed=args.seed,
        repeats=args.repeats,
        settings=kind.settings_of_manifest(arguments, path),
        agents=tuple(args.agents) if args.agents is not None else None,
        boxes=frozenset(manifest.box_digests) if manifest.box_digests else None,
    )


def _identity(kind: EpisodeKind, traj: Any) -> dict[str, Any]:
    """The fields every trajectory of one run shares."""
    return {"suite": traj.suite, "seed": traj.seed, **kind.identity(traj)}


def _settings_identity(settings: RunSettings) -> dict[str, Any]:
    return {
        "suite": settings.suite,
        "seed": settings.seed,
        **settings.kind.settings_identity(settings.settings),
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
    :class:`RunDirError` when the files do not make one run (kinds mixed, a job twice,
    a trajectory or manifest of another run); each names the file.
    """
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        what = "does not exist" if not run_dir.exists() else "is not a directory"
        raise UsageError(f"{run_dir} {what} (expected a run directory made by oracle-eval)")
    files = sorted(p for p in (run_dir / "trajectories").glob("*.json") if p.is_file())
    if not files:
        raise UsageError(f"{run_dir}: no trajectories (expected {run_dir / 'trajectories'}/*.json)")
    read = [(path, *_load_trajectory(path)) for path in files]
    kinds = [k.name for _, k, _ in read]
    if len(set(kinds)) > 1:
        # Name a file of the minority kind: most likely the stray one.
        major = max(set(kinds), key=lambda k: (kinds.count(k), k))
        stray = next((p, k) for p, k, _ in read if k.name != major)
        example = next((p, k) for p, k, _ in read if k.name == major)
        raise RunDirError(
            f"a {stray[1].title} trajectory among {example[1].title} ones "
            f"(e.g. {example[0].name}): one run per directory",
            stray[0],
        )
    kind = read[0][1]
    loaded = [(path, traj) for path, _, traj in read]

    manifests = _manifest_paths(run_dir)
    settings: RunSettings | None = None
    for path in manifests:
        mine = _from_manifest(path, kind)
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
            problem = _differs(expected, _identity(kind, traj))
            if problem is not None:
                raise RunDirError(
                    f"trajectory of another run ({problem} in {manifests[0].name})", path
                )
    else:
        first = loaded[0][1]
        settings = RunSettings(
            kind=kind,
            suite=first.suite,
            seed=first.seed,
            repeats=max(t.repetition for _, t in loaded) + 1,
            settings=kind.settings_of_record(first),
        )
        expected = _identity(kind, first)
        for path, traj in loaded[1:]:
            problem = _differs(_identity(kind, traj), expected)
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


def load_run_or_log(path: Path) -> RunRecords:
    """:func:`load_run` of a run folder, or the records of an Inspect log of the
    ``oracle_bench/oracle`` task (``.eval``/``.json``; needs the ``inspect`` extra,
    :class:`UsageError` without it)."""
    import importlib.util

    from evaluator.integrations.inspect._log import is_inspect_log, load_inspect_log

    path = Path(path)
    if not is_inspect_log(path):
        return load_run(path)
    if importlib.util.find_spec("inspect_ai") is None:
        raise UsageError(
            f"{path}: reading an Inspect log needs inspect-ai: pip install 'oracle-bench[inspect]'"
        )
    return load_inspect_log(path)


def load_runs(paths: Sequence[Path]) -> list[RunRecords]:
    """:func:`load_run_or_log` of each path, in order (errors as there, naming the file)."""
    return [load_run_or_log(Path(p)) for p in paths]


def summarise_run(
    records: RunRecords,
    *,
    seed: int | None = None,
    options: Mapping[str, Any] | None = None,
) -> KindReport:
    """The run's summary, recomputed from its trajectories.

    ``seed`` re-draws the bootstrap intervals with another seed (recorded as
    ``bootstrap_seed``); ``options`` (by name, None: not given) override the run's own
    report settings where its kind takes them (DFA: ``buckets``, ``similarity_len``).
    Raises :class:`UsageError` for options that do not apply.
    """
    s = records.settings
    subject = f"this is a {s.kind.label(s.settings)} {s.kind.title} run of suite {s.suite}"
    given = check_options(s.kind, dict(options or {}), subject=subject, what="run")
    settings = s.kind.with_report_options(s.settings, given)
    boot = None if seed is None or seed == s.seed else seed
    return s.kind.summarise(
        records.trajectories,
        records.paths,
        suite=s.suite,
        seed=s.seed,
        repeats=s.repeats,
        settings=settings,
        bootstrap_seed=boot,
    )


def write_run_summary(
    records: RunRecords, report: KindReport, out_dir: Path | None = None
) -> list[Path]:
    """Write the summary files into ``out_dir`` (default: the run directory); returns
    their paths."""
    out = records.run_dir if out_dir is None else Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    return report.write(out)


def report_run(
    run_dir: Path, *, seed: int | None = None, options: Mapping[str, Any] | None = None
) -> KindSummary:
    """Recompute every metric of ``run_dir`` from its trajectories and rewrite its summary
    files (see the module docstring); errors as :func:`load_run` and
    :func:`summarise_run`."""
    records = load_run(run_dir)
    report = summarise_run(records, seed=seed, options=options)
    write_run_summary(records, report)
    return report.summary
