"""Two balls on a line between walls: elastic with each other, inelastic at the walls.

The motion is piecewise linear, so it is computed event by event, exactly: the particle
model in floating point, vectorised over grid points; the trusted reference in rational
arithmetic (``fractions.Fraction``), so it is independent of float event ordering. Grid
points whose events come too close together for a float simulation to be sure of their
order (a near triple collision: a ball meeting the other at the wall) are not admissible.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from blackboxes.box import Level
from blackboxes.families.psi._kind import T_MAX, FloatArray, Param, PhysicsKind, Values, span

__all__ = [
    "EVENT_GAP",
    "M1",
    "MAX_EVENTS",
    "WallEvents",
    "WallsTwoBalls",
    "reference_events",
    "wall_events",
]

M1 = 1.0
"""kg: ball 1's mass (only the ratio m2 / m1 changes the motion, so m2 varies)."""
EVENT_GAP = 1e-6
"""Seconds: two successive impacts that involve the same ball closer in time than this
make a grid point inadmissible (float rounding could swap them; swapped, the outcome
differs by metres)."""
MAX_EVENTS = 400
"""Impacts in [0, T_MAX] a grid point may have (bounds the box code's one-off work; the
grid's busiest point has 17)."""

# Event codes.
_WALL1, _WALL2, _BALLS = 0, 1, 2


@dataclass(frozen=True)
class WallEvents:
    """The impacts of many grid points in [0, T_MAX], one column per impact (padded with
    inf / -1): their times (s) and codes (0: ball 1 at x = 0, 1: ball 2 at x = W, 2: the
    balls), and the balls' velocities (m/s) before and after each."""

    times: FloatArray
    codes: npt.NDArray[np.int64]
    before: FloatArray
    after: FloatArray
    """(particles, impacts, 2): (v1, v2) just before / just after the impact."""


def _columns(p: Values) -> dict[str, FloatArray]:
    names = ("W", "m2", "x1", "x2", "v1", "v2", "e")
    shape = np.broadcast(*(np.asarray(p[n]) for n in names)).shape
    return {n: np.broadcast_to(np.asarray(p[n], dtype=float), shape).astype(float) for n in names}


def _simulate(p: Values, t: FloatArray, with_events: bool) -> tuple[FloatArray, WallEvents | None]:
    """Positions (particles, len(t), 2) of both balls, and optionally the impacts.

    Each pass of the loop finds every grid point's next impact (the earliest of: ball 1
    reaching x = 0 moving left, ball 2 reaching x = W moving right, ball 1 catching ball
    2) and fills the query times before it from the free flight."""
    c = _columns(p)
    w, m2, e = c["W"], c["m2"], c["e"]
    x1, x2, v1, v2 = c["x1"].copy(), c["x2"].copy(), c["v1"].copy(), c["v2"].copy()
    count = len(w)
    total = M1 + m2
    now = np.zeros(count)
    t = np.asarray(t, dtype=float)
    out = np.full((count, len(t), 2), np.nan)
    times: list[FloatArray] = []
    codes: list[npt.NDArray[np.int64]] = []
    before: list[FloatArray] = []
    after: list[FloatArray] = []
    with np.errstate(divide="ignore", invalid="ignore"):
        for _ in range(MAX_EVENTS + 2):
            dt1 = np.where(v1 < 0.0, x1 / -v1, np.inf)
            dt2 = np.where(v2 > 0.0, (w - x2) / v2, np.inf)
            dtb = np.where(v1 > v2, (x2 - x1) / (v1 - v2), np.inf)
            dt = np.minimum(np.minimum(dt1, dt2), dtb)
            nxt = now + dt
            # Free flight from `now` until the impact (at or after the last query: for good).
            span_ = (t[None, :] >= now[:, None]) & (t[None, :] < nxt[:, None])
            since = t[None, :] - now[:, None]
            out[:, :, 0] = np.where(span_, x1[:, None] + v1[:, None] * since, out[:, :, 0])
            out[:, :, 1] = np.where(span_, x2[:, None] + v2[:, None] * since, out[:, :, 1])
            live = nxt <= T_MAX
            if not live.any():
                break
            code = np.where(dt == dtb, _BALLS, np.where(dt == dt1, _WALL1, _WALL2))
            code = np.where(live, code, -1)
            if with_events:
                times.append(np.where(live, nxt, np.inf))
                codes.append(code)
                before.append(np.stack([v1, v2], axis=-1))
            step = np.where(live, dt, 0.0)
            x1, x2 = x1 + v1 * step, x2 + v2 * step
            hit1, hit2, meet = code == _WALL1, code == _WALL2, code == _BALLS
            x1 = np.where(hit1, 0.0, x1)
            v1_wall = -e * v1
            x2 = np.where(hit2, w, x2)
            v2_wall = -e * v2
            # Both balls at the same point after they meet (rounding must not cross them).
            x2 = np.where(meet, x1, x2)
            v1_meet = ((M1 - m2) * v1 + 2.0 * m2 * v2) / total
            v2_meet = ((m2 - M1) * v2 + 2.0 * M1 * v1) / total
            v1 = np.where(hit1, v1_wall, np.where(meet, v1_meet, v1))
            v2 = np.where(hit2, v2_wall, np.where(meet, v2_meet, v2))
            now = np.where(live, nxt, now)
            if with_events:
                after.append(np.stack([v1, v2], axis=-1))
    events = None
    if with_events:
        empty = np.zeros((count, 0))
        events = WallEvents(
            times=np.stack(times, axis=1) if times else empty,
            codes=np.stack(codes, axis=1) if codes else empty.astype(np.int64),
            before=np.stack(before, axis=1) if before else np.zeros((count, 0, 2)),
            after=np.stack(after, axis=1) if after else np.zeros((count, 0, 2)),
        )
    return out, events


