"""A boat crossing a river with a parabolic current, always steering at a point on the
far bank (a pursuit curve in a shear flow: no closed form)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import lru_cache
from typing import Any, ClassVar

import numpy as np

from blackboxes.box import Level
from blackboxes.families.psi._kind import FloatArray, Param, PhysicsKind, Values, span
from blackboxes.families.psi._ode import dense_reference

__all__ = ["ARRIVAL_RADIUS", "RiverBoat", "river_path", "river_velocity"]

ARRIVAL_RADIUS = 0.015
"""Metres: once a step ends this close to the target, the boat finishes in a straight
line. The heading's direction turns by 1/r per metre sideways, so RK4 steps must stay
clear of the target (a step covers at most 4 m/s * 0.002 s = 0.008 m there, the current
vanishing at the bank); over the last 0.015 m the current (under 1.2 /s times the
distance from the bank) bends the path by under 2e-4 m."""
_REF_RADIUS = 1e-7
"""Metres: the reference stops its integration this close to the target."""

Pair = tuple[FloatArray, FloatArray]

MODEL_STEP = 0.004
"""Seconds: the particle model's RK4 step (box code uses 0.002 s). The arrival at the
target is found within a step; at 0.004 s it stays within the tests' 1e-3 m of SciPy's
DOP853 (at 0.005 s it moves by 2e-3 m), at half the box's cost for the particles."""


def river_velocity(x: FloatArray, y: FloatArray, p: Mapping[str, FloatArray]) -> Pair:
    """Ground velocity (m/s) at (x, y): the current 4 u_max y (W - y) / W^2 along +x plus
    speed ``v`` through the water aimed at the target (``aim``, ``W``)."""
    width = p["W"]
    return _velocity(x, y, width, p["aim"], p["v"], 4.0 * p["u_max"] / (width * width))


def _velocity(
    x: FloatArray, y: FloatArray, width: FloatArray, aim: FloatArray, v: FloatArray, c: FloatArray
) -> Pair:
    """:func:`river_velocity` with the current's 4 u_max / W^2 given as ``c``."""
    dx, dy = aim - x, width - y
    q = v / np.sqrt(dx * dx + dy * dy)
    return c * y * dy + q * dx, q * dy


def _rk4(x: FloatArray, y: FloatArray, h: float, q: tuple[FloatArray, ...]) -> Pair:
    a1, b1 = _velocity(x, y, *q)
    hh = 0.5 * h
    a2, b2 = _velocity(x + hh * a1, y + hh * b1, *q)
    a3, b3 = _velocity(x + hh * a2, y + hh * b2, *q)
    a4, b4 = _velocity(x + h * a3, y + h * b3, *q)
    c = h / 6.0
    return x + c * (a1 + 2.0 * (a2 + a3) + a4), y + c * (b1 + 2.0 * (b2 + b3) + b4)


def river_path(p: Values, t: FloatArray, h: float = MODEL_STEP) -> FloatArray:
    """Positions (particles, len(t), 2) in metres of boats leaving the origin at t = 0:
    fixed-step RK4 from t = 0, each time reached by a last, shortened step, until a step
    ends within ``ARRIVAL_RADIUS`` of the target; from there the boat goes straight to
    the target at its closing speed of that moment and stays there (as the box code)."""
    names = ("W", "u_max", "v", "aim")
    shape = np.broadcast(*(np.asarray(p[n]) for n in names)).shape
    full = {n: np.broadcast_to(np.asarray(p[n], dtype=float), shape).astype(float) for n in names}
    count = shape[0]
    width, aim = full["W"], full["aim"]
    # The active boats' (W, aim, v, 4 u_max / W^2), as _velocity takes them.
    q: tuple[FloatArray, ...] = (width, aim, full["v"], 4.0 * full["u_max"] / (width * width))
    t = np.asarray(t, dtype=float)
    out = np.full((count, len(t), 2), np.nan)
    finish_step = np.full(count, np.iinfo(np.int64).max)
    finish_x, finish_y, finish_span = np.zeros(count), np.zeros(count), np.ones(count)
    active = np.arange(count)
    x, y = np.zeros(count), np.zeros(count)
    now = 0

    def settle() -> None:
        # Boats whose state at step `now` is near the target finish in a straight line.
        nonlocal active, q, x, y
        dx, dy = q[1] - x, q[0] - y
        gap = np.sqrt(dx * dx + dy * dy)
        near = gap <= ARRIVAL_RADIUS
        if near.any():
            who = active[near]
            finish_step[who] = now
            finish_x[who], finish_y[who] = x[near], y[near]
            vx, vy = _velocity(x[near], y[near], *(c[near] for c in q))
            # Distance over closing speed (the velocity's component towards the target).
            finish_span[who] = gap[near] ** 2 / (vx * dx[near] + vy * dy[near])
            keep = ~near
            active, x, y = active[keep], x[keep], y[keep]
            q = tuple(c[keep] for c in q)

    settle()
    for j in np.argsort(t, kind="stable"):
        target = float(t[j])
        steps = int(np.floor(target / h + 1e-9))
        while now < steps and len(active):
            x, y = _rk4(x, y, h, q)
            now += 1
            settle()
        if not len(active):
            break
        rest = target - now * h
        xs, ys = _rk4(x, y, rest, q) if rest > 1e-12 else (x, y)
        out[active, j, 0], out[active, j, 1] = xs, ys
    n = np.floor(t / h + 1e-9)[None, :]
    done = n >= finish_step[:, None]
    frac = np.clip((t[None, :] - finish_step[:, None] * h) / finish_span[:, None], 0.0, 1.0)
    # Written from the target, so a finished boat sits exactly on it.
    end_x = aim[:, None] - (aim[:, None] - finish_x[:, None]) * (1.0 - frac)
    end_y = width[:, None] - (width[:, None] - finish_y[:, None]) * (1.0 - frac)
    out[:, :, 0] = np.where(done, end_x, out[:, :, 0])
    out[:, :, 1] = np.where(done, end_y, out[:, :, 1])
    return out


