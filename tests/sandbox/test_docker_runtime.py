"""The docker sandbox runtime: the worker in a locked-down container.

Without an engine: the limits and the ``docker run`` command line, failing closed (the
library and the three command lines), compile refusals before any container. With the
engine (``docker_engine``/``docker_base_image``): the whole attack corpus and the red-team
cases against shared container workers (a kill restarts a new container), the container's
own layers probed from inside, containers removed (closed, crashed, owner SIGKILLed,
swept), and an evaluation whose summary equals the process runtime's.

Container starts are slow (seconds each), so workers are shared per module.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from oracle_bench.errors import (
    DockerUnavailableError,
    IsolationUnavailableError,
    SandboxCompileError,
    UsageError,
)
from sandbox import (
    CallError,
    CallResult,
    ErrorKind,
    IsolationPolicy,
    SandboxLimits,
    SandboxWorker,
    compile_check,
)
from sandbox.docker.runtime import (
    LABEL,
    OWNER_LABEL,
    DockerRuntimeUnavailableError,
    container_argv,
    runtime_limits,
    sweep_stale_containers,
    worker_mounts,
)
from tests.sandbox.conftest import child_pids
from tests.sandbox.test_attack_corpus import COMPILE, CORPUS, Attack
from tests.sandbox.test_attack_corpus import _source as attack_source
from tests.sandbox.test_redteam import CASES, OK
from tests.sandbox.test_redteam import FAST as REDTEAM_FAST
from tests.sandbox.test_redteam import _box_source as redteam_source

ROOT = Path(__file__).resolve().parents[2]
DOCKER = SandboxLimits(runtime="docker")
TRIVIAL = "def blackbox(x):\n    return x * 2\n"
# What a worker sets up inside the container (no capability: no netns, no uid drop) plus
# the parent's container layer.
CONTAINER_LAYERS = frozenset(
    {"container", "no_new_privs", "process", "restricted", "rlimits", "seccomp", "unprivileged"}
)
Hooked = Callable[..., type[SandboxWorker]]


def _docker(limits: SandboxLimits, image: str) -> SandboxLimits:
    return dataclasses.replace(limits, runtime="docker", image=image)


@pytest.fixture
def no_engine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """``DOCKER_HOST`` at a socket that does not exist."""
    host = f"unix://{tmp_path}/missing/docker.sock"
    monkeypatch.setenv("DOCKER_HOST", host)
    return host


# --- limits and the command line (no engine) ----------------------------------------


def test_runtime_is_validated_and_stays_off_the_wire() -> None:
    with pytest.raises(UsageError, match="runtime must be one of process, docker, got 'podman'"):
        SandboxLimits(runtime="podman")  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="an image applies to the docker runtime only"):
        SandboxLimits(image="local/debian-python:bookworm")
    for bad in ("-v/:/host", "", " img", "img name", "img\n", "a" * 300):
        with pytest.raises(UsageError, match="not a Docker image name"):
            SandboxLimits(runtime="docker", image=bad)
    limits = SandboxLimits(runtime="docker", image="registry.local:5000/py@sha256:ab12")
    assert limits.to_wire() == SandboxLimits().to_wire()
    assert SandboxLimits().runtime == "process" and SandboxLimits().image is None


def test_container_argv_locks_the_container_down() -> None:
    mounts = (("/h/sandbox", "/opt/oracle-bench/sandbox"), ("/h/rp", "/opt/x"))
    limits = SandboxLimits(memory_mb=256, runtime="docker")
    argv = container_argv("/usr/bin/docker", "oracle-sbx-7-abc", "img:1", limits, mounts, "h:7")
    image_at = argv.index("img:1")
    assert argv[:image_at] == [
        "/usr/bin/docker",
        "run",
        "--interactive",
        "--rm",
        "--init",
        "--name=oracle-sbx-7-abc",
        "--label=oracle-bench.sandbox=worker",
        "--label=oracle-bench.sandbox.owner=h:7",
        "--network=none",
        "--ipc=none",
        "--read-only",
        "--tmpfs=/tmp:rw,nosuid,nodev,noexec,size=1m,mode=1777",
        "--workdir=/tmp",
        "--cap-drop=ALL",
        "--security-opt=no-new-privileges",
        "--memory=320m",
        "--memory-swap=320m",
        "--pids-limit=16",
        "--user=65534:65534",
        "--log-driver=none",
        "--pull=never",
        "--env=PATH=/usr/local/bin:/usr/bin:/bin",
        "--env=PYTHONHASHSEED=0",
        "--env=PYTHONPATH=/opt/oracle-bench/lib",
        "--entrypoint=python3",
        "--mount=type=bind,source=/h/sandbox,target=/opt/oracle-bench/sandbox,readonly",
        "--mount=type=bind,source=/h/rp,target=/opt/x,readonly",
    ]
    assert argv[image_at + 1 : image_at + 5] == ["-s", "-P", "-B", "-c"]
    assert argv[-1] == "/opt/oracle-bench/sandbox"


def test_worker_mounts_are_what_the_worker_imports() -> None:
    mounts = worker_mounts()
    assert [target for _, target in mounts] == [
        "/opt/oracle-bench/sandbox",
        "/opt/oracle-bench/lib/RestrictedPython",
        "/opt/oracle-bench/lib/oracle_bench",
    ]
    assert mounts[0][0] == str(ROOT / "sandbox")
    assert all((Path(host) / "__init__.py").is_file() for host, _ in mounts)


def test_policy_leaves_the_container_layer_to_the_parent() -> None:
    default = IsolationPolicy.from_require(None)
    assert default.without(frozenset({"container"})) == default
    strict = IsolationPolicy.from_require(frozenset({"container", "seccomp"}))
    assert strict.without(frozenset({"container"})) == IsolationPolicy(frozenset({"seccomp"}))


def test_process_runtime_cannot_claim_the_container_layer() -> None:
    with pytest.raises(IsolationUnavailableError, match="container"):
        SandboxWorker(TRIVIAL, require=frozenset({"container"}))


def test_default_runtime_limits_are_none() -> None:
    assert runtime_limits("process", None) is None
    with pytest.raises(UsageError, match="--base-image applies to --runtime docker only"):
        runtime_limits("process", "img")


# --- failing closed without an engine ------------------------------------------------


def test_no_engine_fails_closed(no_engine: str) -> None:
    before = child_pids()
    with pytest.raises(DockerUnavailableError) as info:
        SandboxWorker(TRIVIAL, limits=DOCKER)
    assert isinstance(info.value, DockerRuntimeUnavailableError)
    assert isinstance(info.value, IsolationUnavailableError)  # an infrastructure failure
    message = str(info.value)
    missing = no_engine.removeprefix("unix://")
    assert message == f"no Docker engine answers at {no_engine}: {missing} does not exist"
    assert "\n" not in message
    assert child_pids() <= before


def test_compile_refusals_need_no_container(no_engine: str, tmp_path: Path) -> None:
    """The parent refuses these before it looks for an engine, as in the process runtime."""
    refused = 0
    for attack in CORPUS:
        source = attack_source(attack, tmp_path / "sentinel")
        if attack.outcome != COMPILE or not compile_check(source):
            continue
        with pytest.raises(SandboxCompileError) as info:
            SandboxWorker(source, limits=_docker(attack.limits, "no/such:image"))
        assert attack.message is not None and attack.message in str(info.value)
        refused += 1
    assert refused == 31


def _one_line_error(capsys: pytest.CaptureFixture[str], prefix: str) -> str:
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith(prefix), lines[0]
    return lines[0]


@pytest.fixture(scope="module")
def one_box_suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from generator import GenerateConfig, generate_suite

    out = tmp_path_factory.mktemp("suites") / "eri-1"
    generate_suite(GenerateConfig(category="ERI", level="easy", n=1, seed=11, out=out))
    return out


def test_command_lines_exit_2_without_an_engine(
    no_engine: str, one_box_suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from evaluator.cli import main as eval_main
    from evaluator.play import main as play_main
    from generator.cli import main as gen_main

    refusal = f"--runtime docker: no Docker engine answers at {no_engine}: "
    out = tmp_path / "run"
    code = eval_main(
        ["5@1", "--suite", str(one_box_suite), "--out", str(out), "--runtime", "docker"]
    )
    assert code == 2
    _one_line_error(capsys, f"oracle-eval: error: {refusal}")
    assert not out.exists()
    gen_out = tmp_path / "suite"
    args = ["--category", "ERI", "--level", "easy", "-n", "1", "--out", str(gen_out)]
    assert gen_main([*args, "--runtime", "docker"]) == 2
    _one_line_error(capsys, f"oracle-gen: error: {refusal}")
    assert not gen_out.exists()
    box = json.loads((one_box_suite / "suite.json").read_text())["boxes"][0]["id"]
    play = ["5@1", "--suite", str(one_box_suite), "--box", box, "--out", str(out)]
    assert play_main([*play, "--runtime", "docker"]) == 2
    _one_line_error(capsys, f"oracle-play: error: {refusal}")
    assert not out.exists()
    # --base-image belongs to the docker runtime.
    assert eval_main(["5@1", "--suite", str(one_box_suite), "--base-image", "img"]) == 2
    _one_line_error(capsys, "oracle-eval: error: --base-image applies to --runtime docker only")


# --- with an engine: the attack corpus and the red-team cases ------------------------


def _no_socket() -> str | None:
    host = os.environ.get("DOCKER_HOST", "unix:///var/run/docker.sock")
    path = host.removeprefix("unix://")
    return (
        f"{path} does not exist"
        if host.startswith("unix://") and not os.path.exists(path)
        else None
    )


@pytest.fixture(scope="module")
def engine(request: pytest.FixtureRequest) -> Any:
    """``docker_engine``, skipped (failed in CI) without even a connection attempt when the
    engine's socket does not exist (the docker SDK leaks a failed connection's socket)."""
    missing = _no_socket()
    if missing is not None:
        if os.environ.get("CI"):
            pytest.fail(f"CI runs the container tests against a real engine: {missing}")
        pytest.skip(f"no Docker engine: {missing}")
    return request.getfixturevalue("docker_engine")


@pytest.fixture(scope="module")
def image(engine: Any, request: pytest.FixtureRequest) -> str:
    return str(request.getfixturevalue("docker_base_image"))


@pytest.fixture(scope="module")
def sentinel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    path = tmp_path_factory.mktemp("docker-attacks") / "sentinel"
    yield path
    assert not path.exists()


def _corpus_source(attacks: list[Attack], sentinel: Path) -> str:
    """One box running every attack: ``blackbox(<id>)`` runs it, ``blackbox(n)`` is 2n."""
    parts = [a.prelude for a in attacks if a.prelude]
    for n, attack in enumerate(attacks):
        body = textwrap.indent(attack.body.replace("SENTINEL", str(sentinel)), "        ")
        parts.append(f"def make_{n}():\n    def attack():\n{body}\n    return attack\n")
    table = ", ".join(f"{a.id!r}: make_{n}()" for n, a in enumerate(attacks))
    parts.append(f"ATTACKS = {{{table}}}\n")
    parts.append(
        "def blackbox(x):\n    if x in ATTACKS:\n        return ATTACKS[x]()\n    return x * 2\n"
    )
    return "\n".join(parts)


RUNTIME_ATTACKS = [a for a in CORPUS if a.outcome != COMPILE]
LIMIT_SETS = sorted({a.limits for a in RUNTIME_ATTACKS}, key=repr)


@pytest.fixture(scope="module")
def corpus_workers(image: str, sentinel: Path) -> Iterator[dict[SandboxLimits, SandboxWorker]]:
    """One container worker per limits of the corpus, each running all its attacks."""
    workers: dict[SandboxLimits, SandboxWorker] = {}
    try:
        for limits in LIMIT_SETS:
            attacks = [a for a in RUNTIME_ATTACKS if a.limits == limits]
            source = _corpus_source(attacks, sentinel)
            workers[limits] = SandboxWorker(source, limits=_docker(limits, image))
        yield workers
    finally:
        for worker in workers.values():
            worker.close()


@pytest.mark.parametrize("attack", RUNTIME_ATTACKS, ids=lambda a: a.id)
def test_attack_in_a_container(
    attack: Attack, corpus_workers: dict[SandboxLimits, SandboxWorker]
) -> None:
    worker = corpus_workers[attack.limits]
    result = worker.call(attack.id)
    assert result.value is None
    assert result.error is not None and result.error.kind == attack.outcome
    if attack.message is not None:
        assert result.error == CallError(ErrorKind(attack.outcome), attack.message)
    # The same container, or the new one of the transparent restart, still works.
    assert worker.call(21).value == 42
    assert worker.layers == CONTAINER_LAYERS


def test_refused_while_loading_in_a_container(image: str, sentinel: Path) -> None:
    loading = [
        a for a in CORPUS if a.outcome == COMPILE and not compile_check(attack_source(a, sentinel))
    ]
    assert [a.id for a in loading] == ["checkpoint-module-level-misuse"]
    for attack in loading:
        with pytest.raises(SandboxCompileError) as info:
            SandboxWorker(attack_source(attack, sentinel), limits=_docker(attack.limits, image))
        assert attack.message is not None and attack.message in str(info.value)


@pytest.fixture(scope="module")
def redteam_worker(image: str) -> Iterator[SandboxWorker]:
    with SandboxWorker(redteam_source(), limits=_docker(REDTEAM_FAST, image)) as worker:
        yield worker


# Outcomes that differ in a container, and why.
CONTAINER_OUTCOMES = {
    # The codec lookup imports encodings.rot_13. A process-runtime worker that dropped to
    # nobody cannot read a stdlib under /root (pyenv here), so the lookup fails there; the
    # image's stdlib is readable. Either way only the encodings package is reachable.
    "codec-module-import": CallResult(
        None,
        CallError(
            ErrorKind.EXCEPTION,
            "LookupError: 'rot13' is not a text encoding; use codecs.encode() to handle "
            "arbitrary codecs",
        ),
    ),
}


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_redteam_case_in_a_container(case: Any, redteam_worker: SandboxWorker) -> None:
    result = redteam_worker.call(case.id)
    if case.id in CONTAINER_OUTCOMES:
        assert result == CONTAINER_OUTCOMES[case.id]
    elif case.outcome == OK:
        assert result == CallResult(case.expected, None)
    else:
        assert result == CallResult(None, CallError(ErrorKind(case.outcome), str(case.expected)))
    assert redteam_worker.call(21).value == 42


MIXED = """
import random

