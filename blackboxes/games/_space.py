"""Version spaces over one strategy kind's parameters, from observed games.

Prior: uniform over the kind's parameters (:meth:`Strategy.space`). An observed game is
its settings and its rounds (player action, opponent action). A parameter's weight is
its likelihood, the product over rounds of the probability it gave the opponent's
observed action: 1 or 0 for a deterministic kind (the consistent subset), a product of
probabilities for a mixed one (posterior weights). Two representations:

* :class:`ExplicitSpace`: every parameter with a nonzero weight (exact ``Fraction``);
* :class:`FactorisedSpace`: for a :class:`FactorisedKind` (the 7**8 RPS-7 reactive
  maps), one set of allowed values per component; the count is their product.

The true parameters are never put in: if the true opponent's games empty a space, the
space or the opponent is wrong. Parameters keep their meaning across a box's settings,
so games of different lengths (or deck sizes) are observed into one space.
"""

from __future__ import annotations

import itertools
import math
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal, cast

from blackboxes.games._base import Game, GameError, GameState
from blackboxes.games._strategy import (
    FactorisedKind,
    History,
    Opponent,
    Params,
    Strategy,
    StratState,
    params_from_json,
)
from blackboxes.games._values import BestResponse
from blackboxes.information import entropy_bits

__all__ = [
    "QMDP_LIMIT",
    "ExplicitSpace",
    "FactorisedSpace",
    "Horizon",
    "StrategySpace",
    "version_space",
]

QMDP_LIMIT = 512
"""Most candidates :meth:`StrategySpace.best_response` weighs by their own optimal
values (``horizon="game"``); with more it falls back to the one-round best reply."""

Horizon = Literal["round", "game"]
ZERO = Fraction(0)

Outlook = dict[str, tuple[dict[tuple[str, str], float], float]]
"""Per player action ``a`` this round: the distribution of (the opponent's reply this
round, its reply next round) were the player to play ``a``, and the expected entropy
(bits) of that pair under a single candidate (0 for a deterministic kind)."""


def entropy(dist: Mapping[Any, float]) -> float:
    """Shannon entropy in bits of a distribution given as probabilities."""
    return entropy_bits(dist.values())


def _add(into: dict[tuple[str, str], float], key: tuple[str, str], p: float) -> None:
    into[key] = into.get(key, 0.0) + p


@dataclass(frozen=True)
class _Walk:
    """A history replayed through the game: the states before each round and after."""

    states: tuple[GameState, ...]


def _walk(game: Game, settings: Mapping[str, int], history: History) -> _Walk:
    """The game states along ``history``; refuses a history that breaks the rules or is
    longer than the game."""
    if len(history) > game.rounds(settings):
        raise GameError(f"{len(history)} rounds observed in a game of {game.rounds(settings)}")
    state = game.initial_state(settings)
    states = [state]
    for a, b in history:
        state, _ = game.step(state, a, b)
        states.append(state)
    return _Walk(tuple(states))


def _items(settings: Mapping[str, int]) -> tuple[tuple[str, int], ...]:
    return tuple(sorted(settings.items()))


