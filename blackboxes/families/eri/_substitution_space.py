"""Factorised version space of monoalphabetic substitution keys (all 26! permutations).

State: a partial injective map plaintext letter -> cipher letter. With m letters mapped
the consistent keys are the bijections between the 26 - m unmapped letters and the
26 - m unused cipher letters: (26 - m)! of them. For a query whose letters include d
distinct unmapped letters, each injective assignment of those d letters to the f = 26 - m
free cipher letters is completed by (f - d)! keys, so the output is uniform over the
falling factorial (f)_d outcomes: entropy log2 (f)_d, every possible output has
probability 1 / (f)_d.
"""

from __future__ import annotations

import math
from itertools import islice, permutations

from blackboxes.families.eri._alphabet import ALPHABET, letters_of
from blackboxes.families.eri._spaces import EMPTY, same_shape
from blackboxes.information import ENUMERATION_LIMIT, Predictive, TablePredictive, VersionSpace

__all__ = ["SubstitutionSpace"]

_IDX = {ch: i for i, ch in enumerate(ALPHABET)}
_FREE = -1


def _falling(f: int, d: int) -> int:
    return math.perm(f, d) if 0 <= d <= f else 0


class _SubstitutionPredictive(Predictive):
    def __init__(self, x: str, fwd: tuple[int, ...]) -> None:
        self._x = x
        self._fwd = fwd
        used = set(fwd) - {_FREE}
        self._free = [c for c in range(26) if c not in used]
        self._unmapped = list(
            dict.fromkeys(_IDX[ch] for ch in letters_of(x) if fwd[_IDX[ch]] == _FREE)
        )
        self._outcomes = _falling(len(self._free), len(self._unmapped))

    @property
    def entropy(self) -> float:
        return math.log2(self._outcomes) if self._outcomes > 0 else 0.0

    def prob(self, y: object) -> float:
        if not isinstance(y, str) or not same_shape(self._x, y) or self._outcomes == 0:
            return 0.0
        free = set(self._free)
        assign: dict[int, int] = {}
        for p_ch, c_ch in zip(self._x, y, strict=True):
            if p_ch == " ":
                continue
            p, c = _IDX.get(p_ch, -2), _IDX.get(c_ch, -2)
            if c < 0:
                return 0.0
            if self._fwd[p] != _FREE:
                if self._fwd[p] != c:
                    return 0.0
            elif assign.setdefault(p, c) != c or c not in free:
                return 0.0
        if len(set(assign.values())) != len(assign):
            return 0.0
        return 1.0 / self._outcomes

    def _render(self, images: tuple[int, ...]) -> str:
        extra = dict(zip(self._unmapped, images, strict=True))
        out = []
        for ch in self._x:
            if ch == " ":
                out.append(" ")
            else:
                p = _IDX[ch]
                c = self._fwd[p]
                out.append(ALPHABET[c if c != _FREE else extra[p]])
        return "".join(out)

    def top(self, k: int) -> list[object]:
        # All outcomes are equally likely; permutations of the sorted free letters come in
        # lexicographic order, which is the outputs' lexicographic order because unmapped
        # letters are taken in order of first appearance.
        if self._outcomes == 0:
            return []
        return [self._render(p) for p in islice(permutations(self._free, len(self._unmapped)), k)]

    def support(self, limit: int = ENUMERATION_LIMIT) -> dict[str, tuple[object, float]] | None:
        if self._outcomes > limit:
            return None
        p = 1.0 / self._outcomes if self._outcomes else 0.0
        return {
            y: (y, p)
            for y in (self._render(i) for i in permutations(self._free, len(self._unmapped)))
        }


class SubstitutionSpace(VersionSpace):
    """Keys consistent with the history, as a partial injective letter map."""

    def __init__(self, fwd: tuple[int, ...] = (_FREE,) * 26) -> None:
        self._fwd = fwd
        # Memo per query: the space is immutable (compositions share one prior space).
        self._memo: dict[str, _SubstitutionPredictive] = {}

    def fingerprint(self) -> tuple[int, ...]:
        """Equal for spaces in the same state (used to merge identical parts)."""
        return self._fwd

    @property
    def mapped(self) -> int:
        return sum(1 for c in self._fwd if c != _FREE)

    def log2_count(self) -> float:
        return math.log2(math.factorial(26 - self.mapped))

    def observe(self, x: object, y: object) -> VersionSpace:
        if not isinstance(x, str) or not isinstance(y, str) or not same_shape(x, y):
            return EMPTY
        fwd = list(self._fwd)
        used = set(fwd) - {_FREE}
        for p_ch, c_ch in zip(x, y, strict=True):
            if p_ch == " ":
                continue
            p, c = _IDX.get(p_ch, -2), _IDX.get(c_ch, -2)
            if p < 0 or c < 0:
                return EMPTY
            if fwd[p] == _FREE:
                if c in used:
                    return EMPTY
                fwd[p] = c
                used.add(c)
            elif fwd[p] != c:
                return EMPTY
        return SubstitutionSpace(tuple(fwd))

    def predictive(self, x: object) -> Predictive:
        if not isinstance(x, str):
            return TablePredictive({})
        cached = self._memo.get(x)
        if cached is None:
            cached = _SubstitutionPredictive(x, self._fwd)
            self._memo[x] = cached
        return cached
