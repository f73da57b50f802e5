"""Strategy kinds: the machine agrees with the history-based reference, distributions
are legal and exact, ``act`` inverts the CDF, spaces are exact and duplicate-free."""

from __future__ import annotations

import json
import math
import random
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from blackboxes.games import (
    LEVEL_PAIRS,
    GameError,
    ProductSpace,
    get_game,
    get_strategy,
    pairs,
    params_from_json,
    params_to_json,
    strategy_names,
)
from oracle_bench.errors import UnknownNameError
from tests.blackboxes.games._cases import SMALL, case_id, cases

CASES = cases(per_kind=4)
DEFAULTS = {
    "rps": {"rounds": 10},
    "anti_rps": {"rounds": 10},
    "rps7": {"rounds": 10},
    "pennies": {"rounds": 10},
    "pd": {"rounds": 10},
    "lsd": {"rounds": 12, "max_bullets": 3},
    "lsd_scout": {"rounds": 12, "max_bullets": 3},
    "cards": {"cards": 9},
}


def _playout(name: str, kind: str, settings: dict[str, int], params: tuple, rng: random.Random):
    """Play random player actions against the opponent; at every round check the machine
    against the reference and the distribution against the rules."""
    game, strategy = get_game(name), get_strategy(kind)
    op = strategy.bind(game, settings, params)
    state, s = game.initial_state(settings), op.initial()
    history: tuple = ()
    for _ in range(game.rounds(settings)):
        dist = op.distribution(s, state)
        assert dist == op.reference(history, state)
        assert sum(dist.values()) == 1 and all(p > 0 for p in dist.values())
        assert set(dist) <= set(game.opp_actions(state))
        assert all(isinstance(p, Fraction) for p in dist.values())
        hash(s)
        u = rng.random()
        b = op.act(s, state, u)
        assert dist[b] > 0
        a = rng.choice(game.actions(state))
        history = (*history, (a, b))
        s = op.update(s, a, b)
        state, _ = game.step(state, a, b)
    assert op.replay(history) == s


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_machine_matches_reference_on_random_games(case: tuple) -> None:
    name, kind, _, params = case
    settings = DEFAULTS[name]
    if params not in get_strategy(kind).space(get_game(name), settings):
        pytest.skip("parameter of the small settings only")
    rng = random.Random(f"{case_id(case)}")
    for _ in range(3):
        _playout(name, kind, settings, params, rng)


@hsettings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_machine_matches_reference_property(data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(sorted(DEFAULTS)))
    game = get_game(name)
    kind = data.draw(st.sampled_from(strategy_names(game)))
    settings = DEFAULTS[name]
    space = get_strategy(kind).space(game, settings)
    params = space[data.draw(st.integers(0, len(space) - 1))]
    _playout(name, kind, settings, params, random.Random(data.draw(st.integers(0, 2**32))))


def test_act_is_the_inverse_cdf() -> None:
    game, mixed = get_game("rps7"), get_strategy("mixed_weights")
    op = mixed.bind(game, {"rounds": 5}, (1, 0, 0, 2, 0, 0, 1))  # rock 1/4, sponge 1/2, water 1/4
    picks = [op.act((), (), u) for u in (0.0, 0.2499, 0.25, 0.7499, 0.75, 0.9999)]
    assert picks == ["rock", "rock", "sponge", "sponge", "water", "water"]
    for bad in (1.0, -0.1):
        with pytest.raises(GameError):
            op.act((), (), bad)


@pytest.mark.parametrize("name", sorted(SMALL))
def test_spaces_are_duplicate_free_and_deterministic(name: str) -> None:
    game = get_game(name)
    for kind in strategy_names(game):
        strategy = get_strategy(kind)
        for settings in (*SMALL[name], DEFAULTS[name]):
            space = strategy.space(game, settings)
            if isinstance(space, ProductSpace):
                assert len(space) == math.prod(len(d) for d in space.domains)
                assert space[len(space) - 1] in space and space[0] in space
                continue
            assert len(set(space)) == len(space) > 0
            assert list(space) == list(strategy.space(game, settings))
            assert strategy.log2_size(game, settings) == pytest.approx(math.log2(len(space)))


