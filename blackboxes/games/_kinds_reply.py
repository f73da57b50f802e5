"""Deterministic kinds that reply to the history: cycles, copies, counters, maps.

They apply to the stateless games (both sides always have the same actions); those
naming "the action that beats" something need a win/lose relation (RPS, RPS-7, anti-RPS,
matching pennies). ``cycle`` and ``reactive`` also play Load-Shoot-Defend.
"""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Mapping, Sequence
from fractions import Fraction
from typing import Any, cast

from blackboxes.games._base import Game, GameState
from blackboxes.games._strategy import (
    FactorisedKind,
    History,
    Opponent,
    Params,
    Strategy,
    StratState,
    one,
    register_strategy,
)

__all__ = [
    "BeatLast",
    "CopyLast",
    "CopyTwoBack",
    "Cycle",
    "Frequency",
    "Pavlov",
    "Reactive",
    "ReactiveMemory",
    "ReactivePair",
    "Tour",
    "Trigger",
    "Wary",
]

_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth")


def _win_lose(game: Game) -> bool:
    return game.stateless and bool(game.counters(game.alphabet(game.defaults)[0]))


def _order(op: Opponent) -> tuple[str, ...]:
    return op.game.alphabet(op.settings)


def _listing(actions: Sequence[str]) -> str:
    return ", ".join(actions)


def _primitive(word: tuple[str, ...]) -> bool:
    # A word that is a power of a shorter one repeats the same sequence: keep the root only.
    n = len(word)
    return all(word != word[d:] + word[:d] for d in range(1, n) if n % d == 0)


def _cycles(alphabet: Sequence[str], longest: int) -> list[tuple[str, ...]]:
    """Every primitive word of 1..``longest`` actions, shortest first, each length in
    the alphabet's lexicographic order: the distinct cycles an opponent may repeat."""
    return [
        word
        for length in range(1, longest + 1)
        for word in itertools.product(alphabet, repeat=length)
        if _primitive(word)
    ]


@register_strategy
class Cycle(Strategy):
    """Plays a fixed sequence of at most ``game.max_cycle`` actions over and over.

    Params: the sequence (primitive: not a repetition of a shorter one), legal forever.
    """

    name = "cycle"
    title = "fixed cycle"

    def applies(self, game: Game) -> bool:
        return bool(game.cycle_alphabet(game.defaults))

    def space(self, game: Game, settings: Mapping[str, int]) -> Sequence[Params]:
        return [
            word
            for word in _cycles(game.cycle_alphabet(settings), game.max_cycle)
            if game.legal_forever(settings, word)
        ]

    def describe(self, game: Game, params: Params) -> str:
        return f"cycles through {_listing(params)} in this order, starting with {params[0]}"

    def initial(self, op: Opponent) -> StratState:
        return 0

    def distribution(
        self, op: Opponent, strat_state: StratState, game_state: GameState
    ) -> dict[str, Fraction]:
        return one(op.params[cast(int, strat_state)])

    def update(
        self, op: Opponent, strat_state: StratState, player_action: str, opp_action: str
    ) -> StratState:
        return (cast(int, strat_state) + 1) % len(op.params)

    def reference(
        self, op: Opponent, history: History, game_state: GameState
    ) -> dict[str, Fraction]:
        return one(op.params[len(history) % len(op.params)])


@register_strategy
class Tour(Cycle):
    """Plays every action once per period in a fixed order (ORACLE's RPS-7 cycle).

    Params: a permutation of the game's actions.
    """

    name = "tour"
    title = "tour of all actions"

    def applies(self, game: Game) -> bool:
        return game.stateless and len(game.alphabet(game.defaults)) >= 3

    def space(self, game: Game, settings: Mapping[str, int]) -> Sequence[Params]:
        return list(itertools.permutations(game.alphabet(settings)))


