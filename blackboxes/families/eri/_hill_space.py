"""Exact version space of 2x2 Hill keys: two row sets coupled by invertibility.

A key is rows r1 = (a, b), r2 = (c, d); on a digraph (p, q) row r1 gives the first
cipher letter a*p + b*q and r2 the second, so observations constrain the rows
independently. Each row set is a 676-bit mask. The coupling is det = a*d - b*c being a
unit mod 26 (odd and not a multiple of 13); COMPAT[r1] is the mask of rows r2 making an
invertible matrix with r1, so |C| = sum over r1 in R1 of popcount(COMPAT[r1] & R2),
minus one if the excluded identity is still consistent.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from functools import cache
from itertools import chain, islice

from blackboxes.families.eri._alphabet import ALPHABET, letters_of
from blackboxes.families.eri._spaces import EMPTY
from blackboxes.information import ENUMERATION_LIMIT, Predictive, TablePredictive, VersionSpace

__all__ = ["FULL", "HillSpace", "digraphs"]

_IDX = {ch: i for i, ch in enumerate(ALPHABET)}
FULL = (1 << 676) - 1
_ID1 = 1 * 26 + 0  # row (1, 0)
_ID2 = 0 * 26 + 1  # row (0, 1)


def _is_unit(v: int) -> bool:
    return v % 2 == 1 and v % 13 != 0


@cache
def _compat() -> tuple[int, ...]:
    masks = []
    for a in range(26):
        for b in range(26):
            m = 0
            for c in range(26):
                for d in range(26):
                    if _is_unit((a * d - b * c) % 26):
                        m |= 1 << (c * 26 + d)
            masks.append(m)
    return tuple(masks)


@cache
def _row_masks(p: int, q: int) -> tuple[int, ...]:
    """For digraph (p, q): mask of rows (u, v) with u*p + v*q = c, for each c."""
    masks = [0] * 26
    for u in range(26):
        for v in range(26):
            masks[(u * p + v * q) % 26] |= 1 << (u * 26 + v)
    return tuple(masks)


def digraphs(text: str) -> list[tuple[int, int]]:
    """The plaintext's letter pairs, padded with X to even length."""
    s = letters_of(text)
    if len(s) % 2:
        s += "X"
    return [(_IDX[s[k]], _IDX[s[k + 1]]) for k in range(0, len(s), 2)]


def _bits(mask: int) -> Iterator[int]:
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


@cache
def _classes() -> tuple[tuple[int, int], ...]:
    """(rows sharing one COMPAT mask, that mask): 43 classes."""
    rows: dict[int, int] = {}
    for i, mask in enumerate(_compat()):
        rows[mask] = rows.get(mask, 0) | 1 << i
    return tuple((r, mask) for mask, r in rows.items())


def _pair_count(r1: int, r2: int) -> int:
    if r1.bit_count() > 60:
        # Many rows: count per COMPAT class instead of per row.
        total = sum((r1 & rows).bit_count() * (mask & r2).bit_count() for rows, mask in _classes())
    else:
        compat = _compat()
        total = sum((compat[i] & r2).bit_count() for i in _bits(r1))
    if r1 >> _ID1 & 1 and r2 >> _ID2 & 1:
        total -= 1
    return total


def _cipher_rows(text: str, pairs: list[tuple[int, int]]) -> tuple[list[int], list[int]] | None:
    if len(text) != 2 * len(pairs) or any(ch not in _IDX for ch in text):
        return None
    return [_IDX[ch] for ch in text[0::2]], [_IDX[ch] for ch in text[1::2]]


def _xlogx(w: int) -> float:
    return w * math.log2(w) if w > 0 else 0.0


class _Grouped:
    """Pair weights w(u, v) = pair_count(m1_u, m2_v) of a query's row-image classes, grouped.

    ``pair_count`` is the sum over the COMPAT classes c of |m1 & rows_c| * |mask_c & m2|,
    minus one when m1 holds the identity's first row and m2 its second. So w(u, v) depends
    only on u's vector (|m1_u & rows_c|)_c with its identity flag and on v's: rows images
    sharing a vector (there are few distinct ones) share every weight.
    """

    def __init__(self, masks1: list[int], masks2: list[int]) -> None:
        classes = _classes()
        ids1: dict[tuple[int, ...], int] = {}
        ids2: dict[tuple[int, ...], int] = {}
        self._of1 = [
            ids1.setdefault(
                (*((m & rows).bit_count() for rows, _ in classes), m >> _ID1 & 1), len(ids1)
            )
            for m in masks1
        ]
        self._of2 = [
            ids2.setdefault(
                (*((mask & m).bit_count() for _, mask in classes), m >> _ID2 & 1), len(ids2)
            )
            for m in masks2
        ]
        self._weight = [
            [
                sum(a * b for a, b in zip(va[:-1], vb[:-1], strict=True)) - (va[-1] & vb[-1])
                for vb in ids2
            ]
            for va in ids1
        ]
        self._rows: dict[int, list[float]] = {}

    def outputs(self) -> int:
        """Number of pairs (u, v) with a positive weight: the support size."""
        n1 = [0] * len(self._weight)
        for g in self._of1:
            n1[g] += 1
        n2 = [0] * (len(self._weight[0]) if self._weight else 0)
        for g in self._of2:
            n2[g] += 1
        return sum(
            n1[i] * n2[j] for i, row in enumerate(self._weight) for j, w in enumerate(row) if w > 0
        )

    def sum_xlogx(self) -> float:
        """Sum of w * log2(w) over the positive pairs, in (u, v) order like the full table."""
        terms = {w: _xlogx(w) for row in self._weight for w in row}
        for g in set(self._of1):
            self._rows[g] = [terms[self._weight[g][h]] for h in self._of2]
        # Zero weights add 0.0, which leaves a float sum unchanged.
        return sum(chain.from_iterable(self._rows[g] for g in self._of1))


