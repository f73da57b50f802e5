"""Containers through a real Docker engine: the client (failing closed), the docker
sandbox runtime, and the pieces ``oracle-publish`` builds images with."""

from __future__ import annotations

from sandbox.docker._engine import (
    DEFAULT_BASE_IMAGE,
    LOCAL_BASE_IMAGE,
    base_image,
    docker_client,
    engine_available,
)

__all__ = [
    "DEFAULT_BASE_IMAGE",
    "LOCAL_BASE_IMAGE",
    "base_image",
    "docker_client",
    "engine_available",
]