def blackbox(n):
    words = {"w" + str(i * 7919 % 1000) for i in range(n)}
    return [random.random(), random.randrange(10**9), sorted(words)[:3], list(words)[:5], n / 7]
"""


def test_outputs_equal_the_process_runtime(image: str) -> None:
    """Same seeds, same hash seed: a box answers exactly as in the process runtime."""
    limits = SandboxLimits(cpu_seconds=1, wall_seconds=10.0)
    with SandboxWorker(MIXED, limits=limits) as local:
        expected = [local.call(n) for n in (0, 1, 50, 500)]
    with SandboxWorker(MIXED, limits=_docker(limits, image)) as boxed:
        assert [boxed.call(n) for n in (0, 1, 50, 500)] == expected
        assert boxed.layers == CONTAINER_LAYERS


# --- the container itself, probed from inside (test-only unrestricted worker) ---------

PROBES = """
import errno, os, socket

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

def write_file(path):
    with open(path, "w") as fh:
        fh.write("x")

def read(path):
    with open(path) as fh:
        return fh.read()

def connect(host, port, kind):
    s = socket.socket(socket.AF_INET, kind)
    s.settimeout(2)
    s.connect((host, port))

def blackbox(what, arg=None):
    if what == "ids":
        return [os.getuid(), os.geteuid(), os.getgid(), os.getgroups()]
    if what == "env":
        return sorted(os.environ)
    if what == "status":
        keys = ("CapPrm", "CapEff", "CapBnd", "NoNewPrivs")
        return [l for l in read("/proc/self/status").splitlines() if l.startswith(keys)]
    if what == "read":
        return outcome(lambda: read(arg))
    if what == "cat":
        return read(arg).strip()
    if what == "ls":
        return sorted(os.listdir(arg))
    if what == "fork":
        return outcome(fork)
    if what == "write":
        return outcome(lambda: write_file(arg))
    if what == "mkdir":
        return outcome(lambda: os.mkdir(arg))
    if what == "tcp":
        return outcome(lambda: connect(arg[0], arg[1], socket.SOCK_STREAM))
    if what == "udp":
        return outcome(lambda: connect(arg[0], arg[1], socket.SOCK_DGRAM))
    if what == "ifaces":
        return sorted(name for _, name in socket.if_nameindex())
    if what == "segfault":
        import ctypes
        ctypes.string_at(0)
    return "normal"
