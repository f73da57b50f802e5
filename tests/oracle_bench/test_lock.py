"""One writer per folder: the lock refuses a second holder and is free once its holder dies."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from oracle_bench.errors import UsageError
from oracle_bench.lock import FolderLock, FolderLockedError, lock_holder

ROOT = Path(__file__).resolve().parents[2]

_HOLDER = """
import sys
from oracle_bench.lock import FolderLock
lock = FolderLock(sys.argv[1], "test run")
lock.acquire()
print("held", flush=True)
sys.stdin.read()  # hold until the test closes stdin or kills us
"""


def _holder(path: Path) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(path)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline() == "held\n"  # an event, not a sleep
    return proc


def test_a_second_process_is_refused_naming_the_holder(tmp_path: Path) -> None:
    path = tmp_path / "run" / ".lock"
    with _holder(path) as proc:
        try:
            with pytest.raises(FolderLockedError) as info:
                FolderLock(path, "oracle-eval run").acquire()
        finally:
            proc.kill()
    assert info.value.pid == proc.pid
    message = str(info.value)
    assert f"PID {proc.pid}" in message and str(tmp_path / "run") in message
    assert "oracle-eval run" in message and "\n" not in message
    assert isinstance(info.value, UsageError)  # exit code 2 in every CLI


def test_the_lock_of_a_killed_process_is_taken_over(tmp_path: Path) -> None:
    path = tmp_path / ".lock"
    with _holder(path) as proc:
        proc.kill()
    assert lock_holder(path)[0] == proc.pid  # the dead holder's PID is still written
    with FolderLock(path, "test run") as lock:
        assert lock.held
        assert lock_holder(path)[0] == os.getpid()
    assert not lock.held


def test_one_writer_even_within_a_process(tmp_path: Path) -> None:
    path = tmp_path / ".lock"
    with FolderLock(path, "test run"):
        with pytest.raises(FolderLockedError) as info:
            FolderLock(path, "test run").acquire()
        assert info.value.pid == os.getpid()
    with FolderLock(path, "test run"):  # released: free again
        pass


def test_a_garbage_lock_file_is_taken_over(tmp_path: Path) -> None:
    path = tmp_path / ".lock"
    path.write_bytes(b"\xff not json")
    assert lock_holder(path) == (None, None)
    with FolderLock(path, "test run"):
        assert lock_holder(path)[0] == os.getpid()
