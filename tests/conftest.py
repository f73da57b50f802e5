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
