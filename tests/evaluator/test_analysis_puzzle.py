"""``PuzzleEpisodeKind.analyse``: a puzzle record (IPI) as the kind-independent
EpisodeAnalysis.

Three easy IPI boxes (two exact puzzles and a lying balance) in real sandbox workers,
the three baselines at 3@1, each job also replayed against a twin of its box: the same
box with another held-out seed, so that every instance hides another secret (a puzzle's
key is its secrets; its code is the public rules). Checked exactly: the analysis
restates the record, its bits are those of ``puzzle_information`` per instance and
within log2|H| per instance, the baselines' information is ordered, and the
feedback-independent baselines probe alike against the twin until an answer becomes
certain (every baseline stops probing then, so where it stops depends on the feedback).
"""

from __future__ import annotations

import dataclasses
import math
import statistics
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from blackboxes.families import family_for_box, get_family
from blackboxes.store import Box, load_suite_boxes
from evaluator.analysis import EpisodeAnalysis
from evaluator.kinds import get_kind
from evaluator.kinds.puzzle.metrics import puzzle_information
from evaluator.kinds.puzzle.protocol import (
    PuzzleAgentContext,
    PuzzleEpisodeContext,
    failed_puzzle_trajectory,
    make_puzzle_agent,
    run_puzzle_episode,
)
from evaluator.kinds.puzzle.trajectory import PuzzleTrajectory
from evaluator.spec import TurnShot
from oracle_bench.rng import rng_for, seed_for
from sandbox import SandboxWorker

AGENTS = ("random", "fixed", "adaptive")
KINDS = ["number_higher_lower", "mastermind", "coin_lying"]
SPEC = TurnShot(3, 1)
SEED = 0
KIND = get_kind("puzzle")

Runs = dict[tuple[str, str], tuple[PuzzleTrajectory, PuzzleTrajectory]]
"""(box id, agent) -> (the record against the box, the record against its twin)."""


def twin(box: Box) -> Box:
    """``box`` with other secrets: a fresh held-out seed (the same rules and code)."""
    family = get_family(box.info.family)
    rule = family.rule_from_params(box.facts.rule_kind, box.info.level, box.hidden.params)
    hidden = family.hidden_info(rule, seed_for(SEED, "twin-test", box.info.id))
    return dataclasses.replace(box, hidden=hidden)


def ctx(name: str) -> PuzzleEpisodeContext:
    return PuzzleEpisodeContext(suite="t", agent_name=name, spec=SPEC, seed=SEED)


def baseline(box: Box, name: str) -> Any:
    family: Any = family_for_box(box.info)
    # As the runner seeds it: run seed, agent, box id, repetition.
    rng = rng_for(SEED, "agent", name, box.info.id, 0)
    return make_puzzle_agent(
        name, PuzzleAgentContext(family.puzzle, family.params, box.info.level, rng)
    )


@pytest.fixture(scope="module")
def boxes(
    tmp_path_factory: pytest.TempPathFactory, suite_builder: Callable[..., Path]
) -> list[Box]:
    root = tmp_path_factory.mktemp("analysis-puzzle")
    suite = suite_builder(root, n=len(KINDS), seed=SEED, family_name="IPI", kinds=KINDS)
    return load_suite_boxes(suite)[1]


@pytest.fixture(scope="module")
def runs(boxes: list[Box]) -> Runs:
    out: dict[tuple[str, str], list[PuzzleTrajectory]] = {}
    for box in boxes:
        family: Any = family_for_box(box.info)
        with SandboxWorker(box.code, entry=box.info.entry) as worker:
            for played in (box, twin(box)):
                for name in AGENTS:
                    agent = baseline(box, name)
                    traj = run_puzzle_episode(played, family, agent, worker, ctx(name))
                    out.setdefault((box.info.id, name), []).append(traj)
    return {key: (a, b) for key, (a, b) in out.items()}


def by_instance(a: EpisodeAnalysis) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for key in a.query_keys:
        instance, _, probe = key.partition(":")
        out.setdefault(instance, []).append(probe)
    return out


