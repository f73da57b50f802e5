"""The CRI kinds of each level, in a fixed order."""

from __future__ import annotations

from blackboxes.families.cri._easy import EASY_ENUMERATED
from blackboxes.families.cri._factored import AffineKind, DagKind, MintermKind
from blackboxes.families.cri._hard import HARD_ENUMERATED
from blackboxes.families.cri._kind import CircuitKind

__all__ = ["EASY_BITS", "HARD_BITS", "KINDS", "LEVEL_KINDS"]

EASY_BITS = 8
"""Input bits at easy: 256 inputs, so 20 queries see under 8% of the truth table."""
HARD_BITS = 10
"""Input bits at hard: 1024 inputs, 20 queries see under 2%."""

_EASY: tuple[CircuitKind, ...] = (
    *EASY_ENUMERATED,
    AffineKind("parity", EASY_BITS, 1),
    DagKind("small_dag", EASY_BITS, 2, 6),
)
_HARD: tuple[CircuitKind, ...] = (
    *HARD_ENUMERATED,
    AffineKind("linear_z2", HARD_BITS, 3),
    MintermKind("dnf", HARD_BITS, 8),
    DagKind("large_dag", HARD_BITS, 3, 16),
)

KINDS: dict[str, CircuitKind] = {k.name: k for k in (*_EASY, *_HARD)}
LEVEL_KINDS: dict[str, tuple[str, ...]] = {
    "easy": tuple(k.name for k in _EASY),
    "hard": tuple(k.name for k in _HARD),
}
