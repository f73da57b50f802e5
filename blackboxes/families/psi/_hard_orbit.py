"""A body on an elliptic Kepler orbit about a fixed centre of inverse-square gravity.

A toy system: the centre's gravitational parameter GM is tens to hundreds of m^3/s^2,
so orbits are metres across and take seconds (a real lab-sized mass has GM near
1e-10 m^3/s^2). The particle model places the body by Kepler's equation, solved by
Newton's method (vectorised); the reference integrates Newton's equations of motion
with SciPy's DOP853, an independent computation.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import lru_cache
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from blackboxes.box import Level
from blackboxes.families.psi._kind import (
    T_STEP,
    FloatArray,
    Param,
    PhysicsKind,
    Values,
    span,
)
from blackboxes.families.psi._ode import dense_reference

__all__ = ["KeplerOrbit", "eccentric_anomaly", "orbit_elements"]

_E_MIN = 0.05
"""Smallest eccentricity kept: nearer a circle the start is hardly a periapsis."""
_E_MAX = 0.8
"""Largest eccentricity kept: the periapsis passage stays slow against the 0.1 s queries."""
_R_MAX = 20.0
"""Metres: the farthest the body may get from the centre (its apoapsis)."""
_PERIOD = (5.0, 30.0)
"""Seconds: the orbital periods kept (at least two thirds of an orbit in [0, T_MAX])."""
_MAX_TURN = 1.5
"""Radians per query step (0.1 s) at periapsis, where the body turns fastest."""
_NEWTON_MAX = 50
"""Newton iterations allowed for Kepler's equation (from Danby's start it takes < 10)."""
_NEWTON_TOL = 1e-14
"""Radians: Newton stops once no correction is larger."""


def orbit_elements(
    gm: FloatArray, rp: FloatArray, vp: FloatArray
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """(e, a, n): eccentricity, semi-major axis (m) and mean motion (rad/s) of an orbit
    whose periapsis is at ``rp`` (m) with speed ``vp`` (m/s) about ``gm`` (m^3/s^2): at
    periapsis the speed is sqrt(GM (1 + e) / rp), and n = sqrt(GM / a^3)."""
    e = rp * vp * vp / gm - 1.0
    a = rp / (1.0 - e)
    return e, a, np.sqrt(gm / (a * a * a))


def eccentric_anomaly(mean: FloatArray, e: FloatArray) -> FloatArray:
    """E solving Kepler's equation E - e sin E = M (radians, broadcast arrays, 0 <= e < 1),
    by Newton's method from Danby's start M + 0.85 e sign(sin M), which converges for
    every M and e; M is first reduced to [-pi, pi) (E is then reduced the same way)."""
    m, e = np.broadcast_arrays(
        np.mod(np.asarray(mean, dtype=float) + math.pi, 2.0 * math.pi) - math.pi,
        np.asarray(e, dtype=float),
    )
    big_e = m + 0.85 * e * np.sign(np.sin(m))
    for _ in range(_NEWTON_MAX):
        step = (big_e - e * np.sin(big_e) - m) / (1.0 - e * np.cos(big_e))
        big_e = big_e - step
        if not np.any(np.abs(step) > _NEWTON_TOL):
            break
    return np.asarray(big_e)


def _start(p: Mapping[str, Any]) -> tuple[Any, Any]:
    """(cos phi, sin phi) of the periapsis direction phi (degrees)."""
    phi = np.radians(np.asarray(p["phi"], dtype=float))
    return np.cos(phi), np.sin(phi)


@lru_cache(maxsize=512)
def _reference_solution(gm: float, rp: float, vp: float, phi: float) -> Any:
    """SciPy DOP853 (rtol = atol = 1e-12) over [0, T_MAX] of r'' = -GM r / |r|^3 from
    periapsis: the dense solution of one rule."""

    def f(_: float, y: FloatArray) -> list[float]:
        x, z, vx, vz = (float(c) for c in y)
        r = math.hypot(x, z)
        q = -gm / (r * r * r)
        return [vx, vz, q * x, q * z]

    c, s = math.cos(math.radians(phi)), math.sin(math.radians(phi))
    return dense_reference(f, np.array([rp * c, rp * s, -vp * s, vp * c]))[0]


class KeplerOrbit(PhysicsKind):
    """A point body released at periapsis, orbiting a fixed inverse-square centre."""

    name: ClassVar[str] = "kepler_orbit"
    level: ClassVar[Level] = "hard"
    params: ClassVar[tuple[Param, ...]] = (
        Param(
            "GM",
            span(10.0, 200.0, 10.0),
            "m^3/s^2",
            "gravitational parameter of the centre",
            step=0.005,
        ),
        Param("rp", span(1.0, 8.0, 0.5), "m", "periapsis distance (closest approach)", step=0.0002),
        Param("vp", span(1.5, 15.0, 0.5), "m/s", "speed at periapsis", step=0.0002),
        Param(
            "phi", span(0.0, 300.0, 60.0), "degrees", "direction of the periapsis from +x", step=0.1
        ),
    )
    nuisance: ClassVar[tuple[Param, ...]] = (
        Param("mass", span(0.1, 1.0, 0.1), "kg", "mass of the orbiting body"),
    )

    def admissible(self, p: Values) -> npt.NDArray[np.bool_]:
        """Ellipses with eccentricity 0.05..0.8, apoapsis within 20 m, a period of 5 to
        30 s, and at most 1.5 rad of turn per 0.1 s at periapsis."""
        e = p["rp"] * p["vp"] ** 2 / p["GM"] - 1.0
        ellipse = (e >= _E_MIN) & (e <= _E_MAX)
        # Stand-ins off the kept range keep a and the period finite.
        e_in = np.where(ellipse, e, 0.5)
        a = p["rp"] / (1.0 - e_in)
        period = 2.0 * math.pi * np.sqrt(a**3 / p["GM"])
        return np.asarray(
            ellipse
            & (a * (1.0 + e_in) <= _R_MAX)
            & (period >= _PERIOD[0])
            & (period <= _PERIOD[1])
            & (p["vp"] / p["rp"] * T_STEP <= _MAX_TURN)
        )

    def positions(self, p: Values, t: FloatArray) -> FloatArray:
        gm, rp, vp = (np.asarray(p[n], dtype=float)[:, None] for n in ("GM", "rp", "vp"))
        e, a, n = orbit_elements(gm, rp, vp)
        big_e = eccentric_anomaly(n * np.asarray(t, dtype=float)[None, :], e)
        # In the orbit's own frame (periapsis on +x, motion counter-clockwise).
        u = a * (np.cos(big_e) - e)
        w = a * np.sqrt(1.0 - e * e) * np.sin(big_e)
        c, s = (v[:, None] for v in _start(p))
        return np.stack([u * c - w * s, u * s + w * c], axis=-1)[:, :, None, :]

    def reference(self, p: Mapping[str, float], t: FloatArray) -> FloatArray:
        sol = _reference_solution(*(float(p[n]) for n in ("GM", "rp", "vp", "phi")))
        t = np.asarray(t, dtype=float)
        states = sol(t) if len(t) else np.zeros((4, 0))
        return np.stack([states[0], states[1]], axis=-1)[:, None, :]

    def describe(self, p: Mapping[str, float]) -> str:
        rad = math.radians(p["phi"])
        # Rounded, so that 90 degrees reads (0, rp) rather than (6.1e-17, rp).
        x0, y0 = (round(p["rp"] * f(rad), 6) + 0.0 for f in (math.cos, math.sin))
        return (
            f"A toy gravitational system: a small body (the planet, a point of mass "
            f"{p['mass']:g} kg) orbits a fixed point-like centre (the star) at the origin, "
            "in the x-y plane, attracted by inverse-square gravity alone. The star's "
            f"gravitational parameter is GM = {p['GM']:g} m^3/s^2 (far more than any "
            "object this size really has, so that the orbit is metres across and takes "
            "seconds); the star does not move, and the planet's own mass does not affect "
            "its motion: its acceleration is -GM r / |r|^3, r its position vector. At t = 0 "
            f"the planet is at its periapsis (closest approach), {p['rp']:g} m from the star "
            f"in the direction {p['phi']:g} degrees counter-clockwise from the +x axis, i.e. "
            f"at ({x0:g}, {y0:g}), moving at {p['vp']:g} m/s "
            "perpendicular to that direction, counter-clockwise about the star (the "
            f"direction {(p['phi'] + 90.0) % 360.0:g} degrees from +x). Its orbit is an "
            "ellipse with the star at one focus. Coordinates: x, y of the planet in metres, "
            "the star at the origin."
        )
