"""oracle-gen for IPI: every puzzle kind of a level in one suite, each box verified in the
sandbox against the reference; public parameters, a hidden test seed; byte-identical
suites from the same seed."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from blackboxes.families import family_for_box, get_family
from blackboxes.families.ipi import IpiFamily
from blackboxes.puzzles import get_puzzle, puzzle_names
from blackboxes.store import Box, load_suite_boxes
from generator import GenerateConfig, generate_suite
from generator.cli import main
from oracle_bench.rng import rng_for
from templates import render


def _tree(root: Path) -> dict[str, bytes]:
    # .generator/ is the run's working state (its lock names the process), not the suite.
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".generator" not in p.parts
    }


@pytest.fixture(scope="module")
def easy_suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One box per easy puzzle kind, made with the generator's functions."""
    out = tmp_path_factory.mktemp("ipi") / "easy"
    n = len(puzzle_names("easy"))
    generate_suite(GenerateConfig(category="IPI", level="easy", n=n, seed=4, out=out))
    return out


@pytest.fixture(scope="module")
def hard_suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One box per hard puzzle kind, made with the command line."""
    out = tmp_path_factory.mktemp("ipi") / "hard"
    n = len(puzzle_names("hard"))
    argv = ["--category", "IPI", "--level", "hard", "-n", str(n), "--seed", "4"]
    assert main([*argv, "--out", str(out)]) == 0
    return out


def _check_box(box: Box) -> None:
    family = get_family("IPI")
    kind = box.hidden.rule_kind
    puzzle = get_puzzle(kind)
    assert box.facts.rule_kind == kind and box.info.family == "IPI"
    assert box.provenance.accepted
    last = box.provenance.attempts[-1]
    assert last.verdict == "correct" and all(last.checks.values())
    assert last.checks["differential"] is True and last.differential_mismatches == 0
    assert last.differential_inputs >= 200 and last.template == f"code/ipi/{kind}.py.j2"
    # The trusted rule rebuilds from hidden.json and renders the very same code and records.
    rule = family.rule_from_params(kind, box.info.level, box.hidden.params)
    template, context = family.code_template(rule)
    assert box.code == render(template, **context)
    assert (box.info, box.facts) == family.box_records(box.info.id, rule)
    # Public: the puzzle, its parameters and its full rules; hidden: the test seed.
    assert box.info.interface == {"puzzle": kind, "params": box.hidden.params}
    assert puzzle.rules_text(box.hidden.params) in box.info.task_intro
    public = json.dumps(box.info.model_dump(mode="json"))
    assert str(box.hidden.test_seed) not in public and "def blackbox" not in public
    assert "blackbox(secret, probe, u)" not in public  # the coder's spec stays hidden
    assert set(box.hidden.model_dump()) == {
        "schema_version",
        "rule_kind",
        "params",
        "description",
        "test_seed",
    }
    # Exact counts, the ones the puzzle episode reports.
    params = box.hidden.params
    assert box.facts.log2_h == puzzle.log2_h(params) and box.facts.log2_h_exact
    assert box.facts.log2_y == math.log2(puzzle.feedback_size(params))
    assert box.facts.t_info == puzzle.t_info(params)
    # The episode's family is the box's puzzle, and the secrets it draws are real ones.
    served = family_for_box(box.info)
    assert isinstance(served, IpiFamily)
    assert served.puzzle is puzzle and served.params == params
    secret = puzzle.sample_answer(params, rng_for(box.hidden.test_seed, "instance", 0))
    probe = secret if puzzle.shares_format else puzzle.fixed_plan(params, 1)[0]
    assert served.parse_query(json.dumps([secret, probe, 0.5])) == [secret, probe, 0.5]


def test_an_easy_suite_has_every_easy_puzzle_verified(easy_suite: Path) -> None:
    suite, boxes = load_suite_boxes(easy_suite)
    assert suite.family == "IPI" and suite.level == "easy"
    assert sorted(b.hidden.rule_kind for b in boxes) == puzzle_names("easy")
    # Balanced kinds in a seeded order: the index does not tell the puzzle.
    assert [b.hidden.rule_kind for b in boxes] != puzzle_names("easy")
    for box in boxes:
        assert box.info.level == "easy"
        _check_box(box)


def test_a_hard_suite_from_the_command_line(hard_suite: Path) -> None:
    suite, boxes = load_suite_boxes(hard_suite)
    assert suite.level == "hard" and suite.name == "IPI-hard-seed4-n11"
    assert sorted(b.hidden.rule_kind for b in boxes) == puzzle_names("hard")
    for box in boxes:
        _check_box(box)


@pytest.mark.parametrize("level", ["easy", "hard"])
def test_same_seed_gives_byte_identical_ipi_suites(level: str, tmp_path: Path) -> None:
    for name in ("a", "b"):
        out = tmp_path / name
        generate_suite(GenerateConfig(category="IPI", level=level, n=3, seed=8, out=out))  # type: ignore[arg-type]
    first, second = _tree(tmp_path / "a"), _tree(tmp_path / "b")
    assert first == second and len([p for p in first if p.endswith("blackbox.py")]) == 3


def test_ipi_takes_no_family_options(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--category", "IPI", "--level", "easy", "--states", "2-3"]) == 2
    assert "DFA" in capsys.readouterr().err
