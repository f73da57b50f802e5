"""Counts of accessible and minimal DFAs (Bassino and Nicaud; notes/dfa.md section 4.1).

A *structure* is a complete transition table ``delta[q][a]`` without final states. It is
*accessible* when every state is reachable from the start, and in *canonical form* when
its states are numbered in BFS order from the start (letters in alphabet order), which
is :meth:`DFA.canonical`'s numbering. Accessible structures have no non-trivial
automorphism fixing the start, so canonical forms are the structures up to isomorphism.

Accessible counts A_k(n) are exact Python integers for every n and k. Minimal-DFA
counts M_k(n), as :func:`minimal_dfa_log2_count` gives them:

- **exact** by formula for n <= 2 (M_k(1) = 2, M_k(2) = 2 A_k(2)) and for one letter
  (lassos with a primitive cycle word, :func:`minimal_unary_dfas`);
- **exact** by enumeration: at runtime where 2^n A_k(n) <= :data:`ENUMERATION_LIMIT`
  (k=2: n <= 4, k=3: n <= 3, k=4: n = 2), and from counts enumerated once by
  ``benchmarks/dfa/minimal_fraction_table.py`` for k=2 n=5,6, k=3 n=4, k=4 n=3 and
  k=5 n=3 (checked in, ``_minimal_fraction.EXACT``; k=2 agrees with OEIS A129622);
- **exact** as published: k=2 n=7 (:data:`PUBLISHED_COUNTS`);
- **estimated** everywhere else as 2^n A_k(n) times the fraction of minimal DFAs among
  uniform accessible DFAs (uniform structure, each state final with probability 1/2:
  the law of :func:`sample_minimal_dfa` before its minimality rejection). The fraction
  is a seeded Monte Carlo tally with a two-sided Clopper-Pearson interval at
  :data:`CONFIDENCE` (99 %): ``low <= log2 M_k(n) <= high`` holds with probability at
  least 0.99 over the draws, for each (n, k) on its own (not jointly over the table).
  The tallies for k = 2..4 and n <= 200 are checked in (4000 draws per n for k=2, 2000
  for k=3,4; half-widths 0.024-0.030 bits for k=2, 0.002-0.036 bits for k=3,4, the
  widest at the smallest n); other (n, k) draw :data:`RUNTIME_SAMPLES` at first use
  (cached). Every interval computed from the draws held the exact fraction wherever
  one is known (k=2 n=2..7, k=3 n=2..4, k=4 n=2..3).

Use ``low`` where over-stating the count would be wrong (a lower bound on queries).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

from blackboxes.automata import _minimal_fraction as table
from blackboxes.automata._binomial_ci import clopper_pearson
from blackboxes.automata.dfa import DFA
from blackboxes.automata.sampling import sample_accessible_structure
from oracle_bench.rng import rng_for

__all__ = [
    "CONFIDENCE",
    "ENUMERATION_LIMIT",
    "MONTE_CARLO_SEED",
    "PUBLISHED_COUNTS",
    "RUNTIME_SAMPLES",
    "MinimalDfaCount",
    "accessible_dfas",
    "accessible_structures",
    "count_minimal_dfas",
    "enumerate_accessible_structures",
    "enumerate_minimal_dfas",
    "log2_minimal_dfas",
    "minimal_dfa_count",
    "minimal_dfa_log2_count",
    "minimal_fraction_hits",
    "minimal_unary_dfas",
]

Structure = tuple[tuple[int, ...], ...]

ENUMERATION_LIMIT = 200_000
"""Minimal DFAs are enumerated at runtime only when 2^n A_k(n) is at most this."""

CONFIDENCE = 0.99
"""Two-sided confidence of every Monte Carlo interval."""

MONTE_CARLO_SEED = 0
"""Seed of the minimal-fraction draws: ``rng_for(MONTE_CARLO_SEED, "minimal-fraction", n, k)``."""

RUNTIME_SAMPLES = 400
"""Draws for an (n, k) outside the checked-in table (k=26, n=200: about 7 s, once)."""

PUBLISHED_COUNTS: dict[tuple[int, int], int] = {(7, 2): 25_493_886_852}
"""Minimal-DFA counts beyond our enumeration, from the literature.

