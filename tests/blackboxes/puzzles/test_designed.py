"""The designed puzzle: parameters refused with what to fix, the measured feedback table,
and a version space exactly as consistent as the feedback function it tabulates."""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blackboxes.puzzles import PuzzleError, PuzzleSpace, get_puzzle, puzzle_names
from blackboxes.puzzles.designed import (
    CODE_CHARS,
    MAX_DESIGNED_ANSWERS,
    U_CHECKS,
    U_TOP,
    feedback_table,
)

KIND = get_puzzle("designed")
ANSWERS = ["".join(p) for p in itertools.product("abc", repeat=3)]
BASE = {"title": "Three letters", "rules": "Guess the word.", "answers": ANSWERS}


def in_place(secret: str, probe: str) -> str:
    return f"{sum(a == b for a, b in zip(secret, probe, strict=True))} in place"


def measured(fn: Callable[[str, str], str], params: dict[str, Any] | None = None) -> dict[str, Any]:
    """The parameters as the generator completes them, ``fn`` playing the box's code."""
    params = params or BASE
    triples = KIND.measurement_triples(params)
    return KIND.with_measurements(params, [fn(s, p) for s, p, _ in triples])


def test_a_designed_puzzle_is_never_drawn_but_is_served() -> None:
    assert "designed" not in puzzle_names() and "designed" not in puzzle_names("easy")
    assert "designed" in puzzle_names(designed=True) and not KIND.drawn
    with pytest.raises(PuzzleError, match="never a draw"):
        KIND.sample_params(random.Random(0), "easy")


def test_the_measurement_covers_every_pair_then_a_sample_near_u_1() -> None:
    triples = KIND.measurement_triples(BASE)
    n = len(ANSWERS)
    assert triples[: n * n] == [(s, p, 0.0) for p in ANSWERS for s in ANSWERS]
    again = triples[n * n :]
    assert len(again) == len(range(0, n * n, max(1, n * n // U_CHECKS)))
    assert all(u == U_TOP for _, _, u in again)


def test_the_table_is_the_feedback_function() -> None:
    params = measured(in_place)
    assert params["feedback"]["labels"] == ["3 in place", "2 in place", "1 in place", "0 in place"]
    for secret in ANSWERS[::5]:
        for probe in ANSWERS[::4]:
            assert KIND.feedback(params, secret, probe, 0.7) == in_place(secret, probe)
    assert KIND.feedback_size(params) == 4
    assert KIND.t_info(params) == math.ceil(math.log2(27) / 2)
    assert KIND.solved_feedback(params) == "3 in place"
    assert KIND.feedback_values(params, "abc") == [
        "3 in place",
        "2 in place",
        "1 in place",
        "0 in place",
    ]
    # The coder's spec leaves the measured table out; the box's intro names the puzzle.
    assert "feedback" not in KIND.spec_params(params)
    assert KIND.display_title(params) == "Three letters"


@settings(max_examples=40, deadline=None)
@given(
    table=st.lists(st.integers(0, 3), min_size=64, max_size=64),
    probes=st.lists(st.integers(0, 7), min_size=1, max_size=5),
    secret=st.integers(0, 7),
)
def test_the_version_space_is_exactly_the_consistent_answers(
    table: list[int], probes: list[int], secret: int
) -> None:
    answers = [f"w{i}" for i in range(8)]

    def fn(s: str, p: str) -> str:
        return f"f{table[8 * answers.index(p) + answers.index(s)]}"

    if all(len({fn(s, p) for s in answers}) == 1 for p in answers):
        return  # refused as uninformative (tested below)
    params = measured(fn, {**BASE, "answers": answers})
    space = PuzzleSpace(KIND, params)
    truth = answers[secret]
    for p in probes:
        probe = answers[p]
        space = space.observe(probe, fn(truth, probe))
    brute = [s for s in answers if all(fn(s, answers[p]) == fn(truth, answers[p]) for p in probes)]
    assert space.consistent() == brute and truth in brute


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"answers": ["only"]}, "a list of 2 to 256"),
        ({"answers": ["a", "A"]}, "listed twice"),
        ({"answers": ["a", " b"]}, "not one line of printable text"),
        ({"answers": ["a", "b."]}, "no wrapping quotes or final full stop"),
        ({"answers": ["a", "x" * 41]}, "at most 40 characters"),
        ({"answers": ["a", 3]}, "not one line"),
        ({"title": ""}, "the title is one line"),
        ({"rules": "  "}, "the rules are text"),
        ({"extra": 1}, "title, rules, answers"),
    ],
)
def test_bad_parameters_are_refused_with_what_to_fix(change: dict[str, Any], message: str) -> None:
    with pytest.raises(PuzzleError, match=message):
        KIND.check_params({**BASE, **change})
    assert MAX_DESIGNED_ANSWERS == 256


