"""Shared fixtures: small generated suites, built once per test session."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# Tests never reach the network or a tracing backend.
os.environ.pop("LANGSMITH_TRACING", None)
os.environ["LANGCHAIN_TRACING_V2"] = "false"


@pytest.fixture(autouse=True)
def _no_suites_of_the_checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The default suites folder is an empty one per test, not ./suites: after ``make demo``
    the checkout has suites, and a bare ``oracle-eval`` would evaluate the newest one."""
    monkeypatch.setenv("ORACLE_BENCH_SUITES", str(tmp_path / "no-suites-here"))


@pytest.fixture(scope="session")
def eri_easy_suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 6-box easy ERI suite generated with the procedural backend (seed 11)."""
    from generator import GenerateConfig, generate_suite

    out = tmp_path_factory.mktemp("suites") / "eri-easy"
    generate_suite(GenerateConfig(category="ERI", level="easy", n=6, seed=11, out=out))
    return out


@pytest.fixture(scope="session")
def eri_hard_suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 4-box hard ERI suite generated with the procedural backend (seed 5)."""
    from generator import GenerateConfig, generate_suite

    out = tmp_path_factory.mktemp("suites") / "eri-hard"
    generate_suite(GenerateConfig(category="ERI", level="hard", n=4, seed=5, out=out))
    return out


@pytest.fixture(scope="session")
def dfa_suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An 8-box DFA suite, one box per state count 2..9 (seed 3)."""
    from generator import GenerateConfig, generate_suite

    out = tmp_path_factory.mktemp("suites") / "dfa"
    generate_suite(
        GenerateConfig(category="DFA", level="easy", n=8, seed=3, out=out, states=(2, 9))
    )
    return out


@pytest.fixture(scope="session")
def docker_engine() -> object:
    """A connected docker SDK client, for the tests of containers (publishing, the docker
    runtime). Without an engine they are skipped on a developer's machine and fail in CI
    (``CI`` set), where ``.ci/docker-engine`` must have started one."""
    from oracle_bench.errors import DockerUnavailableError
    from sandbox.docker import docker_client

    try:
        return docker_client()
    except DockerUnavailableError as exc:
        if os.environ.get("CI"):
            pytest.fail(f"CI runs the container tests against a real engine: {exc}")
        pytest.skip(f"no Docker engine: {exc}")


@pytest.fixture(scope="session")
def docker_base_image(docker_engine: object) -> str:
    """The base image the container tests build on: ``$ORACLE_BASE_IMAGE`` or the one
    ``.ci/docker-engine`` builds offline."""
    from sandbox.docker import LOCAL_BASE_IMAGE

    image = os.environ.get("ORACLE_BASE_IMAGE") or LOCAL_BASE_IMAGE
    try:
        docker_engine.images.get(image)  # type: ignore[attr-defined]
    except Exception as exc:  # docker.errors.ImageNotFound and transport errors alike
        if os.environ.get("CI"):
            pytest.fail(f"base image {image} missing: {exc}")
        pytest.skip(f"base image {image} missing (run .ci/docker-engine)")
    return image
