"""Counterexample selection (both modes) against brute force, and the counting oracle."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest

import blackboxes.automata.oracle as oracle_module
from blackboxes.automata.dfa import DFA
from blackboxes.automata.oracle import (
    COUNTEREXAMPLE_MODES,
    EXTRA_LENGTHS,
    PER_LENGTH_CAP,
    CountedOracle,
    Oracle,
    TargetOracle,
    counterexample,
)
from blackboxes.automata.sampling import sample_minimal_dfa
from oracle_bench.rng import rng_for
from tests.blackboxes.automata.test_dfa_core import (
    accepts,
    disguise,
    first_difference,
    renumber,
    words_of,
)

AB = ("a", "b")


def disagreements(target: DFA, hypothesis: DFA) -> list[list[str]]:
    """By brute force, for each length kmin..kmin+3, every word of that length the two
    disagree on, in lexicographic order."""
    shortest = first_difference(target, hypothesis)
    assert shortest is not None
    return [
        [
            w
            for w in words_of(target.alphabet, length)
            if accepts(target, w) != accepts(hypothesis, w)
        ]
        for length in range(len(shortest), len(shortest) + EXTRA_LENGTHS + 1)
    ]


def candidates(target: DFA, hypothesis: DFA, cap: int = PER_LENGTH_CAP) -> list[str]:
    """The documented candidate list: the first ``cap`` words of each length, concatenated."""
    return [w for found in disagreements(target, hypothesis) for w in found[:cap]]


def random_dfa(rng: random.Random, n: int, alphabet: tuple[str, ...] = AB) -> DFA:
    """Uniform over all labelled complete DFAs (unreachable and redundant states allowed)."""
    delta = [[rng.randrange(n) for _ in alphabet] for _ in range(n)]
    return DFA.build(alphabet, delta, [rng.random() < 0.5 for _ in range(n)], rng.randrange(n))


def pairs(seed: int, count: int) -> Iterator[tuple[DFA, DFA]]:
    """Small (target, hypothesis) pairs: unrelated, near misses and disguised equals."""
    for i in range(count):
        rng = rng_for(seed, "pair", i)
        alphabet = AB if i % 4 else ("a", "b", "c")
        target = sample_minimal_dfa(rng, rng.randint(1, 3 if len(alphabet) == 3 else 4), alphabet)
        kind = i % 3
        if kind == 0:
            hypothesis = random_dfa(rng, rng.randint(1, 3), alphabet)
        elif kind == 1:
            delta = [list(row) for row in target.delta]
            delta[rng.randrange(target.n)][rng.randrange(target.k)] = rng.randrange(target.n)
            hypothesis = DFA.build(alphabet, delta, target.accepting)
        else:
            hypothesis = disguise(target, rng, copies=1, junk=1)
        yield target, hypothesis


# -- both modes ------------------------------------------------------------------------


def test_none_iff_equivalent_and_words_disagree() -> None:
    seen_equal = seen_different = 0
    for target, hypothesis in pairs(1, 240):
        expected = first_difference(target, hypothesis)
        for mode in COUNTEREXAMPLE_MODES:
            word = counterexample(target, hypothesis, mode)
            assert (word is None) == (expected is None), mode
            if word is not None:
                assert accepts(target, word) != accepts(hypothesis, word)
        seen_equal += expected is None
        seen_different += expected is not None
    assert seen_equal >= 40 and seen_different >= 100


def test_minimal_mode_is_the_shortlex_first_difference() -> None:
    for target, hypothesis in pairs(2, 150):
        assert counterexample(target, hypothesis, "minimal") == first_difference(target, hypothesis)


def test_target_oracle_answers_from_the_target() -> None:
    rng = rng_for(3, "target-oracle")
    target = sample_minimal_dfa(rng, 6)
    wrong = sample_minimal_dfa(rng, 5)
    for mode in COUNTEREXAMPLE_MODES:
        teacher = TargetOracle(target, mode)
        assert isinstance(teacher, Oracle)
        assert teacher.alphabet == AB
        assert all(teacher.mq(w) == accepts(target, w) for w in target.words_up_to(6))
        assert teacher.eq(disguise(target, rng)) is None
        assert teacher.eq(wrong) == counterexample(target, wrong, mode)
    assert TargetOracle(target).mode == "short_random"


def test_bad_mode_and_alphabet_are_refused() -> None:
    one = DFA.universal(AB)
    with pytest.raises(ValueError, match="unknown counterexample mode"):
        counterexample(one, one.complement(), "longest")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="alphabets differ"):
        counterexample(one, DFA.universal("abc"))


# -- short_random ----------------------------------------------------------------------


def test_short_random_picks_a_documented_candidate() -> None:
    for target, hypothesis in pairs(4, 240):
        word = counterexample(target, hypothesis)
        if word is None:
            continue
        kmin = len(first_difference(target, hypothesis) or "")
        assert kmin <= len(word) <= kmin + EXTRA_LENGTHS
        options = candidates(target, hypothesis)
        assert word in options
        # Exactly the documented rule: a uniform index into the list, from the pair seed.
        seed = oracle_module._pair_seed(target, hypothesis)
        assert word == options[random.Random(seed).randrange(len(options))]


def test_short_random_depends_only_on_the_two_languages() -> None:
    checked = 0
    for i, (target, hypothesis) in enumerate(pairs(5, 120)):
        word = counterexample(target, hypothesis)
        if word is None:
            continue
        rng = rng_for(5, "variants", i)
        perm = list(range(hypothesis.n))
        rng.shuffle(perm)
        variants = [
            (hypothesis, target),  # swapped roles
            (target, renumber(hypothesis, perm)),
            (target, disguise(hypothesis, rng, copies=2, junk=2)),
            (disguise(target, rng), disguise(hypothesis, rng)),
            # Fresh objects: nothing rides on a cached fingerprint.
            (DFA.from_table(target.to_table()), DFA.from_table(hypothesis.to_table())),
        ]
        for one, two in variants:
            assert counterexample(one, two) == word
        checked += 1
    assert checked >= 40  # most of the 120 random pairs differ


def test_short_random_is_uniform_over_the_candidates() -> None:
    # One pick per distinct pair of languages: bin its index i among the N candidates
    # by 10 i // N; the expected count of each bin is exact per pair.
    bins = 10
    observed = [0] * bins
    expected = [0.0] * bins
    seen: set[frozenset[str]] = set()
    for target, hypothesis in pairs(6, 900):
        key = frozenset((target.fingerprint, hypothesis.fingerprint))
        word = counterexample(target, hypothesis)
        if word is None or key in seen:
            continue
        seen.add(key)
        options = candidates(target, hypothesis)
        size = len(options)
        observed[bins * options.index(word) // size] += 1
        for b in range(bins):
            expected[b] += sum(1 for i in range(size) if bins * i // size == b) / size
    assert len(seen) >= 300
    stat = sum((o - e) ** 2 / e for o, e in zip(observed, expected, strict=True))
    # chi-square(9) 0.999 quantile is 27.88; per-pair expectations only make it smaller.
    assert stat < 27.88, (observed, expected)


def at_least(m: int, alphabet: tuple[str, ...] = AB) -> DFA:
    """The words of length >= m."""
    delta = [[min(q + 1, m)] * len(alphabet) for q in range(m + 1)]
    return DFA.build(alphabet, delta, [m])


def test_longer_lengths_dominate_the_picks() -> None:
    # Words of length >= m against the empty language: kmin = m and every word of
    # lengths m..m+3 is a candidate (2^m, ..., 8 * 2^m of them), so the longest length
    # should win 8/15 of the time. 56 alphabets x 6 values of m: 336 distinct pairs.
    lengths = []
    for first in "abcdefgh":
        for second in "abcdefgh".replace(first, ""):
            alphabet = (first, second)
            for m in range(6):
                word = counterexample(at_least(m, alphabet), DFA.universal(alphabet, False))
                assert word is not None
                lengths.append(len(word) - m)
    assert set(lengths) == {0, 1, 2, 3}
    assert 0.43 < lengths.count(3) / len(lengths) < 0.64
    assert lengths.count(0) < lengths.count(1) < lengths.count(2) < lengths.count(3)


def test_per_length_cap_keeps_the_first_words_in_lexicographic_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    cap = 3
    monkeypatch.setattr(oracle_module, "PER_LENGTH_CAP", cap)
    universal, empty = DFA.universal(AB), DFA.universal(AB, accept=False)
    assert candidates(universal, empty, cap) == [
        "",
        "a",
        "b",
        "aa",
        "ab",
        "ba",
        "aaa",
        "aab",
        "aba",
    ]
    binding = 0
    for target, hypothesis in pairs(8, 300):
        word = counterexample(target, hypothesis)
        if word is None:
            continue
        by_length = disagreements(target, hypothesis)
        capped = candidates(target, hypothesis, cap)
        assert word in capped
        seed = oracle_module._pair_seed(target, hypothesis)
        assert word == capped[random.Random(seed).randrange(len(capped))]
        # The pick's length had more disagreements than the cap lets through.
        binding += len(by_length[len(word) - len(by_length[0][0])]) > cap
    assert binding >= 30


def test_the_real_cap_on_a_length_with_more_than_20000_words() -> None:
    # Target: every word of length >= 12; hypothesis: every word of length >= 16 + j.
    # They disagree on all words of lengths 12..15 (4096, 8192, 16384, 32768 of them),
    # so the candidates are lengths 12-14 in full and the first 20000 of length 15.
    assert PER_LENGTH_CAP == 20000

    def nth(length: int, index: int, alphabet: tuple[str, ...]) -> str:
        # The index-th word of the length in lexicographic order: index in base 2.
        return "".join(alphabet[int(bit)] for bit in format(index, f"0{length}b"))

    sizes = [4096, 8192, 16384, 20000]
    longest = 0
    for alphabet in (AB, ("b", "a")):
        for j in range(4):
            target, hypothesis = at_least(12, alphabet), at_least(16 + j, alphabet)
            word = counterexample(target, hypothesis)
            assert word is not None and 12 <= len(word) <= 15
            pick = random.Random(oracle_module._pair_seed(target, hypothesis)).randrange(sum(sizes))
            for length, size in zip(range(12, 16), sizes, strict=True):
                if pick < size:
                    assert word == nth(length, pick, alphabet)
                    break
                pick -= size
            longest += len(word) == 15
    assert longest >= 1  # the capped length was actually exercised


# -- CountedOracle ---------------------------------------------------------------------


@dataclass
class SpyOracle:
    """Counts what reaches the wrapped oracle."""

    inner: TargetOracle
    mq_calls: list[str] = field(default_factory=list)
    eq_calls: int = 0

    @property
    def alphabet(self) -> tuple[str, ...]:
        return self.inner.alphabet

    def mq(self, word: str) -> bool:
        self.mq_calls.append(word)
        return self.inner.mq(word)

    def eq(self, hypothesis: DFA) -> str | None:
        self.eq_calls += 1
        return self.inner.eq(hypothesis)


def test_counted_oracle_charges_each_distinct_word_once() -> None:
    target = sample_minimal_dfa(rng_for(9, "counted"), 6)
    spy = SpyOracle(TargetOracle(target))
    counted = CountedOracle(spy)
    assert isinstance(counted, Oracle) and counted.alphabet == AB
    words = ["", "a", "ab", "a", "", "ba", "ab", "bbb"]
    assert [counted.mq(w) for w in words] == [accepts(target, w) for w in words]
    assert counted.mq_count == 5 == len(spy.mq_calls)
    assert spy.mq_calls == ["", "a", "ab", "ba", "bbb"]
    assert counted.eq_count == 0 and counted.total == 5


def test_counted_oracle_caches_witness_labels_for_free() -> None:
    rng = rng_for(9, "witness")
    target = sample_minimal_dfa(rng, 8)
    spy = SpyOracle(TargetOracle(target))
    counted = CountedOracle(spy)
    wrong = [sample_minimal_dfa(rng, 4), DFA.universal(AB), DFA.universal(AB, False)]
    witnesses = []
    for hypothesis in wrong:
        witness = counted.eq(hypothesis)
        assert witness is not None
        assert counted.answers[witness] == accepts(target, witness) != accepts(hypothesis, witness)
        witnesses.append(witness)
    assert counted.eq_count == spy.eq_calls == 3 and counted.mq_count == 0
    # Asking a witness costs nothing and never reaches the inner oracle.
    assert [counted.mq(w) for w in witnesses] == [accepts(target, w) for w in witnesses]
    assert counted.mq_count == 0 and spy.mq_calls == []
    # An accepted hypothesis and a repeated one each count as an EQ.
    assert counted.eq(disguise(target, rng)) is None
    assert counted.eq(wrong[0]) == witnesses[0]
    assert counted.eq_count == 5 and counted.total == 5
    counted.mq("a" * 20)
    assert counted.total == 6 and counted.mq_count == 1


def test_counted_oracle_keeps_labels_already_asked() -> None:
    target = DFA.build(AB, [[1, 0], [1, 1]], [1])  # contains an a
    counted = CountedOracle(TargetOracle(target, "minimal"))
    assert counted.mq("a") is True
    assert counted.eq(DFA.universal(AB, False)) == "a"
    assert counted.answers == {"a": True} and counted.mq_count == 1 and counted.eq_count == 1
