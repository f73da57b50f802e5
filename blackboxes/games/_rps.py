"""Stateless win/lose hand games: rock-paper-scissors, RPS-7, anti-RPS, matching pennies.

Scoring in all four: the round's winner scores 1, a tie or a loss scores 0 (ORACLE pays
+1/0/-1; counting wins keeps points non-negative, and the optimum against a known
opponent is then the expected number of rounds won).
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping
from typing import ClassVar

from blackboxes.games._base import Game, GameState, Outcome, register_game

__all__ = ["AntiRockPaperScissors", "MatchingPennies", "RockPaperScissors", "RockPaperScissors7"]

_ROUNDS = {"rounds": (1, 50)}
_LEVELS = {"easy": {"rounds": (8, 12)}, "hard": {"rounds": (10, 15)}}
_SHOWN = (
    "After each round you are told both actions and the points each side scored. "
    "Your score is the sum of your points."
)


class _WinLoseGame(Game):
    """A stateless game where each pair of actions is a win, a loss or a tie."""

    order: ClassVar[tuple[str, ...]]
    setting_ranges = _ROUNDS
    defaults: ClassVar[Mapping[str, int]] = {"rounds": 10}
    level_ranges = _LEVELS
    stateless = True

    @abstractmethod
    def player_wins(self, player_action: str, opp_action: str) -> bool:
        """True when the player's action beats the opponent's."""
        ...

    def opp_wins(self, player_action: str, opp_action: str) -> bool:
        """True when the opponent's action beats the player's."""
        return self.player_wins(opp_action, player_action)

    def initial_state(self, settings: Mapping[str, int]) -> GameState:
        self.settings(settings)
        return ()

    def actions(self, state: GameState) -> tuple[str, ...]:
        return self.order

    def opp_actions(self, state: GameState) -> tuple[str, ...]:
        return self.order

    def alphabet(self, settings: Mapping[str, int]) -> tuple[str, ...]:
        return self.order

    def resolve(self, state: GameState, player_action: str, opp_action: str) -> Outcome:
        if self.player_wins(player_action, opp_action):
            return Outcome(state, 1, 0)
        if self.opp_wins(player_action, opp_action):
            return Outcome(state, 0, 1)
        return Outcome(state, 0, 0)

    def counters(self, action: str) -> tuple[str, ...]:
        return tuple(b for b in self.order if self.opp_wins(action, b))

    def _rules(self, settings: Mapping[str, int], relation: str) -> str:
        rounds = self.rounds(settings)
        names = ", ".join(f"`{a}`" for a in self.order)
        return (
            f"{self.title}. You and your opponent play {rounds} rounds. In each round both "
            f"choose one action at the same time, one of {names}. {relation} The winner of a "
            "round scores 1 point; a tie or a loss scores 0 points. " + _SHOWN
        )


class _BeatsTable(_WinLoseGame):
    beats: ClassVar[Mapping[str, tuple[str, ...]]]
    """Each action and the actions it beats (the same for both sides)."""

    def player_wins(self, player_action: str, opp_action: str) -> bool:
        return opp_action in self.beats[player_action]

    def rules_text(self, settings: Mapping[str, int]) -> str:
        lines = " ".join(
            f"`{a}` beats {' and '.join(f'`{b}`' for b in self.beats[a])}." for a in self.order
        )
        return self._rules(settings, f"{lines} Equal actions tie.")


@register_game
class RockPaperScissors(_BeatsTable):
    """Rock-paper-scissors."""

    name = "rps"
    title = "Rock, paper, scissors"
    order = ("rock", "paper", "scissors")
    beats: ClassVar[Mapping[str, tuple[str, ...]]] = {
        "rock": ("scissors",),
        "paper": ("rock",),
        "scissors": ("paper",),
    }


_WHEEL = ("rock", "fire", "scissors", "sponge", "paper", "air", "water")


@register_game
class RockPaperScissors7(_BeatsTable):
    """RPS-7 on the standard wheel rock, fire, scissors, sponge, paper, air, water: each
    action beats the three after it (cyclically) and loses to the three before it.

    ORACLE's own rules text contradicts itself (scissors "start a Fire" and fire "melts
    Scissors"); the wheel is the consistent standard.
    """

    name = "rps7"
    title = "Rock, paper, scissors, fire, water, air, sponge (RPS-7)"
    order = _WHEEL
    beats: ClassVar[Mapping[str, tuple[str, ...]]] = {
        a: tuple(_WHEEL[(i + d) % 7] for d in (1, 2, 3)) for i, a in enumerate(_WHEEL)
    }


@register_game
class AntiRockPaperScissors(_WinLoseGame):
    """Anti-RPS (ORACLE's): the usual relation reversed, so an action beats exactly the
    action that beats it in rock-paper-scissors: scissors beats rock, rock beats paper,
    paper beats scissors. The player still wants to win rounds."""

    name = "anti_rps"
    title = "Anti rock, paper, scissors"
    order = ("rock", "paper", "scissors")

    def player_wins(self, player_action: str, opp_action: str) -> bool:
        return player_action in RockPaperScissors.beats[opp_action]

    def rules_text(self, settings: Mapping[str, int]) -> str:
        relation = (
            "The usual rules are reversed: `scissors` beats `rock`, `rock` beats `paper` and "
            "`paper` beats `scissors`. Equal actions tie."
        )
        return self._rules(settings, relation)


@register_game
class MatchingPennies(_WinLoseGame):
    """Matching pennies: the player wins a round when both coins show the same face, the
    opponent when they differ. Its maximin value is 1/2 per round."""

    name = "pennies"
    title = "Matching pennies"
    order = ("heads", "tails")

    def player_wins(self, player_action: str, opp_action: str) -> bool:
        return player_action == opp_action

    def opp_wins(self, player_action: str, opp_action: str) -> bool:
        return player_action != opp_action

    def rules_text(self, settings: Mapping[str, int]) -> str:
        relation = (
            "You win the round when both show the same face; your opponent wins when the "
            "faces differ. There are no ties."
        )
        return self._rules(settings, relation)
