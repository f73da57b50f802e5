"""Version spaces: the true opponent stays consistent, counts shrink, the factorised
space agrees with the explicit one, predictives and posterior best responses are exact."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import pytest

from blackboxes.games import (
    ExplicitSpace,
    FactorisedSpace,
    Game,
    GameError,
    GameState,
    History,
    best_response_policy,
    get_game,
    get_strategy,
    mixture_space,
    play_game,
    version_space,
)
from tests.blackboxes.games._cases import case_id, cases

SETTINGS = {
    "rps": [{"rounds": 6}, {"rounds": 9}],
    "anti_rps": [{"rounds": 6}],
    "rps7": [{"rounds": 8}, {"rounds": 5}],
    "pennies": [{"rounds": 6}],
    "pd": [{"rounds": 6}, {"rounds": 8}],
    "lsd": [{"rounds": 8, "max_bullets": 3}],
    "lsd_scout": [{"rounds": 8, "max_bullets": 3}, {"rounds": 6, "max_bullets": 3}],
    "cards": [{"cards": 6}, {"cards": 7}],
}


@pytest.mark.parametrize("case", cases(per_kind=2), ids=case_id)
def test_true_opponent_stays_consistent(case: tuple) -> None:
    name, kind, _, params = case
    game, strategy = get_game(name), get_strategy(kind)
    base = SETTINGS[name][0]
    if params not in strategy.space(game, base):
        pytest.skip("parameter of the small settings only")
    space = version_space(game, strategy, base)
    rng = random.Random(case_id(case))
    counts = [space.count()]
    for i in range(3):
        settings = SETTINGS[name][i % len(SETTINGS[name])]
        rounds = game.rounds(settings)
        record = play_game(
            game,
            settings,
            strategy,
            params,
            lambda t, s, h: rng.choice(game.actions(s)),
            [rng.random() for _ in range(rounds)],
        )
        # Mid-game: the predictive gives the opponent's next action positive weight.
        cut = rng.randrange(rounds)
        pred = space.predictive(settings, record.history[:cut])
        assert sum(pred.values()) == 1
        assert pred.get(record.history[cut][1], 0) > 0
        assert space.best_response(settings, record.history[:cut]) in game.actions(
            _state_after(game, settings, record.history[:cut])
        )
        space = space.observe(settings, record.history)
        assert space.contains(params)
        counts.append(space.count())
    assert counts == sorted(counts, reverse=True) and counts[-1] >= 1
    assert space.log2_count() == pytest.approx(math.log2(counts[-1]))


def _state_after(game: Game, settings: dict[str, int], history: History) -> GameState:
    state = game.initial_state(settings)
    for a, b in history:
        state, _ = game.step(state, a, b)
    return state


@pytest.mark.parametrize("name", ["rps", "pennies", "pd", "lsd"])
def test_factorised_reactive_space_equals_the_explicit_one(name: str) -> None:
    game, reactive = get_game(name), get_strategy("reactive")
    settings = SETTINGS[name][0]
    fact = version_space(game, reactive, settings)
    assert isinstance(fact, FactorisedSpace)
    full = ExplicitSpace(game, reactive, settings)
    rng = random.Random(name)
    truth = reactive.space(game, settings)[rng.randrange(fact.count())]
    for _ in range(2):
        record = play_game(
            game, settings, reactive, truth, lambda t, s, h: rng.choice(game.actions(s))
        )
        for cut in range(game.rounds(settings)):
            history = record.history[:cut]
            assert fact.predictive(settings, history) == full.predictive(settings, history)
            assert fact.best_response(settings, history) == full.best_response(settings, history)
        fact, full = fact.observe(settings, record.history), full.observe(settings, record.history)
        assert fact.count() == full.count()
        assert sorted(p for p, _ in full.weights) == sorted(
            p for p in reactive.space(game, settings) if fact.contains(p)
        )


def test_reactive_rps7_space_is_factorised_and_exact() -> None:
    game, reactive = get_game("rps7"), get_strategy("reactive")
    space = version_space(game, reactive, {"rounds": 8})
    assert space.count() == 7**8
    history = (("rock", "fire"), ("paper", "fire"), ("rock", "water"))
    space = space.observe({"rounds": 3}, history)
    # first = fire; rock -> fire; paper -> water: 7**5 maps left.
    assert space.count() == 7**5
    pred = space.predictive({"rounds": 8}, (("paper", "fire"),))
    assert pred == {"water": 1}
    reply = space.best_response({"rounds": 8}, (("paper", "fire"),), "round")
    assert game.resolve((), reply, "water").player_points == 1
    assert space.observe({"rounds": 1}, (("rock", "air"),)).count() == 0


def test_mixed_posterior_weights_are_likelihoods() -> None:
    game, weights = get_game("pennies"), get_strategy("mixed_weights")
    space = version_space(game, weights, {"rounds": 4})
    history = (("heads", "heads"), ("heads", "heads"), ("heads", "tails"))
    space = space.observe({"rounds": 4}, history)
    assert isinstance(space, ExplicitSpace)
    # P(h, h, t | p) = p^2 (1 - p) for p = 1/4, 1/2, 3/4 (0 and 1 are ruled out).
    got = {p: w for p, w in space.weights}
    want = {(k, 4 - k): Fraction(k, 4) ** 2 * Fraction(4 - k, 4) for k in (1, 2, 3)}
    assert got == want
    total = sum(want.values())
    pred = space.predictive({"rounds": 4}, ())
    assert pred["heads"] == sum(w * Fraction(k, 4) for (k, _), w in want.items()) / total
    assert 0 < space.entropy_bits() < math.log2(3)


def test_best_response_to_a_certain_posterior_is_the_optimum() -> None:
    # Once the space is down to the truth, the posterior best response is the DP's.
    game, cycle = get_game("lsd_scout"), get_strategy("cycle")
    truth = ("load", "load", "defend 2", "load", "defend 1")
    settings = {"rounds": 10, "max_bullets": 8}
    rng = random.Random(5)
    space = version_space(game, cycle, settings)
    while space.count() > 1:
        record = play_game(
            game, settings, cycle, truth, lambda t, s, h: rng.choice(game.actions(s))
        )
        space = space.observe(settings, record.history)
    policy = best_response_policy(game, settings, cycle, truth)
    record = play_game(
        game, settings, cycle, truth, lambda t, s, h: space.best_response(settings, h)
    )
    assert record.score == policy.value


def test_observing_a_broken_history_is_refused() -> None:
    game, cycle = get_game("lsd"), get_strategy("cycle")
    space = version_space(game, cycle, {"rounds": 4, "max_bullets": 3})
    with pytest.raises(GameError):
        space.observe({"rounds": 4, "max_bullets": 3}, (("shoot", "load"),))
    with pytest.raises(GameError):
        space.observe({"rounds": 1, "max_bullets": 3}, (("load", "load"), ("load", "load")))
    with pytest.raises(GameError):
        version_space(game, get_strategy("tit_for_tat"), {})


def test_information_is_what_a_move_would_reveal_next_round() -> None:
    """Reactive RPS maps, nothing known: this round's reply (the opening, 3 ways) and the
    next (the reply to the move, 3 ways) are independent, log2 9 bits for any move. Once
    the reply to rock is known, moving to rock reveals only this round's reply, and
    staying on paper (the same entry as this round's) no more."""
    game = get_game("rps")
    settings = {"rounds": 6}
    mix = mixture_space(game, ["reactive"], settings)
    assert mix.information(settings, ()) == dict.fromkeys(game.alphabet(settings), 3.169925001)
    seen = (("rock", "paper"), ("paper", "scissors"))  # the reply to rock is scissors
    info = mix.information(settings, seen)
    assert info == {"rock": 1.584962501, "paper": 1.584962501, "scissors": 3.169925001}


def test_information_leaves_out_an_opponents_own_dice() -> None:
    """A stationary mixed opponent answers every move alike, so every move is worth the
    same; a single known one is worth nothing, however random its play."""
    game = get_game("rps")
    settings = {"rounds": 6}
    mix = mixture_space(game, ["mixed_subset"], settings)
    info = mix.information(settings, ())
    assert len(set(info.values())) == 1 and 0 < next(iter(info.values())) < math.log2(9)
    known = mix.observe(settings, tuple(("rock", b) for b in ("rock", "paper", "scissors")))
    assert known.count() == 1
    assert set(known.information(settings, ()).values()) == {0.0}


def test_factorised_and_explicit_outlooks_agree() -> None:
    game, strategy = get_game("pennies"), get_strategy("reactive")
    settings = {"rounds": 6}
    factorised = version_space(game, strategy, settings)
    explicit = ExplicitSpace(game, strategy, settings)
    for history in [(), (("heads", "tails"),), (("heads", "tails"), ("tails", "heads"))]:
        got, want = factorised.outlook(settings, history), explicit.outlook(settings, history)
        assert got.keys() == want.keys()
        for a in got:
            assert got[a][1] == want[a][1] == 0.0
            assert got[a][0].keys() == want[a][0].keys()
            for key, p in got[a][0].items():
                assert p == pytest.approx(want[a][0][key], abs=1e-12)
