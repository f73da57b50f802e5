"""Fitting a kind's parameters to observed positions: batched Levenberg-Marquardt.

Free parameters are measured in fine steps (``Param.step``), so one unit moves some
coordinate by about the answer tolerance and the normal equations are well scaled;
categorical parameters (a planet's g) stay at each start's value. Every iteration is
one call of the kind's vectorised :meth:`PhysicsKind.positions` on all starts and their
finite-difference neighbours, so an ODE kind integrates once per iteration, not once
per start and parameter.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from blackboxes.families.psi._kind import FloatArray, PhysicsKind
from blackboxes.families.psi._table import UNITS

__all__ = ["Fit", "evaluate", "fit", "free_params"]

BoolArray = npt.NDArray[np.bool_]

_BAD = 1e6
"""Output units standing in for a non-finite position (a start that left the physics)."""
_DONE = 0.6
"""A start whose every residual is within this many output units has converged."""
_PATIENCE = 2
"""Rounds run after the first start converged."""


@dataclass(frozen=True)
class Fit:
    """Refined starts: parameters (K, p), residuals in output units (K, m) and the
    Jacobian of the residuals in output units per fine step (K, m, free)."""

    params: FloatArray
    residuals: FloatArray
    jacobian: FloatArray

    @property
    def worst(self) -> FloatArray:
        """Largest absolute residual of each start (output units)."""
        return np.abs(self.residuals).max(axis=1)


def free_params(kind: PhysicsKind) -> tuple[list[int], FloatArray, FloatArray]:
    """Indices of the stepped parameters, their steps and their fine counts minus one."""
    free = [i for i, q in enumerate(kind.params) if q.step is not None]
    steps = np.array([kind.params[i].step for i in free], dtype=float)
    spans = np.array([kind.params[i].count - 1 for i in free], dtype=float)
    return free, steps, spans


def evaluate(kind: PhysicsKind, params: FloatArray, times: FloatArray) -> FloatArray:
    """Positions in output units (unrounded), shape (len(params), len(times) * coords);
    non-finite values become a large number so they are never consistent."""
    columns = {q.name: params[:, i] for i, q in enumerate(kind.params)}
    with np.errstate(all="ignore"):  # a start outside the physics gives NaN, dropped below
        pos = kind.positions(columns, times) * UNITS
    flat = pos.reshape(len(params), -1)
    return np.nan_to_num(flat, nan=_BAD, posinf=_BAD, neginf=-_BAD)


def fit(
    kind: PhysicsKind,
    starts: FloatArray,
    times: FloatArray,
    target: FloatArray,
    iterations: int,
) -> Fit:
    """Least squares of ``positions(params, times) - target`` (output units, flattened
    as ``evaluate`` does) from each start, within the parameters' ranges."""
    free, steps, spans = free_params(kind)
    lo = np.array([kind.params[i].lo for i in free], dtype=float)
    theta = (starts[:, free] - lo) / steps  # fine-step coordinates
    k, n = theta.shape
    base = starts.copy()

    def run(points: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
        # Each point and its n forward (or, at the top of the range, backward) neighbours.
        h = np.where(points + 1.0 <= spans, 1.0, -1.0)
        batch = np.repeat(points[:, None, :], n + 1, axis=1)
        idx = np.arange(n)
        batch[:, idx + 1, idx] += h
        full = np.repeat(base[:, None, :], n + 1, axis=1)
        full[:, :, free] = lo + batch * steps
        values = evaluate(kind, full.reshape(k * (n + 1), -1), times).reshape(k, n + 1, -1)
        r = values[:, 0, :] - target.ravel()
        jac = (values[:, 1:, :] - values[:, :1, :]) / h[:, :, None]
        return r, np.transpose(jac, (0, 2, 1)), np.einsum("km,km->k", r, r)

    r, jac, ssr = run(theta)
    damping = np.full(k, 1e-2)
    extra = _PATIENCE
    for _ in range(iterations):
        done = np.abs(r).max(axis=1) <= _DONE
        if done.any():
            # Once one start has converged, a few more rounds let the others land too
            # (other modes); waiting for all would run every hopeless start to the end.
            extra -= 1
        if done.all() or extra < 0:
            break
        jt_j = np.einsum("kmi,kmj->kij", jac, jac)
        grad = np.einsum("kmi,km->ki", jac, r)
        diag = np.einsum("kii->ki", jt_j)
        system = jt_j + (damping[:, None] * diag + 1e-9)[:, :, None] * np.eye(n)
        step = -np.linalg.solve(system, grad[:, :, None])[:, :, 0]
        trial = np.clip(theta + step, 0.0, spans)
        r_t, jac_t, ssr_t = run(trial)
        better = (ssr_t < ssr) & ~done
        theta = np.where(better[:, None], trial, theta)
        r = np.where(better[:, None], r_t, r)
        jac = np.where(better[:, None, None], jac_t, jac)
        ssr = np.where(better, ssr_t, ssr)
        damping = np.where(better, damping / 3.0, np.minimum(damping * 4.0, 1e8))
    params = base.copy()
    params[:, free] = lo + theta * steps
    return Fit(params, r, jac)
