"""IPI box code: every puzzle kind's template, rendered at both levels, run in the real
sandbox on the differential triples, agrees with the trusted reference feedback."""

from __future__ import annotations

import random

import pytest

from blackboxes.families import Rule, get_family
from blackboxes.families.ipi import IpiFamily
from blackboxes.puzzles import get_puzzle
from oracle_bench.rng import rng_for
from sandbox import SandboxWorker, call_box
from templates import render
from tests.blackboxes.restricted import restricted_blackbox

IPI = get_family("IPI")
CASES = [(level, kind) for level in ("easy", "hard") for kind in IPI.kinds(level)]


def _rule(level: str, kind: str, seed: int) -> Rule:
    return IPI.sample_rule(rng_for(seed, "ipi-code", level, kind), level, kind)  # type: ignore[arg-type]


def _code(rule: Rule) -> str:
    template, context = IPI.code_template(rule)
    assert template == f"code/ipi/{rule.kind}.py.j2"
    return render(template, **context)


@pytest.mark.parametrize(("level", "kind"), CASES)
def test_the_box_agrees_with_the_reference_in_the_sandbox(level: str, kind: str) -> None:
    rule = _rule(level, kind, 1)
    served = IPI.for_rule(rule)
    assert isinstance(served, IpiFamily)
    puzzle, params = served.puzzle, served.params
    inputs = served.differential_inputs(random.Random(2), 300)
    with SandboxWorker(_code(rule)) as worker:
        for x in inputs:
            result = call_box(worker, served.box_call(x))
            assert result.ok, (x, result.error)
            assert result.value == rule(x), x
            assert result.value in puzzle.feedback_values(params, str(x[1]))
    # Not degenerate: the inputs reach more than one feedback value.
    assert len({str(rule(x)) for x in inputs}) > 1


@pytest.mark.parametrize(("level", "kind"), CASES)
def test_more_parameters_agree_in_process(level: str, kind: str) -> None:
    """Other sampled parameters of each kind, under the sandbox's policy layer in process
    (the isolation is the same for every box and tested above)."""
    for seed in (2, 3):
        rule = _rule(level, kind, seed)
        served = IPI.for_rule(rule)
        box = restricted_blackbox(_code(rule))
        for x in served.differential_inputs(random.Random(seed), 120):
            assert box(*x) == rule(x), x


@pytest.mark.parametrize(
    ("kind", "params", "secret", "probe", "u", "feedback"),
    [
        ("wordle", {"length": 5, "words": 2000}, "abbey", "babes", 0.0, "YYGG-"),
        ("wordle", {"length": 5, "words": 2000}, "speed", "eerie", 0.0, "YY---"),
        ("wordle", {"length": 5, "words": 2000}, "those", "eeeee", 0.5, "----G"),
        ("coin_lying", {"coins": 10, "lie_percent": 10}, "coin 3", "3 vs 4", 0.1, "left"),
        ("coin_lying", {"coins": 10, "lie_percent": 10}, "coin 3", "3 vs 4", 0.05, "balanced"),
        ("coin_lying", {"coins": 10, "lie_percent": 10}, "coin 3", "3 vs 4", 0.0, "right"),
        ("bandit", {"percents": [70, 20, 10]}, "20,70,10", "arm 2", 0.69, "1"),
        ("bandit", {"percents": [70, 20, 10]}, "20,70,10", "arm 2", 0.7, "0"),
        (
            "nuts_and_bolts",
            {"size": 5, "pairs": 2},
            "1C 2A 3B 4E 5D",
            "1A 3B",
            0.0,
            "1A small, 3B fit",
        ),
        ("battleship_one", {"rows": 6, "cols": 6, "ship": 3}, "B2-D2", "E2", 0.0, "miss"),
        ("coin_heavy_light", {"coins": 12}, "coin 4 light", "1-4 vs 5-8", 0.0, "right"),
    ],
)
def test_known_feedback(
    kind: str, params: dict[str, object], secret: str, probe: str, u: float, feedback: str
) -> None:
    level = "hard" if kind == "battleship_fleet" else "easy"
    rule = IPI.rule_from_params(kind, level, params)  # type: ignore[arg-type]
    assert rule([secret, probe, u]) == feedback
    assert get_puzzle(kind).feedback(params, secret, probe, u) == feedback
    assert restricted_blackbox(_code(rule))(secret, probe, u) == feedback


def test_wordle_code_holds_no_word_list() -> None:
    rule = IPI.rule_from_params("wordle", "hard", {"length": 8, "words": 4000})
    code = _code(rule)
    assert len(code) < 3000 and "business" not in code and "children" not in code


def test_the_box_refuses_malformed_calls() -> None:
    rule = IPI.rule_from_params("mastermind", "easy", {"pegs": 4, "colours": 6})
    box = restricted_blackbox(_code(rule))
    assert box("ABCD", "ABCE", 0.3) == "B3 W0"
    for args in [("ABCD", "ABCG", 0.3), ("ABCD", "ABC", 0.3), ("ABCD", "ABCE", 1.0)]:
        with pytest.raises(ValueError, match="expected"):
            box(*args)
    with pytest.raises(ValueError, match="expected u"):
        box("ABCD", "ABCE", True)
