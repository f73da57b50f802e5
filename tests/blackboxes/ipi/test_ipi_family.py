"""The IPI family: rules, the served box's puzzle, hostile interfaces, exact records,
queries (secret, probe, u) and the inputs drawn over them."""

from __future__ import annotations

import ast
import json
import math
import random
from pathlib import Path
from typing import Any

import pytest

import blackboxes.families.ipi as ipi_package
from blackboxes.families import family_for_box, get_family
from blackboxes.families.ipi import IpiFamily
from blackboxes.families.ipi._queries import U_TOP
from blackboxes.puzzles import get_puzzle, puzzle_names
from oracle_bench.errors import FamilyError, InvalidQueryError, UnknownNameError
from tests.blackboxes.puzzles._cases import SMALL

IPI = get_family("IPI")


def _served(kind: str, params: dict[str, Any]) -> IpiFamily:
    served = IPI.for_interface({"puzzle": kind, "params": params})
    assert isinstance(served, IpiFamily)
    return served


def test_the_family_is_registered_with_its_puzzles() -> None:
    assert isinstance(IPI, IpiFamily) and IPI.name == "IPI"
    assert (IPI.episode, IPI.test_items, IPI.hidden_rule, IPI.balanced_kinds) == (
        "puzzle",
        6,
        False,
        True,
    )
    for level in ("easy", "hard"):
        assert list(IPI.kinds(level)) == puzzle_names(level)
    assert len(set(IPI.kinds("easy")) | set(IPI.kinds("hard"))) == 13
    with pytest.raises(UnknownNameError):
        IPI.kinds("medium")  # type: ignore[arg-type]


def test_the_family_modules_never_name_a_puzzle_kind() -> None:
    # Each kind's part (formats, noise, template context, edge probes) lives on the kind,
    # so that adding a kind adds its module and touches no module of the family.
    names = set(puzzle_names())
    for path in sorted(Path(ipi_package.__file__).parent.glob("*.py")):
        literals = {
            node.value
            for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
        }
        prefixes = {s for s in literals if s.endswith("_") and any(n.startswith(s) for n in names)}
        assert not literals & names and not prefixes, path.name


@pytest.mark.parametrize("level", ["easy", "hard"])
def test_rules_round_trip_through_their_params(level: str) -> None:
    for kind in IPI.kinds(level):  # type: ignore[arg-type]
        rule = IPI.sample_rule(random.Random(4), level, kind)  # type: ignore[arg-type]
        again = IPI.sample_rule(random.Random(4), level, kind)  # type: ignore[arg-type]
        assert rule == again and rule.kind == kind and rule.family == "IPI"
        assert IPI.rule_from_params(kind, level, rule.params) == rule  # type: ignore[arg-type]
        get_puzzle(kind).check_params(rule.params)
        assert IPI.interface_of(rule) == {"puzzle": kind, "params": dict(rule.params)}
        assert "blackbox(secret, probe, u)" in rule.description
        assert get_puzzle(kind).rules_text(rule.params) in rule.description


def test_a_rule_of_another_level_or_with_bad_params_is_refused() -> None:
    with pytest.raises(FamilyError, match="no easy puzzle 'battleship_fleet'"):
        IPI.rule_from_params("battleship_fleet", "easy", {})
    with pytest.raises(FamilyError, match="bulls_and_cows"):
        IPI.rule_from_params("bulls_and_cows", "easy", {"length": 4, "digits": 3})
    with pytest.raises(UnknownNameError):
        IPI.sample_rule(random.Random(1), "easy", "battleship_fleet")