class _HillPredictive(Predictive):
    def __init__(self, r1: int, r2: int, pairs: list[tuple[int, int]], total: int) -> None:
        self._r1, self._r2, self._pairs, self._total = r1, r2, pairs, total
        distinct = list(dict.fromkeys(pairs))

        def image(row: int) -> tuple[int, ...]:
            u, v = divmod(row, 26)
            return tuple((u * p + v * q) % 26 for p, q in distinct)

        self._slot = [distinct.index(pq) for pq in pairs]
        self._g1: dict[tuple[int, ...], int] = {}
        for i in _bits(r1):
            key = image(i)
            self._g1[key] = self._g1.get(key, 0) | 1 << i
        self._g2: dict[tuple[int, ...], int] = {}
        for i in _bits(r2):
            key = image(i)
            self._g2[key] = self._g2.get(key, 0) | 1 << i
        # Injective row images: every consistent key gives its own output.
        self._injective = len(self._g1) == r1.bit_count() and len(self._g2) == r2.bit_count()
        self._table: dict[str, int] | None = None
        self._grouped: _Grouped | None = None
        self._entropy: float | None = None

    def _groups(self) -> _Grouped:
        """The pair weights w(u, v) without listing the outputs (see :class:`_Grouped`)."""
        if self._grouped is None:
            self._grouped = _Grouped(
                [self._g1[u] for u in sorted(self._g1)], [self._g2[v] for v in sorted(self._g2)]
            )
        return self._grouped

    def _render(self, u: tuple[int, ...], v: tuple[int, ...]) -> str:
        return "".join(ALPHABET[u[s]] + ALPHABET[v[s]] for s in self._slot)

    def _weights(self) -> Iterator[tuple[int, str]]:
        for u, m1 in sorted(self._g1.items()):
            for v, m2 in sorted(self._g2.items()):
                w = _pair_count(m1, m2)
                if w > 0:
                    yield w, self._render(u, v)

    def _full_table(self) -> dict[str, int]:
        if self._table is None:
            self._table = {y: w for w, y in self._weights()}
        return self._table

    @property
    def entropy(self) -> float:
        if self._total <= 0:
            return 0.0
        if self._injective:
            return math.log2(self._total)
        if self._entropy is None:
            # The same terms summed in the same order as over the full table: bit-identical.
            if self._table is not None:
                plogp = sum(w * math.log2(w) for w in self._table.values())
            else:
                plogp = self._groups().sum_xlogx()
            self._entropy = math.log2(self._total) - plogp / self._total
        return self._entropy

    def prob(self, y: object) -> float:
        if not isinstance(y, str) or self._total <= 0:
            return 0.0
        rows = _cipher_rows(y, self._pairs)
        if rows is None:
            return 0.0
        m1, m2 = self._r1, self._r2
        for (p, q), c1, c2 in zip(self._pairs, rows[0], rows[1], strict=True):
            masks = _row_masks(p, q)
            m1 &= masks[c1]
            m2 &= masks[c2]
        return _pair_count(m1, m2) / self._total if m1 and m2 else 0.0

    def top(self, k: int) -> list[object]:
        if self._injective:
            # All outputs equally likely: the first k in (row-1 image, row-2 image) order.
            return [y for _, y in islice(self._weights(), k)]
        ranked = sorted(self._full_table().items(), key=lambda yw: (-yw[1], yw[0]))
        return [y for y, _ in ranked[:k]]

    def support(self, limit: int = ENUMERATION_LIMIT) -> dict[str, tuple[object, float]] | None:
        if self._total <= 0:
            return {}
        if self._injective and self._total > limit:
            return None
        if self._table is None and self._groups().outputs() > limit:
            return None
        table = self._full_table()
        if len(table) > limit:
            return None
        return {y: (y, w / self._total) for y, w in table.items()}


class HillSpace(VersionSpace):
    """Invertible 2x2 matrices mod 26 (identity excluded) consistent with the history."""

    def __init__(self, r1: int = FULL, r2: int = FULL) -> None:
        self._r1 = r1
        self._r2 = r2
        self._count = _pair_count(r1, r2)
        self._memo: dict[str, _HillPredictive] = {}

    def log2_count(self) -> float:
        return math.log2(self._count) if self._count > 0 else -math.inf

    def observe(self, x: object, y: object) -> VersionSpace:
        if not isinstance(x, str) or not isinstance(y, str):
            return EMPTY
        pairs = digraphs(x)
        rows = _cipher_rows(y, pairs)
        if rows is None:
            return EMPTY
        r1, r2 = self._r1, self._r2
        for (p, q), c1, c2 in zip(pairs, rows[0], rows[1], strict=True):
            masks = _row_masks(p, q)
            r1 &= masks[c1]
            r2 &= masks[c2]
        space = HillSpace(r1, r2)
        return space if space._count > 0 else EMPTY

    def predictive(self, x: object) -> Predictive:
        if not isinstance(x, str):
            return TablePredictive({})
        cached = self._memo.get(x)
        if cached is None:
            cached = _HillPredictive(self._r1, self._r2, digraphs(x), self._count)
            self._memo[x] = cached
        return cached
