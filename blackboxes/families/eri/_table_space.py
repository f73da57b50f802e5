"""Exact version space of a few thousand functions that are lookup tables on symbols.

A query x is cut into a sequence of symbols (a letter, a letter pair, ...), each symbol
becomes a number looked up in the hidden function's table, and the output is those
numbers in decimal, separated by single spaces. The functions are stored column-wise
(one tuple per symbol, one entry per function), so a query's output distribution is a
count over the rows of the few columns it touches: no function is ever called.

A kind may say which of a query's symbols determine the numbers of the others for every
function (a basis), and whether they tell every function apart; the predictive then
groups on the basis only, or not at all.
"""

from __future__ import annotations

import heapq
import math
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from functools import cached_property
from operator import itemgetter

from blackboxes.families.eri._spaces import EMPTY
from blackboxes.information import ENUMERATION_LIMIT, Predictive, TablePredictive, VersionSpace

__all__ = ["Basis", "SymbolTable", "TableSpace", "parse_numbers"]

Tokenise = Callable[[str], list[int] | None]
"""A query's symbols, or None when it is not a valid query."""
Basis = Callable[[list[int]], tuple[list[int], bool]]
"""From a query's distinct symbols: a subset whose numbers determine the numbers of the
others under every function of the table, and True if that subset tells every two
functions of the table apart."""


def _no_basis(distinct: list[int]) -> tuple[list[int], bool]:
    return distinct, False


def parse_numbers(y: object) -> list[int] | None:
    """The numbers of ``y`` when it is exactly decimal numbers (no leading zeros) joined by
    single spaces, as the kinds write them; None for anything else."""
    if not isinstance(y, str) or not y.isascii():
        return None
    parts = y.split(" ")
    if not all(p.isdigit() and (p == "0" or p[0] != "0") for p in parts):
        return None
    return [int(p) for p in parts]


class SymbolTable:
    """The functions of a kind as tables: ``rows[f][s]`` is function f's number for symbol s."""

    def __init__(
        self, rows: Sequence[Sequence[int]], tokenise: Tokenise, basis: Basis = _no_basis
    ) -> None:
        if not rows:
            raise ValueError("a symbol table needs at least one function")
        width = len(rows[0])
        if any(len(r) != width for r in rows):
            raise ValueError("every function needs a number for every symbol")
        # Plain tuples (faster to zip than arrays), sharing one int object per value.
        pool = {v: v for r in rows for v in r}
        self.size = len(rows)
        self.values = len(pool)
        """How many different numbers the table holds (bounds what one column separates)."""
        self.columns: tuple[tuple[int, ...], ...] = tuple(
            tuple(pool[r[s]] for r in rows) for s in range(width)
        )
        self.tokenise = tokenise
        self.basis = basis


class _TablePredictive(Predictive):
    """Outputs of one query: functions grouped by their numbers on the query's basis.

    The grouping looks at the first few basis symbols, doubling their number, and stops
    as soon as every function is alone in its group (then no further symbol can merge
    groups): a few thousand functions are usually told apart by two or three symbols.
    """

    def __init__(
        self,
        symbols: list[int],
        distinct: list[int],
        columns: list[Sequence[int]],
        key_width: int,
        start_width: int,
        separates: bool,
    ) -> None:
        """``distinct``: the query's symbols, each once, basis first; ``columns[j]``: the
        consistent functions' numbers for ``distinct[j]``; the first ``key_width`` are the
        basis; ``separates``: the basis tells every function apart."""
        self._slot = [distinct.index(s) for s in symbols]
        self._columns = columns
        self._total = len(columns[0])
        self._groups: Counter[tuple[int, ...]] | None = None
        if separates:
            width, singletons = key_width, True
        else:
            width = max(1, min(start_width, key_width))
            while True:
                groups = Counter(zip(*columns[:width], strict=True))
                singletons = len(groups) == self._total
                if singletons or width >= key_width:
                    break
                width = min(2 * width, key_width)
            self._groups = None if singletons else groups
        self._width = width
        self._singletons = singletons

    def _render(self, values: Sequence[int]) -> str:
        return " ".join([str(values[j]) for j in self._slot])

    @cached_property
    def entropy(self) -> float:
        t = self._total
        if self._groups is None:
            return math.log2(t)
        # Most groups have one or two functions: sum over the few distinct group sizes.
        sizes = Counter(self._groups.values())
        return math.log2(t) - sum(n * c * math.log2(c) for c, n in sizes.items()) / t

    @cached_property
    def _member(self) -> dict[tuple[int, ...], int]:
        """One function (position) per group: the basis fixes its numbers on every symbol."""
        return {key: f for f, key in enumerate(zip(*self._columns[: self._width], strict=True))}

    def _count(self, key: tuple[int, ...]) -> int:
        return 1 if self._groups is None else self._groups[key]

    def prob(self, y: object) -> float:
        numbers = parse_numbers(y)
        if numbers is None or len(numbers) != len(self._slot):
            return 0.0
        values: list[int] = [-1] * len(self._columns)
        for j, v in zip(self._slot, numbers, strict=True):
            if values[j] == -1:
                values[j] = v
            elif values[j] != v:
                return 0.0
        key = tuple(values[: self._width])
        f = self._member.get(key)
        if f is None or any(col[f] != v for col, v in zip(self._columns, values, strict=True)):
            return 0.0
        return self._count(key) / self._total

    def _counted(self) -> Iterable[tuple[tuple[int, ...], int]]:
        """(numbers on the distinct symbols, count) of every output."""
        if self._groups is None:
            return ((v, 1) for v in zip(*self._columns, strict=True))
        cols = self._columns
        return (
            (tuple(col[f] for col in cols), self._groups[key]) for key, f in self._member.items()
        )

    def top(self, k: int) -> list[object]:
        # Most frequent first; ties in order of the numbers on the distinct symbols
        # (cheaper than rendering every output to compare strings).
        best = heapq.nsmallest(k, ((-c, v) for v, c in self._counted()))
        return [self._render(v) for _, v in best]

    def support(self, limit: int = ENUMERATION_LIMIT) -> dict[str, tuple[object, float]] | None:
        outputs = self._total if self._groups is None else len(self._groups)
        if outputs > limit:
            return None
        t = self._total
        return {y: (y, c / t) for y, c in ((self._render(v), c) for v, c in self._counted())}


