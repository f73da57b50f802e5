"""Acceptance: adaptive >= fixed >= random on 30 easy and 16 hard ERI boxes and on 20 hard
CII boxes (``benchmarks/eval/ladder.py`` runs 30 per family and level).

Easy: at 10@1 every baseline identifies every easy rule (T_info is 1 for each easy
kind: one 32-letter answer carries more bits than any easy key space), so the ordering
holds with equality; at 1@1 the budget binds and random falls behind. Hard: queries
of 8 characters make T_info 2 or 3 for most kinds, and 1@1 is already strict.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluator.runner import evaluate_suite
from evaluator.spec import parse_spec
from generator import GenerateConfig, generate_suite


@pytest.fixture(scope="module")
def suite30(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("s") / "eri-easy-30"
    generate_suite(GenerateConfig(category="ERI", level="easy", n=30, seed=0, out=out))
    return out


@pytest.fixture(scope="module")
def hard30(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # 16 boxes: random's one-query predictions over the composition kinds are slow, and
    # the ordering already shows (the benchmark ladder runs 30).
    out = tmp_path_factory.mktemp("s") / "eri-hard-16"
    generate_suite(GenerateConfig(category="ERI", level="hard", n=16, seed=0, out=out))
    return out


def _accuracy(suite: Path, spec: str, out: Path) -> dict[str, float]:
    result = evaluate_suite(
        suite, ["random", "fixed", "adaptive"], parse_spec(spec), "instant", 0, out
    )
    acc = {g.agent: g.accuracy_mean for g in result.summary.groups}
    assert all(g.failed == 0 and g.bound_violations == 0 for g in result.summary.groups)
    return {agent: value for agent, value in acc.items() if value is not None}


def test_ordering_at_10at1(suite30: Path, tmp_path: Path) -> None:
    acc = _accuracy(suite30, "10@1", tmp_path / "run")
    assert acc["adaptive"] >= acc["fixed"] >= acc["random"]
    assert acc == {"adaptive": 1.0, "fixed": 1.0, "random": 1.0}


def test_ordering_when_the_budget_binds(suite30: Path, tmp_path: Path) -> None:
    acc = _accuracy(suite30, "1@1", tmp_path / "run")
    assert acc["adaptive"] >= acc["fixed"] >= acc["random"]
    assert acc["random"] < acc["fixed"]


def test_hard_ordering_when_the_budget_binds(hard30: Path, tmp_path: Path) -> None:
    acc = _accuracy(hard30, "1@1", tmp_path / "run")
    assert acc["adaptive"] >= acc["fixed"] > acc["random"]
    # One 8-character answer cannot identify a kind whose T_info is 2 or 3.
    assert acc["fixed"] < 0.8


@pytest.fixture(scope="module")
def cii_hard20(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("s") / "cii-hard-20"
    generate_suite(GenerateConfig(category="CII", level="hard", n=20, seed=0, out=out))
    return out


def test_cii_hard_ordering_at_2at1(cii_hard20: Path, tmp_path: Path) -> None:
    # One visit shows every recorded variable, so two well-chosen queries nearly pin the
    # program down; random inputs, checkpoints and visits do not.
    acc = _accuracy(cii_hard20, "2@1", tmp_path / "run")
    assert acc["adaptive"] >= acc["fixed"] > acc["random"]
    assert acc["random"] < 0.8 < acc["fixed"]
