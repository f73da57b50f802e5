"""The game baselines: ``random``, ``fixed`` and ``adaptive`` exploration against the
agents' prior over opponents (the family's ``agent_space``: every strategy kind of the
box's level for its game, mixed by their marginal likelihood).

All three observe every finished game into the space; they differ in how they explore and
whether their play responds to the opponent (ORACLE's tiers):

- ``random`` explores with uniformly random legal actions;
- ``fixed`` explores with the legal actions in turn (round t plays the (t mod n)-th),
  whatever happens;
- both play an evaluation game open-loop: the optimal play against the posterior's most
  probable opponent, planned before the game (the opponent's likeliest answers
  simulated) and kept whatever the real opponent does (systematic, not adaptive);
- ``adaptive`` plays the best response to the posterior, updated round by round, both
  while exploring (which shows the opponent's answers to the play that will matter) and
  in the evaluation games.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from blackboxes.games import best_response_policy, get_strategy
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
        self.plan: list[str] = []
        self._notes: list[str] = []

    def start(self, briefing: GameBriefing) -> None:
        self.space = None

    def begin_setting(self, index: int, settings: Mapping[str, int], message: str) -> None:
        self.settings = dict(settings)
        if self.space is None:
            self.space = self.ctx.family.agent_space(self.settings)

    def begin_game(self, phase: Phase, number: int, message: str) -> None:
        self.phase, self.history, self.plan = phase, [], []
        if phase == "evaluate" and not self.exploits():
            self.plan = self.open_loop()

    def act(self, banner: str, legal: tuple[str, ...]) -> str:
        if self.exploits():
            return str(self.space.best_response(self.settings, tuple(self.history)))
        if self.phase == "evaluate":
            t = len(self.history)
            planned = self.plan[t] if t < len(self.plan) else legal[0]
            return planned if planned in legal else legal[0]
        return self.explore(legal)

    def open_loop(self) -> list[str]:
        """The best play against the most probable opponent, as a fixed sequence: its
        likeliest answers simulated (ties: the game's order)."""
        top = self.space.top(1, self.settings)
        if not top:
            return []
        kind, params, _ = top[0]
        game = self.ctx.family.game
        policy = best_response_policy(game, self.settings, get_strategy(kind), params)
        opponent = policy.opponent
        state, strat_state = game.initial_state(self.settings), opponent.initial()
        order = game.alphabet(self.settings)
        plan: list[str] = []
        for t in range(game.rounds(self.settings)):
            mine = policy.action(t, state, strat_state)
            dist = opponent.distribution(strat_state, state)
            theirs = max(dist, key=lambda b: (dist[b], -order.index(b)))
            plan.append(mine)
            strat_state = opponent.update(strat_state, mine, theirs)
            state = game.resolve(state, mine, theirs).state
        return plan

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
