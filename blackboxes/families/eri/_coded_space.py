"""Factorised version space of coded substitutions: letter classes -> distinct digit codes.

A coded substitution maps each plaintext letter to a class (J and I share one in a
Polybius square), gives every class its own code from a fixed code set, and outputs the
codes of the plaintext's letters separated by single spaces (plaintext spaces dropped).
H is every injective map from the K classes into the N codes.

State: a partial injective map class -> code. With m classes mapped there are F = N - m
free codes and U = K - m unmapped classes; the consistent keys are the injections of the
unmapped classes into the free codes: the falling factorial (F)_U of them. For a query
whose letters include d distinct unmapped classes, each injective assignment of those d
classes to the F free codes is completed by (F - d)_(U - d) keys, so the output is
uniform over (F)_d outcomes: entropy log2 (F)_d, every possible output has probability
1 / (F)_d, and observing one drops log2 of the count by exactly log2 (F)_d.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from functools import cached_property
from itertools import islice, permutations

from blackboxes.families.eri._spaces import EMPTY
from blackboxes.information import ENUMERATION_LIMIT, Predictive, TablePredictive, VersionSpace

__all__ = ["CodeBook", "CodedSpace", "encode"]

_FREE = -1


def _falling(f: int, d: int) -> int:
    return math.perm(f, d) if 0 <= d <= f else 0


class CodeBook:
    """The fixed part of a coded substitution: letter -> class, and the code strings.

    ``class_of`` maps every plaintext letter to a class in ``0..K-1`` (each class used);
    ``codes`` are N >= K distinct non-empty strings without spaces.
    """

    def __init__(self, class_of: Mapping[str, int], codes: Sequence[str]) -> None:
        classes = set(class_of.values())
        if classes != set(range(len(classes))):
            raise ValueError(f"classes must be 0..K-1, got {sorted(classes)}")
        if len(set(codes)) != len(codes) or any(not c or " " in c for c in codes):
            raise ValueError("codes must be distinct non-empty strings without spaces")
        if len(classes) > len(codes):
            raise ValueError(f"{len(classes)} classes cannot get distinct codes from {len(codes)}")
        self.class_of: dict[str, int] = dict(class_of)
        self.n_classes = len(classes)
        self.codes: tuple[str, ...] = tuple(codes)
        self.index: dict[str, int] = {c: i for i, c in enumerate(self.codes)}
        # Codes in string order: with single-space separators (space sorts before every
        # digit, and a code that is a prefix of another is followed by a space or the end),
        # assignments taken in this order give outputs in string order.
        self.order: tuple[int, ...] = tuple(
            sorted(range(len(self.codes)), key=self.codes.__getitem__)
        )

    @property
    def n_codes(self) -> int:
        return len(self.codes)

    def classes(self, x: str) -> tuple[int, ...] | None:
        """The class of each letter of ``x`` (spaces skipped); None for any other character."""
        out: list[int] = []
        for ch in x:
            if ch == " ":
                continue
            k = self.class_of.get(ch)
            if k is None:
                return None
            out.append(k)
        return tuple(out)

    def parse(self, y: object, n: int) -> tuple[int, ...] | None:
        """The code indices of ``y`` when it is exactly ``n`` known codes joined by single
        spaces; None otherwise (a hostile ``y`` is never an error)."""
        if not isinstance(y, str):
            return None
        groups = y.split(" ") if y else []
        if len(groups) != n:
            return None
        out: list[int] = []
        for g in groups:
            c = self.index.get(g)
            if c is None:
                return None
            out.append(c)
        return tuple(out)


def encode(table: Mapping[str, str], text: str) -> str:
    """The codes of the letters of ``text`` (spaces dropped), joined by single spaces."""
    return " ".join(table[ch] for ch in text if ch != " ")


class _CodedPredictive(Predictive):
    def __init__(self, book: CodeBook, fwd: tuple[int, ...], seq: tuple[int, ...]) -> None:
        self._book = book
        self._fwd = fwd
        self._seq = seq
        used = set(fwd) - {_FREE}
        self._free = tuple(c for c in book.order if c not in used)
        self._unmapped = tuple(dict.fromkeys(k for k in seq if fwd[k] == _FREE))
        self._outcomes = _falling(len(self._free), len(self._unmapped))

    @property
    def entropy(self) -> float:
        return math.log2(self._outcomes) if self._outcomes > 0 else 0.0

    def prob(self, y: object) -> float:
        if self._outcomes == 0:
            return 0.0
        images = self._book.parse(y, len(self._seq))
        if images is None:
            return 0.0
        free = set(self._free)
        assign: dict[int, int] = {}
        for k, c in zip(self._seq, images, strict=True):
            if self._fwd[k] != _FREE:
                if self._fwd[k] != c:
                    return 0.0
            elif assign.setdefault(k, c) != c or c not in free:
                return 0.0
        if len(set(assign.values())) != len(assign):
            return 0.0
        return 1.0 / self._outcomes

    def _render(self, images: tuple[int, ...]) -> str:
        extra = dict(zip(self._unmapped, images, strict=True))
        codes = self._book.codes
        return " ".join(
            codes[self._fwd[k] if self._fwd[k] != _FREE else extra[k]] for k in self._seq
        )

    def _outputs(self) -> Iterator[str]:
        # Free codes are in string order and unmapped classes in order of first
        # appearance, so permutations come out in the outputs' string order.
        return (self._render(p) for p in permutations(self._free, len(self._unmapped)))

    def top(self, k: int) -> list[object]:
        # All outcomes are equally likely: the ties are broken by the output string, as
        # TablePredictive and mixtures do.
        if self._outcomes == 0 or k <= 0:
            return []
        return list(islice(self._outputs(), k))

    def support(self, limit: int = ENUMERATION_LIMIT) -> dict[str, tuple[object, float]] | None:
        if self._outcomes > limit:
            return None
        if self._outcomes == 0:
            return {}
        p = 1.0 / self._outcomes
        return {y: (y, p) for y in self._outputs()}


class CodedSpace(VersionSpace):
    """Injective class -> code maps consistent with the history, as a partial map."""

    def __init__(self, book: CodeBook, fwd: tuple[int, ...] | None = None) -> None:
        self._book = book
        self._fwd = (_FREE,) * book.n_classes if fwd is None else fwd
        # Memo per query: the space is immutable (a kind shares one prior space).
        self._memo: dict[str, Predictive] = {}

    @property
    def book(self) -> CodeBook:
        return self._book

    def fingerprint(self) -> tuple[int, ...]:
        """Equal for spaces of one code book in the same state."""
        return self._fwd

    @property
    def mapped(self) -> int:
        """How many classes have a known code."""
        return sum(1 for c in self._fwd if c != _FREE)

    @cached_property
    def _log2_count(self) -> float:
        m = self.mapped
        return math.log2(_falling(self._book.n_codes - m, self._book.n_classes - m))

    def log2_count(self) -> float:
        return self._log2_count

    def observe(self, x: object, y: object) -> VersionSpace:
        if not isinstance(x, str):
            return EMPTY
        seq = self._book.classes(x)
        if seq is None:
            return EMPTY
        images = self._book.parse(y, len(seq))
        if images is None:
            return EMPTY
        fwd = list(self._fwd)
        used = set(fwd) - {_FREE}
        for k, c in zip(seq, images, strict=True):
            if fwd[k] == _FREE:
                if c in used:
                    return EMPTY
                fwd[k] = c
                used.add(c)
            elif fwd[k] != c:
                return EMPTY
        return CodedSpace(self._book, tuple(fwd))

    def predictive(self, x: object) -> Predictive:
        if not isinstance(x, str):
            return TablePredictive({})
        cached = self._memo.get(x)
        if cached is None:
            seq = self._book.classes(x)
            cached = (
                TablePredictive({}) if seq is None else _CodedPredictive(self._book, self._fwd, seq)
            )
            self._memo[x] = cached
        return cached
