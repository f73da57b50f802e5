"""The adaptive baseline with a family's ``plan_margin``: the plan's next query unless the
greedy pick is worth more than the margin (CRI sets one; ERI and CII stay pure greedy)."""

from __future__ import annotations

import pytest

from blackboxes.families import get_family
from blackboxes.information import expected_information, output_key
from evaluator.kinds.turns.agents import AgentContext, Briefing, Observation, make_agent
from oracle_bench.rng import rng_for


def test_only_cri_sets_a_margin() -> None:
    assert get_family("CRI").plan_margin == 0.25
    assert get_family("ERI").plan_margin is None
    assert get_family("CII").plan_margin is None


@pytest.mark.parametrize(("level", "box"), [("easy", 0), ("easy", 1), ("hard", 0), ("hard", 7)])
def test_each_query_is_the_plan_or_worth_more_than_the_margin(level: str, box: int) -> None:
    deviations = _episode(level, box)
    # Hard boxes 0 (at_least) and 7 (reachability) leave the plan once answers come in.
    assert (len(deviations) > 0) == (level == "hard")


def _episode(level: str, box: int) -> list[int]:
    """Run six adaptive turns on one CRI box; the turns whose query is not the plan's."""
    base = get_family("CRI")
    rule = base.sample_rule(rng_for(0, "margin test", level, box), level)
    family = base.for_interface(base.interface_of(rule))
    turns = 6
    plan = family.exploration_plan(level, turns)
    agent = make_agent("adaptive", AgentContext(family, level, rng_for(0, "agent", box)))
    agent.start(Briefing(family.task_intro(level), turns, 1, "instant"))
    asked: list[str] = []
    deviations: list[int] = []
    for turn in range(1, turns + 1):
        view = agent.view  # the space the agent scores on before this turn
        text = agent.query("")
        x = family.parse_query(text)
        planned = next(p for p in plan if output_key(p) not in {output_key(a) for a in asked})
        if turn == 1:
            # At the prior every candidate is worth the same to within the margin.
            assert x == plan[0]
        if x != planned:
            gain = expected_information(view, x) - expected_information(view, planned)
            assert family.plan_margin is not None and gain > family.plan_margin
            deviations.append(turn)
        asked.append(x)
        y = rule(x)
        agent.observe(Observation(turn, text, family.render_output(y), x, y, True))
    assert len(set(asked)) == turns
    return deviations
