"""Factorised version space of Vigenere keys of one length L (primitive keys only).

The alphabet is a parameter (A-Z by default, mod 26; the cased kinds use A-Z a-z, mod 52);
below, 26 stands for its size.

State: per key position j < L either a fixed shift or free. The consistent keys are the
product of the allowed values minus the non-primitive ones (keys that repeat a shorter
key, whose function a shorter key length already has). By Moebius inversion

    primitive(L) = sum over d | L of mu(L / d) * count_d,

where count_d is the number of consistent keys with period dividing d: each residue class
r mod d of positions must agree, giving 26 (all free), 1 (one fixed value) or 0 choices.

A query with n letters sees the key prefix t = k[0 : min(n, L)]; distinct prefixes give
distinct outputs. Prefix t is completed by B keys (B = 26 ** free positions >= min(n, L))
minus the e(t) non-primitive consistent keys starting with t. Non-primitive keys are few
(at most 26 ** (L / 2)), so they are listed and the entropy is computed in closed form.
"""

from __future__ import annotations

import math
from functools import cached_property, lru_cache
from itertools import islice, product

from blackboxes.families.eri._alphabet import ALPHABET, letters_of
from blackboxes.families.eri._spaces import EMPTY, same_shape
from blackboxes.information import ENUMERATION_LIMIT, Predictive, TablePredictive, VersionSpace

__all__ = ["VigenereLengthSpace", "primitive_count"]

_FREE = -1


def _mobius(n: int) -> int:
    result, k = 1, 2
    while k * k <= n:
        if n % k == 0:
            n //= k
            if n % k == 0:
                return 0
            result = -result
        k += 1
    return -result if n > 1 else result


def _divisors(n: int) -> list[int]:
    return [d for d in range(1, n + 1) if n % d == 0]


def _count_period(key: tuple[int, ...], d: int, size: int) -> int:
    """Consistent keys whose period divides ``d``."""
    total = 1
    for r in range(d):
        fixed = {key[j] for j in range(r, len(key), d)} - {_FREE}
        if len(fixed) > 1:
            return 0
        total *= 1 if fixed else size
    return total


