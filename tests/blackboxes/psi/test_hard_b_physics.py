"""Physics of the drag projectile and the double pendulum, checked against known results.

Drag: with k = 0 the flight is the vacuum parabola (which RK4 integrates exactly), and
as k shrinks the model approaches it linearly in k; a vertical launch has a closed form
(tangent up, hyperbolic cosine down); along the reference the mechanical energy falls,
by exactly the work of the drag force. Double pendulum: the reference conserves energy,
and released in a small-amplitude normal mode it swings as one cosine at that mode's
frequency (the roots of the linearised equations, checked against an eigen-solve).
"""

from __future__ import annotations

import itertools
import math
import random

import numpy as np
import pytest

from blackboxes.families.psi._hard_double import (
    G_EARTH,
    M1,
    DoublePendulum,
    double_energy,
    double_states,
    normal_mode_frequencies,
)
from blackboxes.families.psi._hard_double import (
    _reference_solution as double_reference,
)
from blackboxes.families.psi._hard_drag import (
    DragProjectile,
    drag_flight,
)
from blackboxes.families.psi._hard_drag import (
    _reference_solution as drag_reference,
)
from blackboxes.families.psi._kind import T_MAX, FloatArray

DRAG = DragProjectile()
DOUBLE = DoublePendulum()
TIMES = np.linspace(0.0, T_MAX, 1001)


def _one(p: dict[str, float]) -> dict[str, FloatArray]:
    return {n: np.array([v]) for n, v in p.items()}


def _vacuum(v0: float, theta: float, g: float, t: FloatArray) -> FloatArray:
    """The drag-free flight, resting where it lands: (len(t), 2)."""
    rad = math.radians(theta)
    vx, vy = v0 * math.cos(rad), v0 * math.sin(rad)
    land = 2.0 * vy / g
    s = np.minimum(t, land)
    return np.stack([vx * s, np.maximum(vy * s - 0.5 * g * s * s, 0.0)], axis=-1)


# -- drag ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("v0", "theta", "g"), [(10.0, 20.0, 9.81), (25.0, 45.0, 3.71), (40.0, 70.0, 24.79)]
)
def test_without_drag_the_flight_is_the_vacuum_parabola(v0: float, theta: float, g: float) -> None:
    p = {"v0": v0, "theta": theta, "k": 0.0, "g": g}
    model = drag_flight(_one(p), TIMES)[0]
    assert np.max(np.abs(model - _vacuum(v0, theta, g, TIMES))) < 1e-9


@pytest.mark.parametrize(
    ("v0", "theta", "g"), [(20.0, 30.0, 9.81), (35.0, 60.0, 11.15), (40.0, 45.0, 24.79)]
)
def test_small_drag_approaches_the_parabola_linearly(v0: float, theta: float, g: float) -> None:
    vacuum = _vacuum(v0, theta, g, TIMES)
    gaps = []
    for k in (1e-3, 1e-4, 1e-5):
        p = {"v0": v0, "theta": theta, "k": k, "g": g}
        model = drag_flight(_one(p), TIMES)[0]
        ref = DRAG.reference(p, TIMES)[:, 0, :]
        assert np.max(np.abs(model - ref)) < 1e-6
        # Drag only ever shortens the flight: the ball lands short of the vacuum range.
        assert model[-1, 0] < vacuum[-1, 0]
        gaps.append(float(np.max(np.abs(model - vacuum))))
    assert gaps[0] > 0.01
    for big, small in itertools.pairwise(gaps):
        assert 0.08 < small / big < 0.12


@pytest.mark.parametrize(("v0", "k", "g"), [(30.0, 0.02, 9.81), (40.0, 0.05, 24.79)])
def test_vertical_launch_matches_the_closed_form(v0: float, k: float, g: float) -> None:
    vt = math.sqrt(g / k)  # terminal speed
    tau = vt / g
    rise = tau * math.atan(v0 / vt)
    top = math.log(1.0 + k * v0 * v0 / g) / (2.0 * k)
    land = rise + tau * math.acosh(math.exp(k * top))
    assert land < T_MAX
    t = np.linspace(0.0, T_MAX, 2001)
    phase = math.atan(v0 / vt)
    up = np.log(np.cos(phase - np.minimum(t, rise) / tau) / math.cos(phase)) / k
    down = top - np.log(np.cosh((np.clip(t, rise, land) - rise) / tau)) / k
    height = np.where(t < rise, up, np.maximum(down, 0.0))
    p = {"v0": v0, "theta": 90.0, "k": k, "g": g}
    model = drag_flight(_one(p), t)[0]
    ref = DRAG.reference(p, t)[:, 0, :]
    assert np.max(np.abs(model[:, 1] - height)) < 1e-6
    assert np.max(np.abs(ref[:, 1] - height)) < 1e-8
    assert np.max(np.abs(model[:, 0])) < 1e-12
    _, ref_land, _ = drag_reference(v0, 90.0, k, g)
    assert ref_land == pytest.approx(land, abs=1e-9)


