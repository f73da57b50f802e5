"""oracle-gen for CII: bare commands, verified boxes, byte-identical suites per seed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from blackboxes.families import family_for_box
from blackboxes.families.cii import KINDS
from blackboxes.store import load_suite_boxes
from generator import GenerateConfig, generate_suite
from generator.cli import main


def _tree(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def test_bare_cii_easy_command_writes_verified_boxes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ORACLE_BENCH_SUITES", str(tmp_path / "suites"))
    assert main(["--category", "CII", "--level", "easy", "-n", "3"]) == 0
    suite, boxes = load_suite_boxes(tmp_path / "suites" / "CII-easy-n3")
    assert suite.level == "easy" and len(boxes) == 3
    for box in boxes:
        kind = KINDS[box.facts.rule_kind]
        family = family_for_box(box.info)
        assert family.inputs == kind.inputs and family.checkpoints == kind.checkpoints
        assert f"has {kind.checkpoints} checkpoints" in box.info.task_intro
        last = box.provenance.attempts[-1]
        assert box.provenance.accepted and last.checks["differential"] is True
        assert last.differential_inputs > 0 and last.differential_mismatches == 0
        # The public file names neither the kind nor its spec, and holds no code.
        public = json.dumps(box.info.model_dump(mode="json"))
        assert box.facts.rule_kind not in public and "def blackbox" not in public
        assert box.hidden.description[:60] not in public


def test_same_seed_gives_byte_identical_cii_suites(tmp_path: Path) -> None:
    for name in ("a", "b"):
        generate_suite(
            GenerateConfig(category="CII", level="hard", n=3, seed=5, out=tmp_path / name)
        )
    assert _tree(tmp_path / "a") == _tree(tmp_path / "b")


RUNNING_MAX = """def blackbox(a):
    m = a[0]
    for i in range(len(a)):
        if a[i] > m:
            m = a[i]
        checkpoint(1, i=i, m=m)
    checkpoint(2, m=m)
    checkpoint(3, n=len(a))
"""


def test_design_llm_cii_box_has_the_stated_interface_and_plays(tmp_path: Path) -> None:
    from evaluator.runner import evaluate_suite
    from evaluator.spec import TurnShot
    from generator.suite import LlmModels
    from providers.loopback import LoopbackServer, ScriptedReply
    from tests.generator.test_generate_llm import CODER, REFINER, verdict_reply

    designed = "Track the running maximum of a; checkpoint 1 per element, 2 and 3 at the end."
    with LoopbackServer() as server:
        server.add(
            verdict_reply(),
            ScriptedReply(
                tool_calls=[{"name": "submit_design", "arguments": {"description": designed}}],
                match="Design a new hidden rule",
            ),
            ScriptedReply(text=f"```python\n{RUNNING_MAX}```", match="Write a Python black box"),
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
                category="CII",
                level="easy",
                n=1,
                seed=2,
                out=out,
                backend="llm",
                llm=models,
            )
        )
        designer = next(r for r in server.requests if "Design a new hidden rule" in str(r.body))
        coder = next(r for r in server.requests if "Write a Python black box" in str(r.body))
    # The designer was told the interface the box is then served with.
    assert "blackbox(a)" in str(designer.body) and "3 checkpoints" in str(designer.body)
    assert "def blackbox(a):" in str(coder.body)
    _, [box] = load_suite_boxes(out)
    assert box.info.interface["checkpoints"] == 3
    assert box.facts.rule_kind == "llm_designed" and box.code == RUNNING_MAX
    run = evaluate_suite(out, ["fixed", "random"], TurnShot(3, 1), "instant", 0, tmp_path / "r")
    assert run.failed == 0 and run.executed == 2
