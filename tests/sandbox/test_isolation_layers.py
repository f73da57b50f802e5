"""The process-level layers, tested directly: fail closed, and each layer holds on its
own even if the restricted layer were bypassed (test-only ``unrestricted`` hook runs
plain Python inside the otherwise fully isolated worker)."""

from __future__ import annotations

import os
import socket
import stat
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import sandbox.layers
import sandbox.worker
from oracle_bench.errors import IsolationUnavailableError, UsageError
from sandbox import (
    CallError,
    CallResult,
    ErrorKind,
    SandboxLimits,
    SandboxWorker,
    available_layers,
)

FAST = SandboxLimits(cpu_seconds=1, wall_seconds=3.0)
FULL = frozenset(
    {"process", "restricted", "rlimits", "no_new_privs", "seccomp", "uid_drop", "netns"}
)
# The unrestricted test hook removes the "restricted" layer, so these tests ask for less.
LOOSE = frozenset({"process", "rlimits"})
Hooked = Callable[..., type[SandboxWorker]]

# Each probe returns the errno name (or "ok") so outcomes are exact.
PROBES = """
import errno, os, socket, subprocess

def outcome(fn):
    try:
        fn()
    except OSError as exc:
        return errno.errorcode.get(exc.errno, str(exc.errno))
    return "ok"

def fork():
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)

def spawn():
    subprocess.run(["/bin/true"], check=False)

def write_file(path):
    with open(path, "w") as fh:
        fh.write("x")

def blackbox(what, arg=None):
    if what == "ids":
        return [os.getuid(), os.geteuid(), os.getgid()]
    if what == "env":
        return [dict(os.environ), os.getcwd() == arg]
    if what == "read":
        with open(arg) as fh:
            return len(fh.read()) > 0
    if what == "fork":
        return outcome(fork)
    if what == "spawn":
        return outcome(spawn)
    if what == "write":
        return outcome(lambda: write_file(arg))
    if what == "mkdir":
        return outcome(lambda: os.mkdir(arg))
    if what == "unlink":
        return outcome(lambda: os.unlink(arg))
    if what == "socket":
        return outcome(lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM).close())
    if what == "connect":
        def connect():
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.settimeout(2)
            s.connect(("127.0.0.1", arg))
        return outcome(connect)
    if what == "connect-remote":
        def remote():
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.connect(("192.0.2.1", 53))
        return outcome(remote)
    if what == "kill-parent":
        return outcome(lambda: os.kill(os.getppid(), 0))
    if what == "segfault":
        import ctypes
        ctypes.string_at(0)
    if what == "sleep":
        import time
        time.sleep(arg)
    return "normal"
"""


@pytest.fixture
def open_dir() -> Iterator[Path]:
    """A world-writable directory: only the sandbox layers stop a box writing here."""
    path = Path(tempfile.mkdtemp(prefix="sbx-open-"))
    path.chmod(0o777)
    yield path
    for child in path.iterdir():
        child.unlink() if not child.is_dir() else child.rmdir()
    path.rmdir()


def _require_root_machine() -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root: the uid-drop layer only exists when started as root")
    missing = FULL - available_layers()
    if missing:
        pytest.skip(f"this machine lacks isolation layers: {sorted(missing)}")


def test_default_policy_activates_every_layer_here() -> None:
    _require_root_machine()
    with SandboxWorker("def blackbox():\n    return 1\n", limits=FAST) as worker:
        assert worker.layers == FULL
        assert worker.call().value == 1


def test_available_layers_is_cached_and_known() -> None:
    layers = available_layers()
    assert available_layers() is layers
    assert layers <= sandbox.ALL_LAYERS
    assert {"process", "restricted", "rlimits"} <= layers


def test_fail_closed_when_probe_lacks_a_layer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        sandbox.layers, "available_layers", lambda: frozenset({"process", "restricted", "rlimits"})
    )

    def no_spawn(*args: object) -> None:
        raise AssertionError("a worker was started although isolation is unavailable")

    monkeypatch.setattr(sandbox.worker, "WorkerProcess", no_spawn)
    with pytest.raises(IsolationUnavailableError, match="seccomp"):
        SandboxWorker("def blackbox():\n    return 1\n", require=frozenset({"seccomp"}))
    with pytest.raises(IsolationUnavailableError, match="seccomp or uid_drop or unprivileged"):
        SandboxWorker("def blackbox():\n    return 1\n")


def test_fail_closed_in_the_worker_runs_no_code(hooked: Hooked, open_dir: Path) -> None:
    """The probe says seccomp exists, the worker cannot install it: no box code runs."""
    _require_root_machine()
    marker = open_dir / "ran"
    code = f"open({str(marker)!r}, 'w').write('x')\ndef blackbox():\n    return 1\n"
    worker_cls = hooked("unrestricted", "no_seccomp", "no_uid_drop")
    with pytest.raises(IsolationUnavailableError, match="seccomp"):
        worker_cls(code, limits=FAST, require=frozenset({"seccomp"}))
    assert not marker.exists()


