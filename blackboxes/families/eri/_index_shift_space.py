"""Exact version space of the index shifts: letter i shifted by (a + b * i) mod m, b != 0.

The consistent keys are kept as an explicit set (at most m * (m - 1) of them). A query
with one letter sees only a; with two or more it sees the whole key (its first two
shifts are a and a + b), so every consistent key is its own output: the entropy is then
log2 of the count, and a probability is one key lookup.
"""

from __future__ import annotations

import math
from collections import Counter
from functools import cached_property, lru_cache

from blackboxes.families.eri._spaces import EMPTY, same_shape
from blackboxes.information import ENUMERATION_LIMIT, Predictive, TablePredictive, VersionSpace

__all__ = ["IndexShiftSpace", "index_shift"]

Key = tuple[int, int]


@lru_cache(maxsize=8)
def _index(alphabet: str) -> dict[str, int]:
    return {ch: i for i, ch in enumerate(alphabet)}


@lru_cache(maxsize=8)
def _rotations(alphabet: str) -> tuple[dict[int, int], ...]:
    """``str.translate`` tables adding a to every letter's number."""
    m = len(alphabet)
    return tuple(str.maketrans(alphabet, alphabet[a:] + alphabet[:a]) for a in range(m))


def index_shift(alphabet: str, a: int, b: int, text: str) -> str:
    """Letter number i of ``text`` (spaces kept, not counted) shifted by (a + b * i) mod m."""
    idx, m = _index(alphabet), len(alphabet)
    out = []
    i = 0
    for ch in text:
        if ch == " ":
            out.append(" ")
        else:
            out.append(alphabet[(idx[ch] + a + b * i) % m])
            i += 1
    return "".join(out)


class _IndexShiftPredictive(Predictive):
    """Two or more letters: each consistent key gives its own output, all equally likely."""

    def __init__(self, space: IndexShiftSpace, x: str) -> None:
        self._space = space
        self._x = x

    @property
    def entropy(self) -> float:
        return math.log2(len(self._space.keys))

    def prob(self, y: object) -> float:
        key = self._space.key_of(self._x, y)
        return 1.0 / len(self._space.keys) if key in self._space.keys else 0.0

    def _render(self, key: Key) -> str:
        return self._bases[key[1]].translate(_rotations(self._space.alphabet)[key[0]])

    @cached_property
    def _bases(self) -> dict[int, str]:
        """Per step b, the output of the key (0, b): other starts are a rotation of it."""
        steps = {b for _, b in self._space.keys}
        return {b: index_shift(self._space.alphabet, 0, b, self._x) for b in steps}

    def top(self, k: int) -> list[object]:
        # All equally likely: ties in key order (a, then b).
        return [self._render(key) for key in self._space.ordered[:k]]

    def support(self, limit: int = ENUMERATION_LIMIT) -> dict[str, tuple[object, float]] | None:
        keys = self._space.ordered
        if len(keys) > limit:
            return None
        p = 1.0 / len(keys)
        return {y: (y, p) for y in (self._render(key) for key in keys)}


class IndexShiftSpace(VersionSpace):
    """The keys (a, b), b != 0, of an index shift over ``alphabet`` consistent so far."""

    def __init__(self, alphabet: str, keys: frozenset[Key]) -> None:
        self.alphabet = alphabet
        self.keys = keys
        self._memo: dict[str, Predictive] = {}

    @classmethod
    def prior(cls, alphabet: str) -> IndexShiftSpace:
        m = len(alphabet)
        return cls(alphabet, frozenset((a, b) for a in range(m) for b in range(1, m)))

    @cached_property
    def ordered(self) -> tuple[Key, ...]:
        return tuple(sorted(self.keys))

    def fingerprint(self) -> tuple[Key, ...]:
        """Equal for spaces holding the same keys."""
        return self.ordered

    def log2_count(self) -> float:
        return math.log2(len(self.keys))

    def _shifts(self, x: object, y: object) -> list[int] | None:
        """The shift of each letter seen in (x, y), or None if y cannot be an output of x."""
        if not isinstance(x, str) or not isinstance(y, str) or not same_shape(x, y):
            return None
        idx, m = _index(self.alphabet), len(self.alphabet)
        out = []
        for p_ch, c_ch in zip(x, y, strict=True):
            if p_ch == " ":
                continue
            p, c = idx.get(p_ch), idx.get(c_ch)
            if p is None or c is None:
                return None
            out.append((c - p) % m)
        return out

    def key_of(self, x: object, y: object) -> Key | None:
        """The one key (a, b) mapping x (two or more letters) to y, if any."""
        s = self._shifts(x, y)
        if s is None or len(s) < 2:
            return None
        m = len(self.alphabet)
        a, b = s[0], (s[1] - s[0]) % m
        return (a, b) if all(v == (a + b * i) % m for i, v in enumerate(s)) else None

    def observe(self, x: object, y: object) -> VersionSpace:
        s = self._shifts(x, y)
        if s is None:
            return EMPTY
        if len(s) == 0:  # no letter: every key copies the spaces
            return self if x == y else EMPTY
        if len(s) == 1:
            kept = frozenset(k for k in self.keys if k[0] == s[0])
        else:
            key = self.key_of(x, y)
            kept = frozenset({key}) if key in self.keys else frozenset()
        return IndexShiftSpace(self.alphabet, kept) if kept else EMPTY

    def predictive(self, x: object) -> Predictive:
        if not isinstance(x, str) or self._shifts(x, x) is None:
            return TablePredictive({})
        cached = self._memo.get(x)
        if cached is None:
            letters = sum(1 for ch in x if ch != " ")
            if letters >= 2:
                cached = _IndexShiftPredictive(self, x)
            else:
                starts = Counter(a for a, _ in self.keys) if letters else Counter({0: 1})
                cached = TablePredictive(
                    {
                        y: (y, float(c))
                        for y, c in (
                            (index_shift(self.alphabet, a, 0, x), c) for a, c in starts.items()
                        )
                    }
                )
            self._memo[x] = cached
        return cached
