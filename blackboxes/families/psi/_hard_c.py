"""Hard PSI kinds, group C."""

from __future__ import annotations

from blackboxes.families.psi._kind import PhysicsKind

__all__ = ["HARD_C"]

HARD_C: tuple[PhysicsKind, ...] = ()
