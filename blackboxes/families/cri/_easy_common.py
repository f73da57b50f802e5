"""Pieces shared by the EASY circuit kinds (8 inputs): literals, masks, output sentences."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache

from blackboxes.box import JSONValue
from blackboxes.families.cri._circuit import Builder
from blackboxes.families.cri._kind import require_indices, require_int
from oracle_bench.errors import FamilyError

__all__ = [
    "EASY_N",
    "literal",
    "literal_name",
    "masks",
    "one_output",
    "require_flag",
    "require_outside",
    "require_select",
    "select_value",
]

EASY_N = 8
"""Input bits of every EASY kind."""


@cache
def masks(width: int) -> tuple[str, ...]:
    """Every ``width``-character 0/1 string, counting up with character 0 as the low bit."""
    return tuple(format(i, f"0{width}b")[::-1] for i in range(1 << width))


def literal(builder: Builder, wire: int, invert: bool) -> int:
    """A BUF or NOT copy of ``wire``: one gate either way, so the gate count is fixed."""
    return builder.gate("NOT" if invert else "BUF", wire)


def literal_name(index: int, invert: bool) -> str:
    """``x3`` or ``NOT x3``."""
    return f"NOT x{index}" if invert else f"x{index}"


def one_output(condition: str) -> str:
    """The closing sentence of a one-output kind's description."""
    return (
        "Output: a string of 1 character '0'/'1'; character 0 is '1' if "
        f"{condition}, and '0' otherwise."
    )


def require_select(params: Mapping[str, JSONValue], key: str = "sel") -> tuple[int, int]:
    """Two distinct select inputs (s0, s1), in order."""
    s0, s1 = require_indices(params, key, 2, 0, EASY_N - 1)
    return s0, s1


def select_value(s0: int, s1: int) -> str:
    """The sentence defining v from the select inputs."""
    return f"Let v = x{s0} + 2*x{s1}, a number from 0 to 3 (s = [{s0}, {s1}]). "


def require_flag(params: Mapping[str, JSONValue], key: str) -> int:
    """A 0/1 parameter (an int, not a bool)."""
    return require_int(params, key, 0, 1)


def require_outside(value: int, taken: tuple[int, ...], key: str) -> None:
    """Raises ``FamilyError`` when input ``value`` already plays another role."""
    if value in taken:
        raise FamilyError(f"CRI parameter {key!r} must avoid inputs {list(taken)}, got {value}")
