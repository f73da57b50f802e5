"""Short words of L(a) xor L(b), counted and unranked on the product grid with numpy.

The grid holds every pair (state of a, state of b), reachable or not: the counts of
unreachable pairs are never read, and one vectorised pass over all pairs is much cheaper
than discovering the accessible ones pair by pair.

Counts are capped lazily: a stored count is exact while it is below ``cap`` and at least
``cap`` (at most the exact count) otherwise, because a sum with a term at or above ``cap``
is itself at or above ``cap``. That is exact for every decision that compares a count with
an index below ``cap``, which is all that picking one of the first ``cap`` words of a
length needs. Sums are clipped to ``cap`` only when the next step could overflow, so the
counts stay in ``int32`` and most steps are two ``take`` and one ``add``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from blackboxes.automata.dfa import DFA

__all__ = [
    "Counts",
    "ProductGrid",
    "accessible_part",
    "capped_counts",
    "nth_word",
    "product_grid",
    "shortest_counts",
]

Counts = npt.NDArray[np.signedinteger]


@dataclass(frozen=True)
class ProductGrid:
    """Pair ``(p, q)`` is index ``p * b.n + q``; ``succ[a]`` maps each pair to its successor
    on letter ``a``; ``marked`` flags the pairs where exactly one DFA accepts."""

    alphabet: tuple[str, ...]
    succ: npt.NDArray[np.intp]
    marked: npt.NDArray[np.bool_]
    start: int


def product_grid(a: DFA, b: DFA) -> ProductGrid:
    """The grid of ``a`` x ``b`` (same alphabet, checked by the caller)."""
    m = b.n
    da, acc_a = a.arrays
    db, acc_b = b.arrays
    succ = (da.T[:, :, None] * m + db.T[:, None, :]).reshape(a.k, a.n * m)
    marked = (acc_a[:, None] != acc_b[None, :]).reshape(-1)
    return ProductGrid(a.alphabet, succ, marked, a.start * m + b.start)


def accessible_part(grid: ProductGrid) -> ProductGrid:
    """The pairs reachable from the start, renumbered layer by layer (start = 0).

    Worth it before a long count: about a third of the grid of two random DFAs is
    unreachable. One numpy pass per breadth-first layer.
    """
    n = grid.succ.shape[1]
    seen = np.zeros(n, dtype=np.bool_)
    seen[grid.start] = True
    slot = np.zeros(n, dtype=np.intp)
    frontier = np.array([grid.start], dtype=np.intp)
    layers = [frontier]
    while True:
        found = grid.succ[:, frontier].reshape(-1)
        found = found[~seen[found]]
        if found.size == 0:
            break
        # Keep one copy of each pair without sorting: whichever write of its slot won.
        position = np.arange(found.size, dtype=np.intp)
        slot[found] = position
        frontier = found[slot[found] == position]
        seen[frontier] = True
        layers.append(frontier)
    order = np.concatenate(layers)
    index = np.empty(n, dtype=np.intp)
    index[order] = np.arange(order.size, dtype=np.intp)
    return ProductGrid(grid.alphabet, index[grid.succ[:, order]], grid.marked[order], 0)


def _steps(grid: ProductGrid, cap: int) -> Iterator[Counts]:
    """``c_0, c_1, ...``: per pair, the lazily capped number of words of length r leading
    to a marked pair (see the module docstring)."""
    k = grid.succ.shape[0]
    dtype = np.int32 if k * cap < 2**31 else np.int64
    top = int(np.iinfo(dtype).max)
    rows = list(grid.succ)
    cur: Counts = grid.marked.astype(dtype)
    bound = 1  # no stored count exceeds it
    yield cur
    while True:
        if bound * k > top:
            np.minimum(cur, cap, out=cur)
            bound = cap
        nxt: Counts = cur.take(rows[0], mode="clip")  # indices are in range: no check
        for row in rows[1:]:
            nxt += cur.take(row, mode="clip")
        bound *= k
        cur = nxt
        yield cur


def capped_counts(grid: ProductGrid, steps: int, cap: int) -> list[Counts]:
    """``c[r]`` for r = 0..steps (lazily capped counts, see the module docstring)."""
    out = []
    for counts in _steps(grid, cap):
        out.append(counts)
        if len(out) > steps:
            return out
    raise AssertionError("unreachable: _steps never ends")  # pragma: no cover


def shortest_counts(grid: ProductGrid, cap: int, extra: int) -> tuple[int, list[Counts]]:
    """``(kmin, c)``: kmin is the shortest length of a word from the start to a marked pair,
    and ``c[r]`` (r = 0..kmin + extra) are the lazily capped counts. Such a word must exist
    (the two DFAs differ), or this does not return."""
    out = []
    kmin = -1
    for counts in _steps(grid, cap):
        out.append(counts)
        if kmin < 0 and counts[grid.start] > 0:
            kmin = len(out) - 1
        if kmin >= 0 and len(out) > kmin + extra:
            return kmin, out
    raise AssertionError("unreachable: _steps never ends")  # pragma: no cover


def nth_word(grid: ProductGrid, counts: list[Counts], length: int, index: int) -> str:
    """The ``index``-th word (0-based, lexicographic by alphabet order) of ``length`` that
    leads from the start pair to a marked pair; ``index`` must be below the cap the counts
    were computed with, and below the number of such words."""
    pair = grid.start
    if not 0 <= index < counts[length][pair]:
        raise IndexError(f"no word #{index} of length {length} from the start pair")
    succ = grid.succ
    letters = []
    for remaining in range(length, 0, -1):
        below = counts[remaining - 1]
        for a, row in enumerate(succ):
            nxt = int(row[pair])
            c = int(below[nxt])
            if index < c:
                letters.append(grid.alphabet[a])
                pair = nxt
                break
            index -= c
    return "".join(letters)
