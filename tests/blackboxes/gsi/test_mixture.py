"""The agents' prior over opponents of unknown kind: a mixture of the level's kinds."""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction

import pytest

from blackboxes.games import (
    Game,
    GameError,
    GameState,
    History,
    MixtureSpace,
    get_game,
    get_strategy,
    mixture_space,
    pairs,
    play_game,
    version_space,
)

SMALL = {
    "rps": {"rounds": 5},
    "rps7": {"rounds": 4},
    "anti_rps": {"rounds": 5},
    "pennies": {"rounds": 5},
    "pd": {"rounds": 5},
    "lsd": {"rounds": 6, "max_bullets": 8},
    "lsd_scout": {"rounds": 5, "max_bullets": 8},
    "cards": {"cards": 5},
}


def _kinds(level: str, game: str) -> list[str]:
    return [s for g, s in pairs(level) if g == game]


def _state_after(game: Game, settings: dict[str, int], history: History) -> GameState:
    state = game.initial_state(settings)
    for a, b in history:
        state, _ = game.step(state, a, b)
    return state


@pytest.mark.parametrize(("level", "name"), [(lv, g) for lv in ("easy", "hard") for g in SMALL])
def test_the_true_opponent_stays_possible_and_the_predictive_is_a_distribution(
    level: str, name: str
) -> None:
    game, settings = get_game(name), SMALL[name]
    rng = random.Random(f"{level}/{name}")
    for kind in _kinds(level, name):
        strategy = get_strategy(kind)
        space = strategy.space(game, settings)
        params = space[rng.randrange(len(space))]
        mix = mixture_space(game, _kinds(level, name), settings)
        before = mix.count()
        for _ in range(2):
            rounds = game.rounds(settings)
            record = play_game(
                game,
                settings,
                strategy,
                params,
                lambda t, s, h: rng.choice(game.actions(s)),
                [rng.random() for _ in range(rounds)],
            )
            cut = rng.randrange(rounds)
            pred = mix.predictive(settings, record.history[:cut])
            assert sum(pred.values()) == 1
            assert pred.get(record.history[cut][1], 0) > 0
            reply = mix.best_response(settings, record.history[:cut], horizon="round")
            assert reply in game.actions(_state_after(game, settings, record.history[:cut]))
            mix = mix.observe(settings, record.history)
            assert mix.contains(kind, params)
            weights = mix.kind_weights()
            assert sum(weights.values()) == 1 and weights[kind] > 0
        assert 1 <= mix.count() <= before
        assert mix.log2_count() == pytest.approx(math.log2(mix.count()))
        assert 0 <= mix.entropy_bits() <= mix.log2_count() + 1e-9


def _likelihood(
    game: Game, settings: dict[str, int], kind: str, params: tuple, h: History
) -> Fraction:
    """The history-based reference's probability of the opponent's observed actions."""
    op = get_strategy(kind).bind(game, settings, params)
    p = Fraction(1)
    for t, (_, b) in enumerate(h):
        p *= op.reference(h[:t], _state_after(game, settings, h[:t])).get(b, Fraction(0))
    return p


def test_kind_weights_predictive_and_posterior_match_brute_force() -> None:
    game, settings = get_game("rps"), {"rounds": 4}
    kinds = ["cycle", "beat_last", "copy_last", "mixed_subset", "frequency"]
    games = [
        (("rock", "paper"), ("paper", "scissors"), ("paper", "rock"), ("rock", "rock")),
        (("scissors", "paper"), ("rock", "scissors")),
    ]
    current: History = (("paper", "paper"),)
    mix = mixture_space(game, kinds, settings)
    for h in games:
        mix = mix.observe(settings, h)
    # Brute force: prior 1/K per kind, uniform within; the joint weight of (kind, params)
    # is its prior times the likelihood of every observed game and of the current one.
    joint: dict[tuple[str, tuple], Fraction] = {}
    for kind in kinds:
        space = get_strategy(kind).space(game, settings)
        for params in space:
            w = Fraction(1, len(kinds) * len(space))
            for h in (*games, current):
                w *= _likelihood(game, settings, kind, params, h)
            if w:
                joint[kind, params] = w
    total = sum(joint.values())
    marginal = {
        k: sum((w for (kk, _), w in joint.items() if kk == k), Fraction(0)) / total for k in kinds
    }
    assert mix.kind_weights(settings, current) == marginal
    post = mix.posterior(settings, current, 10_000)
    assert post is not None
    assert {(k, p): w for k, p, w in post} == {key: w / total for key, w in joint.items()}
    predictive: dict[str, Fraction] = {}
    for (kind, params), w in joint.items():
        op = get_strategy(kind).bind(game, settings, params)
        for b, p in op.reference(current, ()).items():
            predictive[b] = predictive.get(b, Fraction(0)) + w / total * p
    assert mix.predictive(settings, current) == {b: p for b, p in predictive.items() if p}
    top = mix.top(3, settings, current)
    ranked = sorted(joint.values(), reverse=True)[:3]
    assert [w for _, _, w in top] == [w / total for w in ranked]


def test_a_mixture_of_one_kind_is_that_kinds_space() -> None:
    game, settings = get_game("rps7"), {"rounds": 5}
    h = (("rock", "air"), ("fire", "rock"), ("water", "rock"))
    alone = version_space(game, get_strategy("beat_last"), settings).observe(settings, h)
    mix = mixture_space(game, ["beat_last"], settings).observe(settings, h)
    assert mix.count() == alone.count()
    assert mix.predictive(settings, h[:1]) == alone.predictive(settings, h[:1])
    assert mix.best_response(settings, h[:2]) == alone.best_response(settings, h[:2])


