"""The easy PSI kinds, in a fixed order."""

from __future__ import annotations

from blackboxes.families.psi._easy_collision import TwoBallCollision
from blackboxes.families.psi._easy_fall import BounceElastic, BounceInelastic
from blackboxes.families.psi._easy_motion import (
    Cycloid,
    Projectile,
    SpringHorizontal,
    SpringVertical,
)
from blackboxes.families.psi._easy_pendulum import ConicalPendulum, Pendulum
from blackboxes.families.psi._kind import PhysicsKind

__all__ = ["EASY_KINDS"]

EASY_KINDS: tuple[PhysicsKind, ...] = (
    BounceElastic(),
    BounceInelastic(),
    Projectile(),
    SpringHorizontal(),
    SpringVertical(),
    Pendulum(),
    ConicalPendulum(),
    TwoBallCollision(),
    Cycloid(),
)
