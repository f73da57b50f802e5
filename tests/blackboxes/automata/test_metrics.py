"""Similarity and Myhill-Nerode scores against brute-force enumeration of words."""

from __future__ import annotations

import random
from fractions import Fraction
from itertools import product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blackboxes.automata._metrics_mn import exact_scores
from blackboxes.automata.dfa import DFA
from blackboxes.automata.metrics import (
    MIN_HORIZON,
    MyhillNerodeScores,
    disagreement_counts,
    myhill_nerode_scores,
    similarity,
    words_up_to_count,
)
from blackboxes.automata.sampling import sample_minimal_dfa
from oracle_bench.rng import rng_for


def random_dfa(rng: random.Random, n: int, alphabet: str = "ab") -> DFA:
    """Any complete DFA: possibly non-minimal, possibly with unreachable states."""
    delta = [[rng.randrange(n) for _ in alphabet] for _ in range(n)]
    return DFA.build(alphabet, delta, [rng.random() < 0.5 for _ in range(n)], rng.randrange(n))


def words(alphabet: str, max_len: int) -> list[str]:
    return ["".join(w) for n in range(max_len + 1) for w in product(alphabet, repeat=n)]


def parity_split(target: DFA, flip: int | None) -> DFA:
    """target x (length mod 2); accepting as the target, except at (flip, odd)."""
    n, k = target.n, target.k
    delta = [[2 * target.delta[q][a] + (1 - p) for a in range(k)] for q in range(n) for p in (0, 1)]
    accepting = [target.accepting[q] != (q == flip and p == 1) for q in range(n) for p in (0, 1)]
    return DFA.build(target.alphabet, delta, accepting, 2 * target.start)


# -- similarity --------------------------------------------------------------------------


def test_disagreement_counts_match_enumeration() -> None:
    for i in range(40):
        rng = rng_for(10, "enum", i)
        alphabet = "ab" if i % 4 else "abc"
        t, h = (
            random_dfa(rng, rng.randint(1, 5), alphabet),
            random_dfa(rng, rng.randint(1, 5), alphabet),
        )
        max_len = 7 if alphabet == "ab" else 5
        expected = [0] * (max_len + 1)
        for w in words(alphabet, max_len):
            expected[len(w)] += t.accepts(w) != h.accepts(w)
        assert disagreement_counts(h, t, max_len) == expected


def test_similarity_matches_the_dfa_counting_of_the_symmetric_difference() -> None:
    for i in range(6):
        t = sample_minimal_dfa(rng_for(11, "t", i), 20)
        h = sample_minimal_dfa(rng_for(11, "h", i), 15)
        per_length = t.symmetric_difference(h).count_by_length(200)
        assert disagreement_counts(h, t) == per_length
        assert similarity(h, t) == 1 - Fraction(sum(per_length), 2**201 - 1)


def test_similarity_exact_value() -> None:
    ends_in_a = DFA(("a", "b"), ((1, 0), (1, 0)), (False, True))
    # Sigma* disagrees on eps and the 2^(L-1) words of length L >= 1 ending in b: 2^K.
    for max_len in (0, 1, 5, 200):
        total = 2 ** (max_len + 1) - 1
        expected = Fraction(total - 2**max_len, total)
        assert similarity(DFA.universal("ab"), ends_in_a, max_len) == expected
    assert words_up_to_count(1, 10) == 11
    assert words_up_to_count(3, 2) == 13


def test_similarity_identities() -> None:
    for i in range(10):
        t = sample_minimal_dfa(rng_for(12, "t", i), 2 + i)
        h = random_dfa(rng_for(12, "h", i), 1 + i)
        s = similarity(h, t)
        assert 0 <= s <= 1
        assert similarity(t, t) == 1
        assert similarity(parity_split(t, None), t) == 1  # equivalent, twice the states
        assert similarity(t, h) == s
        assert similarity(h.complement(), t) == 1 - s
        everything, nothing = DFA.universal("ab"), DFA.universal("ab", accept=False)
        assert similarity(everything, t) + similarity(nothing, t) == 1


