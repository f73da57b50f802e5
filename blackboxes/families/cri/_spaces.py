"""Version spaces over circuits' functions, for queries x (n bits) and outputs y (m bits).

* :class:`TableSpace`: an explicit list of distinct functions, each the tuple of its observed
  wires' truth tables (kinds whose parameters can be enumerated; exact).
* :class:`AffineSpace`: every affine map GF(2)^n -> GF(2)^m, by Gaussian elimination (exact).
* :class:`MintermSpace`: every set of exactly k minterms, one output (exact, by counting).
* :class:`AgnosticSpace`: every function {0,1}^n -> {0,1}^m; exact for that class, and a
  documented superset (so an over-count) for kinds whose functions cannot be enumerated.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from functools import cached_property

from blackboxes.families.cri._circuit import index_of
from blackboxes.information import JSONValue, Predictive, TablePredictive, VersionSpace

__all__ = ["AffineSpace", "AgnosticSpace", "MintermSpace", "TableSpace", "code_of"]

Function = tuple[int, ...]


def _valid(x: JSONValue, n: int) -> bool:
    return isinstance(x, str) and len(x) == n and not set(x) - {"0", "1"}


def code_of(function: Function, index: int) -> str:
    """The output string of a function (its wires' tables) on truth-table index ``index``."""
    return "".join("1" if (t >> index) & 1 else "0" for t in function)


def _uniform(m: int) -> Predictive:
    """Every m-bit output equally likely (listed only when small)."""
    return _UniformBits(m)


class _UniformBits(Predictive):
    def __init__(self, m: int) -> None:
        self.m = m

    @property
    def entropy(self) -> float:
        return float(self.m)

    def prob(self, y: JSONValue) -> float:
        return 2.0**-self.m if _valid(y, self.m) else 0.0

    def top(self, k: int) -> list[object]:
        return [format(i, f"0{self.m}b")[::-1] for i in range(min(k, 1 << self.m))]

    def support(self, limit: int = 4096) -> dict[str, tuple[object, float]] | None:
        if self.m > 12 or (1 << self.m) > limit:
            return None
        p = 2.0**-self.m
        return {y: (y, p) for y in (format(i, f"0{self.m}b")[::-1] for i in range(1 << self.m))}


def _point(y: str) -> Predictive:
    return TablePredictive({y: (y, 1.0)})


_NONE = TablePredictive({})


class TableSpace(VersionSpace):
    """The distinct functions of a kind, kept as indices into the kind's shared list."""

    def __init__(self, n: int, functions: Sequence[Function], alive: Sequence[int] | None = None):
        self.n = n
        self._functions = functions
        self._alive = tuple(range(len(functions))) if alive is None else tuple(alive)
        self._memo: dict[str, Predictive] = {}

    def __len__(self) -> int:
        return len(self._alive)

    def log2_count(self) -> float:
        return math.log2(len(self._alive)) if self._alive else -math.inf

    def observe(self, x: JSONValue, y: JSONValue) -> TableSpace:
        if not _valid(x, self.n) or not isinstance(y, str):
            return TableSpace(self.n, self._functions, ())
        index = index_of(x)
        fns = self._functions
        return TableSpace(self.n, fns, [i for i in self._alive if code_of(fns[i], index) == y])

    def predictive(self, x: JSONValue) -> Predictive:
        if not _valid(x, self.n):
            return _NONE
        key = x
        hit = self._memo.get(key)
        if hit is None:
            index = index_of(key)
            fns = self._functions
            counts = Counter(code_of(fns[i], index) for i in self._alive)
            hit = TablePredictive({y: (y, float(c)) for y, c in counts.items()})
            self._memo[key] = hit
        return hit


class AffineSpace(VersionSpace):
    """All maps y = A x + b over GF(2) (A is m x n), uniform.

    The observed rows (x, 1) are kept in reduced echelon form, each with its m output bits;
    an unobserved row in their span has a determined output, any other row a uniform one.
    """

    def __init__(
        self, n: int, m: int, rows: tuple[tuple[int, int], ...] = (), empty: bool = False
    ) -> None:
        self.n = n
        self.m = m
        self._rows = rows
        """(row bits with pivot = its highest bit, output bits as an int), pivots distinct."""
        self._empty = empty

    @staticmethod
    def _row(x: str) -> int:
        # Bit i is input i, bit n the constant term.
        return index_of(x) | (1 << len(x))

    def _reduce(self, row: int, out: int) -> tuple[int, int]:
        for r, o in self._rows:
            if row >> (r.bit_length() - 1) & 1:
                row ^= r
                out ^= o
        return row, out

    def log2_count(self) -> float:
        if self._empty:
            return -math.inf
        return float(self.m * (self.n + 1 - len(self._rows)))

    def observe(self, x: JSONValue, y: JSONValue) -> AffineSpace:
        if self._empty or not _valid(x, self.n) or not _valid(y, self.m):
            return AffineSpace(self.n, self.m, (), empty=True)
        row, out = self._reduce(self._row(x), index_of(y))
        if row == 0:
            return self if out == 0 else AffineSpace(self.n, self.m, (), empty=True)
        pivot = row.bit_length() - 1
        # Keep the echelon form reduced: clear the new pivot from the other rows.
        rows = tuple((r ^ row, o ^ out) if r >> pivot & 1 else (r, o) for r, o in self._rows)
        return AffineSpace(self.n, self.m, (*rows, (row, out)))

    def predictive(self, x: JSONValue) -> Predictive:
        if self._empty or not _valid(x, self.n):
            return _NONE
        row, out = self._reduce(self._row(x), 0)
        if row:
            return _uniform(self.m)
        return _point(format(out, f"0{self.m}b")[::-1])


class MintermSpace(VersionSpace):
    """One output, 1 on exactly ``k`` of the 2^n inputs (a DNF of k distinct minterms)."""

    def __init__(
        self,
        n: int,
        k: int,
        ones: frozenset[int] = frozenset(),
        zeros: frozenset[int] = frozenset(),
    ) -> None:
        self.n = n
        self.k = k
        self._ones = ones
        self._zeros = zeros

    @cached_property
    def _free(self) -> int:
        return (1 << self.n) - len(self._ones) - len(self._zeros)

    def log2_count(self) -> float:
        need = self.k - len(self._ones)
        if need < 0 or need > self._free:
            return -math.inf
        return math.log2(math.comb(self._free, need))

    def observe(self, x: JSONValue, y: JSONValue) -> MintermSpace:
        if not _valid(x, self.n) or y not in ("0", "1"):
            return MintermSpace(self.n, -1)
        index = index_of(x)
        if y == "1":
            if index in self._zeros:
                return MintermSpace(self.n, -1)
            return MintermSpace(self.n, self.k, self._ones | {index}, self._zeros)
        if index in self._ones:
            return MintermSpace(self.n, -1)
        return MintermSpace(self.n, self.k, self._ones, self._zeros | {index})

    def predictive(self, x: JSONValue) -> Predictive:
        if self.log2_count() == -math.inf or not _valid(x, self.n):
            return _NONE
        index = index_of(x)
        if index in self._ones:
            return _point("1")
        if index in self._zeros:
            return _point("0")
        p1 = (self.k - len(self._ones)) / self._free
        weights = {y: (y, p) for y, p in (("1", p1), ("0", 1.0 - p1)) if p > 0.0}
        return TablePredictive(weights)


class AgnosticSpace(VersionSpace):
    """Every function {0,1}^n -> {0,1}^m: seen inputs are fixed, the others uniform.

    ``exact`` is False when it stands for a kind whose own functions are fewer (random
    DAGs): counts and entropies are then upper bounds.
    """

    def __init__(
        self,
        n: int,
        m: int,
        seen: tuple[tuple[int, str], ...] = (),
        *,
        exact: bool = True,
        empty: bool = False,
    ) -> None:
        self.n = n
        self.m = m
        self._seen = dict(seen)
        self.exact = exact
        self._empty = empty

    def log2_count(self) -> float:
        if self._empty:
            return -math.inf
        return float(self.m * ((1 << self.n) - len(self._seen)))

    def observe(self, x: JSONValue, y: JSONValue) -> AgnosticSpace:
        if self._empty or not _valid(x, self.n) or not _valid(y, self.m):
            return AgnosticSpace(self.n, self.m, exact=self.exact, empty=True)
        index = index_of(x)
        known = self._seen.get(index)
        if known is not None:
            if known == y:
                return self
            return AgnosticSpace(self.n, self.m, exact=self.exact, empty=True)
        seen = (*self._seen.items(), (index, y))
        return AgnosticSpace(self.n, self.m, seen, exact=self.exact)

    def predictive(self, x: JSONValue) -> Predictive:
        if self._empty or not _valid(x, self.n):
            return _NONE
        known = self._seen.get(index_of(x))
        return _point(known) if known is not None else _uniform(self.m)