def wall_events(p: Values) -> WallEvents:
    """Every impact of each grid point in [0, T_MAX] (the particle model's float loop)."""
    events = _simulate(p, np.zeros(0), True)[1]
    if events is None:  # unreachable: asked for the events
        raise RuntimeError("no events recorded")
    return events


@lru_cache(maxsize=512)
def reference_events(
    w: float, m2: float, x1: float, x2: float, v1: float, v2: float, e: float
) -> tuple[tuple[Fraction, Fraction, Fraction, Fraction, Fraction], ...]:
    """The exact motion of one rule: (time, x1, x2, v1, v2) at t = 0 and just after each
    impact up to T_MAX, in rational arithmetic (each parameter read as its shortest
    decimal, e.g. 0.6 as 3/5), so no rounding can reorder the impacts."""
    wf, mf, ef = (Fraction(repr(float(v))) for v in (w, m2, e))
    one = Fraction(repr(M1))
    a, b = Fraction(repr(float(x1))), Fraction(repr(float(x2)))
    u, v = Fraction(repr(float(v1))), Fraction(repr(float(v2)))
    now = Fraction(0)
    rows = [(now, a, b, u, v)]
    for _ in range(MAX_EVENTS + 1):
        candidates = []
        if u < 0:
            candidates.append((-a / u, _WALL1))
        if v > 0:
            candidates.append(((wf - b) / v, _WALL2))
        if u > v:
            candidates.append(((b - a) / (u - v), _BALLS))
        if not candidates:
            break
        dt, code = min(candidates)
        if now + dt > T_MAX:
            break
        now += dt
        a, b = a + u * dt, b + v * dt
        if code == _WALL1:
            a, u = Fraction(0), -ef * u
        elif code == _WALL2:
            b, v = wf, -ef * v
        else:
            u, v = (
                ((one - mf) * u + 2 * mf * v) / (one + mf),
                ((mf - one) * v + 2 * one * u) / (one + mf),
            )
        rows.append((now, a, b, u, v))
    return tuple(rows)


