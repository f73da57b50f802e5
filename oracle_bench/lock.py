"""One writer per folder: an exclusive lock held for the whole of a run.

``FolderLock(path, what)`` takes an ``flock`` on ``path`` (a small file inside the folder
it guards) and writes the holder's PID, host and command into it. A second process asking
for the same lock fails at once with :class:`FolderLockedError` (a :class:`UsageError`,
so the command exits 2) naming the holder. The kernel drops an ``flock`` when its process
dies, however it dies, so the lock of a killed run (``kill -9``, a crash) is simply free:
the next run takes it over, and the stale PID left in the file is overwritten.

The lock file is kept after release (unlinking a lock file races with a process that has
just opened it); it is hidden and holds no result.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import socket
import sys
from pathlib import Path
from types import TracebackType

from oracle_bench.errors import UsageError

__all__ = ["FolderLock", "FolderLockedError", "lock_holder"]


class FolderLockedError(UsageError):
    """Another process holds the folder's lock. ``pid`` and ``host`` name it when known."""

    def __init__(self, message: str, pid: int | None, host: str | None) -> None:
        self.pid = pid
        self.host = host
        super().__init__(message)


def lock_holder(path: Path) -> tuple[int | None, str | None]:
    """(PID, host) written in a lock file by its last holder, or (None, None)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None, None
    if not isinstance(data, dict):
        return None, None
    pid, host = data.get("pid"), data.get("host")
    return (
        pid if isinstance(pid, int) and not isinstance(pid, bool) else None,
        host if isinstance(host, str) else None,
    )


class FolderLock:
    """An exclusive, non-blocking lock on ``path`` for one process (see the module doc).

    ``what`` names the folder's owner in the error: ``"oracle-eval run"``. Use as a context
    manager, or :meth:`acquire` / :meth:`release`. Not reentrant: a second lock on the same
    path in the same process is refused too (one writer, even within a process).
    """

    def __init__(self, path: Path, what: str) -> None:
        self.path = Path(path)
        self.what = what
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def acquire(self) -> None:
        if self._fd is not None:
            raise UsageError(f"{self.path}: lock already held by this object")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(fd)
            if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise
            pid, host = lock_holder(self.path)
            raise FolderLockedError(self._message(pid, host), pid, host) from None
        record = {"pid": os.getpid(), "host": socket.gethostname(), "argv": sys.argv}
        data = (json.dumps(record, ensure_ascii=True) + "\n").encode("ascii")
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, data, 0)
        except OSError:
            os.close(fd)
            raise
        self._fd = fd

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is None:
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)

    def _message(self, pid: int | None, host: str | None) -> str:
        folder = self.path.parent
        if pid is None:
            holder = "another process"
        elif host is not None and host != socket.gethostname():
            holder = f"PID {pid} on {host}"
        else:
            holder = f"PID {pid}"
        return (
            f"{folder} is in use by another {self.what} ({holder}); "
            "wait for it to finish, or use another folder"
        )

    def __enter__(self) -> FolderLock:
        self.acquire()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()
