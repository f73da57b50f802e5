"""An easy two-object kind: a perfectly elastic head-on collision on a frictionless line."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

import numpy as np
import numpy.typing as npt

from blackboxes.box import Level
from blackboxes.families.psi._kind import FloatArray, Param, PhysicsKind, Values, span

__all__ = ["TwoBallCollision", "elastic_velocities"]

_EARLIEST = 0.5
"""Seconds: the collision comes no sooner (the approach is seen at a few query times)..."""
_LATEST = 15.0
"""...and no later (the velocities after it are seen for at least 5 s)."""


def elastic_velocities(
    m1: FloatArray, m2: FloatArray, v1: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """m/s: both balls' velocities after ball 1 (m1 kg, v1 m/s) hits ball 2 (m2 kg, at
    rest) head-on and perfectly elastically (momentum and kinetic energy conserved)."""
    total = m1 + m2
    return (m1 - m2) / total * v1, 2.0 * m1 / total * v1


class TwoBallCollision(PhysicsKind):
    """Ball 1 moving right hits ball 2 at rest; both then coast for ever."""

    name: ClassVar[str] = "two_ball_collision"
    level: ClassVar[Level] = "easy"
    objects: ClassVar[int] = 2
    # The motion after the collision depends on the masses only through m1 / m2; these
    # two grids give 64 different ratios, so no two mass pairs are the same rule.
    params: ClassVar[tuple[Param, ...]] = (
        Param("m1", span(0.2, 2.3, 0.3), "kg", "mass of ball 1", step=0.001),
        Param("m2", span(0.6, 4.1, 0.5), "kg", "mass of ball 2", step=0.002),
        Param("v1", span(0.5, 5.0, 0.5), "m/s", "initial speed of ball 1", step=0.001),
        Param("d", span(2.0, 12.0, 2.0), "m", "initial position of ball 2", step=0.01),
    )

    def admissible(self, p: Values) -> npt.NDArray[np.bool_]:
        """The collision at d / v1 happens between 0.5 s and 15 s."""
        t_hit = p["d"] / p["v1"]
        return np.asarray((t_hit >= _EARLIEST) & (t_hit <= _LATEST))

    def positions(self, p: Values, t: FloatArray) -> FloatArray:
        m1, m2 = p["m1"][:, None], p["m2"][:, None]
        v1, d = p["v1"][:, None], p["d"][:, None]
        u1, u2 = elastic_velocities(m1, m2, v1)
        t_hit = d / v1
        after = np.maximum(t[None, :] - t_hit, 0.0)
        before = t[None, :] < t_hit
        x1 = np.where(before, v1 * t[None, :], d + u1 * after)
        x2 = np.where(before, d, d + u2 * after)
        zero = np.zeros_like(x1)
        ball1 = np.stack([x1, zero], axis=-1)
        ball2 = np.stack([np.broadcast_to(x2, x1.shape), zero], axis=-1)
        return np.stack([ball1, ball2], axis=2)

    def describe(self, p: Mapping[str, float]) -> str:
        return (
            "Two small balls, treated as point masses, slide without friction or air "
            "resistance along a straight horizontal track, the x axis. Ball 1 (object1) "
            f"has mass {p['m1']:g} kg and starts at x = 0 moving in the +x direction at "
            f"{p['v1']:g} m/s; ball 2 (object2) has mass {p['m2']:g} kg and starts at rest at "
            f"x = {p['d']:g} m. Ball 1 reaches ball 2 and they collide head-on, "
            "instantaneously, at the moment their positions coincide; the collision is "
            "perfectly elastic (total momentum and total kinetic energy are both "
            "conserved). After it each ball moves at its new constant velocity for ever "
            "(ball 1 may move backwards, toward -x); there are no walls and no further "
            "collisions. Coordinates: each ball's [x, y] with x its position on the track "
            "and y = 0 always."
        )