class WallsTwoBalls(PhysicsKind):
    """Two point balls between walls at x = 0 and x = W (restitution e at the walls)."""

    name: ClassVar[str] = "walls_two_balls"
    level: ClassVar[Level] = "hard"
    objects: ClassVar[int] = 2
    params: ClassVar[tuple[Param, ...]] = (
        Param("W", span(8.0, 12.0, 4.0), "m", "distance between the walls", step=0.005),
        Param("m2", span(0.5, 2.0, 0.5), "kg", "mass of ball 2", step=0.001),
        Param("x1", span(0.5, 2.5, 1.0), "m", "initial position of ball 1", step=0.02),
        Param("x2", span(4.5, 6.5, 1.0), "m", "initial position of ball 2", step=0.02),
        Param("v1", span(-2.4, 2.4, 1.6), "m/s", "initial velocity of ball 1", step=0.001),
        Param("v2", span(-2.4, 2.4, 1.6), "m/s", "initial velocity of ball 2", step=0.001),
        Param(
            "e", span(0.6, 0.9, 0.15), "", "coefficient of restitution at the walls", step=0.0002
        ),
    )

    def admissible(self, p: Values) -> npt.NDArray[np.bool_]:
        events = wall_events(p)
        times, codes = events.times, events.codes
        # An impact with the other ball next to one of a wall: both involve a ball, so
        # their order must be beyond doubt (wall-wall pairs are independent).
        with np.errstate(invalid="ignore"):  # inf - inf between padding columns
            close = (times[:, 1:] - times[:, :-1]) < EVENT_GAP
        shared = (codes[:, 1:] == _BALLS) | (codes[:, :-1] == _BALLS)
        ambiguous = (close & shared & (codes[:, 1:] >= 0)).any(axis=1)
        too_many = (codes >= 0).sum(axis=1) > MAX_EVENTS
        return np.asarray(~ambiguous & ~too_many)

    def positions(self, p: Values, t: FloatArray) -> FloatArray:
        pos = _simulate(p, np.asarray(t, dtype=float), False)[0]
        return np.stack([pos, np.zeros_like(pos)], axis=-1)

    def reference(self, p: Mapping[str, float], t: FloatArray) -> FloatArray:
        rows = reference_events(*(float(p[n]) for n in ("W", "m2", "x1", "x2", "v1", "v2", "e")))
        starts = [r[0] for r in rows]
        out = np.zeros((len(t), 2, 2))
        for j, tj in enumerate(np.asarray(t, dtype=float)):
            exact = Fraction(float(tj))
            k = max(i for i, s in enumerate(starts) if s <= exact)
            now, a, b, u, v = rows[k]
            out[j, 0, 0] = float(a + u * (exact - now))
            out[j, 1, 0] = float(b + v * (exact - now))
        return out

    def template_context(self, p: Mapping[str, float]) -> dict[str, Any]:
        return {**p, "m1": M1}

    def describe(self, p: Mapping[str, float]) -> str:
        return (
            "Two small balls, treated as points, slide without friction along a straight "
            f"horizontal line (the x axis) between two walls at x = 0 and x = {p['W']:g} m. "
            f"Ball 1 has mass {M1:g} kg and starts at x = {p['x1']:g} m with velocity "
            f"{p['v1']:g} m/s; ball 2 has mass {p['m2']:g} kg and starts at x = "
            f"{p['x2']:g} m with velocity {p['v2']:g} m/s (velocities are positive towards "
            "+x). Between impacts each ball moves at constant velocity. The balls cannot "
            "pass each other: when their positions coincide they collide perfectly "
            "elastically (momentum and kinetic energy conserved: with masses m1, m2 and "
            "velocities u1, u2 before, they leave with ((m1 - m2) u1 + 2 m2 u2) / (m1 + m2) "
            "and ((m2 - m1) u2 + 2 m1 u1) / (m1 + m2)). Only ball 1 can reach the wall at "
            f"x = 0 and only ball 2 the wall at x = {p['W']:g} m; at a wall a ball reverses "
            f"and leaves with {p['e']:g} times the speed it arrived with (coefficient of "
            "restitution). Impacts are handled one at a time in time order. Gravity plays no "
            "part (the line is horizontal) and the balls never leave the line. "
            f"Coordinates, at any time t in [0, {T_MAX:g}] s: object1 is ball 1 at (x, 0) and "
            "object2 is ball 2 at (x, 0), x measured from the wall at x = 0 (y is always 0)."
        )
