"""Reference feedback: known cases, the vectorised tables against it, likelihoods, noise."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from blackboxes.puzzles import DeterministicKind, PuzzleError, get_puzzle, puzzle_names
from blackboxes.puzzles.wordle import wordle_marks
from tests.blackboxes.puzzles._cases import MEDIUM, SMALL

NAMES = puzzle_names()


@pytest.mark.parametrize(
    ("secret", "probe", "marks"),
    [
        ("abbey", "babes", "YYGG-"),  # one b in place, the other b elsewhere
        ("abbey", "kebab", "-YGYY"),
        ("abbey", "abbey", "GGGGG"),
        ("those", "geese", "---GG"),  # the green e uses the only e: no yellows
        ("crane", "eerie", "--Y-G"),  # the green e uses the only e: the others are -
        ("speed", "eerie", "YY---"),  # two es in the secret: two Ys, the third is -
        ("abcde", "aaaaa", "G----"),
        ("aabbb", "bbaaa", "YYYY-"),
    ],
)
def test_wordle_duplicate_letters(secret: str, probe: str, marks: str) -> None:
    assert wordle_marks(secret, probe) == marks


def test_wordle_vectorised_marks_match_the_reference_on_hard_duplicates() -> None:
    kind = get_puzzle("wordle")
    params = {"length": 5, "words": 2000}
    assert isinstance(kind, DeterministicKind)
    words = list(kind.answers(params))
    index = {w: i for i, w in enumerate(words)}
    # Unlisted strings are probes too (zzzzz, eeeee): the same rule marks them.
    for probe in ("eerie", "geese", "llama", "sassy", "tales", "radar", "zzzzz", "eeeee", "esses"):
        codes = kind.feedback_all(params, probe)
        for w in words[::7]:
            assert kind.feedback_label(params, probe, int(codes[index[w]])) == wordle_marks(
                w, probe
            )


def test_wordle_probes_need_not_be_listed() -> None:
    kind = get_puzzle("wordle")
    params = {"length": 5, "words": 40}
    words = list(kind.answers(params))
    rng = random.Random(5)
    unlisted = 0
    for _ in range(200):
        probe = "".join(rng.choice("aeeilnorstxz") for _ in range(5))
        unlisted += probe not in words
        assert kind.parse_probe(params, probe.upper()) == probe
        secret = rng.choice(words)
        marks = kind.feedback(params, secret, probe, 0.0)
        assert marks == wordle_marks(secret, probe)
        assert marks in kind.feedback_values(params, probe)
    assert unlisted > 150
    assert kind.feedback(params, words[0], "qqqqq", 0.5) == "-----"


KNOWN: list[tuple[str, dict[str, Any], str, str, str]] = [
    ("number_far_close", {"n": 100, "close": 10}, "50", "40", "close"),
    ("number_far_close", {"n": 100, "close": 10}, "50", "39", "far"),
    ("number_far_close", {"n": 100, "close": 10}, "50", "50", "correct"),
    ("number_higher_lower", {"n": 100}, "50", "40", "higher"),
    ("number_higher_lower", {"n": 100}, "50", "51", "lower"),
    ("mastermind", {"pegs": 4, "colours": 6}, "AABB", "ABAB", "B2 W2"),
    ("mastermind", {"pegs": 4, "colours": 6}, "ABCD", "AAAA", "B1 W0"),
    ("mastermind", {"pegs": 4, "colours": 6}, "AABC", "CAAA", "B1 W2"),
    ("mastermind", {"pegs": 4, "colours": 6}, "FFFF", "ABCD", "B0 W0"),
    ("bulls_and_cows", {"length": 4, "digits": 10}, "1234", "1243", "2B2C"),
    ("bulls_and_cows", {"length": 4, "digits": 10}, "1234", "5678", "0B0C"),
    ("bulls_and_cows", {"length": 4, "digits": 10}, "0123", "3210", "0B4C"),
    ("battleship_one", {"rows": 6, "cols": 6, "ship": 3}, "B2-B4", "B4", "hit"),
    ("battleship_one", {"rows": 6, "cols": 6, "ship": 3}, "B2-B4", "B5", "miss"),
    ("battleship_one", {"rows": 6, "cols": 6, "ship": 3}, "B2-D2", "C2", "hit"),
    (
        "battleship_fleet",
        {"rows": 5, "cols": 5, "ships": [3, 2], "bombs": 1},
        "ships A1-A3 C1-D1; bombs E5",
        "E5",
        "hit",
    ),
    (
        "battleship_fleet",
        {"rows": 5, "cols": 5, "ships": [3, 2], "bombs": 1},
        "ships A1-A3 C1-D1; bombs E5",
        "D1",
        "hit",
    ),
    (
        "battleship_fleet",
        {"rows": 5, "cols": 5, "ships": [3, 2], "bombs": 1},
        "ships A1-A3 C1-D1; bombs E5",
        "B1",
        "miss",
    ),
    ("coin_heavy", {"coins": 12}, "coin 3", "1,2,3 vs 4,5,6", "left"),
    ("coin_heavy", {"coins": 12}, "coin 5", "1,2,3 vs 4,5,6", "right"),
    ("coin_heavy", {"coins": 12}, "coin 9", "1,2,3 vs 4,5,6", "balanced"),
    ("coin_heavy_light", {"coins": 12}, "coin 5 light", "1,2,3 vs 4,5,6", "left"),
    ("coin_heavy_light", {"coins": 12}, "coin 2 light", "1,2,3 vs 4,5,6", "right"),
    ("coin_heavy_light", {"coins": 12}, "coin 2 heavy", "1,2,3 vs 4,5,6", "left"),
    ("nuts_and_bolts", {"size": 5, "pairs": 2}, "1C 2A 3B 4D 5E", "1A 2C", "1A small, 2C large"),
    ("nuts_and_bolts", {"size": 5, "pairs": 2}, "1C 2A 3B 4D 5E", "4D", "4D fit"),
    (
        "twenty_questions",
        {"n": 50, "forms": ["compare", "parity", "divisible", "set"], "set_max": 5},
        "12",
        "divisible by 4",
        "yes",
    ),
    (
        "twenty_questions",
        {"n": 50, "forms": ["compare", "parity", "divisible", "set"], "set_max": 5},
        "12",
        "between 13 and 20",
        "no",
    ),
    (
        "twenty_questions",
        {"n": 50, "forms": ["compare", "parity", "divisible", "set"], "set_max": 5},
        "12",
        "<= 12",
        "yes",
    ),
    ("bandit", {"percents": [70, 20, 10]}, "20,70,10", "arm 2", "1"),
]


@pytest.mark.parametrize(("name", "params", "secret", "probe", "expected"), KNOWN)
def test_known_feedback(
    name: str, params: dict[str, Any], secret: str, probe: str, expected: str
) -> None:
    kind = get_puzzle(name)
    u = 0.5  # bandit arm 2 pays 70%: u = 0.5 < 0.7 pays out
    assert kind.feedback(params, secret, probe, u) == expected
    assert kind.likelihood(params, secret, probe, expected) > 0


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("size", ["small", "medium"])
def test_vectorised_tables_match_the_reference(name: str, size: str) -> None:
    kind = get_puzzle(name)
    params = (SMALL if size == "small" else MEDIUM)[name]
    rng = random.Random(3)
    n = kind.answer_count(params)
    probes = kind.candidate_probes(params, rng, 12) + kind.fixed_plan(params, 4)
    for probe in probes:
        index = np.array(sorted(rng.sample(range(n), min(n, 40))), dtype=np.intp)
        labels, matrix = kind.likelihoods(params, probe, index)
        assert matrix.shape == (len(labels), len(index))
        np.testing.assert_allclose(matrix.sum(axis=0), 1.0)
        for column, i in enumerate(index):
            secret = kind.answer_at(params, int(i))
            for row, label in enumerate(labels):
                assert kind.likelihood(params, secret, probe, label) == pytest.approx(
                    matrix[row, column]
                ), (secret, probe, label)
            if isinstance(kind, DeterministicKind):
                code = int(kind.feedback_all(params, probe, index)[column])
                label = kind.feedback_label(params, probe, code)
                assert label == kind.feedback(params, secret, probe, 0.0)
                assert kind.feedback_code(params, probe, label) == code
        # None means all of H, in answer order.
        full = kind.likelihoods(params, probe)[1]
        assert full.shape[1] == n


@pytest.mark.parametrize("name", NAMES)
def test_likelihoods_sum_to_one_over_the_feedback_values(name: str) -> None:
    kind = get_puzzle(name)
    params = SMALL[name]
    secrets = kind.answers(params)
    for probe in kind.candidate_probes(params, random.Random(0), 8):
        values = kind.feedback_values(params, probe)
        assert len(values) == len(set(values))
        for secret in secrets[:: max(1, len(secrets) // 40)]:
            total = sum(kind.likelihood(params, secret, probe, y) for y in values)
            assert total == pytest.approx(1.0, abs=1e-12)
            assert kind.feedback(params, secret, probe, 0.37) in values
            assert kind.likelihood(params, secret, probe, "no such feedback") == 0.0


@pytest.mark.parametrize("name", [n for n in NAMES if get_puzzle(n).shares_format])
def test_probing_the_secret_says_correct_and_only_then(name: str) -> None:
    kind = get_puzzle(name)
    params = MEDIUM[name]
    solved = kind.solved_feedback(params)
    assert solved is not None
    if name.startswith("number"):
        assert solved == "correct"
    n = kind.answer_count(params)
    rng = random.Random(4)
    for i in rng.sample(range(n), 10):
        secret = kind.answer_at(params, i)
        assert kind.feedback(params, secret, secret, 0.0) == solved
        assert isinstance(kind, DeterministicKind)
        codes = kind.feedback_all(params, secret)
        hits = np.flatnonzero(codes == kind.feedback_code(params, secret, solved))
        assert hits.tolist() == [i]


@pytest.mark.parametrize("name", ["coin_lying", "bandit"])
def test_noise_comes_from_u_alone_at_the_stated_rates(name: str) -> None:
    kind = get_puzzle(name)
    params = MEDIUM[name]
    grid = [i / 1000 for i in range(1000)]  # u uniform on a grid: frequencies are exact
    rng = random.Random(8)
    for _ in range(6):
        secret = kind.sample_answer(params, rng)
        probe = rng.choice(kind.candidate_probes(params, rng, 20))
        draws = [kind.feedback(params, secret, probe, u) for u in grid]
        assert draws == [kind.feedback(params, secret, probe, u) for u in grid]
        for label in kind.feedback_values(params, probe):
            share = draws.count(label) / len(grid)
            assert share == pytest.approx(kind.likelihood(params, secret, probe, label), abs=1e-9)
    for bad in (1.0, -0.1, 7.0):
        with pytest.raises(PuzzleError, match=r"u must be in \[0, 1\)"):
            kind.feedback(params, kind.answer_at(params, 0), kind.fixed_plan(params, 1)[0], bad)


def test_lying_balance_lies_with_the_stated_split() -> None:
    kind = get_puzzle("coin_lying")
    params = {"coins": 12, "lie_percent": 20}
    probe = "1,2,3 vs 4,5,6"
    assert kind.feedback(params, "coin 3", probe, 0.25) == "left"  # u >= 0.2: truth
    assert kind.feedback(params, "coin 3", probe, 0.05) == "right"  # first other outcome
    assert kind.feedback(params, "coin 3", probe, 0.15) == "balanced"  # second
    assert kind.likelihood(params, "coin 3", probe, "left") == pytest.approx(0.8)
    assert kind.likelihood(params, "coin 3", probe, "balanced") == pytest.approx(0.1)
    assert (
        get_puzzle("coin_lying").feedback({"coins": 12, "lie_percent": 0}, "coin 3", probe, 0.0)
        == "left"
    )


def test_deterministic_kinds_ignore_u() -> None:
    for name in NAMES:
        kind = get_puzzle(name)
        if kind.noisy:
            continue
        params = SMALL[name]
        secret = kind.answer_at(params, 0)
        for probe in kind.candidate_probes(params, random.Random(1), 5):
            assert len({kind.feedback(params, secret, probe, u) for u in (0.0, 0.3, 0.999)}) == 1


def test_bandit_secrets_and_answers() -> None:
    kind = get_puzzle("bandit")
    params = {"percents": [70, 20, 20]}
    assert list(kind.answers(params)) == ["20,20,70", "20,70,20", "70,20,20"]
    assert [kind.solution(params, s) for s in kind.answers(params)] == ["arm 3", "arm 2", "arm 1"]
    names, classes = kind.solution_classes(params)
    assert list(names) == ["arm 1", "arm 2", "arm 3"] and classes.tolist() == [2, 1, 0]
    with pytest.raises(PuzzleError):
        kind.solution(params, "70,70,20")


def test_fleet_secrets_and_answers() -> None:
    kind = get_puzzle("battleship_fleet")
    params = {"rows": 5, "cols": 5, "ships": [3, 2], "bombs": 1}
    first = kind.answer_at(params, 0)
    assert first == "ships A1-A3 A4-A5; bombs B1"
    assert kind.solution(params, first) == "A1-A3 A4-A5"
    names, classes = kind.solution_classes(params)
    assert names[int(classes[0])] == "A1-A3 A4-A5"
    assert all(
        kind.solution(params, kind.answer_at(params, i)) == names[int(classes[i])]
        for i in range(0, kind.answer_count(params), 997)
    )
