"""Physics of the block on a recoiling wedge and the boat steering across a shear current.

Wedge: the textbook accelerations agree with Newton's laws for both bodies solved as a
linear system (normal force unknown) and with the reference's Lagrange equations; the
horizontal centre of mass never moves (the floor only pushes vertically); energy is
conserved on the incline and at the foot the block loses exactly its vertical kinetic
energy; a very heavy wedge is a fixed incline. Boat: the reference's velocity through
the water has the boat's speed and points at the target; without current the boat goes
straight to the target; in a weak current the path approaches the first-order
solution x = 2 (u_max / v) y^2 (W - y) / W^2 with an error cubic in u_max / v.
"""

from __future__ import annotations

import itertools
import math
import random

import numpy as np
import pytest

from blackboxes.families.psi._hard_river import RiverBoat, river_path, river_velocity
from blackboxes.families.psi._hard_river import _reference_solution as river_reference
from blackboxes.families.psi._hard_wedge import WedgeBlock, wedge_accelerations, wedge_motion
from blackboxes.families.psi._hard_wedge import _reference_solution as wedge_reference
from blackboxes.families.psi._kind import T_MAX, FloatArray
from blackboxes.families.psi._kind import TIMES as QUERY_TIMES

WEDGE = WedgeBlock()
RIVER = RiverBoat()
TIMES = np.linspace(0.0, T_MAX, 2001)
WEDGE_NAMES = ("M", "m", "alpha", "d", "g")
RIVER_NAMES = ("W", "u_max", "v", "aim")


def _one(p: dict[str, float]) -> dict[str, FloatArray]:
    return {n: np.array([v]) for n, v in p.items()}


def _wedge_grid_point(i: int) -> dict[str, float]:
    return {n: float(WEDGE.grid[n][i]) for n in WEDGE_NAMES}


def _river_grid_point(i: int) -> dict[str, float]:
    return {n: float(RIVER.grid[n][i]) for n in RIVER_NAMES}


# -- wedge ---------------------------------------------------------------------------


def _newton(big: float, small: float, alpha: float, g: float) -> FloatArray:
    """(wedge ax, block ax, block ay, normal force) from Newton's second law for both
    bodies and the contact constraint, the incline rising towards -x from its foot."""
    rad = math.radians(alpha)
    s, c = math.sin(rad), math.cos(rad)
    # The normal on the block is N (sin a, cos a), on the wedge its opposite; relative to
    # the wedge the block accelerates along the incline (-cos a, sin a).
    system = np.array(
        [
            [0.0, small, 0.0, -s],
            [0.0, 0.0, small, -c],
            [big, 0.0, 0.0, s],
            [-s, s, c, 0.0],
        ]
    )
    return np.linalg.solve(system, np.array([0.0, -small * g, 0.0, 0.0]))


@pytest.mark.parametrize("i", random.Random("wedge newton").sample(range(WEDGE.size), 20))
def test_accelerations_agree_with_newton_and_lagrange(i: int) -> None:
    p = _wedge_grid_point(i)
    big, small, alpha, g = p["M"], p["m"], p["alpha"], p["g"]
    wedge_acc, rel_acc = (
        float(a[0])
        for a in wedge_accelerations(*(np.array([p[n]]) for n in ("M", "m", "alpha", "g")))
    )
    ax_wedge, ax_block, ay_block, normal = _newton(big, small, alpha, g)
    rad = math.radians(alpha)
    assert -ax_wedge == pytest.approx(wedge_acc, rel=1e-12)
    # Relative to the wedge, down the incline is (cos a, -sin a).
    along = (ax_block - ax_wedge) * math.cos(rad) - ay_block * math.sin(rad)
    assert along == pytest.approx(rel_acc, rel=1e-12)
    # The block presses on the incline throughout (it never leaves it)...
    assert normal > 0.0
    assert normal == pytest.approx(
        small * big * g * math.cos(rad) / (big + small * math.sin(rad) ** 2)
    )
    # ... and the reference's Lagrange equations give the same constant accelerations.
    sol, t_foot, _ = wedge_reference(big, small, alpha, p["d"], g)
    assert t_foot == pytest.approx(math.sqrt(2.0 * p["d"] / rel_acc), rel=1e-12)
    assert sol(0.5 * t_foot)[0] == pytest.approx(-0.5 * wedge_acc * (0.5 * t_foot) ** 2, rel=1e-12)


def test_horizontal_centre_of_mass_never_moves() -> None:
    grid = WEDGE.grid
    pos = WEDGE.positions(grid, TIMES)
    big, small = grid["M"][:, None], grid["m"][:, None]
    centre = (big * pos[:, :, 0, 0] + small * pos[:, :, 1, 0]) / (big + small)
    start = centre[:, :1]
    assert np.max(np.abs(centre - start)) < 1e-12 * (1.0 + np.max(np.abs(pos)))
    assert np.allclose(
        start[:, 0],
        -small[:, 0] * grid["d"] * np.cos(np.radians(grid["alpha"])) / (big[:, 0] + small[:, 0]),
    )