@register_strategy
class BeatLast(Strategy):
    """Plays ``first``, then the ``k``-th (in the game's order) of the actions that beat
    the player's previous action.

    Params: (first, k).
    """

    name = "beat_last"
    title = "beat the last move"

    def applies(self, game: Game) -> bool:
        return _win_lose(game)

    def space(self, game: Game, settings: Mapping[str, int]) -> Sequence[Params]:
        order = game.alphabet(settings)
        return list(itertools.product(order, range(len(game.counters(order[0])))))

    def describe(self, game: Game, params: Params) -> str:
        first, k = params
        which = "the action" if len(game.counters(first)) == 1 else f"the {_ORDINALS[k]} action"
        return (
            f"plays {first} first, then {which} (in the order "
            f"{_listing(game.alphabet(game.defaults))}) among those that beat the player's "
            "previous action"
        )

    def initial(self, op: Opponent) -> StratState:
        return None

    def distribution(
        self, op: Opponent, strat_state: StratState, game_state: GameState
    ) -> dict[str, Fraction]:
        if strat_state is None:
            return one(op.params[0])
        return one(op.game.counters(cast(str, strat_state))[op.params[1]])

    def update(
        self, op: Opponent, strat_state: StratState, player_action: str, opp_action: str
    ) -> StratState:
        return player_action

    def reference(
        self, op: Opponent, history: History, game_state: GameState
    ) -> dict[str, Fraction]:
        if not history:
            return one(op.params[0])
        return one(op.game.counters(history[-1][0])[op.params[1]])


@register_strategy
class CopyLast(Strategy):
    """Plays ``first``, then the player's previous action.

    Params: (first,).
    """

    name = "copy_last"
    title = "copy the last move"

    def applies(self, game: Game) -> bool:
        return _win_lose(game)

    def space(self, game: Game, settings: Mapping[str, int]) -> Sequence[Params]:
        return [(a,) for a in game.alphabet(settings)]

    def describe(self, game: Game, params: Params) -> str:
        return f"plays {params[0]} first, then repeats the player's previous action"

    def initial(self, op: Opponent) -> StratState:
        return None

    def distribution(
        self, op: Opponent, strat_state: StratState, game_state: GameState
    ) -> dict[str, Fraction]:
        return one(op.params[0] if strat_state is None else str(strat_state))

    def update(
        self, op: Opponent, strat_state: StratState, player_action: str, opp_action: str
    ) -> StratState:
        return player_action

    def reference(
        self, op: Opponent, history: History, game_state: GameState
    ) -> dict[str, Fraction]:
        return one(history[-1][0] if history else op.params[0])


@register_strategy
class CopyTwoBack(Strategy):
    """Plays ``first``, then ``second``, then the player's action of two rounds before
    (ORACLE's "imitate the time before last").

    Params: (first, second).
    """

    name = "copy_two_back"
    title = "copy the move before last"

    def applies(self, game: Game) -> bool:
        return game.stateless

    def space(self, game: Game, settings: Mapping[str, int]) -> Sequence[Params]:
        order = game.alphabet(settings)
        return list(itertools.product(order, order))

    def describe(self, game: Game, params: Params) -> str:
        return (
            f"plays {params[0]} first and {params[1]} second, then the action the player "
            "played two rounds before"
        )

    def initial(self, op: Opponent) -> StratState:
        return ()

    def distribution(
        self, op: Opponent, strat_state: StratState, game_state: GameState
    ) -> dict[str, Fraction]:
        seen = cast(tuple[str, ...], strat_state)
        return one(op.params[len(seen)] if len(seen) < 2 else seen[0])

    def update(
        self, op: Opponent, strat_state: StratState, player_action: str, opp_action: str
    ) -> StratState:
        return (*cast(tuple[str, ...], strat_state), player_action)[-2:]

    def reference(
        self, op: Opponent, history: History, game_state: GameState
    ) -> dict[str, Fraction]:
        if len(history) < 2:
            return one(op.params[len(history)])
        return one(history[-2][0])


FREQUENCY_WINDOWS = (3, 0)
"""Windows of the ``frequency`` kind: the player's last 3 moves, or (0) all of them."""


