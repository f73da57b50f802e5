"""Minimal and accessible DFA counts (exact and estimated), and the diagram bijection."""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from itertools import product

import pytest

from blackboxes.automata import _minimal_fraction as table
from blackboxes.automata._binomial_ci import clopper_pearson
from blackboxes.automata.counting import (
    CONFIDENCE,
    ENUMERATION_LIMIT,
    MONTE_CARLO_SEED,
    PUBLISHED_COUNTS,
    RUNTIME_SAMPLES,
    MinimalDfaCount,
    accessible_dfas,
    accessible_structures,
    count_minimal_dfas,
    enumerate_accessible_structures,
    enumerate_minimal_dfas,
    log2_minimal_dfas,
    minimal_dfa_count,
    minimal_dfa_log2_count,
    minimal_fraction_hits,
    minimal_unary_dfas,
)
from blackboxes.automata.dfa import DFA
from blackboxes.automata.sampling import structure_from_diagram

A2 = [1, 12, 216, 5248, 160675, 5931540, 256182290, 12665445248]
A3 = [1, 56, 7965, 2128064, 914929500]
ALPHABETS = {1: ("a",), 2: ("a", "b"), 3: ("a", "b", "c")}


def _canonical(delta: Sequence[Sequence[int]], k: int) -> DFA:
    """The BFS renumbering of a structure (finality all False so only shape counts)."""
    return DFA.build(ALPHABETS[k], delta, [False] * len(delta)).canonical()


def _is_accessible(delta: Sequence[Sequence[int]]) -> bool:
    seen = {0}
    todo = [0]
    while todo:
        for t in delta[todo.pop()]:
            if t not in seen:
                seen.add(t)
                todo.append(t)
    return len(seen) == len(delta)


# -- accessible structures ---------------------------------------------------------


def test_accessible_dfa_counts_match_the_published_figures() -> None:
    assert [accessible_dfas(n, 2) for n in range(1, 9)] == A2
    assert [accessible_dfas(n, 3) for n in range(1, 6)] == A3


def test_structures_are_dfas_times_relabellings() -> None:
    for k in (1, 2, 3, 4):
        for n in range(1, 12):
            assert accessible_structures(n, k) == accessible_dfas(n, k) * math.factorial(n - 1)


def test_one_letter_structures_are_lassos() -> None:
    # Unary: visit the n states in some order from 1, then loop back to any of them.
    assert [accessible_structures(n, 1) for n in range(1, 10)] == [
        math.factorial(n) for n in range(1, 10)
    ]
    assert [accessible_dfas(n, 1) for n in range(1, 10)] == list(range(1, 10))


@pytest.mark.parametrize(("n", "k"), [(1, 2), (2, 2), (3, 2), (4, 2), (1, 3), (2, 3), (3, 3)])
def test_structures_recurrence_matches_brute_force(n: int, k: int) -> None:
    slots = n * k
    count = 0
    for flat in product(range(n), repeat=slots):
        delta = [flat[q * k : (q + 1) * k] for q in range(n)]
        count += _is_accessible(delta)
    assert accessible_structures(n, k) == count


def test_large_counts_are_exact_and_agree_with_the_asymptotics() -> None:
    # A_k(n) ~ E_k n S(kn, n) with E_2 ~ 0.74499 (notes/dfa.md 4.1); an exact-int
    # recurrence drifting by a rounding error would break this at n = 300.
    n = 300
    ratio = accessible_dfas(n, 2) / (n * _stirling2(2 * n, n))
    assert ratio == pytest.approx(0.74499, abs=5e-4)


def test_invalid_sizes_are_refused() -> None:
    with pytest.raises(ValueError):
        accessible_structures(0, 2)
    with pytest.raises(ValueError):
        accessible_dfas(3, 0)
    with pytest.raises(ValueError):
        list(enumerate_accessible_structures(0, 2))


