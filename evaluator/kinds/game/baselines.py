"""The game baselines: ``random``, ``fixed`` and ``adaptive`` exploration against the
agents' prior over opponents (the family's ``agent_space``: every strategy kind of the
box's level for its game, mixed by their marginal likelihood).

All three observe every finished game into the space and play every evaluation game by
the best response to the posterior, updated round by round within the game; they differ
in how they explore:

- ``random``: uniformly random legal actions;
- ``fixed``: the legal actions in turn (round t plays the (t mod n)-th), whatever happens;
- ``adaptive``: the best response to the posterior already while exploring, which shows
  the opponent's answers to the play that will matter.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evaluator.kinds.game.protocol import (
    GameAgentContext,
    GameBriefing,
    Phase,
    RoundResult,
    register_game_agent,
)

__all__ = ["AdaptiveGameAgent", "FixedGameAgent", "RandomGameAgent"]


class _SpaceAgent:
    def __init__(self, ctx: GameAgentContext) -> None:
        self.ctx = ctx
        self.space: Any = None
        self.settings: dict[str, int] = {}
        self.history: list[tuple[str, str]] = []
        self.phase: Phase = "explore"
        self._notes: list[str] = []

    def start(self, briefing: GameBriefing) -> None:
        self.space = None

    def begin_setting(self, index: int, settings: Mapping[str, int], message: str) -> None:
        self.settings = dict(settings)
        if self.space is None:
            self.space = self.ctx.family.agent_space(self.settings)

    def begin_game(self, phase: Phase, number: int, message: str) -> None:
        self.phase, self.history = phase, []

    def act(self, banner: str, legal: tuple[str, ...]) -> str:
        if self.phase == "evaluate" or self.exploits():
            return str(self.space.best_response(self.settings, tuple(self.history)))
        return self.explore(legal)

    def observe(self, result: RoundResult) -> None:
        self.history.append((result.action, result.opponent))

    def end_game(self, score: int, message: str) -> None:
        after = self.space.observe(self.settings, tuple(self.history))
        if after.log2_count() == float("-inf"):
            self._notes.append("a game fits no opponent of the prior; not observed")
        else:
            self.space = after

    def notes(self) -> list[str]:
        return list(self._notes)

    def exploits(self) -> bool:
        return False

    def explore(self, legal: tuple[str, ...]) -> str:
        return legal[0]


@register_game_agent("random")
class RandomGameAgent(_SpaceAgent):
    """Tier 1: random legal actions while exploring."""

    def explore(self, legal: tuple[str, ...]) -> str:
        return str(self.ctx.rng.choice(legal))


@register_game_agent("fixed")
class FixedGameAgent(_SpaceAgent):
    """Tier 2: every action in turn while exploring, whatever the opponent does."""

    def explore(self, legal: tuple[str, ...]) -> str:
        return legal[len(self.history) % len(legal)]


@register_game_agent("adaptive")
class AdaptiveGameAgent(_SpaceAgent):
    """Tier 3: the posterior's best response while exploring too."""

    def exploits(self) -> bool:
        return True