class StrategySpace(ABC):
    """The parameters of one kind consistent with the games observed so far."""

    def __init__(self, game: Game, strategy: Strategy, settings: Mapping[str, int]) -> None:
        self.game = game
        self.strategy = strategy
        self.settings = game.settings(settings)
        self._solvers: dict[tuple[Params, tuple[tuple[str, int], ...]], BestResponse] = {}

    @abstractmethod
    def observe(self, settings: Mapping[str, int], history: History) -> StrategySpace:
        """The space after one more observed game (whole or partial) at ``settings``."""

    @abstractmethod
    def count(self) -> int:
        """Number of parameters still possible (nonzero weight)."""

    @abstractmethod
    def contains(self, params: Params) -> bool:
        """True when ``params`` is still possible."""

    @abstractmethod
    def posterior(
        self, settings: Mapping[str, int], history: History, limit: int
    ) -> list[tuple[Params, Fraction]] | None:
        """The possible parameters with normalised weights given also ``history`` (the
        current game so far); None when there are more than ``limit``."""

    @abstractmethod
    def predictive(self, settings: Mapping[str, int], history: History) -> dict[str, Fraction]:
        """The posterior predictive of the opponent's next action after ``history`` in the
        current game; empty when no parameter explains ``history``."""

    @abstractmethod
    def outlook(self, settings: Mapping[str, int], history: History) -> Outlook:
        """For each legal player action now, what the opponent's replies this round and
        next would be under the posterior given also ``history`` (see :data:`Outlook`);
        empty when no parameter explains ``history``. What an explorer weighs: how much a
        move would tell about the opponent."""

    def log2_count(self) -> float:
        """log2 of :meth:`count` (``-inf`` for an empty space)."""
        n = self.count()
        return math.log2(n) if n else -math.inf

    def opponent(self, settings: Mapping[str, int], params: Params) -> Opponent:
        """A candidate as an opponent (trusted: it comes from the kind's own space)."""
        return Opponent(self.strategy, self.game, _items(self.game.settings(settings)), params)

    def best_response(
        self, settings: Mapping[str, int], history: History, horizon: Horizon = "game"
    ) -> str:
        """The best action for the next round against the posterior.

        ``round``: the most expected points this round under :meth:`predictive`.
        ``game``: the most posterior-expected optimal score for the rest of the game,
        each candidate scored by its own best-response values (a player assumed to
        learn the opponent after this round); with more than :data:`QMDP_LIMIT`
        candidates, as ``round``. Ties go to the action first in the game's order.
        """
        checked = self.game.settings(settings)
        walk = _walk(self.game, checked, history)
        state = walk.states[-1]
        actions = self.game.actions(state)
        if len(history) >= self.game.rounds(checked):
            raise GameError("the game is over: no next round")
        scores = dict.fromkeys(actions, ZERO)
        post = self.posterior(checked, history, QMDP_LIMIT) if horizon == "game" else None
        if post is not None:
            for params, weight in post:
                solver = self._solver(checked, params)
                strat_state = solver.opponent.replay(history)
                for a, q in solver.q_values(len(history), state, strat_state).items():
                    scores[a] += weight * q
        else:
            pred = self.predictive(checked, history)
            for a in actions:
                scores[a] = sum(
                    (p * self.game.resolve(state, a, b).player_points for b, p in pred.items()),
                    ZERO,
                )
        return max(actions, key=lambda a: (scores[a], -actions.index(a)))

    def _solver(self, settings: Mapping[str, int], params: Params) -> BestResponse:
        key = (params, _items(settings))
        if key not in self._solvers:
            opponent = self.opponent(settings, params)
            self._solvers[key] = BestResponse(self.game, opponent, self.game.rounds(settings))
        return self._solvers[key]


def _likelihood(op: Opponent, walk: _Walk, history: History) -> Fraction:
    return _replayed(op, walk, history)[0]


def _replayed(op: Opponent, walk: _Walk, history: History) -> tuple[Fraction, Any]:
    """The likelihood of ``history`` under ``op`` and its strategy state after it."""
    strat_state = op.initial()
    weight = Fraction(1)
    for (a, b), state in zip(history, walk.states, strict=False):
        p = op.distribution(strat_state, state).get(b)
        if not p:
            return ZERO, strat_state
        weight *= p
        strat_state = op.update(strat_state, a, b)
    return weight, strat_state


