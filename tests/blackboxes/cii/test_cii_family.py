"""The CII family: registration, counts, protocol, parsing, held-out items, information."""

from __future__ import annotations

import math
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blackboxes.families import get_family
from blackboxes.families.cii import KINDS, LEVEL_KINDS, CodeIntentInference, analysis
from blackboxes.families.cii._domains import NUMBER, NUMBERS, WORD
from blackboxes.information import expected_information, realised_information
from generator.tester import check_candidate
from oracle_bench.errors import BoxOutputError, FamilyError, InvalidQueryError
from templates import render

CII = get_family("CII")

# (settings, behaviour classes on the probes) per kind: the classes are H.
COUNTS = {
    "bubble_sort": (176, 176),
    "insertion_sort": (176, 176),
    "euclid": (384, 384),
    "factorial": (192, 192),
    "fibonacci": (648, 642),
    "digits": (108, 96),
    "prefix_function": (48, 40),
    "most_frequent": (80, 80),
    "quicksort": (192, 144),
    "merge_sort": (80, 80),
    "heap_sort": (96, 96),
    "sieve": (128, 96),
    "manacher": (256, 68),
    "lis": (128, 120),
    "knapsack": (192, 192),
    "bignum": (72, 72),
}


def served(kind: str, seed: int = 0) -> tuple[CodeIntentInference, Any]:
    level = KINDS[kind].level
    rule = CII.sample_rule(random.Random(f"{kind}/{seed}"), level, kind)
    family = CII.for_rule(rule)
    assert isinstance(family, CodeIntentInference)
    return family, rule


def test_registered_with_eight_kinds_per_level() -> None:
    assert isinstance(CII, CodeIntentInference)
    for level in ("easy", "hard"):
        assert len(LEVEL_KINDS[level]) >= 8
        assert all(KINDS[k].level == level for k in LEVEL_KINDS[level])
    assert set(LEVEL_KINDS["easy"]).isdisjoint(LEVEL_KINDS["hard"])
    marked = ["marked_count", "marked_parity", "marked_runs", "marked_scan"]
    assert sorted([*COUNTS, *marked]) == sorted(KINDS)


@pytest.mark.parametrize("kind", sorted(COUNTS))
def test_hypothesis_space_counts(kind: str) -> None:
    a = analysis(kind)
    assert (a.settings, len(a.hypotheses)) == COUNTS[kind]
    space = CII.hypothesis_space(kind, KINDS[kind].level)
    assert space.exact and space.log2_h == pytest.approx(math.log2(COUNTS[kind][1]))
    assert space.t_info == 1
    # Boxes are drawn from the behaviour classes only, so a box is always one of H.
    rng = random.Random(kind)
    for _ in range(20):
        rule = CII.sample_rule(rng, KINDS[kind].level, kind)
        assert rule.params in a.hypotheses


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_rendered_box_passes_the_generators_tester_against_the_reference(kind: str) -> None:
    family, rule = served(kind)
    name, context = family.code_template(rule)
    report = check_candidate(
        render(name, **context), rule, family, random.Random(0), n_inputs=60, budget_s=None
    )
    assert report.checks["differential"] is True and report.mismatches == 0, report.errors
    assert all(report.checks.values()), report.checks


