"""Kinds whose space is too large to list: affine maps, minterm DNFs (exact, factorised) and
random DAGs (an estimate: their space is the agnostic one, a superset)."""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from functools import cached_property

from blackboxes.box import JSONValue
from blackboxes.families._base import HypothesisSpace
from blackboxes.families.cri._circuit import (
    Builder,
    Circuit,
    Op,
    bits_of,
    index_of,
    input_tables,
)
from blackboxes.families.cri._kind import (
    CircuitKind,
    Direct,
    Mode,
    Params,
    describe_inputs,
    require_bits,
    require_int,
)
from blackboxes.families.cri._spaces import AffineSpace, AgnosticSpace, MintermSpace
from blackboxes.information import VersionSpace
from oracle_bench.errors import FamilyError

__all__ = ["AffineKind", "DagKind", "MintermKind"]


def _random_bits(rng: random.Random, n: int) -> str:
    return "".join(rng.choice("01") for _ in range(n))


class AffineKind(CircuitKind):
    """y_j = parity(x AND a_j) XOR b_j: every affine map GF(2)^n -> GF(2)^m, uniform."""

    modes: tuple[Mode, ...] = ("outputs",)

    def __init__(self, name: str, n: int, m: int) -> None:
        self.name = name
        self.n = n
        self.m = m

    def sample_params(self, rng: random.Random, mode: Mode = "outputs") -> Params:
        return {
            "rows": [_random_bits(rng, self.n) for _ in range(self.m)],
            "flip": _random_bits(rng, self.m),
        }

    def check_params(self, params: Mapping[str, JSONValue]) -> Params:
        rows = params.get("rows")
        if not isinstance(rows, list) or len(rows) != self.m:
            raise FamilyError(f"CRI parameter 'rows' must be a list of {self.m} bit strings")
        checked = [require_bits({"row": r}, "row", self.n) for r in rows]
        return {"rows": checked, "flip": require_bits(params, "flip", self.m)}

    def direct(self, params: Params) -> Direct:
        rows = [str(r) for r in params["rows"]]
        flip = str(params["flip"])

        def fn(x: str) -> str:
            out = []
            for row, f in zip(rows, flip, strict=True):
                ones = sum(1 for a, b in zip(row, x, strict=True) if a == "1" and b == "1")
                out.append(str((ones + int(f)) % 2))
            return "".join(out)

        return fn

    def circuit(self, params: Params) -> Circuit:
        b = Builder(self.n)
        outputs = []
        for row, f in zip(params["rows"], str(params["flip"]), strict=True):
            # Masked inputs: AND(x, x) keeps a bit, XOR(x, x) zeroes it (fixed gate count).
            terms = [b.gate("AND" if c == "1" else "XOR", i, i) for i, c in enumerate(str(row))]
            acc = terms[0]
            for t in terms[1:]:
                acc = b.gate("XOR", acc, t)
            outputs.append(b.gate("NOT" if f == "1" else "BUF", acc))
        return b.circuit(outputs)

    @property
    def gate_count(self) -> int:
        return self.m * (2 * self.n)

    def describe(self, params: Params) -> str:
        rows = [str(r) for r in params["rows"]]
        flip = str(params["flip"])
        parts = []
        for j, (row, f) in enumerate(zip(rows, flip, strict=True)):
            used = [f"x{i}" for i, c in enumerate(row) if c == "1"]
            terms = " XOR ".join(used) if used else "0"
            parts.append(f"output {j} = {terms}" + (" XOR 1" if f == "1" else ""))
        return (
            describe_inputs(self.n)
            + "XOR is addition modulo 2 (1 when an odd number of its terms are 1). "
            + "; ".join(parts)
            + f". Output: a string of {self.m} characters '0'/'1'; character j is output j."
        )

    def log2_h(self, mode: Mode) -> float:
        return float(self.m * (self.n + 1))

    def space(self, mode: Mode) -> VersionSpace:
        return AffineSpace(self.n, self.m)


