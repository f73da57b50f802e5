"""Seeded mixed kinds: the opponent draws each action afresh from hidden probabilities,
using the caller's uniform ``u`` of the round (never a random generator of its own)."""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from blackboxes.games._base import Game, GameState
from blackboxes.games._strategy import (
    History,
    Opponent,
    Params,
    Strategy,
    StratState,
    one,
    register_strategy,
    uniform,
)

__all__ = ["WEIGHT_GRID", "MixedSubset", "MixedWeights"]

WEIGHT_GRID = 4
"""``mixed_weights`` probabilities are multiples of 1/WEIGHT_GRID."""


class _Stationary(Strategy):
    """A mixed kind whose distribution ignores the history."""

    mixed = True

    def initial(self, op: Opponent) -> StratState:
        return ()

    def update(
        self, op: Opponent, strat_state: StratState, player_action: str, opp_action: str
    ) -> StratState:
        return ()

    def reference(
        self, op: Opponent, history: History, game_state: GameState
    ) -> dict[str, Fraction]:
        return self.distribution(op, (), game_state)


@register_strategy
class MixedSubset(_Stationary):
    """Each round, uniform over a hidden nonempty subset of actions (in Load-Shoot-Defend
    over the members it can afford; a load when it can afford none).

    Params: the subset, in the game's order.
    """

    name = "mixed_subset"
    title = "uniform over a hidden subset"

    def applies(self, game: Game) -> bool:
        return bool(game.cycle_alphabet(game.defaults))

    def space(self, game: Game, settings: Mapping[str, int]) -> Sequence[Params]:
        alphabet = game.cycle_alphabet(settings)
        return [
            subset
            for size in range(1, len(alphabet) + 1)
            for subset in itertools.combinations(alphabet, size)
        ]

    def describe(self, game: Game, params: Params) -> str:
        extra = "" if game.stateless else " it can afford (load when none)"
        return f"each round plays uniformly at random one of {', '.join(params)}{extra}"

    def distribution(
        self, op: Opponent, strat_state: StratState, game_state: GameState
    ) -> dict[str, Fraction]:
        legal = op.game.opp_actions(game_state)
        members = [a for a in op.params if a in legal]
        return uniform(members) if members else one(op.game.substitute(game_state, op.params[0]))


@register_strategy
class MixedWeights(_Stationary):
    """Each round, fixed hidden probabilities on a grid of 1/WEIGHT_GRID.

    Params: one numerator per action in the game's order, summing to WEIGHT_GRID.
    """

    name = "mixed_weights"
    title = "fixed hidden probabilities"

    def applies(self, game: Game) -> bool:
        return game.stateless

    def space(self, game: Game, settings: Mapping[str, int]) -> Sequence[Params]:
        # Stars and bars: k - 1 bars among WEIGHT_GRID + k - 1 places.
        k = len(game.alphabet(settings))
        out = []
        for bars in itertools.combinations(range(WEIGHT_GRID + k - 1), k - 1):
            edges = (-1, *bars, WEIGHT_GRID + k - 1)
            out.append(tuple(edges[i + 1] - edges[i] - 1 for i in range(k)))
        return sorted(out, reverse=True)

    def template_context(self, game: Game, params: Params) -> dict[str, Any]:
        return {"grid": WEIGHT_GRID}

    def describe(self, game: Game, params: Params) -> str:
        order = game.alphabet(game.defaults)
        parts = [
            f"{a} with probability {Fraction(w, WEIGHT_GRID)}"
            for a, w in zip(order, params, strict=True)
            if w
        ]
        return "each round plays " + ", ".join(parts)

    def distribution(
        self, op: Opponent, strat_state: StratState, game_state: GameState
    ) -> dict[str, Fraction]:
        order = op.game.alphabet(op.settings)
        return {a: Fraction(w, WEIGHT_GRID) for a, w in zip(order, op.params, strict=True) if w}
