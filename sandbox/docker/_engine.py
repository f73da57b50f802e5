"""The Docker engine, reached through the docker SDK, failing closed.

Everything that runs containers (the docker sandbox runtime, ``oracle-publish``, the tests)
gets its client here: no engine, no SDK or an engine that does not answer is a
:class:`~oracle_bench.errors.DockerUnavailableError` with a one-line reason, never a
fallback to weaker isolation.
"""

from __future__ import annotations

import os
from typing import Any

from oracle_bench.errors import DockerUnavailableError

__all__ = [
    "DEFAULT_BASE_IMAGE",
    "LOCAL_BASE_IMAGE",
    "base_image",
    "docker_client",
    "engine_available",
]

DEFAULT_BASE_IMAGE = "python:3.12-slim"
"""The base of published images for users with a registry."""
LOCAL_BASE_IMAGE = "local/debian-python:bookworm"
"""The base image ``.ci/docker-engine`` builds offline (debootstrap + ``docker import``)."""
BASE_IMAGE_ENV = "ORACLE_BASE_IMAGE"


def base_image(given: str | None = None) -> str:
    """``given``, else ``$ORACLE_BASE_IMAGE``, else :data:`DEFAULT_BASE_IMAGE`."""
    return given or os.environ.get(BASE_IMAGE_ENV) or DEFAULT_BASE_IMAGE


def docker_client(timeout: float = 120.0) -> Any:
    """A connected ``docker.DockerClient`` (``$DOCKER_HOST`` or the default socket).

    Raises ``DockerUnavailableError`` when the SDK is missing or no engine answers a ping.
    """
    try:
        import docker
        from docker.errors import DockerException
    except ImportError as exc:
        raise DockerUnavailableError(
            "the docker SDK is not installed (pip install 'docker>=7.1')"
        ) from exc
    where = os.environ.get("DOCKER_HOST", "the default socket")
    host = os.environ.get("DOCKER_HOST") or "unix:///var/run/docker.sock"
    if host.startswith("unix://") and not os.path.exists(host[len("unix://") :]):
        # Fail before the SDK opens a connection it would leak on the way out.
        raise DockerUnavailableError(f"no Docker engine answers at {where}: no socket there")
    client = None
    try:
        client = docker.from_env(timeout=int(timeout))
        client.ping()
    except (DockerException, OSError) as exc:
        if client is not None:
            client.close()  # its connection pool holds a socket: no ResourceWarning later
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise DockerUnavailableError(
            f"no Docker engine answers at {where}: {reason[:300]}"
        ) from exc
    return client


def engine_available() -> bool:
    """True when :func:`docker_client` would succeed."""
    try:
        docker_client(timeout=10).close()
    except DockerUnavailableError:
        return False
    return True