def test_the_served_family_is_the_one_the_puzzle_protocol_reads() -> None:
    rule = IPI.sample_rule(random.Random(2), "easy", "coin_lying")
    info, _ = IPI.box_records("IPI-easy-0000", rule)
    served = family_for_box(info)
    assert isinstance(served, IpiFamily) and served.configured
    assert served.puzzle is get_puzzle("coin_lying")
    assert served.params == dict(rule.params) and served.test_items == 6
    # A copy each time: a caller cannot move the box's parameters.
    served.params["coins"] = 3
    assert served.params == dict(rule.params)
    bare = get_family("IPI")
    assert isinstance(bare, IpiFamily)
    assert not bare.configured
    with pytest.raises(FamilyError, match="for_interface"):
        _ = bare.puzzle
    with pytest.raises(FamilyError, match="for_interface"):
        _ = bare.params
    empty = IPI.for_interface({})
    assert isinstance(empty, IpiFamily)
    assert not empty.configured


@pytest.mark.parametrize(
    ("interface", "needle"),
    [
        ({"puzzle": "wordle"}, "exactly the keys"),
        ({"puzzle": "wordle", "params": {}, "secret": "abbey"}, "exactly the keys"),
        ({"puzzle": "Wordle", "params": {"length": 5, "words": 40}}, "unknown IPI puzzle"),
        ({"puzzle": "chess", "params": {}}, "unknown IPI puzzle"),
        ({"puzzle": ["wordle"], "params": {}}, "unknown IPI puzzle"),
        ({"puzzle": "wordle", "params": [5, 40]}, "must be an object"),
        ({"puzzle": "wordle", "params": {"length": 5}}, "exactly the keys"),
        ({"puzzle": "wordle", "params": {"length": 50, "words": 40}}, "length"),
        ({"puzzle": "mastermind", "params": {"pegs": 8, "colours": 10}}, "exceed"),
        ({"puzzle": "mastermind", "params": {"pegs": True, "colours": 6}}, "pegs"),
        ({"puzzle": "bandit", "params": {"percents": [50, 50]}}, "one best arm"),
        ({"puzzle": "coin_lying", "params": {"coins": 10, "lie_percent": 1e9}}, "lie_percent"),
        ({"puzzle": "coin_heavy", "params": {"coins": float("nan")}}, "not plain JSON|coins"),
        (
            {
                "puzzle": "battleship_fleet",
                "params": {"rows": 8, "cols": 8, "ships": [2], "bombs": 4},
            },
            "secrets",
        ),
    ],
)
def test_hostile_interfaces_are_refused(interface: dict[str, Any], needle: str) -> None:
    with pytest.raises(FamilyError, match=needle):
        IPI.for_interface(interface)


def test_deeply_nested_params_are_refused_not_crashed() -> None:
    deep: Any = 0
    for _ in range(100_000):
        deep = [deep]
    with pytest.raises(FamilyError):
        IPI.for_interface({"puzzle": "bandit", "params": {"percents": deep}})


def _distinct_answers(kind: str, params: dict[str, Any]) -> int:
    puzzle = get_puzzle(kind)
    return len({puzzle.solution(params, s) for s in puzzle.answers(params)})


@pytest.mark.parametrize("kind", sorted(SMALL))
def test_box_records_hold_the_exact_counts(kind: str) -> None:
    params = SMALL[kind]
    puzzle = get_puzzle(kind)
    level = puzzle.levels[0]
    rule = IPI.rule_from_params(kind, level, params)
    info, facts = IPI.box_records("IPI-x-0000", rule)
    h = _distinct_answers(kind, params)
    assert facts.log2_h == pytest.approx(math.log2(h)) and facts.log2_h_exact
    assert facts.log2_y == math.log2(puzzle.feedback_size(params))
    assert facts.t_info == math.ceil(round(math.log2(h) / facts.log2_y, 9)) == puzzle.t_info(params)
    assert facts.rule_kind == kind
    served = family_for_box(info)
    space = served.hypothesis_space(kind, level)
    assert (space.log2_h, space.log2_y, space.t_info) == (facts.log2_h, facts.log2_y, facts.t_info)
    assert puzzle.rules_text(params) in info.task_intro
    assert info.interface == {"puzzle": kind, "params": params}


