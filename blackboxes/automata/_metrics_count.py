"""Exact word counting on product automata, vectorised through ``map``.

A counting step ``new[q] = base[q] + sum over letters of prev[succ[a][q]]`` runs as
chained ``map(operator.add, ...)`` over ``prev.__getitem__``, so the per-state work
stays in C; this is what makes 10^4-state products at 200 lengths cost ~0.1 s with
exact Python integers.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from operator import add

from blackboxes.automata.dfa import DFA

__all__ = ["backward_counts", "pair_product", "restrict_alive"]


def pair_product(t: DFA, h: DFA) -> tuple[list[tuple[int, int]], list[list[int]]]:
    """Accessible pairs (t-state, h-state) in BFS order from the start pair (index 0),
    and ``succ[a][i]``, the index of pair i's successor on letter a."""
    if t.alphabet != h.alphabet:
        raise ValueError(f"alphabets differ: {''.join(t.alphabet)!r} vs {''.join(h.alphabet)!r}")
    k = t.k
    start = (t.start, h.start)
    ids = {start: 0}
    pairs = [start]
    succ: list[list[int]] = [[] for _ in range(k)]
    td, hd = t.delta, h.delta
    for p, q in pairs:
        tp, hq = td[p], hd[q]
        for a in range(k):
            nxt = (tp[a], hq[a])
            j = ids.get(nxt)
            if j is None:
                j = ids[nxt] = len(pairs)
                pairs.append(nxt)
            succ[a].append(j)
    return pairs, succ


def restrict_alive(
    succ: Sequence[Sequence[int]], marked: Sequence[bool]
) -> tuple[list[list[int]], list[int]]:
    """Keep only the states that can reach a marked state, plus one zero state.

    The others count zero words at every length, so they all become a single
    unmarked state with self-loops, appended last. Returns the new successor lists and
    ``index[old] = new`` (dead states map to the zero state). Survivors keep their order.
    """
    n = len(marked)
    preds: list[list[int]] = [[] for _ in range(n)]
    for row in succ:
        for q, t in enumerate(row):
            preds[t].append(q)
    alive = list(marked)
    stack = [q for q in range(n) if marked[q]]
    while stack:
        t = stack.pop()
        for q in preds[t]:
            if not alive[q]:
                alive[q] = True
                stack.append(q)
    kept = [q for q in range(n) if alive[q]]
    zero = len(kept)
    index = [zero] * n
    for i, q in enumerate(kept):
        index[q] = i
    new = [[index[row[q]] for q in kept] + [zero] for row in succ]
    return new, index


def backward_counts(
    succ: Sequence[Sequence[int]],
    init: Sequence[int],
    steps: int,
    base: Sequence[int] | None = None,
) -> Iterator[list[int]]:
    """Yield ``v_0 = init`` and ``v_m = base + sum_a v_{m-1}[succ[a][.]]``, m = 1..steps.

    Without ``base``, ``v_m[q]`` counts the words of length m leading from q to where
    ``init`` counts; with ``base = init`` it is the cumulative count over lengths <= m.
    """
    cur = list(init)
    yield cur
    for _ in range(steps):
        get = cur.__getitem__
        total = map(get, succ[0])
        for row in succ[1:]:
            total = map(add, total, map(get, row))
        cur = list(total) if base is None else list(map(add, base, total))
        yield cur
