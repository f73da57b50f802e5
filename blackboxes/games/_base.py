"""The contract every repeated game implements, its registry and its error.

A game is a finite repeated game of simultaneous moves whose rules the agent is told.
A *state* is a hashable value (``()`` for games whose rules never change, bullet counts
for Load-Shoot-Defend, the two hands for Comparing Cards); the round number is kept
apart from it. Every round pays each side a non-negative integer, so a player's score
(the sum of its points) is never negative and a score divided by the best response's
optimum lies in [0, 1] for a player no better than the best response.
"""

from __future__ import annotations

import importlib
import random
from abc import ABC, abstractmethod
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, TypeVar

from oracle_bench.errors import FamilyError, UnknownNameError

if TYPE_CHECKING:
    from blackboxes.box import Level

__all__ = [
    "MAX_ACTION_CHARS",
    "Game",
    "GameError",
    "GameState",
    "Outcome",
    "Settings",
    "game_names",
    "get_game",
    "register_game",
]

GameState = Hashable
Settings = Mapping[str, int]

MAX_ACTION_CHARS = 200
"""Longest reply :meth:`Game.parse_action` reads; longer ones are refused unread."""

# Stripped around a reply before matching: formatting, never meaning.
_WRAPPING = " \t\r\n`'\".!"


class GameError(FamilyError, ValueError):
    """A bad action, setting or parameter; the message is one line for the agent or caller."""


@dataclass(frozen=True)
class Outcome:
    """What one round does: the next state and both sides' points."""

    state: GameState
    player_points: int
    opp_points: int


