"""Exact counts on numpy limbs, and the accessible part of a product grid, against the
Python-int dynamic programme that computed the similarity before (kept as the reference)."""

from __future__ import annotations

import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from blackboxes.automata._difference import accessible_part, product_grid
from blackboxes.automata._limbs import _payload_bits, counts_at
from blackboxes.automata._metrics_count import backward_counts, pair_product, restrict_alive
from blackboxes.automata.dfa import DFA
from blackboxes.automata.metrics import disagreement_counts
from blackboxes.automata.sampling import sample_minimal_dfa
from oracle_bench.rng import rng_for


def random_dfa(rng: random.Random, n: int, alphabet: str = "ab") -> DFA:
    delta = [[rng.randrange(n) for _ in alphabet] for _ in range(n)]
    return DFA.build(alphabet, delta, [rng.random() < 0.5 for _ in range(n)], rng.randrange(n))


def reference_counts(hyp: DFA, target: DFA, max_len: int) -> list[int]:
    """disagreement_counts as it was computed before the limbs: Python ints over the
    accessible pairs that can reach a disagreement."""
    t, h = target.minimise(), hyp.minimise()
    pairs, succ = pair_product(t, h)
    differ = [t.accepting[p] != h.accepting[q] for p, q in pairs]
    if not any(differ):
        return [0] * (max_len + 1)
    kept, index = restrict_alive(succ, differ)
    init = [0] * len(kept[0])
    for q, d in enumerate(differ):
        if d:
            init[index[q]] = 1
    return [v[index[0]] for v in backward_counts(kept, init, max_len)]


@given(st.integers(0, 10**6), st.integers(1, 40), st.integers(2, 6), st.integers(0, 300))
@settings(max_examples=60, deadline=None)
def test_counts_at_equals_python_ints(seed: int, n: int, k: int, steps: int) -> None:
    # Any successor table (not only products), any alphabet size: normalising and adding
    # limbs must be invisible in the result.
    rng = rng_for(seed, "limbs")
    succ = [[rng.randrange(n) for _ in range(n)] for _ in range(k)]
    init = [rng.random() < 0.3 for _ in range(n)]
    start = rng.randrange(n)
    expected = [v[start] for v in backward_counts(succ, [int(x) for x in init], steps)]
    got = counts_at(np.array(succ, dtype=np.intp), np.array(init), steps, start)
    assert got == expected


def test_counts_at_on_the_largest_counts() -> None:
    # Every word counts: k^m exactly, through many normalisations and a growing top limb.
    for k in (2, 3, 7, 40):
        succ = np.zeros((k, 1), dtype=np.intp)
        got = counts_at(succ, np.array([True]), 400, 0)
        assert got == [k**m for m in range(401)]
        assert _payload_bits(k) + k.bit_length() <= 62


@given(st.integers(0, 10**6), st.integers(1, 15), st.integers(1, 15))
@settings(max_examples=60, deadline=None)
def test_accessible_part_keeps_exactly_the_reachable_pairs(seed: int, n: int, m: int) -> None:
    rng = rng_for(seed, "accessible")
    a, b = random_dfa(rng, n), random_dfa(rng, m)
    grid = product_grid(a, b)
    part = accessible_part(grid)
    pairs, _ = pair_product(a, b)
    assert part.start == 0 and part.succ.shape == (2, len(pairs))
    kept = [p * b.n + q for p, q in pairs]
    assert sorted(part.marked.tolist()) == sorted(bool(grid.marked[i]) for i in kept)
    for length in range(6):
        expected = a.symmetric_difference(b).count_by_length(length)[length]
        assert counts_at(part.succ, part.marked, length, 0)[length] == expected


@given(st.integers(0, 10**6), st.sampled_from(["ab", "abc", "a"]), st.integers(0, 220))
@settings(max_examples=60, deadline=None)
def test_disagreement_counts_equal_the_former_implementation(
    seed: int, alphabet: str, max_len: int
) -> None:
    rng = rng_for(seed, "disagree")
    t = random_dfa(rng, rng.randint(1, 20), alphabet)
    h = random_dfa(rng, rng.randint(1, 20), alphabet)
    assert disagreement_counts(h, t, max_len) == reference_counts(h, t, max_len)


def test_disagreement_counts_on_benchmark_sized_pairs() -> None:
    for i in range(4):
        t = sample_minimal_dfa(rng_for(41, "t", i), 60)
        h = sample_minimal_dfa(rng_for(41, "h", i), 45 + i)
        assert disagreement_counts(h, t) == reference_counts(h, t, 200)
