"""Hard PSI kinds, group B: motion without a closed form (drag, a double pendulum, two
balls between walls)."""

from __future__ import annotations

from blackboxes.families.psi._hard_double import DoublePendulum
from blackboxes.families.psi._hard_drag import DragProjectile
from blackboxes.families.psi._hard_walls import WallsTwoBalls
from blackboxes.families.psi._kind import PhysicsKind

__all__ = ["HARD_B"]

HARD_B: tuple[PhysicsKind, ...] = (DragProjectile(), DoublePendulum(), WallsTwoBalls())
