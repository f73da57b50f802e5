"""Free fall onto the ground, bouncing elastically or with a coefficient of restitution."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

import numpy as np

from blackboxes.box import Level
from blackboxes.families.psi._common import gravity_param, place_of
from blackboxes.families.psi._kind import FloatArray, Param, PhysicsKind, Values, span

__all__ = ["BounceElastic", "BounceInelastic"]

_REST_SPEED = 1e-9
"""m/s: below this impact speed the ball is at rest (its hops are under 1e-19 m)."""


def _bounce_height(h: FloatArray, g: FloatArray, e: FloatArray, t: FloatArray) -> FloatArray:
    """Height of a ball dropped from rest at h onto y = 0, restitution e (1: elastic).

    Broadcasts (particles, 1) parameters against (1, times) times. After the first impact
    at t0 = sqrt(2h/g) with speed v0 = g t0, hop k (k >= 1) leaves at speed e^k v0 and
    lasts 2 e^k v0 / g; the hops' start times form a geometric series.
    """
    t0 = np.sqrt(2.0 * h / g)
    v0 = g * t0
    falling = t < t0
    y_fall = h - 0.5 * g * t**2
    tau = np.maximum(t - t0, 0.0)
    period = 2.0 * v0 / g
    elastic = e >= 1.0
    # Elastic: every hop is the first one again.
    k_el = np.floor(tau / period)
    s_el = tau - k_el * period
    y_el = v0 * s_el - 0.5 * g * s_el**2
    # Inelastic: hops 1..k end at period * (e + ... + e^k) = period * e (1 - e^k) / (1 - e).
    e_in = np.where(elastic, 0.5, e)
    total = period * e_in / (1.0 - e_in)
    frac = np.clip(1.0 - tau * (1.0 - e_in) / (period * e_in), 1e-300, 1.0)
    k_in = np.floor(np.log(frac) / np.log(e_in))  # completed hops
    start = period * e_in * (1.0 - e_in**k_in) / (1.0 - e_in)
    v_k = v0 * e_in ** (k_in + 1.0)
    s_in = tau - start
    y_in = np.where((tau >= total) | (v_k < _REST_SPEED), 0.0, v_k * s_in - 0.5 * g * s_in**2)
    y = np.where(falling, y_fall, np.where(elastic, y_el, y_in))
    return np.maximum(y, 0.0)


class _Bounce(PhysicsKind):
    level: ClassVar[Level] = "easy"
    nuisance: ClassVar[tuple[Param, ...]] = (Param("mass", span(0.5, 5.0, 0.5), "kg", "mass"),)

    def _e(self, p: Values) -> FloatArray:
        return np.ones_like(p["h"])

    def positions(self, p: Values, t: FloatArray) -> FloatArray:
        h, g = p["h"][:, None], p["g"][:, None]
        e = self._e(p)[:, None]
        y = _bounce_height(h, g, e, t[None, :])
        return np.stack([np.zeros_like(y), y], axis=-1)[:, :, None, :]


class BounceElastic(_Bounce):
    name: ClassVar[str] = "bounce_elastic"
    params: ClassVar[tuple[Param, ...]] = (
        Param("h", span(1.0, 40.0, 0.5), "m", "drop height", step=0.002),
        gravity_param(),
    )

    def describe(self, p: Mapping[str, float]) -> str:
        return (
            f"A ball of mass {p['mass']:g} kg is released from rest at height {p['h']:g} m "
            f"above flat ground {place_of(p['g'])}, with no air resistance. Each impact with "
            "the ground is perfectly elastic (the ball leaves with the speed it arrived "
            "with), so it bounces back to its release height forever. Coordinates: x = 0 "
            "(the ball moves vertically), y = height of the ball above the ground."
        )


class BounceInelastic(_Bounce):
    name: ClassVar[str] = "bounce_inelastic"
    params: ClassVar[tuple[Param, ...]] = (
        Param("h", span(2.0, 40.0, 2.0), "m", "drop height", step=0.01),
        gravity_param(),
        Param("e", span(0.5, 0.9, 0.05), "", "coefficient of restitution", step=0.0002),
    )

    def _e(self, p: Values) -> FloatArray:
        return p["e"]

    def template_context(self, p: Mapping[str, float]) -> dict[str, float]:
        return dict(p)

    def describe(self, p: Mapping[str, float]) -> str:
        return (
            f"A ball of mass {p['mass']:g} kg is released from rest at height {p['h']:g} m "
            f"above flat ground {place_of(p['g'])}, with no air resistance. At each impact "
            f"the ball leaves the ground with {p['e']:g} times the speed it arrived with "
            "(coefficient of restitution), so its hops shrink geometrically; after "
            "infinitely many hops, in finite time, it rests on the ground. Coordinates: "
            "x = 0 (the ball moves vertically), y = height of the ball above the ground."
        )
