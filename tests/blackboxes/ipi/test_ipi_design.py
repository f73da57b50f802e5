"""IPI designs: the designer's puzzle checked, measured from code and served exactly."""

from __future__ import annotations

import itertools
import math
import random
from typing import Any

import pytest

from blackboxes.families import get_family
from blackboxes.families.ipi import IpiFamily
from oracle_bench.errors import FamilyError
from sandbox import SandboxWorker, call_box

IPI = get_family("IPI")
ANSWERS = ["".join(p) for p in itertools.product("abc", repeat=3)]
RULES = "A word of three letters from a, b, c is hidden; the feedback counts letters in place."
DESIGN = {"title": "Three letters", "answers": ANSWERS}
CODE = """\
def blackbox(secret, probe, u):
    n = 0
    for i in range(3):
        if secret[i] == probe[i]:
            n = n + 1
    return str(n) + " in place"
"""


def _measure(rule: Any, code: str = CODE) -> list[Any]:
    served = IPI.for_rule(rule)
    with SandboxWorker(code) as worker:
        return [call_box(worker, served.box_call(x)).value for x in IPI.design_measurements(rule)]


@pytest.mark.parametrize("level", ["easy", "hard"])
def test_the_designer_is_asked_for_a_title_and_the_answers(level: str) -> None:
    schema = IPI.design_schema(level)  # type: ignore[arg-type]
    assert schema is not None and sorted(schema) == ["answers", "title"]
    assert schema["answers"]["maxItems"] == 256
    brief = IPI.design_brief(level)  # type: ignore[arg-type]
    assert "IS the rules the players read" in brief and f"Level {level}" in brief


@pytest.mark.parametrize(
    ("description", "design", "message"),
    [
        (RULES, {"title": "T"}, "exactly the fields title and answers"),
        (RULES, {"title": "T", "answers": ["a"]}, "2 to 256"),
        (RULES, {"title": "T", "answers": ["a", "a"]}, "listed twice"),
        ("   ", DESIGN, "the rules are text"),
    ],
)
def test_designs_are_refused_with_what_to_fix(
    description: str, design: dict[str, Any], message: str
) -> None:
    with pytest.raises(FamilyError, match=message):
        IPI.check_design("easy", description, design)


def test_a_designed_puzzle_is_measured_from_its_code_into_exact_public_records() -> None:
    rule = IPI.rule_from_design("easy", RULES, DESIGN, random.Random(0))
    assert rule.kind == "designed" and not rule.reference
    with pytest.raises(FamilyError, match="no reference"):
        rule(["abc", "abc", 0.0])
    # The coder's spec: the rules and the listed answers, no table.
    assert "Three letters" in rule.description and "feedback" not in rule.params
    # Inputs of the tester are (secret, probe, u) triples of listed answers.
    served = IPI.for_rule(rule)
    for secret, probe, u in served.differential_inputs(random.Random(1), 60):  # type: ignore[misc]
        assert secret in ANSWERS and probe in ANSWERS and 0 <= u < 1
    done = IPI.with_measurements(rule, _measure(rule))
    assert done.params["feedback"]["labels"] == [
        "3 in place",
        "2 in place",
        "1 in place",
        "0 in place",
    ]
    info, facts = IPI.box_records("IPI-easy-0000", done)
    assert info.interface == {"puzzle": "designed", "params": dict(done.params)}
    assert info.task_intro.startswith("You are solving an interactive puzzle: Three letters.")
    assert "each equally likely: aaa, aab," in info.task_intro
    assert facts.t_info == math.ceil(math.log2(27) / 2) and facts.log2_y == 2.0
    box = IPI.for_interface(info.interface)
    assert isinstance(box, IpiFamily) and box.puzzle.name == "designed"
    # Rebuilt from hidden.json's parameters.
    assert IPI.rule_from_params("designed", "easy", done.params).params == done.params


def test_code_that_uses_u_or_tells_nothing_fails_the_measurement() -> None:
    rule = IPI.rule_from_design("easy", RULES, DESIGN, random.Random(0))
    noisy = CODE.replace("return", "if u > 0.5:\n        n = 3 - n\n    return")
    with pytest.raises(FamilyError, match="ignores u"):
        IPI.with_measurements(rule, _measure(rule, noisy))
    silent = "def blackbox(secret, probe, u):\n    return 'ok'\n"
    with pytest.raises(FamilyError, match="nothing to learn"):
        IPI.with_measurements(rule, _measure(rule, silent))


def test_a_drawn_puzzle_needs_no_measurement() -> None:
    rule = IPI.sample_rule(random.Random(3), "easy")
    assert rule.reference and IPI.design_measurements(rule) == []
    assert IPI.with_measurements(rule, []) == rule
