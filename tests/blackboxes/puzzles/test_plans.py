"""Fixed plans: deterministic, prefix-stable, valid, and systematic (they cover or split H)."""

from __future__ import annotations

import math
import random
from typing import Any

import numpy as np
import pytest

from blackboxes.puzzles import DeterministicKind, PuzzleSpace, get_puzzle, puzzle_names
from tests.blackboxes.puzzles._cases import MEDIUM, SMALL

NAMES = puzzle_names()


@pytest.mark.parametrize("name", NAMES)
def test_plans_are_deterministic_canonical_and_prefix_stable(name: str) -> None:
    kind = get_puzzle(name)
    for params in (SMALL[name], MEDIUM[name]):
        long = kind.fixed_plan(params, 30)
        assert len(long) == 30
        assert kind.fixed_plan(params, 30) == long
        assert [kind.fixed_plan(params, t) for t in (0, 1, 7)] == [[], long[:1], long[:7]]
        assert all(kind.parse_probe(params, p) == p for p in long)


def _joint_entropy(kind: DeterministicKind, params: dict[str, Any], probes: list[str]) -> float:
    """Entropy of the joint feedback of ``probes`` over a uniform H: the plan's information."""
    classes = np.zeros(kind.answer_count(params), dtype=np.int64)
    for p in probes:
        codes = kind.feedback_all(params, p)
        _, classes = np.unique(classes * (int(codes.max()) + 1) + codes, return_inverse=True)
    counts = np.bincount(classes) / len(classes)
    return float(-(counts * np.log2(counts)).sum())


@pytest.mark.parametrize(
    "name",
    [
        "mastermind",
        "bulls_and_cows",
        "nuts_and_bolts",
        "wordle",
        "battleship_fleet",
        "battleship_one",
        "number_far_close",
        "twenty_questions",
        "coin_heavy_light",
    ],
)
def test_a_plan_tells_more_apart_than_random_probes(name: str) -> None:
    kind = get_puzzle(name)
    assert isinstance(kind, DeterministicKind)
    params = MEDIUM[name]
    turns = 3
    planned = _joint_entropy(kind, params, kind.fixed_plan(params, turns))
    rng = random.Random(0)
    pool = kind.candidate_probes(params, rng, 60)
    randoms = [_joint_entropy(kind, params, rng.sample(pool, turns)) for _ in range(8)]
    assert planned > float(np.mean(randoms)), (planned, randoms)


@pytest.mark.parametrize("coins", [3, 4, 5, 8, 9, 10, 26, 27, 28, 81])
def test_the_heavy_coin_plan_finds_every_coin_in_log3_weighings(coins: int) -> None:
    kind = get_puzzle("coin_heavy")
    params = {"coins": coins}
    t = math.ceil(round(math.log(coins, 3), 9))
    plan = kind.fixed_plan(params, t)
    outcomes = {tuple(kind.feedback(params, s, p, 0.0) for p in plan) for s in kind.answers(params)}
    assert len(outcomes) == coins == kind.answer_count(params)
    assert kind.t_info(params) == t


@pytest.mark.parametrize(("coins", "weighings"), [(3, 2), (12, 3), (39, 4), (120, 5)])
def test_dysons_plan_finds_every_odd_coin_and_its_weight(coins: int, weighings: int) -> None:
    kind = get_puzzle("coin_heavy_light")
    params = {"coins": coins}
    plan = kind.fixed_plan(params, weighings)
    assert all(len(p.split(" vs ")) == 2 for p in plan)
    outcomes = {tuple(kind.feedback(params, s, p, 0.0) for p in plan) for s in kind.answers(params)}
    assert len(outcomes) == 2 * coins


@pytest.mark.parametrize("coins", [10, 20, 31, 152])
def test_dysons_plan_with_a_remainder_needs_at_most_one_more_round(coins: int) -> None:
    kind = get_puzzle("coin_heavy_light")
    params = {"coins": coins}
    t = 1
    while (3**t - 3) // 2 < coins:
        t += 1
    space = PuzzleSpace(kind, params)
    for secret in kind.answers(params)[:: max(1, coins // 10)]:
        after = space
        for p in kind.fixed_plan(params, 2 * t):
            after = after.observe(p, kind.feedback(params, secret, p, 0.0))
        assert after.consistent() == [secret]


def test_the_lying_balance_plan_repeats_relabelled_rounds() -> None:
    kind = get_puzzle("coin_lying")
    params = {"coins": 27, "lie_percent": 10}
    plan = kind.fixed_plan(params, 9)
    assert len(set(plan)) == 9  # rounds after the first shuffle the coins
    assert plan[:3] == get_puzzle("coin_heavy").fixed_plan({"coins": 27}, 3)


def test_number_plans_bisect_and_cover() -> None:
    kind = get_puzzle("number_higher_lower")
    assert kind.fixed_plan({"n": 100}, 7) == ["50", "25", "75", "12", "37", "63", "88"]
    far = get_puzzle("number_far_close")
    params = {"n": 100, "close": 10}
    cover = far.fixed_plan(params, 5)  # 5 windows of 21 cover 0..100
    assert all(any(abs(x - int(p)) <= 10 for p in cover) for x in range(101))
    assert cover == ["10", "31", "52", "73", "94"]


def test_battleship_plans_hit_every_ship_once_the_lattice_is_probed() -> None:
    kind = get_puzzle("battleship_one")
    params = {"rows": 8, "cols": 8, "ship": 3}
    lattice = kind.fixed_plan(params, 22)  # cells with (row + col) % 3 == 0
    for ship in kind.answers(params):
        assert any(kind.feedback(params, ship, cell, 0.0) == "hit" for cell in lattice)
    assert len(set(kind.fixed_plan(params, 64))) == 64


def test_twenty_questions_plans() -> None:
    kind = get_puzzle("twenty_questions")
    easy = {"n": 100, "forms": ["compare", "parity", "divisible", "set"], "set_max": 20}
    assert kind.fixed_plan(easy, 3) == ["<= 51", "<= 26", "<= 76"]
    hard = {"n": 30, "forms": ["divisible", "set"], "set_max": 5}
    plan = kind.fixed_plan(hard, 12)
    assert plan[:3] == ["divisible by 2", "divisible by 3", "divisible by 4"]
    assert "in {1,2,3,4,5}" in plan


def test_the_bandit_plan_pulls_every_arm_in_turn() -> None:
    kind = get_puzzle("bandit")
    assert kind.fixed_plan({"percents": [70, 20, 10]}, 7) == [
        "arm 1",
        "arm 2",
        "arm 3",
        "arm 1",
        "arm 2",
        "arm 3",
        "arm 1",
    ]
