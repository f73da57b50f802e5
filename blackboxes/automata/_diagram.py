"""Steps 4-7 of the Boltzmann sampler (see :mod:`blackboxes.automata.sampling`) in numpy.

From a set partition to its k-Dyck diagram, and from a diagram to the transition table.

The table is built without replaying the depth-first walk slot by slot. Column j first
creates ``x_j - x_{j-1}`` states (one popped slot each) and then points one slot at state
``y_j``, so the sequence of popped slots is known in advance: it is the preorder of a tree
whose inner nodes (creating slots) have k children, the new state's slots. With the start
state as a virtual root, let ``w_t`` be the height of the walk before event t (``w_0 = 0``,
up by k - 1 after a creating event, down by 1 after a pointing one). The slot popped at
event t was pushed by its parent, the last earlier event ``j`` with ``w_j <= w_t``, and is
that state's letter ``w_j + k - 1 - w_t`` (letters are pushed in reverse, letter 0 on top).
That last earlier event is found for every t at once by sorting events by height.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["Columns", "diagram_columns", "structure_array"]

Ints = npt.NDArray[np.int64]
Columns = tuple[Ints, Ints]
"""``(x, y)``: the columns of a diagram, 1-based as in the sampler's description."""


def diagram_columns(sizes: list[int], elements: list[int], n: int, k: int) -> Columns | None:
    """The columns of the partition of ``0..kn-1`` whose blocks are consecutive runs of
    ``elements`` of the given ``sizes``, or None if the diagram is not k-Dyck."""
    total = k * n
    block_of = np.empty(total, dtype=np.int64)
    block_of[np.array(elements, dtype=np.int64)] = np.repeat(
        np.arange(len(sizes), dtype=np.int64), sizes
    )
    # Restricted growth string: blocks numbered by first appearance.
    first = np.full(len(sizes), total, dtype=np.int64)
    position = np.arange(total, dtype=np.int64)
    np.minimum.at(first, block_of, position)
    opens = first[block_of] == position
    seen = np.cumsum(opens)  # blocks seen up to each position: the running maximum
    number = seen[first]  # each block's number, 1-based
    rest = ~opens
    x, y = seen[rest], number[block_of[rest]]
    i = np.arange(1, x.size + 1, dtype=np.int64)
    if not np.all(x >= (i + k - 2) // (k - 1)):
        return None
    return x, y


def structure_array(x: Ints, y: Ints, n: int, k: int) -> Ints:
    """The transition table (n x k, states in creation order, start 0) that the complete
    diagram ``x, y`` (k-Dyck columns plus the last one) encodes; ValueError if it is not
    a valid diagram for n states."""
    m = (k - 1) * n + 1
    if x.size != m or y.size != m:
        raise ValueError(f"expected {m} columns, got {x.size}")
    bad = np.flatnonzero((y < 1) | (y > x) | (x > n))
    if bad.size:
        j = int(bad[0])
        raise ValueError(f"column {j + 1} = {(int(x[j]), int(y[j]))} is not 1 <= y <= x <= n")
    # A column below the states already made creates none (x need not be monotone).
    reached = np.maximum.accumulate(np.concatenate(([1], x)))
    creates = np.diff(reached)
    if int(reached[-1]) != n:
        raise ValueError("the columns do not form a valid diagram")
    # Events: per column its creating events, then its pointing one.
    point_at = np.cumsum(creates + 1) - 1
    events = int(point_at[-1]) + 1
    creating = np.ones(events, dtype=np.bool_)
    creating[point_at] = False
    # Heights before each event, the virtual root (the start state) at index 0.
    step = np.where(creating, k - 1, -1)
    height = np.concatenate(([0, k - 1], k - 1 + np.cumsum(step)))
    if height[1:-1].min() < 0 or height[-1] != -1:
        raise ValueError("the columns do not form a valid diagram")
    height = height[:-1]  # w_0 (root) .. w_events
    parent = _last_not_higher(height, k)[1:]
    kinds = np.concatenate(([True], creating))
    state = np.cumsum(kinds) - 1  # a creating event's new state; the root is state 0
    letter = height[parent] + k - 1 - height[1:]
    target = np.empty(events, dtype=np.int64)
    target[creating] = state[1:][creating]
    target[~creating] = y - 1
    delta = np.empty((n, k), dtype=np.int64)
    delta[state[parent], letter] = target
    return delta


def _last_not_higher(height: Ints, k: int) -> Ints:
    """For each index t >= 1, the largest j < t with ``height[j] <= height[t]``.

    Between that j and t the walk stays above ``height[t]``, and it left j by a step of
    k - 1 up, so ``height[j]`` is one of the k values ``height[t] - k + 1 .. height[t]``:
    the answer is the latest earlier index among those values.
    """
    size = height.size
    order = np.argsort(height, kind="stable")  # by height, then by index
    key = height[order] * size + order
    best = np.full(size, -1, dtype=np.int64)
    index = np.arange(size, dtype=np.int64)
    for drop in range(k):
        wanted = height - drop
        at = np.searchsorted(key, wanted * size + index) - 1
        found = order[np.maximum(at, 0)]
        ok = (at >= 0) & (height[found] == wanted)
        best = np.where(ok & (found > best), found, best)
    return best
