"""``TurnsKind.analyse``: a turn@shot record as the kind-independent EpisodeAnalysis.

Three easy ERI boxes in real sandbox workers, the three baselines at 2@1, each job also
replayed against a twin of its box (another key of the same rule kind: the same box id,
so the same agent random stream). Checked exactly: the analysis restates the record
(score, steps, keys, answers), its information is the run summary's measure and within
log2|H|, the baselines' information is ordered random <= fixed <= adaptive, and the
feedback-independent baselines choose alike against the twin.
"""

from __future__ import annotations

import dataclasses
import json
import math
import statistics
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import templates
from blackboxes.families import family_for_box, get_family
from blackboxes.store import Box, load_suite_boxes
from evaluator.analysis import EpisodeAnalysis
from evaluator.kinds import get_kind
from evaluator.kinds.turns.agents import AgentContext, make_agent
from evaluator.kinds.turns.analysis import INVALID_KEY
from evaluator.kinds.turns.metrics import episode_information
from evaluator.kinds.turns.protocol import EpisodeContext, failed_trajectory, run_episode
from evaluator.kinds.turns.trajectory import Trajectory
from evaluator.spec import TurnShot
from oracle_bench.rng import rng_for, seed_for
from sandbox import SandboxWorker

AGENTS = ("random", "fixed", "adaptive")
SPEC = TurnShot(2, 1)
SEED = 0
KIND = get_kind("turns")

Runs = dict[tuple[str, str], tuple[Trajectory, Trajectory]]
"""(box id, agent) -> (the record against the box, the record against its twin)."""


def twin(box: Box) -> Box:
    """``box`` with another key of its rule kind (code and held-out seed), as the
    counterfactual run builds it; everything the agent sees is unchanged."""
    family = get_family(box.info.family)
    for attempt in range(16):
        rng = rng_for(SEED, "twin", box.info.id, attempt)
        rule = family.sample_rule(rng, box.info.level, box.facts.rule_kind)
        if dict(rule.params) != dict(box.hidden.params):
            break
    template, context = family.code_template(rule)
    hidden = family.hidden_info(rule, seed_for(SEED, "twin-test", box.info.id))
    return dataclasses.replace(box, code=templates.render(template, **context), hidden=hidden)


def play(box: Box, agent: Any, name: str, worker: Any) -> Trajectory:
    ctx = EpisodeContext(suite="t", agent_name=name, spec=SPEC, feedback="instant", seed=SEED)
    return run_episode(box, family_for_box(box.info), agent, worker, ctx)


def baseline(box: Box, name: str) -> Any:
    # As the runner seeds it: run seed, agent, box id, repetition.
    rng = rng_for(SEED, "agent", name, box.info.id, 0)
    return make_agent(name, AgentContext(family_for_box(box.info), box.info.level, rng))


@pytest.fixture(scope="module")
def boxes(
    tmp_path_factory: pytest.TempPathFactory, suite_builder: Callable[..., Path]
) -> list[Box]:
    suite = suite_builder(tmp_path_factory.mktemp("analysis-turns"), n=3, seed=SEED)
    return load_suite_boxes(suite)[1]


@pytest.fixture(scope="module")
def runs(boxes: list[Box]) -> Runs:
    out: dict[tuple[str, str], list[Trajectory]] = {}
    for box in boxes:
        for played in (box, twin(box)):
            with SandboxWorker(played.code, entry=played.info.entry) as worker:
                for name in AGENTS:
                    traj = play(played, baseline(box, name), name, worker)
                    out.setdefault((box.info.id, name), []).append(traj)
    return {key: (a, b) for key, (a, b) in out.items()}


