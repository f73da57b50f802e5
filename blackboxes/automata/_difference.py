"""Short words of L(a) xor L(b), counted and unranked on the product grid with numpy.

The grid holds every pair (state of a, state of b), reachable or not: the counts of
unreachable pairs are never read, and one vectorised pass over all pairs is much cheaper
than discovering the accessible ones pair by pair. Counts are capped: ``min(cap, count)``
is exact arithmetic for every decision that compares a count with an index below ``cap``
(a sum with a capped term is itself at least ``cap``), which is all that picking one of
the first ``cap`` words of a length needs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from blackboxes.automata.dfa import DFA

__all__ = ["ProductGrid", "accessible_part", "capped_counts", "nth_word", "product_grid"]

Counts = npt.NDArray[np.int64]


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
    da = np.array(a.delta, dtype=np.intp).reshape(a.n, a.k)
    db = np.array(b.delta, dtype=np.intp).reshape(m, b.k)
    succ = (da.T[:, :, None] * m + db.T[:, None, :]).reshape(a.k, a.n * m)
    acc_a = np.array(a.accepting, dtype=np.bool_)
    acc_b = np.array(b.accepting, dtype=np.bool_)
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
        # Keep one copy of each pair without sorting: the last write of its slot wins.
        position = np.arange(found.size, dtype=np.intp)
        slot[found] = position
        frontier = found[slot[found] == position]
        seen[frontier] = True
        layers.append(frontier)
    order = np.concatenate(layers)
    index = np.empty(n, dtype=np.intp)
    index[order] = np.arange(order.size, dtype=np.intp)
    return ProductGrid(grid.alphabet, index[grid.succ[:, order]], grid.marked[order], 0)


def capped_counts(grid: ProductGrid, steps: int, cap: int) -> list[Counts]:
    """``c[r][i] = min(cap, number of words of length r leading from pair i to a marked
    pair)`` for r = 0..steps."""
    cur = grid.marked.astype(np.int64)
    np.minimum(cur, cap, out=cur)
    out = [cur]
    rows = list(grid.succ)
    for _ in range(steps):
        nxt = cur.take(rows[0])
        for row in rows[1:]:
            nxt += cur.take(row)
        np.minimum(nxt, cap, out=nxt)
        out.append(nxt)
        cur = nxt
    return out


def nth_word(grid: ProductGrid, counts: list[Counts], length: int, index: int) -> str:
    """The ``index``-th word (0-based, lexicographic by alphabet order) of ``length`` that
    leads from the start pair to a marked pair; needs ``index < counts[length][start]``,
    so ``index`` must stay below the cap the counts were computed with."""
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
