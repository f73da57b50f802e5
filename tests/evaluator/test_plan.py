"""oracle-eval plan: boxes x repetitions from a pilot's variance components (synthetic
runs with known components, and a real pilot run through the command line)."""

from __future__ import annotations

import math
import statistics
from pathlib import Path
from typing import Any

import pytest

from evaluator import evaluate
from evaluator._plan_cli import plan_difference, plan_width
from evaluator.analysis.compare import EpisodeScore, RunScores
from evaluator.cli import main
from oracle_bench.errors import UsageError

Z = statistics.NormalDist().inv_cdf(0.975)


def _run(scores: dict[str, dict[str, list[float]]]) -> RunScores:
    """A run whose agents score ``scores[agent][box]`` (one value per repetition)."""
    episodes = [
        EpisodeScore(box, "ERI", "easy", agent, rep, value, failed=False)
        for agent, boxes in scores.items()
        for box, values in boxes.items()
        for rep, value in enumerate(values)
    ]
    return RunScores(
        label="pilot",
        path=Path("pilot"),
        suite="s",
        kind="turns",
        settings="10@1",
        feedback="instant",
        seed=0,
        repeats=max(len(v) for b in scores.values() for v in b.values()),
        agents=tuple(scores),
        box_digests=None,
        excluded=frozenset(),
        episodes=tuple(episodes),
    )


def test_width_plan_from_known_components() -> None:
    # Box means 0.5, 0, 1: s2_m = 1/4; within = 1/6; between = 1/4 - (1/6) / 2 = 1/6.
    run = _run({"a": {"b1": [1, 0], "b2": [0, 0], "b3": [1, 1]}})
    (row,) = plan_width(run, 0.2, repetitions=(1, 2, 4))
    assert row.subject == "a"
    assert row.components.between == pytest.approx(1 / 6)
    assert row.components.within == pytest.approx(1 / 6)
    expected = [(r, math.ceil((2 * Z / 0.2) ** 2 * (1 / 6 + 1 / 6 / r) - 1e-9)) for r in (1, 2, 4)]
    assert list(row.boxes) == expected == [(1, 129), (2, 97), (4, 81)]


def test_one_repetition_is_pooled() -> None:
    run = _run({"a": {"b1": [0.0], "b2": [1.0], "b3": [0.5]}})
    (row,) = plan_width(run, 0.2, repetitions=(1, 4))
    assert row.components.within is None
    n = math.ceil((2 * Z / 0.2) ** 2 * 0.25)
    assert list(row.boxes) == [(1, n), (4, n)]


def test_difference_plan_from_known_components() -> None:
    a = {"b1": [1.0, 1.0], "b2": [0.5, 0.5], "b3": [1.0, 1.0], "b4": [0.0, 0.0]}
    b = {"b1": [0.5, 0.5], "b2": [0.5, 0.5], "b3": [0.5, 0.5], "b4": [0.0, 0.0]}
    run = _run({"a": a, "b": b})
    (row,) = plan_difference(run, 0.1, repetitions=(1,))
    # No repetition noise: between = variance of the differences 0.5, 0, 0.5, 0 = 1/12.
    assert row.subject == "a - b"
    assert row.components.within == 0.0
    assert row.components.between == pytest.approx(1 / 12)
    zz = Z + statistics.NormalDist().inv_cdf(0.8)
    assert row.boxes == ((1, math.ceil(zz**2 * (1 / 12) / 0.01)),)
    with pytest.raises(UsageError, match="give two or more"):
        plan_difference(run, 0.1, agents=["a"])
    with pytest.raises(UsageError, match="not in the pilot"):
        plan_width(run, 0.1, agents=["c"])
    with pytest.raises(UsageError, match="power"):
        plan_difference(run, 0.1, power=1.5)
    with pytest.raises(UsageError, match="2\\+"):
        plan_width(_run({"a": {"b1": [1.0, 0.0]}}), 0.1)


@pytest.fixture(scope="module")
def pilot(tmp_path_factory: pytest.TempPathFactory, suite_builder: Any) -> Path:
    root = tmp_path_factory.mktemp("plan")
    suite = suite_builder(root, n=3, seed=21, name="pilot")
    return evaluate(suite, ["random", "adaptive"], "1@1", repeats=2, out=root / "run").out_dir


def test_cli_prints_both_tables(pilot: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", str(pilot), "--ci-width", "0.2", "--repetitions", "1,3"]) == 0
    out = capsys.readouterr().out
    assert "Pilot run: pilot, 1@1, 2 repetition(s) per box" in out
    assert "1 rep." in out and "3 rep." in out and "2 rep." not in out
    assert main(["plan", str(pilot), "--difference", "0.2", "--power", "0.9"]) == 0
    out = capsys.readouterr().out
    assert "random - adaptive" in out and "power 0.9" in out


@pytest.mark.parametrize(
    ("argv", "text"),
    [
        ([], "one of the arguments --ci-width --difference is required"),
        (["--ci-width", "0.1", "--agent", "nobody"], "'nobody' is not in the pilot run"),
        (["--ci-width", "0.1", "--power", "0.9"], "apply to --difference only"),
        (["--ci-width", "-1"], "must be > 0"),
        (["--difference", "0.1", "--repetitions", "0,2"], "repetitions must be >= 1"),
    ],
)
def test_cli_errors_are_one_line_exit_2(
    pilot: Path, capsys: pytest.CaptureFixture[str], argv: list[str], text: str
) -> None:
    assert main(["plan", str(pilot), *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and text in err, err