class ExplicitSpace(StrategySpace):
    """Every possible parameter with its (unnormalised) posterior weight."""

    def __init__(
        self,
        game: Game,
        strategy: Strategy,
        settings: Mapping[str, int],
        weights: Sequence[tuple[Params, Fraction]] | None = None,
    ) -> None:
        super().__init__(game, strategy, settings)
        if weights is None:
            weights = [(p, Fraction(1)) for p in strategy.space(game, self.settings)]
        self.weights: tuple[tuple[Params, Fraction], ...] = tuple(weights)

    def _weighted(
        self, settings: Mapping[str, int], history: History
    ) -> list[tuple[Params, Fraction, Opponent]]:
        checked = self.game.settings(settings)
        walk = _walk(self.game, checked, history)
        out = []
        for params, weight in self.weights:
            op = self.opponent(checked, params)
            w = weight * _likelihood(op, walk, history)
            if w:
                out.append((params, w, op))
        return out

    def observe(self, settings: Mapping[str, int], history: History) -> ExplicitSpace:
        kept = [(p, w) for p, w, _ in self._weighted(settings, history)]
        new = ExplicitSpace(self.game, self.strategy, self.settings, kept)
        new._solvers = self._solvers
        return new

    def count(self) -> int:
        return len(self.weights)

    def contains(self, params: Params) -> bool:
        wanted = params_from_json(params)
        return any(p == wanted for p, _ in self.weights)

    def entropy_bits(self) -> float:
        """Entropy of the normalised posterior (log2 count for a deterministic kind)."""
        total = sum(w for _, w in self.weights)
        return -sum(float(w / total) * math.log2(w / total) for _, w in self.weights)

    def posterior(
        self, settings: Mapping[str, int], history: History, limit: int
    ) -> list[tuple[Params, Fraction]] | None:
        weighted = self._weighted(settings, history)
        if len(weighted) > limit:
            return None
        total = sum(w for _, w, _ in weighted)
        return [(p, w / total) for p, w, _ in weighted]

    def outlook(self, settings: Mapping[str, int], history: History) -> Outlook:
        checked = self.game.settings(settings)
        walk = _walk(self.game, checked, history)
        state = walk.states[-1]
        actions = self.game.actions(state)
        joints: dict[str, dict[tuple[str, str], float]] = {a: {} for a in actions}
        noise = dict.fromkeys(actions, 0.0)
        total = 0.0
        for params, weight in self.weights:
            op = self.opponent(checked, params)
            likelihood, strat_state = _replayed(op, walk, history)
            w = float(weight * likelihood)
            if not w:
                continue
            total += w
            now = op.distribution(strat_state, state)
            for a in actions:
                own: dict[tuple[str, str], float] = {}
                for b, pb in now.items():
                    after = self.game.resolve(state, a, b).state
                    following = op.distribution(op.update(strat_state, a, b), after)
                    for n, pn in following.items():
                        own[(b, n)] = float(pb * pn)
                for key, p in own.items():
                    _add(joints[a], key, w * p)
                if op.mixed:
                    noise[a] += w * entropy(own)
        if not total:
            return {}
        return {
            a: ({k: p / total for k, p in joints[a].items()}, noise[a] / total) for a in actions
        }

    def predictive(self, settings: Mapping[str, int], history: History) -> dict[str, Fraction]:
        checked = self.game.settings(settings)
        state = _walk(self.game, checked, history).states[-1]
        mix: dict[str, Fraction] = {}
        total = ZERO
        for _, w, op in self._weighted(checked, history):
            strat_state = op.replay(history)
            for b, p in op.distribution(strat_state, state).items():
                mix[b] = mix.get(b, ZERO) + w * p
            total += w
        return {b: p / total for b, p in mix.items()} if total else {}