"""
PROBE_LIMITS = SandboxLimits(cpu_seconds=1, wall_seconds=10.0, memory_mb=256)


def test_the_container_holds_on_its_own(hooked: Hooked, image: str) -> None:
    """Restricted Python and the worker's seccomp filter off: the container still keeps
    the box from the network, the host's files, privileges and more processes."""
    worker_cls = hooked("unrestricted", "no_seccomp")
    limits = _docker(PROBE_LIMITS, image)
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        port = server.getsockname()[1]
        with worker_cls(PROBES, limits=limits, require=frozenset({"container"})) as worker:
            layers = {"container", "no_new_privs", "process", "rlimits", "unprivileged"}
            assert worker.layers == layers

            def probe(*args: Any) -> Any:
                return worker.call(*args).unwrap()

            assert probe("ids") == [65534, 65534, 65534, [65534]]
            assert probe("status") == [
                "CapPrm:\t0000000000000000",
                "CapEff:\t0000000000000000",
                "CapBnd:\t0000000000000000",
                "NoNewPrivs:\t1",
            ]
            assert set(probe("env")) <= {
                "HOME",
                "HOSTNAME",
                "LC_CTYPE",
                "PATH",
                "PYTHONHASHSEED",
                "PYTHONPATH",
            }
            # No network: only the container's own loopback, not the host's.
            assert probe("ifaces") == ["lo"]
            assert probe("tcp", ["127.0.0.1", port]) == "ECONNREFUSED"
            assert probe("tcp", ["192.0.2.1", 80]) == "ENETUNREACH"
            assert probe("udp", ["192.0.2.1", 53]) == "ENETUNREACH"
            # Read-only everywhere but a 1 MiB /tmp (where RLIMIT_FSIZE=0 still binds).
            assert probe("write", "/x") == "EROFS"
            assert probe("mkdir", "/opt/oracle-bench/sandbox/x") == "EROFS"
            assert probe("write", "/opt/oracle-bench/lib/oracle_bench/x") == "EROFS"
            assert probe("write", "/tmp/x") == "EFBIG"
            # The host's files are not there; only the worker's own code is.
            assert probe("read", str(ROOT / "sandbox" / "worker.py")) == "ENOENT"
            assert probe("read", "/etc/shadow") == "EACCES"
            assert probe("ls", "/opt/oracle-bench/lib") == ["RestrictedPython", "oracle_bench"]
            assert probe("fork") == "EAGAIN"
            # The cgroup limits (cgroup v1 here): memory_mb + 64 MiB, no swap, 16 pids.
            memory = str((256 + 64) << 20)
            assert probe("cat", "/sys/fs/cgroup/memory/memory.limit_in_bytes") == memory
            assert probe("cat", "/sys/fs/cgroup/memory/memory.memsw.limit_in_bytes") == memory
            assert probe("cat", "/sys/fs/cgroup/pids/pids.max") == "16"