@pytest.mark.parametrize(("n", "k"), [(1, 2), (2, 2), (3, 2), (4, 2), (1, 3), (2, 3), (3, 3)])
def test_enumeration_yields_each_canonical_accessible_structure_once(n: int, k: int) -> None:
    structures = list(enumerate_accessible_structures(n, k))
    assert len(structures) == accessible_dfas(n, k)
    assert len(set(structures)) == len(structures)
    for delta in structures[:: max(1, len(structures) // 500)]:
        assert len(delta) == n and all(len(row) == k for row in delta)
        assert _is_accessible(delta)
        assert _canonical(delta, k).delta == delta


def test_enumeration_covers_brute_force_canonical_forms() -> None:
    # Canonicalise every one of the 4^8 labelled structures: the accessible ones give
    # exactly the enumerated set.
    n, k = 4, 2
    seen = set()
    for flat in product(range(n), repeat=n * k):
        delta = [list(flat[q * k : (q + 1) * k]) for q in range(n)]
        if _is_accessible(delta):
            seen.add(_canonical(delta, k).delta)
    assert seen == set(enumerate_accessible_structures(n, k))


# -- minimal DFAs --------------------------------------------------------------------

M2 = [2, 24, 1028, 56014, 3705306, 286717796, 25493886852]
"""Minimal DFAs over two letters, n = 1..7: OEIS A129622. Ours enumerate n <= 6 (n = 5,
6 once, checked in); n = 7 is the published figure."""


def test_minimal_counts_over_two_letters() -> None:
    assert [minimal_dfa_count(n, 2) for n in range(1, 8)] == M2


def test_minimal_counts_are_known_exactly_where_formula_or_enumeration_reach() -> None:
    for n, k in [(4, 2), (3, 3), (2, 4)]:  # enumerated at runtime
        assert accessible_dfas(n, k) << n <= ENUMERATION_LIMIT
        assert minimal_dfa_count(n, k) == count_minimal_dfas(n, k)
    for (n, k), count in table.EXACT.items():  # enumerated once, checked in
        assert accessible_dfas(n, k) << n > ENUMERATION_LIMIT
        assert minimal_dfa_count(n, k) == count
    assert set(table.EXACT) == {(5, 2), (6, 2), (4, 3), (3, 4), (3, 5)}
    assert minimal_dfa_count(1, 26) == 2
    assert minimal_dfa_count(2, 26) == 2 * accessible_dfas(2, 26)
    assert minimal_dfa_count(60, 1) == minimal_unary_dfas(60)
    for n, k in [(8, 2), (5, 3), (4, 4), (4, 5), (3, 6), (3, 26)]:
        assert minimal_dfa_count(n, k) is None


@pytest.mark.parametrize(("n", "k"), [(5, 2), (3, 4)])
def test_checked_in_exact_counts_reproduce(n: int, k: int) -> None:
    # The cheapest two (about 2 s each); the script recomputes all of them.
    assert count_minimal_dfas(n, k) == table.EXACT[(n, k)]


def test_two_state_minimal_dfas_have_one_accepting_state() -> None:
    # With two states, minimal iff exactly one accepts: 2 A_k(2).
    for k in (1, 2, 3, 4):
        assert count_minimal_dfas(2, k) == 2 * accessible_dfas(2, k) == minimal_dfa_count(2, k)


@pytest.mark.parametrize(("n", "k"), [(1, 2), (2, 2), (3, 2), (2, 3), (3, 3), (4, 1), (6, 1)])
def test_minimal_enumeration_matches_the_dfa_minimality_test(n: int, k: int) -> None:
    expected = set()
    for delta in enumerate_accessible_structures(n, k):
        for flags in product((False, True), repeat=n):
            dfa = DFA.build(ALPHABETS[k], delta, list(flags))
            if dfa.is_minimal():
                expected.add((delta, flags))
    found = list(enumerate_minimal_dfas(n, k))
    assert len(found) == len(set(found)) == minimal_dfa_count(n, k) == count_minimal_dfas(n, k)
    assert set(found) == expected


def test_fast_count_matches_the_enumeration() -> None:
    for n, k in [(4, 2), (3, 3), (2, 4), (2, 5), (9, 1)]:
        assert count_minimal_dfas(n, k) == sum(1 for _ in enumerate_minimal_dfas(n, k))


def test_unary_formula_matches_the_enumeration_and_oeis() -> None:
    assert [minimal_unary_dfas(n) for n in range(1, 13)] == [
        sum(1 for _ in enumerate_minimal_dfas(n, 1)) for n in range(1, 13)
    ]
    assert minimal_unary_dfas(29) == 7681910826  # OEIS A059412's last listed term


def test_minimal_unary_counts_match_brute_force_over_lassos() -> None:
    # Independent of the pair-graph test: a unary DFA is minimal iff its languages
    # from the n states, read as 0/1 sequences of length 2n, are pairwise distinct.
    for n in range(1, 9):
        count = 0
        for loop_to in range(n):
            delta = [[q + 1] for q in range(n - 1)] + [[loop_to]]
            for flags in product((False, True), repeat=n):
                seqs = set()
                for q in range(n):
                    seq, p = [], q
                    for _ in range(2 * n):
                        seq.append(flags[p])
                        p = delta[p][0]
                    seqs.add(tuple(seq))
                count += len(seqs) == n
        assert minimal_unary_dfas(n) == count


# -- log2 counts: exact or a Monte Carlo interval ------------------------------------


def _base(n: int, k: int) -> float:
    """log2 of all accessible DFAs, 2^n A_k(n): the count if every one were minimal."""
    return n + math.log2(accessible_dfas(n, k))


def test_exact_log2_counts_have_no_interval() -> None:
    cases = [(4, 2, "enumeration"), (6, 2, "enumeration"), (7, 2, "published"), (2, 3, "formula")]
    for n, k, method in cases:
        value = math.log2(minimal_dfa_count(n, k) or 0)
        assert minimal_dfa_log2_count(n, k) == MinimalDfaCount(
            log2=value, exact=True, low=value, high=value, confidence=None, method=method
        )
    assert minimal_dfa_log2_count(30, 1).method == "formula"
    assert minimal_dfa_log2_count(30, 1).log2 == math.log2(minimal_unary_dfas(30))


def test_estimates_come_from_the_checked_in_tallies() -> None:
    for k in (2, 3, 4):
        for n in (table.FIRST_N[k] + 1, 100, 200):
            hits, samples = table.HITS[k][n - table.FIRST_N[k]], table.SAMPLES[k]
            low, high = clopper_pearson(hits, samples, CONFIDENCE)
            assert minimal_dfa_log2_count(n, k) == MinimalDfaCount(
                log2=_base(n, k) + math.log2(hits / samples),
                exact=False,
                low=_base(n, k) + math.log2(low),
                high=_base(n, k) + math.log2(high),
                confidence=0.99,
                method="monte-carlo",
            )
    # A_2(200) is beyond float range; log2 takes the big integer directly.
    assert accessible_dfas(200, 2) > 2**1100


def test_sizes_outside_the_table_draw_at_runtime() -> None:
    count = minimal_dfa_log2_count(3, 6)
    hits = minimal_fraction_hits(3, 6, RUNTIME_SAMPLES)
    assert count.log2 == _base(3, 6) + math.log2(hits / RUNTIME_SAMPLES)
    assert not count.exact and count.method == "monte-carlo"
    assert count.low < count.log2 <= count.high <= _base(3, 6)


def test_log2_minimal_dfas_is_the_point_value() -> None:
    for n, k in [(1, 2), (4, 2), (5, 2), (7, 2), (50, 2), (4, 3), (9, 4), (3, 6), (20, 1)]:
        count = minimal_dfa_log2_count(n, k)
        assert log2_minimal_dfas(n, k) == (count.log2, count.exact)


def test_the_audited_sizes_lose_their_extra_query() -> None:
    # The old 0.85 / 1.0 fractions put T_info = ceil(log2 |H|) one too high here.
    assert math.ceil(minimal_dfa_log2_count(5, 2).low) == 22  # log2 3705306 = 21.82
    assert math.ceil(minimal_dfa_log2_count(4, 3).low) == 25
    assert math.ceil(_base(5, 2) + math.log2(0.85)) == 23
    assert math.ceil(_base(4, 3)) == 26


@pytest.mark.parametrize(
    ("n", "k"),
    [(2, 2), (3, 2), (4, 2), (5, 2), (6, 2), (2, 3), (3, 3), (4, 3), (2, 4), (3, 4)],
)
def test_monte_carlo_intervals_contain_the_exact_fractions(n: int, k: int) -> None:
    # The estimator as the table runs it (same seed scheme and draws per k), on every
    # size whose count is known: the 99 % interval must hold the exact fraction.
    samples = table.SAMPLES[k]
    hits = minimal_fraction_hits(n, k, samples)
    low, high = clopper_pearson(hits, samples, CONFIDENCE)
    exact = (minimal_dfa_count(n, k) or 0) / (accessible_dfas(n, k) << n)
    assert low <= exact <= high
    assert abs(hits / samples - exact) < 0.03


def test_the_tally_at_a_published_count_contains_it() -> None:
    n, k = 7, 2
    low, high = clopper_pearson(table.HITS[k][n - table.FIRST_N[k]], table.SAMPLES[k], CONFIDENCE)
    assert low <= PUBLISHED_COUNTS[(n, k)] / (accessible_dfas(n, k) << n) <= high


def test_draws_are_seeded() -> None:
    first = minimal_fraction_hits(8, 2, 300)
    assert minimal_fraction_hits(8, 2, 300) == first
    assert minimal_fraction_hits(8, 2, 300, seed=MONTE_CARLO_SEED) == first
    assert len({minimal_fraction_hits(8, 2, 300, seed=s) for s in range(1, 6)} | {first}) > 1
    # Fewer draws are a prefix of the same stream.
    prefix = minimal_fraction_hits(8, 2, 200)
    assert prefix <= first <= prefix + 100


def test_table_shape_matches_the_exact_range() -> None:
    assert table.SEED == MONTE_CARLO_SEED
    assert set(table.HITS) == set(table.FIRST_N) == set(table.SAMPLES) == {2, 3, 4}
    for k, first in table.FIRST_N.items():
        # The tallies start right where the enumerated counts stop and run to n = 200
        # (k=2 n=7 has a published count: its tally is kept as a check on the estimator).
        assert minimal_dfa_count(first - 1, k) is not None
        assert minimal_dfa_count(first, k) is None or (first, k) in PUBLISHED_COUNTS
        assert first + len(table.HITS[k]) - 1 == 200
        assert all(0 < h <= table.SAMPLES[k] for h in table.HITS[k])


@pytest.mark.parametrize(("n", "k"), [(7, 2), (10, 2), (5, 3), (4, 4)])
def test_checked_in_tallies_reproduce(n: int, k: int) -> None:
    hits = minimal_fraction_hits(n, k, table.SAMPLES[k], table.SEED)
    assert hits == table.HITS[k][n - table.FIRST_N[k]]


def test_counts_grow_with_n_and_fractions_follow_the_theory() -> None:
    for k in (2, 3, 4):
        counts = [minimal_dfa_log2_count(n, k) for n in range(1, 201)]
        points = [c.log2 for c in counts]
        assert points == sorted(points) and len(set(points)) == len(points)
        for n, c in enumerate(counts, start=1):
            assert c.low <= c.log2 <= c.high <= _base(n, k) + 1e-9
            assert c.exact == (c.confidence is None) == (c.low == c.high)
    # The k = 2 fraction settles near 0.85 (notes/dfa.md 4.1); for k >= 3 the
    # non-minimal part vanishes like n^(2-k).
    for n in range(50, 201):
        assert 0.8 < 2 ** (minimal_dfa_log2_count(n, 2).log2 - _base(n, 2)) < 0.9
        assert 2 ** (minimal_dfa_log2_count(n, 3).log2 - _base(n, 3)) > 0.97
        assert 2 ** (minimal_dfa_log2_count(n, 4).log2 - _base(n, 4)) > 0.995


def test_estimates_refuse_one_letter_draws() -> None:
    with pytest.raises(ValueError):
        minimal_fraction_hits(5, 1, 10)


# -- Clopper-Pearson ------------------------------------------------------------------


def test_clopper_pearson_matches_closed_forms_and_published_values() -> None:
    n = 10
    assert clopper_pearson(0, n, 0.95) == (0.0, pytest.approx(1 - 0.025 ** (1 / n), abs=1e-11))
    assert clopper_pearson(n, n, 0.95) == (pytest.approx(0.025 ** (1 / n), abs=1e-11), 1.0)
    # R's binom.test(5, 10)$conf.int
    assert clopper_pearson(5, 10, 0.95) == (
        pytest.approx(0.1870860, abs=1e-7),
        pytest.approx(0.8129140, abs=1e-7),
    )
    low, high = clopper_pearson(3400, 4000, 0.99)
    back_low, back_high = clopper_pearson(600, 4000, 0.99)
    assert low == pytest.approx(1 - back_high, abs=1e-11)
    assert high == pytest.approx(1 - back_low, abs=1e-11)


def test_clopper_pearson_covers_at_least_the_confidence() -> None:
    # Exact coverage for 40 trials over a grid of true p: the probability that the
    # interval of a Binomial(40, p) draw contains p.
    trials, confidence = 40, 0.9
    intervals = [clopper_pearson(x, trials, confidence) for x in range(trials + 1)]
    for i in range(1, 200):
        p = i / 200
        coverage = sum(
            math.comb(trials, x) * p**x * (1 - p) ** (trials - x)
            for x, (low, high) in enumerate(intervals)
            if low <= p <= high
        )
        assert coverage >= confidence - 1e-12


def test_clopper_pearson_refuses_bad_input() -> None:
    for hits, trials, confidence in [(3, 2, 0.9), (-1, 2, 0.9), (0, 0, 0.9), (1, 2, 1.0)]:
        with pytest.raises(ValueError):
            clopper_pearson(hits, trials, confidence)


# -- the diagram bijection (sampler steps 4-7) --------------------------------------


def _stirling2(m: int, n: int) -> int:
    """S(m, n) by the recurrence S(i, j) = j S(i-1, j) + S(i-1, j-1)."""
    row = [1] + [0] * n
    for _ in range(m):
        row = [0] + [j * row[j] + row[j - 1] for j in range(1, n + 1)]
    return row[n]


def _restricted_growth_strings(m: int, n: int) -> Iterator[list[int]]:
    """Set partitions of [m] into exactly n blocks, as r_1..r_m with r_1 = 1."""

    def grow(prefix: list[int], top: int) -> Iterator[list[int]]:
        if len(prefix) == m:
            if top == n:
                yield prefix
            return
        if n - top > m - len(prefix):
            return
        for r in range(1, min(top + 1, n) + 1):
            yield from grow([*prefix, r], max(top, r))

    yield from grow([1], 1)


def _dyck_diagrams(n: int, k: int) -> tuple[int, list[list[tuple[int, int]]]]:
    """(number of partitions, the columns of the k-Dyck ones)."""
    total, dyck = 0, []
    for rgs in _restricted_growth_strings(k * n, n):
        total += 1
        columns, top = [], 0
        for r in rgs:
            if r > top:
                top = r
            else:
                columns.append((top, r))
        if all(x >= -(-i // (k - 1)) for i, (x, _) in enumerate(columns, start=1)):
            dyck.append(columns)
    return total, dyck


@pytest.mark.parametrize(
    ("n", "k", "dyck_count"), [(2, 2, 6), (3, 2, 72), (4, 2, 1312), (2, 3, 28), (3, 3, 2655)]
)
def test_diagrams_are_a_bijection_onto_accessible_structures(
    n: int, k: int, dyck_count: int
) -> None:
    partitions, diagrams = _dyck_diagrams(n, k)
    assert partitions == _stirling2(k * n, n)
    assert len(diagrams) == dyck_count
    built = set()
    for columns in diagrams:
        for y in range(1, n + 1):
            delta = structure_from_diagram([*columns, (n, y)], n, k)
            assert len(delta) == n and _is_accessible(delta)
            built.add(tuple(tuple(row) for row in delta))
    assert len(built) == n * dyck_count == accessible_dfas(n, k)
    canonical = [_canonical(list(map(list, delta)), k).delta for delta in built]
    assert len(set(canonical)) == len(canonical)
    assert set(canonical) == set(enumerate_accessible_structures(n, k))


def test_diagram_construction_refuses_bad_columns() -> None:
    with pytest.raises(ValueError):
        structure_from_diagram([(2, 1)], 2, 2)  # too few columns
    with pytest.raises(ValueError):
        # Not Dyck: the first slot points back, the walk ends with one state.
        structure_from_diagram([(1, 1), (1, 1), (2, 1)], 2, 2)
