"""A double pendulum released from rest (chaotic in general; moderate angles here)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import lru_cache
from typing import Any, ClassVar

import numpy as np

from blackboxes.box import Level
from blackboxes.families.psi._kind import FloatArray, Param, PhysicsKind, Values, span
from blackboxes.families.psi._ode import dense_reference, march

__all__ = [
    "G_EARTH",
    "M1",
    "MODEL_STEP",
    "DoublePendulum",
    "double_energy",
    "double_states",
    "normal_mode_frequencies",
]

G_EARTH = 9.81
"""m/s^2: the pendulum swings on Earth."""
M1 = 1.0
"""kg: the first bob's mass (only the ratio m2 / m1 changes the motion, so m2 varies)."""
MODEL_STEP = 0.01
"""Seconds: the particle model's RK4 step. At release angles up to 45 degrees it stays
within 4e-5 m of SciPy's DOP853 at 1e-12 tolerances over [0, 20] s (box code, at 0.002 s,
within 3e-6 m), and the particle set integrates 2.5 times fewer steps than at 0.004 s."""

Quad = tuple[FloatArray, FloatArray, FloatArray, FloatArray]


def _accelerations(
    p: Mapping[str, FloatArray], a: FloatArray, b: FloatArray, u: FloatArray, v: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """Angular accelerations (rad/s^2) at angles a, b (rad) and angular speeds u, v (rad/s):
    the Lagrange equations' 2x2 mass matrix solved by Cramer's rule."""
    l1, l2, m2 = p["L1"], p["L2"], p["m2"]
    total = M1 + m2
    d = a - b
    c, s = np.cos(d), np.sin(d)
    r1 = -(m2 * l2 * v * v * s + total * G_EARTH * np.sin(a))
    r2 = l1 * u * u * s - G_EARTH * np.sin(b)
    inv = 1.0 / (l1 * l2 * (total - m2 * c * c))
    return (l2 * r1 - m2 * l2 * c * r2) * inv, (total * l1 * r2 - l1 * c * r1) * inv


def _rk4(p: Mapping[str, FloatArray], y: Quad, h: float) -> Quad:
    a, b, u, v = y
    p1, q1 = _accelerations(p, a, b, u, v)
    hh = 0.5 * h
    a2, b2, u2, v2 = a + hh * u, b + hh * v, u + hh * p1, v + hh * q1
    p2, q2 = _accelerations(p, a2, b2, u2, v2)
    a3, b3, u3, v3 = a + hh * u2, b + hh * v2, u + hh * p2, v + hh * q2
    p3, q3 = _accelerations(p, a3, b3, u3, v3)
    a4, b4, u4, v4 = a + h * u3, b + h * v3, u + h * p3, v + h * q3
    p4, q4 = _accelerations(p, a4, b4, u4, v4)
    c = h / 6.0
    return (
        a + c * (u + 2.0 * (u2 + u3) + u4),
        b + c * (v + 2.0 * (v2 + v3) + v4),
        u + c * (p1 + 2.0 * (p2 + p3) + p4),
        v + c * (q1 + 2.0 * (q2 + q3) + q4),
    )


def double_states(p: Values, t: FloatArray, h: float = MODEL_STEP) -> FloatArray:
    """States (particles, len(t), 4) = (th1, th2, w1, w2) in rad and rad/s at times ``t``
    (s) of pendulums released from rest at ``th1``, ``th2`` (degrees): fixed-step RK4
    from t = 0, each time reached by a last, shortened step. The state is kept as four
    separate arrays (the vectorised integration's cost is in numpy calls, not flops)."""
    th1 = np.radians(np.asarray(p["th1"], dtype=float))
    shape = np.broadcast(*(np.asarray(p[n]) for n in ("L1", "L2", "m2", "th1", "th2"))).shape
    q = {n: np.broadcast_to(np.asarray(p[n], dtype=float), shape) for n in ("L1", "L2", "m2")}
    y: Quad = (
        np.broadcast_to(th1, shape).astype(float),
        np.broadcast_to(np.radians(np.asarray(p["th2"], dtype=float)), shape).astype(float),
        np.zeros(shape),
        np.zeros(shape),
    )
    t = np.asarray(t, dtype=float)
    out = np.empty((shape[0], len(t), 4))

    def put(j: int, state: Quad) -> None:
        out[:, j, :] = np.stack(state, axis=-1)

    march(lambda state, step: _rk4(q, state, step), y, t, h, put)
    return out


def _bobs(th1: FloatArray, th2: FloatArray, l1: FloatArray, l2: FloatArray) -> FloatArray:
    """Bob positions (..., 2 objects, 2) in metres, pivot at the origin, y up."""
    x1, y1 = l1 * np.sin(th1), -l1 * np.cos(th1)
    x2, y2 = x1 + l2 * np.sin(th2), y1 - l2 * np.cos(th2)
    return np.stack([np.stack([x1, y1], -1), np.stack([x2, y2], -1)], -2)


def double_energy(p: Values, states: FloatArray) -> FloatArray:
    """Total mechanical energy (J) of ``states`` (particles, times, 4), the pivot's height
    the zero of potential energy."""
    l1, l2, m2 = (np.asarray(p[n], dtype=float)[:, None] for n in ("L1", "L2", "m2"))
    a, b, u, v = (states[..., i] for i in range(4))
    kinetic = 0.5 * (M1 + m2) * (l1 * u) ** 2 + 0.5 * m2 * (l2 * v) ** 2
    kinetic = kinetic + m2 * l1 * l2 * u * v * np.cos(a - b)
    potential = -(M1 + m2) * G_EARTH * l1 * np.cos(a) - m2 * G_EARTH * l2 * np.cos(b)
    return np.asarray(kinetic + potential)


def normal_mode_frequencies(l1: float, l2: float, m2: float) -> tuple[float, float]:
    """The small-oscillation angular frequencies (rad/s), slow then fast: the roots of
    m1 l1 l2 w^4 - (m1 + m2) g (l1 + l2) w^2 + (m1 + m2) g^2 = 0."""
    total = M1 + m2
    mean = total * (l1 + l2)
    root = math.sqrt(mean * mean - 4.0 * total * M1 * l1 * l2)
    scale = G_EARTH / (2.0 * M1 * l1 * l2)
    return math.sqrt(scale * (mean - root)), math.sqrt(scale * (mean + root))


@lru_cache(maxsize=512)
def _reference_solution(l1: float, l2: float, m2: float, th1: float, th2: float) -> Any:
    """SciPy DOP853 (rtol = atol = 1e-12) over [0, T_MAX]: the dense solution of one rule
    (each query reads it instead of integrating again)."""
    total = M1 + m2

    def f(_: float, y: FloatArray) -> list[float]:
        a, b, u, v = (float(c) for c in y)
        c, s = math.cos(a - b), math.sin(a - b)
        r1 = -m2 * l2 * v * v * s - total * G_EARTH * math.sin(a)
        r2 = l1 * u * u * s - G_EARTH * math.sin(b)
        det = l1 * l2 * (total - m2 * c * c)
        return [u, v, (l2 * r1 - m2 * l2 * c * r2) / det, (total * l1 * r2 - l1 * c * r1) / det]

    return dense_reference(f, np.array([math.radians(th1), math.radians(th2), 0.0, 0.0]))[0]


class DoublePendulum(PhysicsKind):
    """Two point masses on massless rods, released from rest at moderate angles."""

    name: ClassVar[str] = "double_pendulum"
    level: ClassVar[Level] = "hard"
    particles: ClassVar[int] = 128
    objects: ClassVar[int] = 2
    params: ClassVar[tuple[Param, ...]] = (
        Param("L1", span(0.5, 1.5, 0.5), "m", "length of the upper rod", step=0.001),
        Param("L2", span(0.5, 1.5, 0.5), "m", "length of the lower rod", step=0.001),
        Param("m2", span(0.5, 1.5, 0.5), "kg", "mass of the second bob", step=0.002),
        # Up to 45 degrees the motion is regular enough over 20 s that a 0.002 s RK4
        # stays within 3e-6 m of the reference on every grid point (60 degrees is not).
        Param(
            "th1", span(-45.0, 45.0, 15.0), "degrees", "initial angle of the upper rod", step=0.1
        ),
        Param(
            "th2", span(-45.0, 45.0, 15.0), "degrees", "initial angle of the lower rod", step=0.2
        ),
    )

    def admissible(self, p: Values) -> np.ndarray[Any, np.dtype[np.bool_]]:
        # Both rods hanging straight down: at rest forever, and the same for every m2.
        return np.asarray((p["th1"] != 0.0) | (p["th2"] != 0.0))

    def positions(self, p: Values, t: FloatArray) -> FloatArray:
        states = double_states(p, np.asarray(t, dtype=float))
        l1, l2 = (np.asarray(p[n], dtype=float)[:, None] for n in ("L1", "L2"))
        return _bobs(states[..., 0], states[..., 1], l1, l2)

    def reference(self, p: Mapping[str, float], t: FloatArray) -> FloatArray:
        sol = _reference_solution(
            float(p["L1"]), float(p["L2"]), float(p["m2"]), float(p["th1"]), float(p["th2"])
        )
        t = np.asarray(t, dtype=float)
        states = sol(t) if len(t) else np.zeros((4, 0))
        return _bobs(states[0], states[1], np.asarray(float(p["L1"])), np.asarray(float(p["L2"])))

    def template_context(self, p: Mapping[str, float]) -> dict[str, Any]:
        return {**p, "m1": M1, "g": G_EARTH}

    def describe(self, p: Mapping[str, float]) -> str:
        return (
            "A double pendulum on Earth (g = 9.81 m/s^2), swinging in a vertical plane "
            "without friction or air resistance: a fixed pivot at the origin; a massless "
            f"rigid rod of length {p['L1']:g} m from the pivot to the first bob (a point "
            f"mass of {M1:g} kg); a second massless rigid rod of length {p['L2']:g} m from "
            f"the first bob to the second bob (a point mass of {p['m2']:g} kg). Each rod's "
            "angle is measured from the downward vertical, positive when the rod's lower end "
            "is at positive x (counter-clockwise), and the lower rod's angle is its own "
            "angle from the vertical, not relative to the upper rod. At t = 0 both bobs are "
            f"at rest, the upper rod at {p['th1']:g} degrees and the lower rod at "
            f"{p['th2']:g} degrees. Coordinates: the pivot is the origin, x horizontal, y "
            "vertical (up), so a bob below the pivot has y < 0; object1 is the first bob "
            f"(x = {p['L1']:g} sin(angle1), y = -{p['L1']:g} cos(angle1)) and object2 the "
            "second bob."
        )
