"""Load-Shoot-Defend kinds: the patient shooter (ORACLE's "smart") and bullet maps."""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any, cast

from blackboxes.games._base import Game, GameState
from blackboxes.games._lsd import Bullets, _BulletGame
from blackboxes.games._strategy import (
    History,
    Opponent,
    Params,
    ProductSpace,
    Strategy,
    StratState,
    one,
    register_strategy,
)

__all__ = ["BulletMap", "Patient"]

_LSD_GAMES = ("lsd", "lsd_scout")
_LOAD = "load"


def _game(op: Opponent) -> _BulletGame:
    return cast(_BulletGame, op.game)


@register_strategy
class Patient(Strategy):
    """Loads at least ``m`` times and until the player has shot (or its bullets reach the
    cap); then shoots ``x`` bullets a round while it has ``x``; then loads again, counting
    afresh. ORACLE's "smart" (3 opening loads in games under 10 rounds, else 6; then load
    until the opponent shoots; then shoot 2) is the member (3, 2) or (6, 2) for a given
    game length: here m is one number for all of a box's games.

    Params: (m in 0..6, x); x is 1 in ``lsd``, 1 or 2 in ``lsd_scout``.
    """

    name = "patient"
    title = "patient shooter"

    def applies(self, game: Game) -> bool:
        return game.name in _LSD_GAMES

    def space(self, game: Game, settings: Mapping[str, int]) -> Sequence[Params]:
        cap = game.settings(settings)["max_bullets"]
        sizes = (1,) if game.name == "lsd" else tuple(x for x in (1, 2) if x <= cap)
        return list(itertools.product(range(7), sizes))

    def template_context(self, game: Game, params: Params) -> dict[str, Any]:
        return {"shot": cast(_BulletGame, game).shot(params[1])}

    def describe(self, game: Game, params: Params) -> str:
        m, x = params
        shot = cast(_BulletGame, game).shot(x)
        return (
            f"loads at least {m} times in a row and until the player has shot during those "
            f"loads (or until it holds the maximum of bullets); then plays {shot} every round "
            f"while it has {x} bullet(s); then loads again, counting afresh"
        )

    def _fire(self, op: Opponent, game_state: GameState, ready: bool) -> dict[str, Fraction]:
        s = cast(Bullets, game_state)
        x = op.params[1]
        if s.opp >= x and (ready or s.opp == s.cap):
            return one(_game(op).shot(x))
        return one(_LOAD)

    def initial(self, op: Opponent) -> StratState:
        return ("load", 0, False)

    def distribution(
        self, op: Opponent, strat_state: StratState, game_state: GameState
    ) -> dict[str, Fraction]:
        phase, loads, armed = cast(tuple[str, int, bool], strat_state)
        if phase == "fire":
            return self._fire(op, game_state, True)
        return self._fire(op, game_state, armed and loads >= op.params[0])

    def update(
        self, op: Opponent, strat_state: StratState, player_action: str, opp_action: str
    ) -> StratState:
        game = _game(op)
        if game.is_shot(opp_action):
            return ("fire", 0, False)
        phase, loads, armed = cast(tuple[str, int, bool], strat_state)
        shot = game.is_shot(player_action)
        if phase == "fire":
            return ("load", min(op.params[0], 1), shot)
        return ("load", min(op.params[0], loads + 1), armed or shot)

    def reference(
        self, op: Opponent, history: History, game_state: GameState
    ) -> dict[str, Fraction]:
        game = _game(op)
        shots = [i for i, (_, b) in enumerate(history) if game.is_shot(b)]
        if shots and shots[-1] == len(history) - 1:
            return self._fire(op, game_state, True)
        start = shots[-1] + 1 if shots else 0
        armed = any(game.is_shot(a) for a, _ in history[start:])
        return self._fire(op, game_state, armed and len(history) - start >= op.params[0])


@register_strategy
class BulletMap(Strategy):
    """Plays a fixed action for each of the four cases (player has bullets or not, it has
    bullets or not); a shot or a defence is one bullet's worth.

    Params: the actions for (none, none), (none, some), (some, none), (some, some), as
    (player's, its own).
    """

    name = "bullet_map"
    title = "map of the bullet counts"

    def applies(self, game: Game) -> bool:
        return game.name in _LSD_GAMES

    def space(self, game: Game, settings: Mapping[str, int]) -> Sequence[Params]:
        cap = game.settings(settings)["max_bullets"]
        unarmed = game.opp_actions(Bullets(0, 0, cap))
        armed = game.opp_actions(Bullets(0, 1, cap))
        return ProductSpace([unarmed, armed, unarmed, armed])

    def describe(self, game: Game, params: Params) -> str:
        cases = ("neither side has", "only it has", "only the player has", "both sides have")
        parts = "; ".join(f"when {c} bullets, {a}" for c, a in zip(cases, params, strict=True))
        return f"plays by the bullet counts: {parts}"

    def initial(self, op: Opponent) -> StratState:
        return ()

    def distribution(
        self, op: Opponent, strat_state: StratState, game_state: GameState
    ) -> dict[str, Fraction]:
        s = cast(Bullets, game_state)
        return one(op.params[2 * (s.player > 0) + (s.opp > 0)])

    def update(
        self, op: Opponent, strat_state: StratState, player_action: str, opp_action: str
    ) -> StratState:
        return ()

    def reference(
        self, op: Opponent, history: History, game_state: GameState
    ) -> dict[str, Fraction]:
        # Bullets recounted from the history, not read from the state.
        game = _game(op)
        cap = op.settings["max_bullets"]
        mine = theirs = 0
        for a, b in history:
            mine, theirs = game.after(mine, cap, a), game.after(theirs, cap, b)
        return one(op.params[2 * (mine > 0) + (theirs > 0)])
