"""The numpy product grid behind the oracle: capped counts and unranking, against the
pure-Python counting on the symmetric-difference DFA (the oracle's former implementation,
kept here as the reference)."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import blackboxes.automata.oracle as oracle_module
from blackboxes.automata._difference import capped_counts, nth_word, product_grid, shortest_counts
from blackboxes.automata.dfa import DFA
from blackboxes.automata.oracle import EXTRA_LENGTHS, PER_LENGTH_CAP, counterexample
from blackboxes.automata.sampling import sample_minimal_dfa
from oracle_bench.rng import rng_for


def random_dfa(rng: random.Random, n: int, alphabet: str = "ab") -> DFA:
    delta = [[rng.randrange(n) for _ in alphabet] for _ in range(n)]
    return DFA.build(alphabet, delta, [rng.random() < 0.5 for _ in range(n)], rng.randrange(n))


def reference_counterexample(target: DFA, hypothesis: DFA, cap: int) -> str | None:
    """The short_random counterexample as the oracle computed it before the grid."""
    shortest = target.distinguishing_word(hypothesis)
    if shortest is None:
        return None
    diff = target.symmetric_difference(hypothesis)
    kmin = len(shortest)
    counts = diff.accepted_counts(kmin + EXTRA_LENGTHS)
    sizes = [
        min(counts[length][diff.start], cap) for length in range(kmin, kmin + EXTRA_LENGTHS + 1)
    ]
    pick = random.Random(oracle_module._pair_seed(target, hypothesis)).randrange(sum(sizes))
    for offset, size in enumerate(sizes):
        if pick < size:
            return diff.nth_accepted_of_length(kmin + offset, pick, counts)
        pick -= size
    raise AssertionError("unreachable")


def test_grid_layout() -> None:
    a = DFA.build("ab", [[1, 0], [1, 1]], [1])
    b = DFA.build("ab", [[0, 2], [1, 1], [2, 0]], [0, 2], start=1)
    grid = product_grid(a, b)
    assert grid.start == 0 * 3 + 1
    for p in range(2):
        for q in range(3):
            i = p * 3 + q
            assert grid.marked[i] == (a.accepting[p] != b.accepting[q])
            for x in range(2):
                assert grid.succ[x][i] == a.delta[p][x] * 3 + b.delta[q][x]


@given(
    st.integers(0, 10**6), st.integers(1, 8), st.integers(1, 8), st.sampled_from(["ab", "abc", "a"])
)
@settings(max_examples=80, deadline=None)
def test_capped_counts_are_the_exact_counts_capped(
    seed: int, n: int, m: int, alphabet: str
) -> None:
    rng = rng_for(seed, "capped")
    a, b = random_dfa(rng, n, alphabet), random_dfa(rng, m, alphabet)
    grid = product_grid(a, b)
    exact = a.symmetric_difference(b)
    for cap in (1, 3, 7, 10**9):
        counts = capped_counts(grid, 40, cap)
        assert len(counts) == 41
        expected = exact.count_by_length(40)
        for length in range(41):
            # Exact below the cap; at or above it, somewhere between the cap and the count.
            stored = int(counts[length][grid.start])
            if expected[length] < cap:
                assert stored == expected[length]
            else:
                assert cap <= stored <= expected[length]


@given(st.integers(0, 10**6), st.integers(1, 6), st.integers(1, 6))
@settings(max_examples=60, deadline=None)
def test_nth_word_is_the_lexicographic_unranking(seed: int, n: int, m: int) -> None:
    rng = rng_for(seed, "unrank")
    a, b = random_dfa(rng, n), random_dfa(rng, m)
    grid = product_grid(a, b)
    diff = a.symmetric_difference(b)
    for cap in (2, 5, 10**9):
        counts = capped_counts(grid, 7, cap)
        for length in range(8):
            words = list(diff.words_of_length(length))
            for index in range(min(cap, len(words))):
                assert nth_word(grid, counts, length, index) == words[index]
            if len(words) < cap:  # beyond the cap, indices are not checked
                with pytest.raises(IndexError):
                    nth_word(grid, counts, length, len(words))


def test_counts_do_not_overflow_on_long_lengths() -> None:
    # 2^300 words of length 300: int32 counts, clipped to the cap before they overflow.
    grid = product_grid(DFA.universal("ab"), DFA.universal("ab", accept=False))
    counts = capped_counts(grid, 300, PER_LENGTH_CAP)
    assert all(c.dtype == np.int32 for c in counts)
    assert [int(c[grid.start]) for c in counts[:15]] == [2**r for r in range(15)]
    assert all(PER_LENGTH_CAP <= c[grid.start] < 2**31 for c in counts[15:])
    assert nth_word(grid, counts, 300, 5) == "a" * 297 + "bab"
    # A cap too large for int32 sums switches to int64.
    big = capped_counts(grid, 80, 2**40)
    assert big[0].dtype == np.int64
    assert [int(c[grid.start]) for c in big[:41]] == [2**r for r in range(41)]


def test_shortest_counts_find_the_shortest_length() -> None:
    for i in range(30):
        rng = rng_for(32, "kmin", i)
        a, b = random_dfa(rng, rng.randint(1, 9)), random_dfa(rng, rng.randint(1, 9))
        shortest = a.distinguishing_word(b)
        if shortest is None:
            continue
        grid = product_grid(a, b)
        kmin, counts = shortest_counts(grid, 5, 3)
        assert kmin == len(shortest) and len(counts) == kmin + 4
        assert nth_word(grid, counts, kmin, 0) == shortest


@given(st.integers(0, 10**6), st.sampled_from([1, 2, 3, 50, PER_LENGTH_CAP]))
@settings(max_examples=120, deadline=None)
def test_counterexample_equals_the_former_implementation(seed: int, cap: int) -> None:
    rng = rng_for(seed, "cex-reference")
    alphabet = rng.choice(["ab", "ab", "abc", "a"])
    if len(alphabet) > 1 and rng.random() < 0.5:
        target = sample_minimal_dfa(rng, rng.randint(1, 12), tuple(alphabet))
    else:
        target = random_dfa(rng, rng.randint(1, 12), alphabet)
    hypothesis = random_dfa(rng, rng.randint(1, 12), alphabet)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(oracle_module, "PER_LENGTH_CAP", cap)
        got = counterexample(target, hypothesis)
    assert got == reference_counterexample(target, hypothesis, cap)


def test_counterexample_equals_the_former_implementation_on_learning_sized_pairs() -> None:
    for i in range(12):
        n = (20, 50, 100)[i % 3]
        target = sample_minimal_dfa(rng_for(31, "t", i), n)
        hypothesis = sample_minimal_dfa(rng_for(31, "h", i), n - i)
        word = counterexample(target, hypothesis)
        assert word == reference_counterexample(target, hypothesis, PER_LENGTH_CAP)
        assert word is not None and target.accepts(word) != hypothesis.accepts(word)
