"""Hard PSI kinds, group B."""

from __future__ import annotations

from blackboxes.families.psi._kind import PhysicsKind

__all__ = ["HARD_B"]

HARD_B: tuple[PhysicsKind, ...] = ()
