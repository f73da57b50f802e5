"""The PSI family's protocol: queries, outputs, tolerance, interface, held-out times and
the particle version space's information invariants."""

from __future__ import annotations

import itertools
import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blackboxes.families import get_family
from blackboxes.families.psi import ABS_TOL, REL_TOL, T_MAX, TIMES
from blackboxes.families.psi._kind import T_STEP
from blackboxes.families.psi._kinds import KINDS, LEVEL_KINDS
from blackboxes.information import expected_information, realised_information
from oracle_bench.errors import FamilyError, InvalidQueryError
from oracle_bench.rng import rng_for

PSI = get_family("PSI")
TWO = PSI.for_interface({"objects": 2, "dims": 2, "answers": "values"})
EXPECTED = {"object1": [1.25, -3.0], "object2": [100.0, 0.0]}


@pytest.mark.parametrize(
    ("text", "t"),
    [("3.4", 3.4), ("t=3.4", 3.4), (" t = 3.40 s", 3.4), ("0", 0.0), ("20", 20.0), ("-0", 0.0)],
)
def test_parse_query_accepts(text: str, t: float) -> None:
    assert PSI.parse_query(text) == t


@pytest.mark.parametrize("text", ["3.45", "-0.1", "20.1", "abc", "nan", "1e1", "", "3.4 4.5"])
def test_parse_query_rejects(text: str) -> None:
    with pytest.raises(InvalidQueryError):
        PSI.parse_query(text)


def test_every_time_round_trips() -> None:
    assert len(TIMES) == 201 and TIMES[0] == 0.0 and TIMES[-1] == T_MAX
    for t in TIMES:
        assert PSI.parse_query(PSI.format_query(t)) == t


def test_render_and_read_back() -> None:
    text = TWO.render_output(EXPECTED)
    assert text == "object1: (1.25, -3.00); object2: (100.00, 0.00)"
    assert TWO.check_answer(EXPECTED, text)
    assert TWO.normalise_answer(text) == text


@pytest.mark.parametrize(
    "answer",
    [
        "object2: (100, 0) object1: (1.25, -3)",
        '{"object1": [1.26, -3.01], "object2": [100.2, 0.01]}',
        "1.25 -3 100 0",
        "Object 1 = (1.25, -3.0); Object 2 = (99.85, -0.02)",
    ],
)
def test_right_answers(answer: str) -> None:
    assert TWO.check_answer(EXPECTED, answer)
    assert TWO.wrong_parts(EXPECTED, answer) == []


@pytest.mark.parametrize(
    ("answer", "wrong"),
    [
        ("object1: (1.25, -3.03); object2: (100, 0)", ["object1"]),
        ("object1: (1.25, -3); object2: (100.25, 0)", ["object2"]),
        ("1.25 -3 100", ["object1", "object2"]),
        ("object1: (1.25, -3); object1: (100, 0)", ["object1", "object2"]),
        ("object3: (1, 2) object1: (1.25, -3)", ["object1", "object2"]),
        ("no idea", ["object1", "object2"]),
    ],
)
def test_wrong_answers_name_the_wrong_objects(answer: str, wrong: list[str]) -> None:
    assert not TWO.check_answer(EXPECTED, answer)
    assert TWO.wrong_parts(EXPECTED, answer) == wrong


@given(st.floats(-500, 500, allow_nan=False), st.floats(-1, 1, allow_nan=False))
@settings(max_examples=200, deadline=None)
def test_tolerance_is_absolute_plus_relative(e: float, frac: float) -> None:
    e = round(e, 2)
    bound = ABS_TOL + REL_TOL * abs(e)
    one = PSI.for_interface({"objects": 1, "dims": 2, "answers": "values"})
    expected = {"object1": [e, 0.0]}
    inside = e + frac * bound * 0.999
    outside = e + math.copysign(bound * 1.001 + 1e-9, frac or 1.0)
    assert one.check_answer(expected, f"object1: ({inside!r}, 0)")
    assert not one.check_answer(expected, f"object1: ({outside!r}, 0)")


def test_output_fits_and_outputs_agree() -> None:
    assert TWO.output_fits(EXPECTED)
    assert not TWO.output_fits({"object1": [1.251, -3.0], "object2": [100.0, 0.0]})
    assert not TWO.output_fits({"object1": [1.25, -3.0]})
    assert not TWO.output_fits({"object1": [1.25, True], "object2": [100.0, 0.0]})
    assert not TWO.output_fits({"object1": [1.25, math.nan], "object2": [100.0, 0.0]})
    assert not TWO.output_fits({"object1": [1.25], "object2": [100.0, 0.0]})
    near = {"object1": [1.26, -3.0], "object2": [100.0, -0.01]}
    far = {"object1": [1.27, -3.0], "object2": [100.0, 0.0]}
    assert TWO.outputs_agree(near, EXPECTED)
    assert not TWO.outputs_agree(far, EXPECTED)
    assert not TWO.outputs_agree("text", EXPECTED)


@pytest.mark.parametrize(
    "interface",
    [
        {"objects": 0, "dims": 2, "answers": "values"},
        {"objects": 1, "dims": 4, "answers": "values"},
        {"objects": 1, "dims": 2, "answers": "prose"},
        {"objects": 1, "dims": 2, "answers": "values", "t_max": 5},
        {"objects": True, "dims": 2, "answers": "values"},
    ],
)
def test_bad_interfaces_are_refused(interface: dict[str, object]) -> None:
    with pytest.raises(FamilyError):
        PSI.for_interface(interface)


