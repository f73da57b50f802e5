"""The particle set of one PSI kind: parameters consistent with what was observed.

A box's parameters are a point of its kind's fine grid (tens of bits), far too many to
enumerate, so the version space is a particle approximation and its count an estimate
(``exact`` is False). It is approximate Bayesian computation by sequential Monte Carlo:

- **Consistent.** A parameter point is consistent when its unrounded coordinates are
  within ``SLACK`` output units (0.01 m) of every observed coordinate: the true point
  is (the box rounds to half a unit and its code agrees with the particle model far
  inside another half).
- **Particles.** Before any answer, the coarse grid (``Param.values``, an even lattice
  over the ranges) and its table. After an answer, the particles are filtered in stages:
  each stage keeps those within a threshold of every observation (the ``ALPHA`` closest,
  the threshold shrinking by ``SHRINK`` at least and never below ``SLACK``), resamples
  them back to the kind's ``particles`` and moves them by random-walk Metropolis steps
  that stay within the threshold (a categorical value, a planet, is redrawn now and
  then). The last stage's threshold is ``SLACK``. When the walks stop getting closer,
  least squares (:mod:`._fit`) polishes the closest particles; when the stages still
  cannot reach ``SLACK``, a rescue refines the best coarse grid points over the whole
  history and the consistent fits become the particles; so does a kind still far and no
  longer approaching (``HOPELESS``: one answer can leave several branches of solutions,
  and the particles may have kept a branch the next answer rules out).
- **Branches.** Answers can leave several branches of solutions (an oscillation sampled
  at a few times fits more than one frequency) and the stages follow one: after each
  placed answer least squares from the best coarse grid points looks for fits no
  particle is near, and such a branch joins the particles with the share its
  linearised volume is of the whole (at least ``BRANCH_SHARE``).
- **Time order.** An answer still unplaced is retried from the prior with every answer
  in time order (each a short extension of the trajectory fitted so far), which places
  answers asked far out of order; the rebuild's count is capped by the last count. A
  kind whose rebuild and rescues find nothing has no consistent point.
- **Count.** log2|H| plus the log2 of every stage's kept fraction: the standard
  estimate of the share of the prior a sequence of shrinking thresholds keeps; after a
  rescue, the volume the linearised constraints allow around the fits. It never grows
  with an answer, so realised information sums to at most log2|H|; it is floored at 0.
- **No consistent point.** A strict space (an agent's view of each kind) becomes empty;
  a lenient one (measuring an episode on the box's own kind, whose answers are never
  impossible) leaves the answer out: it counts no information.
- **Predictive.** Entropy and the ranking of outputs come from the particles' rounded
  outputs (the entropy capped at log2 of the count); ``prob(y)`` is the fraction of the
  count an answer ``y`` keeps, so an answer's realised information is exactly the drop
  in the count's log2, as within an exact space.

Every draw comes from a generator seeded by the kind and the history, so a space, and
everything computed from it, is the same on every run.
"""

from __future__ import annotations

import logging
import math
import threading
from collections import OrderedDict

import numpy as np
import numpy.typing as npt

from blackboxes.box import JSONValue
from blackboxes.families.psi._fit import evaluate, fit
from blackboxes.families.psi._kind import TIMES, FloatArray, PhysicsKind
from blackboxes.families.psi._space import output_cells, output_value, time_index
from blackboxes.families.psi._table import KindTable, round_units
from blackboxes.information import ENUMERATION_LIMIT, Predictive, VersionSpace, output_key
from oracle_bench.rng import seed_for

__all__ = ["MAX_STAGES", "ParticleSpace"]

log = logging.getLogger(__name__)

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
History = tuple[tuple[int, tuple[int, ...]], ...]

