"""Boolean circuits over n input bits, evaluated on one input or on the whole truth table.

Wires are numbered: ``0..n-1`` are the inputs, ``n + i`` is gate ``i``'s output. An input
vector is a string of ``n`` characters ``0``/``1``; character ``i`` is input wire ``i``. A
*table* is a wire's truth table as one Python int of ``2**n`` bits: bit ``idx`` is the wire's
value on the input whose bit ``i`` is ``(idx >> i) & 1`` (see :func:`index_of`). Evaluating a
gate on tables is one big-int operation, so a whole truth table costs one pass over the gates.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, reduce
from typing import Literal, cast

from oracle_bench.errors import FamilyError

__all__ = [
    "OPS",
    "Builder",
    "Circuit",
    "Gate",
    "Op",
    "bits_of",
    "build",
    "index_of",
    "input_tables",
]

Op = Literal["AND", "OR", "XOR", "NAND", "NOR", "XNOR", "NOT", "BUF"]
OPS: tuple[Op, ...] = ("AND", "OR", "XOR", "NAND", "NOR", "XNOR", "NOT", "BUF")
"""Gate types. AND/OR/XOR and their negations take two or more inputs; NOT and BUF one."""

_UNARY = frozenset({"NOT", "BUF"})


@dataclass(frozen=True)
class Gate:
    op: Op
    inputs: tuple[int, ...]
    """Wire indices, each an input or an earlier gate."""


def index_of(bits: str) -> int:
    """The truth-table index of an input vector: bit ``i`` of the index is ``bits[i]``."""
    return int(bits[::-1], 2)


def bits_of(index: int, n: int) -> str:
    """The input vector of truth-table index ``index`` (inverse of :func:`index_of`)."""
    return format(index, f"0{n}b")[::-1]


@cache
def input_tables(n: int) -> tuple[int, ...]:
    """The truth tables of the ``n`` input wires."""
    size = 1 << n
    return tuple(sum(1 << idx for idx in range(size) if (idx >> i) & 1) for i in range(n))


def _full(n: int) -> int:
    return (1 << (1 << n)) - 1


def _apply(op: Op, values: Sequence[int], full: int) -> int:
    if op == "BUF":
        return values[0]
    if op == "NOT":
        return full ^ values[0]
    if op in ("AND", "NAND"):
        out = reduce(lambda a, b: a & b, values)
    elif op in ("OR", "NOR"):
        out = reduce(lambda a, b: a | b, values)
    else:
        out = reduce(lambda a, b: a ^ b, values)
    return full ^ out if op in ("NAND", "NOR", "XNOR") else out


@dataclass(frozen=True)
class Circuit:
    """An acyclic circuit: ``n`` inputs, gates in topological order, designated outputs."""

    n: int
    gates: tuple[Gate, ...]
    outputs: tuple[int, ...]
    """Wire indices of the output wires, in output order (inputs allowed)."""

    def __post_init__(self) -> None:
        if not 1 <= self.n <= 16:
            raise FamilyError(f"a circuit has 1 to 16 inputs, not {self.n}")
        for i, gate in enumerate(self.gates):
            if gate.op not in OPS:
                raise FamilyError(f"gate {i}: unknown operation {gate.op!r}")
            arity = len(gate.inputs)
            if (gate.op in _UNARY) != (arity == 1) or arity == 0:
                raise FamilyError(f"gate {i}: {gate.op} cannot take {arity} inputs")
            if any(not 0 <= w < self.n + i for w in gate.inputs):
                raise FamilyError(f"gate {i} reads a wire that is not before it")
        if not self.outputs or any(not 0 <= w < self.wires for w in self.outputs):
            raise FamilyError("a circuit's outputs must be existing wires")

    @property
    def wires(self) -> int:
        return self.n + len(self.gates)

    def wire_tables(self) -> tuple[int, ...]:
        """Every wire's truth table, inputs first."""
        full = _full(self.n)
        tables = list(input_tables(self.n))
        for gate in self.gates:
            tables.append(_apply(gate.op, [tables[w] for w in gate.inputs], full))
        return tuple(tables)

    def tables(self, mode: Literal["outputs", "gates"] = "outputs") -> tuple[int, ...]:
        """The truth tables of the observed wires: the outputs, or every gate in order."""
        tables = self.wire_tables()
        if mode == "gates":
            return tables[self.n :]
        return tuple(tables[w] for w in self.outputs)

    def evaluate(self, bits: str, mode: Literal["outputs", "gates"] = "outputs") -> str:
        """The observed wires' values on one input vector, as a ``0``/``1`` string."""
        if len(bits) != self.n or set(bits) - {"0", "1"}:
            raise FamilyError(f"a circuit input is {self.n} characters 0/1, got {bits!r}")
        values = [c == "1" for c in bits]
        for gate in self.gates:
            ins = [values[w] for w in gate.inputs]
            values.append(bool(_apply(gate.op, [int(v) for v in ins], 1) & 1))
        observed = values[self.n :] if mode == "gates" else [values[w] for w in self.outputs]
        return "".join("1" if v else "0" for v in observed)

    def wire_name(self, wire: int) -> str:
        return f"x{wire}" if wire < self.n else f"g{wire - self.n}"

    def listing(self) -> str:
        """The gates as text, one per line: ``g0 = AND(x1, x4)``."""
        lines = []
        for i, g in enumerate(self.gates):
            args = ", ".join(self.wire_name(w) for w in g.inputs)
            lines.append(f"{self.wire_name(self.n + i)} = {g.op}({args})")
        return "\n".join(lines)


def build(n: int, gates: Sequence[tuple[str, Sequence[int]]], outputs: Sequence[int]) -> Circuit:
    """A circuit from plain (op, inputs) pairs (kinds build gate lists this way)."""
    return Circuit(n, tuple(Gate(cast(Op, op), tuple(ins)) for op, ins in gates), tuple(outputs))


class Builder:
    """Appends gates and hands back their wire numbers, so kinds write circuits as code:
    ``b = Builder(8); w = b.gate("AND", 0, 3); b.circuit([w])``."""

    def __init__(self, n: int) -> None:
        self.n = n
        self._gates: list[Gate] = []

    def gate(self, op: Op, *inputs: int) -> int:
        self._gates.append(Gate(op, tuple(inputs)))
        return self.n + len(self._gates) - 1

    def circuit(self, outputs: Sequence[int]) -> Circuit:
        return Circuit(self.n, tuple(self._gates), tuple(outputs))