def test_known_space_sizes() -> None:
    rps, rps7 = get_game("rps"), get_game("rps7")
    rounds = {"rounds": 10}
    # Primitive words of length <= 4 over 3 letters: 3 + 6 + 24 + 72.
    assert len(get_strategy("cycle").space(rps, rounds)) == 105
    assert len(get_strategy("tour").space(rps7, rounds)) == 5040
    assert len(get_strategy("reactive").space(rps7, rounds)) == 7**8
    assert len(get_strategy("mixed_subset").space(rps7, rounds)) == 127
    assert len(get_strategy("mixed_weights").space(rps7, rounds)) == math.comb(10, 6)
    assert len(get_strategy("beat_last").space(rps7, rounds)) == 21
    assert len(get_strategy("trigger").space(rps7, rounds)) == 7 * 7 * 6
    # Cycles of at most 3 (3 + 6 + 24) or 2 (7 + 42) actions, 4 patiences, n shifts.
    assert len(get_strategy("wary").space(rps, rounds)) == 33 * 4 * 3
    assert len(get_strategy("wary").space(rps7, rounds)) == 49 * 4 * 7
    assert len(get_strategy("reactive_pair").space(rps, rounds)) == 3 ** (2 + 9)
    assert not get_strategy("reactive_pair").applies(rps7)


def test_lsd_cycles_are_legal_forever_and_include_oracles() -> None:
    game = get_game("lsd_scout")
    space = get_strategy("cycle").space(game, {"max_bullets": 8})
    assert ("load", "load", "defend 2", "load", "defend 1") in space  # defender
    assert ("load", "load", "shoot 2", "load", "shoot 1") in space  # attacker
    assert ("load", "load", "shoot 1", "defend 1") in space  # balance
    assert ("shoot 1",) not in space and ("load", "shoot 1", "shoot 1") not in space


def test_piles_drop_only_cuts_that_play_like_coarser_ones() -> None:
    piles = get_strategy("piles")
    space = piles.space(get_game("cards"), {"cards": 8})
    assert (4, (1, 3, 0, 2), "random") in space  # ORACLE's slice: b, d, a, c
    assert (2, (0, 1), "ascending") not in space  # plays like one ascending pile
    assert (4, (2, 3, 0, 1), "ascending") not in space  # like 2 piles, upper first
    assert (2, (1, 0), "ascending") in space and (2, (0, 1), "random") in space
    # The same parameters for every deck size: a box's games differ in size.
    assert space == piles.space(get_game("cards"), {"cards": 12})


def test_params_json_round_trip_and_bind() -> None:
    game, piles = get_game("cards"), get_strategy("piles")
    params = (4, (1, 3, 0, 2), "random")
    text = json.dumps(params_to_json(params))
    assert params_from_json(json.loads(text)) == params
    assert piles.bind(game, {"cards": 8}, json.loads(text)).params == params
    with pytest.raises(GameError):
        piles.bind(game, {"cards": 8}, (5, (0,), "random"))
    with pytest.raises(GameError):
        get_strategy("tit_for_tat").bind(get_game("rps"), {}, ("cooperate", 1))


def test_descriptions_are_neutral_text() -> None:
    for name in sorted(SMALL):
        game = get_game(name)
        for kind in strategy_names(game):
            strategy = get_strategy(kind)
            for params in strategy.space(game, DEFAULTS[name])[:3]:
                text = strategy.describe(game, params)
                assert text and "\n" not in text and "{" not in text


def test_registry_and_levels() -> None:
    with pytest.raises(UnknownNameError):
        get_strategy("nonsense")
    assert get_strategy("CYCLE") is get_strategy("cycle")
    for level in ("easy", "hard"):
        kinds = {kind for _, kind in pairs(level)}
        assert len(kinds) >= 8
        for name, kind in LEVEL_PAIRS[level]:
            assert get_strategy(kind).applies(get_game(name))
    with pytest.raises(GameError):
        pairs("medium")


def test_oracle_opponents_are_members() -> None:
    rps7 = get_game("rps7")
    # rps7_cycle: rock, paper, scissors, fire, water, air, sponge in order.
    oracle_cycle = ("rock", "paper", "scissors", "fire", "water", "air", "sponge")
    assert oracle_cycle in get_strategy("tour").space(rps7, {})
    # rps7_imitate_last: fire, air, then the player's move before last.
    assert ("fire", "air") in get_strategy("copy_two_back").space(rps7, {})
    # rps7_mapping: rock->fire, paper->water, scissors->air, fire->sponge, ...
    mapping = {"rock": "fire", "paper": "water", "scissors": "air", "fire": "sponge"}
    mapping |= {"water": "rock", "air": "paper", "sponge": "scissors"}
    params = ("rock", *(mapping[a] for a in rps7.alphabet({})))
    assert params in get_strategy("reactive").space(rps7, {})
    assert ("rock", "scissors") in get_strategy("mixed_subset").space(get_game("anti_rps"), {})
    assert (0, "up") in get_strategy("median").space(get_game("cards"), {"cards": 10})
