"""The docker sandbox runtime: the same worker, inside a locked-down container.

``SandboxLimits(runtime="docker")`` makes :class:`~sandbox.SandboxWorker` start its worker
with ``docker run -i`` (through the docker CLI) instead of as a child process. The JSON-lines
protocol is unchanged: the CLI relays the worker's stdin and stdout. The container has

* no network (``--network none``) and no IPC namespace shared (``--ipc none``);
* a read-only root filesystem with a 1 MiB ``noexec`` tmpfs on ``/tmp`` (its working
  directory), and the worker's code mounted read-only from this machine's installed
  packages: ``sandbox`` itself, ``RestrictedPython`` and ``oracle_bench`` (the worker's
  only imports outside the standard library);
* every capability dropped and ``no-new-privileges``;
* a memory cgroup limit of ``memory_mb`` + :data:`MEMORY_HEADROOM_MB` (the worker's own
  ``RLIMIT_AS`` of ``memory_mb`` binds first, so a memory bomb is the same typed error as
  in the process runtime) without swap, and a pids limit of :data:`PIDS_LIMIT`;
* user 65534:65534 (nobody), ``docker-init`` as PID 1 (a PID 1 would ignore the CPU
  budget's SIGPROF), no log driver, and ``--pull never``.

Inside, the worker sets up what it can without capabilities (restricted, rlimits,
no_new_privs, seccomp, unprivileged) and reports exactly that; the parent adds the
``container`` layer. Failing closed: no engine, no docker CLI or a missing image is a
:class:`DockerRuntimeUnavailableError` (a ``DockerUnavailableError``) before any code runs,
never a fallback to the process runtime.

Containers are always removed: ``--rm`` removes one whose worker ends, a worker that is
closed, overruns or dies has its container killed through the engine's API, and a
container whose parent was SIGKILLed sees its stdin close and ends. Each container is
named ``oracle-sbx-<pid>-<hex>`` and labelled with its owner (``host:pid``), so that
:func:`sweep_stale_containers` (run once per process and engine) removes any left behind.
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import shutil
import socket
import subprocess
import threading
from pathlib import Path
from typing import Any, Final

from oracle_bench.errors import DockerUnavailableError, IsolationUnavailableError
from sandbox._process import BOOTSTRAP, SANDBOX_DIR, WORKER_FLAGS, WorkerProcess
from sandbox._workdir import _running
from sandbox.docker._engine import base_image, docker_client
from sandbox.layers import LAYER_CONTAINER
from sandbox.limits import SandboxLimits

__all__ = [
    "CONTAINER_USER",
    "LABEL",
    "MEMORY_HEADROOM_MB",
    "OWNER_LABEL",
    "PIDS_LIMIT",
    "DockerRuntime",
    "DockerRuntimeUnavailableError",
    "DockerWorkerProcess",
    "check_docker_runtime",
    "container_argv",
    "docker_cli",
    "runtime_limits",
    "sweep_stale_containers",
    "worker_image",
    "worker_mounts",
]

logger = logging.getLogger(__name__)

CONTAINER_USER: Final = "65534:65534"
PIDS_LIMIT: Final = 16
"""docker-init and the worker need two; room for nothing like a fork bomb."""
MEMORY_HEADROOM_MB: Final = 64
LABEL: Final = "oracle-bench.sandbox"
OWNER_LABEL: Final = "oracle-bench.sandbox.owner"
NAME_PREFIX: Final = "oracle-sbx-"
_ROOT = "/opt/oracle-bench"
_LIB = f"{_ROOT}/lib"
_SANDBOX = f"{_ROOT}/sandbox"
_PATH = "/usr/local/bin:/usr/bin:/bin"
_TMPFS = "/tmp:rw,nosuid,nodev,noexec,size=1m,mode=1777"
# A container start on a busy vfs engine takes seconds, not the process runtime's tens of ms.
STARTUP_GRACE_SECONDS: Final = 120.0
# After EOF, the CLI exits once the engine reports the container's end.
_EXIT_WAIT_SECONDS = 30.0
_STDERR_NAME = "docker-run.stderr"
_STDERR_READ = 4096
# What the docker CLI itself may need from this process's environment.
_CLI_ENV = (
    "DOCKER_API_VERSION",
    "DOCKER_CERT_PATH",
    "DOCKER_CONFIG",
    "DOCKER_CONTEXT",
    "DOCKER_HOST",
    "DOCKER_TLS_VERIFY",
    "HOME",
    "PATH",
)
# Characters that would break ``--mount``'s comma-separated syntax.
_UNMOUNTABLE = frozenset(',"\n\r')

_DEFAULT_SOCKET = "/var/run/docker.sock"
_swept: set[str] = set()
_sweep_lock = threading.Lock()


class DockerRuntimeUnavailableError(DockerUnavailableError, IsolationUnavailableError):
    """The docker runtime cannot run here (no engine, CLI or image): refuse, fail closed.

    An ``IsolationUnavailableError`` too, so that an evaluation counts an episode that
    meets it as an infrastructure failure, never as the box's or the agent's fault.
    """


def docker_cli() -> str:
    """The docker CLI binary: ``docker`` on ``PATH``, else ``/usr/bin/docker``."""
    found = shutil.which("docker") or (
        "/usr/bin/docker" if os.access("/usr/bin/docker", os.X_OK) else None
    )
    if found is None:
        raise DockerRuntimeUnavailableError(
            "the docker CLI is not installed (the docker runtime runs `docker run`)"
        )
    return found


def worker_mounts() -> tuple[tuple[str, str], ...]:
    """(host folder, container folder) of what the worker imports: the ``sandbox``
    package, ``RestrictedPython`` and ``oracle_bench``, from where they are installed."""
    import RestrictedPython

    import oracle_bench

    mounts = (
        (SANDBOX_DIR, _SANDBOX),
        (str(Path(RestrictedPython.__file__).resolve().parent), f"{_LIB}/RestrictedPython"),
        (str(Path(oracle_bench.__file__).resolve().parent), f"{_LIB}/oracle_bench"),
    )
    for host, _ in mounts:
        if _UNMOUNTABLE & set(host):
            raise DockerRuntimeUnavailableError(f"cannot bind-mount {host!r} into a container")
    return mounts


def container_argv(
    cli: str,
    name: str,
    image: str,
    limits: SandboxLimits,
    mounts: tuple[tuple[str, str], ...],
    owner: str,
) -> list[str]:
    """The ``docker run`` command line of one worker container (see the module docstring)."""
    memory = f"{limits.memory_mb + MEMORY_HEADROOM_MB}m"
    argv = [
        cli,
        "run",
        "--interactive",
        "--rm",
        "--init",
        f"--name={name}",
        f"--label={LABEL}=worker",
        f"--label={OWNER_LABEL}={owner}",
        "--network=none",
        "--ipc=none",
        "--read-only",
        f"--tmpfs={_TMPFS}",
        "--workdir=/tmp",
        "--cap-drop=ALL",
        "--security-opt=no-new-privileges",
        f"--memory={memory}",
        f"--memory-swap={memory}",
        f"--pids-limit={PIDS_LIMIT}",
        f"--user={CONTAINER_USER}",
        "--log-driver=none",
        "--pull=never",
        f"--env=PATH={_PATH}",
        "--env=PYTHONHASHSEED=0",
        f"--env=PYTHONPATH={_LIB}",
        "--entrypoint=python3",
    ]
    argv += [f"--mount=type=bind,source={h},target={c},readonly" for h, c in mounts]
    # The image is never an option (SandboxLimits checks its name); the rest is python3's.
    argv += [image, *WORKER_FLAGS, "-c", BOOTSTRAP, _SANDBOX]
    return argv


def _check_socket() -> None:
    """A unix socket that does not exist is no engine: said without opening a connection
    (the SDK leaks the socket of a failed one)."""
    host = os.environ.get("DOCKER_HOST")
    path = host[len("unix://") :] if host else _DEFAULT_SOCKET
    if (host is None or host.startswith("unix://")) and not os.path.exists(path):
        where = host or "the default socket"
        raise DockerRuntimeUnavailableError(
            f"no Docker engine answers at {where}: {path} does not exist"
        )


def _cli_env() -> dict[str, str]:
    return {k: os.environ[k] for k in _CLI_ENV if k in os.environ}


def _owner() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def sweep_stale_containers(client: Any) -> list[str]:
    """Remove the worker containers of this host whose owner process is gone; return their
    names. Never raises: a container that cannot be listed or removed is left."""
    host = socket.gethostname()
    removed: list[str] = []
    try:
        rows = client.api.containers(all=True, filters={"label": LABEL})
    except Exception as exc:  # the engine's answer is not ours to trust or to crash on
        logger.debug("cannot list sandbox containers: %s", exc)
        return removed
    for row in rows if isinstance(rows, list) else ():
        if not isinstance(row, dict):
            continue
        labels = row.get("Labels") or {}
        owner_host, _, pid = str(labels.get(OWNER_LABEL, "")).rpartition(":")
        if owner_host != host or not pid.isdigit() or _running(int(pid)):
            continue
        names = row.get("Names") or [row.get("Id", "?")]
        try:
            client.api.remove_container(row["Id"], force=True)
        except Exception as exc:
            logger.debug("stale sandbox container %s left: %s", names, exc)
            continue
        removed.append(str(names[0]).lstrip("/"))
    if removed:
        logger.info("removed %d stale sandbox container(s): %s", len(removed), removed)
    return removed


def check_docker_runtime(limits: SandboxLimits) -> frozenset[str]:
    """Start one worker of ``limits`` (a docker runtime) on a trivial box and return its
    layers: what a command line does before any work, so that an engine, image or CLI that
    cannot serve is one refusal rather than a failure per box.

    Raises :class:`DockerRuntimeUnavailableError` with a one-line reason.
    """
    from oracle_bench.errors import SandboxError
    from sandbox.worker import SandboxWorker

    if limits.runtime != "docker":
        raise DockerRuntimeUnavailableError(f"not the docker runtime: {limits.runtime!r}")
    try:
        with SandboxWorker("def blackbox():\n    return 1\n", limits=limits) as worker:
            result = worker.call()
            if result.value != 1:
                raise DockerRuntimeUnavailableError(
                    f"a worker in {worker_image(limits)} did not answer: {result.error}"
                )
            return worker.layers
    except DockerUnavailableError:
        raise
    except SandboxError as exc:
        raise DockerRuntimeUnavailableError(
            f"cannot run a sandbox worker in {worker_image(limits)}: {exc}"
        ) from exc


def runtime_limits(runtime: str = "process", image: str | None = None) -> SandboxLimits | None:
    """The sandbox limits of a command line's ``--runtime`` and ``--base-image``.

    ``None`` for the process runtime (the callers' defaults: nothing changes); for
    ``docker``, ``SandboxLimits(runtime="docker", image=base_image(image))`` once
    :func:`check_docker_runtime` has run a worker with it. Everything that goes wrong,
    including an engine that cannot serve, is a one-line ``UsageError`` (exit 2).
    """
    from oracle_bench.errors import UsageError

    if runtime == "process":
        if image is not None:
            raise UsageError("--base-image applies to --runtime docker only")
        return None
    if runtime != "docker":
        raise UsageError(f"invalid --runtime {runtime!r}: use process or docker")
    limits = SandboxLimits(runtime="docker", image=base_image(image))
    try:
        check_docker_runtime(limits)
    except DockerUnavailableError as exc:
        raise UsageError(f"--runtime docker: {' '.join(str(exc).splitlines())}") from exc
    return limits


def worker_image(limits: SandboxLimits) -> str:
    """The image the docker runtime of ``limits`` runs workers in."""
    return base_image(limits.image)


class DockerRuntime:
    """The docker runtime of one :class:`~sandbox.SandboxWorker`: a checked engine, image
    and CLI, and the containers of its successive workers. ``close`` releases the client."""

    layers: frozenset[str] = frozenset({LAYER_CONTAINER})
    startup_grace: float = STARTUP_GRACE_SECONDS

    def __init__(self, limits: SandboxLimits) -> None:
        self.limits = limits
        self.image = worker_image(limits)
        _check_socket()
        try:
            self._client = docker_client()
        except DockerUnavailableError as exc:
            raise DockerRuntimeUnavailableError(str(exc)) from exc
        try:
            self._check_image()
            self.cli = docker_cli()
            self.mounts = worker_mounts()
            self._sweep_once()
        except BaseException:
            self.close()
            raise

    def _check_image(self) -> None:
        from docker.errors import DockerException, ImageNotFound

        try:
            self._client.images.get(self.image)
        except ImageNotFound as exc:
            raise DockerRuntimeUnavailableError(
                f"the image {self.image} is not on the Docker engine (it is never pulled: "
                "build or load it, or choose another with --base-image)"
            ) from exc
        except (DockerException, OSError) as exc:
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise DockerRuntimeUnavailableError(
                f"cannot inspect the image {self.image}: {reason[:300]}"
            ) from exc

    def _sweep_once(self) -> None:
        engine = os.environ.get("DOCKER_HOST", "")
        with _sweep_lock:
            if engine in _swept:
                return
            _swept.add(engine)
        sweep_stale_containers(self._client)

    def argv(self, name: str) -> list[str]:
        """The ``docker run`` command line of a container called ``name``."""
        return container_argv(self.cli, name, self.image, self.limits, self.mounts, _owner())

    def spawn(self, cwd: str) -> DockerWorkerProcess:
        """Start a worker container; its CLI runs in ``cwd`` (the worker's host folder)."""
        return DockerWorkerProcess(cwd, self)

    def kill_container(self, name: str) -> None:
        """SIGKILL the container (``--rm`` then removes it); one already gone is fine."""
        try:
            self._client.api.kill(name)
        except Exception as exc:  # not found, not running, or the engine went away
            logger.debug("killing sandbox container %s: %s", name, exc)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self._client.close()


class DockerWorkerProcess(WorkerProcess):
    """A worker container, seen through its ``docker run -i`` process."""

    def __init__(self, cwd: str, runtime: DockerRuntime) -> None:
        self.name = f"{NAME_PREFIX}{os.getpid()}-{secrets.token_hex(6)}"
        self._runtime = runtime
        self._stderr_path = os.path.join(cwd, _STDERR_NAME)
        fd = os.open(
            self._stderr_path,
            os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC,
            0o600,
        )
        try:
            super().__init__(cwd, argv=runtime.argv(self.name), env=_cli_env(), stderr=fd)
        finally:
            os.close(fd)

    def exit_signal(self, timeout: float = _EXIT_WAIT_SECONDS) -> int | None:
        """After EOF: the signal that ended the worker. docker-init and ``docker run`` exit
        with 128 + N when the worker died of signal N."""
        try:
            code = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            return None
        return code - 128 if 128 < code < 128 + 65 else None

    def kill(self) -> None:
        self._runtime.kill_container(self.name)
        super().kill()

    def diagnosis(self) -> str:
        """The first line the docker CLI wrote on stderr (why a container did not start)."""
        try:
            with open(self._stderr_path, "rb") as fh:
                text = fh.read(_STDERR_READ).decode("utf-8", "replace")
        except OSError:
            return ""
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        return lines[0][:300] if lines else ""
