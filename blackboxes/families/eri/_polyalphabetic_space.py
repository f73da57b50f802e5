"""Exact version space of periodic polyalphabetic substitutions: a product of substitution spaces.

Letter i of a plaintext (spaces not counted) is enciphered by alphabet i mod P, so the
letters of class j (positions i = j mod P) see only alphabet j. An observation splits
into P independent sub-observations, one per class, each read by a ``SubstitutionSpace``
(its plaintext and ciphertext are the class's letters, spaces dropped). The consistent
keys are the product of the classes' consistent alphabets, so counts and entropies add
and probabilities multiply.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import islice, product

from blackboxes.families.eri._alphabet import ALPHABET, letters_of
from blackboxes.families.eri._spaces import EMPTY, same_shape
from blackboxes.families.eri._substitution_space import SubstitutionSpace
from blackboxes.information import ENUMERATION_LIMIT, Predictive, TablePredictive, VersionSpace

__all__ = ["PolyalphabeticSpace", "split_classes"]

_VALID = frozenset(ALPHABET + " ")
_EXACT_COUNT_BITS = 40.0
"""Below this entropy 2 ** entropy rounds to the exact outcome count of a class."""


def split_classes(text: str, period: int) -> list[str]:
    """The letters of ``text`` (spaces dropped) at positions j, j + period, ... for each j."""
    letters = letters_of(text)
    return [letters[j::period] for j in range(period)]


def _layout(template: str, period: int) -> str:
    """A format string putting class outputs back into ``template``'s layout (the
    inverse of ``split_classes``): letter i is ``{j[i // period]}`` with j = i mod period.
    Formatting runs in C, which matters when a support lists thousands of outputs."""
    pieces: list[str] = []
    i = 0
    for ch in template:
        if ch == " ":
            pieces.append(" ")
        else:
            pieces.append(f"{{{i % period}[{i // period}]}}")
            i += 1
    return "".join(pieces)


def _outcome_count(pred: Predictive) -> int | None:
    """A class's number of outputs (None when astronomically many). Its outputs are
    equally likely (``SubstitutionSpace``), and a consistent space has at least one, so
    the count is 2 ** entropy."""
    if pred.entropy > _EXACT_COUNT_BITS:
        return None
    return round(2.0**pred.entropy)


class _ProductPredictive(Predictive):
    """Independent classes: entropy adds, probabilities multiply, outputs are uniform."""

    def __init__(self, x: str, parts: Sequence[Predictive]) -> None:
        self._x = x
        self._parts = tuple(parts)
        self._entropy = sum(p.entropy for p in self._parts)
        self._layout = _layout(x, len(self._parts))
        self._support: dict[str, tuple[object, float]] | None = None

    @property
    def entropy(self) -> float:
        return self._entropy

    def prob(self, y: object) -> float:
        if not isinstance(y, str) or not same_shape(self._x, y):
            return 0.0
        result = 1.0
        for pred, sub in zip(self._parts, split_classes(y, len(self._parts)), strict=True):
            result *= pred.prob(sub)
            if result == 0.0:
                return 0.0
        return result

    def top(self, k: int) -> list[object]:
        # Every output is equally likely (each class is uniform), so any k are the most
        # probable; take the product of the classes' tops in order, class 0 slowest.
        if k <= 0:
            return []
        tops = [pred.top(k) for pred in self._parts]
        combos = islice(product(*tops), k)
        return [self._layout.format(*combo) for combo in combos]

    def support(self, limit: int = ENUMERATION_LIMIT) -> dict[str, tuple[object, float]] | None:
        total = 1
        for pred in self._parts:
            count = _outcome_count(pred)
            if count is None:
                return None
            total *= count
            if total > limit:
                return None
        if self._support is None:
            outputs: list[list[object]] = []
            for pred in self._parts:
                listed = pred.support(total)
                if listed is None:  # not expected: the count said it fits
                    return None
                outputs.append([v for v, _ in listed.values()])
            p = 1.0 / total
            fmt = self._layout.format
            self._support = {y: (y, p) for y in (fmt(*combo) for combo in product(*outputs))}
        # A copy: the memoised predictive is shared and callers may edit what they get.
        return dict(self._support)


class PolyalphabeticSpace(VersionSpace):
    """Keys consistent with the history: one substitution space per position class."""

    def __init__(self, parts: Sequence[SubstitutionSpace]) -> None:
        self._parts = tuple(parts)
        # Memo per query: the space is immutable and the adaptive agent asks repeatedly.
        self._memo: dict[str, _ProductPredictive] = {}

    @classmethod
    def prior(cls, period: int) -> PolyalphabeticSpace:
        """All keys: ``period`` independent alphabets (one immutable prior shared)."""
        return cls((SubstitutionSpace(),) * period)

    @property
    def parts(self) -> tuple[SubstitutionSpace, ...]:
        """The class spaces, class j first at index j."""
        return self._parts

    def log2_count(self) -> float:
        return sum(part.log2_count() for part in self._parts)

    def observe(self, x: object, y: object) -> VersionSpace:
        if not isinstance(x, str) or not isinstance(y, str) or not same_shape(x, y):
            return EMPTY
        period = len(self._parts)
        parts: list[SubstitutionSpace] = []
        for part, sx, sy in zip(
            self._parts, split_classes(x, period), split_classes(y, period), strict=True
        ):
            observed = part.observe(sx, sy)
            if not isinstance(observed, SubstitutionSpace):
                return EMPTY
            parts.append(observed)
        return PolyalphabeticSpace(parts)

    def predictive(self, x: object) -> Predictive:
        # The class spaces index letters directly: anything else cannot be enciphered.
        if not isinstance(x, str) or not _VALID.issuperset(x):
            return TablePredictive({})
        cached = self._memo.get(x)
        if cached is None:
            subs = split_classes(x, len(self._parts))
            cached = _ProductPredictive(
                x, [part.predictive(sx) for part, sx in zip(self._parts, subs, strict=True)]
            )
            self._memo[x] = cached
        return cached
