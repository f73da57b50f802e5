"""``GameEpisodeKind.analyse`` and ``game_information``: a game record (GSI) as the
kind-independent EpisodeAnalysis, with the information its exploration rounds gathered
over the box's own strategy kind.

Four easy GSI boxes (three deterministic strategies and a mixed one) in real sandbox
workers, the three baselines at 1@1, each job also replayed against a twin of its box
(another opponent of the same kind: code and held-out seed, the same box id and so the
same agent random stream). Checked exactly: the analysis restates the record, a
deterministic kind's bits are the drops of its consistent count and sum to at most
log2|H|, a mixed kind's are marked inexact, the baselines' information is ordered, and
only the adaptive baseline's moves answer the opponent.
"""

from __future__ import annotations

import dataclasses
import math
import statistics
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import templates
from blackboxes.families import family_for_box, get_family
from blackboxes.games import get_game
from blackboxes.store import Box, load_suite_boxes
from evaluator.analysis import EpisodeAnalysis
from evaluator.kinds import get_kind
from evaluator.kinds.game.analysis import game_information
from evaluator.kinds.game.protocol import (
    GameAgentContext,
    GameEpisodeContext,
    failed_game_trajectory,
    make_game_agent,
    run_game_episode,
)
from evaluator.kinds.game.trajectory import GameTrajectory
from evaluator.spec import TurnShot
from oracle_bench.rng import rng_for, seed_for
from sandbox import SandboxWorker

AGENTS = ("random", "fixed", "adaptive")
KINDS = ["rps/cycle", "rps/beat_last", "pd/tit_for_tat", "rps/mixed_subset"]
MIXED = "rps/mixed_subset"
SPEC = TurnShot(1, 1)
SEED = 0
KIND = get_kind("game")

Runs = dict[tuple[str, str], tuple[GameTrajectory, GameTrajectory]]
"""(box id, agent) -> (the record against the box, the record against its twin)."""
Analysed = dict[tuple[str, str], tuple[EpisodeAnalysis, EpisodeAnalysis]]


def twin(box: Box) -> Box:
    """``box`` with another opponent of its kind (code and held-out seed), as the
    counterfactual run builds it; everything the agent sees is unchanged."""
    family = get_family(box.info.family)
    for attempt in range(16):
        rng = rng_for(SEED, "twin", box.info.id, attempt)
        rule = family.sample_rule(rng, box.info.level, box.facts.rule_kind)
        if rule.params["params"] != box.hidden.params["params"]:
            break
    template, context = family.code_template(rule)
    hidden = family.hidden_info(rule, seed_for(SEED, "twin-test", box.info.id))
    return dataclasses.replace(box, code=templates.render(template, **context), hidden=hidden)


def play(box: Box, name: str, worker: Any) -> GameTrajectory:
    family: Any = family_for_box(box.info)
    # As the runner seeds it: run seed, agent, box id, repetition.
    rng = rng_for(SEED, "agent", name, box.info.id, 0)
    agent = make_game_agent(name, GameAgentContext(family, box.info.level, rng))
    ctx = GameEpisodeContext(suite="t", agent_name=name, spec=SPEC, seed=SEED)
    return run_game_episode(box, family, agent, worker, ctx)


@pytest.fixture(scope="module")
def boxes(
    tmp_path_factory: pytest.TempPathFactory, suite_builder: Callable[..., Path]
) -> list[Box]:
    root = tmp_path_factory.mktemp("analysis-game")
    suite = suite_builder(root, n=len(KINDS), seed=SEED, family_name="GSI", kinds=KINDS)
    return load_suite_boxes(suite)[1]


@pytest.fixture(scope="module")
def runs(boxes: list[Box]) -> Runs:
    out: dict[tuple[str, str], list[GameTrajectory]] = {}
    for box in boxes:
        for played in (box, twin(box)):
            with SandboxWorker(played.code, entry=played.info.entry) as worker:
                for name in AGENTS:
                    out.setdefault((box.info.id, name), []).append(play(played, name, worker))
    return {key: (a, b) for key, (a, b) in out.items()}


@pytest.fixture(scope="module")
def analysed(runs: Runs) -> Analysed:
    return {key: (KIND.analyse(a), KIND.analyse(b)) for key, (a, b) in runs.items()}


