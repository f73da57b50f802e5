"""A block sliding down a frictionless wedge that itself slides on a smooth floor.

While the block is on the incline both accelerations are constant (horizontal momentum
is conserved and the normal force is constant), so the slide has a closed form; at the
foot of the incline the floor takes the block's vertical velocity and both bodies glide
apart at constant velocities. The reference integrates the Lagrange equations in the
generalised coordinates (wedge position, distance along the incline) with SciPy and
stops at the foot, instead of using the textbook accelerations.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import lru_cache
from typing import Any, ClassVar

import numpy as np

from blackboxes.box import Level
from blackboxes.families.psi._common import gravity_param, place_of
from blackboxes.families.psi._kind import T_MAX, FloatArray, Param, PhysicsKind, Values, span

__all__ = ["WedgeBlock", "wedge_accelerations", "wedge_motion"]


def wedge_accelerations(
    big: FloatArray, small: FloatArray, alpha: FloatArray, g: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """(wedge's acceleration magnitude, block's acceleration down the incline relative to
    the wedge), m/s^2, for wedge mass ``big``, block mass ``small`` (kg), incline angle
    ``alpha`` (degrees) and gravity ``g``: the textbook m g sin cos / (M + m sin^2) and
    (M + m) g sin / (M + m sin^2)."""
    rad = np.radians(alpha)
    s, c = np.sin(rad), np.cos(rad)
    den = big + small * s * s
    return small * g * s * c / den, (big + small) * g * s / den


def wedge_motion(p: Values, t: FloatArray) -> FloatArray:
    """Positions (particles, len(t), 2 objects, 2) in metres: the wedge's foot (object1)
    and the block (object2), parameters of shape (particles,) against times (times,)."""
    big, small, alpha, d, g = (
        np.asarray(p[n], dtype=float)[:, None] for n in ("M", "m", "alpha", "d", "g")
    )
    t = np.asarray(t, dtype=float)[None, :]
    wedge_acc, rel_acc = wedge_accelerations(big, small, alpha, g)
    rad = np.radians(alpha)
    t_foot = np.sqrt(2.0 * d / rel_acc)
    slide = np.minimum(t, t_foot)
    after = t - slide
    # The wedge recoils towards -x; once the block has left it, it coasts.
    x_wedge = -0.5 * wedge_acc * slide * slide - wedge_acc * t_foot * after
    # Exactly 0 from the foot on (d - a T^2 / 2 rounds to +-1 ulp of d).
    along = np.where(t < t_foot, np.maximum(d - 0.5 * rel_acc * slide * slide, 0.0), 0.0)
    # On the floor the block keeps the horizontal velocity it had at the foot, which
    # horizontal momentum fixes at M / m times the wedge's speed.
    block_speed = big * wedge_acc * t_foot / small
    x_block = -0.5 * wedge_acc * slide * slide - along * np.cos(rad) + block_speed * after
    y_block = along * np.sin(rad)
    zero = np.zeros_like(x_wedge)
    wedge = np.stack([x_wedge, zero], axis=-1)
    block = np.stack([x_block, y_block], axis=-1)
    return np.stack([wedge, block], axis=-2)


@lru_cache(maxsize=512)
def _reference_solution(
    big: float, small: float, alpha: float, d: float, g: float
) -> tuple[Any, float, FloatArray]:
    """SciPy DOP853 (rtol = atol = 1e-12) of the Lagrange equations in q = (X, s), X the
    wedge's foot and s the block's distance up the incline from it, with an event at
    s = 0: the dense solution, the time the block reaches the foot (s; inf after T_MAX)
    and the state (X, s, X', s') there."""
    from scipy.integrate import solve_ivp  # imported on use: only references need SciPy

    rad = math.radians(alpha)
    c, s = math.cos(rad), math.sin(rad)
    # Block at (X - s cos a, s sin a): kinetic energy 1/2 q'^T K q', potential m g s sin a.
    inertia = np.array([[big + small, -small * c], [-small * c, small]])
    force = np.array([0.0, -small * g * s])
    acc = np.linalg.solve(inertia, force)

    def f(_: float, y: FloatArray) -> FloatArray:
        return np.array([y[2], y[3], acc[0], acc[1]])

    def foot(_: float, y: FloatArray) -> float:
        return float(y[1])

    foot.terminal = True  # type: ignore[attr-defined]
    foot.direction = -1  # type: ignore[attr-defined]
    sol = solve_ivp(
        f,
        (0.0, T_MAX),
        np.array([0.0, d, 0.0, 0.0]),
        method="DOP853",
        rtol=1e-12,
        atol=1e-12,
        dense_output=True,
        events=foot,
    )
    if not sol.success:
        raise RuntimeError(f"reference integration failed: {sol.message}")
    if len(sol.t_events[0]):
        return sol.sol, float(sol.t_events[0][0]), np.asarray(sol.y_events[0][0], dtype=float)
    return sol.sol, math.inf, np.zeros(4)


class WedgeBlock(PhysicsKind):
    """A block released on a frictionless wedge that is free to slide on a smooth floor."""

    name: ClassVar[str] = "wedge_block"
    level: ClassVar[Level] = "hard"
    objects: ClassVar[int] = 2
    params: ClassVar[tuple[Param, ...]] = (
        # Only M / m changes the motion: odd wedge masses over power-of-two block masses
        # give 15 different ratios, so no two grid points move alike.
        Param("M", span(3.0, 11.0, 2.0), "kg", "mass of the wedge", step=0.02),
        Param("m", (0.5, 1.0, 2.0), "kg", "mass of the block"),
        Param("alpha", span(20.0, 60.0, 5.0), "degrees", "angle of the incline", step=0.02),
        Param(
            "d", span(1.0, 3.0, 0.5), "m", "block's starting distance up the incline", step=0.001
        ),
        gravity_param(),
    )

    def positions(self, p: Values, t: FloatArray) -> FloatArray:
        return wedge_motion(p, np.asarray(t, dtype=float))

    def reference(self, p: Mapping[str, float], t: FloatArray) -> FloatArray:
        big, small, alpha = float(p["M"]), float(p["m"]), float(p["alpha"])
        sol, t_foot, at_foot = _reference_solution(big, small, alpha, float(p["d"]), float(p["g"]))
        rad = math.radians(alpha)
        t = np.asarray(t, dtype=float)
        out = np.zeros((len(t), 2, 2))
        sliding = t < t_foot
        if sliding.any():
            x_wedge, along = sol(t[sliding])[:2]
            out[sliding, 0, 0] = x_wedge
            out[sliding, 1, 0] = x_wedge - along * math.cos(rad)
            out[sliding, 1, 1] = np.maximum(along, 0.0) * math.sin(rad)
        if (~sliding).any():
            x_foot, along, v_wedge, v_along = (float(c) for c in at_foot)
            later = t[~sliding] - t_foot
            # The floor's impulse is vertical: the block keeps X' - s' cos(alpha).
            out[~sliding, 0, 0] = x_foot + v_wedge * later
            out[~sliding, 1, 0] = (
                x_foot - along * math.cos(rad) + (v_wedge - v_along * math.cos(rad)) * later
            )
        return out

    def describe(self, p: Mapping[str, float]) -> str:
        return (
            f"A wedge of mass {p['M']:g} kg rests on flat, perfectly smooth horizontal "
            f"ground {place_of(p['g'])}; nothing holds it, so it slides without friction "
            "along the ground (it never tips or lifts). Its cross-section is a right "
            "triangle: the bottom face lies on the ground, and the sloping face (the "
            f"incline) makes an angle of {p['alpha']:g} degrees with the ground and rises "
            "towards -x from the incline's foot, the wedge's sharp bottom corner on its +x "
            "side (the incline is long enough). A small block of mass "
            f"{p['m']:g} kg (a point mass) sits on the incline, {p['d']:g} m from the foot "
            f"measured along the incline (at x = -{p['d']:g} cos({p['alpha']:g} degrees), "
            f"y = {p['d']:g} sin({p['alpha']:g} degrees)), and at t = 0 the block and the "
            "wedge are released "
            "from rest. The block slides down the incline without friction, staying on it, "
            "and pushes the wedge, which recoils towards -x; there is no air resistance. "
            "When the block reaches the foot it passes onto the ground: the ground stops "
            "its vertical velocity (no bounce), it keeps the horizontal velocity it had at "
            "that instant and slides on along the frictionless ground towards +x at that "
            "constant speed forever, while the wedge, no longer touched, keeps moving "
            "towards -x at the constant velocity it had then; they move apart and never "
            "meet again. Coordinates: x horizontal, y vertical (up), the origin at the "
            "wedge's foot at t = 0, the ground at y = 0; object1 is the wedge's foot (the "
            "bottom corner where the incline meets the ground, always at y = 0), object2 "
            "the block. Any time t in [0, 20] s may be asked."
        )
