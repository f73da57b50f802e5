"""evaluator.analysis.stats: the sign-flip test, paired comparisons, Holm, variance
components and the suite-size formulas, on exact values and properties."""

from __future__ import annotations

import itertools
import math
import statistics

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluator.analysis.stats import (
    EXACT_MAX_BOXES,
    MONTE_CARLO_RESAMPLES,
    VarianceComponents,
    boxes_for_ci_width,
    boxes_for_difference,
    cohens_dz,
    difference_components,
    holm,
    min_boxes_for_alpha,
    paired_comparison,
    sign_flip_p,
    variance_components,
)
from oracle_bench.rng import rng_for

# Scores are means of repetitions in [0, 1]: differences in [-1, 1], on a grid of 1/8 so
# that the brute force below sums them exactly.
DIFF = st.integers(-8, 8).map(lambda k: k / 8)


def _brute_p(diffs: list[float]) -> float:
    observed = abs(sum(diffs))
    hits = sum(
        abs(sum(s * d for s, d in zip(signs, diffs, strict=True))) >= observed
        for signs in itertools.product((1, -1), repeat=len(diffs))
    )
    return hits / 2 ** len(diffs)


def test_ten_boxes_shifted_by_one_give_two_in_1024() -> None:
    assert sign_flip_p([1.0] * 10) == (2 / 1024, "exact")
    a = {f"b{i}": 0.25 + i / 100 for i in range(10)}
    b = {k: v - 1 for k, v in a.items()}
    assert paired_comparison(a, b).p_value == 2 / 1024  # type: ignore[union-attr]


def test_exact_values() -> None:
    assert sign_flip_p([]) == (1.0, "none")
    assert sign_flip_p([0.0, 0.0, 0.0]) == (1.0, "exact")
    assert sign_flip_p([0.5]) == (1.0, "exact")
    # |0.5 + 0.2| is reached by 2 of the 4 sign vectors of the non-zero differences.
    assert sign_flip_p([0.5, 0.0, 0.2]) == (0.5, "exact")
    assert sign_flip_p([1.0] * EXACT_MAX_BOXES) == (2 / 2**EXACT_MAX_BOXES, "exact")


@settings(max_examples=60, deadline=None)
@given(st.lists(DIFF, min_size=1, max_size=12))
def test_exact_test_equals_the_brute_force_and_is_a_probability(diffs: list[float]) -> None:
    p, test = sign_flip_p(diffs)
    assert test == "exact"
    assert p == _brute_p(diffs)
    assert 0 < p <= 1


@settings(max_examples=40, deadline=None)
@given(st.lists(DIFF, min_size=1, max_size=40), st.integers(0, 3))
def test_swapping_a_and_b_changes_no_p_and_mirrors_the_interval(
    diffs: list[float], seed: int
) -> None:
    a = {f"b{i:02d}": 0.5 + d / 2 for i, d in enumerate(diffs)}
    b = {f"b{i:02d}": 0.5 - d / 2 for i, d in enumerate(diffs)}
    ab = paired_comparison(a, b, seed, "x", resamples=200)
    ba = paired_comparison(b, a, seed, "x", resamples=200)
    assert ab is not None and ba is not None
    assert ab.p_value == ba.p_value
    assert 0 < ab.p_value <= 1
    assert (ab.ci_low, ab.ci_high) == (-ba.ci_high, -ba.ci_low)
    assert ab.mean_diff == -ba.mean_diff
    assert (ab.a_better, ab.b_better) == (ba.b_better, ba.a_better)
    assert ab.d_z == (None if ba.d_z is None else -ba.d_z)


def test_monte_carlo_is_seeded_and_never_zero() -> None:
    rng = rng_for(0, "test-mc")
    diffs = [rng.gauss(0.05, 0.3) for _ in range(45)]
    p1, test = sign_flip_p(diffs, 7, "a")
    assert test == "monte-carlo"
    assert sign_flip_p(diffs, 7, "a") == (p1, test)
    assert sign_flip_p(diffs, 8, "a")[0] != p1 or sign_flip_p(diffs, 7, "b")[0] != p1
    assert 0 < p1 <= 1
    # No random sign vector of 40 reaches all + or all -: the smallest p there is.
    assert sign_flip_p([1.0] * 40, 0) == (1 / (1 + MONTE_CARLO_RESAMPLES), "monte-carlo")
    assert sign_flip_p([0.3, -0.3] * 20, 0)[0] == 1.0


