"""Uniform random accessible and minimal DFAs (Bassino and Nicaud's Boltzmann sampler).

Steps, for n states over k letters (notes/dfa.md section 4.2):

1. zeta_k is the positive root of (z - k) e^z + k = 0;
2. draw n block sizes i.i.d. zero-truncated Poisson(zeta_k) until they sum to kn (as
   counts per size, a multinomial: the same law, O(sqrt n) cheaper per try);
3. shuffle 1..kn and cut it into blocks of those sizes: a uniform set partition;
4. read the partition as a restricted growth string and drop the n first occurrences;
   each remaining position i gives a column (x_i = running maximum, y_i = block);
5. reject unless the diagram is k-Dyck: x_i >= ceil(i / (k - 1)) for every i;
6. append the column (n, uniform 1..n);
7. build the transitions by a depth-first walk over (state, letter) slots: a slot
   creates a new state while fewer than x states exist, else it points at state y and
   the next column is read;
8. make each state accepting with probability 1/2.

Steps 1-7 are uniform over accessible complete structures with exactly n states;
with step 8 every accessible DFA is equally likely, and rejecting non-minimal ones
gives uniform minimal DFAs. The result is returned in BFS canonical form, so each
language has exactly one representation.

From :data:`VECTOR_FROM` states on, steps 4-7, the minimality check and the canonical
renumbering run on numpy arrays (``_diagram``, ``_refine``): the same draws from ``rng`` in
the same order, the same DFA, about 5x faster at 10^4 states (10^5 states in about 0.4 s).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from functools import cache
from itertools import accumulate

import numpy as np

from blackboxes.automata._diagram import Columns, Ints, diagram_columns, structure_array
from blackboxes.automata._refine import bfs_order, class_count
from blackboxes.automata.dfa import DFA

__all__ = [
    "DEFAULT_ALPHABET",
    "VECTOR_FROM",
    "sample_accessible_structure",
    "sample_minimal_dfa",
    "structure_from_diagram",
    "zeta",
]

DEFAULT_ALPHABET = ("a", "b")

VECTOR_FROM = 64
"""From this many states on, steps 4-8 and the minimality check run in numpy (same draws,
same DFA); below it numpy's cost per call exceeds the loops it saves (bench_sampler.py)."""


@cache
def zeta(k: int) -> float:
    """The positive root of (z - k) e^z + k = 0 (Newton's method from z = k)."""
    if k < 2:
        raise ValueError("the Boltzmann sampler needs k >= 2 letters")
    z = float(k)
    for _ in range(100):
        f = (z - k) * math.exp(z) + k
        step = f / (math.exp(z) * (z - k + 1))
        z -= step
        if abs(step) < 1e-15:
            break
    return z


@cache
def _size_table(k: int) -> tuple[list[int], list[float]]:
    """Support and cumulative weights of the zero-truncated Poisson(zeta_k) law.

    The support stops where the tail is below 2**-64, under the resolution of the
    uniform floats that drive the draw.
    """
    z = zeta(k)
    weights = []
    j, w = 1, z
    while True:
        weights.append(w)
        j += 1
        w = w * z / j
        if w < 2.0**-64 and j > 2 * k:
            break
    return list(range(1, len(weights) + 1)), list(accumulate(weights))


def _binomial(rng: random.Random, n: int, p: float) -> int:
    """Binomial(n, p) by inversion over outcomes ordered outwards from the mode.

    Any fixed order of the outcomes gives the exact law; starting at the mode makes the
    expected number of steps O(sqrt(npq)).
    """
    if n <= 0 or p <= 0.0:
        return 0
    if p >= 1.0:
        return n
    q = 1.0 - p
    mode = min(n, int((n + 1) * p))
    f_mode = math.exp(
        math.lgamma(n + 1)
        - math.lgamma(mode + 1)
        - math.lgamma(n - mode + 1)
        + mode * math.log(p)
        + (n - mode) * math.log(q)
    )
    u = rng.random() - f_mode
    if u <= 0.0:
        return mode
    lo = hi = mode
    f_lo = f_hi = f_mode
    while lo > 0 or hi < n:
        if lo > 0:
            f_lo *= lo * q / ((n - lo + 1) * p)
            lo -= 1
            u -= f_lo
            if u <= 0.0:
                return lo
        if hi < n:
            f_hi *= (n - hi) * p / ((hi + 1) * q)
            hi += 1
            u -= f_hi
            if u <= 0.0:
                return hi
    return mode  # float round-off left u a hair above 0


def _block_sizes(rng: random.Random, n: int, k: int) -> list[int]:
    """n i.i.d. zero-truncated Poisson sizes conditioned on summing to kn, as a multiset.

    Drawing how many blocks have each size (a multinomial, as a chain of conditional
    binomials) costs O(support) per try instead of O(n); the shuffle-and-cut that
    follows makes the partition uniform given the multiset, so the order is irrelevant.
    """
    _, cum = _size_table(k)
    total_mass = cum[-1]
    probs = [(cum[i] - (cum[i - 1] if i else 0.0)) / total_mass for i in range(len(cum))]
    target = k * n
    while True:
        left, mass, total = n, 1.0, 0
        counts: list[int] = []
        for j, p in enumerate(probs, start=1):
            # The largest size takes whatever is left (its conditional probability is 1).
            c = left if j == len(probs) else _binomial(rng, left, min(1.0, p / mass))
            counts.append(c)
            left -= c
            mass -= p
            total += c * j
            if total > target:
                break
        if left == 0 and total == target:
            return [j for j, c in enumerate(counts, start=1) for _ in range(c)]


