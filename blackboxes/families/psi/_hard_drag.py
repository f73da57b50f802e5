"""A projectile with quadratic air drag that stops dead where it lands (no closed form)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import lru_cache
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from blackboxes.box import Level
from blackboxes.families.psi._common import gravity_param, place_of
from blackboxes.families.psi._kind import FloatArray, Param, PhysicsKind, Values, span
from blackboxes.families.psi._ode import dense_reference

__all__ = ["DragProjectile", "drag_flight", "hermite_landing"]

_NEWTON = 8
"""Newton iterations for the landing instant inside a step (the cubic is nearly linear
there, so two or three already reach rounding error; a fixed count keeps it branch-free)."""

MODEL_STEP = 0.01
"""Seconds: the particle model's RK4 step (box code uses 0.002 s). Within 2e-8 m of
SciPy's DOP853 at 1e-12 over [0, 20] s, and five times fewer steps for the particles."""


def _deriv(s: FloatArray, k: FloatArray, g: FloatArray) -> FloatArray:
    """d/dt of states (particles, 4) = (x, y, vx, vy): gravity plus drag -k |v| v."""
    v = s[:, 2:]
    speed = np.sqrt(v[:, 0] * v[:, 0] + v[:, 1] * v[:, 1])
    acc = -(k * speed)[:, None] * v
    acc[:, 1] -= g
    return np.concatenate([v, acc], axis=1)


def _rk4(s: FloatArray, h: float, k: FloatArray, g: FloatArray) -> FloatArray:
    k1 = _deriv(s, k, g)
    k2 = _deriv(s + 0.5 * h * k1, k, g)
    k3 = _deriv(s + 0.5 * h * k2, k, g)
    k4 = _deriv(s + h * k3, k, g)
    return s + (h / 6.0) * (k1 + 2.0 * k2 + 2.0 * k3 + k4)


def hermite_landing(a: FloatArray, b: FloatArray, h: float) -> tuple[FloatArray, FloatArray]:
    """Where states ``a`` and ``b`` (particles, 4), one step ``h`` (s) apart with a's
    height > 0 >= b's, cross y = 0: (fraction of the step in [0, 1], x in metres).

    The cubic Hermite interpolant through both ends' positions and velocities is
    accurate to O(h^4) (about 1e-11 m at h = 0.002 s), far inside the 0.005 m the
    landing point must be known to; Newton starts from the chord's root.
    """
    y0, y1 = a[:, 1], b[:, 1]
    dy0, dy1 = h * a[:, 3], h * b[:, 3]
    tau = np.clip(y0 / np.where(y0 - y1 > 0.0, y0 - y1, 1.0), 0.0, 1.0)
    for _ in range(_NEWTON):
        t2, t3 = tau * tau, tau * tau * tau
        value = (
            (2 * t3 - 3 * t2 + 1) * y0 + (t3 - 2 * t2 + tau) * dy0 + (3 * t2 - 2 * t3) * y1
        ) + (t3 - t2) * dy1
        slope = (
            (6 * t2 - 6 * tau) * (y0 - y1) + (3 * t2 - 4 * tau + 1) * dy0 + (3 * t2 - 2 * tau) * dy1
        )
        tau = np.clip(tau - value / np.where(slope < 0.0, slope, -1.0), 0.0, 1.0)
    t2, t3 = tau * tau, tau * tau * tau
    x = (
        (2 * t3 - 3 * t2 + 1) * a[:, 0]
        + (t3 - 2 * t2 + tau) * h * a[:, 2]
        + (3 * t2 - 2 * t3) * b[:, 0]
        + (t3 - t2) * h * b[:, 2]
    )
    return tau, x


