"""The easy PSI kinds' closed forms against the equations of motion they claim to solve.

The kinds' references are their closed forms, so the differential tests compare box
code with those; here each closed form is checked independently: against SciPy's
integration of Newton's equations, or against conservation laws and known results.
"""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from blackboxes.families.psi import T_MAX
from blackboxes.families.psi._easy_collision import elastic_velocities
from blackboxes.families.psi._easy_pendulum import pendulum_period
from blackboxes.families.psi._kind import FloatArray, PhysicsKind
from blackboxes.families.psi._kinds import KINDS

TIMES = np.linspace(0.0, T_MAX, 401)


def _points(kind: PhysicsKind, count: int, seed: str) -> list[dict[str, float]]:
    rng = random.Random(seed)
    picks = [rng.randrange(kind.size) for _ in range(count)]
    return [{k: float(v[i]) for k, v in kind.grid.items()} for i in picks]


def _model(kind: PhysicsKind, p: dict[str, float], t: FloatArray = TIMES) -> FloatArray:
    return kind.positions({k: np.array([v]) for k, v in p.items()}, t)[0]


def _integrate(f, y0: list[float], t: FloatArray = TIMES, events=None) -> FloatArray:  # type: ignore[no-untyped-def]
    sol = solve_ivp(f, (0.0, float(t[-1])), y0, t_eval=t, rtol=1e-11, atol=1e-11, events=events)
    assert sol.success
    return np.asarray(sol.y)


@pytest.mark.parametrize("p", _points(KINDS["spring_horizontal"], 12, "h"))
def test_horizontal_spring_solves_hookes_law(p: dict[str, float]) -> None:
    m, k = p["mass"], p["k"]
    y = _integrate(lambda _, s: [s[1], -k / m * s[0]], [p["A"], 0.0])
    got = _model(KINDS["spring_horizontal"], p)[:, 0]
    assert np.max(np.abs(got[:, 0] - y[0])) < 1e-6
    assert np.all(got[:, 1] == 0.0)


@pytest.mark.parametrize("p", _points(KINDS["spring_vertical"], 12, "v"))
def test_vertical_spring_solves_hookes_law_with_weight(p: dict[str, float]) -> None:
    m, k, g = p["mass"], p["k"], p["g"]
    # y is the height of the mass; the spring is unstretched at y = 0.
    y = _integrate(lambda _, s: [s[1], -k / m * s[0] - g], [0.0, 0.0])
    got = _model(KINDS["spring_vertical"], p)[:, 0]
    assert np.max(np.abs(got[:, 1] - y[0])) < 1e-6
    # It turns round at twice the equilibrium depth m g / k.
    assert got[:, 1].min() >= -2.0 * m * g / k - 1e-9


@pytest.mark.parametrize("p", _points(KINDS["pendulum"], 12, "p"))
def test_pendulum_solves_the_nonlinear_equation(p: dict[str, float]) -> None:
    length, g, theta0 = p["L"], p["g"], math.radians(p["theta0"])
    y = _integrate(lambda _, s: [s[1], -g / length * math.sin(s[0])], [theta0, 0.0])
    got = _model(KINDS["pendulum"], p)[:, 0]
    expected = np.stack([length * np.sin(y[0]), -length * np.cos(y[0])], axis=1)
    assert np.max(np.abs(got - expected)) < 1e-5
    # Rod length is kept, and the period is longer than the small-angle one.
    assert np.allclose(np.hypot(got[:, 0], got[:, 1]), length, atol=1e-9)
    period = float(pendulum_period(np.array(length), np.array(p["theta0"]), np.array(g)))
    assert period > 2.0 * math.pi * math.sqrt(length / g) * 1.03
    back = _model(KINDS["pendulum"], p, np.array([period]))[0, 0]
    assert back == pytest.approx([length * math.sin(theta0), -length * math.cos(theta0)], abs=1e-7)


@pytest.mark.parametrize("p", _points(KINDS["conical_pendulum"], 12, "c"))
def test_conical_pendulum_string_force_balances(p: dict[str, float]) -> None:
    length, g, alpha = p["L"], p["g"], math.radians(p["alpha"])
    h = 1e-4
    t = np.array([3.0 - h, 3.0, 3.0 + h])
    r = _model(KINDS["conical_pendulum"], p, t)[:, 0]
    acc = (r[2] - 2.0 * r[1] + r[0]) / h**2
    # Tension T along the string (from the bob to the pivot) plus weight gives m a.
    force = acc + np.array([0.0, 0.0, g])
    towards_pivot = -r[1] / np.linalg.norm(r[1])
    assert np.linalg.norm(np.cross(force, towards_pivot)) < 1e-4 * np.linalg.norm(force)
    assert np.linalg.norm(r[1]) == pytest.approx(length, abs=1e-9)
    assert r[1][2] == pytest.approx(-length * math.cos(alpha), abs=1e-9)


