"""Comparing Cards: both sides hold cards 1..n and play one each round, used up.

State: the two hands as bit masks (:class:`Hands`, bit c-1 for card c). Scoring: the
higher card scores 1, the lower or an equal card 0, so at most n-1 rounds can be won
against an opponent whose order is known (its card n cannot be beaten).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import ClassVar, NamedTuple

from blackboxes.games._base import Game, GameError, GameState, Outcome, register_game

__all__ = ["ComparingCards", "Hands", "card", "card_value", "cards_in"]


class Hands(NamedTuple):
    """The cards left in each hand, as bit masks."""

    player: int
    opp: int


def card(value: int) -> str:
    """The action that plays card ``value``."""
    return f"card {value}"


def card_value(action: str) -> int:
    """The number on the card an action plays."""
    return int(action.removeprefix("card "))


def cards_in(mask: int) -> tuple[int, ...]:
    """The card numbers in a hand, ascending."""
    return tuple(i + 1 for i in range(mask.bit_length()) if mask >> i & 1)


def _hands(state: GameState) -> Hands:
    if not isinstance(state, Hands):
        raise GameError(f"not a Comparing Cards state: {state!r}")
    return state


@register_game
class ComparingCards(Game):
    """Comparing Cards with a deck of ``cards`` cards per side; the game lasts that many rounds."""

    name = "cards"
    title = "Comparing cards"
    setting_ranges: ClassVar[Mapping[str, tuple[int, int]]] = {"cards": (1, 16)}
    defaults: ClassVar[Mapping[str, int]] = {"cards": 8}
    level_ranges: ClassVar[Mapping[str, Mapping[str, tuple[int, int]]]] = {
        "easy": {"cards": (5, 8)},
        "hard": {"cards": (7, 10)},
    }
    varying = "cards"

    def rounds(self, settings: Mapping[str, int]) -> int:
        return self.settings(settings)["cards"]

    def rules_text(self, settings: Mapping[str, int]) -> str:
        n = self.rounds(settings)
        return (
            f"{self.title}. You and your opponent each hold {n} cards numbered 1 to {n}. The "
            f"game lasts {n} rounds. In each round both play one card from their hand at the "
            "same time, written `card x`; a played card is used up. The higher card wins the "
            "round and scores 1 point; the lower card and equal cards score 0 points. After "
            "each round you are told both cards and the points each side scored. Your score "
            "is the sum of your points."
        )

    def initial_state(self, settings: Mapping[str, int]) -> GameState:
        full = (1 << self.rounds(settings)) - 1
        return Hands(full, full)

    def actions(self, state: GameState) -> tuple[str, ...]:
        return tuple(card(c) for c in cards_in(_hands(state).player))

    def opp_actions(self, state: GameState) -> tuple[str, ...]:
        return tuple(card(c) for c in cards_in(_hands(state).opp))

    def alphabet(self, settings: Mapping[str, int]) -> tuple[str, ...]:
        return tuple(card(c) for c in range(1, self.rounds(settings) + 1))

    def resolve(self, state: GameState, player_action: str, opp_action: str) -> Outcome:
        hands = _hands(state)
        mine, theirs = card_value(player_action), card_value(opp_action)
        nxt = Hands(hands.player & ~(1 << (mine - 1)), hands.opp & ~(1 << (theirs - 1)))
        return Outcome(nxt, int(mine > theirs), int(theirs > mine))

    def canonical(self, state: GameState) -> Hashable:
        # Only the order of the cards matters: each card still held becomes "p" (player
        # only), "o" (opponent only) or "b" (both), read from the lowest up.
        hands = _hands(state)
        marks = []
        for i in range(max(hands.player, hands.opp).bit_length()):
            mine, theirs = hands.player >> i & 1, hands.opp >> i & 1
            if mine or theirs:
                marks.append("b" if mine and theirs else "p" if mine else "o")
        return "".join(marks)

    def _alias(self, key: str) -> str:
        return f"card{key}" if key.isdigit() else key

    def _all_player_actions(self, state: GameState) -> tuple[str, ...]:
        # Any card of the largest deck, so that a used card is named as such.
        return tuple(card(c) for c in range(1, self.setting_ranges["cards"][1] + 1))
