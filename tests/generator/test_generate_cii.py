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
        # The public files name neither the kind nor its parameters.
        public = json.dumps(box.info.model_dump(mode="json"))
        assert box.facts.rule_kind not in public
        assert all(str(v) not in public for v in box.hidden.params.values() if len(str(v)) > 3)


def test_same_seed_gives_byte_identical_cii_suites(tmp_path: Path) -> None:
    for name in ("a", "b"):
        generate_suite(
            GenerateConfig(category="CII", level="hard", n=3, seed=5, out=tmp_path / name)
        )
    assert _tree(tmp_path / "a") == _tree(tmp_path / "b")
