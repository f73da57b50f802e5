"""The particle search on answers that used to defeat it: asked far out of time order,
and after an answer that leaves several branches of solutions."""

from __future__ import annotations

import pytest

from blackboxes.box import JSONValue
from blackboxes.families import get_family
from blackboxes.families.psi._kinds import KINDS
from blackboxes.families.psi._particles import ParticleSpace
from blackboxes.families.psi._plan import spread_times
from blackboxes.families.psi._table import table_of
from evaluator.kinds.turns.agents import AgentContext, Briefing, Observation, make_agent
from oracle_bench.rng import rng_for

PSI = get_family("PSI")

WALLS: dict[str, JSONValue] = {
    "W": 10.07, "e": 0.8962, "m2": 0.895, "v1": 1.502, "v2": -1.304, "x1": 1.14, "x2": 5.1
}  # fmt: skip
RIVER: dict[str, JSONValue] = {"W": 27.68, "aim": -4.34, "u_max": 2.636, "v": 2.95}


@pytest.mark.parametrize(
    ("name", "params", "times"),
    [
        # The spread plan: 2.4 s after 10.0 s, 14.7 s after both (the walls bounce many
        # times in between); the time-order rebuild and the rescue place them.
        ("walls_two_balls", WALLS, spread_times(10)),
        # After 10.0 s the particles keep the branch where this boat is still mid-river
        # on a wider river; by 17.4 s it has landed, which only the rescue finds.
        ("river_boat", RIVER, (10.0, 17.4)),
    ],
)
def test_strict_space_places_every_answer_of_the_box(
    name: str, params: dict[str, JSONValue], times: tuple[float, ...]
) -> None:
    kind = KINDS[name]
    rule = PSI.rule_from_params(name, kind.level, params)
    space = ParticleSpace(table_of(kind), strict=True)
    previous = space.log2_count()
    for i, t in enumerate(times, 1):
        space = space.observe(t, rule(t))
        assert space.placed == i
        assert 0.0 <= space.log2_count() <= previous  # a rebuild never grows the count
        previous = space.log2_count()
    assert sorted(space.placed_times) == sorted(times)
    for t in times:  # every particle reproduces every answer
        support = space.predictive(t).support()
        assert support and all(PSI.outputs_agree(v, rule(t)) for v, _ in support.values())


def test_baseline_holds_back_an_unplaced_answer_and_places_it_later() -> None:
    """On this walls box the fixed plan's fourth answer (7.1 s) is placed by no kind
    until a later answer narrows the search: the agent keeps it and places it then."""
    params: dict[str, JSONValue] = {
        "W": 10.24, "e": 0.8618, "m2": 0.609, "v1": -0.53, "v2": -2.294, "x1": 1.92, "x2": 5.6
    }  # fmt: skip
    rule = PSI.rule_from_params("walls_two_balls", "hard", params)
    family = PSI.for_interface(PSI.interface_of(rule))
    agent = make_agent("fixed", AgentContext(family, "hard", rng_for(0, "held back")))
    turns = 10
    agent.start(Briefing(family.task_intro("hard"), turns, 1, "instant"))
    for turn in range(1, turns + 1):
        text = agent.query("")
        x = family.parse_query(text)
        y = rule(x)
        agent.observe(Observation(turn, text, family.render_output(y), x, y, True))
    notes = agent.notes()
    held = [n for n in notes if "held back" in n]
    placed = [n for n in notes if "now placed" in n]
    assert len(held) >= 1 and len(placed) == len(held)
    assert [n.split(":")[0] for n in held] == [n.split(":")[0] for n in placed]


def test_particles_keep_a_branch_the_stages_miss() -> None:
    """Five answers of a damped oscillator fit more than one motion (a lighter, faster
    one, and one at rest from about 7 s). The stages follow one branch; least squares
    from the coarse grid finds another, and the particles keep both: every particle
    still reproduces every answer, and the prediction is right from 7.6 s on, where
    the stages' branch alone was wrong at every held-out time."""
    params: dict[str, JSONValue] = {
        "mass": 0.68, "k": 27.5, "c": 0.5, "d0": 0.3, "v0": -0.5, "L": 1.2
    }  # fmt: skip
    kind = KINDS["damped_oscillator"]
    rule = PSI.rule_from_params(kind.name, kind.level, params)
    times = (10.0, 2.4, 1.7, 14.7, 7.1)  # adaptive's queries on this box at 5@1
    space = ParticleSpace(table_of(kind), strict=True)
    for t in times:
        space = space.observe(t, rule(t))
    assert space.placed == len(times)
    for t in times:
        support = space.predictive(t).support()
        assert support and all(PSI.outputs_agree(v, rule(t)) for v, _ in support.values())
    masses = space.particles[:, [q.name for q in kind.params].index("mass")]
    assert masses.max() - masses.min() > 0.1  # ten fine steps: two branches at least
    late = (7.6, 9.6, 9.9, 13.4, 17.6, 18.1)
    family = PSI.for_rule(rule)
    right = [
        family.check_answer(rule(t), PSI.render_output(space.predictive(t).mode)) for t in late
    ]
    assert all(right)
