"""Exact values: the DP optimum against the brute-force tree walk, the security value,
known optima worked out by hand, and the best response played out."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import pytest

from blackboxes.games import (
    best_response_policy,
    best_response_value,
    brute_force_value,
    expected_score,
    get_game,
    get_strategy,
    matrix_value,
    play_game,
    security_value,
    uniform_policy,
)
from oracle_bench.rng import rng_for
from tests.blackboxes.games._cases import SMALL, case_id, cases

CASES = cases()


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_dp_equals_brute_force_and_bounds(case: tuple) -> None:
    name, kind, settings, params = case
    game, strategy = get_game(name), get_strategy(kind)
    dp = best_response_value(game, settings, strategy, params)
    assert isinstance(dp, Fraction)
    assert dp == brute_force_value(game, settings, strategy, params)
    secure = security_value(game, settings)
    assert dp >= secure - 1e-9 >= -1e-9
    assert dp <= game.rounds(settings) * game.max_round_points
    rand = expected_score(game, settings, strategy, params, uniform_policy(game))
    assert 0 <= rand <= dp


@pytest.mark.parametrize("case", CASES[::3], ids=case_id)
def test_best_response_played_out_scores_the_value(case: tuple) -> None:
    name, kind, settings, params = case
    game, strategy = get_game(name), get_strategy(kind)
    policy = best_response_policy(game, settings, strategy, params)
    rounds = game.rounds(settings)
    if not policy.opponent.mixed:
        record = play_game(game, settings, strategy, params, policy.play)
        assert record.score == policy.value
        return
    # Mixed: the mean over seeded games is the value within 4 standard errors.
    games = 400
    rng = rng_for(7, name, kind, str(params))
    scores = [
        play_game(
            game, settings, strategy, params, policy.play, [rng.random() for _ in range(rounds)]
        ).score
        for _ in range(games)
    ]
    mean = sum(scores) / games
    var = sum((s - mean) ** 2 for s in scores) / (games - 1)
    assert abs(mean - float(policy.value)) <= 4 * math.sqrt(var / games) + 1e-9


# -- exact cases worked out by hand -------------------------------------------------


def test_rps_against_any_cycle_wins_every_round() -> None:
    game, cycle = get_game("rps"), get_strategy("cycle")
    for params in cycle.space(game, {"rounds": 7}):
        assert best_response_value(game, {"rounds": 7}, cycle, params) == 7


@pytest.mark.parametrize("rounds", [8, 10, 12, 15])
def test_rps7_uniform_rock_paper_air_is_two_thirds_per_round(rounds: int) -> None:
    # ORACLE normalises this box by rounds * 3/7; always paper (beats rock and air,
    # ties paper) already earns 2/3 a round, and nothing earns more.
    game, mixed = get_game("rps7"), get_strategy("mixed_subset")
    params = ("rock", "paper", "air")
    settings = {"rounds": rounds}
    value = best_response_value(game, settings, mixed, params)
    assert value == Fraction(2 * rounds, 3) != Fraction(3 * rounds, 7)
    paper = expected_score(game, settings, mixed, params, lambda t, s: {"paper": Fraction(1)})
    assert paper == value


def test_anti_rps_uniform_rock_scissors_is_half_per_round() -> None:
    game, mixed = get_game("anti_rps"), get_strategy("mixed_subset")
    assert best_response_value(game, {"rounds": 10}, mixed, ("rock", "scissors")) == 5


@pytest.mark.parametrize("rounds", [1, 2, 6, 10])
def test_pd_against_tit_for_tat(rounds: int) -> None:
    # Cooperate while it cooperates back, defect in the last round: 3(n-1) + 5.
    game, tft = get_game("pd"), get_strategy("tit_for_tat")
    value = best_response_value(game, {"rounds": rounds}, tft, ("cooperate", 1))
    assert value == 3 * (rounds - 1) + 5
    # The worst case defects always; defecting back earns 1 a round.
    assert security_value(game, {"rounds": rounds}) == pytest.approx(rounds)


@pytest.mark.parametrize("rounds", [1, 4, 10, 15])
def test_pennies_security_is_half(rounds: int) -> None:
    assert security_value(get_game("pennies"), {"rounds": rounds}) == pytest.approx(rounds / 2)


def test_rps_security_is_a_third_per_round() -> None:
    assert security_value(get_game("rps"), {"rounds": 9}) == pytest.approx(3)
    assert security_value(get_game("rps7"), {"rounds": 7}) == pytest.approx(3)


def test_lsd_security_is_zero() -> None:
    # An opponent who always defends can never be beaten: a shot loses to it.
    assert security_value(get_game("lsd"), {"rounds": 8}) == 0


@pytest.mark.parametrize("n", [4, 6, 8])
def test_cards_against_a_known_order_wins_all_but_one(n: int) -> None:
    game, piles = get_game("cards"), get_strategy("piles")
    for params in [(1, (0,), "ascending"), (4, (1, 3, 0, 2), "descending")]:
        assert best_response_value(game, {"cards": n}, piles, params) == n - 1


def test_lsd_scout_defender_cycle_by_hand() -> None:
    # ORACLE's defender: load, load, defend 2, load, defend 1. Only its loads can be
    # shot; the first comes before the player holds a bullet, so 5 rounds give 2 wins.
    game, cycle = get_game("lsd_scout"), get_strategy("cycle")
    params = ("load", "load", "defend 2", "load", "defend 1")
    assert best_response_value(game, {"rounds": 5}, cycle, params) == 2


def test_lsd_optima_are_computed_per_setting() -> None:
    # ORACLE lists LSD maxima by test position; here each game length gets its own.
    game, patient = get_game("lsd_scout"), get_strategy("patient")
    values = [best_response_value(game, {"rounds": r}, patient, (3, 2)) for r in range(4, 13)]
    assert values == sorted(values) and len(set(values)) > 3
    small = {"rounds": 5, "max_bullets": 3}
    assert best_response_value(game, small, patient, (3, 2)) == brute_force_value(
        game, small, patient, (3, 2)
    )


def test_matrix_value() -> None:
    assert matrix_value([[1, 0], [0, 1]]) == pytest.approx(0.5)
    assert matrix_value([[3, 1], [2, 0]]) == 1  # a saddle point
    assert matrix_value([[0, 0, 1], [1, 0, 0], [0, 1, 0]]) == pytest.approx(1 / 3)


def test_security_of_every_game_is_in_range() -> None:
    for name, settings_list in SMALL.items():
        game = get_game(name)
        for settings in settings_list:
            assert 0 <= security_value(game, settings) <= game.rounds(settings)


def test_values_are_deterministic() -> None:
    game, strategy = get_game("rps7"), get_strategy("frequency")
    a = best_response_value(game, {"rounds": 6}, strategy, ("fire", 1, 0))
    b = best_response_value(game, {"rounds": 6}, strategy, ("fire", 1, 0))
    assert a == b
    policy = best_response_policy(game, {"rounds": 6}, strategy, ("fire", 1, 0))
    first = play_game(game, {"rounds": 6}, strategy, ("fire", 1, 0), policy.play)
    again = play_game(game, {"rounds": 6}, strategy, ("fire", 1, 0), policy.play)
    assert first == again


@pytest.mark.parametrize(("name", "rounds"), [("rps", 7), ("rps7", 4), ("pennies", 9)])
def test_frequency_memo_merges_only_alike_counts(name: str, rounds: int) -> None:
    # The DP memoises whole-history counts by clipped gaps to the leader. A deterministic
    # opponent of a win/lose game is beaten every round whatever the memo, so the check
    # is the policy: its action for a merged key must still beat the opponent, from
    # every opening the player may choose.
    game, frequency = get_game(name), get_strategy("frequency")
    settings = {"rounds": rounds}
    for params in frequency.space(game, settings):
        if params[2] != 0:
            continue
        policy = best_response_policy(game, settings, frequency, params)
        assert policy.value == rounds == brute_force_value(game, settings, frequency, params)
        for opening in itertools.product(game.alphabet(settings), repeat=rounds // 2):

            def player(
                t: int, state: object, history: tuple, opening: tuple = opening, policy=policy
            ) -> str:
                return opening[t] if t < len(opening) else policy.play(t, state, history)

            record = play_game(game, settings, frequency, params, player)
            later = record.rounds[len(opening) :]
            assert all(r.player_points == 1 for r in later), (params, opening)
