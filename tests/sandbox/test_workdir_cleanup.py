"""A SIGKILLed owner's worker folder is swept by the next worker started; nothing else is.

The child process prints its folder once its worker is up and then blocks on stdin; the
test reads that line, kills it and waits for it to exit: no step is timed.
"""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from sandbox import SandboxWorker
from sandbox._workdir import LOCK_NAME, make_workdir, sweep_stale_workdirs

ROOT = Path(__file__).resolve().parents[2]
CODE = "def blackbox(x):\n    return x + 1\n"
_CHILD = """
import glob, os, sys, tempfile
from sandbox import SandboxWorker
worker = SandboxWorker(sys.argv[1])
value = worker.call(1).value
mine = glob.glob(os.path.join(tempfile.gettempdir(), f"oracle-sbx-{os.getpid()}-*"))
print(value, *mine, flush=True)
sys.stdin.read()  # holds the worker until killed
"""


@pytest.fixture
def tmp_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """This process's temp dir (and its children's, via TMPDIR) for the test."""
    root = tmp_path / "tmp"
    root.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(root))
    monkeypatch.setenv("TMPDIR", str(root))
    yield root


def _spawn_owner() -> tuple[subprocess.Popen[str], Path]:
    """A child process holding a live SandboxWorker, and that worker's folder."""
    child = subprocess.Popen(
        [sys.executable, "-c", _CHILD, CODE],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    value, folder = child.stdout.readline().split()
    assert value == "2"
    return child, Path(folder)


def _kill(child: subprocess.Popen[str]) -> None:
    child.kill()
    child.communicate()
    assert child.returncode == -signal.SIGKILL


def _dead_pid() -> int:
    """The PID of a process that has exited and been reaped."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_a_sigkilled_owners_folder_is_swept_by_the_next_worker(tmp_root: Path) -> None:
    child, folder = _spawn_owner()
    try:
        assert folder.parent == tmp_root and folder.is_dir()
        assert (folder / LOCK_NAME).is_file()
        assert folder.name.startswith(f"oracle-sbx-{child.pid}-")
        # A live owner's folder survives another worker's sweep.
        with SandboxWorker(CODE) as other:
            assert other.call(2).value == 3
        assert folder.is_dir()
    finally:
        _kill(child)
    assert folder.is_dir()  # the owner's finalizer never ran: this is the leftover

    with SandboxWorker(CODE) as worker:
        assert not folder.exists()
        assert worker.call(3).value == 4
        (own,) = tmp_root.iterdir()
        assert own.name.startswith(f"oracle-sbx-{os.getpid()}-")
    assert list(tmp_root.iterdir()) == []  # closing removes the worker's own folder


def test_a_sweep_removes_only_stale_worker_folders(tmp_root: Path) -> None:
    dead, me = _dead_pid(), os.getpid()
    hexes = iter(f"{i:012x}" for i in range(1, 100))

    def folder(pid: int, suffix: str = "", lock: bool = True) -> Path:
        path = tmp_root / f"oracle-sbx-{pid}-{next(hexes)}{suffix}"
        path.mkdir(mode=0o700)
        (path / "data").write_text("x")
        if lock:
            (path / LOCK_NAME).write_text("")
        return path

    stale = [
        folder(dead),  # lock free: its owner is gone
        folder(me),  # lock free: gone too, though this PID is running (a reused PID)
        folder(dead, ".new", lock=False),  # its owner died before the rename
        folder(dead, lock=False),  # its lock vanished and its PID is not running
    ]
    held = folder(dead)  # locked by someone alive (a forked child holds the owner's lock)
    kept = [
        held,
        folder(me, ".new", lock=False),  # being made by a live process
        folder(me, lock=False),  # lock vanished, its PID may be its owner's
    ]
    outside = tmp_root / "outside"
    outside.mkdir()
    (outside / "precious").write_text("keep")
    link = tmp_root / f"oracle-sbx-{dead}-{next(hexes)}"
    link.symlink_to(outside, target_is_directory=True)
    plain_file = tmp_root / f"oracle-sbx-{dead}-{next(hexes)}"
    plain_file.write_text("not a folder")
    others = [
        tmp_root / "oracle-sbx-probe-abc123",  # sandbox.layers' probe folders
        tmp_root / f"oracle-sbx-{dead}-ABCDEF012345",  # not the exact pattern
        tmp_root / f"oracle-sbx-{dead}-{next(hexes)}.old",
        tmp_root / f"oracle-sbx-0{dead}-{next(hexes)}",
        tmp_root / "oracle-sbx-1b2th9wd",  # the old mkdtemp names: no owner to judge by
    ]
    for path in others:
        path.mkdir()

    fd = os.open(held / LOCK_NAME, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        removed = sweep_stale_workdirs()
    finally:
        os.close(fd)

    assert sorted(removed) == sorted(str(p) for p in stale)
    assert not any(p.exists() for p in stale)
    assert all((p / "data").is_file() for p in kept)
    assert link.is_symlink() and (outside / "precious").read_text() == "keep"
    assert plain_file.read_text() == "not a folder"
    assert all(p.is_dir() for p in others)
    # Unlocked now: the next sweep takes it.
    assert sweep_stale_workdirs() == [str(held)]


def test_a_live_workdir_is_locked_and_named_after_its_owner(tmp_root: Path) -> None:
    workdir = make_workdir()
    path = Path(workdir.path)
    try:
        assert path.parent == tmp_root
        assert path.name.startswith(f"oracle-sbx-{os.getpid()}-") and "." not in path.name
        assert path.stat().st_mode & 0o777 == 0o700
        assert sweep_stale_workdirs() == []
        fd = os.open(path / LOCK_NAME, os.O_RDONLY)
        try:
            with pytest.raises(BlockingIOError):
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        finally:
            os.close(fd)
    finally:
        workdir.remove()
    assert not path.exists()
    workdir.remove()  # idempotent