@pytest.mark.parametrize(
    ("kind", "params", "answers", "feedback", "t_info"),
    [
        ("number_far_close", {"n": 100, "close": 15}, 101, 3, 5),
        ("number_higher_lower", {"n": 1000}, 1001, 3, 7),
        ("coin_heavy_light", {"coins": 152}, 304, 3, 6),
        ("nuts_and_bolts", {"size": 8, "pairs": 3}, 40320, 27, 4),
        ("mastermind", {"pegs": 4, "colours": 6}, 1296, 14, 3),
        ("bulls_and_cows", {"length": 4, "digits": 10}, 5040, 14, 4),
        ("bandit", {"percents": [70, 20, 10]}, 3, 2, 2),  # the answer is the best arm
        ("battleship_one", {"rows": 9, "cols": 9, "ship": 5}, 90, 2, 7),
    ],
)
def test_known_counts(
    kind: str, params: dict[str, Any], answers: int, feedback: int, t_info: int
) -> None:
    level = "hard" if kind == "battleship_fleet" else "easy"
    _, facts = IPI.box_records("IPI-x-0000", IPI.rule_from_params(kind, level, params))  # type: ignore[arg-type]
    assert facts.log2_h == pytest.approx(math.log2(answers))
    assert facts.log2_y == pytest.approx(math.log2(feedback))
    assert facts.t_info == t_info


def test_the_bare_family_has_a_sentinel_space_and_generic_intro() -> None:
    space = IPI.hypothesis_space("wordle", "easy")
    assert (space.log2_h, space.log2_y, space.exact, space.t_info) == (None, 0.0, False, None)
    # A box's family knows its own kind only.
    other = _served("wordle", {"length": 5, "words": 40}).hypothesis_space("mastermind", "easy")
    assert other.log2_h is None
    assert "rules" in IPI.task_intro("easy")
    with pytest.raises(FamilyError, match="PuzzleSpace"):
        IPI.version_space("easy")


# -- queries -----------------------------------------------------------------------


def test_queries_round_trip_and_are_lenient_about_form() -> None:
    served = _served("coin_heavy", {"coins": 12})
    x = ["coin 3", "1-3 vs 4-6", 0.25]
    assert served.format_query(x) == '["coin 3", "1-3 vs 4-6", 0.25]'
    assert served.parse_query(served.format_query(x)) == x
    # The probe is parsed as an agent's would be; an int u is a float.
    assert served.parse_query('["coin 3", "[1,2,3] [4,5,6]", 0]') == ["coin 3", "1-3 vs 4-6", 0.0]
    assert served.parse_query('{"u": 0.5, "probe": "1 v 2", "secret": "coin 3"}') == [
        "coin 3",
        "1 vs 2",
        0.5,
    ]
    rng = random.Random(3)
    for _ in range(50):
        q = served.random_query(rng)
        assert served.parse_query(served.format_query(q)) == q


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("coin 3", "JSON"),
        ('["coin 3", "1 vs 2"]', r"\[secret, probe, u\]"),
        ('["coin 13", "1 vs 2", 0.5]', "no secret"),
        ('["Coin 3", "1 vs 2", 0.5]', "no secret"),
        ('["coin 3", "1 vs 1", 0.5]', "invalid probe"),
        ('["coin 3", "1,2 vs 3", 0.5]', "invalid probe"),
        ('["coin 3", "1 vs 2", 1.0]', "u is a number"),
        ('["coin 3", "1 vs 2", -0.1]', "u is a number"),
        ('["coin 3", "1 vs 2", true]', "u is a number"),
        ('["coin 3", "1 vs 2", "0.5"]', "u is a number"),
        ('["coin 3", 7, 0.5]', "strings"),
        ('{"secret": "coin 3", "probe": "1 vs 2"}', "exactly the keys"),
        ("[" * 5000, "at most"),
        ("[" * 3000, "JSON"),
    ],
)
def test_invalid_queries_are_refused(text: str, needle: str) -> None:
    served = _served("coin_heavy", {"coins": 12})
    with pytest.raises(InvalidQueryError, match=needle):
        served.parse_query(text)