def test_queries_are_read_leniently_and_strictly() -> None:
    family = CII._served((("a", NUMBERS), ("b", NUMBER)), 3)
    want = {"inputs": {"a": [3, 1, 2], "b": 4}, "checkpoint": 2, "visit": 3}
    for text in (
        "a=[3,1,2]; b=4; checkpoint=2; visit=3",
        "a = [3, 1, 2], b: 4, (2, 3)",
        '{"inputs": {"a": [3, 1, 2], "b": 4}, "checkpoint": 2, "visit": 3}',
        '{"a": [3, 1, 2], "b": 4, "cp": 2, "iter": 3}',
        "`a=(3, 1, 2)\nb=4\nidx=2\niteration=3`",
    ):
        assert family.parse_query(text) == want, text
    assert family.parse_query("a=[5]; b=0; checkpoint=1")["visit"] == 1
    for text, why in (
        ("a=[3]; checkpoint=1", "missing input b"),
        ("a=[3]; b=41; checkpoint=1", "0..40"),
        ("a=[3]; b=True; checkpoint=1", "0..40"),
        ("a=[]; b=1; checkpoint=1", "1 to 8"),
        ("a=[3]; b=1; checkpoint=4", "1..3"),
        ("a=[3]; b=1; checkpoint=0", "1..3"),
        ("a=[3]; b=1; checkpoint=1; visit=1001", "1..1000"),
        ("a=[3]; b=1; checkpoint=1; visit=-1", "whole number"),
        ("a=[3]; b=1", "which checkpoint"),
        ("a=[3]; b=1; checkpoint=1; z=2", "unknown name"),
        ("a=[3]; a=[4]; b=1; checkpoint=1", "given twice"),
        ("a=__import__('os'); b=1; checkpoint=1", "cannot read"),
        ("a=[3]; b=1; checkpoint=1; variable=p", "unknown name"),
        ("a=" + "[" * 5000 + "]" * 5000 + "; b=1; checkpoint=1", "over 2000"),
        ("hello", "cannot read"),
    ):
        with pytest.raises(InvalidQueryError, match=why):
            family.parse_query(text)
    words = CII._served((("a", WORD),), 2)
    assert words.parse_query("a=abca; checkpoint=2")["inputs"] == {"a": "abca"}
    with pytest.raises(InvalidQueryError):
        words.parse_query("a=abd; checkpoint=1")


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(sorted(KINDS)), st.integers(0, 2**32))
def test_format_then_parse_is_the_identity(kind: str, seed: int) -> None:
    family, _ = served(kind)
    x = family.random_query(random.Random(seed))
    assert family.parse_query(family.format_query(x)) == x


def test_outputs_render_and_answers_normalise() -> None:
    family, _ = served("bubble_sort")
    assert family.render_output({"values": {"p": [1, 2], "q": 3}, "visits": 2}) == (
        "visit 2: p = [1, 2]; q = 3"
    )
    assert "only 4 time(s)" in family.render_output({"values": None, "visits": 4})
    assert family.render_output([1, 2]) == "[1, 2]"
    for expected, answer in (
        ([1, 2, 3], "[1,2, 3]"),
        ([1, 2, 3], "p = [1, 2, 3]"),
        ([1, 2, 3], "(1, 2, 3)"),
        (True, "True"),
        (True, "true"),
        ("abc", "'abc'"),
        ("abc", "abc"),
        (7, " 7 "),
        (7, "`7`"),
    ):
        assert family.check_answer(expected, answer), (expected, answer)
    for expected, answer in ((7, "8"), ([1, 2], "[2, 1]"), (True, "1"), ("7", "7"), (7, "")):
        assert not family.check_answer(expected, answer), (expected, answer)
    assert family.output_fits({"values": {"p": [1, [2]]}, "visits": 1})
    for bad in (
        {"values": {"p": 1.5}, "visits": 1},
        {"values": {"p": None}, "visits": 1},
        {"values": {"p": {"q": 1}}, "visits": 1},
        {"values": {}, "visits": -1},
        {"values": {}},
        [1],
    ):
        assert not family.output_fits(bad), bad


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_held_out_items_are_reached_new_and_ask_about_the_program(kind: str) -> None:
    family, rule = served(kind)
    rng = random.Random(1)
    asked = [family.random_query(rng) for _ in range(10)]
    items = family.held_out(random.Random(2), family.test_items, asked, rule)
    again = family.held_out(random.Random(2), family.test_items, asked, rule)
    assert items == again and len(items) == family.test_items
    queried = {str(x["inputs"]) for x in asked}
    for x, expected in items:
        assert str(x["inputs"]) not in queried
        assert 1 <= x["checkpoint"] <= family.checkpoints and x["visit"] >= 1
        seen = rule({k: v for k, v in x.items() if k != "variable"})
        assert seen["visits"] == x["visit"] and seen["values"][x["variable"]] == expected
        assert rule(x) == expected and expected is not None
        # Not an input the program left unchanged, when something else was recorded.
        others = [n for n in seen["values"] if x["inputs"].get(n) != seen["values"][n]]
        if others:
            assert x["variable"] in others
        assert family.check_answer(expected, family.render_output(expected))