k=2 n=7: Almeida, Moreira and Reis, TCS 387 (2007) section 5; OEIS A129622, whose
terms for n <= 6 :func:`count_minimal_dfas` reproduces.
"""


@dataclass(frozen=True)
class MinimalDfaCount:
    """log2 of the number of minimal n-state DFAs over k letters, with its uncertainty.

    Exact counts have ``low == log2 == high`` and ``confidence`` None; estimates hold
    ``low <= true value <= high`` with probability at least ``confidence``.
    """

    log2: float
    exact: bool
    low: float
    high: float
    confidence: float | None
    method: str
    """"formula", "enumeration", "published" or "monte-carlo"."""


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


def count_minimal_dfas(n: int, k: int) -> int:
    """Minimal DFAs with n states over k letters, by enumerating accessible structures.

    Whatever the cost (about 1 s per 10^5 structures): :func:`minimal_dfa_count` is the
    cheap, cached entry point. Per structure, the final sets under which a pair of
    states is distinguishable form a bit set over final sets: the pair's own
    separating sets, or-ed with those of its successor pairs until nothing changes.
    The structure's minimal final sets are the intersection over all pairs.
    """
    _check(n, k)
    if n == 1:
        return 2
    pairs = list(_pair_index(n))
    index = _pair_index(n)
    # Complementing the final set keeps minimality: count the sets without state 0,
    # as bit m // 2 for the even masks m, and double.
    half = 1 << (n - 1)
    separating = [
        sum(1 << (m >> 1) for m in range(0, 2 * half, 2) if (m >> p ^ m >> q) & 1) for p, q in pairs
    ]
    target = [
        [-1 if a == b else index[(a, b) if a < b else (b, a)] for b in range(n)] for a in range(n)
    ]
    everything = (1 << half) - 1
    total = 0
    for delta in enumerate_accessible_structures(n, k):
        succ = []
        for p, q in pairs:
            row = [target[a][b] for a, b in zip(delta[p], delta[q], strict=True)]
            succ.append([t for t in row if t >= 0])
        dist = separating[:]
        changed = True
        while changed:
            changed = False
            for i, nexts in enumerate(succ):
                v = dist[i]
                for j in nexts:
                    v |= dist[j]
                if v != dist[i]:
                    dist[i] = v
                    changed = True
        minimal = everything
        for v in dist:
            minimal &= v
        total += minimal.bit_count()
    return 2 * total


@cache
def _primitive_words(length: int) -> int:
    """Binary words of this length that are no proper power.

    Every word is the (length/d)-th power of exactly one primitive word of length d | length.
    """
    return (1 << length) - sum(_primitive_words(d) for d in range(1, length) if length % d == 0)


def minimal_unary_dfas(n: int) -> int:
    """Minimal one-letter DFAs with n states: P(n) + sum_{t=1}^{n-1} 2^(t-1) P(n-t).

    A unary accessible DFA is a tail of t states into a cycle of n - t. It is minimal
    iff the cycle's word is primitive (P(c) such words of length c, read from the
    cycle's entry) and, when t > 0, the last tail state and the cycle state before the
    entry differ in finality (both step to the entry); the other t - 1 tail states are
    free. This is OEIS A059412 (Nicaud, MFCS 1999); the tests check it against the
    enumeration and an independent brute force.
    """
    _check(n, 1)
    return _primitive_words(n) + sum(_primitive_words(n - t) << (t - 1) for t in range(1, n))


@cache
def minimal_dfa_count(n: int, k: int) -> int | None:
    """Minimal complete DFAs with exactly n states over k letters, up to isomorphism.

    Exact, or None where it is not known: by formula for n <= 2 and for k = 1, by
    :func:`count_minimal_dfas` when 2^n A_k(n) <= :data:`ENUMERATION_LIMIT`, else from
    the checked-in enumerated counts (k=2 n=5,6; k=3 n=4; k=4,5 n=3) or
    :data:`PUBLISHED_COUNTS` (k=2 n=7).
    """
    _check(n, k)
    if n == 1:
        return 2
    if n == 2:
        return 2 * accessible_dfas(2, k)  # minimal iff exactly one state is final
    if k == 1:
        return minimal_unary_dfas(n)
    if (accessible_dfas(n, k) << n) <= ENUMERATION_LIMIT:
        return count_minimal_dfas(n, k)
    return table.EXACT.get((n, k), PUBLISHED_COUNTS.get((n, k)))


def minimal_fraction_hits(n: int, k: int, samples: int, seed: int = MONTE_CARLO_SEED) -> int:
    """How many of ``samples`` uniform accessible DFAs are minimal (seeded, deterministic).

    Each draw is a uniform accessible structure and a uniform final set, in the order
    :func:`sample_minimal_dfa` draws them, from ``rng_for(seed, "minimal-fraction", n, k)``;
    fewer samples give a prefix of the same draws.
    """
    _check(n, k)
    if k < 2:
        raise ValueError("the Boltzmann sampler needs k >= 2 letters")
    rng = rng_for(seed, "minimal-fraction", n, k)
    alphabet = tuple(chr(ord("a") + a) for a in range(k))
    hits = 0
    for _ in range(samples):
        delta = sample_accessible_structure(rng, n, k)
        accepting = [bool(rng.getrandbits(1)) for _ in range(n)]
        hits += DFA.build(alphabet, delta, accepting).is_minimal()
    return hits


def _tally(n: int, k: int) -> tuple[int, int]:
    """(hits, samples): the checked-in tally if there is one, else fresh draws."""
    first, hits = table.FIRST_N.get(k), table.HITS.get(k)
    if first is not None and hits is not None and first <= n < first + len(hits):
        return hits[n - first], table.SAMPLES[k]
    return minimal_fraction_hits(n, k, RUNTIME_SAMPLES), RUNTIME_SAMPLES


@cache
def minimal_dfa_log2_count(n: int, k: int) -> MinimalDfaCount:
    """log2 of the number of minimal n-state DFAs over k letters: exact, or an estimate
    with a :data:`CONFIDENCE` interval (the module docstring says which is which)."""
    exact = minimal_dfa_count(n, k)
    if exact is not None:
        value = math.log2(exact)
        if n <= 2 or k == 1:
            method = "formula"
        elif (n, k) in PUBLISHED_COUNTS:
            method = "published"
        else:
            method = "enumeration"
        return MinimalDfaCount(value, True, value, value, None, method)
    hits, samples = _tally(n, k)
    if hits == 0:  # pragma: no cover - the fraction is above 1/2 for every n >= 3, k >= 2
        raise ArithmeticError(f"no minimal DFA among {samples} draws at n={n}, k={k}")
    low, high = clopper_pearson(hits, samples, CONFIDENCE)
    # log2 takes the big integer directly: A_2(300) is beyond float range.
    base = n + math.log2(accessible_dfas(n, k))
    return MinimalDfaCount(
        log2=base + math.log2(hits / samples),
        exact=False,
        low=base + math.log2(low),
        high=base + math.log2(high),
        confidence=CONFIDENCE,
        method="monte-carlo",
    )


def log2_minimal_dfas(n: int, k: int) -> tuple[float, bool]:
    """(log2 of the number of minimal n-state DFAs over k letters, whether it is exact).

    The point value of :func:`minimal_dfa_log2_count`; prefer that, which also gives the
    estimate's interval.
    """
    count = minimal_dfa_log2_count(n, k)
    return count.log2, count.exact