def test_the_analysis_restates_the_record(runs: Runs, analysed: Analysed) -> None:
    for key, (traj, _) in runs.items():
        a = analysed[key][0]
        game = get_game(traj.game)
        rounds = [
            (s, g, r)
            for s in traj.settings_played
            for g, p in enumerate(s.exploration)
            for r in p.rounds
        ]
        assert traj.status == "completed" and len(traj.settings_played) == 4
        assert a.score == KIND.score(traj) == traj.score
        assert (a.box_id, a.agent, a.kind, a.rule_kind, a.log2_h) == (
            traj.box_id,
            traj.agent,
            "game",
            traj.rule_kind,
            traj.log2_h,
        )
        lengths = [game.rounds(s.settings) for s in traj.settings_played]
        assert (a.setting, a.budget, a.feedback) == ("1@1", sum(lengths), None)
        assert len(a.steps) == len(rounds) == sum(lengths)
        assert [(s.action, s.valid) for s in a.steps] == [
            (f"play {r.action}", True) for *_, r in rounds
        ]
        assert [s.note for s in a.steps] == [
            f"setting {s.index + 1}, exploration game {g + 1}, round {r.round}"
            for s, g, r in rounds
        ]
        # One exploration game per setting: the game number is the setting's.
        assert a.query_keys == [f"g{s.index}:{r.action}" for s, _, r in rounds]
        assert [(v.label, v.score, v.attempts) for v in a.answers] == [
            (f"setting {s.index + 1}", s.normalised, 1) for s in traj.settings_played
        ]
        assert a.metrics["exploration_games"] == 4 and a.metrics["invalid_rounds"] == 0


def test_a_deterministic_kind_s_bits_are_count_drops_within_log2_h(
    runs: Runs, analysed: Analysed
) -> None:
    for key, (traj, _) in runs.items():
        a = analysed[key][0]
        info = game_information(traj)
        assert info is not None and info.consistent and traj.log2_h is not None
        assert a.info_total == sum(s.bits for s in a.steps if s.bits is not None)
        assert a.info_total == info.realised_total
        for s in a.steps:
            assert s.bits is not None and s.expected_bits is not None and s.bits >= 0.0
            assert s.log2_consistent is not None
        if traj.rule_kind == MIXED:
            # Posterior weights, not a consistent set: the opponent's own chance counts.
            assert not a.info_exact and not info.exact
            spreads = [s.log2_consistent for s in a.steps if s.log2_consistent is not None]
            assert len(spreads) == len(a.steps) and max(spreads) <= traj.log2_h + 1e-9
            continue
        assert a.info_exact and math.isclose(info.log2_h, traj.log2_h, abs_tol=1e-9)
        cumulative = 0.0
        for s in a.steps:
            assert s.bits is not None and s.expected_bits is not None
            assert s.log2_consistent is not None
            cumulative += s.bits
            assert cumulative <= traj.log2_h + 1e-6
            assert math.isclose(s.log2_consistent, traj.log2_h - cumulative, abs_tol=1e-9)
            if s.expected_bits == 0.0:
                assert s.bits == 0.0  # a move every candidate agreed on tells nothing


def test_the_baselines_are_ordered_on_information(analysed: Analysed, boxes: list[Box]) -> None:
    means = {
        name: statistics.mean(analysed[b.info.id, name][0].info_total or 0.0 for b in boxes)
        for name in AGENTS
    }
    assert means["random"] <= means["fixed"] <= means["adaptive"]


def test_only_the_adaptive_baseline_answers_the_opponent(
    analysed: Analysed, boxes: list[Box]
) -> None:
    differ = 0
    for box in boxes:
        for name in ("random", "fixed"):
            original, other = analysed[box.info.id, name]
            assert original.query_keys == other.query_keys
        first, second = analysed[box.info.id, "adaptive"]
        differ += first.query_keys != second.query_keys
    assert differ >= len(boxes) - 1


def test_the_analysis_is_a_pure_function_of_the_record(runs: Runs) -> None:
    traj = runs[next(iter(runs))][0]
    again = GameTrajectory.model_validate_json(traj.model_dump_json())
    assert KIND.analyse(again).model_dump_json() == KIND.analyse(traj).model_dump_json()


def test_a_failed_episode_keeps_its_identity(boxes: list[Box]) -> None:
    box = boxes[0]
    ctx = GameEpisodeContext(suite="t", agent_name="fixed", spec=SPEC, context="keep")
    family: Any = family_for_box(box.info)
    failed = failed_game_trajectory(box, family, ctx, "no start", "box")
    a = KIND.analyse(failed)
    assert (a.status, a.failure, a.error, a.score) == ("failed", "box", "no start", None)
    assert a.steps == [] and a.answers == [] and a.query_keys == []
    assert a.setting == "1@1 keep" and a.info_total is None