SLACK = 1.0
"""Output units a consistent point's unrounded coordinate may differ by."""
ALPHA = 0.35
"""Share of the particles a stage keeps when fewer than that are consistent."""
MOVES = 2
"""Metropolis steps per stage."""
MAX_STAGES = 20
"""Stages one answer may take (each keeps ALPHA: about 30 bits); then a rescue."""
HOPELESS_STAGES = 8
HOPELESS = 30.0
HOPELESS_GAIN = 0.8
"""After HOPELESS_STAGES stages, a kind whose closest particle is still HOPELESS output
units (0.3 m) from the history and came less than a fifth closer over the last half of
them goes straight to the rescue: its particles sit on a branch of the earlier answers'
solutions that this answer rules out (or it is the wrong kind), and more stages, each
simulating every particle, would not leave that branch."""
SHRINK = 0.9
"""Each stage's threshold is at most this times the last one's."""
STALL_STAGES = 4
"""Stages in a row without a closer particle: the kind has no consistent point."""
POLISH_AFTER = 2
"""Stages without a closer particle before least squares polishes the closest."""
POLISHES = 4
"""Polishes per answer at most."""
POLISH_STARTS = 8
GRID_STARTS = 16
"""Coarse grid points a rescue refines (plus the best of each categorical value)."""
PARTICLE_STARTS = 8
"""Closest particles a rescue refines."""
BRANCH_STARTS = 32
"""Coarse grid points refined after each placed answer, looking for missed branches."""
BRANCH_GAP = 10.0
"""Fine steps in some parameter that set a fit apart from a particle."""
BRANCH_SHARE = 0.125
"""Least share of the particles a newly found branch gets."""
RESCUE_ITERATIONS = 20
RESCUE_MOVES = 6
ITERATIONS = 12
"""Levenberg-Marquardt rounds per polish."""
REDRAW = 0.15
"""Probability a move redraws one categorical parameter instead of a random walk."""
_CACHE = 64
"""Observed spaces kept per space: ``prob(y)`` and then ``observe(x, y)`` filter once."""
_TIMES = np.array(TIMES, dtype=float)


class _ParticlePredictive(Predictive):
    def __init__(self, space: ParticleSpace, x: JSONValue, rows: IntArray) -> None:
        self._space, self._x = space, x
        kind = space.kind
        self._objects, self._dims = kind.objects, kind.dims
        if len(rows):
            unique, first, counts = np.unique(rows, axis=0, return_index=True, return_counts=True)
            # Most particles first; among equals, the output met first (deterministic).
            order = np.lexsort((first, -counts))
            self._unique, self._counts = unique[order], counts[order]
        else:
            self._unique = rows
            self._counts = np.zeros(0, dtype=np.int64)

    @property
    def entropy(self) -> float:
        n = int(self._counts.sum())
        if n == 0:
            return 0.0
        p = self._counts / n
        h = float(-(p * np.log2(p)).sum())
        return max(0.0, min(h, self._space.log2_count()))

    def prob(self, y: JSONValue) -> float:
        before = self._space.log2_count()
        after = self._space.observe(self._x, y).log2_count()
        if after == -math.inf or before == -math.inf:
            return 0.0
        return float(min(1.0, 2.0 ** (after - before)))

    def top(self, k: int) -> list[JSONValue]:
        return [output_value(row, self._objects, self._dims) for row in self._unique[:k]]

    def support(self, limit: int = ENUMERATION_LIMIT) -> dict[str, tuple[JSONValue, float]] | None:
        if len(self._unique) > limit:
            return None
        n = int(self._counts.sum())
        out: dict[str, tuple[JSONValue, float]] = {}
        for row, c in zip(self._unique, self._counts, strict=True):
            value = output_value(row, self._objects, self._dims)
            out[output_key(value)] = (value, int(c) / n)
        return out