@lru_cache(maxsize=512)
def _reference_solution(
    width: float, u_max: float, v: float, aim: float
) -> tuple[Any, float, float, float, float]:
    """SciPy DOP853 (rtol = atol = 1e-12) until the boat is within 1e-7 m of the target:
    the dense solution, when and where (x, y) that happens (inf after T_MAX) and the time
    the last 1e-7 m takes at the closing speed there."""

    def f(_: float, s: FloatArray) -> list[float]:
        x, y = float(s[0]), float(s[1])
        dx, dy = aim - x, width - y
        r = math.hypot(dx, dy)
        return [4.0 * u_max * y * dy / (width * width) + v * dx / r, v * dy / r]

    def near(_: float, s: FloatArray) -> float:
        return math.hypot(aim - float(s[0]), width - float(s[1])) - _REF_RADIUS

    sol, when, state = dense_reference(f, np.zeros(2), near)
    if state is None:
        return sol, math.inf, 0.0, 0.0, 1.0
    x, y = (float(c) for c in state)
    vx, vy = f(0.0, np.array([x, y]))
    r = math.hypot(aim - x, width - y)
    return sol, when, x, y, r * r / (vx * (aim - x) + vy * (width - y))


class RiverBoat(PhysicsKind):
    """A boat steering at a fixed point of the far bank across a parabolic current."""

    name: ClassVar[str] = "river_boat"
    level: ClassVar[Level] = "hard"
    particles: ClassVar[int] = 128
    params: ClassVar[tuple[Param, ...]] = (
        Param("W", span(10.0, 40.0, 5.0), "m", "width of the river", step=0.02),
        Param("u_max", span(0.5, 3.0, 0.5), "m/s", "current speed at mid-river", step=0.002),
        # At most 4 m/s: ARRIVAL_RADIUS keeps a 0.002 s step clear of the target.
        Param("v", span(1.5, 4.0, 0.5), "m/s", "boat's speed relative to the water", step=0.001),
        Param("aim", span(-10.0, 10.0, 5.0), "m", "downstream position of the target", step=0.02),
    )

    def positions(self, p: Values, t: FloatArray) -> FloatArray:
        return river_path(p, np.asarray(t, dtype=float))[:, :, None, :]

    def reference(self, p: Mapping[str, float], t: FloatArray) -> FloatArray:
        width, aim = float(p["W"]), float(p["aim"])
        sol, t_near, x, y, last = _reference_solution(width, float(p["u_max"]), float(p["v"]), aim)
        t = np.asarray(t, dtype=float)
        out = np.zeros((len(t), 1, 2))
        moving = t < t_near
        if moving.any():
            states = sol(t[moving])
            out[moving, 0, 0], out[moving, 0, 1] = states[0], states[1]
        if (~moving).any():
            frac = np.clip((t[~moving] - t_near) / last, 0.0, 1.0)
            out[~moving, 0, 0] = aim - (aim - x) * (1.0 - frac)
            out[~moving, 0, 1] = width - (width - y) * (1.0 - frac)
        return out

    def describe(self, p: Mapping[str, float]) -> str:
        width, u_max = p["W"], p["u_max"]
        return (
            f"A straight river of width {width:g} m flows between two parallel straight "
            "banks, along +x. Its current depends only on the distance y from the near "
            f"bank: u(y) = 4 * {u_max:g} * y * ({width:g} - y) / {width:g}^2 m/s along +x, "
            f"zero at both banks and {u_max:g} m/s at mid-river (a parabolic profile); it "
            "does not vary along the river or in time. At t = 0 a boat (a point) leaves "
            "the near bank at the origin. It moves through the water at a constant speed "
            f"of {p['v']:g} m/s and at every instant steers straight at a fixed target on "
            f"the far bank, the point (x, y) = ({p['aim']:g}, {width:g}) m (the heading "
            "through the water points from the boat to the target, so it turns as the "
            "current carries the boat). The boat's velocity over the ground is that "
            "velocity through the water plus the current u(y) at the boat's y, along +x. "
            "Because it always heads at the target it reaches the far bank exactly at the "
            "target (after being carried downstream and steering back if the current is "
            "strong); it then stops there and stays at the target for all later times. "
            "Coordinates: x along the river (downstream positive), y across it from the "
            f"near bank (y = 0) to the far bank (y = {width:g}), the origin the starting "
            "point, seen from above (both x and y are horizontal); object1 is the boat. "
            "Any time t in [0, 20] s may be asked (the boat may still be crossing at "
            "t = 20 s)."
        )
