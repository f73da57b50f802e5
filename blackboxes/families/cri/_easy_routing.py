"""EASY routing kinds: chosen inputs copied to the outputs, a 4-way multiplexer, a decoder."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from itertools import permutations, product

from blackboxes.box import JSONValue
from blackboxes.families.cri._circuit import Builder, Circuit
from blackboxes.families.cri._easy_common import (
    EASY_N,
    literal,
    literal_name,
    masks,
    one_output,
    require_flag,
    require_outside,
    require_select,
    select_value,
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

__all__ = ["DecoderKind", "MultiplexerKind", "SelectKind"]

_INPUTS = tuple(range(EASY_N))


@dataclass(frozen=True)
class _Select:
    s: tuple[int, ...]
    c: str


class SelectKind(EnumeratedKind):
    """Output ``j`` is ``x_{s_j} XOR c_j``.

    Params: ``s`` (4 distinct inputs), ``c`` (4 bits); 1 680 x 16 = 26 880 settings, all
    distinct.
    """

    name = "select"
    n = EASY_N
    m = 4

    def _read(self, params: Mapping[str, JSONValue]) -> _Select:
        s = require_indices(params, "s", self.m, 0, EASY_N - 1)
        return _Select(tuple(s), require_bits(params, "c", self.m))

    def all_params(self) -> Iterator[Params]:
        for s, c in product(permutations(_INPUTS, self.m), masks(self.m)):
            yield {"s": list(s), "c": c}

    def check_params(self, params: Mapping[str, JSONValue]) -> Params:
        spec = self._read(params)
        return {"s": list(spec.s), "c": spec.c}

    def direct(self, params: Params) -> Direct:
        spec = self._read(params)
        routes = list(zip(spec.s, spec.c, strict=True))

        def f(bits: str) -> str:
            return "".join("1" if (bits[i] == "1") != (cj == "1") else "0" for i, cj in routes)

        return f

    @property
    def gate_count(self) -> int:
        return self.m

    def circuit(self, params: Params) -> Circuit:
        spec = self._read(params)
        b = Builder(EASY_N)
        return b.circuit([literal(b, i, cj == "1") for i, cj in zip(spec.s, spec.c, strict=True)])

    def describe(self, params: Params) -> str:
        spec = self._read(params)
        each = "; ".join(
            f"output bit {j} is {literal_name(i, cj == '1')}"
            for j, (i, cj) in enumerate(zip(spec.s, spec.c, strict=True))
        )
        return (
            describe_inputs(EASY_N)
            + f"Let s = {list(spec.s)} and c = {spec.c} (c_j is character j of c). "
            + "Output bit j (j = 0..3) is x_(s_j) XOR c_j, where NOT x means 1 - x: "
            + f"{each}. "
            + "Output: a string of 4 characters '0'/'1'; character j is output bit j."
        )


@dataclass(frozen=True)
class _Mux:
    sel: tuple[int, int]
    data: tuple[int, ...]
    inv: int


class MultiplexerKind(EnumeratedKind):
    """``x_{d_v} XOR inv`` with ``v = x_{s0} + 2 x_{s1}``.

    Params: ``sel`` (2 distinct inputs, in order), ``data`` (4 distinct inputs, not selects),
    ``inv`` 0/1. Swapping the selects and ``d1``/``d2`` gives the same function, so
    ``all_params`` lists only ascending ``sel``: 28 x 360 x 2 = 20 160 settings, all distinct
    (every one of the 40 320 valid settings equals one of them).
    """

    name = "multiplexer"
    n = EASY_N
    m = 1

    def _read(self, params: Mapping[str, JSONValue]) -> _Mux:
        sel = require_select(params)
        data = require_indices(params, "data", 4, 0, EASY_N - 1)
        for d in data:
            require_outside(d, sel, "data")
        return _Mux(sel, tuple(data), require_flag(params, "inv"))

    def all_params(self) -> Iterator[Params]:
        for s0, s1 in permutations(_INPUTS, 2):
            if s0 > s1:
                continue
            rest = [i for i in _INPUTS if i not in (s0, s1)]
            for data, inv in product(permutations(rest, 4), (0, 1)):
                yield {"sel": [s0, s1], "data": list(data), "inv": inv}

    def check_params(self, params: Mapping[str, JSONValue]) -> Params:
        spec = self._read(params)
        return {"sel": list(spec.sel), "data": list(spec.data), "inv": spec.inv}

    def direct(self, params: Params) -> Direct:
        spec = self._read(params)
        (s0, s1), data, flip = spec.sel, spec.data, spec.inv == 1

        def f(bits: str) -> str:
            v = (bits[s0] == "1") + 2 * (bits[s1] == "1")
            return "1" if (bits[data[v]] == "1") != flip else "0"

        return f

    @property
    def gate_count(self) -> int:
        return 7

    def circuit(self, params: Params) -> Circuit:
        spec = self._read(params)
        (s0, s1), data = spec.sel, spec.data
        b = Builder(EASY_N)
        n0, n1 = b.gate("NOT", s0), b.gate("NOT", s1)
        picks = [(n0, n1), (s0, n1), (n0, s1), (s0, s1)]
        terms = [b.gate("AND", a, c, d) for (a, c), d in zip(picks, data, strict=True)]
        # inv flips the last gate (OR or NOR), so the gate count does not depend on it.
        return b.circuit([b.gate("NOR" if spec.inv else "OR", *terms)])

    def describe(self, params: Params) -> str:
        spec = self._read(params)
        (s0, s1), flip = spec.sel, spec.inv == 1
        cases = "; ".join(
            f"when v = {v} it is {literal_name(d, flip)}" for v, d in enumerate(spec.data)
        )
        return (
            describe_inputs(EASY_N)
            + select_value(s0, s1)
            + f"Let d = {list(spec.data)} and inv = {spec.inv}. The value is x_(d_v) XOR inv, "
            + f"where NOT x means 1 - x: {cases}. "
            + one_output("the value is 1")
        )


@dataclass(frozen=True)
class _Decoder:
    sel: tuple[int, int]
    e: int
    p: int


class DecoderKind(EnumeratedKind):
    """With enable ``x_e == p``, output ``j`` is 1 iff ``x_{s0} + 2 x_{s1} == j``; else 0000.

    Params: ``sel`` (2 distinct inputs, in order), ``e`` (an input not a select), ``p`` 0/1;
    56 x 6 x 2 = 672 settings, all distinct.
    """

    name = "decoder"
    n = EASY_N
    m = 4

    def _read(self, params: Mapping[str, JSONValue]) -> _Decoder:
        sel = require_select(params)
        e = require_int(params, "e", 0, EASY_N - 1)
        require_outside(e, sel, "e")
        return _Decoder(sel, e, require_flag(params, "p"))

    def all_params(self) -> Iterator[Params]:
        for s0, s1 in permutations(_INPUTS, 2):
            for e, p in product(_INPUTS, (0, 1)):
                if e not in (s0, s1):
                    yield {"sel": [s0, s1], "e": e, "p": p}

    def check_params(self, params: Mapping[str, JSONValue]) -> Params:
        spec = self._read(params)
        return {"sel": list(spec.sel), "e": spec.e, "p": spec.p}

    def direct(self, params: Params) -> Direct:
        spec = self._read(params)
        (s0, s1), e, on = spec.sel, spec.e, str(spec.p)

        def f(bits: str) -> str:
            if bits[e] != on:
                return "0000"
            v = (bits[s0] == "1") + 2 * (bits[s1] == "1")
            return "".join("1" if v == j else "0" for j in range(4))

        return f

    @property
    def gate_count(self) -> int:
        return 7

    def circuit(self, params: Params) -> Circuit:
        spec = self._read(params)
        (s0, s1), b = spec.sel, Builder(EASY_N)
        enable = literal(b, spec.e, spec.p == 0)
        n0, n1 = b.gate("NOT", s0), b.gate("NOT", s1)
        picks = [(n0, n1), (s0, n1), (n0, s1), (s0, s1)]
        return b.circuit([b.gate("AND", enable, a, c) for a, c in picks])

    def describe(self, params: Params) -> str:
        spec = self._read(params)
        (s0, s1), e, p = spec.sel, spec.e, spec.p
        return (
            describe_inputs(EASY_N)
            + select_value(s0, s1)
            + f"The enable condition is x{e} = {p} (enable input e = {e}, polarity p = {p}). "
            + "If the enable condition holds, output bit j (j = 0..3) is 1 if v = j and 0 "
            + "otherwise, so exactly one output bit is 1; if it does not hold, all four output "
            + "bits are 0. "
            + "Output: a string of 4 characters '0'/'1'; character j is output bit j."
        )
