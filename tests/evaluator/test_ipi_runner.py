"""IPI suites end to end: real boxes in the real sandbox, through the runner, the CLI,
``oracle-eval report`` and ``oracle-play``: the puzzle kind found through the registry."""

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
def ipi_suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from generator import GenerateConfig, generate_suite

    out = tmp_path_factory.mktemp("suites") / "ipi-easy"
    generate_suite(GenerateConfig(category="IPI", level="easy", n=4, seed=2, out=out))
    return out


def test_baselines_through_the_runner_resume_and_report(ipi_suite: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    agents = ["random", "fixed", "adaptive"]
    result = evaluate_suite(ipi_suite, agents, TurnShot(4, 1), None, 0, out)
    assert result.manifest.kind == "puzzle" and result.manifest.failed == 0
    summary = result.summary
    assert {g.agent for g in summary.groups} == set(agents)  # type: ignore[attr-defined]
    traj = json.loads(next((out / "trajectories").glob("*__adaptive__r0.json")).read_text())
    assert traj["kind"] == "puzzle" and len(traj["instances"]) == 6
    assert all(len(i["probes"]) <= 4 for i in traj["instances"])
    again = evaluate_suite(ipi_suite, agents, TurnShot(4, 1), None, 0, out)
    assert again.manifest.skipped == 12 and again.manifest.executed == 0
    records = load_run(out)
    assert records.settings.kind.name == "puzzle"
    written = write_run_summary(records, summarise_run(records), tmp_path / "report")
    for path in written:
        assert path.read_bytes() == (out / path.name).read_bytes(), path.name


def test_the_cli_refuses_other_kinds_settings_and_takes_its_own(
    ipi_suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["--suite", str(ipi_suite), "--agent", "adaptive"]
    assert main(["3@1", *base, "--budget-factor", "2", "--out", str(tmp_path / "a")]) == 2
    err = capsys.readouterr().err
    assert "--budget-factor does not apply (for DFA suites only)" in err
    assert main([*base, "--out", str(tmp_path / "b")]) == 2
    assert "SPEC (TURNS@SHOTS per puzzle instance" in capsys.readouterr().err
    assert main(["3@1", *base, "--agent", "lstar", "--out", str(tmp_path / "c")]) == 2
    assert "unknown puzzle agent 'lstar'" in capsys.readouterr().err
    out = tmp_path / "keep"
    assert (
        main(["3@1", *base, "--context", "keep", "--feedback", "deferred", "--out", str(out)]) == 0
    )
    definition = json.loads((out / "definition.json").read_text())
    assert definition["kind"] == "puzzle" and definition["options"] == {"context": "keep"}
    assert definition["feedback"] == "deferred"
    # Another context is another run.
    assert main(["3@1", *base, "--out", str(out)]) == 2
    assert "holds another run" in capsys.readouterr().err


def test_a_person_plays_an_ipi_box(ipi_suite: Path, tmp_path: Path) -> None:
    _, boxes = load_suite_boxes(ipi_suite)
    box = boxes[0]
    lines = iter([":help", "! nonsense", *["! nonsense"] * 12])
    shown: list[str] = []

    def read(prompt: str) -> str:
        try:
            return next(lines)
        except StopIteration:
            raise EOFError from None

    io = PlayIO(read, shown.append)
    argv = ["2@1", "--suite", str(ipi_suite), "--box", box.info.id, "--out", str(tmp_path / "p")]
    assert play_main([*argv, "--name", "ann"], io=io) == 0
    files = list((tmp_path / "p" / "trajectories").glob("*.json"))
    assert len(files) == 1
    traj = json.loads(files[0].read_text())
    assert traj["kind"] == "puzzle" and traj["agent"] == "human:ann"
    assert traj["status"] == "completed" and traj["score"] == 0.0
    assert box.info.task_intro.splitlines()[0] in "\n".join(shown)
