"""Paired comparisons on the same boxes, and the suite size a target needs: pure functions.

The unit of every statistic here is the **box**: a box's score is the mean over its
repetitions, because boxes, not episodes, are the independent draws of a suite.

Paired comparison of A and B (:func:`paired_comparison`), on the n boxes both were
evaluated on, from the differences ``d_i = a_i - b_i``:

- ``mean_diff = mean(d)``; its 95% interval is the seeded percentile bootstrap over boxes
  (:func:`evaluator.reporting.bootstrap_ci`, ``BOOTSTRAP_RESAMPLES`` resamples, stream
  ``rng_for(seed, "bootstrap", *parts)``).
- ``p_value``: the two-sided sign-flip permutation test of "A and B are exchangeable on
  every box" (each ``d_i`` symmetric about 0), statistic ``|sum(d)|``. For
  ``n <= EXACT_MAX_BOXES`` it is exact: ``p = #{s in {-1,+1}^n : |sum(s_i d_i)| >=
  |sum(d)|} / 2^n``, counted by meet-in-the-middle (the 2^(n/2) sums of each half,
  sorted, then bisected), so the smallest p of n boxes is ``2 / 2^n``. Above, a seeded
  Monte Carlo test over ``MONTE_CARLO_RESAMPLES`` random sign vectors (stream
  ``rng_for(seed, "sign-flip", *parts)``): ``p = (1 + #{|sum(s_i d_i)| >= |sum(d)|}) /
  (1 + R)``, never 0 (Phipson and Smyth 2010). Sums within a relative ``1e-9`` of the
  observed one count as reaching it, so float rounding decides no tie.
- Effect sizes: Cohen's ``d_z = mean(d) / sd(d)`` (sample sd, n - 1; None when n < 2 or
  sd = 0) and the shares of boxes where A > B and where B > A (equal: neither).

Every p-value is per comparison; :func:`holm` adjusts a family of them.

Suite size (:func:`variance_components`, :func:`boxes_for_ci_width`,
:func:`boxes_for_difference`): the one-way random-effects model ``x_ij = mu + b_i +
e_ij`` (box effect ``b_i`` of variance ``between``, repetition noise ``e_ij`` of variance
``within``), so that the mean over n boxes of r repetitions each has variance
``(between + within / r) / n``. Normal approximations throughout (z, not t).
"""

from __future__ import annotations

import bisect
import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from evaluator.reporting import BOOTSTRAP_RESAMPLES, bootstrap_ci
from oracle_bench.rng import rng_for

__all__ = [
    "EXACT_MAX_BOXES",
    "MONTE_CARLO_RESAMPLES",
    "PairedResult",
    "VarianceComponents",
    "boxes_for_ci_width",
    "boxes_for_difference",
    "cohens_dz",
    "difference_components",
    "holm",
    "min_boxes_for_alpha",
    "paired_comparison",
    "sign_flip_p",
    "variance_components",
]

EXACT_MAX_BOXES = 30
"""Up to this many boxes the sign-flip test is exact (2 x 2^15 sums at most)."""
MONTE_CARLO_RESAMPLES = 20_000
"""Random sign vectors of the Monte Carlo test above :data:`EXACT_MAX_BOXES` boxes: the
standard error of p is at most 0.0035, about 0.0015 near p = 0.05."""
_TOLERANCE = 1e-9
_CHUNK = 2_000

SignFlipTest = Literal["exact", "monte-carlo", "none"]


def _reaching(observed: float, scale: float) -> float:
    """The threshold a permuted |sum| must reach to count as extreme as ``observed``."""
    return observed - _TOLERANCE * max(scale, 1.0)


def _half_sums(values: Sequence[float]) -> list[float]:
    sums = [0.0]
    for v in values:
        sums = [s + v for s in sums] + [s - v for s in sums]
    return sums


def _exact_p(diffs: Sequence[float]) -> float:
    observed = abs(math.fsum(diffs))
    threshold = _reaching(observed, math.fsum(abs(d) for d in diffs))
    half = len(diffs) // 2
    left = _half_sums(diffs[:half])
    right = sorted(_half_sums(diffs[half:]))
    count = 0
    for a in left:
        # |a + b| >= t  <=>  b >= t - a  or  b <= -t - a (disjoint for t > 0).
        count += len(right) - bisect.bisect_left(right, threshold - a)
        count += bisect.bisect_right(right, -threshold - a)
    return count / 2 ** len(diffs)


def _monte_carlo_p(diffs: Sequence[float], seed: int, parts: tuple[str | int, ...]) -> float:
    observed = abs(math.fsum(diffs))
    threshold = _reaching(observed, math.fsum(abs(d) for d in diffs))
    generator = np.random.default_rng(rng_for(seed, "sign-flip", *parts).getrandbits(128))
    d = np.asarray(diffs, dtype=np.float64)
    extreme = 0
    left = MONTE_CARLO_RESAMPLES
    while left:
        size = min(left, _CHUNK)
        signs = generator.integers(0, 2, size=(size, len(d)), dtype=np.int8) * 2 - 1
        # One multiply per sign, then row sums: negating d negates every sum exactly.
        sums = np.abs((signs * d).sum(axis=1))
        extreme += int(np.count_nonzero(sums >= threshold))
        left -= size
    return (1 + extreme) / (1 + MONTE_CARLO_RESAMPLES)