def primitive_count(key: tuple[int, ...], size: int = 26) -> int:
    """Number of primitive keys of length ``len(key)`` over ``size`` shifts consistent with
    the partial key."""
    n = len(key)
    return sum(_mobius(n // d) * _count_period(key, d, size) for d in _divisors(n))


def _shifts(idx: dict[str, int], x: str, y: str) -> list[int] | None:
    out = []
    size = len(idx)
    for p_ch, c_ch in zip(x, y, strict=True):
        if p_ch == " ":
            continue
        c = idx.get(c_ch)
        if c is None:
            return None
        out.append((c - idx[p_ch]) % size)
    return out


class _VigenerePredictive(Predictive):
    def __init__(self, space: VigenereLengthSpace, x: str) -> None:
        self._space = space
        self._x = x
        self._size = size = len(space.alphabet)
        self._xl = [space.index[ch] for ch in letters_of(x)]
        key = space.key
        self._m = min(len(self._xl), len(key))
        self._free_prefix = [j for j in range(self._m) if key[j] == _FREE]
        self._block = size ** sum(1 for j in range(self._m, len(key)) if key[j] == _FREE)
        self._prefixes = size ** len(self._free_prefix)
        exceptions: dict[tuple[int, ...], int] = {}
        for k in space.non_primitive:
            t = k[: self._m]
            exceptions[t] = exceptions.get(t, 0) + 1
        self._exceptions = exceptions
        self._total = self._prefixes * self._block - len(space.non_primitive)

    def _weight(self, t: tuple[int, ...]) -> int:
        return self._block - self._exceptions.get(t, 0)

    def _render(self, t: tuple[int, ...]) -> str:
        # When n < L every i < m; otherwise t is the whole key: either way t[i % L] is right.
        shifts = [t[i % len(self._space.key)] for i in range(len(self._xl))]
        alphabet, size = self._space.alphabet, self._size
        out = []
        i = 0
        for ch in self._x:
            if ch == " ":
                out.append(" ")
            else:
                out.append(alphabet[(self._xl[i] + shifts[i]) % size])
                i += 1
        return "".join(out)

    def _prefixes_in_order(self) -> product[tuple[int, ...]]:
        return product(range(self._size), repeat=len(self._free_prefix))

    def _prefix_of(self, letters: tuple[int, ...]) -> tuple[int, ...]:
        """The key prefix whose output has ``letters`` at the free prefix positions."""
        t = list(self._space.key[: self._m])
        for j, c in zip(self._free_prefix, letters, strict=True):
            t[j] = (c - self._xl[j]) % self._size
        return tuple(t)

    @cached_property
    def entropy(self) -> float:
        if self._total <= 0:
            return 0.0
        plain = (self._prefixes - len(self._exceptions)) * _xlogx(self._block)
        special = sum(_xlogx(self._block - e) for e in self._exceptions.values())
        return math.log2(self._total) - (plain + special) / self._total

    def prob(self, y: object) -> float:
        if not isinstance(y, str) or not same_shape(self._x, y) or self._total <= 0:
            return 0.0
        s = _shifts(self._space.index, self._x, y)
        if s is None:
            return 0.0
        length = len(self._space.key)
        if any(s[i] != s[i - length] for i in range(length, len(s))):
            return 0.0
        t = tuple(s[: self._m])
        if any(k != _FREE and k != v for k, v in zip(self._space.key, t, strict=False)):
            return 0.0
        return self._weight(t) / self._total

    def top(self, k: int) -> list[object]:
        # Prefixes in lexicographic order of their outputs; only the few exceptions weigh
        # less than the rest, so the first k + len(exceptions) contain the k best.
        head = [
            self._prefix_of(c) for c in islice(self._prefixes_in_order(), k + len(self._exceptions))
        ]
        scored = sorted(
            ((self._weight(t), self._render(t)) for t in head if self._weight(t) > 0),
            key=lambda wy: (-wy[0], wy[1]),
        )
        return [y for _, y in scored[:k]]

    def support(self, limit: int = ENUMERATION_LIMIT) -> dict[str, tuple[object, float]] | None:
        if self._prefixes > limit:
            return None
        out: dict[str, tuple[object, float]] = {}
        for c in self._prefixes_in_order():
            t = self._prefix_of(c)
            w = self._weight(t)
            if w > 0:
                y = self._render(t)
                out[y] = (y, w / self._total)
        return out


@lru_cache(maxsize=8)
def _index(alphabet: str) -> dict[str, int]:
    return {ch: i for i, ch in enumerate(alphabet)}


def _xlogx(v: int) -> float:
    return v * math.log2(v) if v > 0 else 0.0


class VigenereLengthSpace(VersionSpace):
    """Primitive Vigenere keys of one length consistent with the history."""

    def __init__(self, key: tuple[int, ...], alphabet: str = ALPHABET) -> None:
        self.key = key
        self.alphabet = alphabet
        self.index = _index(alphabet)
        # Memo per query: the space is immutable, and compositions ask the same prior space
        # once per transposition.
        self._memo: dict[str, _VigenerePredictive] = {}

    @classmethod
    def prior(cls, length: int, alphabet: str = ALPHABET) -> VigenereLengthSpace:
        return cls((_FREE,) * length, alphabet)

    def fingerprint(self) -> tuple[int, ...]:
        """Equal for spaces in the same state (used to merge identical parts)."""
        # Another alphabet's spaces are told apart by its size appended to the key.
        return self.key if self.alphabet == ALPHABET else (*self.key, -len(self.alphabet))

    def _valid(self, x: str) -> bool:
        return all(ch == " " or ch in self.index for ch in x)

    @cached_property
    def count(self) -> int:
        return primitive_count(self.key, len(self.alphabet))

    @cached_property
    def non_primitive(self) -> tuple[tuple[int, ...], ...]:
        """Consistent keys that repeat a shorter block (period a proper divisor of L)."""
        length = len(self.key)
        found: set[tuple[int, ...]] = set()
        for d in _divisors(length)[:-1]:
            choices: list[list[int]] = []
            for r in range(d):
                fixed = {self.key[j] for j in range(r, length, d)} - {_FREE}
                if not fixed:
                    choices.append(list(range(len(self.alphabet))))
                else:
                    # Two different fixed values in one residue class: no such key.
                    choices.append(sorted(fixed) if len(fixed) == 1 else [])
            for block in product(*choices):
                found.add(tuple(block[j % d] for j in range(length)))
        return tuple(sorted(found))

    def log2_count(self) -> float:
        return math.log2(self.count) if self.count > 0 else -math.inf

    def observe(self, x: object, y: object) -> VersionSpace:
        if not isinstance(x, str) or not isinstance(y, str) or not same_shape(x, y):
            return EMPTY
        if not self._valid(x):
            return EMPTY
        s = _shifts(self.index, x, y)
        if s is None:
            return EMPTY
        key = list(self.key)
        length = len(key)
        for i, v in enumerate(s):
            j = i % length
            if key[j] == _FREE:
                key[j] = v
            elif key[j] != v:
                return EMPTY
        space = VigenereLengthSpace(tuple(key), self.alphabet)
        return space if space.count > 0 else EMPTY

    def predictive(self, x: object) -> Predictive:
        if not isinstance(x, str) or not self._valid(x):
            return TablePredictive({})
        cached = self._memo.get(x)
        if cached is None:
            cached = _VigenerePredictive(self, x)
            self._memo[x] = cached
        return cached
