"""EASY threshold kind: at least t of the chosen literals are 1 (a pruned sorting network)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from itertools import groupby, product

from blackboxes.box import JSONValue
from blackboxes.families.cri._circuit import Builder, Circuit
from blackboxes.families.cri._easy_common import EASY_N, literal, literal_name, one_output
from blackboxes.families.cri._kind import (
    Direct,
    EnumeratedKind,
    Mode,
    Params,
    describe_inputs,
    require_int,
)
from oracle_bench.errors import FamilyError

__all__ = ["LITERAL_MARKS", "MAX_THRESHOLD", "SORTING_NETWORK", "ThresholdKind"]

LITERAL_MARKS = "-+~"
"""Per input: ``-`` ignored, ``+`` used as is, ``~`` used inverted."""
MAX_THRESHOLD = 4

SORTING_NETWORK: tuple[tuple[int, int], ...] = (
    (0, 2), (1, 3), (4, 6), (5, 7), (0, 4), (1, 5), (2, 6), (3, 7), (0, 1), (2, 3),
    (4, 5), (6, 7), (2, 4), (3, 5), (1, 4), (3, 6), (1, 2), (3, 4), (5, 6),
)  # fmt: skip
"""A 19-comparator network sorting 8 bits; comparator (i, j) puts the max at i."""


_Step = tuple[int, int, bool, bool]


def _plan(network: tuple[tuple[int, int], ...], keep: int) -> tuple[_Step, ...]:
    """Per comparator (i, j, emit OR, emit AND): only the gates that feed positions < keep."""
    live = set(range(keep))
    plan: list[_Step] = []
    for i, j in reversed(network):
        emit_or, emit_and = i in live, j in live
        if emit_or or emit_and:
            live |= {i, j}
        plan.append((i, j, emit_or, emit_and))
    return tuple(reversed(plan))


_PLAN = _plan(SORTING_NETWORK, MAX_THRESHOLD)


@dataclass(frozen=True)
class _Threshold:
    lits: str
    t: int

    @property
    def used(self) -> list[int]:
        return [i for i, mark in enumerate(self.lits) if mark != "-"]


class ThresholdKind(EnumeratedKind):
    """1 iff at least ``t`` of the used literals (``lits``: ``-``/``+``/``~`` per input) are 1.

    Params: ``lits`` (8 marks, at least one used), ``t`` in 1..min(4, used); every setting is
    a distinct function (the used inputs are its relevant ones, the marks its monotonicity
    directions, t its number of ones): sum over u of C(8, u) 2^u min(4, u) = 25 520.
    """

    name = "threshold"
    n = EASY_N
    m = 1

    def _read(self, params: Mapping[str, JSONValue]) -> _Threshold:
        lits = params.get("lits")
        if not isinstance(lits, str) or len(lits) != EASY_N or set(lits) - set(LITERAL_MARKS):
            raise FamilyError(
                f"CRI parameter 'lits' must be {EASY_N} characters from {LITERAL_MARKS!r}, "
                f"got {lits!r}"
            )
        used = EASY_N - lits.count("-")
        if used == 0:
            raise FamilyError("CRI parameter 'lits' must use at least one input")
        return _Threshold(lits, require_int(params, "t", 1, min(MAX_THRESHOLD, used)))

    def all_params(self) -> Iterator[Params]:
        for marks in product(LITERAL_MARKS, repeat=EASY_N):
            used = EASY_N - marks.count("-")
            for t in range(1, min(MAX_THRESHOLD, used) + 1):
                yield {"lits": "".join(marks), "t": t}

    def check_params(self, params: Mapping[str, JSONValue]) -> Params:
        spec = self._read(params)
        return {"lits": spec.lits, "t": spec.t}

    def direct(self, params: Params) -> Direct:
        spec = self._read(params)
        wanted = [(i, "1" if spec.lits[i] == "+" else "0") for i in spec.used]
        t = spec.t

        def f(bits: str) -> str:
            return "1" if sum(bits[i] == want for i, want in wanted) >= t else "0"

        return f

    @property
    def gate_count(self) -> int:
        return EASY_N + sum(emit_or + emit_and for _, _, emit_or, emit_and in _PLAN) + 1

    def _network(self, lits: str) -> tuple[Builder, list[int]]:
        """The literal layer and the sorting network; the wires of sorted positions 0..3."""
        b = Builder(EASY_N)
        # An ignored input becomes a constant 0 (XOR with itself), which adds nothing to the
        # count while every input still costs exactly one gate.
        wires = [
            b.gate("XOR", i, i) if mark == "-" else literal(b, i, mark == "~")
            for i, mark in enumerate(lits)
        ]
        for i, j, emit_or, emit_and in _PLAN:
            hi = b.gate("OR", wires[i], wires[j]) if emit_or else -1
            lo = b.gate("AND", wires[i], wires[j]) if emit_and else -1
            wires[i], wires[j] = hi, lo
        return b, wires[:MAX_THRESHOLD]

    def circuit(self, params: Params) -> Circuit:
        spec = self._read(params)
        b, top = self._network(spec.lits)
        # Sorted with the ones first, position t - 1 is 1 iff at least t literals are 1. The
        # copy makes t visible among the gates too.
        return b.circuit([b.gate("BUF", top[spec.t - 1])])

    def _distinct(self, mode: Mode) -> tuple[tuple[Params, ...], tuple[tuple[int, ...], ...]]:
        # Same result as the generic pass over ``circuit(p).tables(mode)``, but t only picks
        # the wire the last gate copies, so one table pass per lits serves every t (4x fewer
        # passes: the generic one takes seconds per mode).
        seen: dict[tuple[int, ...], Params] = {}
        for lits, group in groupby(self.all_params(), key=lambda p: p["lits"]):
            b, top = self._network(str(lits))
            wires = b.circuit(top).wire_tables()
            for params in group:
                out = wires[top[int(params["t"]) - 1]]
                key = (out,) if mode == "outputs" else (*wires[EASY_N:], out)
                seen.setdefault(key, params)
        return tuple(seen.values()), tuple(seen)

    def describe(self, params: Params) -> str:
        spec = self._read(params)
        names = ", ".join(literal_name(i, spec.lits[i] == "~") for i in spec.used)
        count = len(spec.used)
        noun = "literal" if count == 1 else "literals"
        return (
            describe_inputs(EASY_N)
            + f"Let lits = {spec.lits}; character i of lits says how input xi is used: '+' "
            + "means the literal xi, '~' means the literal NOT xi (that is, 1 - xi), and '-' "
            + f"means xi is ignored. The used {noun} ({count}): {names}. "
            + one_output(f"at least t = {spec.t} of these {count} {noun} are equal to 1")
        )
