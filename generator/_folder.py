"""What a suite folder holds before a run writes into it, its lock, and ``--overwrite``.

A suite folder is ``suite.json`` (complete) or the ``.suite.partial.json`` journal
(unfinished), the ``boxes/`` and ``rejected/`` they list, and ``.generator/`` (the run's
working state and its lock). Whether a run may write into it is decided by
``generator.suite.inspect_suite``, which compares the arguments.
"""

from __future__ import annotations

import logging
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from blackboxes.box import BoxEntry, SuiteInfo, SuiteOwnerInfo
from blackboxes.store import load_owner, load_suite, owner_name
from oracle_bench.errors import BoxError, UsageError
from oracle_bench.lock import FolderLock

__all__ = [
    "CACHE_NAME",
    "GENERATOR_DIR",
    "LOCK_NAME",
    "PARTIAL_NAME",
    "SUITE_NAME",
    "Found",
    "SuiteExistsError",
    "SuiteFolder",
    "SuiteState",
    "clear_suite",
    "lock_suite",
    "read_folder",
]

logger = logging.getLogger(__name__)

SUITE_NAME = "suite.json"
PARTIAL_NAME = ".suite.partial.json"
"""Journal of the boxes written (and candidates rejected) so far; replaced by suite.json
when the suite is complete."""
GENERATOR_DIR = ".generator"
"""A suite's resumable working state (checkpoints, LLM call cache, telemetry, lock)."""
LOCK_NAME = "lock"
CACHE_NAME = "llm-cache.sqlite"
"""The run's LLM call cache (``providers.CallCache``) under ``.generator/``."""
_SUITE_ENTRIES = frozenset(
    {
        SUITE_NAME,
        PARTIAL_NAME,
        owner_name(SUITE_NAME),
        owner_name(PARTIAL_NAME),
        "boxes",
        "rejected",
        GENERATOR_DIR,
    }
)
"""What a suite folder is made of: --overwrite removes these (the LLM call cache and the
lock under .generator/ excepted), and nothing else."""

SuiteState = Literal["new", "resume", "complete"]


class SuiteExistsError(UsageError):
    """``--out`` holds something this run would replace: a suite made with other
    arguments, an unreadable manifest, or files that are not a suite (exit 2)."""


@dataclass(frozen=True)
class SuiteFolder:
    """A suite folder as a run with given arguments finds it.

    ``new``: nothing of a suite is there (or ``--overwrite`` replaces what is: see
    ``replaces``); ``resume``: a journal made with the same arguments, whose ``boxes``
    are kept; ``complete``: a suite.json made with the same arguments, left as it is.
    """

    path: Path
    state: SuiteState
    boxes: tuple[BoxEntry, ...] = ()
    """The boxes already written (journal or suite.json), in suite order."""
    rejected: tuple[str, ...] = ()
    """Candidates the manifest records as rejected or failed."""
    owner: SuiteOwnerInfo | None = None
    """The manifest's owner file (the seed, the written boxes' file digests)."""
    replaces: str | None = None
    """With ``--overwrite``: what is replaced (the refusal it overrides), else None."""


@dataclass(frozen=True)
class Found:
    """The raw contents: a readable manifest, or why there is none."""

    manifest: SuiteInfo | None
    complete: bool
    """The manifest is suite.json (else the journal)."""
    owner: SuiteOwnerInfo | None = None
    """Its owner file (read and checked with it)."""
    unreadable: str | None = None
    """A manifest exists but cannot be read: the error, naming the file."""
    other: tuple[str, ...] = ()
    """Entries that belong to no suite (a folder that is not a suite), sorted."""


def read_folder(out: Path) -> Found:
    """What ``out`` holds, without changing anything. A folder that does not exist, or
    holds only ``.generator/`` (a run that wrote nothing yet), holds nothing."""
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out} is a file, not a folder")
    names = sorted(p.name for p in out.iterdir()) if out.is_dir() else []
    other = tuple(n for n in names if n not in _SUITE_ENTRIES)
    for name, complete in ((SUITE_NAME, True), (PARTIAL_NAME, False)):
        if name not in names:
            continue
        try:
            manifest = load_suite(out, name)
            return Found(manifest, complete, load_owner(out, manifest, name), other=other)
        except BoxError as exc:
            return Found(None, complete, unreadable=str(exc), other=other)
    suite_parts = [n for n in names if n in _SUITE_ENTRIES and n != GENERATOR_DIR]
    return Found(None, False, other=tuple(sorted(other + tuple(suite_parts))))


def clear_suite(out: Path) -> None:
    """Remove a suite's own entries from ``out`` (``--overwrite``): its manifests,
    ``boxes/``, ``rejected/`` and the run's working state but for the lock and the LLM
    call cache. Other files are left in place
    (``--out .`` must never empty a working directory); the call cache is kept, so a
    call the replaced suite made is not paid for twice."""
    for name in (SUITE_NAME, PARTIAL_NAME):
        (out / name).unlink(missing_ok=True)
        (out / owner_name(name)).unlink(missing_ok=True)
    for name in ("boxes", "rejected"):
        if (out / name).is_dir():
            shutil.rmtree(out / name)
        else:
            (out / name).unlink(missing_ok=True)
    work = out / GENERATOR_DIR
    if work.is_dir():
        for path in work.iterdir():
            if path.is_file() and not path.name.startswith((LOCK_NAME, CACHE_NAME)):
                path.unlink()
    left = sorted(p.name for p in out.iterdir()) if out.is_dir() else []
    left = [n for n in left if n != GENERATOR_DIR]
    if left:
        logger.warning("%s: --overwrite left files that are not a suite's: %s", out, left)


def lock_suite(out: Path) -> FolderLock:
    """The suite folder's lock, acquired (creating ``out`` if needed); release it at the
    end of the run. Raises ``FolderLockedError`` (a ``UsageError``) naming the PID of the
    ``oracle-gen`` run that holds it."""
    lock = FolderLock(out / GENERATOR_DIR / LOCK_NAME, "oracle-gen run")
    lock.acquire()
    return lock