def test_the_analysis_restates_the_record(runs: Runs) -> None:
    k = get_family("IPI").test_items
    for traj, _ in runs.values():
        a = KIND.analyse(traj)
        probes = [(inst, p) for inst in traj.instances for p in inst.probes]
        assert traj.status == "completed" and len(traj.instances) == k
        assert a.score == KIND.score(traj) == traj.score
        assert (a.box_id, a.agent, a.kind, a.rule_kind) == (
            traj.box_id,
            traj.agent,
            "puzzle",
            traj.rule_kind,
        )
        assert (a.setting, a.budget, a.feedback) == ("3@1 instant", 3 * k, "instant")
        assert [s.index for s in a.steps] == list(range(1, len(probes) + 1))
        assert [(s.action, s.result) for s in a.steps] == [(p.text, p.feedback) for _, p in probes]
        assert [s.note for s in a.steps] == [
            f"instance {i.index + 1}, turn {p.turn}" for i, p in probes
        ]
        assert a.query_keys == [f"i{i.index}:{p.probe}" for i, p in probes]
        assert [(v.label, v.given, v.expected, v.correct) for v in a.answers] == [
            (f"instance {i.index + 1}", i.attempts[-1].answer, i.solution, i.solved)
            for i in traj.instances
        ]
        assert a.metrics["queries_used"] == traj.queries_used
        assert a.metrics["solved"] == sum(i.solved for i in traj.instances)


def test_information_per_instance_is_the_summary_measure_and_within_log2_h(runs: Runs) -> None:
    for traj, _ in runs.values():
        a = KIND.analyse(traj)
        summary = puzzle_information(traj)
        assert summary is not None and summary.violations == 0 and a.info_exact
        noisy = traj.rule_kind == "coin_lying"
        steps = iter(a.steps)
        for inst, measured in zip(traj.instances, summary.instances, strict=True):
            cumulative = 0.0
            for _ in inst.probes:
                s = next(steps)
                assert s.bits is not None and s.expected_bits is not None
                assert s.log2_consistent is not None and s.expected_bits >= 0.0
                cumulative += s.bits
                assert cumulative <= traj.log2_h + 1e-6
                if not noisy:
                    assert s.bits >= 0.0
                    assert math.isclose(s.log2_consistent, traj.log2_h - cumulative, abs_tol=1e-9)
            assert math.isclose(cumulative, measured.bits, abs_tol=1e-12)
        assert a.info_total == sum(s.bits for s in a.steps if s.bits is not None)
        assert a.metrics["bits_per_instance"] == a.info_total / len(traj.instances)


def test_the_baselines_are_ordered_on_information(runs: Runs, boxes: list[Box]) -> None:
    means = {
        name: statistics.mean(
            KIND.analyse(runs[b.info.id, name][0]).info_total or 0.0 for b in boxes
        )
        for name in AGENTS
    }
    assert means["random"] <= means["fixed"] <= means["adaptive"]
    assert means["random"] < means["adaptive"]


def test_feedback_independent_baselines_probe_alike_against_a_twin(
    runs: Runs, boxes: list[Box]
) -> None:
    differ = 0
    for box in boxes:
        for name in ("random", "fixed"):
            first, second = (by_instance(KIND.analyse(t)) for t in runs[box.info.id, name])
            assert first.keys() == second.keys()
            for instance in first:
                mine, theirs = first[instance], second[instance]
                n = min(len(mine), len(theirs))
                # Alike until one run is certain of its answer and stops probing.
                assert mine[:n] == theirs[:n]
                if len(mine) != len(theirs) and name == "random":
                    # Its stream then runs on shifted: the later instances differ.
                    break
        adaptive = [KIND.analyse(t).query_keys for t in runs[box.info.id, "adaptive"]]
        differ += adaptive[0] != adaptive[1]
    assert differ == len(boxes)


def test_the_analysis_is_deterministic(runs: Runs) -> None:
    traj = next(iter(runs.values()))[0]
    assert KIND.analyse(traj).model_dump_json() == KIND.analyse(traj).model_dump_json()


def test_a_failed_episode_keeps_its_identity(boxes: list[Box]) -> None:
    box = boxes[0]
    family: Any = family_for_box(box.info)
    failed = failed_puzzle_trajectory(box, family, ctx("fixed"), "no start", "infrastructure")
    a = KIND.analyse(failed)
    assert (a.status, a.failure, a.error, a.score) == ("failed", "infrastructure", "no start", None)
    assert a.steps == [] and a.answers == [] and a.query_keys == []
    assert a.budget == 3 * family.test_items
