"""The hard PSI kinds, in a fixed order."""

from __future__ import annotations

from blackboxes.families.psi._hard_a import HARD_A
from blackboxes.families.psi._hard_b import HARD_B
from blackboxes.families.psi._hard_c import HARD_C
from blackboxes.families.psi._kind import PhysicsKind

__all__ = ["HARD_KINDS"]

HARD_KINDS: tuple[PhysicsKind, ...] = (*HARD_A, *HARD_B, *HARD_C)
