"""oracle-eval --counterfactual and oracle-eval report --tiers on a real run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluator.cli import main
from tests.evaluator.conftest import build_suite


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_suite(tmp_path_factory.mktemp("s"), n=3, family_name="CRI", level="hard")


def _tier_lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if ": tier " in line or ": no tier" in line]


def test_counterfactual_runs_both_replays_prints_tiers_and_resumes(
    suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    argv = ["4@1", "--suite", str(suite), "--out", str(run), "--counterfactual"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "Counterfactual (twins): 9 episode(s), 9 run, 0 already done, 0 failed" in out
    assert "Counterfactual (reseeded): 9 episode(s), 9 run, 0 already done, 0 failed" in out
    lines = _tier_lines(out)
    assert [line.split(":")[0] for line in lines] == [
        "CRI hard adaptive",
        "CRI hard fixed",
        "CRI hard random",
    ]
    assert lines[2].startswith("CRI hard random: tier 1, ")
    twins = sorted(p.name for p in (run / "counterfactual" / "run" / "trajectories").iterdir())
    assert twins == sorted(p.name for p in (run / "trajectories").iterdir())
    reseeded = json.loads((run / "counterfactual" / "reseeded" / "run.json").read_text())
    assert reseeded["arguments"]["seed"] != 0

    assert main(argv) == 0  # everything is done: resumed, the same tiers
    again = capsys.readouterr().out
    assert "Counterfactual (twins): 9 episode(s), 0 run, 9 already done" in again
    assert _tier_lines(again) == lines

    assert main(["report", str(run), "--tiers", "--out", str(tmp_path / "rep")]) == 0
    assert _tier_lines(capsys.readouterr().out) == lines


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["1,2@1", "--counterfactual"], "--counterfactual takes one run, not a sweep"),
    ],
)
def test_counterfactual_refuses_a_sweep(
    suite: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    assert main([*argv, "--suite", str(suite)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err


def test_report_tiers_is_for_one_run(
    suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    assert main(["1@1", "--suite", str(suite), "--out", str(run), "--agent", "random"]) == 0
    capsys.readouterr()
    assert main(["report", str(run), "--tiers", "--html", str(tmp_path / "r.html")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "the HTML report has a tiers section" in err
    assert main(["report", str(run), "--tiers"]) == 0
    # Only the random baseline: no reference, so no tier at all.
    assert _tier_lines(capsys.readouterr().out) == [
        "CRI hard random: no tier, no reference agent on the same boxes to compare with"
    ]
