"""Hard arithmetic kinds on two 5-bit numbers: a ripple-carry adder/subtractor and a
magnitude comparator, each with input inversion masks."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping

from blackboxes.box import JSONValue
from blackboxes.families.cri._circuit import Builder, Circuit
from blackboxes.families.cri._hard_parts import check_input, full_adder, masked, masks
from blackboxes.families.cri._kind import (
    EnumeratedKind,
    Params,
    describe_inputs,
    require_bits,
    require_choice,
    require_int,
)

__all__ = ["AdderKind", "ComparatorKind"]

_OPS = ("add", "sub")


def _flip(mask: str) -> str:
    return "".join("0" if c == "1" else "1" for c in mask)


def _value(bits: str, msb_first: bool = False) -> int:
    """A 5-character 0/1 string as a number; character 0 least significant unless
    ``msb_first``."""
    return int(bits if msb_first else bits[::-1], 2)


def _operands(params: Params) -> str:
    return (
        f"Let A = {params['ia']} and B = {params['ib']} (5 characters each; A_i is character "
        "i of A, B_i character i of B). XOR of two bits is 1 iff they differ. For i = 0..4 let "
        "a_i = x_i XOR A_i and b_i = x_(5+i) XOR B_i. "
    )


class AdderKind(EnumeratedKind):
    """(a + b) or (a - b) mod 64 of two masked 5-bit numbers, by ripple carry (sub adds
    the complement of b plus 1)."""

    name = "adder"
    n = 10
    m = 6

    def all_params(self) -> Iterator[Params]:
        for op in _OPS:
            for ia in masks(5):
                for ib in masks(5):
                    yield {"ia": ia, "ib": ib, "op": op}

    def check_params(self, params: Mapping[str, JSONValue]) -> Params:
        return {
            "ia": require_bits(params, "ia", 5),
            "ib": require_bits(params, "ib", 5),
            "op": str(require_choice(params, "op", _OPS)),
        }

    def direct(self, params: Params) -> Callable[[str], str]:
        p = self.check_params(params)
        ia, ib, sub = _value(str(p["ia"])), _value(str(p["ib"])), p["op"] == "sub"

        def fn(x: str) -> str:
            check_input(x, self.n)
            # Bitwise XOR of the numbers is the XOR of their bits, position by position.
            a, b = _value(x[:5]) ^ ia, _value(x[5:]) ^ ib
            r = (a - b if sub else a + b) % 64
            return format(r, "06b")[::-1]

        return fn

    def circuit(self, params: Params) -> Circuit:
        p = self.check_params(params)
        sub = p["op"] == "sub"
        b = Builder(self.n)
        a = masked(b, range(5), str(p["ia"]))
        # Subtraction adds the complement of b: fold it into b's inversion mask.
        ib = str(p["ib"])
        y = masked(b, range(5, 10), _flip(ib) if sub else ib)
        carry = b.gate("XNOR" if sub else "XOR", a[0], a[0])  # carry-in: 1 to subtract
        outputs = []
        for ai, yi in zip(a, y, strict=True):
            total, carry = full_adder(b, ai, yi, carry)
            outputs.append(total)
        # Bit 5 of a - b (mod 64) is 1 exactly when a < b, i.e. when there is no carry out.
        outputs.append(b.gate("NOT" if sub else "BUF", carry))
        return b.circuit(outputs)

    @property
    def gate_count(self) -> int:
        return 10 + 1 + 5 * 5 + 1

    def describe(self, params: Params) -> str:
        p = self.check_params(params)
        if p["op"] == "sub":
            rule = (
                "Let r = (a - b) mod 64, a value in 0..63 (a negative difference d gives "
                "d + 64; e.g. a = 3, b = 5 gives r = 62). "
            )
        else:
            rule = "Let r = (a + b) mod 64, a value in 0..62. "
        return (
            describe_inputs(self.n)
            + _operands(p)
            + "Let a = a_0 + 2*a_1 + 4*a_2 + 8*a_3 + 16*a_4 and b = b_0 + 2*b_1 + 4*b_2 + "
            "8*b_3 + 16*b_4 (numbers in 0..31). "
            + rule
            + "Output: a string of 6 characters '0'/'1'; character j is bit j of r (the "
            "coefficient of 2^j), so r is written in binary with its least significant bit "
            "first."
        )


class ComparatorKind(EnumeratedKind):
    """[a < b, a == b, a > b] for two masked 5-bit numbers, either bit order."""

    name = "comparator"
    n = 10
    m = 3

    def all_params(self) -> Iterator[Params]:
        for msb_first in (0, 1):
            for ia in masks(5):
                for ib in masks(5):
                    yield {"ia": ia, "ib": ib, "msb_first": msb_first}

    def check_params(self, params: Mapping[str, JSONValue]) -> Params:
        return {
            "ia": require_bits(params, "ia", 5),
            "ib": require_bits(params, "ib", 5),
            "msb_first": require_int(params, "msb_first", 0, 1),
        }

    def direct(self, params: Params) -> Callable[[str], str]:
        p = self.check_params(params)
        msb = p["msb_first"] == 1
        ia, ib = _value(str(p["ia"]), msb), _value(str(p["ib"]), msb)

        def fn(x: str) -> str:
            check_input(x, self.n)
            a, b = _value(x[:5], msb) ^ ia, _value(x[5:], msb) ^ ib
            return "".join("1" if c else "0" for c in (a < b, a == b, a > b))

        return fn

    def circuit(self, params: Params) -> Circuit:
        p = self.check_params(params)
        b = Builder(self.n)
        ib = str(p["ib"])
        a = masked(b, range(5), str(p["ia"]))
        y = masked(b, range(5, 10), ib)
        not_y = masked(b, range(5, 10), _flip(ib))
        order = range(5) if p["msb_first"] == 1 else range(4, -1, -1)
        eq = [b.gate("XNOR", a[i], y[i]) for i in order]
        gt = [b.gate("AND", a[i], not_y[i]) for i in order]
        # above[k]: the operands agree on the k + 1 most significant bits.
        above = [eq[0]]
        for k in range(1, 4):
            above.append(b.gate("AND", above[-1], eq[k]))
        equal = b.gate("AND", above[-1], eq[4])
        greater = b.gate("OR", gt[0], *(b.gate("AND", above[k - 1], gt[k]) for k in range(1, 5)))
        less = b.gate("NOR", equal, greater)
        return b.circuit([less, equal, greater])

    @property
    def gate_count(self) -> int:
        return 15 + 5 + 5 + 3 + 1 + 4 + 1 + 1

    def describe(self, params: Params) -> str:
        p = self.check_params(params)
        if p["msb_first"] == 1:
            order = (
                "a_0 is the most significant bit: a = 16*a_0 + 8*a_1 + 4*a_2 + 2*a_3 + a_4, "
                "and b = 16*b_0 + 8*b_1 + 4*b_2 + 2*b_3 + b_4"
            )
        else:
            order = (
                "a_0 is the least significant bit: a = a_0 + 2*a_1 + 4*a_2 + 8*a_3 + 16*a_4, "
                "and b = b_0 + 2*b_1 + 4*b_2 + 8*b_3 + 16*b_4"
            )
        return (
            describe_inputs(self.n)
            + _operands(p)
            + f"Let a and b be numbers in 0..31 where {order}. "
            + "Output: a string of 3 characters '0'/'1'; character 0 is 1 iff a < b, "
            "character 1 is 1 iff a = b, character 2 is 1 iff a > b (each is 0 otherwise)."
        )
