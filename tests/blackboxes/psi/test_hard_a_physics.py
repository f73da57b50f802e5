"""Physics of the damped and driven oscillators and the Kepler orbit, checked against
known results rather than against the kinds' own formulas.

Oscillators: the closed forms agree with SciPy's integration of m x'' = -k x - c x'
(+ F0 cos(omega t)); each damped period shrinks the swing by exp(-c Td / 2m); the energy
lost equals the damper's work (less the drive's); without damping they are the textbook
harmonic and beating solutions; the steady response is the complex amplitude
F0 / (k - m omega^2 + i c omega), a quarter period behind the force at resonance.
Kepler: Kepler's equation is solved to rounding error; the reference conserves energy and
angular momentum; the body is back at periapsis after the period of Kepler's third law,
at the apoapsis the conservation laws predict half a period in, on an ellipse (distances
to both foci summing to 2a), sweeping equal areas in equal times.
"""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from blackboxes.families.psi._hard_orbit import (
    KeplerOrbit,
    eccentric_anomaly,
    orbit_elements,
)
from blackboxes.families.psi._hard_orbit import (
    _reference_solution as kepler_reference,
)
from blackboxes.families.psi._hard_oscillators import (
    DampedOscillator,
    DrivenOscillator,
    damped_displacement,
    driven_displacement,
    steady_response,
)
from blackboxes.families.psi._hard_oscillators import (
    _driven_reference as driven_reference,
)
from blackboxes.families.psi._kind import T_MAX, FloatArray, PhysicsKind

DAMPED = DampedOscillator()
DRIVEN = DrivenOscillator()
KEPLER = KeplerOrbit()
TIMES = np.linspace(0.0, T_MAX, 2001)


def _one(p: dict[str, float]) -> dict[str, FloatArray]:
    return {n: np.array([v]) for n, v in p.items()}


def _points(kind: PhysicsKind, count: int, seed: str) -> list[dict[str, float]]:
    rng = random.Random(seed)
    return [
        {n: float(v[i]) for n, v in kind.grid.items()} for i in rng.sample(range(kind.size), count)
    ]


def _simpson(values: FloatArray, h: float) -> float:
    """Simpson's rule over an odd number of equally spaced samples ``h`` apart."""
    return float(
        h / 3.0 * (values[0] + 4.0 * values[1:-1:2].sum() + 2.0 * values[2:-1:2].sum() + values[-1])
    )


# -- damped oscillator ----------------------------------------------------------------


@pytest.mark.parametrize("p", _points(DAMPED, 12, "damped ode"))
def test_damped_closed_form_solves_the_equation_of_motion(p: dict[str, float]) -> None:
    m, k, c, length = p["mass"], p["k"], p["c"], p["L"]
    sol = solve_ivp(
        lambda _, s: [s[1], (-k * (s[0] - length) - c * s[1]) / m],
        (0.0, T_MAX),
        [length + p["d0"], p["v0"]],
        t_eval=TIMES,
        rtol=1e-12,
        atol=1e-12,
        method="DOP853",
    )
    assert sol.success
    got = DAMPED.positions(_one(p), TIMES)[0, :, 0]
    assert np.max(np.abs(got[:, 0] - sol.y[0])) < 1e-9
    assert np.all(got[:, 1] == 0.0)


@pytest.mark.parametrize("p", _points(DAMPED, 12, "damped decrement"))
def test_each_damped_period_shrinks_the_swing_by_the_log_decrement(p: dict[str, float]) -> None:
    m, k, c = p["mass"], p["k"], p["c"]
    gamma = c / (2.0 * m)
    period = 2.0 * math.pi / math.sqrt(k / m - gamma * gamma)
    t = np.linspace(0.0, T_MAX - period, 501)
    now = damped_displacement(_one(p), t)[0]
    later = damped_displacement(_one(p), t + period)[0]
    assert np.max(np.abs(later - math.exp(-gamma * period) * now)) < 1e-12


