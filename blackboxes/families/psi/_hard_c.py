"""Hard PSI kinds, group C: a block on a recoiling wedge, a boat crossing a shear current."""

from __future__ import annotations

from blackboxes.families.psi._hard_river import RiverBoat
from blackboxes.families.psi._hard_wedge import WedgeBlock
from blackboxes.families.psi._kind import PhysicsKind

__all__ = ["HARD_C"]

HARD_C: tuple[PhysicsKind, ...] = (WedgeBlock(), RiverBoat())