@register_strategy
class Frequency(Strategy):
    """Plays ``first``, then the ``k``-th action that beats the player's most frequent
    action (over the last ``window`` rounds, or all when 0); ties go to the action
    earliest in the game's order.

    Params: (first, k, window).
    """

    name = "frequency"
    title = "beat the most frequent move"

    def applies(self, game: Game) -> bool:
        return _win_lose(game)

    def space(self, game: Game, settings: Mapping[str, int]) -> Sequence[Params]:
        order = game.alphabet(settings)
        ks = range(len(game.counters(order[0])))
        return list(itertools.product(order, ks, FREQUENCY_WINDOWS))

    def describe(self, game: Game, params: Params) -> str:
        first, k, window = params
        span = "all the player's moves so far" if window == 0 else f"the last {window} moves"
        which = "the action" if len(game.counters(first)) == 1 else f"the {_ORDINALS[k]} action"
        return (
            f"plays {first} first, then {which} (in the order "
            f"{_listing(game.alphabet(game.defaults))}) among those that beat the player's "
            f"most frequent action over {span}; ties go to the action earliest in that order"
        )

    def initial(self, op: Opponent) -> StratState:
        window = op.params[2]
        return () if window else (0,) * len(_order(op))

    def _reply(self, op: Opponent, counts: Sequence[int]) -> dict[str, Fraction]:
        if not any(counts):
            return one(op.params[0])
        order = _order(op)
        top = max(range(len(order)), key=lambda i: (counts[i], -i))
        return one(op.game.counters(order[top])[op.params[1]])

    def memo_key(self, op: Opponent, strat_state: StratState, rounds_left: int) -> Hashable:
        if op.params[2]:
            return strat_state
        # Only the gaps to the leader matter, and a gap wider than the rounds left can
        # never close: the whole-history counts collapse to far fewer keys.
        counts = cast(tuple[int, ...], strat_state)
        top = max(counts)
        return tuple(min(top - c, rounds_left + 1) for c in counts)

    def _counts(self, op: Opponent, moves: Sequence[str]) -> list[int]:
        return [moves.count(a) for a in _order(op)]

    def distribution(
        self, op: Opponent, strat_state: StratState, game_state: GameState
    ) -> dict[str, Fraction]:
        if op.params[2]:
            return self._reply(op, self._counts(op, cast(tuple[str, ...], strat_state)))
        return self._reply(op, cast(tuple[int, ...], strat_state))

    def update(
        self, op: Opponent, strat_state: StratState, player_action: str, opp_action: str
    ) -> StratState:
        window = op.params[2]
        if window:
            return (*cast(tuple[str, ...], strat_state), player_action)[-window:]
        counts = cast(tuple[int, ...], strat_state)
        i = _order(op).index(player_action)
        return (*counts[:i], counts[i] + 1, *counts[i + 1 :])

    def reference(
        self, op: Opponent, history: History, game_state: GameState
    ) -> dict[str, Fraction]:
        window = op.params[2]
        moves = [a for a, _ in history]
        return self._reply(op, self._counts(op, moves[-window:] if window else moves))


@register_strategy
class Reactive(FactorisedKind):
    """Plays ``first``, then a fixed function of the player's previous action (any map
    action -> action; in Load-Shoot-Defend an unaffordable shot becomes a load).

    Params: (first, reply to the game's first action, reply to its second, ...).
    """

    name = "reactive"
    title = "reactive map of the last move"

    def applies(self, game: Game) -> bool:
        return game.stateless or game.name == "lsd"

    def domains(self, game: Game, settings: Mapping[str, int]) -> tuple[tuple[Any, ...], ...]:
        order = game.alphabet(settings)
        firsts = game.opp_actions(game.initial_state(settings))
        return (firsts, *([order] * len(order)))

    def component(self, game: Game, settings: Mapping[str, int], history: History) -> int:
        if not history:
            return 0
        return 1 + game.alphabet(settings).index(history[-1][0])

    def action_of(self, game: Game, game_state: GameState, value: Any) -> str:
        return game.substitute(game_state, value)

    def template_context(self, game: Game, params: Params) -> dict[str, Any]:
        order = game.alphabet(game.defaults)
        return {"reply": dict(zip(order, params[1:], strict=True))}

    def describe(self, game: Game, params: Params) -> str:
        order = game.alphabet(game.defaults)
        pairs = "; ".join(f"after {a}, {b}" for a, b in zip(order, params[1:], strict=True))
        tail = " (a shot it cannot afford becomes a load)" if not game.stateless else ""
        return f"plays {params[0]} first, then answers the player's previous action: {pairs}{tail}"

    def initial(self, op: Opponent) -> StratState:
        return 0

    def distribution(
        self, op: Opponent, strat_state: StratState, game_state: GameState
    ) -> dict[str, Fraction]:
        return one(self.action_of(op.game, game_state, op.params[cast(int, strat_state)]))

    def update(
        self, op: Opponent, strat_state: StratState, player_action: str, opp_action: str
    ) -> StratState:
        return 1 + _order(op).index(player_action)

    def component_of(self, op: Opponent, strat_state: StratState) -> int:
        return cast(int, strat_state)

    def reply_memory(self, game: Game) -> int:
        return 1

    def reference(
        self, op: Opponent, history: History, game_state: GameState
    ) -> dict[str, Fraction]:
        wanted = op.params[self.component(op.game, op.settings, history)]
        return one(op.game.substitute(game_state, wanted))


