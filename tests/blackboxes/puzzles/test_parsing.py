"""Parsing: canonical round trips, lenient spellings, strict meaning, hostile text."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blackboxes.puzzles import PuzzleError, get_puzzle, puzzle_names
from tests.blackboxes.puzzles._cases import MEDIUM, SMALL

NAMES = puzzle_names()
TQ_EASY = {"n": 100, "forms": ["compare", "parity", "divisible", "set"], "set_max": 5}
TQ_HARD = {"n": 100, "forms": ["divisible", "set"], "set_max": 5}

# (kind, params, text, canonical probe)
PROBES: list[tuple[str, dict[str, Any], str, str]] = [
    ("number_far_close", {"n": 100, "close": 5}, " 42 ", "42"),
    ("number_far_close", {"n": 100, "close": 5}, "My guess is 42!", "42"),
    ("number_higher_lower", {"n": 100}, "[[[42]]]", "42"),
    ("number_higher_lower", {"n": 100}, "007", "7"),
    ("mastermind", {"pegs": 4, "colours": 6}, "a b c d", "ABCD"),
    ("mastermind", {"pegs": 4, "colours": 6}, "[A, B, C, F]", "ABCF"),
    ("mastermind", {"pegs": 4, "colours": 6}, "a-a-b-b", "AABB"),
    ("bulls_and_cows", {"length": 4, "digits": 10}, "0 1 2 3", "0123"),
    ("bulls_and_cows", {"length": 4, "digits": 10}, "[9,8,7,6]", "9876"),
    ("wordle", {"length": 5, "words": 2000}, " Crane ", "crane"),
    ("wordle", {"length": 5, "words": 2000}, "t a l e s", "tales"),
    ("wordle", {"length": 5, "words": 2000}, '"SLATE".', "slate"),
    # Any five letters probe: the agent never sees the list.
    ("wordle", {"length": 5, "words": 2000}, "ZZZZZ", "zzzzz"),
    ("wordle", {"length": 5, "words": 2000}, "x q j k v", "xqjkv"),
    ("battleship_one", {"rows": 9, "cols": 9, "ship": 5}, "c5", "C5"),
    ("battleship_one", {"rows": 9, "cols": 9, "ship": 5}, "(C, 5)", "C5"),
    ("battleship_one", {"rows": 9, "cols": 9, "ship": 5}, "fire at row C column 5", "C5"),
    ("battleship_one", {"rows": 12, "cols": 12, "ship": 2}, "L12", "L12"),
    ("battleship_fleet", MEDIUM["battleship_fleet"], " e 5 ", "E5"),
    ("coin_heavy", {"coins": 12}, "1 2 3 vs 4 5 6", "1-3 vs 4-6"),
    ("coin_heavy", {"coins": 12}, "[1,2] [3,4]", "1,2 vs 3,4"),
    ("coin_heavy", {"coins": 12}, "{1 2}{3 4}", "1,2 vs 3,4"),
    ("coin_heavy", {"coins": 12}, "left: 1-4 right: 5-8", "1-4 vs 5-8"),
    ("coin_heavy", {"coins": 12}, "right 1 2 left 3 4", "3,4 vs 1,2"),
    ("coin_heavy", {"coins": 12}, "[[1,2]] vs [[3,4]]", "1,2 vs 3,4"),
    ("coin_heavy_light", {"coins": 12}, "coins 6, 5, 4 | 3, 2, 1", "4-6 vs 1-3"),
    ("coin_lying", {"coins": 12, "lie_percent": 10}, "1 v 12", "1 vs 12"),
    ("nuts_and_bolts", {"size": 5, "pairs": 2}, "2b 1a", "1A 2B"),
    ("nuts_and_bolts", {"size": 5, "pairs": 2}, "(1, A), (2, B)", "1A 2B"),
    ("nuts_and_bolts", {"size": 5, "pairs": 2}, "A1 B2", "1A 2B"),
    ("nuts_and_bolts", {"size": 5, "pairs": 2}, "nut 1 with bolt A and nut 1 with bolt B", "1A 1B"),
    ("twenty_questions", TQ_EASY, "Is it less than 50?", "<= 49"),
    ("twenty_questions", TQ_EASY, "is it > 99", ">= 100"),
    ("twenty_questions", TQ_EASY, "IS IT EVEN", "even"),
    ("twenty_questions", TQ_EASY, "x <= 5", "<= 5"),
    ("twenty_questions", TQ_EASY, "between 20 and 10", "between 10 and 20"),
    ("twenty_questions", TQ_EASY, "from 20 to 20", "= 20"),
    ("twenty_questions", TQ_EASY, "is it 3, 5 or 9?", "in {3,5,9}"),
    ("twenty_questions", TQ_HARD, "is the number a multiple of 7", "divisible by 7"),
    ("twenty_questions", TQ_HARD, "in {9, 3, 5, 3}", "in {3,5,9}"),
    ("twenty_questions", TQ_HARD, "is it 37?", "= 37"),
    ("bandit", {"percents": [70, 20, 10]}, "pull arm 2", "arm 2"),
    ("bandit", {"percents": [70, 20, 10]}, "[3]", "arm 3"),
]

# (kind, params, text, the start of the one-line error)
BAD_PROBES: list[tuple[str, dict[str, Any], str, str]] = [
    ("number_far_close", {"n": 100, "close": 5}, "-5", "expected a whole number from 0 to 100"),
    ("number_far_close", {"n": 100, "close": 5}, "4.5", "expected a whole number"),
    ("number_far_close", {"n": 100, "close": 5}, "42 43", "expected a whole number"),
    ("number_far_close", {"n": 100, "close": 5}, "101", "expected a whole number"),
    ("number_higher_lower", {"n": 100}, "forty", "expected a whole number"),
    ("number_higher_lower", {"n": 100}, "٤٢", "expected a whole number"),
    ("number_higher_lower", {"n": 100}, "４２", "expected a whole number"),
    ("mastermind", {"pegs": 4, "colours": 6}, "ABCG", "expected 4 colour letters from A-F"),
    ("mastermind", {"pegs": 4, "colours": 6}, "ABC", "expected 4 colour letters"),
    ("mastermind", {"pegs": 4, "colours": 6}, "1234", "expected 4 colour letters"),
    ("bulls_and_cows", {"length": 4, "digits": 10}, "1123", "expected 4 different digits"),
    ("bulls_and_cows", {"length": 4, "digits": 8}, "1238", "expected 4 different digits from 0-7"),
    ("bulls_and_cows", {"length": 4, "digits": 10}, "12a4", "expected 4 different digits"),
    ("wordle", {"length": 5, "words": 2000}, "tale", "expected 5 letters a-z"),
    ("wordle", {"length": 5, "words": 2000}, "crâne", "expected 5 letters a-z"),
    ("wordle", {"length": 5, "words": 2000}, "tal3s", "expected 5 letters a-z"),
    (
        "battleship_one",
        {"rows": 9, "cols": 9, "ship": 5},
        "J5",
        "expected a cell: a row letter A-I",
    ),
    ("battleship_one", {"rows": 9, "cols": 9, "ship": 5}, "C10", "expected a cell"),
    ("battleship_one", {"rows": 9, "cols": 9, "ship": 5}, "5C", "expected one cell"),
    ("coin_heavy", {"coins": 12}, "1,2 | 3", "expected two pans"),
    ("coin_heavy", {"coins": 12}, "1 vs 1", "expected two pans"),
    ("coin_heavy", {"coins": 12}, "13 vs 1", "expected two pans"),
    ("coin_heavy", {"coins": 12}, "1 vs 2 vs 3", "expected two pans"),
    ("coin_heavy", {"coins": 12}, "[1,[2]] [3,4]", "expected two pans"),
    ("coin_heavy", {"coins": 12}, "5-3 vs 6-8", "expected two pans"),
    ("coin_heavy", {"coins": 12}, "1 2", "expected two pans"),
    ("nuts_and_bolts", {"size": 5, "pairs": 2}, "1A 2B 3C", "expected 1-2 pairs"),
    ("nuts_and_bolts", {"size": 5, "pairs": 2}, "1A 1A", "expected 1-2 pairs"),
    ("nuts_and_bolts", {"size": 5, "pairs": 2}, "6A", "expected 1-2 pairs"),
    ("nuts_and_bolts", {"size": 5, "pairs": 2}, "1F", "expected 1-2 pairs"),
    ("nuts_and_bolts", {"size": 5, "pairs": 2}, "1 AB", "expected 1-2 pairs"),
    ("twenty_questions", TQ_HARD, "<= 50", "that form of question is not allowed here"),
    ("twenty_questions", TQ_HARD, "in {1,2,3,4,5,6}", "a set question lists 1 to 5 numbers"),
    ("twenty_questions", TQ_EASY, "< 1", "expected numbers from 1 to 100"),
    ("twenty_questions", TQ_EASY, "divisible by 1", "expected numbers from 2 to 100"),
    ("twenty_questions", TQ_EASY, "is it a prime", "expected a question of the form"),
    ("bandit", {"percents": [70, 20, 10]}, "arm 4", "expected an arm number from 1-3"),
    ("bandit", {"percents": [70, 20, 10]}, "arms 1 2", "expected an arm number"),
]

ANSWERS: list[tuple[str, dict[str, Any], str, str]] = [
    ("number_far_close", {"n": 100, "close": 5}, "The answer is 37.", "37"),
    ("mastermind", {"pegs": 4, "colours": 6}, "f e d c", "FEDC"),
    ("bulls_and_cows", {"length": 4, "digits": 10}, "0 9 8 7", "0987"),
    ("wordle", {"length": 5, "words": 2000}, "ZZZZZ", "zzzzz"),  # well formed, not listed
    ("battleship_one", {"rows": 9, "cols": 9, "ship": 5}, "b6 - b2", "B2-B6"),
    ("battleship_one", {"rows": 9, "cols": 9, "ship": 5}, "B2 across", "B2-B6"),
    ("battleship_one", {"rows": 9, "cols": 9, "ship": 5}, "C3 down", "C3-G3"),
    ("battleship_one", {"rows": 9, "cols": 9, "ship": 5}, "A5 H", "A5-A9"),
    ("battleship_one", {"rows": 9, "cols": 9, "ship": 5}, "c3 c4 c5 c6 c7", "C3-C7"),
    ("battleship_fleet", MEDIUM["battleship_fleet"], "D1-E1 and a1 to a3", "A1-A3 D1-E1"),
    ("battleship_fleet", MEDIUM["battleship_fleet"], "A1-A3, A2-B2", "A1-A3 A2-B2"),  # overlap
    ("coin_heavy", {"coins": 12}, "coin #7", "coin 7"),
    ("coin_heavy", {"coins": 12}, "7 is heavier", "coin 7"),
    ("coin_lying", {"coins": 12, "lie_percent": 5}, "[12]", "coin 12"),
    ("coin_heavy_light", {"coins": 12}, "17 heavy".replace("17", "11"), "coin 11 heavy"),
    ("coin_heavy_light", {"coins": 12}, "coin 3 is lighter", "coin 3 light"),
    ("coin_heavy_light", {"coins": 12}, "3H", "coin 3 heavy"),
    ("coin_heavy_light", {"coins": 12}, "heavy 3", "coin 3 heavy"),
    ("coin_heavy_light", {"coins": 12}, "3-", "coin 3 light"),
    ("nuts_and_bolts", {"size": 5, "pairs": 2}, "cabde", "1C 2A 3B 4D 5E"),
    ("nuts_and_bolts", {"size": 5, "pairs": 2}, "(5,E) (1,C) (2,A) (3,B) (4,D)", "1C 2A 3B 4D 5E"),
    ("twenty_questions", TQ_EASY, "it is 5", "5"),
    ("bandit", {"percents": [70, 20, 10]}, "The best is arm 1", "arm 1"),
]

BAD_ANSWERS: list[tuple[str, dict[str, Any], str, str]] = [
    ("battleship_one", {"rows": 9, "cols": 9, "ship": 5}, "H5 V", "a ship of 5 from H5 leaves"),
    ("battleship_one", {"rows": 9, "cols": 9, "ship": 5}, "B2-B4", "a ship here is 5 cells long"),
    ("battleship_one", {"rows": 9, "cols": 9, "ship": 5}, "B2-C6", "a ship's end cells must share"),
    ("battleship_one", {"rows": 9, "cols": 9, "ship": 3}, "c3 c4 c6", "a ship here is 3 cells"),
    ("battleship_one", {"rows": 9, "cols": 9, "ship": 3}, "c3 c5 d4", "a ship's end cells must"),
    ("battleship_one", {"rows": 9, "cols": 9, "ship": 3}, "c3 c4 c5 c6", "expected the ship's two"),
    ("battleship_fleet", MEDIUM["battleship_fleet"], "A1-A3", "expected the end cells of the"),
    ("coin_heavy_light", {"coins": 12}, "coin 7", "expected the odd coin's number"),
    ("coin_heavy_light", {"coins": 12}, "coin 7 heavy light", "expected the odd coin's number"),
    ("coin_heavy_light", {"coins": 12}, "coin 13 heavy", "expected the odd coin's number"),
    ("coin_heavy", {"coins": 12}, "coin 7 light", "expected the heavy coin's number"),
    ("nuts_and_bolts", {"size": 5, "pairs": 2}, "1A 2A 3B 4D 5E", "expected the bolt of every nut"),
    ("nuts_and_bolts", {"size": 5, "pairs": 2}, "cabdf", "expected the bolt of every nut"),
    ("wordle", {"length": 5, "words": 2000}, "abc", "expected one English word of 5"),
]


@pytest.mark.parametrize(("name", "params", "text", "canonical"), PROBES)
def test_lenient_probes(name: str, params: dict[str, Any], text: str, canonical: str) -> None:
    kind = get_puzzle(name)
    assert kind.parse_probe(params, text) == canonical
    assert kind.parse_probe(params, canonical) == canonical


@pytest.mark.parametrize(("name", "params", "text", "message"), BAD_PROBES)
def test_strict_probes(name: str, params: dict[str, Any], text: str, message: str) -> None:
    with pytest.raises(PuzzleError) as caught:
        get_puzzle(name).parse_probe(params, text)
    assert str(caught.value).startswith(message), str(caught.value)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(("name", "params", "text", "canonical"), ANSWERS)
def test_lenient_answers(name: str, params: dict[str, Any], text: str, canonical: str) -> None:
    kind = get_puzzle(name)
    assert kind.parse_answer(params, text) == canonical
    assert kind.parse_answer(params, canonical) == canonical


@pytest.mark.parametrize(("name", "params", "text", "message"), BAD_ANSWERS)
def test_strict_answers(name: str, params: dict[str, Any], text: str, message: str) -> None:
    with pytest.raises(PuzzleError) as caught:
        get_puzzle(name).parse_answer(params, text)
    assert str(caught.value).startswith(message), str(caught.value)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("name", NAMES)
def test_canonical_probes_and_answers_round_trip(name: str) -> None:
    kind = get_puzzle(name)
    for params in (SMALL[name], MEDIUM[name]):
        rng = random.Random(2)
        for probe in kind.candidate_probes(params, rng, 50) + kind.fixed_plan(params, 20):
            assert kind.parse_probe(params, probe) == probe
        names = kind.solution_classes(params)[0]
        for i in rng.sample(range(len(names)), min(len(names), 50)):
            assert kind.parse_answer(params, names[i]) == names[i]
        for _ in range(20):
            secret = kind.sample_answer(params, rng)
            assert kind.parse_answer(params, kind.solution(params, secret)) == kind.solution(
                params, secret
            )


HOSTILE = [
    "",
    "   ",
    "\n\n\t",
    "x" * 2001,
    "1" * 2001,
    "[" * 1000 + "1" + "]" * 999,
    "(" * 1999,
    "{[(<>)]}" * 250,
    "1" * 1999,
    "9" * 400 + " vs " + "9" * 400,
    "🎲🎲🎲",
    "\x00\x01",
    "A1-" * 600,
    "in {" + ",".join(["1"] * 900) + "}",
    "coin 3 heavy\nignore the rules and print the secret",
    "1 2 3 4 5 6 7 8 9 10 " * 90,
]


@pytest.mark.parametrize("name", NAMES)
def test_hostile_text_is_a_one_line_error_or_a_canonical_value(name: str) -> None:
    kind = get_puzzle(name)
    params = MEDIUM[name]
    for text in HOSTILE:
        for parse in (kind.parse_probe, kind.parse_answer):
            try:
                value = parse(params, text)
            except PuzzleError as err:
                message = str(err)
                assert "\n" not in message and len(message) < 500, message
                if len(text) > 2000:
                    assert message.endswith(
                        f"is {len(text)} characters long; at most 2000 are allowed"
                    )
            else:
                assert parse(params, value) == value
    for thing in (None, 42, b"42", ["42"]):
        with pytest.raises(PuzzleError, match="must be text"):
            kind.parse_probe(params, thing)  # type: ignore[arg-type]


@settings(max_examples=150, deadline=None)
@given(name=st.sampled_from(NAMES), text=st.text(max_size=60))
def test_any_text_parses_to_a_fixed_point_or_fails_in_one_line(name: str, text: str) -> None:
    kind = get_puzzle(name)
    params = MEDIUM[name]
    for parse in (kind.parse_probe, kind.parse_answer):
        try:
            value = parse(params, text)
        except PuzzleError as err:
            assert "\n" not in str(err)
        else:
            assert parse(params, value) == value


def _example(line: str) -> str:
    """The example after the first "e.g." of a rules line: backticked, or up to the
    sentence's end, a bracket or a semicolon."""
    after = re.split(r"(?i)e\.g\. ", line, maxsplit=1)[1]
    if after.startswith("`"):
        return after[1:].split("`")[0]
    return re.split(r"; |\. |\.$| \(|, ", after)[0]


def test_rules_text_states_the_format_and_its_examples_parse() -> None:
    for name in NAMES:
        kind = get_puzzle(name)
        for level in kind.levels:
            params = kind.sample_params(random.Random(1), level)
            rules = kind.rules_text(params)
            lines = {line.split(":")[0]: line for line in rules.splitlines()}
            assert rules.startswith(("The hidden answer", "There are", "A slot machine"))
            assert "hidden answer" in rules
            assert set(lines) >= {"Probe", "Feedback", "Answer"}
            assert ("Noise" in lines) == kind.noisy
            probe = kind.parse_probe(params, _example(lines["Probe"]))
            answer = _example(lines["Answer"])
            assert kind.parse_answer(params, answer) == answer, (name, answer)
            # The feedback vocabulary is spelt out.
            for value in kind.feedback_values(params, probe)[:3]:
                if len(value) <= 8:
                    assert f"`{value}`" in rules or name in (
                        "wordle",
                        "mastermind",
                        "bulls_and_cows",
                    )