def test_the_analysis_restates_the_record(runs: Runs) -> None:
    for traj, _ in runs.values():
        a = KIND.analyse(traj)
        assert traj.status == "completed"
        assert a.score == KIND.score(traj) == traj.accuracy
        assert (a.box_id, a.agent, a.repetition, a.kind) == (traj.box_id, traj.agent, 0, "turns")
        assert (a.setting, a.budget, a.feedback) == ("2@1 instant", 2, "instant")
        assert (a.family, a.rule_kind, a.log2_h, a.t_info) == (
            "ERI",
            traj.rule_kind,
            traj.log2_h,
            traj.t_info,
        )
        assert [s.index for s in a.steps] == [1, 2]
        assert [s.action for s in a.steps] == [t.text for t in traj.turns]
        assert [s.result for s in a.steps] == [t.shown for t in traj.turns]
        assert a.query_keys == [json.dumps(t.query, separators=(",", ":")) for t in traj.turns]
        assert [(v.label, v.correct, v.attempts) for v in a.answers] == [
            (f"item {i.index}", i.correct, 1) for i in traj.items
        ]
        assert a.intro == traj.intro and a.conversation is None
        assert a.metrics["queries_used"] == 2 and a.metrics["invalid_turns"] == 0


def test_information_is_the_summary_measure_and_within_log2_h(runs: Runs) -> None:
    for traj, _ in runs.values():
        a = KIND.analyse(traj)
        info = episode_information(traj, get_family("ERI"))
        assert a.info_exact and info.exact and traj.log2_h is not None
        bits = [s.bits for s in a.steps]
        assert all(b is not None for b in bits)
        assert a.info_total == sum(b for b in bits if b is not None) == info.realised_total
        cumulative = 0.0
        for s in a.steps:
            assert s.bits is not None and s.expected_bits is not None
            assert s.log2_consistent is not None
            cumulative += s.bits
            assert cumulative <= traj.log2_h + 1e-6
            # One uniform kind: what is left is what was not learned.
            assert math.isclose(s.log2_consistent, traj.log2_h - cumulative, abs_tol=1e-9)
        identified = info.identified_at
        assert a.metrics["identified_at"] == (None if identified is None else float(identified))


def test_the_baselines_are_ordered_on_information(runs: Runs, boxes: list[Box]) -> None:
    means = {
        name: statistics.mean(
            KIND.analyse(runs[b.info.id, name][0]).info_total or 0.0 for b in boxes
        )
        for name in AGENTS
    }
    assert means["random"] <= means["fixed"] <= means["adaptive"]
    assert means["random"] < means["adaptive"]


def test_feedback_independent_baselines_choose_alike_against_a_twin(
    runs: Runs, boxes: list[Box]
) -> None:
    for box in boxes:
        for name in ("random", "fixed"):
            original, other = runs[box.info.id, name]
            assert original.history() != other.history()  # the twin answers otherwise
            assert KIND.analyse(original).query_keys == KIND.analyse(other).query_keys
        # One answer pins every easy ERI rule down (T_info = 1): adaptive's first query
        # is its prior's best, and with nothing left to learn its second is a tie broken
        # by its own random stream, so the twin sees the same choices.
        first, second = (KIND.analyse(t) for t in runs[box.info.id, "adaptive"])
        assert first.metrics["identified_at"] == second.metrics["identified_at"] == 1.0
        assert first.query_keys == second.query_keys


def test_invalid_replies_and_failed_episodes(
    boxes: list[Box], scripted: Callable[..., Any]
) -> None:
    box = boxes[0]
    agent = scripted(["123", "hello"], lambda q: "X")
    with SandboxWorker(box.code, entry=box.info.entry) as worker:
        traj = play(box, agent, "scripted", worker)
    a = KIND.analyse(traj)
    assert a.query_keys == [INVALID_KEY, json.dumps(traj.turns[1].query)]
    assert [(s.valid, s.counted, s.bits is None) for s in a.steps] == [
        (False, True, True),
        (True, True, False),
    ]
    assert a.info_total == a.steps[1].bits
    assert a.model_dump_json() == KIND.analyse(traj).model_dump_json()

    ctx = EpisodeContext(suite="t", agent_name="fixed", spec=SPEC, feedback="deferred", seed=SEED)
    failed = failed_trajectory(box, family_for_box(box.info), ctx, "no start", "box")
    f = KIND.analyse(failed)
    assert (f.status, f.failure, f.error, f.score) == ("failed", "box", "no start", None)
    assert f.steps == [] and f.answers == [] and f.info_total == 0.0
    assert f.setting == "2@1 deferred"
    assert isinstance(f, EpisodeAnalysis)