PAIR_MEMORY_ACTIONS = 3
"""Most actions a game may have for ``reactive_pair`` (its map has n*n entries)."""

LONG_MEMORY: Mapping[int, int] = {2: 4, 3: 3}
"""``reactive_memory``'s memory per number of actions: more replies (2^4, 3^3) than a
game has rounds, so no one game can reveal the map."""


def _context(order: Sequence[str], moves: Sequence[int]) -> int:
    """The index of a tuple of moves (indices in ``order``), the oldest most significant."""
    index = 0
    for m in moves:
        index = index * len(order) + m
    return index


class _ContextMap(FactorisedKind):
    """Plays a fixed opening of k actions, then a fixed function of the player's last k
    actions (k = :meth:`reply_memory`). Params: the k opening actions, then the reply to
    each k-tuple of player actions in the game's order, the oldest move most significant.
    The strategy state is the player's last (at most k) moves as indices."""

    def domains(self, game: Game, settings: Mapping[str, int]) -> tuple[tuple[Any, ...], ...]:
        order = game.alphabet(settings)
        k = self.reply_memory(game)
        return tuple([order] * (k + len(order) ** k))

    def component(self, game: Game, settings: Mapping[str, int], history: History) -> int:
        k = self.reply_memory(game)
        if len(history) < k:
            return len(history)
        order = game.alphabet(settings)
        return k + _context(order, [order.index(a) for a, _ in history[-k:]])

    def component_of(self, op: Opponent, strat_state: StratState) -> int:
        seen = cast(tuple[int, ...], strat_state)
        k = self.reply_memory(op.game)
        return len(seen) if len(seen) < k else k + _context(_order(op), seen)

    def action_of(self, game: Game, game_state: GameState, value: Any) -> str:
        return str(value)

    def initial(self, op: Opponent) -> StratState:
        return ()

    def distribution(
        self, op: Opponent, strat_state: StratState, game_state: GameState
    ) -> dict[str, Fraction]:
        return one(op.params[self.component_of(op, strat_state)])

    def update(
        self, op: Opponent, strat_state: StratState, player_action: str, opp_action: str
    ) -> StratState:
        seen = cast(tuple[int, ...], strat_state)
        return (*seen, _order(op).index(player_action))[-self.reply_memory(op.game) :]

    def reference(
        self, op: Opponent, history: History, game_state: GameState
    ) -> dict[str, Fraction]:
        return one(op.params[self.component(op.game, op.settings, history)])


@register_strategy
class ReactivePair(_ContextMap):
    """Plays ``first``, then ``second``, then a fixed function of the player's last two
    actions (any map (action before last, last action) -> action): a reactive map with a
    two-move memory, whose n*n replies one sweep of single moves does not reveal.

    Params: (first, second, reply to (a1, a1), (a1, a2), ..., (an, an)), pairs in the
    game's order, the older move most significant.
    """

    name = "reactive_pair"
    title = "reactive map of the last two moves"

    def applies(self, game: Game) -> bool:
        return game.stateless and len(game.alphabet(game.defaults)) <= PAIR_MEMORY_ACTIONS

    def reply_memory(self, game: Game) -> int:
        return 2

    def template_context(self, game: Game, params: Params) -> dict[str, Any]:
        order = game.alphabet(game.defaults)
        n = len(order)
        table = {
            a: {b: params[2 + n * i + j] for j, b in enumerate(order)} for i, a in enumerate(order)
        }
        return {"reply": table}

    def describe(self, game: Game, params: Params) -> str:
        order = game.alphabet(game.defaults)
        replies = "; ".join(
            f"after {a} then {b}, {r}"
            for (a, b), r in zip(itertools.product(order, order), params[2:], strict=True)
        )
        return (
            f"plays {params[0]} first and {params[1]} second, then answers the player's last "
            f"two actions (the one before last, then the last): {replies}"
        )


