"""Generic version spaces: exact sets, unions of sub-spaces, spaces seen through a transposition."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from blackboxes.families.eri._alphabet import letters_of, respace
from blackboxes.information import (
    ENUMERATION_LIMIT,
    MixtureVersionSpace,
    Predictive,
    TablePredictive,
    VersionSpace,
)

__all__ = [
    "EMPTY",
    "EmptySpace",
    "ExactSetSpace",
    "MappedSpace",
    "UnionSpace",
    "same_shape",
]

Encrypt = Callable[[str], str]


def same_shape(x: str, y: object) -> bool:
    """True when ``y`` is a string with the letter/space layout of ``x`` (spaces kept)."""
    if not isinstance(y, str) or len(y) != len(x):
        return False
    return all((a == " ") == (b == " ") for a, b in zip(x, y, strict=True))


class EmptySpace(VersionSpace):
    """No rule is consistent any more."""

    def log2_count(self) -> float:
        return -math.inf

    def observe(self, x: object, y: object) -> VersionSpace:
        return self

    def predictive(self, x: object) -> Predictive:
        return TablePredictive({})


EMPTY = EmptySpace()


class ExactSetSpace(VersionSpace):
    """An explicit list of distinct functions (the kind's rules), filtered by observations."""

    def __init__(self, fns: Sequence[Encrypt]) -> None:
        self._fns = tuple(fns)
        # Memo per query: the space is immutable, and the adaptive agent asks repeatedly.
        self._memo: dict[str, TablePredictive] = {}

    def __len__(self) -> int:
        return len(self._fns)

    def fingerprint(self) -> tuple[int, ...]:
        """Equal for spaces holding the same functions (used to merge identical parts)."""
        return tuple(id(f) for f in self._fns)

    def log2_count(self) -> float:
        return math.log2(len(self._fns)) if self._fns else -math.inf

    def observe(self, x: object, y: object) -> VersionSpace:
        if not isinstance(x, str) or not isinstance(y, str):
            return EMPTY
        kept = tuple(f for f in self._fns if f(x) == y)
        return ExactSetSpace(kept) if kept else EMPTY

    def predictive(self, x: object) -> Predictive:
        if not isinstance(x, str):
            return TablePredictive({})
        cached = self._memo.get(x)
        if cached is None:
            counts: dict[str, int] = {}
            for f in self._fns:
                y = f(x)
                counts[y] = counts.get(y, 0) + 1
            cached = TablePredictive({y: (y, float(c)) for y, c in counts.items()})
            self._memo[x] = cached
        return cached


class UnionSpace(VersionSpace):
    """A disjoint union of sub-spaces (as functions), e.g. Vigenere key lengths or the
    transpositions of a composition.

    Counts are exact: the parts hold pairwise distinct functions and the prior of part i
    is |H_i| / |H|, so the union is uniform over all its rules. The predictive merges
    outputs exactly when every part can list its support; otherwise parts that cannot
    are treated as disjoint (see ``MixtureVersionSpace``): the entropy is then an upper
    bound, which is why ``exact`` may be False.
    """

    def __init__(self, mixture: MixtureVersionSpace, exact: bool) -> None:
        self._mixture = mixture
        self.exact = exact

    @classmethod
    def build(cls, parts: Sequence[tuple[str, float, VersionSpace]], exact: bool) -> UnionSpace:
        """``parts``: (name, log2|H_i|, prior space of part i)."""
        sizes = [2.0**lh for _, lh, _ in parts]
        total = sum(sizes)
        return cls(
            MixtureVersionSpace(
                [
                    (name, size / total, lh, space)
                    for (name, lh, space), size in zip(parts, sizes, strict=True)
                ]
            ),
            exact,
        )

    def log2_count(self) -> float:
        return self._mixture.log2_count()

    def observe(self, x: object, y: object) -> VersionSpace:
        mixture = self._mixture.observe(x, y)
        return UnionSpace(mixture, self.exact) if mixture.log2_count() > -math.inf else EMPTY

    def predictive(self, x: object) -> Predictive:
        return self._mixture.predictive(x)

    def posterior(self) -> dict[str, float]:
        return self._mixture.posterior()


def _inverse(order: Sequence[int]) -> list[int]:
    inverse = [0] * len(order)
    for j, src in enumerate(order):
        inverse[src] = j
    return inverse


def _permute(order: Sequence[int], text: str) -> str:
    """Letter j of the result is letter ``order[j]`` of ``text``; spaces stay in place."""
    letters = letters_of(text)
    return respace("".join(letters[j] for j in order), text)


class _MappedPredictive(Predictive):
    """A predictive over intermediate texts z, pushed through a transposition z -> y."""

    def __init__(
        self, inner: Predictive, x: str, order: Sequence[int], cap: int | None = None
    ) -> None:
        self._inner = inner
        self._cap = cap
        self._x = x
        self._order = order
        self._inverse_order: list[int] | None = None  # built on demand: only prob needs it

    @property
    def _inverse(self) -> list[int]:
        if self._inverse_order is None:
            self._inverse_order = _inverse(self._order)
        return self._inverse_order

    @property
    def entropy(self) -> float:
        return self._inner.entropy

    def prob(self, y: object) -> float:
        if not isinstance(y, str) or not same_shape(self._x, y):
            return 0.0
        return self._inner.prob(_permute(self._inverse, y))

    def top(self, k: int) -> list[object]:
        return [_permute(self._order, z) for z in self._inner.top(k)]

    def support(self, limit: int = ENUMERATION_LIMIT) -> dict[str, tuple[object, float]] | None:
        inner = self._inner.support(limit if self._cap is None else min(limit, self._cap))
        if inner is None:
            return None
        out: dict[str, tuple[object, float]] = {}
        for _, (z, p) in inner.items():
            y = _permute(self._order, z)
            out[y] = (y, p)
        return out


class MappedSpace(VersionSpace):
    """The rules ``x -> T(E(x))`` for one fixed transposition T and E ranging over ``inner``.

    T permutes letters and keeps spaces in place; it is known here, so an observation
    (x, y) becomes the observation (x, T^-1(y)) of the letter cipher E.
    """

    def __init__(
        self,
        inner: VersionSpace,
        order_for: Callable[[int], Sequence[int]],
        support_cap: int | None = None,
    ) -> None:
        """``support_cap`` bounds how many outputs the predictive lists for exact merging."""
        self._inner = inner
        self._order_for = order_for
        self._cap = support_cap
        self.exact = inner.exact

    @property
    def inner(self) -> VersionSpace:
        """The letter cipher's space (observations already mapped back through T)."""
        return self._inner

    def log2_count(self) -> float:
        return self._inner.log2_count()

    def observe(self, x: object, y: object) -> VersionSpace:
        if not isinstance(x, str) or not isinstance(y, str) or not same_shape(x, y):
            return EMPTY
        order = self._order_for(len(letters_of(x)))
        inner = self._inner.observe(x, _permute(_inverse(order), y))
        return (
            MappedSpace(inner, self._order_for, self._cap)
            if inner.log2_count() > -math.inf
            else EMPTY
        )

    def predictive(self, x: object) -> Predictive:
        if not isinstance(x, str):
            return TablePredictive({})
        order = self._order_for(len(letters_of(x)))
        return _MappedPredictive(self._inner.predictive(x), x, order, self._cap)