def test_held_out_times_avoid_queries_and_are_seeded() -> None:
    asked = [0.0, 1.5, 19.9]
    a = PSI.test_inputs(random.Random(4), 10, asked)
    b = PSI.test_inputs(random.Random(4), 10, asked)
    assert a == b and len(set(a)) == 10 and a == sorted(a)
    assert not set(a) & set(asked) and set(a) <= set(TIMES)
    every = PSI.test_inputs(random.Random(0), 500, TIMES[:-3])
    assert every == list(TIMES[-3:])


def test_plan_spreads_each_prefix_over_the_domain() -> None:
    served = PSI.for_interface({"objects": 1, "dims": 2, "answers": "values"})
    assert served.exploration_plan("hard", 7) == [10.0, 2.4, 14.7, 7.1, 19.4, 11.8, 4.2]
    full = served.exploration_plan("easy", 400)
    assert sorted(full) == list(TIMES)  # every time once, then no more
    for turns in (1, 2, 4, 8, 16, 32):
        plan = sorted(served.exploration_plan("easy", turns))
        edges = [0.0, *plan, T_MAX]
        widest = max(b - a for a, b in itertools.pairwise(edges))
        # Each prefix leaves no gap wider than three times the even spacing (the golden
        # ratio's three-gap theorem bounds the ratio of gaps by phi + 1).
        assert widest <= 3 * T_MAX / (turns + 1) + T_STEP + 1e-9


def test_intro_says_nothing_of_the_rule() -> None:
    for level in ("easy", "hard"):
        for i in range(10):
            rule = PSI.sample_rule(rng_for(1, "intro", level, i), level)
            served = PSI.for_rule(rule)
            intro = served.task_intro(level)
            assert rule.kind not in intro
            for word in ("pendulum", "spring", "orbit", "bounce", "collision", "drag"):
                assert word not in intro.lower()


def test_mixture_keeps_the_kinds_of_the_box_shape() -> None:
    for level in ("easy", "hard"):
        for name in LEVEL_KINDS[level]:
            kind = KINDS[name]
            served = PSI.for_interface(
                {"objects": kind.objects, "dims": kind.dims, "answers": "values"}
            )
            post = served.version_space(level, None).posterior()  # type: ignore[attr-defined]
            assert name in post
            assert all((KINDS[k].objects, KINDS[k].dims) == (kind.objects, kind.dims) for k in post)


@pytest.mark.parametrize("name", sorted(KINDS))
def test_information_invariants_on_random_histories(name: str) -> None:
    """Realised bits sum to the drop in log2 of the estimated count, which never grows
    and never empties on the box's own answers; expected bits are at most log2|Y| and
    log2 of the count; the particles stay consistent with every answer."""
    kind = KINDS[name]
    space0 = PSI.version_space(kind.level, name)
    hs = PSI.hypothesis_space(name, kind.level)
    assert space0.log2_count() == pytest.approx(hs.log2_h)
    for b in range(2):
        rng = rng_for(3, "histories", name, b)
        rule = PSI.sample_rule(rng, kind.level, name)
        space, total, seen = space0, 0.0, []
        for t in rng.sample(TIMES, 4):
            y = rule(t)
            before = space.log2_count()
            h = expected_information(space, t)
            assert 0.0 <= h <= before + 1e-9 and h <= hs.log2_y + 1e-9
            realised = realised_information(space, t, y)
            assert 0.0 <= realised <= before + 1e-9
            total += realised
            space = space.observe(t, y)
            seen.append((t, y))
            assert 0.0 <= space.log2_count() <= before
            assert total == pytest.approx(space0.log2_count() - space.log2_count(), abs=1e-9)
            placed = set(space.placed_times)
            assert placed <= {t_seen for t_seen, _ in seen}
            for t_seen, y_seen in seen:  # every particle reproduces every placed answer
                if t_seen in placed:
                    support = space.predictive(t_seen).support()
                    assert support
                    assert all(PSI.outputs_agree(v, y_seen) for v, _ in support.values())
        assert total <= hs.log2_h + 1e-9  # type: ignore[operator]


@pytest.mark.parametrize("name", ["projectile", "kepler_orbit", "walls_two_balls"])
def test_particle_space_is_deterministic_and_pins_the_box_down(name: str) -> None:
    """The same answers give the same particles and count in a fresh space; after ten
    answers the particles' most common answer is right at most held-out times, and
    the count has fallen by most of log2|H|."""
    kind = KINDS[name]
    rule = PSI.sample_rule(rng_for(8, "pin", name), kind.level, name)
    times = rng_for(9, "pin", name).sample(TIMES, 10)
    spaces = []
    for _ in range(2):
        space = PSI.version_space(kind.level, name)
        for t in times:
            space = space.observe(t, rule(t))
        spaces.append(space)
    a, b = spaces
    assert a.log2_count() == b.log2_count()
    assert (a.particles == b.particles).all()  # type: ignore[attr-defined]
    assert a.log2_count() < 0.5 * kind.log2_size
    held_out = [t for t in TIMES if t not in times][::10]
    right = sum(
        PSI.for_rule(rule).check_answer(rule(t), PSI.render_output(a.predictive(t).mode))
        for t in held_out
    )
    assert right >= 0.8 * len(held_out)