@pytest.mark.parametrize("i", random.Random("wedge energy").sample(range(WEDGE.size), 20))
def test_energy_is_conserved_on_the_incline_and_the_floor_takes_the_vertical_part(i: int) -> None:
    p = _wedge_grid_point(i)
    big, small, alpha, d, g = (p[n] for n in WEDGE_NAMES)
    rad = math.radians(alpha)
    sol, t_foot, (_, _, v_wedge, v_along) = wedge_reference(big, small, alpha, d, g)
    t = np.linspace(0.0, t_foot, 401)
    _, along, vx_wedge, vs = sol(t)
    # The block at (X - s cos a, s sin a): its velocity (X' - s' cos a, s' sin a).
    vx_block, vy_block = vx_wedge - vs * math.cos(rad), vs * math.sin(rad)
    kinetic = 0.5 * big * vx_wedge**2 + 0.5 * small * (vx_block**2 + vy_block**2)
    energy = kinetic + small * g * along * math.sin(rad)
    start = small * g * d * math.sin(rad)
    assert np.max(np.abs(energy - start)) < 1e-10 * start
    # On the floor: the wedge and the block's horizontal motion carry what is left.
    model = wedge_motion(_one(p), np.array([t_foot + 1.0, t_foot + 2.0]))[0]
    wedge_speed = model[1, 0, 0] - model[0, 0, 0]
    block_speed = model[1, 1, 0] - model[0, 1, 0]
    assert wedge_speed == pytest.approx(v_wedge, rel=1e-9)
    assert block_speed == pytest.approx(v_wedge - v_along * math.cos(rad), rel=1e-9)
    lost = 0.5 * small * (v_along * math.sin(rad)) ** 2
    after = 0.5 * big * wedge_speed**2 + 0.5 * small * block_speed**2
    assert after + lost == pytest.approx(start, rel=1e-9)


def test_block_stays_on_the_incline_then_both_glide_apart() -> None:
    grid = WEDGE.grid
    pos = WEDGE.positions(grid, TIMES)
    wedge_x, block_x, block_y = pos[:, :, 0, 0], pos[:, :, 1, 0], pos[:, :, 1, 1]
    tan = np.tan(np.radians(grid["alpha"]))[:, None]
    _, rel_acc = wedge_accelerations(grid["M"], grid["m"], grid["alpha"], grid["g"])
    sliding = TIMES[None, :] < np.sqrt(2.0 * grid["d"] / rel_acc)[:, None]
    # On the incline: height = (horizontal distance behind the foot) tan(alpha); after
    # it, on the ground.
    on_incline = block_y - (wedge_x - block_x) * tan
    assert np.max(np.abs(np.where(sliding, on_incline, 0.0))) < 1e-9
    assert np.all(np.where(sliding, block_y > 0.0, block_y == 0.0))
    assert np.all(pos[:, :, 0, 1] == 0.0)
    assert np.all(block_y >= 0.0)
    # Both move monotonically: the wedge towards -x, the block towards +x, so the block
    # (on the ground from the foot on) is never behind the wedge's foot again.
    assert np.all(np.diff(wedge_x, axis=1) <= 0.0)
    assert np.all(np.diff(block_x, axis=1) >= 0.0)
    assert np.all(block_y[:, -1] == 0.0)
    assert np.all(np.where(sliding, True, block_x - wedge_x >= -1e-12))


@pytest.mark.parametrize(
    ("alpha", "d", "g"), [(20.0, 1.0, 9.81), (45.0, 2.5, 1.62), (60.0, 3.0, 24.79)]
)
def test_very_heavy_wedge_is_a_fixed_incline(alpha: float, d: float, g: float) -> None:
    p = {"M": 1e12, "m": 1.0, "alpha": alpha, "d": d, "g": g}
    rad = math.radians(alpha)
    t_foot = math.sqrt(2.0 * d / (g * math.sin(rad)))
    foot_speed = g * math.sin(rad) * t_foot
    slide = np.minimum(TIMES, t_foot)
    along = d - 0.5 * g * math.sin(rad) * slide**2
    x = -along * math.cos(rad) + foot_speed * math.cos(rad) * (TIMES - slide)
    pos = wedge_motion(_one(p), TIMES)[0]
    assert np.max(np.abs(pos[:, 0, 0])) < 1e-9
    assert np.max(np.abs(pos[:, 1, 0] - x)) < 1e-9
    assert np.max(np.abs(pos[:, 1, 1] - np.maximum(along, 0.0) * math.sin(rad))) < 1e-9


def test_mass_ratios_are_all_different() -> None:
    ratios = {
        big / small for big, small in itertools.product(*(q.values for q in WEDGE.params[:2]))
    }
    assert len(ratios) == len(WEDGE.params[0].values) * len(WEDGE.params[1].values)


