"""Parent side of one worker process: spawn, bounded line I/O with deadlines, kill.

No threads: reads and writes are non-blocking and multiplexed with ``poll`` so
a hung or flooding worker can neither block the caller past its deadline nor
make it buffer more than the output cap.
"""

from __future__ import annotations

import contextlib
import enum
import logging
import math
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO

logger = logging.getLogger(__name__)

SANDBOX_DIR = str(Path(__file__).resolve().parent)
# Load the worker's modules from this package's folder without running
# sandbox/__init__.py (parent-only code) and without putting any folder on sys.path.
BOOTSTRAP = (
    "import sys, types\n"
    "pkg = types.ModuleType('sandbox')\n"
    "pkg.__path__ = [sys.argv[1]]\n"
    "sys.modules['sandbox'] = pkg\n"
    "from sandbox._worker import main\n"
    "main()\n"
)
# -s: no user site; -P: no script/cwd dir on sys.path; -B: never write .pyc.
WORKER_FLAGS = ("-s", "-P", "-B")
# Not -I/-E: they would ignore PYTHONHASHSEED, and a fixed hash seed is what makes
# set iteration order (and so box output) reproducible. The environment holds
# nothing else.
WORKER_ENV = {"PYTHONHASHSEED": "0"}
_READ_CHUNK = 1 << 16

# Deaths by these signals are the CPU budget (ITIMER_PROF, RLIMIT_CPU soft/hard).
TIMEOUT_SIGNALS = frozenset({signal.SIGPROF, signal.SIGXCPU, signal.SIGKILL})


class ReadStatus(enum.Enum):
    """Why ``read_line`` returned no line."""

    EOF = "eof"
    TIMEOUT = "timeout"
    OVERFLOW = "overflow"


def worker_argv() -> list[str]:
    return [sys.executable, *WORKER_FLAGS, "-c", BOOTSTRAP, SANDBOX_DIR]


class WorkerProcess:
    """One running worker; ``kill`` is idempotent and always reaps.

    ``argv``, ``env`` and ``stderr`` default to the process runtime's worker; the docker
    runtime passes its ``docker run`` command line instead (``sandbox.docker.runtime``).
    """

    def __init__(
        self,
        cwd: str,
        argv: Sequence[str] | None = None,
        env: Mapping[str, str] | None = None,
        stderr: int | IO[bytes] = subprocess.DEVNULL,
    ) -> None:
        self.proc = subprocess.Popen(
            worker_argv() if argv is None else list(argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            env=dict(WORKER_ENV if env is None else env),
            cwd=cwd,
            start_new_session=True,
            close_fds=True,
            bufsize=0,
        )
        if self.proc.stdin is None or self.proc.stdout is None:  # pragma: no cover
            raise OSError("worker pipes were not created")
        self._wfd = self.proc.stdin.fileno()
        self._rfd = self.proc.stdout.fileno()
        os.set_blocking(self._wfd, False)
        os.set_blocking(self._rfd, False)
        self._buffer = bytearray()
        self._rpoll = select.poll()
        self._rpoll.register(self._rfd, select.POLLIN)
        self._wpoll = select.poll()
        self._wpoll.register(self._wfd, select.POLLOUT)

    @property
    def pid(self) -> int:
        return self.proc.pid

    def send(self, data: bytes, deadline: float) -> bool:
        """Write all of ``data``; False if the worker is gone or the deadline passes."""
        view = memoryview(data)
        while True:
            try:
                written = os.write(self._wfd, view)
            except BlockingIOError:
                written = 0
            except (BrokenPipeError, OSError):
                return False
            if written == len(view):
                return True
            view = view[written:]
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not self._wpoll.poll(math.ceil(remaining * 1000)):
                return False

    def read_line(self, cap: int, deadline: float) -> bytes | ReadStatus:
        """One reply line of at most ``cap`` bytes, read with a deadline; else why not."""
        buffer = self._buffer
        while True:
            end = buffer.find(b"\n")
            if end >= 0:
                if end > cap:
                    return ReadStatus.OVERFLOW
                line = bytes(buffer[:end])
                del buffer[: end + 1]
                return line
            if len(buffer) > cap:
                return ReadStatus.OVERFLOW
            # Wait first: a reply is never there yet right after a request, and a read
            # that fails with EAGAIN costs an exception on top of the poll.
            remaining = deadline - time.monotonic()
            if not self._rpoll.poll(max(math.ceil(remaining * 1000), 0)):
                if remaining <= 0:
                    return ReadStatus.TIMEOUT
                continue
            try:
                chunk = os.read(self._rfd, _READ_CHUNK)
            except BlockingIOError:
                continue
            if not chunk:
                return ReadStatus.EOF
            buffer += chunk

    def exit_signal(self, timeout: float = 2.0) -> int | None:
        """After EOF: the signal that ended the worker (None for a plain exit)."""
        try:
            code = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            return None
        return -code if code < 0 else None

    def diagnosis(self) -> str:
        """Why the worker may have failed to start, when its runtime can tell ("" here)."""
        return ""

    def kill(self) -> None:
        if self.proc.returncode is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, signal.SIGKILL)
        # Reap, so no zombie outlives the worker object.
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:  # pragma: no cover - SIGKILL cannot be ignored
            logger.error("worker %d survived SIGKILL", self.proc.pid)
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
