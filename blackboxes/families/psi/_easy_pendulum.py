"""Easy pendulums: a large-amplitude simple pendulum (exact, Jacobi elliptic) and a
conical pendulum (uniform circular motion)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

import numpy as np

from blackboxes.box import Level
from blackboxes.families.psi._common import gravity_param, place_of
from blackboxes.families.psi._kind import FloatArray, Param, PhysicsKind, Values, span

__all__ = ["ConicalPendulum", "Pendulum", "pendulum_period"]


def pendulum_period(length: FloatArray, theta0: FloatArray, g: FloatArray) -> FloatArray:
    """Seconds: the exact period 4 K(m) sqrt(L / g) of a pendulum of length L (m) swinging
    to theta0 (degrees) from the vertical, m = sin^2(theta0 / 2), K the complete elliptic
    integral of the first kind."""
    from scipy.special import ellipk  # imported on use: the package imports stay cheap

    m = np.sin(np.radians(theta0) / 2.0) ** 2
    return np.asarray(4.0 * ellipk(m) * np.sqrt(length / g), dtype=float)


class Pendulum(PhysicsKind):
    """A simple pendulum released from rest at a large angle, without small-angle
    approximation."""

    name: ClassVar[str] = "pendulum"
    level: ClassVar[Level] = "easy"
    params: ClassVar[tuple[Param, ...]] = (
        Param("L", span(0.5, 5.0, 0.5), "m", "rod length", step=0.001),
        Param(
            "theta0", span(40.0, 120.0, 5.0), "deg", "release angle from the vertical", step=0.05
        ),
        gravity_param(),
    )

    def positions(self, p: Values, t: FloatArray) -> FloatArray:
        from scipy.special import ellipj, ellipk

        length, g = p["L"][:, None], p["g"][:, None]
        k = np.sin(np.radians(p["theta0"]) / 2.0)[:, None]
        m = k * k
        # sin(theta / 2) = k sn(omega0 t + K | m) = k cd(omega0 t | m): at t = 0 it is k,
        # the release angle, with zero angular speed. cd has period 4K; reducing the
        # argument first keeps the elliptic functions at their best accuracy.
        u = np.sqrt(g / length) * t[None, :]
        u = np.mod(u, 4.0 * ellipk(m))
        _, cn, dn, _ = ellipj(u, np.broadcast_to(m, u.shape))
        s = k * cn / dn
        c = np.sqrt(np.maximum(1.0 - s * s, 0.0))  # cos(theta / 2) >= 0: |theta| < pi
        x = length * 2.0 * s * c  # L sin(theta)
        y = -length * (1.0 - 2.0 * s * s)  # -L cos(theta)
        return np.stack([x, y], axis=-1)[:, :, None, :]

    def describe(self, p: Mapping[str, float]) -> str:
        return (
            "A simple pendulum: a point bob on the end of a light rigid rod of length "
            f"{p['L']:g} m that swings in a vertical plane about a fixed frictionless pivot, "
            f"{place_of(p['g'])}, with no air resistance. At t = 0 the bob is released from "
            f"rest with the rod at {p['theta0']:g} degrees from the downward vertical, the "
            "bob displaced toward +x. The motion is the exact nonlinear pendulum, "
            "theta'' = -(g / L) sin(theta) with theta the rod's angle from the downward "
            "vertical, with no small-angle approximation (at this amplitude the period is "
            "markedly longer than 2 pi sqrt(L / g)); it swings for ever between +theta0 and "
            "-theta0. Coordinates: the pivot is the origin, x horizontal, y up; the bob is "
            "at (L sin(theta), -L cos(theta))."
        )


class ConicalPendulum(PhysicsKind):
    """A bob on a string moving in a horizontal circle at a constant half-angle."""

    name: ClassVar[str] = "conical_pendulum"
    level: ClassVar[Level] = "easy"
    dims: ClassVar[int] = 3
    params: ClassVar[tuple[Param, ...]] = (
        Param("L", span(0.5, 5.0, 0.5), "m", "string length", step=0.001),
        Param("alpha", span(10.0, 75.0, 5.0), "deg", "half-angle of the cone", step=0.02),
        gravity_param(),
    )

    def positions(self, p: Values, t: FloatArray) -> FloatArray:
        length, g = p["L"][:, None], p["g"][:, None]
        alpha = np.radians(p["alpha"])[:, None]
        # Tension's vertical part carries the weight, its horizontal part the centripetal
        # force: omega^2 = g / (L cos(alpha)).
        omega = np.sqrt(g / (length * np.cos(alpha)))
        r = length * np.sin(alpha)
        phase = omega * t[None, :]
        x, y = r * np.cos(phase), r * np.sin(phase)
        z = np.broadcast_to(-length * np.cos(alpha), x.shape)
        return np.stack([x, y, z], axis=-1)[:, :, None, :]

    def describe(self, p: Mapping[str, float]) -> str:
        return (
            "A conical pendulum: a point bob hangs from a fixed pivot on a light "
            f"inextensible string of length {p['L']:g} m, {place_of(p['g'])}, and moves at "
            "constant speed in a horizontal circle below the pivot, the string making a "
            f"constant angle of {p['alpha']:g} degrees with the downward vertical (no "
            "friction or air resistance). Its angular speed is the steady one for that "
            "angle, omega = sqrt(g / (L cos(alpha))), where the string's tension supplies "
            "both the bob's weight and its centripetal force. Coordinates: the pivot is the "
            "origin, x and y horizontal, z up. At t = 0 the bob is at azimuth 0, on the +x "
            "side of the circle (x = L sin(alpha), y = 0, z = -L cos(alpha)), and it moves "
            "counter-clockwise seen from above (from +x toward +y)."
        )
