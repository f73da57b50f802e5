"""Information metrics and their bounds, over every baseline agent on many boxes and seeds."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from blackboxes.families import Family
from evaluator.kinds.turns.metrics import check_information_bounds, episode_information
from evaluator.kinds.turns.trajectory import load_trajectory
from evaluator.runner import evaluate_suite
from evaluator.spec import TurnShot

SEEDS = (0, 1, 2)


@pytest.fixture(scope="module")
def suite_dir(tmp_path_factory: pytest.TempPathFactory, suite_builder: Any) -> Path:
    return suite_builder(tmp_path_factory.mktemp("suites"), n=12, seed=7)


@pytest.mark.parametrize("seed", SEEDS)
def test_information_bounds_hold_for_every_episode(
    suite_dir: Path, tmp_path: Path, eri: Family, seed: int
) -> None:
    result = evaluate_suite(
        suite_dir, ["random", "fixed", "adaptive"], TurnShot(10, 1), "instant", seed, tmp_path
    )
    problems: list[str] = []
    for path in result.trajectories:
        traj = load_trajectory(path)
        assert traj.status == "completed", traj.error
        problems += check_information_bounds(traj, eri)
        info = episode_information(traj, eri)
        assert len(info.queries) == traj.queries_used
        assert math.isfinite(info.realised_total)
    assert problems == []
    assert all(g.bound_violations == 0 for g in result.summary.groups)
    by_agent = {g.agent: g for g in result.summary.groups}
    assert by_agent["adaptive"].efficiency_mean == pytest.approx(1.0)