def test_the_reference_refuses_what_the_box_would() -> None:
    rule = IPI.rule_from_params("wordle", "easy", {"length": 5, "words": 40})
    secret = get_puzzle("wordle").answers(rule.params)[0]
    assert rule([secret, "qqqqq", 0.0]) == "-----"  # any five letters probe
    with pytest.raises(InvalidQueryError, match="no secret"):
        rule(["qqqqq", secret, 0.0])  # the secret is always a listed word
    with pytest.raises(InvalidQueryError):
        rule("abbey")


def test_outputs_render_as_the_feedback_string() -> None:
    served = _served("mastermind", {"pegs": 4, "colours": 6})
    assert served.render_output("B1 W2") == "B1 W2" and served.output_fits("B1 W2")
    assert not served.output_fits(" B1  W2") and not served.output_fits(3)
    assert served.normalise_answer("  1A small,\n 3C  fit ") == "1A small, 3C fit"
    with pytest.raises(FamilyError):
        served.render_output(["B1 W2"])
    call = served.box_call(["ABCD", "ABCE", 0.5])
    assert call.args == ("ABCD", "ABCE", 0.5) and call.checkpoint is None
    with pytest.raises(InvalidQueryError):
        served.box_call("ABCD")


# -- inputs ------------------------------------------------------------------------


@pytest.mark.parametrize("level", ["easy", "hard"])
def test_differential_inputs_start_with_the_edge_cases(level: str) -> None:
    for kind in IPI.kinds(level):  # type: ignore[arg-type]
        rule = IPI.sample_rule(random.Random(6), level, kind)  # type: ignore[arg-type]
        served = _served(kind, dict(rule.params))
        puzzle, params = served.puzzle, served.params
        inputs = served.differential_inputs(random.Random(1), 256)
        assert inputs == served.differential_inputs(random.Random(1), 256)
        assert len(inputs) == 256
        keys = [json.dumps(x) for x in inputs[:128]]
        assert len(set(keys)) == len(keys)  # the edge cases are distinct
        for x in inputs:
            assert served.parse_query(served.format_query(x)) == x
        edges = inputs[:128]
        assert {x[2] for x in edges} >= {0.0, U_TOP}
        secrets = {x[0] for x in inputs}
        assert len(secrets) >= min(puzzle.answer_count(params), 20)
        if puzzle.shares_format:
            assert any(x[0] == x[1] for x in edges)
        if kind == "coin_lying":
            lie = params["lie_percent"] / 100
            assert {lie / 2, lie, math.nextafter(lie, 0.0)} <= {x[2] for x in edges}
        if kind == "bandit":
            assert {p / 100 for p in params["percents"]} <= {x[2] for x in edges}
        if kind == "wordle":
            listed = set(puzzle.answers(params))
            assert any(x[1] not in listed for x in inputs)


def test_test_inputs_exclude_what_was_asked() -> None:
    served = _served("number_higher_lower", {"n": 100})
    asked = served.test_inputs(random.Random(1), 30, [])
    again = served.test_inputs(random.Random(1), 30, asked)
    assert len(again) == 30 and not {json.dumps(x) for x in again} & {json.dumps(x) for x in asked}


def test_the_exploration_plan_is_the_puzzle_plan_and_feedback_free() -> None:
    served = _served("mastermind", {"pegs": 4, "colours": 6})
    plan = served.exploration_plan("easy", 8)
    assert [x[1] for x in plan] == served.puzzle.fixed_plan(served.params, 8)
    assert plan == served.exploration_plan("easy", 8)
    assert all(0.0 <= x[2] < 1.0 for x in plan)
    assert len(served.query_pool(random.Random(1), "easy", 7)) == 7
    with pytest.raises(FamilyError):
        IPI.exploration_plan("easy", 3)