def test_the_game_horizon_best_response_wins_against_a_known_cycle() -> None:
    game, settings = get_game("rps"), {"rounds": 6}
    mix = mixture_space(game, ["cycle", "copy_last"], settings)
    seen = (("rock", "paper"), ("rock", "rock"), ("rock", "paper"), ("rock", "rock"))
    mix = mix.observe(settings, (*seen, ("rock", "paper"), ("rock", "rock")))
    # Only the cycle paper, rock is left: beat paper, then rock, in turn.
    assert mix.top(5) == [("cycle", ("paper", "rock"), Fraction(1))]
    history: History = ()
    for t in range(6):
        mine = mix.best_response(settings, history)
        theirs = ("paper", "rock")[t % 2]
        assert game.resolve((), mine, theirs).player_points == 1
        history = (*history, (mine, theirs))
    with pytest.raises(GameError, match="over"):
        mix.best_response(settings, history)


def test_a_factorised_kind_is_ranked_without_listing_its_space() -> None:
    game, settings = get_game("rps7"), {"rounds": 10}
    mix = mixture_space(game, ["reactive", "frequency", "trigger"], settings)
    assert mix.count() == 7**8 + 7 * 3 * 2 + 7 * 7 * 6
    top = mix.top(4)
    assert len(top) == 4 and all(w == top[0][2] for _, _, w in top)
    assert top[0][0] == "frequency"  # 1/3 over 42 beats 1/3 over 294 and over 7**8
    assert mix.posterior(settings, (), 512) is None  # too many for the game horizon
    assert mix.best_response(settings, ()) in game.actions(())


def test_an_emptied_mixture_says_so() -> None:
    game, settings = get_game("pd"), {"rounds": 4}
    mix = mixture_space(game, ["grim"], settings)
    # Grim never defects first: a defection with no provocation fits no parameter.
    empty = mix.observe(settings, (("cooperate", "defect"),))
    assert empty.count() == 0 and empty.log2_count() == -math.inf
    assert empty.kind_weights() == {} and empty.predictive(settings, ()) == {}
    assert empty.top(3) == []


def test_bad_mixtures_are_refused() -> None:
    game = get_game("rps")
    with pytest.raises(GameError):
        MixtureSpace(game, [])
    space = version_space(game, get_strategy("cycle"), {"rounds": 3})
    with pytest.raises(GameError, match="twice"):
        MixtureSpace(game, [space, space])
    with pytest.raises(GameError, match="not in this mixture"):
        mixture_space(game, ["cycle"], {"rounds": 3}).component("copy_last")
    assert not mixture_space(game, ["cycle"], {"rounds": 3}).contains("copy_last", ("rock",))


def test_the_level_mixture_counts_every_kind_of_the_game() -> None:
    for level, name in itertools.product(("easy", "hard"), SMALL):
        game, settings = get_game(name), SMALL[name]
        mix = mixture_space(game, _kinds(level, name), settings)
        sizes = [len(get_strategy(k).space(game, settings)) for k in _kinds(level, name)]
        assert mix.count() == sum(sizes)
        assert mix.kind_weights() == {k: Fraction(1, len(sizes)) for k in _kinds(level, name)}


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("rps", "reactive_memory"),
        ("pd", "reactive_memory"),
        ("rps7", "reactive"),
        ("rps", "reactive_pair"),
    ],
)
def test_the_average_opponent_plays_the_posterior_predictive(name: str, kind: str) -> None:
    game, strategy = get_game(name), get_strategy(kind)
    settings = game.settings({"rounds": 12})
    space = version_space(game, strategy, settings)
    rng = random.Random(f"{name}/{kind}")
    truth = strategy.space(game, settings)[rng.randrange(len(strategy.space(game, settings)))]

    def play() -> History:
        player = lambda t, s, h: rng.choice(game.actions(s))  # noqa: E731
        return play_game(game, settings, strategy, truth, player, [0.5] * 12).history

    seen = space.observe(settings, play())
    later = play()
    for cut in range(8):
        history = later[:cut]
        mean = seen.mean_opponent(settings, history)
        assert mean is not None
        state = _state_after(game, settings, history)
        # Drawn afresh per visit, the average opponent's next reply is the predictive.
        assert mean.distribution(mean.replay(history), state) == seen.predictive(settings, history)


def test_with_too_many_maps_the_best_response_steers_by_the_known_replies() -> None:
    game = get_game("rps")
    settings = game.settings({"rounds": 10})
    mix = mixture_space(game, _kinds("hard", "rps"), settings)
    strategy = get_strategy("reactive_memory")
    order = game.alphabet(settings)
    # Rock three times, then scissors after rock, rock, rock and paper after anything else.
    replies = [
        "scissors" if c == ("rock",) * 3 else "paper" for c in itertools.product(order, repeat=3)
    ]
    truth = ("rock", "rock", "rock", *replies)
    record = play_game(game, settings, strategy, truth, lambda t, s, h: "rock", [0.5] * 10)
    after = mix.observe(settings, record.history)
    weights = after.kind_weights(settings)
    assert weights["reactive_memory"] > 0 and after.count() > 512
    opening = record.history[:3]
    # Rock beats the known reply to rock, rock, rock and keeps the context: win after win.
    assert after.best_response(settings, opening) == "rock"