def sign_flip_p(
    diffs: Sequence[float], seed: int = 0, *parts: str | int
) -> tuple[float, SignFlipTest]:
    """Two-sided sign-flip permutation p-value of the paired differences ``diffs`` and
    the test used (``exact`` up to :data:`EXACT_MAX_BOXES`, else ``monte-carlo``, seeded
    by ``seed`` and ``parts``; ``none`` and p = 1 without any difference). See the module
    docstring. Ten differences of +1: ``2 / 1024``."""
    values = [float(d) for d in diffs]
    if any(not math.isfinite(v) for v in values):
        raise ValueError("paired differences must be finite")
    if not values:
        return 1.0, "none"
    if all(v == 0.0 for v in values):
        return 1.0, "exact" if len(values) <= EXACT_MAX_BOXES else "monte-carlo"
    if len(values) <= EXACT_MAX_BOXES:
        return min(_exact_p(values), 1.0), "exact"
    return _monte_carlo_p(values, seed, parts), "monte-carlo"


def cohens_dz(diffs: Sequence[float]) -> float | None:
    """Cohen's d_z: ``mean(diffs) / sd(diffs)`` (sample sd); None when fewer than two
    differences or when they are all equal (sd = 0)."""
    if len(diffs) < 2:
        return None
    sd = statistics.stdev(diffs)
    if sd == 0.0:
        return None
    return statistics.fmean(diffs) / sd


@dataclass(frozen=True)
class PairedResult:
    """A paired comparison of A and B on the boxes both were evaluated on."""

    boxes: int
    mean_a: float
    mean_b: float
    mean_diff: float
    """mean(A - B) over the boxes."""
    ci_low: float
    ci_high: float
    p_value: float
    test: SignFlipTest
    d_z: float | None
    a_better: float
    """Share of boxes where A's score is higher."""
    b_better: float
    """Share of boxes where B's score is higher."""


def paired_comparison(
    a: Mapping[str, float],
    b: Mapping[str, float],
    seed: int = 0,
    *parts: str | int,
    resamples: int = BOOTSTRAP_RESAMPLES,
) -> PairedResult | None:
    """Compare A and B on their common boxes (``box id: box score``, the mean over its
    repetitions); None when they share no box. ``seed`` and ``parts`` seed the bootstrap
    and, above :data:`EXACT_MAX_BOXES` boxes, the Monte Carlo test."""
    common = sorted(set(a) & set(b))
    if not common:
        return None
    xs = [float(a[k]) for k in common]
    ys = [float(b[k]) for k in common]
    diffs = [x - y for x, y in zip(xs, ys, strict=True)]
    ci = bootstrap_ci(diffs, seed, "paired", *parts, resamples=resamples)
    low, high = ci if ci is not None else (0.0, 0.0)
    p, test = sign_flip_p(diffs, seed, *parts)
    n = len(diffs)
    return PairedResult(
        boxes=n,
        mean_a=statistics.fmean(xs),
        mean_b=statistics.fmean(ys),
        mean_diff=statistics.fmean(diffs),
        ci_low=low,
        ci_high=high,
        p_value=p,
        test=test,
        d_z=cohens_dz(diffs),
        a_better=sum(x > y for x, y in zip(xs, ys, strict=True)) / n,
        b_better=sum(y > x for x, y in zip(xs, ys, strict=True)) / n,
    )


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment of a family of p-values (same order as given): the
    k-th smallest becomes ``max over j <= k of min(1, (m - j + 1) p_(j))``."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: (p_values[i], i))
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


# -- suite size -------------------------------------------------------------------------


@dataclass(frozen=True)
class VarianceComponents:
    """Between-box and within-box (across repetitions) variance of a score."""

    boxes: int
    repetitions: float
    """Mean repetitions per box of the pilot."""
    mean: float
    """Mean of the box means."""
    between: float
    """Variance of the box effect; with one repetition per box, the pooled variance of a
    one-episode box score (``within`` cannot be separated from it)."""
    within: float | None
    """Variance across repetitions of one box; None when no box had two."""

    @property
    def separable(self) -> bool:
        return self.within is not None

    def mean_variance(self, boxes: int, repetitions: int) -> float:
        """Variance of the mean score over ``boxes`` boxes of ``repetitions`` each:
        ``(between + within / r) / n`` (repetitions do not help when the components
        cannot be separated: conservative)."""
        return (self.between + (self.within or 0.0) / repetitions) / boxes


def _pooled_within(boxes: Sequence[Sequence[float]]) -> float | None:
    """Pooled within-box variance: sum of squared deviations from each box's mean over
    the sum of (n_i - 1); None when no box has two values."""
    squares = 0.0
    dof = 0
    for values in boxes:
        if len(values) >= 2:
            m = statistics.fmean(values)
            squares += math.fsum((v - m) ** 2 for v in values)
            dof += len(values) - 1
    return squares / dof if dof else None