class TableSpace(VersionSpace):
    """The functions of a :class:`SymbolTable` (all, or those in ``alive``) consistent so far."""

    def __init__(self, table: SymbolTable, alive: tuple[int, ...] | None = None) -> None:
        self._table = table
        self._alive = alive
        # Memo per query: the space is immutable, and the adaptive agent asks repeatedly.
        self._memo: dict[str, Predictive] = {}

    def __len__(self) -> int:
        return self._table.size if self._alive is None else len(self._alive)

    def fingerprint(self) -> tuple[int, ...]:
        """Equal for spaces over the same table holding the same functions."""
        return (id(self._table), *(self._alive if self._alive is not None else (-1,)))

    def log2_count(self) -> float:
        return math.log2(len(self))

    def _column(self, symbol: int) -> Sequence[int]:
        column = self._table.columns[symbol]
        if self._alive is None:
            return column
        if len(self._alive) == 1:
            return (column[self._alive[0]],)
        return itemgetter(*self._alive)(column)

    def _symbols(self, x: object) -> list[int] | None:
        return self._table.tokenise(x) if isinstance(x, str) else None

    def observe(self, x: object, y: object) -> VersionSpace:
        symbols, numbers = self._symbols(x), parse_numbers(y)
        if symbols is None or numbers is None or len(symbols) != len(numbers):
            return EMPTY
        wanted: dict[int, int] = {}
        for s, v in zip(symbols, numbers, strict=True):
            if wanted.setdefault(s, v) != v:  # one symbol, two numbers: no function does that
                return EMPTY
        alive: Sequence[int] = range(self._table.size) if self._alive is None else self._alive
        for s, v in wanted.items():
            column = self._table.columns[s]
            alive = [f for f in alive if column[f] == v]
        return TableSpace(self._table, tuple(alive)) if alive else EMPTY

    def predictive(self, x: object) -> Predictive:
        if not isinstance(x, str):
            return TablePredictive({})
        cached = self._memo.get(x)
        if cached is None:
            cached = self._predictive(x)
            self._memo[x] = cached
        return cached

    def _predictive(self, x: str) -> Predictive:
        symbols = self._symbols(x)
        if not symbols:
            return TablePredictive({})
        distinct = list(dict.fromkeys(symbols))
        basis, separates = self._table.basis(distinct)
        ordered = basis + [s for s in distinct if s not in basis]
        # One column of v different numbers splits n functions into at most v groups.
        n, v = len(self), max(2, self._table.values)
        start = max(1, math.ceil(math.log(n) / math.log(v) - 1e-9)) if n > 1 else 1
        return _TablePredictive(
            symbols,
            ordered,
            [self._column(s) for s in ordered],
            key_width=len(basis),
            start_width=start,
            separates=separates,
        )
