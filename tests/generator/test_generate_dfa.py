"""Generating DFA suites: verified boxes, balanced state counts, budgets, the CLI."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from blackboxes.automata.dfa import DFA
from blackboxes.families import get_family
from blackboxes.store import load_suite_boxes
from generator import GenerateConfig, SuiteExistsError, generate_suite
from generator.cli import main
from templates import render


def test_dfa_suite_cycles_state_counts_and_verifies_every_box(dfa_suite: Path) -> None:
    suite, boxes = load_suite_boxes(dfa_suite)
    assert suite.family == "DFA" and suite.options == {"states": [2, 9]}
    assert suite.name == "DFA-states2-9-seed3-n8"
    states = [b.facts.dfa.states for b in boxes if b.facts.dfa]
    # One box per state count, in a seeded order (the index does not tell the size).
    assert sorted(states) == list(range(2, 10)) and states != sorted(states)
    assert [b.info.id for b in boxes][:2] == ["DFA-states2-9-0000", "DFA-states2-9-0001"]
    # A box's level follows its own size: 2-5 states easy, 6-9 hard.
    assert [b.info.level for b in boxes] == ["easy" if n <= 5 else "hard" for n in states]
    family = get_family("DFA")
    for box in boxes:
        assert box.provenance.accepted
        attempt = box.provenance.attempts[0]
        assert attempt.verdict == "correct" and attempt.differential_mismatches == 0
        assert attempt.differential_inputs >= 200 and all(attempt.checks.values())
        rule = family.rule_from_params(box.hidden.rule_kind, box.info.level, box.hidden.params)
        template, ctx = family.code_template(rule)
        assert box.code == render(template, **ctx)
        assert (box.info, box.facts) == family.box_records(box.info.id, rule)
        target = DFA.from_table(box.hidden.params)
        assert box.facts.dfa is not None and target.n == box.facts.dfa.states
        assert box.info.dfa is not None
        assert box.info.dfa.reference_cost > 0


def test_same_seed_same_dfa_suite(tmp_path: Path) -> None:
    trees = []
    for name in ("a", "b"):
        out = tmp_path / name
        generate_suite(
            GenerateConfig(category="DFA", level="easy", n=2, seed=9, out=out, states=(3, 4))
        )
        trees.append({p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()})
    assert trees[0] == trees[1]


def test_other_options_are_refused_unless_overwrite(tmp_path: Path) -> None:
    out = tmp_path / "s"
    first = GenerateConfig(category="DFA", level="easy", n=1, seed=1, out=out, states=(3, 3))
    generate_suite(first)
    other = replace(first, states=(4, 4))
    with pytest.raises(
        SuiteExistsError,
        match="holds a DFA states3 suite made with --states 3-3, not --states 4-4: use --overwrite",
    ):
        generate_suite(other)
    result = generate_suite(replace(other, overwrite=True))
    assert result.skipped == []
    _, boxes = load_suite_boxes(out)
    assert boxes[0].facts.dfa is not None and boxes[0].facts.dfa.states == 4
    assert sorted(p.name for p in (out / "boxes").iterdir()) == ["DFA-states4-0000"]


def test_cli_generates_a_state_range(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "cli"
    code = main(
        [
            "--category",
            "DFA",
            "--states",
            "4-5",
            "-n",
            "2",
            "--counterexamples",
            "minimal",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    suite, boxes = load_suite_boxes(out)
    assert suite.level == "easy"
    # Options that change the boxes are in the default name, so suites never collide.
    assert suite.name == "DFA-states4-5-mincex-n2"
    assert boxes[0].info.id == "DFA-states4-5-mincex-0000"
    assert [b.facts.dfa.counterexamples for b in boxes if b.facts.dfa] == ["minimal", "minimal"]


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["--category", "DFA", "--states", "1-3"], "--states"),
        (["--category", "DFA", "--states", "x"], "--states"),
        (["--category", "ERI", "--states", "2-3", "--level", "easy"], "DFA"),
        (["--category", "DFA"], "--level"),
        (["--category", "DFA", "--level", "easy", "--alphabet-size", "1"], "alphabet"),
    ],
)
def test_cli_bad_dfa_arguments_exit_2(
    argv: list[str], needle: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert needle in err and len(err.splitlines()) == 1
