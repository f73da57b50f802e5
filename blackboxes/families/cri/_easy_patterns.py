"""EASY pattern kinds: a run of ones in the masked input, and equalities over paired bits."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from itertools import product

from blackboxes.box import JSONValue
from blackboxes.families.cri._circuit import Builder, Circuit, index_of
from blackboxes.families.cri._easy_common import (
    EASY_N,
    literal,
    masks,
    one_output,
    require_flag,
)
from blackboxes.families.cri._kind import (
    Direct,
    EnumeratedKind,
    Params,
    describe_inputs,
    require_bits,
    require_indices,
    require_int,
)

__all__ = ["ConsecutiveOnesKind", "PalindromeKind", "perfect_matchings"]

RUN_LENGTHS = (2, 3, 4)
"""The run lengths k (consecutive, so validated as a range)."""


@dataclass(frozen=True)
class _Run:
    c: str
    k: int
    ring: int

    def windows(self) -> list[tuple[int, ...]]:
        """The positions of every run of k bits that counts (a line or a cycle)."""
        starts = range(EASY_N) if self.ring else range(EASY_N - self.k + 1)
        return [tuple((s + d) % EASY_N for d in range(self.k)) for s in starts]


class ConsecutiveOnesKind(EnumeratedKind):
    """1 iff ``y = x XOR c`` has ``k`` consecutive ones (on a cycle when ``ring`` is 1).

    Params: ``c`` (8 bits), ``k`` in {2, 3, 4}, ``ring`` 0/1; 1 536 settings, all distinct.
    """

    name = "consecutive_ones"
    n = EASY_N
    m = 1

    def _read(self, params: Mapping[str, JSONValue]) -> _Run:
        return _Run(
            c=require_bits(params, "c", EASY_N),
            k=require_int(params, "k", RUN_LENGTHS[0], RUN_LENGTHS[-1]),
            ring=require_flag(params, "ring"),
        )

    def all_params(self) -> Iterator[Params]:
        for c, k, ring in product(masks(EASY_N), RUN_LENGTHS, (0, 1)):
            yield {"c": c, "k": k, "ring": ring}

    def check_params(self, params: Mapping[str, JSONValue]) -> Params:
        run = self._read(params)
        return {"c": run.c, "k": run.k, "ring": run.ring}

    def direct(self, params: Params) -> Direct:
        run = self._read(params)
        c = index_of(run.c)
        windows = [sum(1 << i for i in w) for w in run.windows()]

        def f(bits: str) -> str:
            y = index_of(bits) ^ c  # bit i of y is y_i
            return "1" if any(y & w == w for w in windows) else "0"

        return f

    @property
    def gate_count(self) -> int:
        return 2 * EASY_N + 1

    def circuit(self, params: Params) -> Circuit:
        run = self._read(params)
        b = Builder(EASY_N)
        y = [literal(b, i, run.c[i] == "1") for i in range(EASY_N)]
        windows = run.windows()
        # A line has fewer windows than a cycle; repeating the last one keeps 8 AND gates.
        windows += [windows[-1]] * (EASY_N - len(windows))
        ands = [b.gate("AND", *(y[i] for i in w)) for w in windows]
        return b.circuit([b.gate("OR", *ands)])

    def describe(self, params: Params) -> str:
        run = self._read(params)
        k = run.k
        if run.ring:
            where = (
                f"y, read on a cycle (y7 is followed by y0), has {k} ones in a row: "
                f"y_i, y_((i+1) mod 8), ..., y_((i+{k - 1}) mod 8) are all 1 for some i from 0 "
                "to 7, so a run may wrap around from y7 to y0"
            )
        else:
            where = (
                f"y, read as a line (y7 and y0 are not adjacent, no wrap-around), has {k} "
                f"ones in a row: y_i, y_(i+1), ..., y_(i+{k - 1}) are all 1 for some i from 0 "
                f"to {EASY_N - k}"
            )
        return (
            describe_inputs(EASY_N)
            + f"Let y_i = x_i XOR c_i for i = 0..7, where c = {run.c} (c_i is character i of c). "
            + f"Longer runs count too: {k} ones in a row means at least {k}. "
            + one_output(where)
        )


def perfect_matchings(items: tuple[int, ...]) -> Iterator[tuple[tuple[int, int], ...]]:
    """Every perfect matching of ``items`` (ascending), pairs (small, large) in sorted order."""
    if not items:
        yield ()
        return
    first, rest = items[0], items[1:]
    for i, other in enumerate(rest):
        for tail in perfect_matchings(rest[:i] + rest[i + 1 :]):
            yield ((first, other), *tail)


@dataclass(frozen=True)
class _Pairs:
    pairs: tuple[tuple[int, int], ...]
    c: str


class PalindromeKind(EnumeratedKind):
    """1 iff ``x_a XOR x_b == c_p`` for each pair ``p = (a, b)`` of a perfect matching.

    Params: ``pairs`` (a permutation of 0..7 read as 4 consecutive pairs, canonicalised to
    sorted (small, large) pairs), ``c`` (4 bits, one per pair in that order); 105 x 16 = 1 680
    settings, all distinct (the pairs are the weight-2 vectors of the solution set's span).
    """

    name = "palindrome"
    n = EASY_N
    m = 1

    def _read(self, params: Mapping[str, JSONValue]) -> _Pairs:
        flat = require_indices(params, "pairs", EASY_N, 0, EASY_N - 1)
        pairs = sorted((min(a, b), max(a, b)) for a, b in zip(flat[0::2], flat[1::2], strict=True))
        return _Pairs(tuple(pairs), require_bits(params, "c", EASY_N // 2))

    def all_params(self) -> Iterator[Params]:
        for matching in perfect_matchings(tuple(range(EASY_N))):
            flat = [i for pair in matching for i in pair]
            for c in masks(EASY_N // 2):
                yield {"pairs": list(flat), "c": c}

    def check_params(self, params: Mapping[str, JSONValue]) -> Params:
        spec = self._read(params)
        return {"pairs": [i for pair in spec.pairs for i in pair], "c": spec.c}

    def direct(self, params: Params) -> Direct:
        spec = self._read(params)
        rules = [(a, b, cp == "1") for (a, b), cp in zip(spec.pairs, spec.c, strict=True)]

        def f(bits: str) -> str:
            return "1" if all((bits[a] != bits[b]) == differ for a, b, differ in rules) else "0"

        return f

    @property
    def gate_count(self) -> int:
        return EASY_N // 2 + 1

    def circuit(self, params: Params) -> Circuit:
        spec = self._read(params)
        b = Builder(EASY_N)
        checks = [
            b.gate("XOR" if cp == "1" else "XNOR", a, bb)
            for (a, bb), cp in zip(spec.pairs, spec.c, strict=True)
        ]
        return b.circuit([b.gate("AND", *checks)])

    def describe(self, params: Params) -> str:
        spec = self._read(params)
        listed = ", ".join(f"pair {p} = (x{a}, x{b})" for p, (a, b) in enumerate(spec.pairs))
        rules = "; ".join(
            f"x{a} and x{b} {'differ' if cp == '1' else 'are equal'}"
            for (a, b), cp in zip(spec.pairs, spec.c, strict=True)
        )
        return (
            describe_inputs(EASY_N)
            + f"The 8 input bits are grouped into 4 pairs: {listed}. "
            + f"Let c = {spec.c} (c_p is character p of c). "
            + "The condition is that for every pair p = (xa, xb), xa XOR xb = c_p "
            + f"(equal bits when c_p = 0, different bits when c_p = 1), that is: {rules}. "
            + one_output("the condition holds for all 4 pairs")
        )