@pytest.mark.parametrize("p", _points(DAMPED, 8, "damped energy"))
def test_damped_energy_falls_by_the_dampers_work(p: dict[str, float]) -> None:
    m, k, c, length = p["mass"], p["k"], p["c"], p["L"]
    sol = solve_ivp(
        lambda _, s: [s[1], (-k * (s[0] - length) - c * s[1]) / m],
        (0.0, T_MAX),
        [length + p["d0"], p["v0"]],
        dense_output=True,
        rtol=1e-12,
        atol=1e-12,
        method="DOP853",
    )
    t = np.linspace(0.0, T_MAX, 8001)
    x, v = sol.sol(t)
    assert np.max(np.abs(x - (length + damped_displacement(_one(p), t)[0]))) < 1e-9
    energy = 0.5 * m * v * v + 0.5 * k * (x - length) ** 2
    assert energy[0] == pytest.approx(0.5 * m * p["v0"] ** 2 + 0.5 * k * p["d0"] ** 2, rel=1e-12)
    assert np.all(np.diff(energy) <= 1e-15)
    assert energy[0] - energy[-1] == pytest.approx(_simpson(c * v * v, t[1] - t[0]), rel=1e-8)


@pytest.mark.parametrize(("m", "k", "d0", "v0"), [(0.5, 3.0, 0.1, 0.5), (2.0, 31.0, 0.3, -0.5)])
def test_undamped_oscillator_is_simple_harmonic(m: float, k: float, d0: float, v0: float) -> None:
    w = math.sqrt(k / m)
    p = {"mass": m, "k": k, "c": 0.0, "d0": d0, "v0": v0, "L": 1.0}
    got = DAMPED.positions(_one(p), TIMES)[0, :, 0, 0]
    assert np.max(np.abs(got - (1.0 + d0 * np.cos(w * TIMES) + v0 / w * np.sin(w * TIMES)))) < 1e-12


def test_damped_grid_is_under_damped_and_the_spring_stays_in_range() -> None:
    g = DAMPED.grid
    zeta = g["c"] / (2.0 * np.sqrt(g["k"] * g["mass"]))
    assert zeta.max() <= 0.5
    x = DAMPED.positions(g, np.linspace(0.0, T_MAX, 1001))[:, :, 0, 0]
    length = g["L"][:, None]
    assert np.all(np.abs(x - length) <= 0.5 * length + 1e-12)
    # It starts with the spring stretched by d0.
    assert np.abs(x[:, 0] - length[:, 0] - g["d0"]).max() < 1e-12


# -- driven oscillator ----------------------------------------------------------------


@pytest.mark.parametrize("p", _points(DRIVEN, 10, "driven energy"))
def test_driven_reference_balances_energy_against_drive_and_damper(p: dict[str, float]) -> None:
    m, k, c, f0, w = (p[n] for n in ("mass", "k", "c", "F0", "omega"))
    sol = driven_reference(m, k, c, f0, w)
    t = np.linspace(0.0, T_MAX, 20001)
    x, v = sol(t)
    assert (x[0], v[0]) == (0.0, 0.0)
    energy = 0.5 * m * v * v + 0.5 * k * x * x
    power = f0 * np.cos(w * t) * v - c * v * v
    # Energy gained from t = 0 to every 0.1 s against the power integrated that far.
    h = t[1] - t[0]
    for j in range(100, len(t), 100):
        gained = _simpson(power[: j + 1], h)
        assert energy[j] == pytest.approx(gained, abs=1e-9 * (1.0 + energy.max()))


@pytest.mark.parametrize("p", _points(DRIVEN, 12, "driven ode"))
def test_driven_closed_form_starts_at_rest_and_matches_the_reference(p: dict[str, float]) -> None:
    eps = 1e-6
    x = driven_displacement(_one(p), np.array([0.0, eps, 2.0 * eps]))[0]
    assert x[0] == pytest.approx(0.0, abs=1e-15)
    # x(eps) = F0 eps^2 / (2 m) + O(eps^3): zero velocity and the force's acceleration.
    assert x[1] == pytest.approx(p["F0"] * eps * eps / (2.0 * p["mass"]), rel=1e-4)
    ref = DRIVEN.reference(p, TIMES)[:, 0, 0]
    assert np.max(np.abs(driven_displacement(_one(p), TIMES)[0] - ref)) < 1e-8


