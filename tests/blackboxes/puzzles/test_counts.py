"""|H|, |Y| and T_info against independent brute-force counts on small parameters.

|Y| is the most distinct feedback values one probe can return over H: here every probe
of the kind is enumerated (by its own rules, written out again below) and every secret
is tried with the reference ``feedback``."""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from typing import Any

import pytest

from blackboxes.puzzles import DeterministicKind, get_puzzle
from blackboxes.puzzles.wordle import word_list


def _max_feedback(name: str, params: dict[str, Any], probes: Iterator[str]) -> int:
    kind = get_puzzle(name)
    secrets = kind.answers(params)
    # Noisy kinds: enough draws to see every outcome; deterministic ones ignore u.
    u = [0.01, 0.5, 0.99, 0.2, 0.8] if kind.noisy else [0.5]
    return max(len({kind.feedback(params, s, p, x) for s in secrets for x in u}) for p in probes)


def _cells(rows: int, cols: int) -> list[str]:
    return [f"{chr(65 + r)}{c + 1}" for r in range(rows) for c in range(cols)]


def _lines(rows: int, cols: int, k: int) -> list[frozenset[int]]:
    """Every straight run of k cells, found by brute force over all k-subsets."""
    out = []
    for cells in itertools.combinations(range(rows * cols), k):
        rs = {c // cols for c in cells}
        cs = {c % cols for c in cells}
        across = len(rs) == 1 and max(cs) - min(cs) == k - 1
        down = len(cs) == 1 and max(rs) - min(rs) == k - 1
        if across or down:
            out.append(frozenset(cells))
    return out


def _weighings(coins: int) -> Iterator[str]:
    for size in range(1, coins // 2 + 1):
        for left in itertools.combinations(range(1, coins + 1), size):
            rest = [c for c in range(1, coins + 1) if c not in left]
            for right in itertools.combinations(rest, size):
                yield f"{' '.join(map(str, left))} vs {' '.join(map(str, right))}"


CASES: list[tuple[str, dict[str, Any], int, int]] = [
    ("number_far_close", {"n": 20, "close": 3}, 21, 3),
    ("number_far_close", {"n": 2, "close": 1}, 3, 3),
    ("number_higher_lower", {"n": 20}, 21, 3),
    ("mastermind", {"pegs": 3, "colours": 3}, 27, 8),
    ("mastermind", {"pegs": 2, "colours": 4}, 16, 5),
    ("mastermind", {"pegs": 4, "colours": 2}, 16, 7),
    ("bulls_and_cows", {"length": 3, "digits": 4}, 24, 6),
    ("bulls_and_cows", {"length": 3, "digits": 6}, 120, 9),
    ("battleship_one", {"rows": 4, "cols": 5, "ship": 3}, 22, 2),
    ("coin_heavy", {"coins": 5}, 5, 3),
    ("coin_heavy", {"coins": 3}, 3, 3),
    ("coin_heavy_light", {"coins": 4}, 8, 3),
    ("coin_lying", {"coins": 4, "lie_percent": 20}, 4, 3),
    ("nuts_and_bolts", {"size": 5, "pairs": 2}, 120, 9),
    ("nuts_and_bolts", {"size": 3, "pairs": 1}, 6, 3),
    ("twenty_questions", {"n": 9, "forms": ["divisible", "set"], "set_max": 2}, 9, 2),
    ("bandit", {"percents": [70, 20, 10]}, 6, 2),
    ("bandit", {"percents": [50, 30, 30, 10]}, 12, 2),
]


def _probes(name: str, params: dict[str, Any]) -> Iterator[str]:
    """Every probe the kind's rules allow, enumerated independently of the kind."""
    if name.startswith("number"):
        yield from map(str, range(params["n"] + 1))
    elif name == "mastermind":
        letters = "ABCDEFGHIJ"[: params["colours"]]
        yield from ("".join(c) for c in itertools.product(letters, repeat=params["pegs"]))
    elif name == "bulls_and_cows":
        digits = "0123456789"[: params["digits"]]
        yield from ("".join(c) for c in itertools.permutations(digits, params["length"]))
    elif name == "battleship_one":
        yield from _cells(params["rows"], params["cols"])
    elif name.startswith("coin"):
        yield from _weighings(params["coins"])
    elif name == "nuts_and_bolts":
        pairs = [f"{n}{b}" for n in range(1, params["size"] + 1) for b in "ABCDE"[: params["size"]]]
        for k in range(1, params["pairs"] + 1):
            yield from (" ".join(c) for c in itertools.combinations(pairs, k))
    elif name == "twenty_questions":
        top = params["n"]
        yield from (f"divisible by {k}" for k in range(2, top + 1))
        for k in range(1, params["set_max"] + 1):
            yield from (
                "in {" + ",".join(map(str, c)) + "}"
                for c in itertools.combinations(range(1, top + 1), k)
            )
    elif name == "bandit":
        yield from (f"arm {a}" for a in range(1, len(params["percents"]) + 1))


def _count(name: str, params: dict[str, Any]) -> int:
    """|H| by an independent count."""
    if name.startswith("number"):
        return params["n"] + 1
    if name == "mastermind":
        return params["colours"] ** params["pegs"]
    if name == "bulls_and_cows":
        return len(list(itertools.permutations(range(params["digits"]), params["length"])))
    if name == "battleship_one":
        return len(_lines(params["rows"], params["cols"], params["ship"]))
    if name in ("coin_heavy", "coin_lying"):
        return params["coins"]
    if name == "coin_heavy_light":
        return 2 * params["coins"]
    if name == "nuts_and_bolts":
        return len(list(itertools.permutations(range(params["size"]))))
    if name == "twenty_questions":
        return params["n"]
    return len(set(itertools.permutations(params["percents"])))


@pytest.mark.parametrize(("name", "params", "h", "y"), CASES)
def test_h_and_y_match_brute_force(name: str, params: dict[str, Any], h: int, y: int) -> None:
    kind = get_puzzle(name)
    assert kind.answer_count(params) == len(kind.answers(params)) == _count(name, params) == h
    assert kind.feedback_size(params) == _max_feedback(name, params, _probes(name, params)) == y
    solutions = len(kind.solution_classes(params)[0])
    assert kind.t_info(params) == math.ceil(round(math.log2(solutions) / math.log2(y), 9))


def test_every_nut_pair_probe_of_a_larger_set_reaches_27_outcomes() -> None:
    # 7 nuts, 3 pairs: the matchings of three middle nuts see all 3^3 outcomes; probes
    # with a shared nut or bolt see fewer (brute force over the probes on bolts A-C).
    kind = get_puzzle("nuts_and_bolts")
    assert isinstance(kind, DeterministicKind)
    params = {"size": 7, "pairs": 3}
    probes = [
        " ".join(f"{n}{b}" for n, b in zip(nuts, "ABC", strict=True))
        for nuts in itertools.combinations(range(1, 8), 3)
    ]
    best = max(len(set(kind.feedback_all(params, p).tolist())) for p in probes)
    assert best == kind.feedback_size(params) == 27


def test_battleship_fleet_count_matches_enumeration() -> None:
    kind = get_puzzle("battleship_fleet")
    params = {"rows": 4, "cols": 4, "ships": [3, 2], "bombs": 1}
    threes, twos = _lines(4, 4, 3), _lines(4, 4, 2)
    fleets = [(a, b) for a in threes for b in twos if not a & b]
    states = [(a, b, bomb) for a, b in fleets for bomb in range(16) if bomb not in a | b]
    assert kind.answer_count(params) == len(states) == len(fleets) * 11 == 2904
    names, classes = kind.solution_classes(params)
    assert len(names) == len(fleets) and len(classes) == len(states)
    occupied = {a | b | {bomb} for a, b, bomb in states}
    # Decoys can mimic ships: fewer distinct hit patterns than secrets.
    assert len(occupied) < len(states)
    assert (
        kind.feedback_size(params)
        == _max_feedback("battleship_fleet", params, iter(_cells(4, 4)[:3]))
        == 2
    )
    # Two equal ships: listed once each way round.
    same = {"rows": 4, "cols": 4, "ships": [2, 2], "bombs": 0}
    pairs = {frozenset((a, b)) for a in twos for b in twos if not a & b}
    assert kind.answer_count(same) == len(pairs)


def test_wordle_counts_on_a_small_list() -> None:
    kind = get_puzzle("wordle")
    params = {"length": 5, "words": 40}
    words = kind.answers(params)
    assert len(words) == 40 and list(words) == sorted(words)
    # Beyond four letters an unlisted probe may split the list more finely than any
    # listed word: |Y| is the safe bound, never under the listed maximum.
    listed = _max_feedback("wordle", params, iter(words))
    assert kind.feedback_size(params) == min(3**5 - 5, 40) >= listed
    four = {"length": 4, "words": 40}
    assert kind.feedback_size(four) == _max_feedback("wordle", four, iter(kind.answers(four)))


def test_wordle_lists_are_frequent_lowercase_words() -> None:
    for length, count in ((4, 2000), (5, 2000), (6, 3000), (8, 4000)):
        words = word_list(length, count)
        assert len(words) == len(set(words)) == count and list(words) == sorted(words)
        assert all(len(w) == length and w.isascii() and w.isalpha() and w.islower() for w in words)
    assert {"about", "there", "which", "house"} <= set(word_list(5, 2000))
    assert {"business", "children"} <= set(word_list(8, 4000))
    # The first words by frequency are a prefix of a longer list's.
    assert set(word_list(5, 500)) <= set(word_list(5, 2000))


def test_wordle_feedback_size_of_the_easy_list() -> None:
    kind = get_puzzle("wordle")
    params = {"length": 5, "words": 2000}
    size = kind.feedback_size(params)
    words = kind.answers(params)
    # An independent lower bound: one probe's distinct patterns, by the reference rule.
    assert size >= len({kind.feedback(params, w, "tales", 0.0) for w in words})
    # 161 for the best listed probe; any five letters may be probed: the safe 3^5 - 5.
    assert size == 238 and kind.t_info(params) == 2
