"""Scratch folders of sandbox workers that a killed owner cannot leave behind for good.

Each :class:`~sandbox.SandboxWorker` runs its worker process in a folder of its own,
``<tempdir>/oracle-sbx-<pid>-<12 hex digits>`` (mode 0700), holding a file ``.lock`` on
which the owner keeps an exclusive ``flock`` for the folder's whole life
(:class:`oracle_bench.lock.FolderLock`, which also writes the owner's PID, host and
command into it). The folder is made as ``...<hex>.new``, locked, then renamed into
place, so a folder under its final name is locked from the start. The owner removes it
on close (or in a finalizer), which never runs when the owner is SIGKILLed; so
:func:`make_workdir` first sweeps leftovers.

What a sweep removes, and nothing else: entries of ``tempfile.gettempdir()`` whose name
matches that pattern exactly, that are real directories (never a symlink: opened with
``O_NOFOLLOW``) owned by this user, and that are stale:

* a final-name folder whose lock can be taken: the kernel drops a ``flock`` when the
  last process holding it ends, however it ends (a forked child holding the inherited
  descriptor keeps it alive). PID reuse does not matter here;
* a ``.new`` folder (its owner died between ``mkdir`` and ``rename``), or a final-name
  folder without a ``.lock``, whose owner PID is not running (a reused PID only
  delays the sweep of such a folder).
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import re
import secrets
import shutil
import tempfile
from pathlib import Path

from oracle_bench.lock import FolderLock

__all__ = ["LOCK_NAME", "PREFIX", "Workdir", "make_workdir", "sweep_stale_workdirs"]

logger = logging.getLogger(__name__)

PREFIX = "oracle-sbx-"
LOCK_NAME = ".lock"
_STAGING = ".new"
_NAME = re.compile(r"oracle-sbx-([1-9][0-9]{0,9})-[0-9a-f]{12}(\.new)?")
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class Workdir:
    """A locked scratch folder; :meth:`remove` deletes it and drops the lock (idempotent)."""

    def __init__(self, path: str, lock: FolderLock) -> None:
        self.path = path
        self._lock = lock

    def remove(self) -> None:
        # Delete first, unlock after: a sweeper never sees this folder unlocked.
        shutil.rmtree(self.path, ignore_errors=True)
        with contextlib.suppress(OSError):
            self._lock.release()


def make_workdir(parent: str | None = None) -> Workdir:
    """Sweep stale folders, then make and lock a new one in ``parent`` (default: the
    system temp dir)."""
    parent = parent if parent is not None else tempfile.gettempdir()
    sweep_stale_workdirs(parent)
    pid = os.getpid()
    while True:
        final = os.path.join(parent, f"{PREFIX}{pid}-{secrets.token_hex(6)}")
        staging = final + _STAGING
        try:
            os.mkdir(staging, 0o700)
        except FileExistsError:
            continue
        if not os.path.lexists(final):
            break
        os.rmdir(staging)
    # Nobody else locks a fresh .new folder's file (sweeps judge those by PID alone).
    lock = FolderLock(Path(staging) / LOCK_NAME, "sandbox worker")
    try:
        lock.acquire()
        os.rename(staging, final)  # the descriptor, and so the lock, stays valid
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        lock.release()
        raise
    return Workdir(final, lock)


def sweep_stale_workdirs(parent: str | None = None) -> list[str]:
    """Remove the stale worker folders in ``parent`` (see the module docstring); return
    their paths. Never raises: a folder that cannot be judged or removed is left."""
    parent = parent if parent is not None else tempfile.gettempdir()
    try:
        names = [entry.name for entry in os.scandir(parent)]
    except OSError as exc:
        logger.debug("cannot list %s for stale sandbox folders: %s", parent, exc)
        return []
    removed = []
    for name in sorted(names):
        match = _NAME.fullmatch(name)
        if match is None:
            continue
        path = os.path.join(parent, name)
        try:
            if _remove_if_stale(path, int(match.group(1)), staging=match.group(2) is not None):
                removed.append(path)
        except OSError as exc:
            logger.debug("stale sandbox folder %s left: %s", path, exc)
    if removed:
        logger.debug("removed %d stale sandbox folder(s): %s", len(removed), removed)
    return removed


def _remove_if_stale(path: str, pid: int, *, staging: bool) -> bool:
    try:
        dir_fd = os.open(path, _DIR_FLAGS)
    except OSError:
        return False  # a symlink (ELOOP), not a directory, someone else's, or gone
    try:
        before = os.fstat(dir_fd)
        if before.st_uid != os.getuid():
            return False
        lock_fd = None
        if not staging:
            with contextlib.suppress(FileNotFoundError):
                lock_fd = os.open(
                    LOCK_NAME, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd
                )
        try:
            if lock_fd is not None:
                try:
                    fcntl.flock(lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    return False  # its owner is alive
            elif _running(pid):
                return False  # being made, or its lock is gone and its owner may be alive
            # Still the folder judged (not replaced since it was opened)?
            if not os.path.samestat(before, os.lstat(path)):
                return False
            shutil.rmtree(path)  # fd-based on Linux: symlinks inside are not followed
            return True
        finally:
            if lock_fd is not None:
                os.close(lock_fd)
    finally:
        os.close(dir_fd)


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # exists, another user's
    return True
