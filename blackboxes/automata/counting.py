"""Exact counts of accessible and minimal DFAs (Bassino and Nicaud; notes/dfa.md section 4.1).

A *structure* is a complete transition table ``delta[q][a]`` without final states. It is
*accessible* when every state is reachable from the start, and in *canonical form* when
its states are numbered in BFS order from the start (letters in alphabet order), which
is :meth:`DFA.canonical`'s numbering. Accessible structures have no non-trivial
automorphism fixing the start, so canonical forms are the structures up to isomorphism.

Counts are exact Python integers. Minimal-DFA counts come from exhaustive enumeration
and exist only where that is cheap; :func:`log2_minimal_dfas` estimates the rest.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from functools import cache

__all__ = [
    "ENUMERATION_LIMIT",
    "MINIMAL_FRACTION_K2",
    "accessible_dfas",
    "accessible_structures",
    "enumerate_accessible_structures",
    "enumerate_minimal_dfas",
    "log2_minimal_dfas",
    "minimal_dfa_count",
]

Structure = tuple[tuple[int, ...], ...]

ENUMERATION_LIMIT = 200_000
"""Minimal DFAs are counted by enumeration only when 2^n A_k(n) is at most this."""

MINIMAL_FRACTION_K2 = 0.85
"""Limit fraction of minimal DFAs among accessible DFAs over two letters (an estimate).

