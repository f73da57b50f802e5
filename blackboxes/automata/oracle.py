"""The minimally adequate teacher: membership and equivalence queries on a target DFA.

Counterexamples (agentic automata learning, Appendix D): for a wrong hypothesis, let
D = L(target) xor L(hypothesis) and kmin the length of its shortest word. The candidates
are, for each length kmin..kmin+3, the first :data:`PER_LENGTH_CAP` words of D of that
length in lexicographic order; one is picked uniformly with a private RNG seeded by a
stable hash of the two canonical minimal DFAs (sorted, so the pick depends only on the
pair of languages). The same oracle serves agents and the L*/TTT budget baselines.
``minimal`` mode returns the shortest, lexicographically first word of D instead.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field
from typing import Literal, Protocol, runtime_checkable

from blackboxes.automata.dfa import DFA

__all__ = [
    "COUNTEREXAMPLE_MODES",
    "PER_LENGTH_CAP",
    "CountedOracle",
    "CounterexampleMode",
    "Oracle",
    "TargetOracle",
    "counterexample",
]

CounterexampleMode = Literal["short_random", "minimal"]
COUNTEREXAMPLE_MODES: tuple[CounterexampleMode, ...] = ("short_random", "minimal")
PER_LENGTH_CAP = 20000
EXTRA_LENGTHS = 3


@runtime_checkable
class Oracle(Protocol):
    """What a learner may ask."""

    @property
    def alphabet(self) -> tuple[str, ...]: ...

    def mq(self, word: str) -> bool:
        """Is ``word`` in the target language?"""
        ...

    def eq(self, hypothesis: DFA) -> str | None:
        """None if ``hypothesis`` accepts the target language, else a counterexample."""
        ...


def _pair_seed(target: DFA, hypothesis: DFA) -> int:
    joined = "||".join(sorted([target.fingerprint, hypothesis.fingerprint]))
    return int.from_bytes(hashlib.sha256(joined.encode()).digest()[:8], "big")


def counterexample(
    target: DFA, hypothesis: DFA, mode: CounterexampleMode = "short_random"
) -> str | None:
    """A word the two DFAs disagree on, chosen as the module docstring says; None if equal."""
    if mode not in COUNTEREXAMPLE_MODES:
        raise ValueError(f"unknown counterexample mode {mode!r}")
    if mode == "minimal":
        return target.distinguishing_word(hypothesis)
    # numpy on use: the oracle module is imported by command lines that must start fast.
    from blackboxes.automata._difference import nth_word, product_grid, shortest_counts

    # Both sides minimised (cached on the DFA): the candidates depend only on the languages.
    t, h = target.minimise(), hypothesis.minimise()
    if t.alphabet != h.alphabet:
        raise ValueError(f"alphabets differ: {''.join(t.alphabet)!r} vs {''.join(h.alphabet)!r}")
    if t == h:  # canonical minimal forms: the same language
        return None
    grid = product_grid(t, h)
    kmin, counts = shortest_counts(grid, PER_LENGTH_CAP, EXTRA_LENGTHS)
    sizes = [
        min(int(counts[length][grid.start]), PER_LENGTH_CAP)
        for length in range(kmin, kmin + EXTRA_LENGTHS + 1)
    ]
    # A private generator seeded by the pair; never the global random.
    pick = random.Random(_pair_seed(target, hypothesis)).randrange(sum(sizes))
    for offset, size in enumerate(sizes):
        if pick < size:
            return nth_word(grid, counts, kmin + offset, pick)
        pick -= size
    raise AssertionError("unreachable: pick < sum(sizes)")  # pragma: no cover


@dataclass
class TargetOracle:
    """An oracle answering from a known target DFA."""

    target: DFA
    mode: CounterexampleMode = "short_random"

    @property
    def alphabet(self) -> tuple[str, ...]:
        return self.target.alphabet

    def mq(self, word: str) -> bool:
        return self.target.accepts(word)

    def eq(self, hypothesis: DFA) -> str | None:
        return counterexample(self.target, hypothesis, self.mode)


@dataclass
class CountedOracle:
    """Wraps an oracle: caches membership answers and counts what reached it.

    ``mq_count`` is the number of distinct words asked (a repeated word is answered from
    the cache, free), ``eq_count`` every equivalence query including the accepted one.
    """

    inner: Oracle
    answers: dict[str, bool] = field(default_factory=dict)
    mq_count: int = 0
    eq_count: int = 0

    @property
    def alphabet(self) -> tuple[str, ...]:
        return self.inner.alphabet

    def mq(self, word: str) -> bool:
        known = self.answers.get(word)
        if known is None:
            known = self.answers[word] = bool(self.inner.mq(word))
            self.mq_count += 1
        return known

    def eq(self, hypothesis: DFA) -> str | None:
        self.eq_count += 1
        witness = self.inner.eq(hypothesis)
        if witness is not None:
            # The witness's label is implied (the target disagrees with the hypothesis),
            # so asking it later is free rather than a counted query.
            self.answers.setdefault(witness, not hypothesis.accepts(witness))
        return witness

    @property
    def total(self) -> int:
        return self.mq_count + self.eq_count
