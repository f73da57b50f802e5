"""The agents' prior when the strategy kind is unknown: a mixture of kinds.

Prior: uniform over the kinds, then uniform over each kind's parameters (its
:func:`~blackboxes.games.version_space`). After observed games, a kind's weight is its
marginal likelihood, the mean over its prior parameters of their likelihoods: for a
deterministic kind the fraction of its parameters still consistent, for a mixed one the
mean of the products of probabilities. Everything is an exact ``Fraction``.

The true opponent is never put in: if its games empty the mixture, one of the kinds'
spaces or the opponent is wrong.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from fractions import Fraction

from blackboxes.games._base import Game, GameError
from blackboxes.games._space import (
    QMDP_LIMIT,
    ExplicitSpace,
    FactorisedSpace,
    Horizon,
    StrategySpace,
    _walk,
    entropy,
    version_space,
)
from blackboxes.games._strategy import (
    History,
    Opponent,
    Params,
    Strategy,
    get_strategy,
    params_from_json,
)
from blackboxes.games._values import BestResponse

__all__ = ["Candidate", "MixtureSpace", "mixture_space"]

Candidate = tuple[str, Params, Fraction]
"""(kind name, parameters, posterior probability)."""

ZERO = Fraction(0)
_SolverKey = tuple[str, Params, tuple[tuple[str, int], ...]]


def _items(settings: Mapping[str, int]) -> tuple[tuple[str, int], ...]:
    return tuple(sorted(settings.items()))


def _mass(space: StrategySpace) -> Fraction:
    """The unnormalised posterior mass of a kind's space: the sum of its parameters'
    weights (each starts at 1, so the prior mass is the space's size)."""
    if isinstance(space, ExplicitSpace):
        return sum((w for _, w in space.weights), ZERO)
    return Fraction(space.count())


def _within_entropy(space: StrategySpace) -> float:
    if isinstance(space, ExplicitSpace):
        return space.entropy_bits() if space.weights else 0.0
    n = space.count()
    return math.log2(n) if n else 0.0


class MixtureSpace:
    """Opponents of several kinds of one game consistent with the games observed so far.

    ``components`` are the kinds' version spaces (in the given kind order) and ``sizes``
    their prior sizes; a kind's posterior weight is proportional to its mass divided by
    its size (the uniform prior over kinds cancels).
    """

    def __init__(
        self,
        game: Game,
        components: Sequence[StrategySpace],
        sizes: Sequence[int] | None = None,
        solvers: dict[_SolverKey, BestResponse] | None = None,
    ) -> None:
        if not components:
            raise GameError("a mixture needs at least one strategy kind")
        names = [c.strategy.name for c in components]
        if len(set(names)) != len(names):
            raise GameError(f"a kind appears twice in the mixture: {', '.join(names)}")
        self.game = game
        self.components = tuple(components)
        self.sizes = tuple(sizes) if sizes is not None else tuple(c.count() for c in components)
        if len(self.sizes) != len(self.components) or min(self.sizes) < 1:
            raise GameError("every kind of a mixture needs its nonempty prior size")
        self._solvers: dict[_SolverKey, BestResponse] = {} if solvers is None else solvers

    @property
    def kinds(self) -> tuple[str, ...]:
        """The kinds' names, in the mixture's order."""
        return tuple(c.strategy.name for c in self.components)

    @property
    def settings(self) -> dict[str, int]:
        """The settings the kinds' parameters were enumerated at."""
        return dict(self.components[0].settings)

    def component(self, kind: str) -> StrategySpace:
        """The version space of ``kind``."""
        for c in self.components:
            if c.strategy.name == kind:
                return c
        raise GameError(f"strategy {kind} is not in this mixture ({', '.join(self.kinds)})")

    # -- observing -------------------------------------------------------------
    def observe(self, settings: Mapping[str, int], history: History) -> MixtureSpace:
        """The mixture after one more observed game (whole or partial) at ``settings``."""
        return MixtureSpace(
            self.game,
            [c.observe(settings, history) for c in self.components],
            self.sizes,
            self._solvers,
        )

    def count(self) -> int:
        """Number of (kind, parameters) still possible."""
        return sum(c.count() for c in self.components)

    def log2_count(self) -> float:
        """log2 of :meth:`count` (``-inf`` when no opponent of any kind is left)."""
        n = self.count()
        return math.log2(n) if n else -math.inf

    def contains(self, kind: str, params: Params) -> bool:
        """True when the opponent ``(kind, params)`` is still possible."""
        name = get_strategy(kind).name
        return name in self.kinds and self.component(name).contains(params_from_json(params))

    # -- weights ---------------------------------------------------------------
    def kind_weights(
        self, settings: Mapping[str, int] | None = None, history: History = ()
    ) -> dict[str, Fraction]:
        """The posterior over kinds (normalised), given also ``history`` of the current
        game at ``settings`` when one is given; empty when nothing is left."""
        spaces = self._current(settings, history)
        raw = [_mass(c) / n for c, n in zip(spaces, self.sizes, strict=True)]
        total = sum(raw, ZERO)
        if not total:
            return {}
        return {k: w / total for k, w in zip(self.kinds, raw, strict=True)}

    def _current(self, settings: Mapping[str, int] | None, history: History) -> list[StrategySpace]:
        if settings is None or not history:
            return list(self.components)
        return [c.observe(settings, history) for c in self.components]

    def entropy_bits(self) -> float:
        """Entropy of the posterior over (kind, parameters), in bits."""
        weights = self.kind_weights()
        total = 0.0
        for c, name in zip(self.components, self.kinds, strict=True):
            p = weights.get(name, ZERO)
            if p:
                total += float(p) * (_within_entropy(c) - math.log2(p))
        return total

    def posterior(
        self, settings: Mapping[str, int], history: History, limit: int
    ) -> list[Candidate] | None:
        """Every possible (kind, parameters) with its normalised posterior weight given
        also ``history`` (the current game so far); None when there are more than
        ``limit``. Kinds in the mixture's order, each kind's parameters in its order."""
        weights = self.kind_weights(settings, history)
        out: list[Candidate] = []
        for c, name in zip(self.components, self.kinds, strict=True):
            w = weights.get(name, ZERO)
            if not w:
                continue
            post = c.posterior(settings, history, limit - len(out))
            if post is None:
                return None
            out.extend((name, params, w * p) for params, p in post)
        return out

    def top(
        self, n: int, settings: Mapping[str, int] | None = None, history: History = ()
    ) -> list[Candidate]:
        """The ``n`` most probable opponents, most probable first (ties: kind order, then
        each kind's parameter order), given also ``history`` at ``settings`` if given."""
        if n < 1:
            return []
        weights = self.kind_weights(settings, history)
        found: list[tuple[Fraction, int, int, str, Params]] = []
        spaces = self._current(settings, history)
        for i, (c, name) in enumerate(zip(spaces, self.kinds, strict=True)):
            w = weights.get(name, ZERO)
            if not w:
                continue
            for j, (params, p) in enumerate(_best_of(c, n)):
                found.append((-(w * p), i, j, name, params))
        found.sort(key=lambda f: (f[0], f[1], f[2]))
        return [(name, params, -negp) for negp, _, _, name, params in found[:n]]

    # -- prediction and play ---------------------------------------------------
    def predictive(self, settings: Mapping[str, int], history: History) -> dict[str, Fraction]:
        """The posterior predictive of the opponent's next action after ``history`` in
        the current game: each kind's predictive weighted by its posterior given the
        history too; empty when no opponent explains ``history``."""
        checked = self.game.settings(settings)
        weights = self.kind_weights(checked, history)
        mix: dict[str, Fraction] = {}
        for c, name in zip(self.components, self.kinds, strict=True):
            w = weights.get(name, ZERO)
            if not w:
                continue
            for b, p in c.predictive(checked, history).items():
                mix[b] = mix.get(b, ZERO) + w * p
        order = self.game.alphabet(checked)
        return {b: mix[b] for b in sorted(mix, key=order.index)}

    def best_response(
        self, settings: Mapping[str, int], history: History, horizon: Horizon = "game"
    ) -> str:
        """The best action for the next round against the posterior. With ``game``: the
        most posterior-expected optimal score for the rest of the game, each kind's
        candidates scored by their own optimal values (a player assumed to learn the
        opponent after this round), a factorised kind with too many candidates by its
        average opponent's (:meth:`FactorisedSpace.mean_opponent`); when some other kind
        has too many (more than :data:`QMDP_LIMIT` in all), or with ``round``: the most
        expected points this round under :meth:`predictive`. Ties go to the action first
        in the game's order."""
        checked = self.game.settings(settings)
        if len(history) >= self.game.rounds(checked):
            raise GameError("the game is over: no next round")
        state = _walk(self.game, checked, history).states[-1]
        actions = self.game.actions(state)
        plans = self._plans(checked, history) if horizon == "game" else None
        scores = dict.fromkeys(actions, ZERO)
        if plans:
            rounds = self.game.rounds(checked)
            for weight, opponent, solver in plans:
                solver = solver or BestResponse(self.game, opponent, rounds)
                strat_state = opponent.replay(history)
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

    def _plans(
        self, settings: Mapping[str, int], history: History
    ) -> list[tuple[Fraction, Opponent, BestResponse | None]] | None:
        """What a game-long best response weighs: each candidate with its posterior weight
        (and cached solver), or a factorised kind's average opponent when it has too many;
        None when another kind has too many (at most :data:`QMDP_LIMIT` in all)."""
        weights = self.kind_weights(settings, history)
        out: list[tuple[Fraction, Opponent, BestResponse | None]] = []
        listed = 0
        for c, name in zip(self.components, self.kinds, strict=True):
            w = weights.get(name, ZERO)
            if not w:
                continue
            post = c.posterior(settings, history, QMDP_LIMIT - listed)
            if post is not None:
                listed += len(post)
                for params, p in post:
                    solver = self._solver(name, settings, params)
                    out.append((w * p, solver.opponent, solver))
                continue
            mean = c.mean_opponent(settings, history) if isinstance(c, FactorisedSpace) else None
            if mean is None:
                return None
            out.append((w, mean, None))
        return out

    def information(self, settings: Mapping[str, int], history: History) -> dict[str, float]:
        """For each legal player action now, the expected information (bits) the
        opponent's replies this round and next would give about which opponent it is,
        were the player to play it: the mutual information between the opponent (kind
        and parameters, under the posterior given also ``history``) and that pair of
        replies. A move that steers the opponent into a reply still unknown scores
        high; one whose answer every candidate agrees on scores 0. Empty when no
        opponent explains ``history``."""
        checked = self.game.settings(settings)
        weights = self.kind_weights(checked, history)
        joints: dict[str, dict[tuple[str, str], float]] = {}
        noise: dict[str, float] = {}
        for c, name in zip(self.components, self.kinds, strict=True):
            w = float(weights.get(name, ZERO))
            if not w:
                continue
            for a, (joint, own) in c.outlook(checked, history).items():
                into = joints.setdefault(a, {})
                for key, p in joint.items():
                    into[key] = into.get(key, 0.0) + w * p
                noise[a] = noise.get(a, 0.0) + w * own
        # Rounded so that float noise never decides between equally informative moves.
        return {a: round(max(0.0, entropy(j) - noise[a]), 9) for a, j in joints.items()}

    def _solver(self, kind: str, settings: Mapping[str, int], params: Params) -> BestResponse:
        key = (kind, params, _items(settings))
        if key not in self._solvers:
            opponent = self.component(kind).opponent(settings, params)
            self._solvers[key] = BestResponse(self.game, opponent, self.game.rounds(settings))
        return self._solvers[key]


def _best_of(space: StrategySpace, n: int) -> list[tuple[Params, Fraction]]:
    """A kind's ``n`` most probable parameters with their normalised weights (most
    probable first, ties in the kind's order), without listing a huge factorised space."""
    if isinstance(space, FactorisedSpace):
        count = space.count()
        if not count:
            return []
        p = Fraction(1, count)
        return [(tuple(v), p) for v in itertools.islice(itertools.product(*space.allowed), n)]
    if isinstance(space, ExplicitSpace):
        total = sum((w for _, w in space.weights), ZERO)
        if not total:
            return []
        ranked = sorted(enumerate(space.weights), key=lambda e: (-e[1][1], e[0]))
        return [(params, w / total) for _, (params, w) in ranked[:n]]
    raise GameError(f"cannot rank the parameters of a {type(space).__name__}")


def mixture_space(
    game: Game, kinds: Sequence[str | Strategy], settings: Mapping[str, int]
) -> MixtureSpace:
    """The prior mixture of ``kinds`` in ``game`` at ``settings`` (uniform over kinds,
    then uniform within each kind)."""
    strategies = [get_strategy(k) if isinstance(k, str) else k for k in kinds]
    return MixtureSpace(game, [version_space(game, s, settings) for s in strategies])
