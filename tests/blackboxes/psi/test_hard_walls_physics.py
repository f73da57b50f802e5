"""Physics of the two balls between walls, checked independently of the kind's code paths.

The exact reference (rational arithmetic) must conserve momentum and kinetic energy at
every ball-ball impact, and take the hitting ball's kinetic energy down by e^2 at every
wall impact; with e = 1 the total energy never changes. The particle model keeps the
balls ordered inside the walls, its centre of mass moves uniformly between wall impacts,
and for equal masses (an elastic impact swaps the velocities) the two balls are two
independent bouncers that pass through each other, a motion computed here from scratch.
"""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction

import numpy as np
import pytest

from blackboxes.families.psi._hard_walls import (
    EVENT_GAP,
    M1,
    MAX_EVENTS,
    WallsTwoBalls,
    reference_events,
    wall_events,
)
from blackboxes.families.psi._kind import T_MAX, TIMES, FloatArray

KIND = WallsTwoBalls()
NAMES = ("W", "m2", "x1", "x2", "v1", "v2", "e")
FINE = np.linspace(0.0, T_MAX, 801)


def _params(i: int) -> dict[str, float]:
    return {n: float(KIND.grid[n][i]) for n in NAMES}


def _sample(count: int, seed: str) -> list[dict[str, float]]:
    rng = random.Random(seed)
    return [_params(rng.randrange(KIND.size)) for _ in range(count)]


def _rows(p: dict[str, float]) -> tuple[tuple[Fraction, ...], ...]:
    return reference_events(*(p[n] for n in NAMES))


def _exact(value: float) -> Fraction:
    return Fraction(repr(value))


def _kinetic(m2: Fraction, u: Fraction, v: Fraction) -> Fraction:
    return (_exact(M1) * u * u + m2 * v * v) / 2


def _kind_of_impact(before: tuple[Fraction, ...], after: tuple[Fraction, ...], w: Fraction) -> str:
    _, a, b, u, v = after
    if a == 0 and u != before[3]:
        return "wall1"
    if b == w and v != before[4]:
        return "wall2"
    return "balls"


@pytest.mark.parametrize("p", _sample(60, "impacts"))
def test_reference_impacts_conserve_what_they_must(p: dict[str, float]) -> None:
    m2, e, w = _exact(p["m2"]), _exact(p["e"]), _exact(p["W"])
    rows = _rows(p)
    assert len(rows) >= 2  # every sampled rule has impacts to check
    for before, after in itertools.pairwise(rows):
        _, _, _, u, v = before
        _, a, b, u2, v2 = after
        impact = _kind_of_impact(before, after, w)
        if impact == "balls":
            # Momentum and kinetic energy, exactly; the balls touch.
            assert a == b
            assert _exact(M1) * u + m2 * v == _exact(M1) * u2 + m2 * v2
            assert _kinetic(m2, u, v) == _kinetic(m2, u2, v2)
            assert u2 <= v2  # they separate (or ride together)
        elif impact == "wall1":
            assert u < 0 and u2 == -e * u and v2 == v
            assert _kinetic(m2, u2, v2) - _kinetic(m2, u, v) == (e * e - 1) * _exact(M1) * u * u / 2
        else:
            assert v > 0 and v2 == -e * v and u2 == u
            assert _kinetic(m2, u2, v2) - _kinetic(m2, u, v) == (e * e - 1) * m2 * v * v / 2


@pytest.mark.parametrize("p", _sample(30, "elastic"))
def test_elastic_walls_conserve_energy_and_inelastic_walls_lose_it(p: dict[str, float]) -> None:
    elastic = _rows({**p, "e": 1.0})
    m2 = _exact(p["m2"])
    start = _kinetic(m2, elastic[0][3], elastic[0][4])
    assert all(_kinetic(m2, r[3], r[4]) == start for r in elastic)
    lossy = _rows(p)
    energies = [_kinetic(m2, r[3], r[4]) for r in lossy]
    assert all(b <= a for a, b in itertools.pairwise(energies))
    # Every wall impact multiplies one ball's energy by e^2 < 1, and each rule has one.
    assert energies[-1] < energies[0]


def test_elastic_model_keeps_energy_at_every_impact() -> None:
    grid = {n: KIND.grid[n] for n in NAMES}
    events = wall_events({**grid, "e": np.ones(KIND.size)})
    m2 = grid["m2"][:, None]
    real = events.codes >= 0

    def energy(vel: FloatArray) -> FloatArray:
        return np.asarray(0.5 * (M1 * vel[..., 0] ** 2 + m2 * vel[..., 1] ** 2))

    drift = np.abs(energy(events.after) - energy(events.before))[real]
    assert real.sum() > KIND.size  # impacts were checked
    assert float(drift.max()) < 1e-12