@register_strategy
class ReactiveMemory(_ContextMap):
    """Plays a fixed opening of k actions, then a fixed function of the player's last k
    actions, k = 4 in the two-action games and 3 in the three-action ones: a reactive map
    whose n^k replies outnumber the rounds of a game (T_info of 20 and 30 rounds).

    Params: (the k opening actions, then the reply to each k-tuple of player actions in
    the game's order, the oldest move most significant).
    """

    name = "reactive_memory"
    title = "reactive map of the last moves (long memory)"

    def applies(self, game: Game) -> bool:
        return game.stateless and len(game.alphabet(game.defaults)) in LONG_MEMORY

    def reply_memory(self, game: Game) -> int:
        return LONG_MEMORY[len(game.alphabet(game.defaults))]

    def _contexts(self, game: Game) -> list[tuple[str, ...]]:
        order = game.alphabet(game.defaults)
        return list(itertools.product(order, repeat=self.reply_memory(game)))

    def template_context(self, game: Game, params: Params) -> dict[str, Any]:
        k = self.reply_memory(game)
        replies = dict(zip((" ".join(c) for c in self._contexts(game)), params[k:], strict=True))
        return {"memory": k, "opening": list(params[:k]), "reply": replies}

    def describe(self, game: Game, params: Params) -> str:
        k = self.reply_memory(game)
        replies = "; ".join(
            f"after {', '.join(c)}: {r}"
            for c, r in zip(self._contexts(game), params[k:], strict=True)
        )
        return (
            f"plays {', '.join(params[:k])} in its first {k} rounds, then answers the "
            f"player's last {k} actions (oldest first): {replies}"
        )


@register_strategy
class Pavlov(Strategy):
    """Win-stay, lose-shift: plays ``first``; afterwards repeats its own previous action
    when that round paid it at least ``aspiration`` points, else plays the action ``shift``
    places after its previous one in the game's order (cyclically).

    Params: (first, aspiration, shift). In the win/lose games aspiration is 1 (stay after
    a win, shift after a tie or a loss); in the prisoner's dilemma 3 is the classic Pavlov.
    """

    name = "pavlov"
    title = "win-stay lose-shift"

    def applies(self, game: Game) -> bool:
        return game.stateless

    def space(self, game: Game, settings: Mapping[str, int]) -> Sequence[Params]:
        order = game.alphabet(settings)
        return list(itertools.product(order, game.opp_point_values(), range(1, len(order))))

    def describe(self, game: Game, params: Params) -> str:
        first, aspiration, shift = params
        return (
            f"plays {first} first; then repeats its own previous action if that round "
            f"gave it at least {aspiration} point(s), otherwise plays the action {shift} "
            f"place(s) after it in the order {_listing(game.alphabet(game.defaults))} "
            "(wrapping around)"
        )

    def _next(self, op: Opponent, own: str, points: int) -> dict[str, Fraction]:
        if points >= op.params[1]:
            return one(own)
        order = _order(op)
        return one(order[(order.index(own) + op.params[2]) % len(order)])

    def initial(self, op: Opponent) -> StratState:
        return None

    def distribution(
        self, op: Opponent, strat_state: StratState, game_state: GameState
    ) -> dict[str, Fraction]:
        if strat_state is None:
            return one(op.params[0])
        own, points = cast(tuple[str, int], strat_state)
        return self._next(op, own, points)

    def update(
        self, op: Opponent, strat_state: StratState, player_action: str, opp_action: str
    ) -> StratState:
        return (opp_action, op.game.resolve((), player_action, opp_action).opp_points)

    def reference(
        self, op: Opponent, history: History, game_state: GameState
    ) -> dict[str, Fraction]:
        if not history:
            return one(op.params[0])
        mine, theirs = history[-1]
        return self._next(op, theirs, op.game.resolve((), mine, theirs).opp_points)


