"""Comparing Cards kinds. Parameters never name a card number, so one opponent plays
every deck size of a box: piles are fractions of the deck, first cards are "lowest",
"median" ((n+1)//2) or "highest"."""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import cast

from blackboxes.games._base import Game, GameState
from blackboxes.games._cards import Hands, card, card_value, cards_in
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

__all__ = ["CheapBeat", "CopyCard", "Median", "Piles", "pile_cards"]

MAX_PILES = 4
_MODES = ("ascending", "descending", "random")
_FIRSTS = ("lowest", "median", "highest")
_PILE_NAMES = "abcd"


def pile_cards(n: int, piles: int) -> list[tuple[int, ...]]:
    """The deck 1..n cut into ``piles`` piles from the lowest up, sizes as equal as
    possible (pile i holds ranks floor(i*n/p) .. floor((i+1)*n/p) - 1)."""
    return [tuple(range(i * n // piles + 1, (i + 1) * n // piles + 1)) for i in range(piles)]


def _coarser(p: int, order: tuple[int, ...], mode: str) -> bool:
    """True when ``order`` plays the piles of a cut into p' < p piles (p' dividing p)
    each in one sweep, so the cut into p' plays the same cards in the same order."""
    if mode == "random":
        return False
    for size in range(2, p + 1):
        if p % size:
            continue
        blocks = [order[i : i + size] for i in range(0, p, size)]
        step = 1 if mode == "ascending" else -1
        if all(
            b[0] % size == (0 if step == 1 else size - 1)
            and all(b[j + 1] == b[j] + step for j in range(size - 1))
            for b in blocks
        ):
            return True
    return False


def _n(op: Opponent) -> int:
    return op.settings["cards"]


def _first(n: int, which: str) -> int:
    return {"lowest": 1, "median": (n + 1) // 2, "highest": n}[which]


def _hand(game_state: GameState) -> tuple[int, ...]:
    return cards_in(cast(Hands, game_state).opp)


def _applies(game: Game) -> bool:
    return game.name == "cards"


@register_strategy
class Piles(Strategy):
    """Cuts the deck into ``p`` piles (lowest cards in the first) and empties them in a
    hidden order, within each pile ascending, descending or at random (uniform over the
    pile's cards left). ORACLE's "slice" is 4 piles b, d, a, c at random.

    Params: (p, pile order, mode). An order that plays the piles of a coarser cut (p'
    dividing p) one after the other in the mode's direction plays like that cut at every
    deck size and is left out; coincidences at one deck size only are kept.
    """

    name = "piles"
    title = "piles in a hidden order"
    mixed = True

    def applies(self, game: Game) -> bool:
        return _applies(game)

    def randomises(self, params: Params) -> bool:
        return params[2] == "random"

    def space(self, game: Game, settings: Mapping[str, int]) -> Sequence[Params]:
        return [
            (p, order, mode)
            for p in range(1, MAX_PILES + 1)
            for order, mode in itertools.product(itertools.permutations(range(p)), _MODES)
            if not _coarser(p, order, mode)
        ]

    def describe(self, game: Game, params: Params) -> str:
        p, order, mode = params
        if p == 1:
            return {
                "ascending": "plays its cards from the lowest to the highest",
                "descending": "plays its cards from the highest to the lowest",
                "random": "plays a card chosen uniformly at random from its hand each round",
            }[mode]
        names = _PILE_NAMES[:p]
        within = {"ascending": "lowest first", "descending": "highest first"}.get(
            mode, "a uniformly random card of the pile each round"
        )
        return (
            f"cuts its sorted cards into {p} equal piles {', '.join(names)} (lowest cards in "
            f"{names[0]}) and plays pile {', then '.join(names[i] for i in order)}; within a "
            f"pile, {within}"
        )

    def initial(self, op: Opponent) -> StratState:
        return ()

    def distribution(
        self, op: Opponent, strat_state: StratState, game_state: GameState
    ) -> dict[str, Fraction]:
        p, order, mode = op.params
        hand = set(_hand(game_state))
        piles = pile_cards(_n(op), p)
        for i in order:
            left = [c for c in piles[i] if c in hand]
            if left:
                if mode == "random":
                    return uniform([card(c) for c in left])
                return one(card(left[0] if mode == "ascending" else left[-1]))
        return {}

    def update(
        self, op: Opponent, strat_state: StratState, player_action: str, opp_action: str
    ) -> StratState:
        return ()

    def reference(
        self, op: Opponent, history: History, game_state: GameState
    ) -> dict[str, Fraction]:
        # Its hand recomputed from the cards it has played, not read from the state.
        played = {card_value(b) for _, b in history}
        left = tuple(c for c in range(1, _n(op) + 1) if c not in played)
        mask = sum(1 << (c - 1) for c in left)
        return self.distribution(op, (), Hands(0, mask))


def _median_order(n: int, delta: int, up: bool) -> list[int]:
    c0 = (n + 1) // 2 + delta
    below, above = list(range(c0 - 1, 0, -1)), list(range(c0 + 1, n + 1))
    return [c0, *(above + below if up else below + above)]


@register_strategy
class Median(Strategy):
    """ORACLE's "smart": plays c0 = the median card (n+1)//2 shifted by ``delta`` first; if
    the player's first card was lower it then plays c0-1 down to 1 and c0+1 up to n, if
    higher c0+1 up to n and then c0-1 down to 1; an equal card goes the ``tie`` way.

    Params: (delta in -1, 0, 1; tie in "up", "down").
    """

    name = "median"
    title = "median first, then adaptive order"

    def applies(self, game: Game) -> bool:
        return _applies(game)

    def space(self, game: Game, settings: Mapping[str, int]) -> Sequence[Params]:
        n = game.rounds(settings)
        return [
            (d, tie)
            for d, tie in itertools.product((-1, 0, 1), ("up", "down"))
            if 1 <= (n + 1) // 2 + d <= n
        ]

    def describe(self, game: Game, params: Params) -> str:
        delta, tie = params
        where = "the median card" if delta == 0 else f"the median card {delta:+d}"
        return (
            f"plays {where} first (median = (n+1)//2); if the player's first card was "
            "lower, then plays downwards from it to 1 and then upwards from it to the "
            "highest; if higher, upwards first and then downwards; an equal card counts "
            f"as {'higher' if tie == 'up' else 'lower'}"
        )

    def initial(self, op: Opponent) -> StratState:
        return None

    def distribution(
        self, op: Opponent, strat_state: StratState, game_state: GameState
    ) -> dict[str, Fraction]:
        n, (delta, _) = _n(op), op.params
        if strat_state is None:
            return one(card((n + 1) // 2 + delta))
        hand = set(_hand(game_state))
        order = _median_order(n, delta, strat_state == "up")
        return one(card(next(c for c in order if c in hand)))

    def update(
        self, op: Opponent, strat_state: StratState, player_action: str, opp_action: str
    ) -> StratState:
        if strat_state is not None:
            return strat_state
        mine, theirs = card_value(player_action), card_value(opp_action)
        if mine == theirs:
            return op.params[1]
        return "up" if mine > theirs else "down"

    def reference(
        self, op: Opponent, history: History, game_state: GameState
    ) -> dict[str, Fraction]:
        n, (delta, tie) = _n(op), op.params
        if not history:
            return one(card((n + 1) // 2 + delta))
        mine, theirs = (card_value(x) for x in history[0])
        up = tie == "up" if mine == theirs else mine > theirs
        played = {card_value(b) for _, b in history}
        return one(card(next(c for c in _median_order(n, delta, up) if c not in played)))


@register_strategy
class CheapBeat(Strategy):
    """Plays its ``first`` card, then the lowest card it holds that beats the player's
    previous card, or its ``fallback`` (lowest or highest) card when none does.

    Params: (first, fallback).
    """

    name = "cheap_beat"
    title = "cheapest card that beats the last"

    def applies(self, game: Game) -> bool:
        return _applies(game)

    def space(self, game: Game, settings: Mapping[str, int]) -> Sequence[Params]:
        return list(itertools.product(_FIRSTS, ("lowest", "highest")))

    def describe(self, game: Game, params: Params) -> str:
        first, fallback = params
        return (
            f"plays its {first} card first, then the lowest card it holds that is higher "
            f"than the player's previous card, or its {fallback} card when it holds none"
        )

    def _reply(self, op: Opponent, hand: Sequence[int], last: int | None) -> dict[str, Fraction]:
        if last is None:
            return one(card(_first(_n(op), op.params[0])))
        higher = [c for c in hand if c > last]
        if higher:
            return one(card(higher[0]))
        return one(card(hand[0] if op.params[1] == "lowest" else hand[-1]))

    def initial(self, op: Opponent) -> StratState:
        return None

    def distribution(
        self, op: Opponent, strat_state: StratState, game_state: GameState
    ) -> dict[str, Fraction]:
        return self._reply(op, _hand(game_state), cast(int | None, strat_state))

    def update(
        self, op: Opponent, strat_state: StratState, player_action: str, opp_action: str
    ) -> StratState:
        return card_value(player_action)

    def reference(
        self, op: Opponent, history: History, game_state: GameState
    ) -> dict[str, Fraction]:
        played = {card_value(b) for _, b in history}
        hand = [c for c in range(1, _n(op) + 1) if c not in played]
        return self._reply(op, hand, card_value(history[-1][0]) if history else None)


@register_strategy
class CopyCard(Strategy):
    """Plays its ``first`` card, then the player's previous card if it still holds it,
    else the card it holds nearest to it (the higher of two equally near).

    Params: (first,).
    """

    name = "copy_card"
    title = "copy the last card"

    def applies(self, game: Game) -> bool:
        return _applies(game)

    def space(self, game: Game, settings: Mapping[str, int]) -> Sequence[Params]:
        return [(f,) for f in _FIRSTS]

    def describe(self, game: Game, params: Params) -> str:
        return (
            f"plays its {params[0]} card first, then the player's previous card if it still "
            "holds it, else its card nearest to that one (the higher one on a tie)"
        )

    def _reply(self, op: Opponent, hand: Sequence[int], last: int | None) -> dict[str, Fraction]:
        if last is None:
            return one(card(_first(_n(op), op.params[0])))
        return one(card(min(hand, key=lambda c: (abs(c - last), -c))))

    def initial(self, op: Opponent) -> StratState:
        return None

    def distribution(
        self, op: Opponent, strat_state: StratState, game_state: GameState
    ) -> dict[str, Fraction]:
        return self._reply(op, _hand(game_state), cast(int | None, strat_state))

    def update(
        self, op: Opponent, strat_state: StratState, player_action: str, opp_action: str
    ) -> StratState:
        return card_value(player_action)

    def reference(
        self, op: Opponent, history: History, game_state: GameState
    ) -> dict[str, Fraction]:
        played = {card_value(b) for _, b in history}
        hand = [c for c in range(1, _n(op) + 1) if c not in played]
        return self._reply(op, hand, card_value(history[-1][0]) if history else None)