class FactorisedSpace(StrategySpace):
    """For a :class:`FactorisedKind`: the allowed values of each component."""

    def __init__(
        self,
        game: Game,
        strategy: FactorisedKind,
        settings: Mapping[str, int],
        allowed: Sequence[tuple[Any, ...]] | None = None,
    ) -> None:
        super().__init__(game, strategy, settings)
        self.kind = strategy
        self.allowed = tuple(allowed or strategy.domains(game, self.settings))

    def _narrowed(self, settings: Mapping[str, int], history: History) -> list[tuple[Any, ...]]:
        checked = self.game.settings(settings)
        walk = _walk(self.game, checked, history)
        allowed = list(self.allowed)
        for t, (_, b) in enumerate(history):
            c = self.kind.component(self.game, checked, history[:t])
            state = walk.states[t]
            allowed[c] = tuple(
                v for v in allowed[c] if self.kind.action_of(self.game, state, v) == b
            )
        return allowed

    def observe(self, settings: Mapping[str, int], history: History) -> FactorisedSpace:
        new = FactorisedSpace(
            self.game, self.kind, self.settings, self._narrowed(settings, history)
        )
        new._solvers = self._solvers
        return new

    def count(self) -> int:
        return math.prod(len(v) for v in self.allowed)

    def mean_opponent(self, settings: Mapping[str, int], history: History) -> Opponent | None:
        """The posterior's average opponent given also ``history`` (see
        :class:`_MeanKind`): what a best response over too many candidates to weigh one
        by one plans against. None when no parameter explains ``history``."""
        checked = self.game.settings(settings)
        allowed = tuple(self._narrowed(checked, history))
        if not all(allowed):
            return None
        inner = Opponent(self.kind, self.game, _items(checked), tuple(v[0] for v in allowed))
        return Opponent(_MeanKind(inner, allowed), self.game, _items(checked), ())

    def contains(self, params: Params) -> bool:
        wanted = params_from_json(params)
        return len(wanted) == len(self.allowed) and all(
            v in a for v, a in zip(wanted, self.allowed, strict=True)
        )

    def posterior(
        self, settings: Mapping[str, int], history: History, limit: int
    ) -> list[tuple[Params, Fraction]] | None:
        allowed = self._narrowed(settings, history)
        n = math.prod(len(v) for v in allowed)
        if n > limit:
            return None
        return [(p, Fraction(1, n)) for p in itertools.product(*allowed)] if n else []

    def predictive(self, settings: Mapping[str, int], history: History) -> dict[str, Fraction]:
        checked = self.game.settings(settings)
        state = _walk(self.game, checked, history).states[-1]
        allowed = self._narrowed(checked, history)
        if not all(allowed):
            return {}
        values = allowed[self.kind.component(self.game, checked, history)]
        mix: dict[str, Fraction] = {}
        for v in values:
            b = self.kind.action_of(self.game, state, v)
            mix[b] = mix.get(b, ZERO) + Fraction(1, len(values))
        return mix

    def outlook(self, settings: Mapping[str, int], history: History) -> Outlook:
        # Uniform over each component's allowed values, independently; this round's reply
        # and the next come from one component's value when they share it.
        checked = self.game.settings(settings)
        state = _walk(self.game, checked, history).states[-1]
        allowed = self._narrowed(checked, history)
        if not all(allowed):
            return {}
        now = self.kind.component(self.game, checked, history)
        out: Outlook = {}
        for a in self.game.actions(state):
            joint: dict[tuple[str, str], float] = {}
            for v in allowed[now]:
                b = self.kind.action_of(self.game, state, v)
                after = self.game.resolve(state, a, b).state
                nxt = self.kind.component(self.game, checked, (*history, (a, b)))
                values = (v,) if nxt == now else allowed[nxt]
                p = 1.0 / (len(allowed[now]) * len(values))
                for v1 in values:
                    _add(joint, (b, self.kind.action_of(self.game, after, v1)), p)
            out[a] = (joint, 0.0)
        return out


class _MeanKind(Strategy):
    """The posterior's average opponent of a factorised space: the kind's own machine,
    each round drawing the deciding component's value uniformly from its allowed values,
    independently (a value seen again is drawn afresh: what a planner that does not
    count on learning within the game assumes). Built by
    :meth:`FactorisedSpace.mean_opponent`, never registered."""

    name = "posterior_mean"
    title = "the posterior's average opponent"
    mixed = True

    def __init__(self, inner: Opponent, allowed: tuple[tuple[Any, ...], ...]) -> None:
        self.inner = inner
        self.kind = cast(FactorisedKind, inner.strategy)
        self.allowed = allowed

    def applies(self, game: Game) -> bool:
        return game is self.inner.game

    def space(self, game: Game, settings: Mapping[str, int]) -> Sequence[Params]:
        return [()]

    def describe(self, game: Game, params: Params) -> str:
        return f"plays as the average {self.kind.name} opponent still possible"

    def initial(self, op: Opponent) -> StratState:
        return self.kind.initial(self.inner)

    def distribution(
        self, op: Opponent, strat_state: StratState, game_state: GameState
    ) -> dict[str, Fraction]:
        values = self.allowed[self.kind.component_of(self.inner, strat_state)]
        dist: dict[str, Fraction] = {}
        for v in values:
            b = self.kind.action_of(op.game, game_state, v)
            dist[b] = dist.get(b, ZERO) + Fraction(1, len(values))
        return dist

    def update(
        self, op: Opponent, strat_state: StratState, player_action: str, opp_action: str
    ) -> StratState:
        return self.kind.update(self.inner, strat_state, player_action, opp_action)

    def reference(
        self, op: Opponent, history: History, game_state: GameState
    ) -> dict[str, Fraction]:
        strat_state = self.initial(op)
        for a, b in history:
            strat_state = self.update(op, strat_state, a, b)
        return self.distribution(op, strat_state, game_state)


def version_space(game: Game, strategy: Strategy, settings: Mapping[str, int]) -> StrategySpace:
    """The prior space of ``strategy`` in ``game`` (uniform over its parameters)."""
    if not strategy.applies(game):
        raise GameError(f"strategy {strategy.name} does not apply to game {game.name}")
    if isinstance(strategy, FactorisedKind):
        return FactorisedSpace(game, strategy, settings)
    return ExplicitSpace(game, strategy, settings)
