"""Every PSI kind: its grids, its parameters, its box code against its reference.

The box code is the kind's rendered template, run in process under the sandbox's policy
layer (process isolation is tested elsewhere). The acceptance check (1,000 random times
per box over 100 boxes per kind, any time in [0, T_MAX], not only query times) lives in
``test_differential.py``; here a smaller sample gives fast, per-kind failures.
"""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from blackboxes.families import get_family
from blackboxes.families.psi import T_MAX, TIMES
from blackboxes.families.psi._kinds import KINDS, LEVEL_KINDS
from blackboxes.families.psi._ode import RK4_STEP
from blackboxes.families.psi._table import table_of
from oracle_bench.rng import rng_for
from templates import render
from tests.blackboxes.restricted import restricted_blackbox

FAMILY = get_family("PSI")
NAMES = sorted(KINDS)


def _box(rule):  # type: ignore[no-untyped-def]
    template, context = FAMILY.code_template(rule)
    return restricted_blackbox(render(template, **context))


def test_levels_have_at_least_eight_kinds() -> None:
    assert len(LEVEL_KINDS["easy"]) >= 8
    assert len(LEVEL_KINDS["hard"]) >= 8
    assert not set(LEVEL_KINDS["easy"]) & set(LEVEL_KINDS["hard"])


@pytest.mark.parametrize("name", NAMES)
def test_grid_and_params_round_trip(name: str) -> None:
    kind = KINDS[name]
    assert 64 <= kind.size <= 4096
    for i in range(20):
        rule = FAMILY.sample_rule(rng_for(5, name, i), kind.level, name)
        again = FAMILY.rule_from_params(name, kind.level, dict(rule.params))
        assert again.params == rule.params
        for q in kind.params:
            assert q.fine_index(rule.params[q.name]) is not None  # type: ignore[arg-type]
            assert q.lo <= rule.params[q.name] <= q.hi  # type: ignore[operator]
        for q in kind.nuisance:
            assert rule.params[q.name] in q.values
        # The coder's spec states every parameter's value.
        for q in (*kind.params, *kind.nuisance):
            assert f"{rule.params[q.name]:g}" in rule.description, (q.name, rule.description)


@pytest.mark.parametrize("name", NAMES)
def test_table_is_finite_and_distinct_enough(name: str) -> None:
    kind = KINDS[name]
    table = table_of(kind)
    assert table.cells.shape == (kind.size, len(TIMES), kind.objects * kind.dims)
    # Neighbouring grid points must be told apart somewhere: at most 1 in 8 duplicates.
    assert table.distinct >= 0.875 * kind.size
    space = FAMILY.hypothesis_space(name, kind.level)
    # log2|H| counts fine points: the coarse grid is a sub-grid of them.
    assert space.log2_h == pytest.approx(kind.log2_size)
    assert space.log2_h > math.log2(kind.size) + 4
    stepped = sum(q.step is not None for q in kind.params)
    assert space.low == pytest.approx(
        max(math.log2(table.distinct), kind.log2_size - stepped * math.log2(5))
    )
    assert 0 < space.log2_y < 200
    assert space.t_info is not None and space.t_info >= 1


@pytest.mark.parametrize("name", NAMES)
def test_particle_model_matches_reference(name: str) -> None:
    """The particle model (what agents and information use) and the trusted reference
    agree far inside one output unit at random fine points, so the true parameters are
    consistent with every answer."""
    kind = KINDS[name]
    rng = random.Random(name)
    times = np.array([*sorted(rng.uniform(0.0, T_MAX) for _ in range(60)), 0.0, T_MAX])
    for b in range(8):
        drawn = kind.sample_params(rng_for(11, name, b))
        p = {q.name: float(drawn[q.name]) for q in kind.params}  # type: ignore[arg-type]
        one = {k: np.array([v]) for k, v in p.items()}
        model = kind.positions(one, times)[0]
        ref = kind.reference(p, times)
        assert np.max(np.abs(model - ref)) < 1e-3, (p, float(np.max(np.abs(model - ref))))


@pytest.mark.parametrize("name", NAMES)
def test_box_code_agrees_with_reference(name: str) -> None:
    kind = KINDS[name]
    for b in range(6):
        rng = rng_for(17, name, b)
        rule = FAMILY.sample_rule(rng, kind.level, name)
        served = FAMILY.for_rule(rule)
        box = _box(rule)
        times = [0.0, T_MAX, *rng.sample(TIMES, 30), *(rng.uniform(0, T_MAX) for _ in range(30))]
        for t in times:
            got, expected = box(t), rule(t)
            assert served.output_fits(got), (t, got)
            assert served.outputs_agree(got, expected), (rule.params, t, got, expected)


def test_rk4_step_is_what_templates_are_told() -> None:
    assert RK4_STEP == 0.002
    assert "0.002" in FAMILY.coder_notes


@pytest.mark.parametrize("name", NAMES)
def test_fine_steps_are_what_the_tolerance_distinguishes(name: str) -> None:
    """Each stepped parameter's step moves some coordinate, somewhere in [0, T_MAX], by
    at most about the answer tolerance (0.02 m; finite differences at another scale
    than the derivation, hence 0.03) and at least a tenth of it: the fine grid
    is neither coarser than an answer can tell apart nor needlessly finer (median over
    coarse points, as benchmarks/psi/fine_steps.py derives it)."""
    kind = KINDS[name]
    times = np.array(TIMES)
    rng = np.random.default_rng(0)
    idx = rng.choice(kind.size, size=min(48, kind.size), replace=False)
    base = {k: v[idx] for k, v in kind.grid.items()}
    p0 = kind.positions(base, times)
    for q in kind.params:
        if q.step is None:
            continue
        h = q.step * 1e-2
        moved = kind.positions({**base, q.name: base[q.name] + h}, times)
        per_step = np.median(np.abs(moved - p0).reshape(len(idx), -1).max(axis=1)) / h * q.step
        assert 0.002 <= per_step <= 0.03, (q.name, per_step)