@pytest.mark.parametrize("i", random.Random("drag energy").sample(range(DRAG.size), 12))
def test_drag_energy_falls_by_the_work_of_drag(i: int) -> None:
    p = {n: float(DRAG.grid[n][i]) for n in ("v0", "theta", "k", "g")}
    sol, land, _ = drag_reference(p["v0"], p["theta"], p["k"], p["g"])
    end = min(land, T_MAX)
    t = np.linspace(0.0, end, 4001)
    _, y, vx, vy = sol(t)
    speed = np.hypot(vx, vy)
    energy = 0.5 * speed * speed + p["g"] * y  # per unit mass
    assert np.all(np.diff(energy) < 0.0)
    # dE/dt = -k |v|^3: the lost energy is the integral of that power (Simpson's rule).
    power = p["k"] * speed**3
    h = t[1] - t[0]
    work = h / 3.0 * (power[0] + 4.0 * power[1:-1:2].sum() + 2.0 * power[2:-1:2].sum() + power[-1])
    assert energy[0] - energy[-1] == pytest.approx(work, rel=1e-8)
    assert energy[0] == pytest.approx(0.5 * p["v0"] ** 2, rel=1e-12)


# -- double pendulum -----------------------------------------------------------------


@pytest.mark.parametrize("i", random.Random("double energy").sample(range(DOUBLE.size), 12))
def test_double_pendulum_reference_and_model_conserve_energy(i: int) -> None:
    p = {n: float(DOUBLE.grid[n][i]) for n in ("L1", "L2", "m2", "th1", "th2")}
    sol = double_reference(p["L1"], p["L2"], p["m2"], p["th1"], p["th2"])
    states = sol(TIMES).T[None, :, :]
    energy = double_energy(_one(p), states)[0]
    # Released from rest: all energy is potential at t = 0.
    a, b = math.radians(p["th1"]), math.radians(p["th2"])
    l1, l2, m2 = p["L1"], p["L2"], p["m2"]
    start = -(M1 + m2) * G_EARTH * l1 * math.cos(a) - m2 * G_EARTH * l2 * math.cos(b)
    scale = (M1 + p["m2"]) * G_EARTH * (p["L1"] + p["L2"])
    assert energy[0] == pytest.approx(start, abs=1e-12 * scale)
    assert np.max(np.abs(energy - start)) < 1e-10 * scale
    model = double_energy(_one(p), double_states(_one(p), TIMES))[0]
    # The particle model's 0.01 s RK4 drifts by a few parts per million over 20 s.
    assert np.max(np.abs(model - start)) < 2e-5 * scale


def _modes(l1: float, l2: float, m2: float) -> tuple[FloatArray, FloatArray]:
    """Linearised M th'' = -K th by an eigen-solve: angular frequencies (ascending) and
    the mode shapes (columns, th2 / th1 scaled so th1 = 1)."""
    mass = np.array([[(M1 + m2) * l1 * l1, m2 * l1 * l2], [m2 * l1 * l2, m2 * l2 * l2]])
    stiff = np.diag([(M1 + m2) * G_EARTH * l1, m2 * G_EARTH * l2])
    values, vectors = np.linalg.eig(np.linalg.solve(mass, stiff))
    order = np.argsort(values.real)
    shapes = vectors.real[:, order]
    return np.sqrt(values.real[order]), shapes / shapes[0]


@pytest.mark.parametrize(
    ("l1", "l2", "m2"), [(1.0, 1.0, 1.0), (0.5, 1.5, 0.5), (1.5, 0.5, 1.5), (1.0, 0.5, 1.0)]
)
def test_small_angles_swing_in_normal_modes(l1: float, l2: float, m2: float) -> None:
    omegas, shapes = _modes(l1, l2, m2)
    assert normal_mode_frequencies(l1, l2, m2) == pytest.approx(tuple(omegas), rel=1e-12)
    for mode in (0, 1):
        # The larger angle 0.01 degrees: the nonlinear corrections (~ angle^2) stay near
        # 1e-5 of the swing over 20 s (at 0.05 degrees they reach 1e-4 in the fast mode).
        ratio = float(shapes[1, mode])
        th1 = 0.01 / max(1.0, abs(ratio))
        th2 = th1 * ratio
        p = {"L1": l1, "L2": l2, "m2": m2, "th1": th1, "th2": th2}
        swing = np.cos(omegas[mode] * TIMES)
        ref = double_reference(l1, l2, m2, th1, th2)(TIMES)
        model = double_states(_one(p), TIMES)[0].T
        # The particle model's 0.01 s RK4 adds a phase error of about 1e-4 of the swing.
        for states, tol in ((ref, 2e-5), (model, 5e-4)):
            for angle, start in ((states[0], th1), (states[1], th2)):
                amplitude = math.radians(start)
                assert np.max(np.abs(angle - amplitude * swing)) < tol * abs(amplitude)


def test_light_lower_bob_leaves_two_simple_pendulums() -> None:
    slow, fast = normal_mode_frequencies(0.5, 1.5, 1e-12)
    assert slow == pytest.approx(math.sqrt(G_EARTH / 1.5), rel=1e-9)
    assert fast == pytest.approx(math.sqrt(G_EARTH / 0.5), rel=1e-9)


def test_mirrored_release_mirrors_the_motion() -> None:
    grid = DOUBLE.grid
    both = {n: np.concatenate([v, -v if n in ("th1", "th2") else v]) for n, v in grid.items()}
    pos = DOUBLE.positions(both, np.linspace(0.0, T_MAX, 41))
    a, b = pos[: DOUBLE.size], pos[DOUBLE.size :]
    assert np.array_equal(a[..., 0], -b[..., 0])
    assert np.array_equal(a[..., 1], b[..., 1])
