"""The game baselines: ``random``, ``fixed`` and ``adaptive`` exploration against the
agents' prior over opponents (the family's ``agent_space``: every strategy kind of the
box's level for its game, mixed by their marginal likelihood).

All three observe every finished game into the space; they differ in how they explore and
whether their play responds to the opponent (ORACLE's tiers):

- ``random`` explores with uniformly random legal actions;
- ``fixed`` explores with a fixed sweep of the game's actions that plays every action
  first and then every ordered pair of consecutive actions (every triple in 2-action
  games, whose pairs repeat too soon; runs as long as the longest context a map of the
  prior reads; :func:`sweep`), the same whatever happens;
- both play an evaluation game open-loop: planned before the game, each round the
  posterior's best response with the opponent's likeliest replies taken as seen, and
  kept whatever the real opponent does (systematic, not adaptive);
- ``adaptive`` explores where it pays: each exploration round it plays the move whose
  replies (this round's and the next) would tell most about the opponent
  (:meth:`MixtureSpace.information`, greedy expected information), preferring among
  equally informative moves, and when nothing is left to learn one round ahead, the
  best response to the posterior, which shows the opponent's answers to the play that
  will matter (an opponent that changes once it is beaten is found so); in the
  evaluation games it plays the best response to the posterior, updated round by round.

Each agent knows what the protocol lets it keep: under ``context="reset"`` (ORACLE's,
the default) its prior starts afresh at every setting, as an LLM agent's conversation
does; under ``keep`` the games of earlier settings stay observed.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from evaluator.kinds.game.protocol import (
    GameAgentContext,
    GameBriefing,
    Phase,
    RoundResult,
    register_game_agent,
)

__all__ = ["AdaptiveGameAgent", "FixedGameAgent", "RandomGameAgent", "sweep", "sweep_order"]


def sweep(n: int, order: int = 2) -> list[int]:
    """A cyclic order of ``n`` actions' indices that holds every run of ``order``
    consecutive indices exactly once (a de Bruijn sequence: an Euler circuit of the de
    Bruijn graph), ``n**order + order - 1`` long, its last ``order - 1`` entries
    repeating its first. With ``order`` 2 it starts ``0, 1, ..., n-1``.

    Successors are tried in the order +1, +2, ..., +0 (mod n) of the last index, so the
    walk starts as a tour of every action: a reactive opponent's replies to single
    actions come first, its replies to runs of moves by the end.
    """
    if n < 1 or order < 1:
        return []
    start = (0,) * (order - 1)
    unused: dict[tuple[int, ...], list[int]] = {}

    def successors(node: tuple[int, ...]) -> list[int]:
        if node not in unused:
            last = node[-1] if node else 0
            unused[node] = [(last + d) % n for d in (*range(1, n), 0)]
        return unused[node]

    stack: list[tuple[tuple[int, ...], int]] = [(start, -1)]
    symbols: list[int] = []
    while stack:
        node, symbol = stack[-1]
        nxt = successors(node)
        if nxt:
            a = nxt.pop(0)
            stack.append(((*node, a)[1:] if order > 1 else (), a))
        else:
            stack.pop()
            if symbol >= 0:
                symbols.append(symbol)
    return [*start, *symbols[::-1]]


def sweep_order(n: int, longest_cycle: int) -> int:
    """The sweep's order for ``n`` actions: 2, or more while ``n**order`` is at most
    ``longest_cycle``, so the sweep's period is longer than any cycle an opponent may
    play and a cycling opponent cannot pass for one that answers the sweep."""
    order = 2
    while n > 1 and n**order <= longest_cycle:
        order += 1
    return order


class _SpaceAgent:
    def __init__(self, ctx: GameAgentContext) -> None:
        self.ctx = ctx
        self.space: Any = None
        self.settings: dict[str, int] = {}
        self.history: list[tuple[str, str]] = []
        self.phase: Phase = "explore"
        self.plan: list[str] = []
        self.reset_each = True
        self.explored = 0
        """Exploration rounds played since the prior was fresh."""
        self._notes: list[str] = []

    def start(self, briefing: GameBriefing) -> None:
        self.space = None
        self.reset_each = briefing.context == "reset"

    def begin_setting(self, index: int, settings: Mapping[str, int], message: str) -> None:
        self.settings = dict(settings)
        if self.space is None or self.reset_each:
            self.space = self.ctx.family.agent_space(self.settings)
            self.explored = 0

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
        self.explored += 1
        return self.explore(legal)

    def open_loop(self) -> list[str]:
        """The evaluation game planned before it is played: each round the best response
        to the posterior (as the adaptive agent's), the opponent's likeliest reply
        (ties: the game's order) taken as seen, so the plan never hears the real one."""
        game = self.ctx.family.game
        order = game.alphabet(self.settings)
        imagined: list[tuple[str, str]] = []
        plan: list[str] = []
        for _ in range(game.rounds(self.settings)):
            pred = self.space.predictive(self.settings, tuple(imagined))
            if not pred:
                break
            mine = str(self.space.best_response(self.settings, tuple(imagined)))
            theirs = max(pred, key=lambda b: (pred[b], -order.index(b)))
            plan.append(mine)
            imagined.append((mine, theirs))
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
    """Tier 2: a fixed sweep of every action, then every pair of consecutive actions,
    while exploring, whatever the opponent does (an illegal step plays the first legal
    action)."""

    def explore(self, legal: tuple[str, ...]) -> str:
        game = self.ctx.family.game
        actions = game.alphabet(self.settings)
        # Runs as long as the longest context a map of the prior reads, so the sweep
        # shows such a map a new context every round.
        memory = max((c.strategy.reply_memory(game) for c in self.space.components), default=0)
        walk = _sweep(len(actions), max(memory, sweep_order(len(actions), game.max_cycle)))
        wanted = actions[walk[(self.explored - 1) % len(walk)]]
        return wanted if wanted in legal else legal[0]


@register_game_agent("adaptive")
class AdaptiveGameAgent(_SpaceAgent):
    """Tier 3: the most informative move while exploring (else the best response), and
    the posterior's best response, round by round, in the evaluation games."""

    def exploits(self) -> bool:
        return self.phase == "evaluate"

    def explore(self, legal: tuple[str, ...]) -> str:
        history = tuple(self.history)
        last = len(history) + 1 >= self.ctx.family.game.rounds(self.settings)
        info = {} if last else self.space.information(self.settings, history)
        top = max(info.values(), default=0.0)
        if top <= 0.0:
            # Nothing to learn one round ahead (or no round ahead): the posterior's best
            # response, which is cheap by now since few opponents are left.
            return str(self.space.best_response(self.settings, history))
        best = [a for a in legal if info.get(a, 0.0) >= top]
        if len(best) == 1:
            return best[0]
        # Among equally informative moves, the one that scores most this round: winning
        # is what sets off an opponent that changes once beaten.
        mine = str(self.space.best_response(self.settings, history, horizon="round"))
        return mine if mine in best else best[0]


@lru_cache(maxsize=16)
def _sweep(n: int, order: int) -> tuple[int, ...]:
    # The cyclic sequence: the circuit without its repeated opening.
    return tuple(sweep(n, order)[: n**order])