def _wait_removed(client: Any, name: str) -> None:
    """Return once the container ``name`` no longer exists (an engine event, no polling)."""
    from docker.errors import NotFound

    with contextlib.suppress(NotFound):
        client.api.wait(name, timeout=120, condition="removed")
    with pytest.raises(NotFound):
        client.api.inspect_container(name)


def test_a_crashed_worker_restarts_in_a_new_container_and_none_is_left(
    hooked: Hooked, image: str, engine: Any
) -> None:
    limits = _docker(PROBE_LIMITS, image)
    worker = hooked("unrestricted")(PROBES, limits=limits, require=frozenset({"container"}))
    try:
        process = worker._resources.process
        assert process is not None
        first = process.name  # type: ignore[attr-defined]
        crash = CallResult(None, CallError(ErrorKind.CRASH, "the black box crashed"))
        assert worker.call("segfault") == crash
        _wait_removed(engine, first)
        assert worker.call("other").value == "normal"
        process = worker._resources.process
        assert process is not None
        second = process.name  # type: ignore[attr-defined]
        assert second != first
    finally:
        worker.close()
    _wait_removed(engine, second)


_OWNER_SCRIPT = """
import sys
from sandbox import SandboxLimits, SandboxWorker
worker = SandboxWorker("def blackbox():\\n    return 1\\n",
                       limits=SandboxLimits(runtime="docker", image=sys.argv[1]))
assert worker.call().value == 1
print(worker._resources.process.name, flush=True)
sys.stdin.read()
"""