def test_trivial_hypotheses_score_about_one_half() -> None:
    # The score is the disagreement density near length K, so Sigma* scores the share
    # of long words a random target accepts: about 1/2 on average over targets.
    scores = [
        float(similarity(DFA.universal("ab"), sample_minimal_dfa(rng_for(13, i), 10)))
        for i in range(30)
    ]
    assert abs(sum(scores) / len(scores) - 0.5) < 0.08


def test_similarity_errors() -> None:
    t = DFA.universal("ab")
    with pytest.raises(ValueError, match="alphabets differ"):
        similarity(DFA.universal("abc"), t)
    with pytest.raises(ValueError, match="max_len"):
        disagreement_counts(t, t, -1)


# -- Myhill-Nerode scores -----------------------------------------------------------------


def brute_scores(hyp: DFA, target: DFA, prefix_len: int, suffix_len: int) -> list[Fraction]:
    """The four scores by enumerating prefixes and suffixes; Nerode classes by checking
    every suffix up to the DFA's state count (enough for any n-state DFA)."""
    alphabet, k = "".join(target.alphabet), target.k
    prefixes = words(alphabet, prefix_len)
    weight = {u: Fraction(1, (prefix_len + 1) * k ** len(u)) for u in prefixes}
    assert sum(weight.values()) == 1

    def nerode(x: DFA, u: str) -> tuple[bool, ...]:
        return tuple(x.accepts(u + s) for s in words(alphabet, x.n))

    cls_t = {u: nerode(target, u) for u in prefixes}
    cls_h = {u: nerode(hyp, u) for u in prefixes}
    suffixes = words(alphabet, suffix_len)
    proper = [[suffixes.index(s[:i]) for i in range(len(s))] for s in suffixes]
    acc_t = {u: [target.accepts(u + s) for s in suffixes] for u in prefixes}
    acc_h = {u: [hyp.accepts(u + s) for s in suffixes] for u in prefixes}

    def boundary(d: list[bool]) -> list[bool]:
        return [d[i] and not any(d[j] for j in proper[i]) for i in range(len(d))]

    def ratio(b: list[bool], d: list[bool]) -> Fraction:
        size = sum(b)
        return (
            Fraction(sum(x and y for x, y in zip(b, d, strict=True)), size) if size else Fraction(1)
        )

    same_t = same_both = diff_t = diff_both = Fraction(0)
    prec = rec = Fraction(0)
    for u in prefixes:
        for v in prefixes:
            w = weight[u] * weight[v]
            h_same = cls_h[u] == cls_h[v]
            if cls_t[u] == cls_t[v]:
                same_t += w
                same_both += w * h_same
                continue
            diff_t += w
            diff_both += w * (not h_same)
            d_t = [x != y for x, y in zip(acc_t[u], acc_t[v], strict=True)]
            d_h = [x != y for x, y in zip(acc_h[u], acc_h[v], strict=True)]
            prec += w * ratio(boundary(d_h), d_t)
            rec += w * ratio(boundary(d_t), d_h)
    if not diff_t:
        return [same_both / same_t, Fraction(1), Fraction(1), Fraction(1)]
    return [same_both / same_t, diff_both / diff_t, prec / diff_t, rec / diff_t]