@pytest.mark.parametrize("p", _points(KINDS["projectile"], 12, "j"))
def test_projectile_follows_gravity_until_it_lands(p: dict[str, float]) -> None:
    g, rad = p["g"], math.radians(p["theta"])

    def ground(_: float, s: list[float]) -> float:
        return s[1]

    ground.terminal = True  # type: ignore[attr-defined]
    ground.direction = -1  # type: ignore[attr-defined]
    start = [0.0, p["h0"], p["v0"] * math.cos(rad), p["v0"] * math.sin(rad)]
    sol = solve_ivp(
        lambda _, s: [s[2], s[3], 0.0, -g],
        (0.0, T_MAX),
        start,
        rtol=1e-11,
        atol=1e-11,
        events=ground,
        dense_output=True,
    )
    land = sol.t_events[0][0] if len(sol.t_events[0]) else math.inf
    got = _model(KINDS["projectile"], p)[:, 0]
    flying = land - 1e-6 > TIMES
    assert np.max(np.abs(got[flying] - sol.sol(TIMES[flying])[:2].T)) < 1e-6
    if math.isfinite(land):
        landed = land + 1e-6 < TIMES
        assert np.allclose(got[landed, 0], sol.y_events[0][0][0], atol=1e-6)
        assert np.all(got[landed, 1] == 0.0)


@pytest.mark.parametrize("p", _points(KINDS["two_ball_collision"], 12, "b"))
def test_collision_conserves_momentum_and_energy(p: dict[str, float]) -> None:
    m1, m2, v1 = p["m1"], p["m2"], p["v1"]
    u1, u2 = (float(u) for u in elastic_velocities(np.array(m1), np.array(m2), np.array(v1)))
    assert m1 * u1 + m2 * u2 == pytest.approx(m1 * v1)
    assert m1 * u1**2 + m2 * u2**2 == pytest.approx(m1 * v1**2)
    got = _model(KINDS["two_ball_collision"], p)
    # The balls never pass through each other, and ball 2 leaves faster than ball 1.
    assert np.all(got[:, 0, 0] <= got[:, 1, 0] + 1e-12)
    hit = p["d"] / v1
    late = np.array([hit + 1.0, hit + 2.0])
    after = _model(KINDS["two_ball_collision"], p, late)
    assert after[1, 0, 0] - after[0, 0, 0] == pytest.approx(u1, abs=1e-9)
    assert after[1, 1, 0] - after[0, 1, 0] == pytest.approx(u2, abs=1e-9)


@pytest.mark.parametrize("p", _points(KINDS["cycloid"], 12, "y"))
def test_cycloid_point_stays_on_the_rolling_rim(p: dict[str, float]) -> None:
    r, v = p["R"], p["v"]
    got = _model(KINDS["cycloid"], p)[:, 0]
    centre = np.stack([v * TIMES, np.full_like(TIMES, r)], axis=1)
    assert np.allclose(np.linalg.norm(got - centre, axis=1), r, atol=1e-9)
    # Rolling without slipping: the point is at rest whenever it touches the ground.
    touch = 2.0 * math.pi * r / v
    h = 1e-6
    near = _model(KINDS["cycloid"], p, np.array([touch - h, touch + h]))[:, 0]
    assert np.linalg.norm(near[1] - near[0]) / (2 * h) < 1e-4


@pytest.mark.parametrize("name", ["bounce_elastic", "bounce_inelastic"])
def test_bounces_lose_energy_by_the_square_of_restitution(name: str) -> None:
    kind = KINDS[name]
    for p in _points(kind, 8, name):
        e = p.get("e", 1.0)
        g, h = p["g"], p["h"]
        t_fall = math.sqrt(2.0 * h / g)
        speed = g * t_fall
        start = t_fall
        for hop in range(3):
            speed *= e
            apex_t = start + speed / g
            if apex_t > T_MAX:
                break
            apex = _model(kind, p, np.array([apex_t]))[0, 0, 1]
            # Hop k's apex is e^(2k) times the drop height.
            assert apex == pytest.approx(h * e ** (2 * (hop + 1)), rel=1e-9, abs=1e-12)
            start += 2.0 * speed / g
