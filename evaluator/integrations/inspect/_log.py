"""An Inspect log of the ``oracle_bench/oracle`` task, read as a run folder is read.

Only through ``inspect_ai.log`` (``read_eval_log``, ``read_eval_log_samples``). A log is
input from outside: the task's definition (:class:`TaskFacts`) and every sample's
record are validated, the records with their kind's own record model, and the records
must make one run, as ``evaluator.report.load_run`` checks a run folder (one kind, the
same suite, seed and settings, each job once). A sample that ended in an Inspect error
holds no record: it is missing from the run, as an episode without a trajectory.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from evaluator.integrations.inspect._facts import RECORD_KEY, SCORER_NAME, TASK_KEY, TaskFacts
from evaluator.kinds import EpisodeKind, get_kind, record_kind
from evaluator.records import CorruptTrajectoryError
from evaluator.report import RunDirError, RunRecords, RunSettings
from evaluator.runner import EpisodeJob, trajectory_path
from oracle_bench.errors import UnknownNameError, UsageError

__all__ = ["InspectLogError", "is_inspect_log", "load_inspect_log", "report_dir"]

log = logging.getLogger(__name__)

SUFFIXES = (".eval", ".json")


class InspectLogError(CorruptTrajectoryError):
    """An Inspect log that cannot be read as a run of the oracle-bench task. ``path``
    names the log (and the sample, after a ``#``)."""


def is_inspect_log(path: Path) -> bool:
    """Whether ``path`` is a file named as an Inspect log (``.eval`` or ``.json``)."""
    return path.is_file() and path.suffix in SUFFIXES


def report_dir(path: Path) -> Path:
    """Where ``oracle-eval report LOG`` writes the summary files: ``LOG`` without its
    extension, plus ``-report``."""
    return path.with_name(f"{path.stem}-report")


def _line(exc: BaseException, limit: int = 300) -> str:
    text = " ".join(f"{type(exc).__name__}: {exc}".split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _facts(path: Path) -> tuple[TaskFacts, int]:
    """The task's definition and the log's epochs, from its header."""
    from inspect_ai.log import read_eval_log

    try:
        header = read_eval_log(path, header_only=True)
    except Exception as exc:  # a file from outside: whatever Inspect raises, one line
        raise InspectLogError(f"not a readable Inspect log ({_line(exc)})", path) from None
    raw = (header.eval.metadata or {}).get(TASK_KEY)
    if raw is None:
        raise InspectLogError(
            "not a log of the oracle-bench task (its metadata has no "
            f"{TASK_KEY!r} entry; made with inspect eval oracle_bench/oracle?)",
            path,
        )
    try:
        facts = TaskFacts.model_validate(raw)
    except ValidationError as exc:
        raise InspectLogError(
            f"the task's {TASK_KEY!r} metadata is invalid ({_line(exc)})", path
        ) from None
    epochs = header.eval.config.epochs or 1
    return facts, epochs


def _record(kind: EpisodeKind, raw: Any, where: Path) -> Any:
    try:
        found = record_kind(raw)
    except UnknownNameError as exc:
        raise InspectLogError(str(exc), where) from None
    if found is not kind:
        raise RunDirError(f"a {found.title} record in a {kind.title} run", where)
    return kind.load_record(raw, where)


def load_inspect_log(path: Path) -> RunRecords:
    """Read and check every sample's record of an Inspect log of the task.

    Raises :class:`UsageError` for a log without any record (``record=False``, every
    sample failed in Inspect), :class:`InspectLogError` for an unreadable log or an
    invalid record (naming the sample) and :class:`RunDirError` when the records do not
    make one run. The returned records' ``run_dir`` is :func:`report_dir`.
    """
    from inspect_ai.log import read_eval_log_samples

    path = Path(path)
    facts, epochs = _facts(path)
    try:
        kind = get_kind(facts.kind)
    except UnknownNameError as exc:
        raise InspectLogError(str(exc), path) from None
    settings = kind.settings_of_manifest(facts.arguments, path)
    run = RunSettings(
        kind=kind,
        suite=facts.suite,
        seed=facts.seed,
        repeats=facts.repeats * epochs,
        settings=settings,
        boxes=frozenset(facts.boxes),
    )
    records: list[Any] = []
    errored = 0
    skip = {"events", "messages", "attachments", "store"}
    try:
        for sample in read_eval_log_samples(path, all_samples_required=False, exclude_fields=skip):
            where = Path(f"{path}#{sample.id}@{sample.epoch}")
            score = (sample.scores or {}).get(SCORER_NAME)
            if score is None:
                if sample.error is not None:
                    errored += 1
                    log.warning("%s: ended in an Inspect error, no record", where)
                    continue
                raise InspectLogError(f"no {SCORER_NAME!r} score", where)
            metadata = score.metadata or {}
            if RECORD_KEY not in metadata:
                raise UsageError(
                    f"{path}: the log holds no episode records (made with -T record=false?)"
                )
            records.append(_record(kind, metadata[RECORD_KEY], where))
    except (InspectLogError, RunDirError, UsageError, CorruptTrajectoryError):
        raise
    except Exception as exc:  # a broken sample of a file from outside
        raise InspectLogError(f"unreadable samples ({_line(exc)})", path) from None
    if not records:
        raise UsageError(f"{path}: no episode records ({errored} samples ended in an error)")
    return _checked(path, run, records)


def _checked(path: Path, run: RunSettings, records: list[Any]) -> RunRecords:
    """The records as one run: the same suite, seed and settings, each job once, every
    job in the task's job list."""
    kind = run.kind
    expected = {"suite": run.suite, "seed": run.seed, **kind.settings_identity(run.settings)}
    seen: set[tuple[str, str, int]] = set()
    paths: list[Path] = []
    for record in records:
        job = EpisodeJob(record.box_id, record.agent, record.repetition)
        where = Path(f"{path}#{record.box_id}/{record.agent}/r{record.repetition}")
        found = {"suite": record.suite, "seed": record.seed, **kind.identity(record)}
        for key, value in expected.items():
            if found.get(key) != value:
                raise RunDirError(
                    f"a record of another run ({key} {found.get(key)!r}, the task's is {value!r})",
                    where,
                )
        if run.boxes is not None and record.box_id not in run.boxes:
            raise RunDirError("a record of a box the task does not list", where)
        if record.repetition >= run.repeats:
            raise RunDirError(f"repetition {record.repetition} of a {run.repeats}-fold run", where)
        if (job.box_id, job.agent, job.repetition) in seen:
            raise RunDirError("the same episode twice", where)
        seen.add((job.box_id, job.agent, job.repetition))
        paths.append(trajectory_path(Path(), job))
    agents = tuple(sorted({r.agent for r in records}))
    return RunRecords(
        run_dir=report_dir(path),
        settings=RunSettings(
            kind=kind,
            suite=run.suite,
            seed=run.seed,
            repeats=run.repeats,
            settings=run.settings,
            agents=agents,
            boxes=run.boxes,
        ),
        trajectories=tuple(records),
        paths=tuple(paths),
        manifests=(),
        ignored=(),
    )
