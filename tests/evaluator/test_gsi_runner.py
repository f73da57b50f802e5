"""GSI suites end to end: real opponent boxes in the real sandbox, through the runner, the
CLI, ``oracle-eval report`` and ``oracle-play``: the game kind found through the registry."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from blackboxes.store import load_suite_boxes
from evaluator.cli import main
from evaluator.human import PlayIO
from evaluator.play import main as play_main
from evaluator.report import load_run, summarise_run, write_run_summary
from evaluator.runner import evaluate_suite
from evaluator.spec import TurnShot


@pytest.fixture(scope="module")
def gsi_suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from generator import GenerateConfig, generate_suite

    out = tmp_path_factory.mktemp("suites") / "gsi-easy"
    generate_suite(GenerateConfig(category="GSI", level="easy", n=3, seed=2, out=out))
    return out


def test_baselines_through_the_runner_resume_and_report(gsi_suite: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    agents = ["random", "fixed", "adaptive"]
    result = evaluate_suite(gsi_suite, agents, TurnShot(1, 1), None, 0, out)
    assert result.manifest.kind == "game" and result.manifest.failed == 0
    traj = json.loads(next((out / "trajectories").glob("*__adaptive__r0.json")).read_text())
    assert traj["kind"] == "game" and len(traj["settings_played"]) == 4
    for s in traj["settings_played"]:
        assert len(s["exploration"]) == 1 and len(s["evaluation"]) == 1
        assert 0 <= s["normalised"] <= 1 and s["optimum"] > 0
    again = evaluate_suite(gsi_suite, agents, TurnShot(1, 1), None, 0, out)
    assert again.manifest.skipped == 9 and again.manifest.executed == 0
    records = load_run(out)
    assert records.settings.kind.name == "game"
    written = write_run_summary(records, summarise_run(records), tmp_path / "report")
    for path in written:
        assert path.read_bytes() == (out / path.name).read_bytes(), path.name


def test_the_cli_refuses_other_kinds_settings(
    gsi_suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["--suite", str(gsi_suite), "--agent", "adaptive"]
    assert main(["1@1", *base, "--feedback", "deferred", "--out", str(tmp_path / "a")]) == 2
    err = capsys.readouterr().err
    assert "--feedback does not apply (for puzzle and turn@shot suites only)" in err
    assert main([*base, "--out", str(tmp_path / "b")]) == 2
    assert "SPEC (TURNS@SHOTS: exploration and evaluation games" in capsys.readouterr().err


def test_a_person_plays_a_gsi_box(gsi_suite: Path, tmp_path: Path) -> None:
    _, boxes = load_suite_boxes(gsi_suite)
    box = boxes[0]
    lines = iter([":help", "nonsense", *["rock", "paper", "scissors", "cooperate", "load"] * 99])
    shown: list[str] = []

    def read(prompt: str) -> str:
        try:
            return next(lines)
        except StopIteration:
            raise EOFError from None

    argv = ["1@1", "--suite", str(gsi_suite), "--box", box.info.id, "--out", str(tmp_path / "p")]
    assert play_main([*argv, "--name", "bo"], io=PlayIO(read, shown.append)) == 0
    files = list((tmp_path / "p" / "trajectories").glob("*.json"))
    traj = json.loads(files[0].read_text())
    assert traj["kind"] == "game" and traj["agent"] == "human:bo"
    assert traj["status"] == "completed" and traj["invalid_rounds"] >= 1