def test_held_out_refuses_a_box_that_breaks_the_protocol() -> None:
    family, _ = served("bubble_sort")
    with pytest.raises(BoxOutputError):
        family.held_out(random.Random(0), 3, [], lambda x: "garbage")
    with pytest.raises(BoxOutputError):
        family.held_out(random.Random(0), 3, [], lambda x: {"values": None, "visits": 0})
    with pytest.raises(BoxOutputError):  # claims visits it then does not show
        family.held_out(random.Random(0), 3, [], lambda x: {"values": None, "visits": 5})
    for visits in (10**18, -1, True, 2.5):  # never a visit the sandbox is then asked for
        with pytest.raises(BoxOutputError):
            family.held_out(
                random.Random(0), 3, [], lambda x, n=visits: {"values": None, "visits": n}
            )


@pytest.mark.parametrize(
    "interface",
    [
        {},
        {"inputs": [], "checkpoints": 3},
        {"inputs": [{"name": "a", "type": "int", "lo": 0, "hi": 5}], "checkpoints": 0},
        {"inputs": [{"name": "a", "type": "int", "lo": 5, "hi": 0}], "checkpoints": 2},
        {"inputs": [{"name": "a", "type": "float", "lo": 0, "hi": 1}], "checkpoints": 2},
        {"inputs": [{"name": "visit", "type": "int", "lo": 0, "hi": 1}], "checkpoints": 2},
        {"inputs": [{"name": "a b", "type": "int", "lo": 0, "hi": 1}], "checkpoints": 2},
        {
            "inputs": [{"name": "a", "type": "text", "alphabet": "a1", "min_len": 1, "max_len": 2}],
            "checkpoints": 2,
        },
        {"inputs": [{"name": "a", "type": "int", "lo": 0, "hi": 1, "x": 1}], "checkpoints": 2},
        {"inputs": [{"name": "a", "type": "int", "lo": 0, "hi": 1}], "checkpoints": True},
        {"inputs": [{"name": "a", "type": "int", "lo": 0, "hi": 1}], "checkpoints": 2, "z": 1},
    ],
)
def test_malformed_interfaces_are_refused(interface: dict[str, Any]) -> None:
    with pytest.raises(FamilyError):
        CII.for_interface(interface)


def test_interface_round_trips_and_the_prior_mixes_kinds_with_one_signature() -> None:
    family, rule = served("bubble_sort")
    again = CII.for_interface(CII.interface_of(rule))
    assert again.inputs == family.inputs and again.checkpoints == family.checkpoints
    space = family.version_space("easy", None)
    names = {c.name for c in space._components}  # type: ignore[attr-defined]
    assert names == {"bubble_sort", "insertion_sort", "most_frequent"}


@pytest.mark.parametrize("seed", range(6))
def test_information_invariants_hold_on_random_histories(seed: int) -> None:
    rng = random.Random(seed)
    kind = rng.choice(sorted(KINDS))
    family, rule = served(kind, seed)
    level = KINDS[kind].level
    own = family.version_space(level, kind)
    mixture = family.version_space(level, None)
    log2_h = family.hypothesis_space(kind, level).log2_h
    log2_y = family.hypothesis_space(kind, level).log2_y
    cumulative = 0.0
    asked: list[Any] = []
    for turn in range(6):
        pool = family.query_pool(rng, level, 8, asked)
        x = pool[0] if turn % 2 else family.random_query(rng)
        y = rule(x)
        for space in (own, mixture):
            expected = expected_information(space, x)
            assert expected <= space.log2_count() + 1e-9
        assert expected_information(own, x) <= log2_y + 1e-9
        cumulative += realised_information(own, x, y)
        own, mixture = own.observe(x, y), mixture.observe(x, y)
        # The true box never empties its own kind's space.
        assert own.log2_count() > -math.inf and mixture.log2_count() > -math.inf
        assert cumulative <= log2_h + 1e-9
        asked.append(x)
    assert cumulative == pytest.approx(log2_h - own.log2_count())


def test_fixed_plan_and_pools_are_fixed_and_fresh() -> None:
    family, _ = served("euclid")
    plan = family.exploration_plan("easy", 12)
    assert plan == family.exploration_plan("easy", 12) and len(plan) == 12
    assert len({str(x) for x in plan}) == 12
    asked = plan[:3]
    pool = family.query_pool(random.Random(0), "easy", 32, asked)
    assert len(pool) == 32 and not {str(x) for x in pool} & {str(x) for x in asked}
    diff = family.differential_inputs(random.Random(0), 100)
    assert len(diff) == 100 and any(x["visit"] == 1000 for x in diff)