# -- river ---------------------------------------------------------------------------


@pytest.mark.parametrize("i", random.Random("river ode").sample(range(RIVER.size), 12))
def test_reference_steers_at_the_target_at_the_boat_speed(i: int) -> None:
    p = _river_grid_point(i)
    width, u_max, v, aim = (p[n] for n in RIVER_NAMES)
    sol, t_near, *_ = river_reference(width, u_max, v, aim)
    end = min(t_near, T_MAX) - 0.01
    t = np.linspace(0.01, end, 300)
    dt = 1e-4
    x, y = sol(t)
    vx, vy = (sol(t + dt) - sol(t - dt)) / (2.0 * dt)
    water_x = vx - 4.0 * u_max * y * (width - y) / width**2
    # Through the water: speed v, pointing from the boat to the target.
    assert np.max(np.abs(np.hypot(water_x, vy) - v)) < 1e-6
    dx, dy = aim - x, width - y
    assert np.max(np.abs(water_x * dy - vy * dx) / np.hypot(dx, dy)) < 1e-6
    assert np.all(water_x * dx + vy * dy > 0.0)
    # The velocity field the model integrates is the same one.
    model_vx, model_vy = river_velocity(x, y, {n: np.full_like(x, p[n]) for n in RIVER_NAMES})
    assert np.max(np.abs(model_vx - vx)) < 1e-6
    assert np.max(np.abs(model_vy - vy)) < 1e-6


@pytest.mark.parametrize(
    ("width", "v", "aim"), [(10.0, 4.0, -10.0), (25.0, 2.0, 5.0), (15.0, 1.5, 0.0)]
)
def test_without_current_the_boat_goes_straight_to_the_target(
    width: float, v: float, aim: float
) -> None:
    p = {"W": width, "u_max": 0.0, "v": v, "aim": aim}
    distance = math.hypot(aim, width)
    frac = np.minimum(v * TIMES / distance, 1.0)
    straight = np.stack([aim * frac, width * frac], axis=-1)
    model = river_path(_one(p), TIMES)[0]
    ref = RIVER.reference(p, TIMES)[:, 0, :]
    assert np.max(np.abs(model - straight)) < 1e-9
    assert np.max(np.abs(ref - straight)) < 1e-8
    _, t_near, *_ = river_reference(width, 0.0, v, aim)
    assert t_near + 1e-7 / v == pytest.approx(distance / v, abs=1e-9)


def test_weak_current_bends_the_path_as_first_order_theory_says() -> None:
    width, v = 20.0, 2.0
    t = np.linspace(0.0, 9.9, 500)  # the crossing takes 10 s
    gaps = []
    for u_max in (0.04, 0.02, 0.01):
        ref = RIVER.reference({"W": width, "u_max": u_max, "v": v, "aim": 0.0}, t)[:, 0, :]
        x, y = ref[:, 0], ref[:, 1]
        first = 2.0 * (u_max / v) * y * y * (width - y) / width**2
        gaps.append(float(np.max(np.abs(x - first))))
        assert gaps[-1] < 2e-4 * float(np.max(first))
    # Reversing the current mirrors the path, so the next correction is cubic.
    for big, small in itertools.pairwise(gaps):
        assert 0.12 < small / big < 0.13


def test_boats_cross_monotonically_and_stop_at_the_target() -> None:
    grid = RIVER.grid
    pos = RIVER.positions(grid, np.array(QUERY_TIMES))[:, :, 0, :]
    x, y = pos[..., 0], pos[..., 1]
    assert np.all(np.diff(y, axis=1) >= 0.0)
    assert np.all((y >= 0.0) & (y <= grid["W"][:, None]))
    on_bank = y == grid["W"][:, None]
    assert on_bank[:, -1].mean() > 0.5
    # On the far bank only at the target, and from then on for good.
    assert np.all(x[on_bank] == np.broadcast_to(grid["aim"][:, None], x.shape)[on_bank])
    assert np.all(np.diff(on_bank.astype(int), axis=1) >= 0)


@pytest.mark.parametrize("i", random.Random("river arrival").sample(range(RIVER.size), 12))
def test_model_arrival_matches_the_reference(i: int) -> None:
    p = _river_grid_point(i)
    _, t_near, *_ = river_reference(*(p[n] for n in RIVER_NAMES))
    t = np.linspace(0.0, T_MAX, 4001)
    model = river_path(_one(p), t)[0]
    ref = RIVER.reference(p, t)[:, 0, :]
    assert np.max(np.abs(model - ref)) < 5e-5
    arrived = np.all(model == np.array([p["aim"], p["W"]]), axis=1)
    if t_near < T_MAX - 0.01:
        assert arrived.any()
        assert abs(t[np.argmax(arrived)] - t_near) < 0.01
    elif not math.isfinite(t_near):
        assert not arrived.any()
