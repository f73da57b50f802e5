"""oracle-gen for PSI: bare commands, verified boxes, byte-identical suites, both answer
modes, an LLM-designed system, and oracle-play with a typed program."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from blackboxes.families import family_for_box
from blackboxes.families.psi._kinds import KINDS
from blackboxes.store import load_suite_boxes
from evaluator.kinds.turns.trajectory import load_trajectory
from evaluator.play import PlayIO
from evaluator.play import main as play_main
from generator import GenerateConfig, generate_suite
from generator.cli import main


def _tree(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


@pytest.mark.parametrize("level", ["easy", "hard"])
def test_bare_psi_command_writes_verified_boxes(
    level: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ORACLE_BENCH_SUITES", str(tmp_path / "suites"))
    assert main(["--category", "PSI", "--level", level, "-n", "3"]) == 0
    suite, boxes = load_suite_boxes(tmp_path / "suites" / f"PSI-{level}-n3")
    assert suite.level == level and len(boxes) == 3
    for box in boxes:
        kind = KINDS[box.facts.rule_kind]
        assert box.info.interface == {
            "objects": kind.objects,
            "dims": kind.dims,
            "answers": "values",
        }
        assert not box.facts.log2_h_exact and box.facts.t_info is not None
        last = box.provenance.attempts[-1]
        assert box.provenance.accepted and last.checks["differential"] is True
        assert last.differential_inputs > 0 and last.differential_mismatches == 0
        public = json.dumps(box.info.model_dump(mode="json"))
        assert box.facts.rule_kind not in public and "def blackbox" not in public
    # The intro depends on the interface alone, so it cannot carry a parameter.
    for box in boxes:
        for other in boxes:
            if other.info.interface == box.info.interface:
                assert other.info.task_intro == box.info.task_intro


def test_same_seed_gives_byte_identical_psi_suites(tmp_path: Path) -> None:
    for name in ("a", "b"):
        generate_suite(
            GenerateConfig(category="PSI", level="easy", n=3, seed=5, out=tmp_path / name)
        )
    assert _tree(tmp_path / "a") == _tree(tmp_path / "b")


def test_answers_option(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ORACLE_BENCH_SUITES", str(tmp_path / "suites"))
    assert main(["--category", "PSI", "--level", "easy", "-n", "1", "--answers", "code"]) == 0
    _, [box] = load_suite_boxes(tmp_path / "suites" / "PSI-easy-code-n1")
    assert box.info.interface["answers"] == "code"
    assert family_for_box(box.info).answers_as_code


def test_answers_on_another_family_is_a_one_line_usage_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--category", "ERI", "--level", "easy", "--answers", "code"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--answers applies to PSI boxes, not ERI" in err[0]


FREE_FALL = """import math


def blackbox(t):
    return {"object1": [0.0, round(50.0 - 0.5 * 9.81 * min(t, math.sqrt(100 / 9.81)) ** 2, 2)]}
"""


def test_design_llm_psi_box_is_one_object_in_the_plane_and_plays(tmp_path: Path) -> None:
    from evaluator.runner import evaluate_suite
    from evaluator.spec import TurnShot
    from generator.suite import LlmModels
    from providers.loopback import LoopbackServer, ScriptedReply
    from tests.generator.test_generate_llm import CODER, REFINER, verdict_reply

    designed = "A ball dropped from rest at 50 m on Earth (g = 9.81) stops on the ground."
    with LoopbackServer() as server:
        server.add(
            verdict_reply(),
            ScriptedReply(
                tool_calls=[{"name": "submit_design", "arguments": {"description": designed}}],
                match="Design a new hidden rule",
            ),
            ScriptedReply(text=f"```python\n{FREE_FALL}```", match="Write a Python black box"),
        )
        models = LlmModels(
            coder=CODER,
            refiner=REFINER,
            base_urls={"openai": server.openai_base_url, "anthropic": server.anthropic_base_url},
            design="llm",
        )
        out = tmp_path / "s"
        generate_suite(
            GenerateConfig(
                category="PSI", level="easy", n=1, seed=2, out=out, backend="llm", llm=models
            )
        )
        designer = next(r for r in server.requests if "Design a new hidden rule" in str(r.body))
        coder = next(r for r in server.requests if "Write a Python black box" in str(r.body))
    assert "1 object(s)" in str(designer.body)
    # The coder is told there is no numpy/scipy and how to integrate.
    assert "no numpy or scipy" in str(coder.body) and "RK4" in str(coder.body)
    _, [box] = load_suite_boxes(out)
    assert box.info.interface == {"objects": 1, "dims": 2, "answers": "values"}
    assert box.facts.rule_kind == "llm_designed" and box.code == FREE_FALL
    run = evaluate_suite(out, ["fixed", "random"], TurnShot(3, 1), "instant", 0, tmp_path / "r")
    assert run.failed == 0 and run.executed == 2


def test_play_a_code_box_with_a_typed_program(tmp_path: Path) -> None:
    out = tmp_path / "psi-code"
    generate_suite(
        GenerateConfig(category="PSI", level="easy", n=1, seed=9, out=out, answers="code")
    )
    _, [box] = load_suite_boxes(out)
    program = box.code.replace("def blackbox(", "def solution(").splitlines()
    lines = ["1.0", "2.0", *program, "END"]
    stdin = io.StringIO("".join(f"{line}\n" for line in lines))
    shown = io.StringIO()
    argv = ["2@1", "--suite", str(out), "--box", box.info.id, "--name", "p"]
    assert (
        play_main([*argv, "--out", str(tmp_path / "play")], io=PlayIO.from_streams(stdin, shown))
        == 0
    )
    traj = load_trajectory(tmp_path / "play" / "trajectories" / f"{box.info.id}__human-p__r0.json")
    assert traj.accuracy == 1.0 and traj.submissions is not None
    assert traj.submissions[0].source.strip() == "\n".join(program).strip()
    assert "Your program is right at 10 of 10 held-out input(s)." in shown.getvalue()
