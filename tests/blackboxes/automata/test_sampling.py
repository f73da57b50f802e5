"""The Boltzmann sampler: exact uniformity (chi-square against exact counts) and invariants."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Hashable
from statistics import NormalDist

import pytest

from blackboxes.automata.counting import (
    accessible_dfas,
    enumerate_accessible_structures,
    enumerate_minimal_dfas,
)
from blackboxes.automata.dfa import DFA
from blackboxes.automata.sampling import (
    DEFAULT_ALPHABET,
    sample_accessible_structure,
    sample_minimal_dfa,
    zeta,
)
from oracle_bench.rng import rng_for

ALPHA = 1e-3
"""Significance of each chi-square tail; the RNGs are seeded, so outcomes are fixed."""

ABC = ("a", "b", "c")


def chi2_quantile(df: int, p: float) -> float:
    """The p-quantile of chi-square(df), Wilson-Hilferty cube-root normal approximation."""
    z = NormalDist().inv_cdf(p)
    h = 2.0 / (9.0 * df)
    return df * (1.0 - h + z * math.sqrt(h)) ** 3


def assert_uniform(
    draws: Counter[Hashable], support: set[Hashable], *, every_outcome: bool = True
) -> None:
    """Every outcome lies in ``support``, every element appears (unless the expected count
    per cell is too small for that), and chi-square is unremarkable at :data:`ALPHA`."""
    assert set(draws) <= support, "sampled something outside the support"
    total = sum(draws.values())
    expected = total / len(support)
    missing = len(support - set(draws))
    if every_outcome:
        assert missing == 0, f"{missing} outcomes never drawn"
    else:
        # Poisson: about |support| e^-expected empty cells; ten times that is alarming.
        assert missing <= max(3, 10 * len(support) * math.exp(-expected))
    stat = sum((draws[x] - expected) ** 2 / expected for x in support)
    df = len(support) - 1
    assert chi2_quantile(df, ALPHA) < stat < chi2_quantile(df, 1 - ALPHA), (stat, df)


def _collect(draw: Callable[[], Hashable], count: int) -> Counter[Hashable]:
    return Counter(draw() for _ in range(count))


def _key(dfa: DFA) -> tuple[tuple[tuple[int, ...], ...], tuple[bool, ...]]:
    return dfa.delta, dfa.accepting


def _structure_key(delta: list[list[int]], k: int) -> tuple[tuple[int, ...], ...]:
    return DFA.build(ABC[:k], delta, [False] * len(delta)).canonical().delta


def test_chi2_quantile_matches_tables() -> None:
    # Published chi-square tables: 0.999 quantiles 49.728 (df 23), 149.449 (df 100).
    assert chi2_quantile(23, 0.999) == pytest.approx(49.728, abs=0.3)
    assert chi2_quantile(100, 0.999) == pytest.approx(149.449, abs=0.3)
    assert chi2_quantile(100, 0.001) == pytest.approx(61.918, abs=0.3)


@pytest.mark.parametrize(
    ("n", "alphabet", "per_cell"),
    [(2, DEFAULT_ALPHABET, 200), (3, DEFAULT_ALPHABET, 20), (2, ABC, 30)],
)
def test_minimal_dfas_are_uniform(n: int, alphabet: tuple[str, ...], per_cell: int) -> None:
    support: set[Hashable] = set(enumerate_minimal_dfas(n, len(alphabet)))
    assert len(support) == {(2, 2): 24, (3, 2): 1028, (2, 3): 112}[n, len(alphabet)]
    rng = rng_for(2026, "minimal", n, len(alphabet))
    draws = _collect(lambda: _key(sample_minimal_dfa(rng, n, alphabet)), per_cell * len(support))
    assert_uniform(draws, support)


@pytest.mark.parametrize(("n", "k", "per_cell"), [(3, 2, 50), (4, 2, 8), (2, 3, 50)])
def test_accessible_structures_are_uniform(n: int, k: int, per_cell: int) -> None:
    support: set[Hashable] = set(enumerate_accessible_structures(n, k))
    assert len(support) == accessible_dfas(n, k)
    rng = rng_for(2026, "structure", n, k)
    draws = _collect(
        lambda: _structure_key(sample_accessible_structure(rng, n, k), k),
        per_cell * len(support),
    )
    # At 8 draws per cell about two of the 5248 cells stay empty by chance.
    assert_uniform(draws, support, every_outcome=per_cell >= 20)


def test_final_states_are_fair_coins() -> None:
    # Over the minimal 3-state DFAs the accepting fraction is exactly 1/2 by the
    # complement symmetry; the sampler must reproduce it (binomial 4-sigma band).
    rng = rng_for(2026, "finals")
    flags = [f for _ in range(3000) for f in sample_minimal_dfa(rng, 3).accepting]
    sigma = math.sqrt(len(flags)) / 2
    assert abs(sum(flags) - len(flags) / 2) < 4 * sigma


@pytest.mark.parametrize("alphabet", [DEFAULT_ALPHABET, ABC, ("1", "0")])
def test_samples_are_minimal_canonical_and_exactly_n_states(alphabet: tuple[str, ...]) -> None:
    rng = rng_for(7, "sizes", "".join(alphabet))
    for n in range(1, 61):
        dfa = sample_minimal_dfa(rng, n, alphabet)
        assert dfa.n == n
        assert dfa.alphabet == alphabet
        assert dfa.is_minimal()
        assert dfa.canonical() == dfa
        assert dfa.minimise() == dfa


def test_structures_are_accessible_with_exactly_n_states() -> None:
    for k in (2, 3, 4):
        rng = rng_for(7, "structures", k)
        for n in (1, 2, 5, 17, 60):
            delta = sample_accessible_structure(rng, n, k)
            assert len(delta) == n and all(len(row) == k for row in delta)
            dfa = DFA.build((*ABC, "d") if k == 4 else ABC[:k], delta, [False] * n)
            assert len(dfa.reachable_states()) == n


def test_sampling_is_deterministic_per_seed() -> None:
    for n in (1, 5, 40):
        first = sample_minimal_dfa(rng_for(3, "det", n), n)
        again = sample_minimal_dfa(rng_for(3, "det", n), n)
        assert first == again
    different = {sample_minimal_dfa(rng_for(seed, "det"), 12) for seed in range(20)}
    assert len(different) == 20


def test_invalid_arguments() -> None:
    rng = rng_for(0, "bad")
    with pytest.raises(ValueError):
        sample_accessible_structure(rng, 0, 2)
    with pytest.raises(ValueError):
        zeta(1)


def test_zeta() -> None:
    assert zeta(2) == pytest.approx(1.5936243, abs=5e-8)
    assert zeta(3) == pytest.approx(2.8214394, abs=5e-8)
    for k in range(2, 8):
        z = zeta(k)
        # The mean of a zero-truncated Poisson(z) is k.
        assert z / (1 - math.exp(-z)) == pytest.approx(k, rel=1e-12)