class Game(ABC):
    """A repeated game with known rules (the player's and the opponent's actions)."""

    name: ClassVar[str]
    title: ClassVar[str]
    setting_ranges: ClassVar[Mapping[str, tuple[int, int]]]
    """Every setting the game takes and its allowed range (inclusive)."""
    defaults: ClassVar[Mapping[str, int]]
    level_ranges: ClassVar[Mapping[str, Mapping[str, tuple[int, int]]]]
    """Per level, the range :meth:`settings_for` draws each setting from."""
    varying: ClassVar[str] = "rounds"
    """The setting that differs between a box's evaluation games (game length, deck size)."""
    stateless: ClassVar[bool] = False
    """True when the state never changes and both sides always have the same actions."""
    max_round_points: ClassVar[int] = 1
    """Most points one round can pay a side."""
    max_cycle: ClassVar[int] = 4
    """Longest period of the ``cycle`` strategies."""

    # -- settings --------------------------------------------------------------
    def settings(self, settings: Mapping[str, int] | None = None) -> dict[str, int]:
        """``settings`` checked, with defaults filled in."""
        given = dict(settings or {})
        unknown = sorted(set(given) - set(self.setting_ranges))
        if unknown:
            known = ", ".join(sorted(self.setting_ranges))
            raise GameError(f"{self.name} has no setting {', '.join(unknown)} (it takes {known})")
        out = {**self.defaults, **given}
        for key, value in out.items():
            low, high = self.setting_ranges[key]
            if isinstance(value, bool) or not isinstance(value, int):
                raise GameError(f"{self.name} setting {key} must be an integer, not {value!r}")
            if not low <= value <= high:
                raise GameError(f"{self.name} setting {key}={value} is outside {low}..{high}")
        return out

    def rounds(self, settings: Mapping[str, int]) -> int:
        """Number of rounds of one game."""
        return self.settings(settings)["rounds"]

    def settings_for(self, rng: random.Random, level: Level) -> dict[str, int]:
        """One game's settings drawn for ``level``."""
        ranges = self._level(level)
        return self.settings({key: rng.randint(low, high) for key, (low, high) in ranges.items()})

    def evaluation_settings(
        self, rng: random.Random, level: Level, count: int = 4
    ) -> list[dict[str, int]]:
        """Settings of ``count`` evaluation games: only :attr:`varying` differs, drawn
        without repeats (when the range allows) and sorted, as ORACLE's 8, 10, 12, 15."""
        if count < 1:
            raise GameError(f"need at least one evaluation game, not {count}")
        ranges = self._level(level)
        base = self.settings_for(rng, level)
        low, high = ranges[self.varying]
        pool = list(range(low, high + 1))
        values = sorted(
            rng.sample(pool, count) if count <= len(pool) else rng.choices(pool, k=count)
        )
        return [self.settings({**base, self.varying: value}) for value in values]

    def _level(self, level: str) -> Mapping[str, tuple[int, int]]:
        if level not in self.level_ranges:
            raise GameError(f"unknown level {level!r}; levels: {', '.join(self.level_ranges)}")
        return self.level_ranges[level]

    # -- rules -----------------------------------------------------------------
    @abstractmethod
    def rules_text(self, settings: Mapping[str, int]) -> str:
        """The full rules the agent is told: actions, scoring, length, what is shown."""

    @abstractmethod
    def initial_state(self, settings: Mapping[str, int]) -> GameState:
        """The state before the first round."""

    @abstractmethod
    def actions(self, state: GameState) -> tuple[str, ...]:
        """The player's legal actions in ``state``, in the game's fixed order."""

    @abstractmethod
    def opp_actions(self, state: GameState) -> tuple[str, ...]:
        """The opponent's legal actions in ``state``, in the game's fixed order."""

    @abstractmethod
    def alphabet(self, settings: Mapping[str, int]) -> tuple[str, ...]:
        """Every action either side may play in some state, in the game's fixed order."""

    @abstractmethod
    def resolve(self, state: GameState, player_action: str, opp_action: str) -> Outcome:
        """One round of two LEGAL actions (unchecked: the inner loop of the solvers)."""

    def step(self, state: GameState, player_action: str, opp_action: str) -> tuple[GameState, int]:
        """One round: the next state and the player's points; illegal actions are refused."""
        if player_action not in self.actions(state):
            raise GameError(f"{player_action!r} is not a legal action for the player now")
        if opp_action not in self.opp_actions(state):
            raise GameError(f"{opp_action!r} is not a legal action for the opponent now")
        outcome = self.resolve(state, player_action, opp_action)
        return outcome.state, outcome.player_points

    def substitute(self, state: GameState, action: str) -> str:
        """The opponent's stand-in when a strategy names ``action`` while it is illegal
        (Load-Shoot-Defend: load). Games where every action is always legal refuse."""
        if action in self.opp_actions(state):
            return action
        raise GameError(f"{self.name} has no stand-in for the illegal action {action!r}")

    def counters(self, action: str) -> tuple[str, ...]:
        """The opponent's actions that beat the player's ``action``, in the game's order
        (empty for games without a win/lose relation)."""
        return ()

    def opp_point_values(self) -> tuple[int, ...]:
        """The positive points the opponent can score in a round, ascending."""
        return (1,)

    def cycle_alphabet(self, settings: Mapping[str, int]) -> tuple[str, ...]:
        """The actions ``cycle`` and ``mixed_subset`` strategies draw from (empty: none)."""
        return self.alphabet(settings) if self.stateless else ()

    def legal_forever(self, settings: Mapping[str, int], word: tuple[str, ...]) -> bool:
        """True when the opponent may repeat ``word`` forever without an illegal action."""
        return True

    def canonical(self, state: GameState) -> Hashable:
        """A key equal for states whose futures are alike (the security value's memo)."""
        return state

    # -- parsing ---------------------------------------------------------------
    def parse_action(self, state: GameState, text: str) -> str:
        """The legal action ``text`` names: case, spacing and wrapping quotes are ignored,
        abbreviations and guesses are not."""
        if len(text) > MAX_ACTION_CHARS:
            raise GameError(f"a reply is at most {MAX_ACTION_CHARS} characters; send one action")
        key = _squash(text.strip(_WRAPPING))
        legal = self.actions(state)
        wanted = self._alias(key)
        for action in legal:
            if _squash(action) == wanted:
                return action
        listing = ", ".join(legal)
        for action in self._all_player_actions(state):
            if _squash(action) == wanted:
                raise GameError(f"{action!r} is not available now; legal actions: {listing}")
        shown = text.strip()[:40]
        raise GameError(f"{shown!r} is not an action; reply with one of: {listing}")

    def _alias(self, key: str) -> str:
        """A game's extra spelling of an action (Comparing Cards: a bare number)."""
        return key

    def _all_player_actions(self, state: GameState) -> tuple[str, ...]:
        """Actions the player may have in some state, for a clearer refusal."""
        return self.actions(state)


def _squash(text: str) -> str:
    return "".join(text.lower().split())


_G = TypeVar("_G", bound="type[Game]")
_REGISTRY: dict[str, Game] = {}
_BUILTIN = ("_rps", "_pd", "_lsd", "_cards")


def register_game(cls: _G) -> _G:
    """Class decorator: register one instance of a game under ``cls.name``."""
    if cls.name in _REGISTRY:
        raise ValueError(f"game {cls.name!r} registered twice")
    _REGISTRY[cls.name] = cls()
    return cls


def _load_builtin() -> None:
    for module in _BUILTIN:
        importlib.import_module(f"blackboxes.games.{module}")


def get_game(name: str) -> Game:
    """The registered game called ``name`` (case-insensitive)."""
    _load_builtin()
    game = _REGISTRY.get(name.lower())
    if game is None:
        raise UnknownNameError("game", name, game_names())
    return game


def game_names() -> list[str]:
    """The registered games' names, sorted."""
    _load_builtin()
    return sorted(_REGISTRY)