@pytest.mark.parametrize("case", range(16))
def test_scores_match_brute_force(case: int) -> None:
    rng = rng_for(20, "mn", case)
    alphabet = "abc" if case % 5 == 4 else "ab"
    horizon = 3 if alphabet == "abc" else 4
    # Minimal targets of 2..4 states (case 0: one state); hypotheses arbitrary, but not
    # trivial after minimisation.
    target = sample_minimal_dfa(rng, 1 if case == 0 else rng.randint(2, 4), alphabet)
    hyp = random_dfa(rng, rng.randint(2, 5), alphabet)
    while hyp.minimise().n < 2:
        hyp = random_dfa(rng, rng.randint(2, 5), alphabet)
    plen, slen = horizon - case % 2, horizon - (case // 2) % 2
    expected = brute_scores(hyp, target, plen, slen)
    assert list(exact_scores(target.minimise(), hyp.minimise(), plen, slen)) == expected
    got = myhill_nerode_scores(hyp, target, plen, slen)
    floats = [
        got.compression_precision,
        got.state_distinction,
        got.boundary_precision,
        got.boundary_recall,
    ]
    assert floats == pytest.approx([float(x) for x in expected], abs=1e-12)


def test_equivalent_hypotheses_score_one() -> None:
    for i in range(8):
        target = sample_minimal_dfa(rng_for(21, i), 2 + i)
        for hyp in (target, parity_split(target, None)):
            scores = myhill_nerode_scores(hyp, target)
            assert scores == MyhillNerodeScores(1.0, 1.0, 1.0, 1.0, MIN_HORIZON, MIN_HORIZON)


def test_one_state_hypothesis() -> None:
    for i in range(5):
        target = sample_minimal_dfa(rng_for(22, i), 3 + i)
        scores = myhill_nerode_scores(DFA.universal("ab"), target)
        # Sigma* never splits (compression 1) and never distinguishes: no boundary words
        # of its own (precision 1, vacuously) and none of the true ones (recall 0).
        assert scores.as_dict() == {
            "compression_precision": 1.0,
            "state_distinction": 0.0,
            "boundary_precision": 1.0,
            "boundary_recall": 0.0,
            "prefix_len": MIN_HORIZON,
            "suffix_len": MIN_HORIZON,
        }


def test_splitting_lowers_compression_and_merging_lowers_distinction() -> None:
    tested_splits = 0
    for i in range(8):
        n = 3 + i % 4
        target = sample_minimal_dfa(rng_for(23, i), n)
        # Flipping one (state, odd) pair usually doubles the states, but it can also
        # collapse the language or, when a state is only reached at odd lengths, just
        # change its label; only a real split counts.
        splits = [s for f in range(n) if (s := parity_split(target, f)).minimise().n > n]
        for split in splits[:2]:
            assert myhill_nerode_scores(split, target).compression_precision < 1.0
        tested_splits += bool(splits)
        # Merge the last state into another one: redirect every edge into it.
        gone, into = n - 1, i % (n - 1)
        merged_delta = [[into if q == gone else q for q in row] for row in target.delta]
        merged = DFA.build(target.alphabet, merged_delta, target.accepting, target.start)
        assert merged.minimise().n < n
        scores = myhill_nerode_scores(merged, target)
        assert scores.state_distinction < 1.0
        assert scores.boundary_recall < 1.0
    assert tested_splits >= 6


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**9), st.integers(1, 6), st.integers(1, 8), st.integers(0, 6))
def test_scores_are_probabilities(seed: int, nt: int, nh: int, horizon: int) -> None:
    rng = random.Random(seed)
    target, hyp = random_dfa(rng, nt), random_dfa(rng, nh)
    scores = myhill_nerode_scores(hyp, target, horizon, horizon)
    for value in (
        scores.compression_precision,
        scores.state_distinction,
        scores.boundary_precision,
        scores.boundary_recall,
    ):
        assert 0.0 <= value <= 1.0


def test_default_horizons_grow_with_the_target() -> None:
    small = sample_minimal_dfa(rng_for(24, "small"), 5)
    large = sample_minimal_dfa(rng_for(24, "large"), 16)
    assert myhill_nerode_scores(small, small).prefix_len == MIN_HORIZON
    scores = myhill_nerode_scores(DFA.universal("ab"), large)
    assert (scores.prefix_len, scores.suffix_len) == (15, 14)
    # The empty prefix alone: one class, nothing to distinguish.
    assert myhill_nerode_scores(DFA.universal("ab"), large, 0, 3) == MyhillNerodeScores(
        1.0, 1.0, 1.0, 1.0, 0, 3
    )
    with pytest.raises(ValueError, match="alphabets differ"):
        myhill_nerode_scores(DFA.universal("abc"), large)
