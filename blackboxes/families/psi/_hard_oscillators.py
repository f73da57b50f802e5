"""A damped mass on a spring, free or driven by a sinusoidal force (under-damped only).

Both obey m x'' = -k x - c x' (+ F0 cos(omega t)) about the spring's equilibrium, whose
solution is a closed form: an exponentially decaying cosine (the transient) plus, when
driven, the steady response at the driving frequency. The free oscillator's reference
is that closed form; the driven one's is SciPy's DOP853 integration of the equation of
motion, so the closed form is checked against an independent computation.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import lru_cache
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from blackboxes.box import Level
from blackboxes.families.psi._kind import FloatArray, Param, PhysicsKind, Values, span
from blackboxes.families.psi._ode import dense_reference

__all__ = [
    "DampedOscillator",
    "DrivenOscillator",
    "damped_displacement",
    "driven_displacement",
    "steady_response",
]

_MASS = Param("mass", span(0.5, 2.0, 0.5), "kg", "mass of the block", step=0.02)
_ZETA_MAX = 0.5
"""Largest damping ratio c / (2 sqrt(k m)) kept: well below critical damping (1), so
every admissible system visibly oscillates."""
_SQUEEZE = 0.5
"""Fraction of its natural length by which the free oscillator's spring may be squeezed
or stretched: the block stays well clear of the wall, as with a real coil spring."""
_DRIVEN_MIN = 0.05
"""Metres: the smallest steady amplitude kept (a smaller response is a few output units)."""
_DRIVEN_MAX = 3.0
"""Metres: a bound on how far the driven block may get from equilibrium."""


def _decay(mass: FloatArray, k: FloatArray, c: FloatArray) -> tuple[FloatArray, FloatArray]:
    """(gamma, omega_d): the envelope's decay rate c / (2 m) (1/s) and the damped angular
    frequency sqrt(k / m - gamma^2) (rad/s); under-damped parameters only."""
    gamma = c / (2.0 * mass)
    return gamma, np.sqrt(k / mass - gamma * gamma)


def damped_displacement(p: Values, t: FloatArray) -> FloatArray:
    """Displacement from equilibrium (m), shape (particles, len(t)), of a free damped
    oscillator (``mass`` kg, ``k`` N/m, ``c`` N s/m) starting at displacement ``d0`` (m)
    with velocity ``v0`` (m/s): exp(-gamma t) (d0 cos(wd t) + (v0 + gamma d0) / wd sin(wd t))."""
    mass, k, c, d0, v0 = (
        np.asarray(p[n], dtype=float)[:, None] for n in ("mass", "k", "c", "d0", "v0")
    )
    gamma, wd = _decay(mass, k, c)
    s = np.asarray(t, dtype=float)[None, :]
    phase = wd * s
    return np.asarray(
        np.exp(-gamma * s) * (d0 * np.cos(phase) + (v0 + gamma * d0) / wd * np.sin(phase))
    )


def steady_response(
    mass: FloatArray, k: FloatArray, c: FloatArray, f0: FloatArray, omega: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """(X, delta): the steady motion X cos(omega t - delta) under F0 cos(omega t), with
    X = F0 / sqrt((k - m omega^2)^2 + (c omega)^2) (m) and delta in [0, pi] the lag (rad)."""
    stiff = k - mass * omega * omega
    friction = c * omega
    return f0 / np.hypot(stiff, friction), np.arctan2(friction, stiff)


def _driven_terms(p: Values) -> tuple[FloatArray, ...]:
    """Per particle (column vectors): gamma, omega_d, the transient's cosine and sine
    amplitudes A and B (m), X, delta and omega, for a start at rest at equilibrium."""
    mass, k, c, f0, omega = (
        np.asarray(p[n], dtype=float)[:, None] for n in ("mass", "k", "c", "F0", "omega")
    )
    gamma, wd = _decay(mass, k, c)
    amp, lag = steady_response(mass, k, c, f0, omega)
    # x(0) = 0 and x'(0) = 0 fix the transient against the steady part's start.
    a = -amp * np.cos(lag)
    b = (gamma * a - amp * omega * np.sin(lag)) / wd
    return gamma, wd, a, b, amp, lag, omega


def driven_displacement(p: Values, t: FloatArray) -> FloatArray:
    """Displacement from equilibrium (m), shape (particles, len(t)), of a damped oscillator
    (``mass``, ``k``, ``c``) at rest at equilibrium at t = 0, driven by ``F0`` cos(``omega`` t)
    (N, rad/s)."""
    gamma, wd, a, b, amp, lag, omega = _driven_terms(p)
    s = np.asarray(t, dtype=float)[None, :]
    transient = np.exp(-gamma * s) * (a * np.cos(wd * s) + b * np.sin(wd * s))
    return np.asarray(transient + amp * np.cos(omega * s - lag))


def _stack_x(x: FloatArray) -> FloatArray:
    """(particles, times) x -> (particles, times, 1 object, 2) with y = 0."""
    return np.stack([x, np.zeros_like(x)], axis=-1)[:, :, None, :]


def _zeta(p: Values) -> FloatArray:
    return np.asarray(p["c"] / (2.0 * np.sqrt(p["k"] * p["mass"])))


class DampedOscillator(PhysicsKind):
    """A block on a spring fixed to a wall, with a viscous damper, released off equilibrium."""

    name: ClassVar[str] = "damped_oscillator"
    level: ClassVar[Level] = "hard"
    params: ClassVar[tuple[Param, ...]] = (
        _MASS,
        # Stiffnesses of 3 mod 4 N/m against masses of 0.5 to 2 kg make every k / m
        # different, so no two grid points share both natural frequency and decay rate
        # (scaling m, k and c together would leave the motion unchanged).
        Param("k", span(3.0, 31.0, 4.0), "N/m", "spring stiffness", step=0.5),
        Param("c", span(0.2, 2.0, 0.3), "N s/m", "damping coefficient", step=0.1),
        Param("d0", span(0.1, 0.3, 0.1), "m", "initial stretch of the spring", step=0.02),
        Param(
            "v0",
            (-0.5, 0.0, 0.5),
            "m/s",
            "initial velocity (positive away from the wall)",
            step=0.05,
        ),
        Param("L", (1.0, 1.5), "m", "natural length of the spring", step=0.02),
    )

    def admissible(self, p: Values) -> npt.NDArray[np.bool_]:
        """Damping ratio at most 0.5, and the spring never squeezed or stretched by more
        than half its natural length (the envelope sqrt(d0^2 + B^2) bounds the swing)."""
        zeta = _zeta(p)
        # Points past the damping limit are dropped anyway; undamped stand-ins keep the
        # square root real.
        gamma, wd = _decay(p["mass"], p["k"], np.where(zeta <= _ZETA_MAX, p["c"], 0.0))
        swing = np.hypot(p["d0"], (p["v0"] + gamma * p["d0"]) / wd)
        return np.asarray((zeta <= _ZETA_MAX) & (swing <= _SQUEEZE * p["L"]))

    def positions(self, p: Values, t: FloatArray) -> FloatArray:
        x = np.asarray(p["L"], dtype=float)[:, None] + damped_displacement(p, t)
        return _stack_x(x)

    def describe(self, p: Mapping[str, float]) -> str:
        return (
            f"A block of mass {p['mass']:g} kg (treated as a point) slides along a straight "
            "horizontal track, the x axis. It is joined to a fixed wall at x = 0 by a light "
            f"ideal spring of stiffness {p['k']:g} N/m and natural length {p['L']:g} m, and by "
            "a linear viscous damper (a dashpot) alongside the spring that pushes against "
            f"the block's velocity v with force -c v, c = {p['c']:g} N s/m; there is no other "
            "friction. With x the block's distance from the wall its equation of motion is "
            f"{p['mass']:g} x'' = -{p['k']:g} (x - {p['L']:g}) - {p['c']:g} x'. At t = 0 the "
            f"spring is stretched by {p['d0']:g} m (the block is at x = {p['L'] + p['d0']:g} m) "
            f"and the block moves with velocity {p['v0']:g} m/s along x (positive away from "
            "the wall, negative towards it). The damping is below critical, so the block "
            f"oscillates about x = {p['L']:g} m with an exponentially shrinking amplitude. "
            "Coordinates: x = the block's distance from the wall, y = 0 always."
        )


@lru_cache(maxsize=512)
def _driven_reference(mass: float, k: float, c: float, f0: float, omega: float) -> Any:
    """SciPy DOP853 (rtol = atol = 1e-12) over [0, T_MAX] of m x'' = -k x - c x' +
    F0 cos(omega t) from rest at x = 0: the dense solution of one rule."""

    def f(time: float, y: FloatArray) -> list[float]:
        x, v = float(y[0]), float(y[1])
        return [v, (f0 * math.cos(omega * time) - k * x - c * v) / mass]

    return dense_reference(f, np.zeros(2))[0]


class DrivenOscillator(PhysicsKind):
    """A damped block on a spring, at rest until a sinusoidal force starts at t = 0."""

    name: ClassVar[str] = "driven_oscillator"
    level: ClassVar[Level] = "hard"
    params: ClassVar[tuple[Param, ...]] = (
        _MASS,
        # As for the free oscillator: every k / m on the grid is different.
        Param("k", span(3.0, 39.0, 4.0), "N/m", "spring stiffness", step=0.5),
        Param("c", (0.3, 0.6, 1.2), "N s/m", "damping coefficient"),
        Param("F0", span(1.0, 4.0, 1.0), "N", "amplitude of the driving force", step=0.2),
        Param(
            "omega",
            span(1.0, 8.0, 1.0),
            "rad/s",
            "angular frequency of the driving force",
            step=0.005,
        ),
    )

    def admissible(self, p: Values) -> npt.NDArray[np.bool_]:
        """Damping ratio at most 0.5, a steady amplitude of at least 5 cm, and the block
        never farther than 3 m from equilibrium (steady amplitude plus the transient's)."""
        zeta = _zeta(p)
        # As for the free oscillator: stand-ins for the points dropped anyway.
        under = {**p, "c": np.where(zeta <= _ZETA_MAX, p["c"], 0.0)}
        _, _, a, b, amp, _, _ = _driven_terms(under)
        reach = (amp + np.hypot(a, b))[:, 0]
        return np.asarray((zeta <= _ZETA_MAX) & (amp[:, 0] >= _DRIVEN_MIN) & (reach <= _DRIVEN_MAX))

    def positions(self, p: Values, t: FloatArray) -> FloatArray:
        return _stack_x(driven_displacement(p, t))

    def reference(self, p: Mapping[str, float], t: FloatArray) -> FloatArray:
        sol = _driven_reference(*(float(p[n]) for n in ("mass", "k", "c", "F0", "omega")))
        t = np.asarray(t, dtype=float)
        x = sol(t)[0] if len(t) else np.zeros(0)
        return np.stack([x, np.zeros_like(x)], axis=-1)[:, None, :]

    def describe(self, p: Mapping[str, float]) -> str:
        return (
            f"A block of mass {p['mass']:g} kg (treated as a point) moves along a straight "
            "horizontal track, the x axis, joined to a fixed wall on its -x side by a light "
            f"ideal spring of stiffness {p['k']:g} N/m and by a linear viscous damper (a "
            "dashpot) that pushes against its velocity v with force -c v, c = "
            f"{p['c']:g} N s/m; there is no other "
            "friction. x is the block's displacement from its equilibrium position (where the "
            "spring has its natural length). From t = 0 on, an external horizontal force "
            f"F(t) = {p['F0']:g} cos({p['omega']:g} t) N acts on the block along x (amplitude "
            f"{p['F0']:g} N, angular frequency {p['omega']:g} rad/s, t in seconds; at t = 0 it "
            "pushes towards +x, away from the wall). The equation of motion is "
            f"{p['mass']:g} x'' = -{p['k']:g} x - {p['c']:g} x' "
            f"+ {p['F0']:g} cos({p['omega']:g} t). "
            "At t = 0 the block is at rest at x = 0. The damping is below critical: the free "
            "oscillation this start excites dies away while the motion settles into a steady "
            "oscillation at the driving frequency. Coordinates: x = the block's displacement "
            "from equilibrium, y = 0 always."
        )
