"""oracle-gen for CRI: bare commands, both output modes, byte-identical suites per seed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from blackboxes.families import family_for_box
from blackboxes.store import load_suite_boxes
from generator import GenerateConfig, generate_suite
from generator.cli import main


def _tree(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def test_bare_cri_hard_command_writes_verified_boxes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ORACLE_BENCH_SUITES", str(tmp_path / "suites"))
    assert main(["--category", "CRI", "--level", "hard", "-n", "3"]) == 0
    suite, boxes = load_suite_boxes(tmp_path / "suites" / "CRI-hard-n3")
    assert suite.level == "hard" and len(boxes) == 3
    for box in boxes:
        assert box.info.interface["inputs"] == 10
        assert box.info.interface["mode"] == "outputs"
        family = family_for_box(box.info)
        assert "exactly 10 bits" in box.info.task_intro
        assert family.settings.width == box.info.interface["outputs"]
        # The public files never carry the rule.
        public = json.dumps(box.info.model_dump(mode="json"))
        assert box.facts.rule_kind not in public


def test_same_seed_gives_byte_identical_cri_suites(tmp_path: Path) -> None:
    for name in ("a", "b"):
        generate_suite(
            GenerateConfig(
                category="CRI", level="easy", n=3, seed=5, out=tmp_path / name, output_mode="gates"
            )
        )
    a, b = _tree(tmp_path / "a"), _tree(tmp_path / "b")
    assert a == b
    _, boxes = load_suite_boxes(tmp_path / "a")
    assert {box.info.interface["mode"] for box in boxes} == {"gates"}


def test_output_mode_is_refused_for_other_categories(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--category", "ERI", "--output-mode", "gates"]) == 2
    assert "--output-mode applies to CRI boxes" in capsys.readouterr().err
