"""The turn@shot protocol against real ERI boxes in the real sandbox."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from blackboxes.families import Family
from blackboxes.store import Box, load_suite_boxes
from evaluator.kinds.turns.agents import Agent, Question
from evaluator.kinds.turns.protocol import EpisodeContext, run_episode, turn_banner
from evaluator.kinds.turns.trajectory import Trajectory
from evaluator.spec import FeedbackMode, TurnShot
from oracle_bench import rng_for
from sandbox import SandboxLimits, SandboxWorker

FAST = SandboxLimits(cpu_seconds=1, wall_seconds=1.0)


@pytest.fixture(scope="module")
def boxes(tmp_path_factory: pytest.TempPathFactory, suite_builder: Any) -> list[Box]:
    suite_dir = suite_builder(tmp_path_factory.mktemp("suites"), n=3, seed=11)
    return load_suite_boxes(suite_dir)[1]


def play(
    box: Box,
    family: Family,
    agent: Agent,
    spec: TurnShot,
    feedback: FeedbackMode = "instant",
    limits: SandboxLimits | None = None,
) -> Trajectory:
    ctx = EpisodeContext(suite="t", agent_name="scripted", spec=spec, feedback=feedback, seed=0)
    with SandboxWorker(box.code, entry=box.info.entry, limits=limits or SandboxLimits()) as worker:
        return run_episode(box, family, agent, worker, ctx)


def valid_replies(family: Family, n: int, seed: int = 0) -> list[str]:
    rng = rng_for(seed, "replies")
    return [family.format_query(family.random_query(rng)) for _ in range(n)]


def test_agent_that_knows_the_rule_scores_one(
    boxes: list[Box], eri: Family, scripted: Any, reference: Any
) -> None:
    for box in boxes:
        rule = reference(eri, box)
        agent = scripted(
            valid_replies(eri, 3), lambda q, rule=rule: eri.render_output(rule(q.input))
        )
        traj = play(box, eri, agent, TurnShot(3, 1))
        assert traj.status == "completed", traj.error
        assert traj.accuracy == 1.0
        assert len(traj.items) == eri.test_items
        assert traj.queries_used == 3 and traj.invalid_turns == 0
        assert all(t.output == rule(t.query) for t in traj.turns)
        assert traj.sandbox_layers  # recorded


def test_garbage_answers_score_zero(boxes: list[Box], eri: Family, scripted: Any) -> None:
    agent = scripted(valid_replies(eri, 2), lambda q: "#")
    traj = play(boxes[0], eri, agent, TurnShot(2, 1))
    assert traj.status == "completed"
    assert traj.accuracy == 0.0
    assert all(len(item.attempts) == 1 and not item.correct for item in traj.items)
    # right/wrong only, never the ground truth
    for _, message in agent.feedbacks:
        assert "wrong" in message
        for item in traj.items:
            assert eri.render_output(item.expected) not in message


def test_invalid_replies_cost_turns_and_are_recorded(
    boxes: list[Box], eri: Family, scripted: Any
) -> None:
    good = valid_replies(eri, 2)
    agent = scripted(["", good[0], "12345 !!!", good[1]], lambda q: "#")
    traj = play(boxes[0], eri, agent, TurnShot(4, 1))
    assert [t.valid for t in traj.turns] == [False, True, False, True]
    assert traj.invalid_turns == 2 and traj.queries_used == 2
    for t in traj.turns:
        if not t.valid:
            assert t.query is None and t.error_kind == "invalid_query" and t.shown
    banners = [arg for name, arg in agent.calls if name == "query"]
    assert banners == [turn_banner(i, 4) for i in range(1, 5)]
    assert banners[2] == "<Turn 3 of 4; 1 remaining>"
    assert [o.response for o in agent.observations] == [t.shown for t in traj.turns]


def test_second_shot_after_a_wrong_attempt(
    boxes: list[Box], eri: Family, scripted: Any, reference: Any
) -> None:
    box = boxes[1]
    rule = reference(eri, box)

    def wrong_then_right(q: Question) -> str:
        return "#" if q.attempt == 0 else eri.render_output(rule(q.input))

    agent = scripted(valid_replies(eri, 2), wrong_then_right)
    traj = play(box, eri, agent, TurnShot(2, 2))
    assert traj.accuracy == 1.0
    for item in traj.items:
        assert [a.correct for a in item.attempts] == [False, True]
    assert agent.feedbacks[0] == (False, "Your answer is wrong. Please try again.")
    assert agent.feedbacks[1][0] is True

    one_shot = play(box, eri, scripted(valid_replies(eri, 2), wrong_then_right), TurnShot(2, 1))
    assert one_shot.accuracy == 0.0
    assert all(len(item.attempts) == 1 for item in one_shot.items)


def test_deferred_mode_reveals_nothing_before_all_queries(
    boxes: list[Box], eri: Family, scripted: Any
) -> None:
    agent = scripted(valid_replies(eri, 5), lambda q: "#")
    traj = play(boxes[0], eri, agent, TurnShot(5, 1), feedback="deferred")
    names = [name for name, _ in agent.calls if name in ("query", "observe")]
    assert names == ["query"] * 5 + ["observe"] * 5
    assert traj.feedback == "deferred" and traj.queries_used == 5

    instant = scripted(valid_replies(eri, 5), lambda q: "#")
    play(boxes[0], eri, instant, TurnShot(5, 1))
    names = [name for name, _ in instant.calls if name in ("query", "observe")]
    assert names == ["query", "observe"] * 5


def test_held_out_items_exclude_queried_inputs(
    boxes: list[Box], eri: Family, scripted: Any
) -> None:
    box = boxes[2]
    default = play(box, eri, scripted(valid_replies(eri, 3), lambda q: "#"), TurnShot(3, 1))
    same = play(box, eri, scripted(valid_replies(eri, 3, seed=9), lambda q: "#"), TurnShot(3, 1))
    assert [i.input for i in default.items] == [i.input for i in same.items]  # same for all agents
    # an agent that queries the items it would be tested on gets other items
    peeked = [eri.format_query(i.input) for i in default.items[:3]]
    traj = play(box, eri, scripted(peeked, lambda q: "#"), TurnShot(3, 1))
    queried = traj.queried_inputs()
    assert queried == [i.input for i in default.items[:3]]
    assert not set(map(str, queried)) & {str(i.input) for i in traj.items}
    assert len(traj.items) == eri.test_items


@pytest.fixture(scope="module")
def broken(tmp_path_factory: pytest.TempPathFactory, suite_builder: Any) -> list[Box]:
    raising = "def blackbox(x):\n    raise ValueError('no such plaintext')\n"
    looping = "def blackbox(x):\n    while True:\n        pass\n"
    suite_dir = suite_builder(
        tmp_path_factory.mktemp("broken"),
        n=2,
        seed=5,
        name="broken",
        code_override={0: raising, 1: looping},
    )
    return load_suite_boxes(suite_dir)[1]


def test_raising_box_gives_error_turns_not_a_crash(
    broken: list[Box], eri: Family, scripted: Any
) -> None:
    traj = play(broken[0], eri, scripted(valid_replies(eri, 2), lambda q: "#"), TurnShot(2, 1))
    assert [t.error_kind for t in traj.turns] == ["exception", "exception"]
    assert all(t.valid and t.output is None and "black box error" in t.shown for t in traj.turns)
    assert traj.queries_used == 0
    assert traj.status == "failed" and traj.accuracy is None
    assert traj.error is not None and "held-out" in traj.error


def test_looping_box_times_out_per_turn(broken: list[Box], eri: Family, scripted: Any) -> None:
    traj = play(
        broken[1],
        eri,
        scripted(valid_replies(eri, 1), lambda q: "#"),
        TurnShot(1, 1),
        limits=FAST,
    )
    assert [t.error_kind for t in traj.turns] == ["timeout"]
    assert traj.status == "failed"


def test_trajectory_round_trip(
    boxes: list[Box], eri: Family, tmp_path: Path, scripted: Any
) -> None:
    from evaluator.kinds.turns.trajectory import load_trajectory, save_trajectory
    from evaluator.records import CorruptTrajectoryError

    traj = play(
        boxes[0], eri, scripted(["", *valid_replies(eri, 1)], lambda q: "#"), TurnShot(2, 1)
    )
    path = tmp_path / "t.json"
    save_trajectory(traj, path)
    assert load_trajectory(path) == traj
    path.write_text(path.read_text().replace('"accuracy"', '"acuracy"'))
    with pytest.raises(CorruptTrajectoryError, match=str(path)):
        load_trajectory(path)
    path.write_text("{not json")
    with pytest.raises(CorruptTrajectoryError, match="not valid JSON"):
        load_trajectory(path)


def test_baseline_survives_a_box_no_rule_explains(
    tmp_path: Path, eri: Family, suite_builder: Any
) -> None:
    from evaluator.kinds.turns.agents import AgentContext, make_agent
    from evaluator.kinds.turns.metrics import check_information_bounds

    constant = "def blackbox(x):\n    return ''.join('Q' if c != ' ' else ' ' for c in x)\n"
    suite_dir = suite_builder(tmp_path, n=1, seed=4, name="liar", code_override={0: constant})
    box = load_suite_boxes(suite_dir)[1][0]
    agent = make_agent("adaptive", AgentContext(eri, "easy", rng_for(0, "liar")))
    ctx = EpisodeContext(
        suite="t", agent_name="adaptive", spec=TurnShot(3, 1), feedback="instant", seed=0
    )
    with SandboxWorker(box.code, entry=box.info.entry, limits=SandboxLimits()) as worker:
        traj = run_episode(box, eri, agent, worker, ctx)
    assert traj.status == "completed" and traj.accuracy is not None
    assert any("inconsistent with every hypothesis" in note for note in traj.agent_notes)
    problems = check_information_bounds(traj, eri)
    assert problems and "impossible" in problems[0]
