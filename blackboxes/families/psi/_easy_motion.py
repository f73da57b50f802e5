"""Easy closed-form motions: a projectile that stops where it lands, two springs, a cycloid."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

import numpy as np
import numpy.typing as npt

from blackboxes.box import Level
from blackboxes.families.psi._common import gravity_param, place_of
from blackboxes.families.psi._kind import (
    T_MAX,
    T_STEP,
    FloatArray,
    Param,
    PhysicsKind,
    Values,
    span,
)

__all__ = ["Cycloid", "Projectile", "SpringHorizontal", "SpringVertical", "landing_time"]

_SANE = 1000.0
"""Metres: no coordinate of an admissible grid point leaves [-_SANE, _SANE] in [0, T_MAX]."""
_MIN_FLIGHT = 1.5
"""Seconds: a projectile down sooner than this says too little before it lies still."""
_MAX_TURN = 1.5
"""Radians per query step (0.1 s): faster rotation aliases on the query grid, so the
samples no longer show the motion (the Nyquist limit is pi)."""


def _stack(*coords: FloatArray) -> FloatArray:
    """(particles, times) coordinates -> (particles, times, 1 object, dims)."""
    return np.stack(coords, axis=-1)[:, :, None, :]


# -- projectile ---------------------------------------------------------------------
def landing_time(h0: FloatArray, v0: FloatArray, theta: FloatArray, g: FloatArray) -> FloatArray:
    """Seconds until a ball launched at height h0 (m), speed v0 (m/s) and elevation theta
    (degrees, > 0) reaches y = 0: the positive root of h0 + vy t - g t^2 / 2 = 0."""
    vy = v0 * np.sin(np.radians(theta))
    # vy > 0 on the grid, so the sum below never cancels.
    return (vy + np.sqrt(vy * vy + 2.0 * g * h0)) / g


class Projectile(PhysicsKind):
    """A ball launched over flat ground without air; it stops dead where it lands."""

    name: ClassVar[str] = "projectile"
    level: ClassVar[Level] = "easy"
    params: ClassVar[tuple[Param, ...]] = (
        Param("h0", span(0.0, 30.0, 5.0), "m", "launch height above the ground", step=0.02),
        Param("v0", span(10.0, 40.0, 5.0), "m/s", "launch speed", step=0.002),
        Param(
            "theta",
            span(20.0, 75.0, 5.0),
            "deg",
            "launch elevation above the horizontal",
            step=0.01,
        ),
        gravity_param(),
    )

    def admissible(self, p: Values) -> npt.NDArray[np.bool_]:
        """Flights of at least 1.5 s whose range and apex stay within 1000 m over [0, 20] s."""
        h0, v0, theta, g = p["h0"], p["v0"], p["theta"], p["g"]
        t_land = landing_time(h0, v0, theta, g)
        vx = v0 * np.cos(np.radians(theta))
        vy = v0 * np.sin(np.radians(theta))
        reach = vx * np.minimum(t_land, T_MAX)
        apex = h0 + vy * vy / (2.0 * g)
        return np.asarray((t_land >= _MIN_FLIGHT) & (reach <= _SANE) & (apex <= _SANE))

    def positions(self, p: Values, t: FloatArray) -> FloatArray:
        h0, v0, g = p["h0"][:, None], p["v0"][:, None], p["g"][:, None]
        theta = p["theta"][:, None]
        t_land = landing_time(h0, v0, theta, g)
        # After landing the ball lies where it landed: freeze the clock at t_land.
        s = np.minimum(t[None, :], t_land)
        x = v0 * np.cos(np.radians(theta)) * s
        y = h0 + v0 * np.sin(np.radians(theta)) * s - 0.5 * g * s * s
        y = np.where(t[None, :] >= t_land, 0.0, np.maximum(y, 0.0))
        return _stack(x, y)

    def describe(self, p: Mapping[str, float]) -> str:
        return (
            f"A small ball is launched from a point {p['h0']:g} m above flat, level ground "
            f"{place_of(p['g'])}, with speed {p['v0']:g} m/s at an elevation angle of "
            f"{p['theta']:g} degrees above the horizontal, heading in the +x direction; "
            "there is no air resistance, so it follows a parabola under gravity alone. "
            "When the ball reaches the ground (y = 0) it stops dead at the point where it "
            "landed and stays there for ever (no bounce, no rolling). Coordinates: the "
            "origin is on the ground directly below the launch point; x = horizontal "
            "distance travelled (x = 0 at launch, increasing in the direction of the "
            f"throw), y = height above the ground, so at t = 0 the ball is at (0, {p['h0']:g})."
        )


# -- springs ------------------------------------------------------------------------
_MASS = Param("mass", span(0.5, 2.0, 0.5), "kg", "mass", step=0.001)
_STIFFNESS = Param("k", span(3.0, 99.0, 4.0), "N/m", "spring stiffness", step=0.02)
"""Shared by both springs. The angular frequency depends only on k / mass, and odd
stiffnesses 4 N/m apart against these four masses make every ratio different and spread
them apart enough to be told apart within the answer tolerance in 20 s."""


class SpringHorizontal(PhysicsKind):
    """A mass on a spring on a frictionless floor, released from rest at x = A."""

    name: ClassVar[str] = "spring_horizontal"
    level: ClassVar[Level] = "easy"
    params: ClassVar[tuple[Param, ...]] = (
        _MASS,
        _STIFFNESS,
        Param("A", span(0.1, 0.5, 0.05), "m", "initial displacement from equilibrium", step=0.01),
    )

    def positions(self, p: Values, t: FloatArray) -> FloatArray:
        omega = np.sqrt(p["k"] / p["mass"])[:, None]
        x = p["A"][:, None] * np.cos(omega * t[None, :])
        return _stack(x, np.zeros_like(x))

    def describe(self, p: Mapping[str, float]) -> str:
        return (
            f"A block of mass {p['mass']:g} kg rests on a frictionless horizontal floor and "
            f"is attached to a light ideal spring of stiffness {p['k']:g} N/m whose other "
            "end is fixed to a wall; the block moves only along the spring's line, the x "
            "axis. x is measured from the equilibrium position (spring at its natural "
            f"length, x = 0). At t = 0 the block is released from rest at x = {p['A']:g} m "
            "(the spring stretched by that much). There is no friction, air resistance or "
            "damping of any kind, so the oscillation never decays. Coordinates: x = the "
            "block's displacement from equilibrium, y = 0 always."
        )


class SpringVertical(PhysicsKind):
    """A mass hanging from a spring, released from rest at the spring's natural length."""

    name: ClassVar[str] = "spring_vertical"
    level: ClassVar[Level] = "easy"
    params: ClassVar[tuple[Param, ...]] = (
        _MASS,
        _STIFFNESS,
        gravity_param(),
    )

    def admissible(self, p: Values) -> npt.NDArray[np.bool_]:
        """Equilibrium depths m g / k from 0.1 m to 2.5 m (swings of 0.2 m to 5 m; a
        shallower one is hard to tell from its neighbours) and at most 1.5 rad of phase
        per 0.1 s."""
        drop = p["mass"] * p["g"] / p["k"]
        omega = np.sqrt(p["k"] / p["mass"])
        return np.asarray((drop >= 0.1) & (drop <= 2.5) & (omega * T_STEP <= _MAX_TURN))

    def positions(self, p: Values, t: FloatArray) -> FloatArray:
        drop = (p["mass"] * p["g"] / p["k"])[:, None]
        omega = np.sqrt(p["k"] / p["mass"])[:, None]
        # About the equilibrium -drop, starting at rest at amplitude drop above it.
        y = -drop * (1.0 - np.cos(omega * t[None, :]))
        return _stack(np.zeros_like(y), y)

    def describe(self, p: Mapping[str, float]) -> str:
        return (
            f"A mass of {p['mass']:g} kg hangs from the lower end of a light ideal spring of "
            f"stiffness {p['k']:g} N/m whose upper end is fixed, {place_of(p['g'])}. The "
            "mass moves only vertically. At t = 0 it is released from rest with the spring "
            "at its natural (unstretched) length. There is no friction, air resistance or "
            "damping, so it oscillates for ever about the point where the spring's pull "
            "balances its weight. Coordinates: x = 0 always; y = the mass's height "
            "relative to its release point (y = 0 where the spring is unstretched, "
            "positive upward, so the mass moves to negative y)."
        )


