"""Shared pieces of the hard (n = 10) kinds: masked input layers, adder cells, mask params."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from blackboxes.families.cri._circuit import Builder
from oracle_bench.errors import FamilyError

__all__ = ["check_input", "full_adder", "half_adder", "masked", "masks"]


def check_input(x: str, n: int) -> str:
    """``x`` if it is ``n`` characters 0/1 (the references refuse anything else)."""
    if not isinstance(x, str) or len(x) != n or x.strip("01"):
        raise FamilyError(f"a circuit input is {n} characters 0/1, got {x!r}")
    return x


def masks(width: int) -> Iterator[str]:
    """Every ``width``-character 0/1 string, in truth-table order (character i = bit i)."""
    for value in range(1 << width):
        yield format(value, f"0{width}b")[::-1]


def masked(b: Builder, wires: Sequence[int], mask: str) -> list[int]:
    """One gate per wire: NOT where the mask has a 1, BUF elsewhere (so the gate count does
    not depend on the mask)."""
    return [b.gate("NOT" if c == "1" else "BUF", w) for w, c in zip(wires, mask, strict=True)]


def half_adder(b: Builder, x: int, y: int) -> tuple[int, int]:
    """(sum, carry) of two bits: 2 gates."""
    return b.gate("XOR", x, y), b.gate("AND", x, y)


def full_adder(b: Builder, x: int, y: int, carry: int) -> tuple[int, int]:
    """(sum, carry) of three bits: 5 gates."""
    half = b.gate("XOR", x, y)
    total = b.gate("XOR", half, carry)
    out = b.gate("OR", b.gate("AND", x, y), b.gate("AND", half, carry))
    return total, out