@register_strategy
class Trigger(Strategy):
    """Plays ``calm`` until the player first plays ``trigger``, then ``punish`` forever
    (grim trigger for the win/lose games).

    Params: (calm, trigger, punish), calm != punish.
    """

    name = "trigger"
    title = "trigger"

    def applies(self, game: Game) -> bool:
        return _win_lose(game)

    def space(self, game: Game, settings: Mapping[str, int]) -> Sequence[Params]:
        order = game.alphabet(settings)
        return [p for p in itertools.product(order, order, order) if p[0] != p[2]]

    def describe(self, game: Game, params: Params) -> str:
        calm, trigger, punish = params
        return (
            f"plays {calm} until the player plays {trigger} for the first time, then plays "
            f"{punish} for the rest of the game"
        )

    def initial(self, op: Opponent) -> StratState:
        return False

    def distribution(
        self, op: Opponent, strat_state: StratState, game_state: GameState
    ) -> dict[str, Fraction]:
        return one(op.params[2] if strat_state else op.params[0])

    def update(
        self, op: Opponent, strat_state: StratState, player_action: str, opp_action: str
    ) -> StratState:
        return bool(strat_state) or player_action == op.params[1]

    def reference(
        self, op: Opponent, history: History, game_state: GameState
    ) -> dict[str, Fraction]:
        fired = any(a == op.params[1] for a, _ in history)
        return one(op.params[2] if fired else op.params[0])


def _player_won(game: Game, mine: str, theirs: str) -> bool:
    outcome = game.resolve((), mine, theirs)
    return outcome.player_points > outcome.opp_points


WARY_PATIENCE = (3, 4, 5, 6)
"""How many lost rounds a ``wary`` opponent takes before it changes its play."""


@register_strategy
class Wary(Strategy):
    """Plays a fixed cycle until the player has won ``patience`` rounds, then, for the
    rest of the game, answers the player's previous action with the action ``shift``
    places after it in the game's order (wrapping around; 0 copies it). Play that
    exploits the cycle sets it off; play that explores blindly rarely does.

    Params: (cycle, patience, shift); the cycle is primitive, at most 3 long in games
    of 2 or 3 actions and 2 long in RPS-7.
    """

    name = "wary"
    title = "wary cycle"

    def applies(self, game: Game) -> bool:
        return _win_lose(game)

    def space(self, game: Game, settings: Mapping[str, int]) -> Sequence[Params]:
        order = game.alphabet(settings)
        cycles = _cycles(order, 3 if len(order) <= 3 else 2)
        return list(itertools.product(cycles, WARY_PATIENCE, range(len(order))))

    def describe(self, game: Game, params: Params) -> str:
        cycle, patience, shift = params
        order = game.alphabet(game.defaults)
        then = (
            "repeats the player's previous action"
            if shift == 0
            else f"plays the action {shift} place(s) after the player's previous action in "
            f"the order {_listing(order)} (wrapping around)"
        )
        return (
            f"cycles through {_listing(cycle)} until the player has won {patience} rounds, "
            f"then, for the rest of the game, {then}"
        )

    def template_context(self, game: Game, params: Params) -> dict[str, Any]:
        order = game.alphabet(game.defaults)
        return {"won": {a: {b: int(_player_won(game, a, b)) for b in order} for a in order}}

    def _after(self, op: Opponent, last: str) -> dict[str, Fraction]:
        order = _order(op)
        return one(order[(order.index(last) + op.params[2]) % len(order)])

    def initial(self, op: Opponent) -> StratState:
        return (0, 0, None)

    def memo_key(self, op: Opponent, strat_state: StratState, rounds_left: int) -> Hashable:
        # Once set off only the player's last move matters; before, never.
        pos, wins, last = cast(tuple[int, int, str | None], strat_state)
        return ("after", last) if wins >= op.params[1] else (pos, wins)

    def distribution(
        self, op: Opponent, strat_state: StratState, game_state: GameState
    ) -> dict[str, Fraction]:
        # (rounds played mod the cycle, player's wins capped at patience, player's last).
        pos, wins, last = cast(tuple[int, int, str | None], strat_state)
        if wins >= op.params[1] and last is not None:
            return self._after(op, last)
        return one(op.params[0][pos])

    def update(
        self, op: Opponent, strat_state: StratState, player_action: str, opp_action: str
    ) -> StratState:
        pos, wins, _ = cast(tuple[int, int, str | None], strat_state)
        won = _player_won(op.game, player_action, opp_action)
        return ((pos + 1) % len(op.params[0]), min(op.params[1], wins + won), player_action)

    def reference(
        self, op: Opponent, history: History, game_state: GameState
    ) -> dict[str, Fraction]:
        cycle, patience = op.params[0], op.params[1]
        wins = sum(_player_won(op.game, a, b) for a, b in history)
        if wins >= patience:
            return self._after(op, history[-1][0])
        return one(cycle[len(history) % len(cycle)])
