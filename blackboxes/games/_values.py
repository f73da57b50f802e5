"""Exact values of a game against an opponent: the optimum, its check, the guarantee.

* :func:`best_response_value`: the optimal expected total score of a player who knows
  the opponent, by dynamic programming over (round, game state, strategy state); exact
  (``Fraction``), since every probability is a ``Fraction`` and points are integers.
* :func:`brute_force_value`: the same number by walking the whole game tree (every
  player action at every node, expectation over the opponent's draws) with the
  strategy's history-based reference, no memo and no strategy states: the DP's check.
* :func:`security_value`: what a player can guarantee knowing nothing about the
  opponent: the maximin value of the repeated game against an opponent who minimises
  the player's points (backward induction over game states; each stage's mixed maximin
  by linear programming). The "learned nothing" reference.
* :func:`expected_score`: the expected score of a given player policy (uniform random
  play, say) against the opponent.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache

from blackboxes.games._base import Game, GameState, get_game
from blackboxes.games._strategy import History, Opponent, Params, Strategy, StratState, uniform

__all__ = [
    "BestResponse",
    "PlayerPolicy",
    "best_response_policy",
    "best_response_value",
    "brute_force_value",
    "expected_score",
    "matrix_value",
    "security_value",
    "uniform_policy",
]

PlayerPolicy = Callable[[int, GameState], Mapping[str, Fraction]]
"""A player who picks from a distribution that depends on the round and the game state."""

ZERO = Fraction(0)


def _room(rounds: int) -> None:
    # The solvers recurse once per round; long games need a little more than the default.
    if sys.getrecursionlimit() < 4 * rounds + 200:
        sys.setrecursionlimit(4 * rounds + 200)


@dataclass
class BestResponse:
    """An optimal player against one opponent; its table fills in as it is asked."""

    game: Game
    opponent: Opponent
    rounds: int
    _memo: dict[tuple[int, GameState, Hashable], tuple[Fraction, str]] = field(
        default_factory=dict, repr=False
    )

    @property
    def value(self) -> Fraction:
        """The optimal expected total score from the start of the game."""
        start = self.game.initial_state(self.opponent.settings)
        return self.solve(0, start, self.opponent.initial())[0]

    def action(self, round_index: int, game_state: GameState, strat_state: StratState) -> str:
        """An optimal action (the first in the game's order among the optimal ones)."""
        return self.solve(round_index, game_state, strat_state)[1]

    def q_values(
        self, round_index: int, game_state: GameState, strat_state: StratState
    ) -> dict[str, Fraction]:
        """Each legal action's optimal expected score from this round on."""
        dist = self.opponent.distribution(strat_state, game_state)
        return {
            a: self._q(round_index, game_state, strat_state, a, dist)
            for a in self.game.actions(game_state)
        }

    def play(self, round_index: int, game_state: GameState, history: History) -> str:
        """An optimal action after ``history`` (the opponent's state replayed from it)."""
        return self.action(round_index, game_state, self.opponent.replay(history))

    def solve(
        self, round_index: int, game_state: GameState, strat_state: StratState
    ) -> tuple[Fraction, str]:
        """(value, optimal action) from this round on."""
        if round_index >= self.rounds:
            return ZERO, ""
        left = self.rounds - round_index
        key = (round_index, game_state, self.opponent.memo_key(strat_state, left))
        hit = self._memo.get(key)
        if hit is not None:
            return hit
        dist = self.opponent.distribution(strat_state, game_state)
        best: tuple[Fraction, str] | None = None
        for a in self.game.actions(game_state):
            q = self._q(round_index, game_state, strat_state, a, dist)
            if best is None or q > best[0]:
                best = (q, a)
        if best is None:
            best = (ZERO, "")
        self._memo[key] = best
        return best

    def _q(
        self,
        round_index: int,
        game_state: GameState,
        strat_state: StratState,
        action: str,
        dist: Mapping[str, Fraction],
    ) -> Fraction:
        total = ZERO
        for b, p in dist.items():
            out = self.game.resolve(game_state, action, b)
            nxt = self.opponent.update(strat_state, action, b)
            total += p * (out.player_points + self.solve(round_index + 1, out.state, nxt)[0])
        return total


def best_response_policy(
    game: Game, settings: Mapping[str, int], strategy: Strategy, params: Params
) -> BestResponse:
    """An optimal player against the opponent ``(strategy, params)``."""
    opponent = strategy.bind(game, settings, params)
    rounds = game.rounds(settings)
    _room(rounds)
    return BestResponse(game, opponent, rounds)


def best_response_value(
    game: Game, settings: Mapping[str, int], strategy: Strategy, params: Params
) -> Fraction:
    """The exact optimal expected total score against ``(strategy, params)``."""
    return best_response_policy(game, settings, strategy, params).value


def brute_force_value(
    game: Game, settings: Mapping[str, int], strategy: Strategy, params: Params
) -> Fraction:
    """The optimum by a full game-tree walk over histories (exponential: small games only)."""
    opponent = strategy.bind(game, settings, params)
    rounds = game.rounds(settings)
    _room(rounds)

    def walk(history: History, state: GameState) -> Fraction:
        if len(history) == rounds:
            return ZERO
        dist = opponent.reference(history, state)
        if sum(dist.values()) != 1:
            raise ValueError(f"{strategy.name}: probabilities sum to {sum(dist.values())}")
        best: Fraction | None = None
        for a in game.actions(state):
            q = ZERO
            for b, p in dist.items():
                nxt, points = game.step(state, a, b)
                q += p * (points + walk((*history, (a, b)), nxt))
            best = q if best is None or q > best else best
        return ZERO if best is None else best

    return walk((), game.initial_state(settings))


def uniform_policy(game: Game) -> PlayerPolicy:
    """The player who picks uniformly among its legal actions every round."""

    def policy(round_index: int, state: GameState) -> Mapping[str, Fraction]:
        return uniform(game.actions(state))

    return policy


def expected_score(
    game: Game,
    settings: Mapping[str, int],
    strategy: Strategy,
    params: Params,
    player_policy: PlayerPolicy,
) -> Fraction:
    """The exact expected total score of ``player_policy`` against ``(strategy, params)``."""
    opponent = strategy.bind(game, settings, params)
    rounds = game.rounds(settings)
    _room(rounds)
    memo: dict[tuple[int, GameState, Hashable], Fraction] = {}

    def value(t: int, state: GameState, s: StratState) -> Fraction:
        if t >= rounds:
            return ZERO
        key = (t, state, opponent.memo_key(s, rounds - t))
        if key in memo:
            return memo[key]
        dist = opponent.distribution(s, state)
        total = ZERO
        for a, pa in player_policy(t, state).items():
            if not pa:
                continue
            for b, pb in dist.items():
                out = game.resolve(state, a, b)
                nxt = opponent.update(s, a, b)
                total += pa * pb * (out.player_points + value(t + 1, out.state, nxt))
        memo[key] = total
        return total

    return value(0, game.initial_state(settings), opponent.initial())


def security_value(game: Game, settings: Mapping[str, int]) -> float:
    """The maximin total score: the most a player can guarantee in expectation against
    any opponent (which may see the whole public history but not the player's draw of
    the current round). Backward induction: the value of a state with t rounds to go is
    the mixed maximin of the stage matrix points + value of the next state.

    Cached per (game, settings): Comparing Cards with 10 cards solves ~5000 programs."""
    return _security(game.name, tuple(sorted(game.settings(settings).items())))


@cache
def _security(name: str, settings_items: tuple[tuple[str, int], ...]) -> float:
    game = get_game(name)
    checked = dict(settings_items)
    rounds = game.rounds(checked)
    _room(rounds)
    memo: dict[tuple[int, Hashable], float] = {}
    solved: dict[tuple[tuple[float, ...], ...], float] = {}

    def value(t: int, state: GameState) -> float:
        if t >= rounds:
            return 0.0
        key = (t, game.canonical(state))
        if key in memo:
            return memo[key]
        rows = game.actions(state)
        cols = game.opp_actions(state)
        matrix = []
        for a in rows:
            row = []
            for b in cols:
                out = game.resolve(state, a, b)
                row.append(out.player_points + value(t + 1, out.state))
            matrix.append(row)
        # Many states share a stage matrix; round so float noise does not split them.
        exact = tuple(tuple(round(x, 9) for x in row) for row in matrix)
        if exact not in solved:
            solved[exact] = matrix_value(matrix)
        memo[key] = solved[exact]
        return memo[key]

    # Rounded so float noise of the programs (3.4999999999999987) does not show.
    return round(value(0, game.initial_state(checked)), 9)


def matrix_value(matrix: Sequence[Sequence[float]]) -> float:
    """The row player's mixed maximin of a payoff matrix (rows maximise, columns minimise)."""
    lower = max(min(row) for row in matrix)
    upper = min(max(row[j] for row in matrix) for j in range(len(matrix[0])))
    if upper - lower <= 1e-12:
        return lower  # a saddle point: no program needed
    import numpy as np
    from scipy.optimize import linprog

    m = np.asarray(matrix, dtype=float)
    n_rows, n_cols = m.shape
    # Variables: the row mix x (n_rows) and the value v; maximise v subject to
    # v <= x . column j for every column, sum x = 1, x >= 0.
    cost = np.zeros(n_rows + 1)
    cost[-1] = -1.0
    a_ub = np.hstack([-m.T, np.ones((n_cols, 1))])
    a_eq = np.hstack([np.ones((1, n_rows)), np.zeros((1, 1))])
    bounds = [(0.0, None)] * n_rows + [(None, None)]
    res = linprog(
        cost,
        A_ub=a_ub,
        b_ub=np.zeros(n_cols),
        A_eq=a_eq,
        b_eq=[1.0],
        bounds=bounds,
        method="highs",
    )
    if not res.success:
        raise ArithmeticError(f"stage maximin failed: {res.message}")
    return float(-res.fun)