class MintermKind(CircuitKind):
    """One output, 1 on exactly k inputs (a DNF of k distinct full minterms), uniform."""

    m = 1
    modes: tuple[Mode, ...] = ("outputs",)

    def __init__(self, name: str, n: int, k: int) -> None:
        self.name = name
        self.n = n
        self.k = k

    def sample_params(self, rng: random.Random, mode: Mode = "outputs") -> Params:
        picked = sorted(rng.sample(range(1 << self.n), self.k))
        return {"minterms": [bits_of(i, self.n) for i in picked]}

    def check_params(self, params: Mapping[str, JSONValue]) -> Params:
        terms = params.get("minterms")
        if not isinstance(terms, list) or len(terms) != self.k:
            raise FamilyError(f"CRI parameter 'minterms' must be {self.k} bit strings")
        checked = [require_bits({"t": t}, "t", self.n) for t in terms]
        if len(set(checked)) != self.k:
            raise FamilyError("CRI parameter 'minterms' must be distinct")
        return {"minterms": sorted(checked, key=index_of)}

    def direct(self, params: Params) -> Direct:
        terms = frozenset(str(t) for t in params["minterms"])
        return lambda x: "1" if x in terms else "0"

    def circuit(self, params: Params) -> Circuit:
        b = Builder(self.n)
        lits = [(b.gate("BUF", i), b.gate("NOT", i)) for i in range(self.n)]
        ands = [
            b.gate("AND", *(lits[i][0] if c == "1" else lits[i][1] for i, c in enumerate(str(t))))
            for t in params["minterms"]
        ]
        return b.circuit([b.gate("OR", *ands)])

    @property
    def gate_count(self) -> int:
        return 2 * self.n + self.k + 1

    def describe(self, params: Params) -> str:
        terms = ", ".join(str(t) for t in params["minterms"])
        return (
            describe_inputs(self.n)
            + f"The output is 1 exactly when the input string is one of these {self.k} "
            f"strings: {terms}; otherwise it is 0. Output: a string of 1 character '0'/'1'."
        )

    def log2_h(self, mode: Mode) -> float:
        return math.log2(math.comb(1 << self.n, self.k))

    def space(self, mode: Mode) -> VersionSpace:
        return MintermSpace(self.n, self.k)


_DAG_OPS: tuple[Op, ...] = ("AND", "OR", "XOR", "NAND", "NOR")
_ESTIMATE_SAMPLE = 1000