def drag_flight(p: Values, t: FloatArray, h: float = MODEL_STEP) -> FloatArray:
    """Positions (particles, len(t), 2) in metres of balls launched from the origin with
    speed ``v0`` (m/s) at ``theta`` (degrees), drag ``k`` (1/m) and gravity ``g`` (m/s^2),
    each resting where it lands: fixed-step RK4 from t = 0, every time ``t`` (s) reached by
    a last, shortened step from the step below it (as the box code does)."""
    v0, theta = np.broadcast_arrays(*(np.asarray(p[n], dtype=float) for n in ("v0", "theta")))
    k = np.broadcast_to(np.asarray(p["k"], dtype=float), v0.shape).astype(float)
    g = np.broadcast_to(np.asarray(p["g"], dtype=float), v0.shape).astype(float)
    count = v0.shape[0]
    rad = np.radians(theta)
    state = np.stack([np.zeros(count), np.zeros(count), v0 * np.cos(rad), v0 * np.sin(rad)], 1)
    t = np.asarray(t, dtype=float)
    out = np.full((count, len(t), 2), np.nan)
    land_t = np.full(count, np.inf)
    land_x = np.zeros(count)
    # Landing steps are collected and solved once at the end (one vectorised root-find).
    starts: list[FloatArray] = []
    ends: list[FloatArray] = []
    owners: list[npt.NDArray[np.intp]] = []
    steps_at: list[int] = []

    def record(start: FloatArray, end: FloatArray, who: npt.NDArray[np.intp], step: int) -> None:
        down = end[:, 1] <= 0.0
        if down.any():
            starts.append(start[down])
            ends.append(end[down])
            owners.append(who[down])
            steps_at.append(step)

    active: npt.NDArray[np.intp] = np.arange(count, dtype=np.intp)
    now = 0
    nxt = _rk4(state, h, k, g)
    record(state, nxt, active, now)
    for j in np.argsort(t, kind="stable"):
        target = float(t[j])
        steps = int(np.floor(target / h + 1e-9))
        while now < steps and len(active):
            # Balls whose step now -> now + 1 lands are on the ground from now + 1 on.
            keep = nxt[:, 1] > 0.0
            active, state, now = active[keep], nxt[keep], now + 1
            nxt = _rk4(state, h, k[active], g[active])
            record(state, nxt, active, now)
        if not len(active):
            break
        rest = target - now * h
        part = _rk4(state, rest, k[active], g[active]) if rest > 1e-12 else state
        out[active, j, :] = part[:, :2]
    if starts:
        tau, x = hermite_landing(np.concatenate(starts), np.concatenate(ends), h)
        who = np.concatenate(owners)
        base = np.concatenate([np.full(len(o), s) for o, s in zip(owners, steps_at, strict=True)])
        land_t[who] = (base + tau) * h
        land_x[who] = x
    landed = t[None, :] >= land_t[:, None]
    out[:, :, 0] = np.where(landed, land_x[:, None], out[:, :, 0])
    out[:, :, 1] = np.where(landed, 0.0, np.maximum(out[:, :, 1], 0.0))
    return out


@lru_cache(maxsize=512)
def _reference_solution(v0: float, theta: float, k: float, g: float) -> tuple[Any, float, float]:
    """SciPy DOP853 (rtol = atol = 1e-12) with an event at y = 0 on the way down: the
    dense solution, the landing time (s; inf when it lands after T_MAX) and landing x (m)."""

    def f(_: float, s: FloatArray) -> FloatArray:
        speed = math.hypot(s[2], s[3])
        return np.array([s[2], s[3], -k * speed * s[2], -g - k * speed * s[3]])

    def ground(_: float, s: FloatArray) -> float:
        return float(s[1])

    rad = math.radians(theta)
    start = np.array([0.0, 0.0, v0 * math.cos(rad), v0 * math.sin(rad)])
    sol, land_t, state = dense_reference(f, start, ground)
    return sol, land_t, 0.0 if state is None else float(state[0])


class DragProjectile(PhysicsKind):
    """A ball launched from the ground with quadratic air drag; it stops where it lands."""

    name: ClassVar[str] = "drag_projectile"
    level: ClassVar[Level] = "hard"
    particles: ClassVar[int] = 128
    params: ClassVar[tuple[Param, ...]] = (
        Param("v0", span(10.0, 40.0, 5.0), "m/s", "launch speed", step=0.01),
        Param("theta", span(20.0, 70.0, 10.0), "degrees", "launch elevation angle", step=0.02),
        Param("k", span(0.005, 0.05, 0.005), "1/m", "drag coefficient over mass", step=2e-05),
        gravity_param(),
    )

    def positions(self, p: Values, t: FloatArray) -> FloatArray:
        return drag_flight(p, np.asarray(t, dtype=float))[:, :, None, :]

    def reference(self, p: Mapping[str, float], t: FloatArray) -> FloatArray:
        sol, land_t, land_x = _reference_solution(
            float(p["v0"]), float(p["theta"]), float(p["k"]), float(p["g"])
        )
        t = np.asarray(t, dtype=float)
        out = np.zeros((len(t), 1, 2))
        flying = t < land_t
        if flying.any():
            states = sol(t[flying])
            out[flying, 0, 0] = states[0]
            out[flying, 0, 1] = np.maximum(states[1], 0.0)
        out[~flying, 0, 0] = land_x
        return out

    def describe(self, p: Mapping[str, float]) -> str:
        return (
            f"A small ball (treated as a point) is launched at t = 0 from the origin, on flat "
            f"horizontal ground {place_of(p['g'])}, with speed {p['v0']:g} m/s at "
            f"{p['theta']:g} degrees above the horizontal, moving towards +x. Besides "
            "gravity it feels quadratic air drag: with velocity v = (vx, vy) and speed "
            "|v| = sqrt(vx^2 + vy^2), its acceleration is ax = -k |v| vx, "
            f"ay = -g - k |v| vy, where k = {p['k']:g} 1/m (drag coefficient divided by the "
            "mass). There is no wind. When the ball comes back down to the ground (y = 0) it "
            "stops dead at the point where it lands and stays there for all later times. "
            "Coordinates: x = horizontal distance of the ball from the launch point (in the "
            "direction of launch), y = its height above the ground."
        )
