"""Exact counts of accessible and minimal DFAs, and the diagram bijection of the sampler."""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from itertools import product

import pytest

from blackboxes.automata.counting import (
    ENUMERATION_LIMIT,
    MINIMAL_FRACTION_K2,
    accessible_dfas,
    accessible_structures,
    enumerate_accessible_structures,
    enumerate_minimal_dfas,
    log2_minimal_dfas,
    minimal_dfa_count,
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


def test_minimal_counts_over_two_letters() -> None:
    assert [minimal_dfa_count(n, 2) for n in range(1, 5)] == [2, 24, 1028, 56014]


def test_minimal_counts_stop_where_enumeration_gets_expensive() -> None:
    assert minimal_dfa_count(5, 2) is None
    assert minimal_dfa_count(4, 3) is None
    assert minimal_dfa_count(3, 3) is not None
    for n, k in [(4, 2), (3, 3), (5, 2), (4, 3), (2, 4), (3, 4), (13, 1), (14, 1)]:
        cheap = accessible_dfas(n, k) * 2**n <= ENUMERATION_LIMIT
        assert (minimal_dfa_count(n, k) is not None) == cheap


def test_two_state_minimal_dfas_have_one_accepting_state() -> None:
    # With two states, minimal iff exactly one accepts: 2 A_k(2).
    for k in (2, 3, 4):
        assert minimal_dfa_count(2, k) == 2 * accessible_dfas(2, k)


@pytest.mark.parametrize(("n", "k"), [(1, 2), (2, 2), (3, 2), (2, 3), (3, 3), (4, 1), (6, 1)])
def test_minimal_enumeration_matches_the_dfa_minimality_test(n: int, k: int) -> None:
    expected = set()
    for delta in enumerate_accessible_structures(n, k):
        for flags in product((False, True), repeat=n):
            dfa = DFA.build(ALPHABETS[k], delta, list(flags))
            if dfa.is_minimal():
                expected.add((delta, flags))
    found = list(enumerate_minimal_dfas(n, k))
    assert len(found) == len(set(found)) == minimal_dfa_count(n, k)
    assert set(found) == expected


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
        assert minimal_dfa_count(n, 1) == count


def test_log2_counts_are_exact_where_enumerated_and_estimated_above() -> None:
    for n in range(1, 5):
        value, exact = log2_minimal_dfas(n, 2)
        assert exact
        assert value == math.log2([2, 24, 1028, 56014][n - 1])
    value, exact = log2_minimal_dfas(5, 2)
    assert not exact
    assert value == pytest.approx(5 + math.log2(160675) + math.log2(MINIMAL_FRACTION_K2))
    value, exact = log2_minimal_dfas(4, 3)
    assert not exact
    assert value == pytest.approx(4 + math.log2(2128064))
    # A_2(300) is far beyond float range; log2 takes the big int directly.
    assert accessible_dfas(300, 2) > 2**2000
    value, exact = log2_minimal_dfas(300, 2)
    assert not exact
    assert value == pytest.approx(
        300 + math.log2(accessible_dfas(300, 2)) + math.log2(MINIMAL_FRACTION_K2)
    )
    with pytest.raises(ValueError):
        log2_minimal_dfas(20, 1)


def test_log2_estimate_is_consistent_with_exact_fractions() -> None:
    # Exact minimal fractions grow towards the k = 2 limit (0.5, 0.595, 0.667 at n = 2..4).
    fractions = [(minimal_dfa_count(n, 2) or 0) / (2**n * accessible_dfas(n, 2)) for n in (2, 3, 4)]
    assert fractions == pytest.approx([0.5, 0.595, 0.667], abs=1e-3)
    assert fractions == sorted(fractions) and fractions[-1] < MINIMAL_FRACTION_K2
    values = [log2_minimal_dfas(n, 2)[0] for n in range(1, 30)]
    assert values == sorted(values)


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