class DagKind(CircuitKind):
    """A random DAG of two-input gates; the last ``m`` gates are the outputs.

    Its functions cannot be listed, so log2|H| is an estimate: between the log2 of the
    distinct functions in a fixed sample of the generator (a lower bound) and the log2 of
    its parameter count or of all functions (an upper bound). The version space is the
    agnostic one (every function of n bits), a superset: its counts are upper bounds.
    A draw is kept only when every output depends on at least half of the inputs and no
    output is constant, so a box is never a near-constant.
    """

    exact = False

    def __init__(self, name: str, n: int, m: int, gates: int) -> None:
        self.name = name
        self.n = n
        self.m = m
        self.gates = gates

    def _draw(self, rng: random.Random) -> list[list[int]]:
        # The first layer pairs up the inputs (so every input is read), later gates read an
        # earlier gate and any earlier wire: far fewer draws are rejected than with pairs
        # drawn uniformly.
        order = rng.sample(range(self.n), self.n)
        gates = []
        for i in range(self.gates):
            if 2 * i + 1 < self.n:
                a, b = order[2 * i], order[2 * i + 1]
            else:
                a = self.n + rng.randrange(i)
                b = rng.choice([w for w in range(self.n + i) if w != a])
            gates.append([rng.randrange(len(_DAG_OPS)), min(a, b), max(a, b)])
        return gates

    def _usable(self, gates: list[list[int]]) -> bool:
        tables = self.circuit({"gates": gates}).tables()
        full = (1 << (1 << self.n)) - 1
        for table in tables:
            if table in (0, full):
                return False
            if sum(self._depends(table, i) for i in range(self.n)) * 2 < self.n:
                return False
        return True

    def _depends(self, table: int, i: int) -> bool:
        # Bit i set in the index selects input_tables' half; shifted down by 2**i it lines
        # up with the half where bit i is clear.
        high = input_tables(self.n)[i]
        return (table & high) >> (1 << i) != table & ~high

    def sample_params(self, rng: random.Random, mode: Mode = "outputs") -> Params:
        while True:
            gates = self._draw(rng)
            if self._usable(gates):
                return {"gates": gates}

    def check_params(self, params: Mapping[str, JSONValue]) -> Params:
        gates = params.get("gates")
        if not isinstance(gates, list) or len(gates) != self.gates:
            raise FamilyError(f"CRI parameter 'gates' must list {self.gates} gates")
        checked = []
        for i, g in enumerate(gates):
            if not isinstance(g, list) or len(g) != 3:
                raise FamilyError(f"CRI gate {i} must be [op, a, b]")
            op = require_int({"v": g[0]}, "v", 0, len(_DAG_OPS) - 1)
            a = require_int({"v": g[1]}, "v", 0, self.n + i - 1)
            c = require_int({"v": g[2]}, "v", 0, self.n + i - 1)
            if a >= c:
                raise FamilyError(f"CRI gate {i} must read two distinct wires, lower first")
            checked.append([op, a, c])
        return {"gates": checked}

    def circuit(self, params: Params) -> Circuit:
        b = Builder(self.n)
        for op, a, c in params["gates"]:
            b.gate(_DAG_OPS[op], a, c)
        first = self.n + self.gates - self.m
        return b.circuit(range(first, self.n + self.gates))

    def direct(self, params: Params) -> Direct:
        # The DAG's gates are its definition: the reference evaluates them wire by wire.
        circuit = self.circuit(params)
        return lambda x: circuit.evaluate(x)

    @property
    def gate_count(self) -> int:
        return self.gates

    def describe(self, params: Params) -> str:
        circuit = self.circuit(params)
        outs = ", ".join(circuit.wire_name(w) for w in circuit.outputs)
        return (
            describe_inputs(self.n)
            + f"Compute {self.gates} values g0..g{self.gates - 1} in order; each applies a "
            "two-input operation to inputs xi or earlier values gj (AND: 1 iff both are 1; "
            "OR: 1 iff at least one is 1; XOR: 1 iff exactly one is 1; NAND, NOR: the "
            "negation of AND, OR):\n"
            + circuit.listing()
            + f"\nOutput: a string of {self.m} characters '0'/'1': {outs}, in this order."
        )

    @cached_property
    def _sample_distinct(self) -> int:
        rng = random.Random(f"CRI estimate {self.name}")
        seen = {self.circuit(self.sample_params(rng)).tables() for _ in range(_ESTIMATE_SAMPLE)}
        return len(seen)

    def _params_log2(self) -> float:
        return sum(math.log2(len(_DAG_OPS) * math.comb(self.n + i, 2)) for i in range(self.gates))

    def log2_h(self, mode: Mode) -> float:
        width = self.m if mode == "outputs" else self.gates
        return min(self._params_log2(), float(width << self.n))

    def hypothesis(self, mode: Mode) -> HypothesisSpace:
        high = self.log2_h(mode)
        return HypothesisSpace(
            log2_h=high,
            log2_y=float(self.observed_width(mode)),
            exact=False,
            low=math.log2(self._sample_distinct),
            high=high,
            confidence=1.0,
        )

    def space(self, mode: Mode) -> VersionSpace:
        return AgnosticSpace(self.n, self.observed_width(mode), exact=False)