def test_containers_of_a_sigkilled_owner_go_away_or_are_swept(image: str, engine: Any) -> None:
    owner = subprocess.Popen(
        [sys.executable, "-c", _OWNER_SCRIPT, image],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    with owner:
        assert owner.stdout is not None
        name = owner.stdout.readline().decode().strip()
        owner.send_signal(signal.SIGKILL)
    assert name.startswith(f"oracle-sbx-{owner.pid}-")
    # Its worker sees stdin close and ends; --rm removes the container.
    _wait_removed(engine, name)
    # A container its owner left running (labelled like a worker's) is swept.
    stale = engine.containers.run(
        image,
        ["/bin/sleep", "600"],
        detach=True,
        network_mode="none",
        labels={LABEL: "worker", OWNER_LABEL: f"{socket.gethostname()}:{owner.pid}"},
    )
    alive = engine.containers.run(
        image,
        ["/bin/sleep", "600"],
        detach=True,
        network_mode="none",
        labels={LABEL: "worker", OWNER_LABEL: f"{socket.gethostname()}:{os.getpid()}"},
    )
    try:
        assert stale.name in sweep_stale_containers(engine)
        _wait_removed(engine, stale.name)
        alive.reload()
        assert alive.status == "running"
    finally:
        alive.remove(force=True)


# --- a whole evaluation in containers --------------------------------------------------


LAYER_KEYS = ("layers", "sandbox_layers")


def _without_layers(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_layers(v) for k, v in value.items() if k not in LAYER_KEYS}
    if isinstance(value, list):
        return [_without_layers(v) for v in value]
    return value


def _layers_in(value: Any) -> list[list[str]]:
    if isinstance(value, dict):
        found = [value[k] for k in LAYER_KEYS if k in value]
        return found + [x for v in value.values() for x in _layers_in(v)]
    if isinstance(value, list):
        return [x for v in value for x in _layers_in(v)]
    return []


def test_evaluation_in_containers_equals_the_process_runtime(
    one_box_suite: Path, image: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from evaluator.cli import main as eval_main

    runs = {}
    for runtime in ("process", "docker"):
        out = tmp_path / runtime
        args = ["5@1", "--suite", str(one_box_suite), "--out", str(out), "--runtime", runtime]
        if runtime == "docker":
            args += ["--base-image", image]
        assert eval_main(args) == 0, capsys.readouterr().err
        runs[runtime] = out
    local, boxed = runs["process"], runs["docker"]
    assert (boxed / "summary.json").read_bytes() == (local / "summary.json").read_bytes()
    names = sorted(p.name for p in (local / "trajectories").iterdir())
    assert names == sorted(p.name for p in (boxed / "trajectories").iterdir()) and names
    for name in names:
        a = json.loads((local / "trajectories" / name).read_text())
        b = json.loads((boxed / "trajectories" / name).read_text())
        assert _without_layers(b) == _without_layers(a)
        assert _layers_in(b) and all(set(x) == CONTAINER_LAYERS for x in _layers_in(b))
        assert all("container" not in x for x in _layers_in(a))