def test_unknown_layer_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="sekcomp"):
        SandboxWorker("def blackbox():\n    return 1\n", require=frozenset({"sekcomp"}))


def test_seccomp_alone_holds_for_root(hooked: Hooked, open_dir: Path) -> None:
    """Still uid 0 (no uid drop): seccomp must stop processes, writes, sockets, signals."""
    _require_root_machine()
    worker_cls = hooked("unrestricted", "no_uid_drop", "no_netns")
    with worker_cls(PROBES, limits=FAST, require=LOOSE) as worker:
        assert worker.layers == FULL - {"uid_drop", "netns", "restricted"}
        assert worker.call("ids").value == [0, 0, 0]
        assert worker.call("read", sandbox.worker.__file__).value is True
        assert worker.call("fork").value == "EPERM"
        assert worker.call("spawn").value == "EPERM"
        assert worker.call("write", str(open_dir / "f")).value == "EPERM"
        assert worker.call("mkdir", str(open_dir / "d")).value == "EPERM"
        assert worker.call("socket").value == "EPERM"
        assert worker.call("kill-parent").value == "EPERM"
    assert list(open_dir.iterdir()) == []


def test_uid_drop_and_rlimits_alone_hold(hooked: Hooked, open_dir: Path, tmp_path: Path) -> None:
    """No seccomp: the dropped uid and RLIMIT_NPROC/FSIZE still stop the box."""
    _require_root_machine()
    keep = open_dir / "keep"
    keep.write_text("x")
    keep.chmod(0o644)
    worker_cls = hooked("unrestricted", "no_seccomp", "no_netns")
    with worker_cls(PROBES, limits=FAST, require=LOOSE) as worker:
        assert "seccomp" not in worker.layers and "uid_drop" in worker.layers
        assert worker.call("ids").value == [65534, 65534, 65534]
        assert worker.call("fork").value == "EAGAIN"  # RLIMIT_NPROC=0 binds nobody
        assert worker.call("write", str(tmp_path / "f")).value == "EACCES"
        assert worker.call("write", str(keep)).value == "EACCES"
    assert keep.read_text() == "x"


def test_network_namespace_alone_holds(hooked: Hooked) -> None:
    """No seccomp: sockets open, but nothing is reachable, not even the host's loopback."""
    if "netns" not in available_layers():
        pytest.skip("this machine cannot create network namespaces")
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        port = server.getsockname()[1]
        with hooked("unrestricted", "no_seccomp")(PROBES, limits=FAST, require=LOOSE) as worker:
            assert "netns" in worker.layers
            assert worker.call("socket").value == "ok"
            assert worker.call("connect", port).value == "ENETUNREACH"
            assert worker.call("connect-remote").value == "ENETUNREACH"


def test_worker_environment_is_empty_and_cwd_private(hooked: Hooked) -> None:
    with hooked("unrestricted")(PROBES, limits=FAST, require=LOOSE) as worker:
        cwd = worker._resources.tmpdir
        assert cwd is not None and stat.S_IMODE(os.stat(cwd).st_mode) == 0o700
        env, in_cwd = worker.call("env", cwd).unwrap()  # type: ignore[misc]
        # Only our hash seed, plus LC_CTYPE if Python coerced a C locale (PEP 538).
        assert (env.pop("PYTHONHASHSEED"), set(env) <= {"LC_CTYPE"}, in_cwd) == ("0", True, True)
    assert not os.path.exists(cwd)


def test_segfault_is_a_crash_and_the_worker_restarts(hooked: Hooked, host_guard: Path) -> None:
    with hooked("unrestricted")(PROBES, limits=FAST, require=LOOSE) as worker:
        assert worker.call("segfault") == CallResult(
            None, CallError(ErrorKind.CRASH, "the black box crashed")
        )
        assert worker.call("other").value == "normal"


def test_wall_clock_timeout_kills_the_process_group(hooked: Hooked, host_guard: Path) -> None:
    limits = SandboxLimits(cpu_seconds=5, wall_seconds=0.5)
    with hooked("unrestricted")(PROBES, limits=limits, require=LOOSE) as worker:
        started = time.monotonic()
        result = worker.call("sleep", 30)
        assert time.monotonic() - started < 20  # the 0.5 s limit, not the 30 s sleep
        assert result == CallResult(None, CallError(ErrorKind.TIMEOUT, "time limit exceeded"))
        assert worker.call("other").value == "normal"


def test_wall_clock_timeout_of_restricted_code() -> None:
    limits = SandboxLimits(cpu_seconds=10, wall_seconds=0.5)
    code = "def blackbox(x):\n    while x:\n        pass\n    return 7\n"
    with SandboxWorker(code, limits=limits) as worker:
        assert worker.call(True).error == CallError(ErrorKind.TIMEOUT, "time limit exceeded")
        assert worker.call(False).value == 7
