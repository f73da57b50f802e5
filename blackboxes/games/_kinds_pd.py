"""Prisoner's dilemma kinds: tit-for-tat (tit for k tats) and grim trigger."""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import cast

from blackboxes.games._base import Game, GameState
from blackboxes.games._pd import COOPERATE, DEFECT
from blackboxes.games._strategy import (
    History,
    Opponent,
    Params,
    Strategy,
    StratState,
    one,
    register_strategy,
)

__all__ = ["Grim", "TitForTat"]

_PATIENCE = (1, 2, 3)


@register_strategy
class TitForTat(Strategy):
    """Plays ``first``, then defects exactly when the player defected in each of the last
    ``k`` rounds (k=1: tit-for-tat; first=defect: suspicious tit-for-tat).

    Params: (first, k).
    """

    name = "tit_for_tat"
    title = "tit for k tats"

    def applies(self, game: Game) -> bool:
        return game.name == "pd"

    def space(self, game: Game, settings: Mapping[str, int]) -> Sequence[Params]:
        return list(itertools.product((COOPERATE, DEFECT), _PATIENCE))

    def describe(self, game: Game, params: Params) -> str:
        first, k = params
        after = (
            "the player defected in the previous round"
            if k == 1
            else (f"the player defected in each of the previous {k} rounds")
        )
        return f"plays {first} first, then defects when {after}, else cooperates"

    def initial(self, op: Opponent) -> StratState:
        return None

    def distribution(
        self, op: Opponent, strat_state: StratState, game_state: GameState
    ) -> dict[str, Fraction]:
        if strat_state is None:
            return one(op.params[0])
        return one(DEFECT if cast(int, strat_state) >= op.params[1] else COOPERATE)

    def update(
        self, op: Opponent, strat_state: StratState, player_action: str, opp_action: str
    ) -> StratState:
        run = 0 if strat_state is None else cast(int, strat_state)
        return min(op.params[1], run + 1) if player_action == DEFECT else 0

    def reference(
        self, op: Opponent, history: History, game_state: GameState
    ) -> dict[str, Fraction]:
        k = op.params[1]
        if not history:
            return one(op.params[0])
        recent = [a for a, _ in history[-k:]]
        return one(DEFECT if len(recent) == k and set(recent) == {DEFECT} else COOPERATE)


@register_strategy
class Grim(Strategy):
    """Cooperates until the player has defected ``k`` times in all, then defects for the
    rest of the game.

    Params: (k,).
    """

    name = "grim"
    title = "grim trigger"

    def applies(self, game: Game) -> bool:
        return game.name == "pd"

    def space(self, game: Game, settings: Mapping[str, int]) -> Sequence[Params]:
        return [(k,) for k in _PATIENCE]

    def describe(self, game: Game, params: Params) -> str:
        times = "once" if params[0] == 1 else f"{params[0]} times"
        return f"cooperates until the player has defected {times}, then always defects"

    def initial(self, op: Opponent) -> StratState:
        return 0

    def distribution(
        self, op: Opponent, strat_state: StratState, game_state: GameState
    ) -> dict[str, Fraction]:
        return one(DEFECT if cast(int, strat_state) >= op.params[0] else COOPERATE)

    def update(
        self, op: Opponent, strat_state: StratState, player_action: str, opp_action: str
    ) -> StratState:
        return min(op.params[0], cast(int, strat_state) + (player_action == DEFECT))

    def reference(
        self, op: Opponent, history: History, game_state: GameState
    ) -> dict[str, Fraction]:
        defections = sum(a == DEFECT for a, _ in history)
        return one(DEFECT if defections >= op.params[0] else COOPERATE)