def variance_components(boxes: Sequence[Sequence[float]]) -> VarianceComponents:
    """Method-of-moments variance components of the one-way random-effects model from
    each box's repetition values (boxes without any are skipped; at least two boxes).

    ``within`` = pooled within-box variance (:func:`_pooled_within`); ``between`` =
    ``max(0, s2_m - within * mean_i(1 / n_i))`` where ``s2_m`` is the sample variance of
    the box means (``E[s2_m] = between + within * mean(1 / n_i)``). With one repetition
    per box: ``between = s2_m`` (pooled) and ``within`` None.
    """
    kept = [[float(v) for v in values] for values in boxes if values]
    if len(kept) < 2:
        raise ValueError(f"need at least two boxes with a score, got {len(kept)}")
    means = [statistics.fmean(values) for values in kept]
    s2_m = statistics.variance(means)
    within = _pooled_within(kept)
    if within is None:
        between = s2_m
    else:
        between = max(0.0, s2_m - within * statistics.fmean(1 / len(v) for v in kept))
    return VarianceComponents(
        boxes=len(kept),
        repetitions=statistics.fmean(len(v) for v in kept),
        mean=statistics.fmean(means),
        between=between,
        within=within,
    )


def difference_components(
    a: Mapping[str, Sequence[float]], b: Mapping[str, Sequence[float]]
) -> VarianceComponents:
    """Variance components of the per-box difference A - B on the boxes both have.

    ``within`` = ``within_A + within_B`` (the repetitions of A and B are independent, so
    the difference of one repetition each varies by both); ``between`` = ``max(0, s2_d -
    mean_i(within_A / nA_i + within_B / nB_i))`` with ``s2_d`` the sample variance of the
    box-mean differences. Without two repetitions of a box for either agent, ``between``
    is ``s2_d`` (pooled) and ``within`` None.
    """
    common = sorted(k for k in set(a) & set(b) if a[k] and b[k])
    if len(common) < 2:
        raise ValueError(f"need at least two common boxes with scores, got {len(common)}")
    diffs = [statistics.fmean(a[k]) - statistics.fmean(b[k]) for k in common]
    s2_d = statistics.variance(diffs)
    wa = _pooled_within([a[k] for k in common])
    wb = _pooled_within([b[k] for k in common])
    if wa is None or wb is None:
        between, within = s2_d, None
    else:
        noise = statistics.fmean(wa / len(a[k]) + wb / len(b[k]) for k in common)
        between, within = max(0.0, s2_d - noise), wa + wb
    reps = statistics.fmean((len(a[k]) + len(b[k])) / 2 for k in common)
    return VarianceComponents(
        boxes=len(common),
        repetitions=reps,
        mean=statistics.fmean(diffs),
        between=between,
        within=within,
    )


def _z(p: float) -> float:
    return statistics.NormalDist().inv_cdf(p)


def boxes_for_ci_width(
    components: VarianceComponents, width: float, repetitions: int, confidence: float = 0.95
) -> int:
    """Boxes needed for a ``confidence`` interval of the mean score no wider than
    ``width`` with ``repetitions`` per box: ``n = ceil((2 z / W)^2 (between + within /
    r))``, z the normal quantile ``1 - (1 - confidence) / 2``; at least 2."""
    if not width > 0 or repetitions < 1:
        raise ValueError("width must be > 0 and repetitions >= 1")
    z = _z(1 - (1 - confidence) / 2)
    need = (2 * z / width) ** 2 * components.mean_variance(1, repetitions)
    return max(2, math.ceil(need - 1e-9))


def min_boxes_for_alpha(alpha: float) -> int:
    """The fewest boxes with which the exact sign-flip test can reach p <= ``alpha``:
    its smallest p is ``2 / 2^n``, so ``ceil(log2(2 / alpha))`` (6 for 0.05)."""
    return math.ceil(math.log2(2 / alpha) - 1e-12)


def boxes_for_difference(
    components: VarianceComponents,
    difference: float,
    repetitions: int,
    *,
    power: float = 0.8,
    alpha: float = 0.05,
) -> int:
    """Boxes needed to detect a paired mean difference ``difference`` with ``power`` in a
    two-sided test at ``alpha``, from the difference's components
    (:func:`difference_components`): ``n = ceil((z_{1-alpha/2} + z_power)^2 (between +
    within / r) / D^2)``, and at least :func:`min_boxes_for_alpha`."""
    if difference == 0 or repetitions < 1:
        raise ValueError("difference must be non-zero and repetitions >= 1")
    if not 0 < power < 1 or not 0 < alpha < 1:
        raise ValueError("power and alpha must be in (0, 1)")
    z = _z(1 - alpha / 2) + _z(power)
    need = z**2 * components.mean_variance(1, repetitions) / difference**2
    return max(min_boxes_for_alpha(alpha), math.ceil(need - 1e-9))
