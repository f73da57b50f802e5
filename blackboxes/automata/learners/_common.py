"""Pieces the active learners share: a memoising teacher and the Rivest-Schapire search."""

from __future__ import annotations

from collections.abc import Callable

from blackboxes.automata.dfa import DFA
from blackboxes.automata.oracle import Oracle


class Teacher:
    """An oracle seen through a word cache: each distinct word reaches the oracle once.

    An EQ witness's label is implied (the target disagrees with the hypothesis there), so it
    is cached without asking. The learners trust witnesses to be real counterexamples.
    """

    __slots__ = ("alphabet", "answers", "oracle")

    def __init__(self, oracle: Oracle) -> None:
        self.oracle = oracle
        self.alphabet: tuple[str, ...] = tuple(oracle.alphabet)
        self.answers: dict[str, bool] = {}

    def mq(self, word: str) -> bool:
        known = self.answers.get(word)
        if known is None:
            known = self.answers[word] = bool(self.oracle.mq(word))
        return known

    def eq(self, hypothesis: DFA) -> tuple[str, bool] | None:
        """None if accepted, else ``(witness, its label in the target)``."""
        witness = self.oracle.eq(hypothesis)
        if witness is None:
            return None
        label = not hypothesis.accepts(witness)
        self.answers.setdefault(witness, label)
        return witness, label


def rs_breakpoint(alpha: Callable[[int], bool], length: int, first: bool) -> int:
    """Rivest-Schapire binary search: an ``i`` in ``[0, length)`` with
    ``alpha(i) == first != alpha(i + 1)``.

    ``alpha(0) == first`` and ``alpha(length) != first`` are given, so neither end is asked;
    the search asks ``alpha`` about ``ceil(log2(length))`` times at most.
    """
    lo, hi = 0, length
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if alpha(mid) == first:
            lo = mid
        else:
            hi = mid
    return lo