def _diagram(rng: random.Random, n: int, k: int) -> list[tuple[int, int]]:
    """Columns (x, y) of a uniform k-Dyck diagram, without the last column."""
    while True:
        sizes = _block_sizes(rng, n, k)
        elements = list(range(k * n))
        rng.shuffle(elements)
        block_of = [0] * (k * n)
        pos = 0
        for b, size in enumerate(sizes):
            for e in elements[pos : pos + size]:
                block_of[e] = b
            pos += size
        # Restricted growth string: number the blocks by first appearance.
        number: dict[int, int] = {}
        columns: list[tuple[int, int]] = []
        running_max = 0
        for e in range(k * n):
            b = block_of[e]
            r = number.get(b)
            if r is None:
                running_max = r = number[b] = len(number) + 1
            else:
                columns.append((running_max, r))
        if all(x >= -(-i // (k - 1)) for i, (x, _) in enumerate(columns, start=1)):
            return columns


def _diagram_array(rng: random.Random, n: int, k: int) -> Columns:
    """:func:`_diagram` in numpy: the same draws, the same columns."""
    while True:
        sizes = _block_sizes(rng, n, k)
        elements = list(range(k * n))
        rng.shuffle(elements)
        columns = diagram_columns(sizes, elements, n, k)
        if columns is not None:
            return columns


def structure_from_diagram(columns: Sequence[tuple[int, int]], n: int, k: int) -> list[list[int]]:
    """The transition table a complete diagram (k-Dyck columns plus the last one) encodes.

    States are numbered in creation order, the start is 0. A bijection between
    (diagram, last column) pairs and accessible structures (tested exhaustively).
    """
    if len(columns) != (k - 1) * n + 1:
        raise ValueError(f"expected {(k - 1) * n + 1} columns, got {len(columns)}")
    delta = [[-1] * k]
    stack = [(0, a) for a in reversed(range(k))]
    col = 0
    while stack:
        p, a = stack.pop()
        x, y = columns[col]
        if not 1 <= y <= x <= n:
            raise ValueError(f"column {col + 1} = {(x, y)} is not 1 <= y <= x <= n")
        if len(delta) < x:
            q = len(delta)
            delta.append([-1] * k)
            delta[p][a] = q
            stack.extend((q, b) for b in reversed(range(k)))
        else:
            delta[p][a] = y - 1
            col += 1
    if len(delta) != n or col != len(columns):
        raise ValueError("the columns do not form a valid diagram")
    return delta


def _structure_array(rng: random.Random, n: int, k: int) -> Ints:
    """:func:`sample_accessible_structure` in numpy, as an n x k array (n >= 2)."""
    x, y = _diagram_array(rng, n, k)
    last = rng.randrange(n) + 1
    return structure_array(np.append(x, n), np.append(y, last), n, k)


def sample_accessible_structure(rng: random.Random, n: int, k: int) -> list[list[int]]:
    """A uniformly random accessible complete transition structure with n states."""
    if n < 1:
        raise ValueError("n must be >= 1")
    if n == 1:
        return [[0] * k]
    if n >= VECTOR_FROM:
        return _structure_array(rng, n, k).tolist()
    columns = _diagram(rng, n, k)
    columns.append((n, rng.randrange(n) + 1))
    return structure_from_diagram(columns, n, k)


def sample_minimal_dfa(
    rng: random.Random, n: int, alphabet: Sequence[str] = DEFAULT_ALPHABET
) -> DFA:
    """A uniformly random minimal DFA with exactly ``n`` states, in canonical form."""
    k = len(alphabet)
    if n >= VECTOR_FROM:
        return _sample_minimal_array(rng, n, tuple(alphabet))
    while True:
        delta = sample_accessible_structure(rng, n, k)
        accepting = [bool(rng.getrandbits(1)) for _ in range(n)]
        dfa = DFA.build(alphabet, delta, accepting)
        if dfa.is_minimal():
            return dfa.canonical()


def _sample_minimal_array(rng: random.Random, n: int, alphabet: tuple[str, ...]) -> DFA:
    """:func:`sample_minimal_dfa` in numpy: the same draws, the same DFA."""
    DFA.universal(alphabet)  # refuses a bad alphabet before any draw, as DFA.build would
    k = len(alphabet)
    while True:
        delta = _structure_array(rng, n, k) if n > 1 else np.zeros((1, k), dtype=np.int64)
        accepting = np.array([bool(rng.getrandbits(1)) for _ in range(n)], dtype=np.bool_)
        # Every state is reachable by construction, so minimal = n Nerode classes.
        if class_count(delta, accepting) == n:
            order = bfs_order(delta, 0)
            rename = np.empty(n, dtype=np.int64)
            rename[order] = np.arange(n, dtype=np.int64)
            return DFA(
                alphabet,
                tuple(map(tuple, rename[delta[order]].tolist())),
                tuple(accepting[order].tolist()),
                0,
            )
