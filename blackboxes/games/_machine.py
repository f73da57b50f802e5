"""Designed opponents: a finite-state machine an LLM designer wrote (``--design llm``).

A machine plays a game whose actions are always legal (the stateless games: rock-paper-
scissors and its variants, matching pennies, the prisoner's dilemma). It has up to
:data:`MAX_STATES` states and starts in the first; in each state it draws its action from
integer weights (one action: a pure state), then moves to the state its table names for
the player's action of the round. That is every strategy whose memory is finite, the
catalogue's tit-for-tat, grim trigger, cycles and reactive maps among them, so a designer
can invent opponents the catalogue lacks while the exact optimum (dynamic programming
over the machine's states) stays computable.

The machine is not a registered kind: no level draws it and no agents' prior holds it;
it exists only as the hidden opponent of a designed box. Its parameters are
``((plays, moves), ...)`` per state, ``plays`` the ``(action, weight)`` pairs with a
positive weight and ``moves`` the ``(player action, next state)`` pairs, both in the
game's order (:func:`machine_params` builds them from a designer's JSON).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any, cast

from blackboxes.games._base import Game, GameError, GameState
from blackboxes.games._strategy import (
    History,
    Opponent,
    Params,
    Strategy,
    StratState,
    params_from_json,
)

__all__ = ["MACHINE", "MAX_STATES", "MAX_WEIGHT", "Machine", "machine_params", "machine_table"]

MAX_STATES = 16
"""Most states a designed machine may have."""
MAX_WEIGHT = 1000
"""Largest integer weight of one action in a state."""


def _fail(message: str) -> GameError:
    return GameError(f"machine: {message}")


def machine_params(game: Game, states: object) -> Params:
    """The parameters of the machine a designer wrote as JSON: a list of states, each
    ``{"play": {action: weight, ...}, "next": {player action: state index, ...}}``
    (indices from 0; the first state is the start). GameError says what is wrong."""
    if not game.stateless:
        raise _fail(f"{game.name} has actions that are not always legal; machines play games")
    if not isinstance(states, list) or not 1 <= len(states) <= MAX_STATES:
        raise _fail(f"the states are a list of 1 to {MAX_STATES} objects")
    order = game.alphabet(game.settings())
    out = []
    for i, state in enumerate(states):
        if not isinstance(state, Mapping) or set(state) != {"play", "next"}:
            raise _fail(f"state {i} is an object with exactly the keys play and next")
        play, moves = state["play"], state["next"]
        if not isinstance(play, Mapping) or not play:
            raise _fail(f"state {i}: play maps actions to positive integer weights")
        for action, weight in play.items():
            if action not in order:
                raise _fail(f"state {i} plays {str(action)[:40]!r}: actions are {', '.join(order)}")
            if isinstance(weight, bool) or not isinstance(weight, int):
                raise _fail(f"state {i}: the weight of {action} is an integer")
            if not 1 <= weight <= MAX_WEIGHT:
                raise _fail(f"state {i}: the weight of {action} is 1..{MAX_WEIGHT}, not {weight}")
        if not isinstance(moves, Mapping) or set(moves) != set(order):
            raise _fail(f"state {i}: next names a state for each of {', '.join(order)}")
        for action, target in moves.items():
            if isinstance(target, bool) or not isinstance(target, int):
                raise _fail(f"state {i}: next[{action}] is a state index")
            if not 0 <= target < len(states):
                raise _fail(
                    f"state {i}: next[{action}] = {target} is no state (0..{len(states) - 1})"
                )
        out.append(
            (
                tuple((a, play[a]) for a in order if a in play),
                tuple((a, moves[a]) for a in order),
            )
        )
    return tuple(out)


def machine_table(params: Params) -> list[dict[str, Any]]:
    """The machine back as the designer's JSON (what the box code template bakes in)."""
    return [
        {"play": dict(plays), "next": dict(moves)}
        for plays, moves in cast(Sequence[tuple[Params, Params]], params)
    ]


def _check(game: Game, params: Params) -> Params:
    """``params`` (from JSON or not) as a valid machine of ``game``."""
    try:
        return machine_params(game, machine_table(params_from_json(params)))
    except (TypeError, ValueError) as exc:  # a malformed tuple from a hostile file
        if isinstance(exc, GameError):
            raise
        raise _fail("the parameters are no machine") from None


def _fractions(plays: Params) -> dict[str, Fraction]:
    total = sum(w for _, w in plays)
    return {a: Fraction(w, total) for a, w in plays}


class Machine(Strategy):
    """A designed finite-state opponent (see the module docstring)."""

    name = "machine"
    title = "a designed finite-state machine"
    mixed = True

    def applies(self, game: Game) -> bool:
        return game.stateless

    def space(self, game: Game, settings: Mapping[str, int]) -> Sequence[Params]:
        raise GameError("machine opponents are designed, never drawn from a space")

    def log2_size(self, game: Game, settings: Mapping[str, int]) -> float:
        raise GameError("machine opponents are designed: they have no space to count")

    def randomises(self, params: Params) -> bool:
        return any(len(plays) > 1 for plays, _ in params)

    def bind(self, game: Game, settings: Mapping[str, int], params: Params) -> Opponent:
        """The machine as an opponent in ``game``; a malformed machine is refused."""
        checked = game.settings(settings)
        return Opponent(self, game, tuple(sorted(checked.items())), _check(game, params))

    def describe(self, game: Game, params: Params) -> str:
        parts = []
        for i, (plays, moves) in enumerate(params):
            dist = _fractions(plays)
            if len(dist) == 1:
                play = f"plays {next(iter(dist))}"
            else:
                play = "plays " + ", ".join(f"{a} with probability {p}" for a, p in dist.items())
            targets = ", ".join(f"to state {t} after the player's {a}" for a, t in moves)
            parts.append(f"state {i}: {play}, then goes {targets}")
        return (
            f"is a machine of {len(params)} state(s) that starts in state 0 ("
            + "; ".join(parts)
            + ")"
        )

    def template_context(self, game: Game, params: Params) -> dict[str, Any]:
        return {"machine": machine_table(params)}

    def initial(self, op: Opponent) -> StratState:
        return 0

    def distribution(
        self, op: Opponent, strat_state: StratState, game_state: GameState
    ) -> dict[str, Fraction]:
        return _fractions(op.params[cast(int, strat_state)][0])

    def update(
        self, op: Opponent, strat_state: StratState, player_action: str, opp_action: str
    ) -> StratState:
        return dict(op.params[cast(int, strat_state)][1])[player_action]

    def reference(
        self, op: Opponent, history: History, game_state: GameState
    ) -> dict[str, Fraction]:
        # The machine is its own definition: the history walked through its table.
        state = 0
        for player_action, _ in history:
            state = dict(op.params[state][1])[player_action]
        return _fractions(op.params[state][0])


MACHINE = Machine()
"""The one machine strategy (unregistered: designed boxes name it explicitly)."""