# -- cycloid ------------------------------------------------------------------------
class Cycloid(PhysicsKind):
    """A point on the rim of a wheel rolling without slipping at constant speed."""

    name: ClassVar[str] = "cycloid"
    level: ClassVar[Level] = "easy"
    params: ClassVar[tuple[Param, ...]] = (
        Param("R", span(0.25, 1.5, 0.05), "m", "wheel radius", step=0.0002),
        Param("v", span(0.5, 10.0, 0.5), "m/s", "speed of the wheel's centre", step=0.0005),
    )

    def admissible(self, p: Values) -> npt.NDArray[np.bool_]:
        """At most 1.5 rad of wheel rotation per 0.1 s query step."""
        return np.asarray(p["v"] / p["R"] * T_STEP <= _MAX_TURN)

    def positions(self, p: Values, t: FloatArray) -> FloatArray:
        r, v = p["R"][:, None], p["v"][:, None]
        phi = v * t[None, :] / r  # the angle the wheel has turned through
        return _stack(v * t[None, :] - r * np.sin(phi), r * (1.0 - np.cos(phi)))

    def describe(self, p: Mapping[str, float]) -> str:
        return (
            f"A wheel of radius {p['R']:g} m rolls without slipping along flat ground (the "
            f"line y = 0) in the +x direction, its centre moving at a constant {p['v']:g} "
            "m/s. One point on the wheel's rim is tracked. At t = 0 the tracked point is "
            "the wheel's point of contact with the ground and lies at the origin, and the "
            f"wheel's centre is at (0, {p['R']:g}). Coordinates: x = horizontal position "
            "along the ground (increasing in the direction of rolling), y = height above "
            "the ground, both of the tracked rim point."
        )
