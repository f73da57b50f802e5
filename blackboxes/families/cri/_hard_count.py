"""Hard counting kinds: the number of ones of x XOR c (an adder tree) and the threshold
"at least t ones" on top of it."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping

from blackboxes.box import JSONValue
from blackboxes.families.cri._circuit import Builder, Circuit
from blackboxes.families.cri._hard_parts import (
    check_input,
    full_adder,
    half_adder,
    masked,
    masks,
)
from blackboxes.families.cri._kind import (
    EnumeratedKind,
    Params,
    describe_inputs,
    require_bits,
    require_int,
)

__all__ = ["AtLeastKind", "PopcountKind"]

_N = 10
_T_LO, _T_HI = 3, 7
_COUNT_GATES = _N + 6 * 5 + 2 * 2


def _ones(x: str, c: str) -> int:
    return sum(1 for a, k in zip(x, c, strict=True) if a != k)


def _count(b: Builder, c: str) -> list[int]:
    """The ones of x XOR c as 4 wires, least significant first (_COUNT_GATES gates)."""
    y = masked(b, range(_N), c)
    s1, c1 = full_adder(b, y[0], y[1], y[2])
    s2, c2 = full_adder(b, y[3], y[4], y[5])
    s3, c3 = full_adder(b, y[6], y[7], y[8])
    s4, c4 = full_adder(b, s1, s2, s3)
    bit0, c5 = half_adder(b, s4, y[9])
    # c1..c5 have weight 2; their sum is at most 5, so two full adders and a half adder.
    t1, d1 = full_adder(b, c1, c2, c3)
    bit1, d2 = full_adder(b, t1, c4, c5)
    bit2, bit3 = half_adder(b, d1, d2)
    return [bit0, bit1, bit2, bit3]


def _spec(c: str) -> str:
    return (
        describe_inputs(_N)
        + f"Let c = {c} (10 characters; c_i is character i). For i = 0..9 let y_i = x_i XOR "
        "c_i (1 iff x_i and c_i differ), and let k be the number of i with y_i = 1 (so k is "
        "in 0..10). "
    )


class PopcountKind(EnumeratedKind):
    """The number of ones of x XOR c, 4 bits little-endian."""

    name = "popcount"
    n = _N
    m = 4

    def all_params(self) -> Iterator[Params]:
        for c in masks(_N):
            yield {"c": c}

    def check_params(self, params: Mapping[str, JSONValue]) -> Params:
        return {"c": require_bits(params, "c", _N)}

    def direct(self, params: Params) -> Callable[[str], str]:
        c = str(self.check_params(params)["c"])

        def fn(x: str) -> str:
            return format(_ones(check_input(x, _N), c), "04b")[::-1]

        return fn

    def circuit(self, params: Params) -> Circuit:
        b = Builder(_N)
        return b.circuit(_count(b, str(self.check_params(params)["c"])))

    @property
    def gate_count(self) -> int:
        return _COUNT_GATES

    def describe(self, params: Params) -> str:
        return _spec(str(self.check_params(params)["c"])) + (
            "Output: a string of 4 characters '0'/'1'; character j is bit j of k (the "
            "coefficient of 2^j), so k is written in binary with its least significant bit "
            "first (e.g. k = 6 gives 0110)."
        )


class AtLeastKind(EnumeratedKind):
    """1 iff x XOR c has at least t ones (3 <= t <= 7)."""

    name = "at_least"
    n = _N
    m = 1

    def all_params(self) -> Iterator[Params]:
        for t in range(_T_LO, _T_HI + 1):
            for c in masks(_N):
                yield {"c": c, "t": t}

    def check_params(self, params: Mapping[str, JSONValue]) -> Params:
        return {"c": require_bits(params, "c", _N), "t": require_int(params, "t", _T_LO, _T_HI)}

    def direct(self, params: Params) -> Callable[[str], str]:
        p = self.check_params(params)
        c, t = str(p["c"]), int(p["t"])

        def fn(x: str) -> str:
            return "1" if _ones(check_input(x, _N), c) >= t else "0"

        return fn

    def circuit(self, params: Params) -> Circuit:
        p = self.check_params(params)
        t = int(p["t"])
        b = Builder(_N)
        bits = _count(b, str(p["c"]))
        # k >= t on the low three bits, from the least significant up: where t has a 1 the
        # bit must be 1 and the lower bits >= t's; where t has a 0 either suffices.
        ge = b.gate("BUF", bits[0]) if t & 1 else b.gate("XNOR", bits[0], bits[0])
        for j in (1, 2):
            ge = b.gate("AND" if t >> j & 1 else "OR", bits[j], ge)
        # k >= 8 exceeds every threshold.
        return b.circuit([b.gate("OR", bits[3], ge)])

    @property
    def gate_count(self) -> int:
        return _COUNT_GATES + 4

    def describe(self, params: Params) -> str:
        p = self.check_params(params)
        t = p["t"]
        return _spec(str(p["c"])) + (
            f"The output is 1 if k >= {t} ({t} or more of the y_i are 1) and 0 otherwise. "
            "Output: a string of 1 character '0'/'1'; character 0 is that value."
        )
