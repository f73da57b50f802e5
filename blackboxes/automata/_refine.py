"""Nerode classes and breadth-first order of a DFA held as numpy arrays.

For the sampler's large DFAs (10^4 to 10^5 states), where the pure-Python loops of
:class:`~blackboxes.automata.dfa.DFA` cost seconds. Both give exactly what the DFA methods
give: the same class count, the same order.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["bfs_order", "class_count", "nerode_classes"]

Ints = npt.NDArray[np.int64]

_KEY_LIMIT = 1 << 62
"""Combined signature keys stay below this (int64 with room for one more addition)."""


def class_count(delta: Ints, accepting: npt.NDArray[np.bool_]) -> int:
    """The number of Nerode classes among all states of ``delta`` (n x k)."""
    return nerode_classes(delta, accepting)[1]


def nerode_classes(delta: Ints, accepting: npt.NDArray[np.bool_]) -> tuple[Ints, int]:
    """``(class of each state, class count)`` over all states of ``delta`` (n x k), by
    Moore refinement; it stops as soon as every state is alone or a round splits nothing.
    Classes are numbered in no particular order."""
    n, k = delta.shape
    cls = accepting.astype(np.int64)
    count = int(np.unique(cls).size)
    while count < n:
        # One round: the class of each state and of its successors, renumbered densely.
        key = cls
        width = count
        for a in range(k):
            if width * count >= _KEY_LIMIT:
                key = np.unique(key, return_inverse=True)[1].astype(np.int64)
                width = int(key.max()) + 1
            key = key * count + cls[delta[:, a]]
            width *= count
        uniq, inverse = np.unique(key, return_inverse=True)
        if uniq.size == count:
            break
        cls, count = inverse.astype(np.int64).reshape(n), int(uniq.size)
    return cls, count


def bfs_order(delta: Ints, start: int) -> Ints:
    """The states reachable from ``start`` in breadth-first order, letters in order: the
    order :meth:`DFA.reachable_states` gives."""
    n = delta.shape[0]
    seen = np.zeros(n, dtype=np.bool_)
    seen[start] = True
    frontier = np.array([start], dtype=np.int64)
    layers = [frontier]
    while True:
        found = delta[frontier].reshape(-1)  # by parent, then by letter
        found = found[~seen[found]]
        if found.size == 0:
            break
        _, first = np.unique(found, return_index=True)
        frontier = found[np.sort(first)]  # first discoveries, in discovery order
        seen[frontier] = True
        layers.append(frontier)
    return np.concatenate(layers)