Sampled in notes/dfa.md section 4.1 (0.850 +- 0.009 at n = 100, 0.859 +- 0.015 at
n = 300); Bassino, David and Sportiello (STACS 2012) prove the non-minimal fraction
tends to a positive constant for k = 2 and vanishes like n^(2-k) for k >= 3.
"""


def _check(n: int, k: int) -> None:
    if n < 1 or k < 1:
        raise ValueError(f"need n >= 1 states and k >= 1 letters, got n={n}, k={k}")


@cache
def _structures_table(k: int) -> list[int]:
    """T_k(0..m) for the largest m computed so far; index 0 is a placeholder.

    One growing list per k, so T_k(300) costs one pass, not a recursion 300 deep.
    """
    return [0, 1]


def accessible_structures(n: int, k: int) -> int:
    """T_k(n): accessible complete structures on the labelled states 1..n, start 1.

    Liskovets' recurrence: of the n^(kn) structures, those whose accessible part has
    j < n states are counted by choosing that part's other j-1 states, an accessible
    structure on it, and any transitions for the n-j states outside it.
    """
    _check(n, k)
    table = _structures_table(k)
    for m in range(len(table), n + 1):
        # Horner in b = m^k keeps every product big-by-small (O(n^2) cheap steps in all).
        b = m**k
        acc, binom = 0, 1
        for j in range(1, m):
            acc = acc * b + binom * table[j]
            binom = binom * (m - j) // j  # C(m-1, j-1) -> C(m-1, j)
        table.append(b**m - acc * b)
    return table[n]


def accessible_dfas(n: int, k: int) -> int:
    """A_k(n) = T_k(n) / (n-1)!: accessible structures with n states up to isomorphism."""
    count, rest = divmod(accessible_structures(n, k), math.factorial(n - 1))
    if rest:  # pragma: no cover - would mean the recurrence is wrong
        raise ArithmeticError(f"T_{k}({n}) is not divisible by ({n}-1)!")
    return count


def enumerate_accessible_structures(n: int, k: int) -> Iterator[Structure]:
    """Every accessible structure with n states over k letters in canonical form, once.

    Slots (q, a) are filled in BFS order; a slot points at an existing state or creates
    the next one. Creating states in slot order is exactly what makes the numbering the
    BFS one, and a state must exist before its own slots are read (else it would be
    unreachable), so each canonical structure arises from exactly one choice sequence.
    """
    _check(n, k)
    slots = k * n
    flat = [0] * slots

    def fill(slot: int, created: int) -> Iterator[Structure]:
        if slot == slots:
            if created == n:
                yield tuple(tuple(flat[q * k : (q + 1) * k]) for q in range(n))
            return
        if slot // k >= created:
            return  # the state owning this slot was never reached
        # Every missing state needs one of the remaining slots to create it.
        if n - created > slots - slot:
            return
        for t in range(created):
            flat[slot] = t
            yield from fill(slot + 1, created)
        if created < n:
            flat[slot] = created
            yield from fill(slot + 1, created + 1)

    yield from fill(0, 1)


@cache
def _pair_index(n: int) -> dict[tuple[int, int], int]:
    return {(p, q): i for i, (p, q) in enumerate((p, q) for p in range(n) for q in range(p + 1, n))}


@cache
def _separated(n: int) -> tuple[int, ...]:
    """For each final-state mask, the bit set of state pairs with different finality."""
    index = _pair_index(n)
    out = []
    for mask in range(1 << n):
        bits = 0
        for (p, q), i in index.items():
            if (mask >> p ^ mask >> q) & 1:
                bits |= 1 << i
        out.append(bits)
    return tuple(out)


def _reachable_pairs(delta: Structure, n: int) -> list[int]:
    """For each pair {p, q}, the bit set of pairs reachable from it in the pair graph.

    p and q are equivalent under final set F iff no reachable pair is separated by F.
    """
    index = _pair_index(n)
    succ: list[list[int]] = [[] for _ in index]
    for (p, q), i in index.items():
        for tp, tq in zip(delta[p], delta[q], strict=True):
            if tp != tq:
                succ[i].append(index[(tp, tq) if tp < tq else (tq, tp)])
    out = []
    for i in range(len(index)):
        seen = 1 << i
        stack = [i]
        while stack:
            for j in succ[stack.pop()]:
                if not seen >> j & 1:
                    seen |= 1 << j
                    stack.append(j)
        out.append(seen)
    return out


def enumerate_minimal_dfas(n: int, k: int) -> Iterator[tuple[Structure, tuple[bool, ...]]]:
    """Every minimal complete DFA with n states over k letters, canonical, once.

    Yields ``(delta, accepting)`` with ``delta`` in canonical form; a DFA in canonical
    form is minimal iff every pair of states is distinguished by some word.
    """
    separated = _separated(n)
    for delta in enumerate_accessible_structures(n, k):
        reach = _reachable_pairs(delta, n)
        for mask in range(1 << n):
            sep = separated[mask]
            if all(r & sep for r in reach):
                yield delta, tuple(bool(mask >> q & 1) for q in range(n))


@cache
def minimal_dfa_count(n: int, k: int) -> int | None:
    """Minimal complete DFAs with exactly n states over k letters, up to isomorphism.

    Computed by enumeration (:func:`enumerate_minimal_dfas`) when 2^n A_k(n) is at most
    :data:`ENUMERATION_LIMIT` (k=2: n <= 4; k=3: n <= 3); None above.
    """
    _check(n, k)
    if (accessible_dfas(n, k) << n) > ENUMERATION_LIMIT:
        return None
    return sum(1 for _ in enumerate_minimal_dfas(n, k))


def log2_minimal_dfas(n: int, k: int) -> tuple[float, bool]:
    """(log2 of the number of minimal n-state DFAs over k letters, whether it is exact).

    Exact where :func:`minimal_dfa_count` is. Above, an *estimate*:
    log2(2^n A_k(n)) + log2(p_k), with p_2 = :data:`MINIMAL_FRACTION_K2` and p_k = 1
    for k >= 3 (the non-minimal fraction vanishes like n^(2-k)). There is no estimate
    for one letter (ValueError).
    """
    exact = minimal_dfa_count(n, k)
    if exact is not None:
        return math.log2(exact), True
    if k < 2:
        raise ValueError("no estimate of minimal unary DFA counts beyond enumeration")
    fraction = MINIMAL_FRACTION_K2 if k == 2 else 1.0
    return n + math.log2(accessible_dfas(n, k)) + math.log2(fraction), False