@pytest.mark.parametrize("p", _points(DRIVEN, 12, "driven steady"))
def test_steady_response_is_the_complex_amplitude(p: dict[str, float]) -> None:
    m, k, c, f0, w = (p[n] for n in ("mass", "k", "c", "F0", "omega"))
    amp, lag = steady_response(*(np.array([v]) for v in (m, k, c, f0, w)))
    z = f0 / complex(k - m * w * w, c * w)  # x = Re(z exp(i w t))
    assert float(amp[0]) == pytest.approx(abs(z), rel=1e-13)
    assert float(lag[0]) == pytest.approx(-math.atan2(z.imag, z.real), abs=1e-13)


def test_heavily_damped_drive_settles_into_the_steady_response() -> None:
    g = DRIVEN.grid
    gamma = g["c"] / (2.0 * g["mass"])
    strong = np.flatnonzero(gamma >= 1.2)
    assert len(strong) >= 10
    late = np.linspace(15.0, T_MAX, 501)
    for i in strong[:: max(1, len(strong) // 10)]:
        p = {n: float(v[i]) for n, v in g.items()}
        z = p["F0"] / complex(p["k"] - p["mass"] * p["omega"] ** 2, p["c"] * p["omega"])
        steady = (z * np.exp(1j * p["omega"] * late)).real
        # The free oscillation (amplitude under 3 m on the grid) is down by exp(-18).
        assert np.max(np.abs(DRIVEN.reference(p, late)[:, 0, 0] - steady)) < 3.0 * math.exp(-18.0)


@pytest.mark.parametrize(("m", "k", "w"), [(1.0, 7.0, 1.0), (0.5, 39.0, 5.0), (2.0, 3.0, 4.0)])
def test_undamped_drive_beats(m: float, k: float, w: float) -> None:
    w0 = math.sqrt(k / m)
    p = {"mass": m, "k": k, "c": 0.0, "F0": 2.0, "omega": w}
    beat = 2.0 / (m * (w0 * w0 - w * w)) * (np.cos(w * TIMES) - np.cos(w0 * TIMES))
    assert np.max(np.abs(driven_displacement(_one(p), TIMES)[0] - beat)) < 1e-12


def test_at_resonance_the_response_lags_a_quarter_period() -> None:
    m, k, c, f0 = 1.0, 16.0, 0.3, 2.0
    amp, lag = steady_response(*(np.array([v]) for v in (m, k, c, f0, 4.0)))
    assert float(lag[0]) == pytest.approx(math.pi / 2.0, abs=1e-15)
    assert float(amp[0]) == pytest.approx(f0 / (c * 4.0), rel=1e-15)


def test_driven_grid_is_under_damped_and_stays_in_range() -> None:
    g = DRIVEN.grid
    assert (g["c"] / (2.0 * np.sqrt(g["k"] * g["mass"]))).max() <= 0.5
    x = DRIVEN.positions(g, np.linspace(0.0, T_MAX, 1001))[:, :, 0, 0]
    assert np.abs(x).max() <= 3.0
    assert np.abs(x).max(axis=1).min() >= 0.05


# -- Kepler orbit ---------------------------------------------------------------------


def test_eccentric_anomaly_solves_keplers_equation() -> None:
    mean = np.linspace(-60.0, 60.0, 24001)[:, None]
    e = np.linspace(0.0, 0.95, 20)[None, :]
    big_e = eccentric_anomaly(mean, e)
    residual = np.mod(big_e - e * np.sin(big_e) - mean + math.pi, 2.0 * math.pi) - math.pi
    assert np.abs(residual).max() < 1e-13
    assert np.abs(big_e).max() <= math.pi + 1e-12


def _specific(p: dict[str, float]) -> tuple[float, float, float]:
    """(energy per mass, angular momentum per mass, semi-major axis from vis-viva)."""
    energy = 0.5 * p["vp"] ** 2 - p["GM"] / p["rp"]
    return energy, p["rp"] * p["vp"], -p["GM"] / (2.0 * energy)


@pytest.mark.parametrize("p", _points(KEPLER, 12, "kepler conserve"))
def test_kepler_reference_conserves_energy_and_angular_momentum(p: dict[str, float]) -> None:
    energy, momentum, _ = _specific(p)
    x, y, vx, vy = kepler_reference(p["GM"], p["rp"], p["vp"], p["phi"])(TIMES)
    e_t = 0.5 * (vx * vx + vy * vy) - p["GM"] / np.hypot(x, y)
    assert np.max(np.abs(e_t - energy)) < 1e-9 * abs(energy)
    assert np.max(np.abs(x * vy - y * vx - momentum)) < 1e-9 * momentum


@pytest.mark.parametrize("p", _points(KEPLER, 16, "kepler third law"))
def test_kepler_period_and_apoapsis_follow_from_the_conservation_laws(p: dict[str, float]) -> None:
    energy, momentum, a = _specific(p)
    period = 2.0 * math.pi * math.sqrt(a**3 / p["GM"])  # Kepler's third law
    # Apoapsis: the other root of energy r^2 + GM r - h^2 / 2 = 0 (speed h / r there).
    ra = (-p["GM"] - math.sqrt(p["GM"] ** 2 + 2.0 * energy * momentum**2)) / (2.0 * energy)
    assert ra > p["rp"]
    rad = math.radians(p["phi"])
    start = np.array([p["rp"] * math.cos(rad), p["rp"] * math.sin(rad)])
    half = np.array([0.5 * period, period, 2.0 * period])
    model = KEPLER.positions(_one(p), half)[0, :, 0]
    assert np.hypot(*model[0]) == pytest.approx(ra, rel=1e-12)
    np.testing.assert_allclose(model[0], -start * ra / p["rp"], atol=1e-9)
    np.testing.assert_allclose(model[1:], [start, start], atol=1e-9)
    inside = half[half <= T_MAX]
    ref = KEPLER.reference(p, inside)[:, 0]
    np.testing.assert_allclose(ref, model[: len(inside)], atol=1e-7)


@pytest.mark.parametrize("p", _points(KEPLER, 12, "kepler ellipse"))
def test_kepler_model_traces_an_ellipse_sweeping_equal_areas(p: dict[str, float]) -> None:
    _, momentum, a = _specific(p)
    e = p["rp"] * p["vp"] ** 2 / p["GM"] - 1.0
    rad = math.radians(p["phi"])
    t = np.linspace(0.0, T_MAX, 200001)
    xy = KEPLER.positions(_one(p), t)[0, :, 0]
    # Distances to the star (the origin) and to the empty focus, 2 a e beyond the centre.
    empty = -2.0 * a * e * np.array([math.cos(rad), math.sin(rad)])
    total = np.hypot(*xy.T) + np.hypot(*(xy - empty).T)
    assert np.max(np.abs(total - 2.0 * a)) < 1e-10 * a
    # Kepler's second law: the area swept in each 0.1 s (fine triangles) is h / 2 * 0.1.
    cross = xy[:-1, 0] * xy[1:, 1] - xy[1:, 0] * xy[:-1, 1]
    swept = 0.5 * cross.reshape(200, 1000).sum(axis=1)
    assert np.max(np.abs(swept - 0.05 * momentum)) < 1e-6 * momentum


@pytest.mark.parametrize(("gm", "rp"), [(50.0, 4.0), (120.0, 6.0), (200.0, 2.5)])
def test_circular_speed_gives_uniform_circular_motion(gm: float, rp: float) -> None:
    vp = math.sqrt(gm / rp)
    e, _, n = (float(v) for v in orbit_elements(np.array(gm), np.array(rp), np.array(vp)))
    assert abs(e) < 1e-15
    assert n == pytest.approx(vp / rp, rel=1e-13)
    p = {"GM": gm, "rp": rp, "vp": vp, "phi": 60.0}
    xy = KEPLER.positions(_one(p), TIMES)[0, :, 0]
    angle = math.radians(60.0) + vp / rp * TIMES
    np.testing.assert_allclose(
        xy, np.stack([rp * np.cos(angle), rp * np.sin(angle)], -1), atol=1e-11
    )


def test_kepler_grid_orbits_stay_in_range() -> None:
    g = KEPLER.grid
    xy = KEPLER.positions(g, np.linspace(0.0, T_MAX, 1001))[:, :, 0]
    r = np.hypot(xy[..., 0], xy[..., 1])
    assert r.max() <= 20.0 + 1e-9
    np.testing.assert_allclose(r.min(axis=1), g["rp"], rtol=1e-12)
    e, a, n = orbit_elements(g["GM"], g["rp"], g["vp"])
    assert e.min() >= 0.05 and e.max() <= 0.8
    period = 2.0 * math.pi / n
    assert period.min() >= 5.0 and period.max() <= 30.0
    assert np.all(a > 0.0)
