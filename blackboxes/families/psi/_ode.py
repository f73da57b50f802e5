"""Integrators for kinds without a closed form.

The particle model integrates every grid point at once with a fixed-step RK4 (numpy,
vectorised over particles); the trusted reference integrates one rule with SciPy's
DOP853 at tight tolerances. Box code uses its own plain-Python fixed-step RK4, so the
differential test compares it with an independent, far more accurate computation.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from blackboxes.families.psi._kind import FloatArray

__all__ = ["RK4_STEP", "reference_solve", "rk4_at"]

RK4_STEP = 0.002
"""Seconds: the particle model's step (and the largest the box templates use)."""

Deriv = Callable[[FloatArray], FloatArray]
"""State (particles, S) -> its time derivative (autonomous systems)."""


def _step(f: Deriv, y: FloatArray, h: float) -> FloatArray:
    k1 = f(y)
    k2 = f(y + 0.5 * h * k1)
    k3 = f(y + 0.5 * h * k2)
    k4 = f(y + h * k3)
    return y + (h / 6.0) * (k1 + 2.0 * k2 + 2.0 * k3 + k4)


def rk4_at(f: Deriv, y0: FloatArray, t: FloatArray, h: float = RK4_STEP) -> FloatArray:
    """States at times ``t`` (any order, >= 0), shape (particles, len(t), S): fixed steps
    ``h`` from 0, each time reached by a last, shortened step from the grid point below."""
    order = np.argsort(t, kind="stable")
    out = np.empty((y0.shape[0], len(t), y0.shape[1]))
    y, now = np.array(y0, dtype=float), 0
    for j in order:
        target = float(t[j])
        steps = int(np.floor(target / h + 1e-9))
        while now < steps:
            y = _step(f, y, h)
            now += 1
        rest = target - now * h
        out[:, j, :] = _step(f, y, rest) if rest > 1e-12 else y
    return out


def reference_solve(
    f: Callable[[float, FloatArray], FloatArray], y0: FloatArray, t: FloatArray
) -> FloatArray:
    """States at times ``t`` (any order), shape (len(t), S): SciPy DOP853 with rtol 1e-12
    and atol 1e-12 (the trusted reference of one rule)."""
    from scipy.integrate import solve_ivp  # imported on use: only references need SciPy

    order = np.argsort(t, kind="stable")
    ts = np.asarray(t, dtype=float)[order]
    end = float(ts[-1]) if len(ts) else 0.0
    if end <= 0.0:
        return np.repeat(np.asarray(y0, dtype=float)[None, :], len(ts), axis=0)
    sol = solve_ivp(
        f,
        (0.0, end),
        np.asarray(y0, dtype=float),
        method="DOP853",
        t_eval=ts,
        rtol=1e-12,
        atol=1e-12,
    )
    if not sol.success:
        raise RuntimeError(f"reference integration failed: {sol.message}")
    out = np.empty((len(ts), len(y0)))
    out[order] = sol.y.T
    return out
