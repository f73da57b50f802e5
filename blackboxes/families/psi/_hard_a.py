"""Hard PSI kinds, group A."""

from __future__ import annotations

from blackboxes.families.psi._kind import PhysicsKind

__all__ = ["HARD_A"]

HARD_A: tuple[PhysicsKind, ...] = ()
