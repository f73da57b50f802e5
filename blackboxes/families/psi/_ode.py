"""What the kinds without a closed form share.

The particle model integrates every grid point at once with a fixed-step RK4 (numpy,
vectorised over particles), reaching each asked time as the box code does (:func:`march`);
the trusted reference integrates one rule with SciPy's DOP853 at tight tolerances
(:func:`dense_reference`). Box code uses its own plain-Python fixed-step RK4, so the
differential test compares it with an independent, far more accurate computation.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from blackboxes.families.psi._kind import T_MAX, FloatArray

__all__ = ["RK4_STEP", "dense_reference", "march"]

RK4_STEP = 0.002
"""Seconds: the particle model's step (and the largest the box templates use)."""

State = TypeVar("State")


def march(
    step: Callable[[State, float], State],
    y0: State,
    t: FloatArray,
    h: float,
    put: Callable[[int, State], None],
) -> None:
    """Fixed steps ``h`` from t = 0, each time ``t[j]`` (any order, >= 0) reached by a
    last, shortened step from the grid point below it; ``put(j, state)`` receives it."""
    y, now = y0, 0
    for j in np.argsort(t, kind="stable"):
        target = float(t[j])
        steps = int(np.floor(target / h + 1e-9))
        while now < steps:
            y = step(y, h)
            now += 1
        rest = target - now * h
        put(int(j), step(y, rest) if rest > 1e-12 else y)


def dense_reference(
    f: Callable[[float, FloatArray], Any],
    y0: FloatArray,
    event: Callable[[float, FloatArray], float] | None = None,
) -> tuple[Any, float, FloatArray | None]:
    """SciPy DOP853 (rtol = atol = 1e-12) over [0, T_MAX]: the dense solution of one rule,
    and when and in which state a terminal ``event`` (falling through zero) first happens
    (``inf`` and None when it does not)."""
    from scipy.integrate import solve_ivp  # imported on use: only references need SciPy

    if event is not None:
        event.terminal = True  # type: ignore[attr-defined]
        event.direction = -1  # type: ignore[attr-defined]
    sol = solve_ivp(
        f,
        (0.0, T_MAX),
        np.asarray(y0, dtype=float),
        method="DOP853",
        rtol=1e-12,
        atol=1e-12,
        dense_output=True,
        events=event,
    )
    if not sol.success:
        raise RuntimeError(f"reference integration failed: {sol.message}")
    if event is not None and len(sol.t_events[0]):
        return sol.sol, float(sol.t_events[0][0]), np.asarray(sol.y_events[0][0], dtype=float)
    return sol.sol, float("inf"), None