def test_paired_comparison_exact_values() -> None:
    a = {"x": 1.0, "y": 0.5, "z": 0.2, "only-a": 0.0}
    b = {"x": 0.5, "y": 0.5, "z": 0.0, "only-b": 1.0}
    r = paired_comparison(a, b, 0, "t")
    assert r is not None
    assert r.boxes == 3
    assert r.mean_a == pytest.approx(1.7 / 3)
    assert r.mean_b == pytest.approx(1.0 / 3)
    assert r.mean_diff == pytest.approx(0.7 / 3)
    assert r.p_value == 0.5 and r.test == "exact"
    assert r.d_z == pytest.approx((0.7 / 3) / statistics.stdev([0.5, 0.0, 0.2]))
    assert (r.a_better, r.b_better) == (2 / 3, 0.0)
    assert 0.0 <= r.ci_low <= r.mean_diff <= r.ci_high <= 0.5
    assert paired_comparison({"x": 1.0}, {"y": 1.0}) is None
    assert paired_comparison(a, b, 0, "t") == r  # seeded: the same interval


def test_cohens_dz_and_holm() -> None:
    assert cohens_dz([1.0, 2.0, 3.0]) == 2.0
    assert cohens_dz([0.5, 0.5]) is None
    assert cohens_dz([0.5]) is None
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.5, 0.9]) == [1.0, 1.0]
    assert holm([]) == []


def test_variance_components_exact() -> None:
    # Box means 0.5, 0, 1 (s2_m = 1/4); within: 0.5 / 3 dof = 1/6; between = 1/4 - 1/6 / 2.
    c = variance_components([[1, 0], [0, 0], [1, 1]])
    assert (c.boxes, c.repetitions, c.mean) == (3, 2.0, 0.5)
    assert c.within == pytest.approx(1 / 6)
    assert c.between == pytest.approx(1 / 6)
    assert c.separable
    one = variance_components([[0.0], [1.0], [0.5]])
    assert one.within is None and not one.separable
    assert one.between == pytest.approx(0.25)
    assert one.mean_variance(4, 8) == pytest.approx(0.25 / 4)  # repetitions do not help
    with pytest.raises(ValueError, match="two boxes"):
        variance_components([[1.0, 0.0], []])


def test_variance_components_recover_known_variances() -> None:
    rng = rng_for(5, "test-components")
    boxes = []
    for _ in range(3000):
        effect = rng.gauss(0.5, math.sqrt(0.04))
        boxes.append([effect + rng.gauss(0, math.sqrt(0.01)) for _ in range(4)])
    c = variance_components(boxes)
    assert c.between == pytest.approx(0.04, rel=0.1)
    assert c.within == pytest.approx(0.01, rel=0.05)
    # The difference of two agents sharing the box effect: only their noise differs.
    other = {f"b{i}": [v + rng.gauss(0.1, 0.1) for v in values] for i, values in enumerate(boxes)}
    mine = {f"b{i}": values for i, values in enumerate(boxes)}
    d = difference_components(other, mine)
    assert d.mean == pytest.approx(0.1, abs=0.01)
    assert d.within == pytest.approx(0.01 + 0.01 + 0.01, rel=0.1)
    assert d.between == pytest.approx(0.0, abs=0.003)


def test_boxes_for_a_ci_width_and_a_difference() -> None:
    z = statistics.NormalDist().inv_cdf(0.975)
    c = VarianceComponents(boxes=10, repetitions=2, mean=0.5, between=0.04, within=0.04)
    assert boxes_for_ci_width(c, 0.1, 1) == math.ceil((2 * z / 0.1) ** 2 * 0.08) == 123
    assert boxes_for_ci_width(c, 0.1, 4) == math.ceil((2 * z / 0.1) ** 2 * 0.05) == 77
    d = VarianceComponents(boxes=10, repetitions=2, mean=0.1, between=0.02, within=0.02)
    zz = z + statistics.NormalDist().inv_cdf(0.8)
    assert boxes_for_difference(d, 0.1, 2) == math.ceil(zz**2 * 0.03 / 0.01) == 24
    assert boxes_for_difference(d, -0.1, 2) == 24
    tiny = VarianceComponents(boxes=10, repetitions=1, mean=0.0, between=1e-6, within=None)
    assert boxes_for_difference(tiny, 0.5, 1) == min_boxes_for_alpha(0.05) == 6
    assert min_boxes_for_alpha(0.01) == 8
    assert boxes_for_ci_width(tiny, 0.5, 1) == 2
    with pytest.raises(ValueError):
        boxes_for_ci_width(c, 0.0, 1)
    with pytest.raises(ValueError):
        boxes_for_difference(d, 0.1, 1, power=1.0)