def test_replies_that_make_no_puzzle_are_refused() -> None:
    with pytest.raises(PuzzleError, match="ignores u"):
        triples = KIND.measurement_triples(BASE)
        KIND.with_measurements(BASE, [in_place(s, p) if u == 0 else "x" for s, p, u in triples])
    with pytest.raises(PuzzleError, match="nothing to learn"):
        measured(lambda s, p: "same")
    with pytest.raises(PuzzleError, match="more than 64 distinct"):
        measured(lambda s, p: f"{s}{p}")
    for bad in ("", "two\nlines", "x" * 61, "a  b", 7):
        with pytest.raises(PuzzleError, match="not one line"):
            measured(lambda s, p, bad=bad: bad if (s, p) == ("aaa", "aab") else "ok")
    with pytest.raises(PuzzleError, match="replies, not"):
        KIND.with_measurements(BASE, ["ok"])


def test_tampered_tables_are_refused() -> None:
    params = measured(in_place)
    rows = params["feedback"]["rows"]
    for table in (
        {"labels": params["feedback"]["labels"], "rows": rows[:-1]},
        {"labels": params["feedback"]["labels"], "rows": [rows[0][:-1], *rows[1:]]},
        {"labels": ["only"], "rows": rows},
        {"labels": ["a", "a"], "rows": rows},
        {"labels": params["feedback"]["labels"]},
    ):
        with pytest.raises(PuzzleError):
            KIND.check_params({**params, "feedback": table})
    with pytest.raises(PuzzleError, match="not been measured"):
        PuzzleSpace(KIND, BASE).observe("abc", "1 in place")


def test_probes_and_answers_parse_leniently_as_listed_strings() -> None:
    params = {**BASE, "answers": ["Red Fox", "blue whale"]}
    assert KIND.parse_probe(params, "  red   fox. ") == "Red Fox"
    assert KIND.parse_probe(params, "`BLUE WHALE`") == "blue whale"
    with pytest.raises(PuzzleError, match="one of the 2 possible answers"):
        KIND.parse_probe(params, "green")
    # An answer that is not listed is well formed, and wrong.
    assert KIND.parse_answer(params, "green  frog") == "green frog"
    with pytest.raises(PuzzleError):
        KIND.parse_answer(params, "   ")


def test_labels_number_in_order_of_appearance() -> None:
    table = feedback_table(["x", "y"], [["b", "a"], ["a", "a"]])
    assert table == {"labels": ["b", "a"], "rows": ["01", "11"]}
    assert CODE_CHARS[:3] == "012"


def test_the_baselines_plans_and_pools_are_answers() -> None:
    params = measured(in_place)
    plan = KIND.fixed_plan(params, 4)
    assert len(plan) == 4 and set(plan) <= set(ANSWERS)
    pool = KIND.candidate_probes(params, random.Random(1), 5, ["ccc", "zzz"])
    assert pool[0] == "ccc" and len(pool) == 5 and set(pool) <= set(ANSWERS)
    assert KIND.candidate_probes(params, random.Random(1), 100) == ANSWERS
    space = PuzzleSpace(KIND, params)
    best = space.greedy_probe(ANSWERS)
    gains = [space.expected_information(p) for p in ANSWERS]
    assert space.expected_information(best) == pytest.approx(max(gains)) and max(gains) > 1.0