def test_model_impacts_match_the_exact_reference() -> None:
    events = wall_events(KIND.grid)
    rng = random.Random("event times")
    for i in rng.sample(range(KIND.size), 80):
        rows = _rows(_params(i))
        count = int((events.codes[i] >= 0).sum())
        assert count == len(rows) - 1 <= MAX_EVENTS
        exact = np.array([float(r[0]) for r in rows[1:]])
        assert np.max(np.abs(events.times[i, :count] - exact), initial=0.0) < 1e-12
        # Admissible: no two impacts sharing a ball are closer than the gap.
        assert np.all(np.diff(exact) >= 0.0)
        codes = events.codes[i, :count]
        shared = (codes[1:] == 2) | (codes[:-1] == 2)
        assert np.all(np.diff(exact)[shared] >= EVENT_GAP)


def test_balls_stay_ordered_between_the_walls() -> None:
    pos = KIND.positions(KIND.grid, FINE)[:, :, :, 0]
    w = KIND.grid["W"][:, None]
    assert not np.isnan(pos).any()
    assert float(pos[:, :, 0].min()) >= -1e-12
    assert np.all(pos[:, :, 1] <= w + 1e-12)
    assert np.all(pos[:, :, 0] <= pos[:, :, 1] + 1e-12)
    assert np.all(KIND.positions(KIND.grid, np.array(TIMES))[..., 1] == 0.0)


@pytest.mark.parametrize("p", _sample(40, "centre of mass"))
def test_centre_of_mass_moves_uniformly_between_wall_impacts(p: dict[str, float]) -> None:
    rows = _rows(p)
    w = _exact(p["W"])
    walls = [0.0]
    walls += [
        float(after[0])
        for before, after in itertools.pairwise(rows)
        if _kind_of_impact(before, after, w) != "balls"
    ]
    walls.append(T_MAX)
    checked = 0
    for lo, hi in itertools.pairwise(walls):
        if hi - lo < 1e-3:
            continue
        t = np.linspace(lo, hi, 9)[1:-1]
        x = KIND.positions({n: np.array([v]) for n, v in p.items()}, t)[0, :, :, 0]
        centre = (M1 * x[:, 0] + p["m2"] * x[:, 1]) / (M1 + p["m2"])
        # Equally spaced samples of a straight line have zero second differences.
        assert np.max(np.abs(np.diff(centre, 2))) < 1e-9
        checked += 1
    assert checked >= 2


def _bouncer(x: float, v: float, w: float, e: float, t: float) -> float:
    """One point between walls at 0 and w, restitution e at both, at time t (s)."""
    now = 0.0
    while True:
        if v == 0.0:
            return x
        hit = (w - x) / v if v > 0.0 else -x / v
        if now + hit > t:
            return x + v * (t - now)
        now += hit
        x = w if v > 0.0 else 0.0
        v = -e * v


def test_equal_masses_are_two_bouncers_passing_through_each_other() -> None:
    equal = np.flatnonzero(KIND.grid["m2"] == M1)
    assert len(equal) > 100
    times = np.array([*np.linspace(0.0, T_MAX, 97), 3.3333, 17.77])
    pos = KIND.positions({n: KIND.grid[n][equal] for n in NAMES}, times)[:, :, :, 0]
    worst = 0.0
    for row, i in enumerate(equal):
        p = _params(int(i))
        for j, t in enumerate(times):
            a = _bouncer(p["x1"], p["v1"], p["W"], p["e"], float(t))
            b = _bouncer(p["x2"], p["v2"], p["W"], p["e"], float(t))
            worst = max(worst, abs(pos[row, j, 0] - min(a, b)), abs(pos[row, j, 1] - max(a, b)))
    assert worst < 1e-9


def test_a_hand_worked_rule() -> None:
    # W = 8, m2 = 1 (equal masses swap velocities), balls at 2 and 6 moving towards each
    # other at 0.8 and -0.8 m/s: they meet at x = 4 at t = 2.5 s, ball 1 reaches the wall
    # 4 m away at t = 7.5 s, leaves at 0.6 m/s and is back at x = 2.1 at t = 11 s.
    p = {"W": 8.0, "m2": 1.0, "x1": 2.0, "x2": 6.0, "v1": 0.8, "v2": -0.8, "e": 0.75}
    x = KIND.positions({n: np.array([v]) for n, v in p.items()}, np.array([2.5, 7.5, 11.0]))
    assert x[0, :, 0, 0] == pytest.approx([4.0, 0.0, 2.1], abs=1e-12)
    assert x[0, :, 1, 0] == pytest.approx([4.0, 8.0, 5.9], abs=1e-12)
    rows = _rows(p)
    assert [r[0] for r in rows[1:4]] == [Fraction(5, 2), Fraction(15, 2), Fraction(15, 2)]
    assert math.isclose(float(rows[1][1]), 4.0)