class ParticleSpace(VersionSpace):
    """The consistent parameters of one kind, as particles with an estimated count."""

    exact = False

    def __init__(
        self,
        table: KindTable,
        history: History = (),
        params: FloatArray | None = None,
        units: FloatArray | None = None,
        log2_count: float | None = None,
        strict: bool = True,
        root: ParticleSpace | None = None,
    ) -> None:
        """``strict``: an answer no consistent point is found for empties the space (an
        agent's view); otherwise it is left out and counts no information (measuring
        an episode on the box's own kind, where an answer is never impossible)."""
        self._table = table
        self._strict = strict
        self._root = self if root is None else root
        """The prior space this one was observed from (a rebuild starts there)."""
        self.kind: PhysicsKind = table.kind
        self._history = history
        if params is None or units is None:
            grid = table.kind.grid
            params = np.stack([grid[q.name] for q in table.kind.params], axis=1)
            units = table.cells.astype(np.float32)
        self._params = params
        self._units = units
        """(particles, len(TIMES), coordinates): unrounded output units."""
        self._log2 = table.kind.log2_size if log2_count is None else log2_count
        self._observed: OrderedDict[tuple[int, tuple[int, ...]], ParticleSpace] = OrderedDict()
        self._lock = threading.Lock()
        kind = table.kind
        self._free = [i for i, q in enumerate(kind.params) if q.step is not None]
        self._categorical = [i for i, q in enumerate(kind.params) if q.step is None]
        self._lo = np.array([kind.params[i].lo for i in self._free], dtype=float)
        self._steps = np.array([kind.params[i].step or 1.0 for i in self._free], dtype=float)
        self._spans = np.array([kind.params[i].count - 1 for i in self._free], dtype=float)

    @property
    def placed(self) -> int:
        """Answers the particles reproduce (a lenient space leaves out one it cannot place;
        an empty space reproduces none)."""
        return len(self.placed_times)

    @property
    def placed_times(self) -> tuple[float, ...]:
        """The times of the answers the particles reproduce, in the order fitted."""
        if self._log2 == -math.inf:
            return ()
        return tuple(TIMES[j] for j, _ in self._history)

    @property
    def particles(self) -> FloatArray:
        """Parameter rows, in ``kind.params`` order."""
        return self._params

    def log2_count(self) -> float:
        return self._log2

    def predictive(self, x: JSONValue) -> Predictive:
        j = time_index(x)
        width = self._units.shape[2]
        if j is None or self._log2 == -math.inf:
            return _ParticlePredictive(self, x, np.zeros((0, width), dtype=np.int64))
        return _ParticlePredictive(self, x, round_units(self._units[:, j, :]))

    def observe(self, x: JSONValue, y: JSONValue) -> ParticleSpace:
        kind = self.kind
        j = time_index(x)
        cells = output_cells(y, kind.objects, kind.dims)
        if j is None or cells is None or self._log2 == -math.inf:
            return self._with((), self._params[:0], self._units[:0], -math.inf)
        return self._observe_key((j, tuple(int(c) for c in cells)))

    def _observe_key(self, key: tuple[int, tuple[int, ...]]) -> ParticleSpace:
        """The space after the answer ``key`` (time index, output units), cached."""
        with self._lock:
            hit = self._observed.get(key)
        if hit is not None:
            return hit
        result = self._update(key)
        if result.placed <= self.placed:
            result = self._rebuild(key, result)
        with self._lock:
            self._observed[key] = result
            while len(self._observed) > _CACHE:
                self._observed.popitem(last=False)
        return result

    def _with(
        self, history: History, params: FloatArray, units: FloatArray, log2: float
    ) -> ParticleSpace:
        return ParticleSpace(self._table, history, params, units, log2, self._strict, self._root)

    def _rebuild(self, key: tuple[int, tuple[int, ...]], failed: ParticleSpace) -> ParticleSpace:
        """An answer the particles could not place, retried from the prior with every
        answer in time order: a trajectory is fitted from its start outwards, each answer
        a short extension of the last (answers asked far out of order can leave the
        particles on a branch of the solutions a later early answer rules out). The
        rebuild is taken when it places more answers; its count is capped by this one's,
        so a count never grows with an answer."""
        history = sorted((*self._history, key))
        if history == [*self._history, key]:
            return failed  # already in time order: the rebuild is the update that failed
        space = self._root
        for step in history:
            space = space._observe_key(step)
            if space.log2_count() == -math.inf:
                return failed
        if space.placed <= failed.placed:
            return failed
        log.debug("PSI %s: placed %d answers in time order", self.kind.name, space.placed)
        return space._with(
            space._history, space._params, space._units, min(space._log2, self._log2)
        )

    # -- the update -------------------------------------------------------------
    def _update(self, key: tuple[int, tuple[int, ...]]) -> ParticleSpace:
        history = (*self._history, key)
        js = np.array([j for j, _ in history])
        target = np.array([c for _, c in history], dtype=float)  # (m, C)
        rng = self._rng(history)
        params, units = self._params, self._units
        dist = self._distance(units, js, target)
        log2 = self._log2
        last, best, stalled, scale, polished = math.inf, math.inf, 0, 1.0, 0
        lows: list[float] = []
        for _ in range(MAX_STAGES):
            if not len(params):
                break
            low = float(dist.min())
            lows.append(low)
            if (
                len(lows) > HOPELESS_STAGES
                and low > HOPELESS
                and low > HOPELESS_GAIN * lows[-1 - HOPELESS_STAGES // 2]
            ):
                break  # far and not approaching: straight to the rescue
            # The ALPHA-closest share, but shrinking by SHRINK at least (duplicates can
            # hold a quantile still), never below SLACK and keeping the closest particle.
            quantile = float(np.quantile(dist, ALPHA))
            threshold = max(SLACK, low, min(quantile, SHRINK * last))
            if float(np.mean(dist <= SLACK)) >= ALPHA:
                threshold = SLACK
            stalled = stalled + 1 if low >= best else 0
            if stalled >= POLISH_AFTER and low > SLACK and polished < POLISHES:
                # Random walks in a narrow valley: least squares finds its floor.
                params, units, dist = self._polish(params, units, dist, js, target)
                polished, stalled = polished + 1, 0
                continue
            if stalled >= STALL_STAGES and threshold > SLACK:
                break  # the moves find nothing closer
            best, last = min(best, low), threshold
            keep = dist <= threshold
            log2 += math.log2(float(np.mean(keep)))
            idx = self._resample(np.flatnonzero(keep), rng)
            params, units, dist = params[idx], units[idx], dist[idx]
            for _ in range(MOVES):
                params, units, dist, scale = self._move(
                    params, units, dist, threshold, js, target, rng, scale
                )
            if threshold <= SLACK:
                return self._branches(history, js, target, params, units, log2, rng)
        return self._rescue(history, js, target, params, dist, rng)

    def _branches(
        self,
        history: History,
        js: IntArray,
        target: FloatArray,
        params: FloatArray,
        units: FloatArray,
        log2: float,
        rng: np.random.Generator,
    ) -> ParticleSpace:
        """The placed particles, joined by any branch of solutions that least squares
        from the best coarse grid points finds and they miss: answers can leave several
        (an oscillation sampled at a few times fits more than one frequency), and the
        stages follow one. A branch gets the share of the particles its linearised
        volume is of the whole (at least ``BRANCH_SHARE``; the particles' own volume
        measured alike, at the closest of them), and the count grows in that ratio,
        staying within the count before the answer."""
        result = fit(
            self.kind,
            self._grid_starts(js, target, BRANCH_STARTS),
            _TIMES[js],
            target,
            RESCUE_ITERATIONS,
        )
        ok = (result.worst <= SLACK) & self._inside(result.params)
        fits, jac = result.params[ok], result.jacobian[ok]
        new = self._apart(fits, params)
        if not new.any():
            return self._with(history, params, units, max(0.0, log2))
        fits, jac = fits[new], jac[new]
        # Both sides measured alike: the stages' count is another estimator.
        dist = self._distance(units, js, target)
        here = params[self._starts(dist, params, POLISH_STARTS)]
        own = self._volume(here, fit(self.kind, here, _TIMES[js], target, 0).jacobian)
        volume = self._volume(fits, jac)
        share = min(
            max(2.0 ** (volume - np.logaddexp2(own, volume)), BRANCH_SHARE), 1.0 - BRANCH_SHARE
        )
        total = log2 + float(np.logaddexp2(0.0, volume - own))
        n = self.kind.particles
        k = max(1, round(n * share))
        branch, branch_units = self._spread(fits, k, js, target, rng)
        kept = self._resample(np.arange(len(params)), rng, n - k)
        log.debug("PSI %s: %d new branch fit(s) at %s", self.kind.name, len(fits), history[-1])
        return self._with(
            history,
            np.concatenate([params[kept], branch]),
            np.concatenate([units[kept], branch_units]),
            max(0.0, min(self._log2, total)),
        )

    def _apart(self, fits: FloatArray, params: FloatArray) -> BoolArray:
        """The fits no particle is near: each particle differs from them by more than
        ``BRANCH_GAP`` fine steps (and three of the particles' standard deviations) in
        some parameter, or in a categorical value."""
        if not len(fits) or not len(params):
            return np.zeros(len(fits), dtype=bool)
        cloud = (params[:, self._free] - self._lo) / self._steps
        points = (fits[:, self._free] - self._lo) / self._steps
        reach = np.maximum(BRANCH_GAP, 3.0 * cloud.std(axis=0))
        far = (np.abs(points[:, None, :] - cloud[None]) > reach).any(axis=2)
        for i in self._categorical:
            far |= fits[:, None, i] != params[None, :, i]
        return np.asarray(far.all(axis=1))

    def _grid_starts(self, js: IntArray, target: FloatArray, count: int) -> FloatArray:
        """The coarse grid points closest to the history (least squares), ``count`` of
        them and the best of each categorical value."""
        grid = self.kind.grid
        grid_params = np.stack([grid[q.name] for q in self.kind.params], axis=1)
        grid_dev = self._table.cells[:, js, :] - target[None]
        grid_ssr = np.einsum("nmc,nmc->n", grid_dev, grid_dev).astype(float)
        return grid_params[self._starts(grid_ssr, grid_params, count)]

    def _rescue(
        self,
        history: History,
        js: IntArray,
        target: FloatArray,
        params: FloatArray,
        dist: FloatArray,
        rng: np.random.Generator,
    ) -> ParticleSpace:
        """When the stages stall: least squares from the best coarse grid points over the
        whole history and from the closest particles. Consistent fits become the
        particles (spread by moves) and the count is the Jacobian estimate at them
        (see the module's docstring); no consistent fit: the space is empty, or, for a
        lenient space, this answer is left out (it counts no information)."""
        starts = np.concatenate(
            [
                self._grid_starts(js, target, GRID_STARTS),
                params[self._starts(dist, params, PARTICLE_STARTS)],
            ]
        )
        result = fit(self.kind, starts, _TIMES[js], target, RESCUE_ITERATIONS)
        ok = (result.worst <= SLACK) & self._inside(result.params)
        if not ok.any():
            return self._unplaced(history)
        fits, jac = result.params[ok], result.jacobian[ok]
        log2 = max(0.0, min(self._log2, self._volume(fits, jac)))
        params, units = self._spread(fits, self.kind.particles, js, target, rng)
        return self._with(history, params, units, log2)

    def _spread(
        self,
        fits: FloatArray,
        count: int,
        js: IntArray,
        target: FloatArray,
        rng: np.random.Generator,
    ) -> tuple[FloatArray, FloatArray]:
        """``count`` particles resampled from consistent fits and spread around them by
        moves that stay consistent: the parameters and their outputs."""
        params = fits[self._resample(np.arange(len(fits)), rng, count)]
        units = self._simulate(params)
        dist = self._distance(units, js, target)
        scale = 0.05
        for _ in range(RESCUE_MOVES):
            params, units, dist, scale = self._move(
                params, units, dist, SLACK, js, target, rng, scale
            )
        return params, units

    def _unplaced(self, history: History) -> ParticleSpace:
        """No consistent point found: empty, or, for a lenient space, the answer left out."""
        if self._strict:
            return self._with(history, self._params[:0], self._units[:0], -math.inf)
        log.debug(
            "PSI %s: no consistent point for %s; answer left out", self.kind.name, history[-1]
        )
        return self._with(self._history, self._params, self._units, self._log2)

    def _starts(self, score: FloatArray, params: FloatArray, count: int) -> IntArray:
        """The ``count`` best distinct rows by ``score``, then the best row of each
        categorical value not among them."""
        order = np.argsort(score, kind="stable")
        _, first = np.unique(params[order], axis=0, return_index=True)
        order = order[np.sort(first)]
        chosen = list(order[:count])
        if self._categorical and len(order):
            _, best = np.unique(params[order][:, self._categorical], axis=0, return_index=True)
            chosen.extend(int(order[i]) for i in sorted(best) if order[i] not in chosen)
        return np.array(chosen[: 2 * count], dtype=np.int64)

    def _volume(self, fits: FloatArray, jac: FloatArray) -> float:
        """log2 of the fine points near the fits that the linearised constraints
        |J d| <= SLACK allow: along each right singular vector v of J a width of
        2 SLACK / max|J v| steps, capped by the ranges and at least one step; a
        categorical value's fits count once (its widest), the values add up."""
        box = float(np.log2(self._spans + 1.0).sum())
        groups: dict[tuple[float, ...], float] = {}
        for row, jacobian in zip(fits, jac, strict=True):
            _, _, vt = np.linalg.svd(jacobian, full_matrices=True)
            reach = np.abs(jacobian @ vt.T).max(axis=0)
            with np.errstate(divide="ignore"):
                width = np.where(reach > 1e-12, 2.0 * SLACK / np.maximum(reach, 1e-300), np.inf)
            extent = np.abs(vt) @ (self._spans + 1.0)
            log2 = min(box, float(np.log2(np.clip(np.minimum(width, extent), 1.0, None)).sum()))
            combo = tuple(float(row[i]) for i in self._categorical)
            groups[combo] = max(groups.get(combo, -math.inf), log2)
        top = max(groups.values())
        return top + math.log2(sum(2.0 ** (v - top) for v in groups.values()))

    def _polish(
        self,
        params: FloatArray,
        units: FloatArray,
        dist: FloatArray,
        js: IntArray,
        target: FloatArray,
    ) -> tuple[FloatArray, FloatArray, FloatArray]:
        """The closest distinct particles refined by least squares, in place of the
        farthest particles when closer."""
        order = np.argsort(dist, kind="stable")
        _, first = np.unique(params[order], axis=0, return_index=True)
        starts = order[np.sort(first)[:POLISH_STARTS]]
        refined = fit(self.kind, params[starts], _TIMES[js], target, ITERATIONS).params
        refined = refined[self._inside(refined)]
        if not len(refined):
            return params, units, dist
        new_units = self._simulate(refined)
        new_dist = self._distance(new_units, js, target)
        worst = order[::-1][: len(refined)]
        better = new_dist < dist[worst]
        params, units, dist = params.copy(), units.copy(), dist.copy()
        params[worst[better]] = refined[better]
        units[worst[better]] = new_units[better]
        dist[worst[better]] = new_dist[better]
        return params, units, dist

    def _distance(self, units: FloatArray, js: IntArray, target: FloatArray) -> FloatArray:
        """Largest deviation (output units) of each particle over the history."""
        if not len(units):
            return np.zeros(0)
        # Units are finite: ``evaluate`` replaces a non-finite position by a far one.
        return np.abs(units[:, js, :].astype(float) - target[None]).max(axis=(1, 2))

    def _resample(
        self, alive: IntArray, rng: np.random.Generator, n: int | None = None
    ) -> IntArray:
        """Systematic resampling of the kept particles back to the kind's number (or
        ``n``)."""
        if not len(alive):
            return alive
        n = self.kind.particles if n is None else n
        positions = (rng.random() + np.arange(n)) * (len(alive) / n)
        return alive[np.minimum(positions.astype(np.int64), len(alive) - 1)]

    def _move(
        self,
        params: FloatArray,
        units: FloatArray,
        dist: FloatArray,
        threshold: float,
        js: IntArray,
        target: FloatArray,
        rng: np.random.Generator,
        scale: float,
    ) -> tuple[FloatArray, FloatArray, FloatArray, float]:
        """One Metropolis step of every particle, uniform prior within the threshold; the
        random walk's ``scale`` (of the particles' covariance) adapts to acceptance."""
        n = len(params)
        theta = (params[:, self._free] - self._lo) / self._steps
        proposal = params.copy()
        if len(self._free):
            cov = np.atleast_2d(np.cov(theta, rowvar=False)) + np.eye(len(self._free)) * 0.25
            chol = np.linalg.cholesky(cov * (scale * 2.38**2 / len(self._free)))
            step = rng.standard_normal((n, len(self._free))) @ chol.T
            proposal[:, self._free] = self._lo + (theta + step) * self._steps
        if self._categorical:
            redraw = rng.random(n) < REDRAW
            which = rng.integers(0, len(self._categorical), n)
            for c, i in enumerate(self._categorical):
                values = np.array(self.kind.params[i].values)
                rows = redraw & (which == c)
                proposal[rows, i] = values[rng.integers(0, len(values), int(rows.sum()))]
        inside = self._inside(proposal)
        new_units = np.empty_like(units)
        new_dist = np.full(n, np.inf)
        if inside.any():
            new_units[inside] = self._simulate(proposal[inside])
            new_dist[inside] = self._distance(new_units[inside], js, target)
        accept = inside & (new_dist <= threshold)
        params = np.where(accept[:, None], proposal, params)
        units = np.where(accept[:, None, None], new_units, units)
        dist = np.where(accept, new_dist, dist)
        rate = float(accept.mean())
        if rate < 0.15:
            scale = max(scale / 3.0, 1e-6)
        elif rate > 0.4:
            scale = min(scale * 2.0, 1.0)
        return params, units, dist, scale

    def _inside(self, params: FloatArray) -> BoolArray:
        """Within every range and admissible."""
        theta = (params[:, self._free] - self._lo) / self._steps
        ok = np.all((theta >= -1e-9) & (theta <= self._spans + 1e-9), axis=1)
        if ok.any():
            columns = {q.name: params[ok, i] for i, q in enumerate(self.kind.params)}
            ok[ok] = np.asarray(self.kind.admissible(columns), dtype=bool)
        return ok

    def _simulate(self, params: FloatArray) -> FloatArray:
        """Every particle's unrounded output units at every query time."""
        units = evaluate(self.kind, params, _TIMES)
        return units.reshape(len(params), len(TIMES), -1).astype(np.float32)

    def _rng(self, history: History) -> np.random.Generator:
        flat: list[str | int] = [self.kind.name]
        for j, c in history:
            flat.extend((j, *c))
        return np.random.default_rng(seed_for(0, *flat))
