"""The feedback-blind DFA baselines ``random`` and ``fixed``: schedule, words, twins, runs."""

from __future__ import annotations

import dataclasses
import statistics
from pathlib import Path
from typing import Any

import pytest

import templates
from blackboxes.automata.dfa import DFA
from blackboxes.automata.passive import rpni
from blackboxes.box import Provenance
from blackboxes.families import get_family
from blackboxes.families.dfa import kind_for
from blackboxes.store import Box, load_suite_boxes
from evaluator.kinds import get_kind
from evaluator.kinds.dfa.agents import EQ_EVERY, RANDOM_MAX_LEN
from evaluator.kinds.dfa.analysis import analyse_dfa, dfa_information
from evaluator.kinds.dfa.metrics import DIRECT_KINDS, dfa_episode_metrics
from evaluator.kinds.dfa.protocol import (
    DEFAULT_MAX_INVALID_STREAK,
    DfaAgentContext,
    box_target,
    dfa_agent_names,
    dfa_intro,
    episode_budget,
    in_process_membership,
    make_dfa_agent,
    run_dfa_episode,
)
from evaluator.kinds.dfa.trajectory import DfaTrajectory, load_dfa_trajectory
from evaluator.runner import evaluate_suite
from oracle_bench import rng_for, seed_for

SEED = 7


def dfa_box(i: int, states: int, salt: str = "box") -> Box:
    """An in-memory box of the DFA family (its own records, code and hidden.json)."""
    family = get_family("DFA")
    rule = family.sample_rule(rng_for(SEED, salt, i), "easy", kind_for(states))
    info, facts = family.box_records(f"dfa-easy-{i:03d}", rule)
    template, context = family.code_template(rule)
    hidden = family.hidden_info(rule, seed_for(SEED, "items", i))
    provenance = Provenance(backend="test", tool_version="0", accepted=True, attempts=[])
    code = templates.render(template, **context)
    return Box(info, facts, code, hidden, provenance, digest="d" * 64, path=Path("."))


def twin_of(box: Box, i: int) -> Box:
    """Another target with the same state count behind the same box.json (same id, same
    budget): what a counterfactual replay of the job meets."""
    states = box_target(box)[1].states
    other = dfa_box(i, states, salt="twin")
    return dataclasses.replace(box, facts=other.facts, code=other.code, hidden=other.hidden)


def play(box: Box, agent: str, *, factor: float = 2.0, repetition: int = 0) -> DfaTrajectory:
    """The runner's episode of (box, agent, repetition), MQs answered in-process."""
    target, info = box_target(box)
    budget = episode_budget(info.reference_cost, factor)
    ctx = DfaAgentContext(
        alphabet=target.alphabet,
        budget=budget,
        intro=dfa_intro(target.alphabet, budget, DEFAULT_MAX_INVALID_STREAK),
        rng=rng_for(SEED, "agent", agent, box.info.id, repetition),
    )
    return run_dfa_episode(
        box,
        agent,
        make_dfa_agent(agent, ctx),
        in_process_membership(target),
        suite="t",
        budget_factor=factor,
        seed=SEED,
        repetition=repetition,
    )


def keys(traj: DfaTrajectory) -> list[str]:
    return [f"MQ:{c.word}" if c.tool == "mq" else "EQ" for c in traj.counted()]


def schedule(budget: int, used: int) -> list[str]:
    return ["EQ" if s % (EQ_EVERY + 1) == 0 or s == budget else "MQ" for s in range(1, used + 1)]


BOXES = [dfa_box(i, 2 + i % 4) for i in range(12)]


def test_registry_and_kind_defaults() -> None:
    assert dfa_agent_names() == ["fixed", "kv", "lstar", "random", "ttt"]
    kind = get_kind("dfa")
    assert kind.default_agents == ("lstar", "kv", "ttt", "random", "fixed")
    assert kind.reference_agent == "ttt"
    assert dict(kind.baseline_tiers) == {"random": 1, "fixed": 2, "lstar": 3, "kv": 3, "ttt": 3}


@pytest.mark.parametrize("agent", ["random", "fixed"])
def test_schedule_evidence_and_hypotheses(agent: str) -> None:
    for box in BOXES[:8]:
        traj = play(box, agent)
        target = traj.target_dfa()
        counted = traj.counted()
        assert traj.status == "completed" and traj.invalid_calls == 0
        assert [c.tool.upper() for c in counted if c.tool] == schedule(traj.budget, len(counted))
        assert traj.success or traj.queries_used == traj.budget
        if traj.success:
            assert counted[-1].accepted and len(counted) < traj.budget + 1
        evidence: dict[str, bool] = {}
        for call in counted:
            if call.tool == "mq":
                assert call.word is not None and call.member == target.accepts(call.word)
                evidence[call.word] = call.member
                continue
            hypothesis = call.hypothesis_dfa()
            assert hypothesis is not None
            # RPNI's DFA of all the evidence so far: consistent with it, never re-proposed.
            assert hypothesis.equivalent(rpni(evidence, target.alphabet))
            assert all(hypothesis.accepts(w) == label for w, label in evidence.items())
            if call.counterexample is not None:
                evidence[call.counterexample] = target.accepts(call.counterexample)
        metrics = dfa_episode_metrics(traj)
        assert all(metrics.non_informative[k] == 0 for k in DIRECT_KINDS)


def test_fixed_asks_shortlex_words_and_random_distinct_short_words() -> None:
    box = BOXES[5]
    fixed = [c.word for c in play(box, "fixed").counted() if c.tool == "mq"]
    shortlex = DFA.universal("ab").words_up_to(12)
    assert fixed == [next(shortlex) for _ in fixed]
    for box in BOXES:
        words = [c.word for c in play(box, "random").counted() if c.tool == "mq"]
        assert len(set(words)) == len(words)
        assert all(w is not None and len(w) <= RANDOM_MAX_LEN for w in words)


@pytest.mark.parametrize("agent", ["random", "fixed"])
def test_queries_do_not_depend_on_the_answers(agent: str) -> None:
    """The same job against a twin box asks the same words at the same steps (until an
    episode succeeds); a learner does not."""
    learner_differs = 0
    for i, box in enumerate(BOXES[:8]):
        twin = twin_of(box, i)
        assert not box_target(twin)[0].equivalent(box_target(box)[0])
        a, b = play(box, agent), play(twin, agent)
        assert a.budget == b.budget
        n = min(a.queries_used, b.queries_used)
        assert keys(a)[:n] == keys(b)[:n]
        if not a.success and not b.success:
            assert keys(a) == keys(b)
        answers = [(c.member, c.counterexample) for c in a.counted()[:n]]
        assert answers != [(c.member, c.counterexample) for c in b.counted()[:n]]
        learner_differs += keys(play(box, "lstar")) != keys(play(twin, "lstar"))
    assert learner_differs >= 6
    # Another repetition is another job: random draws other words, fixed the same ones.
    first, again = play(BOXES[0], agent), play(BOXES[0], agent, repetition=1)
    assert (keys(first) == keys(again)) == (agent == "fixed")


def test_information_orders_the_baselines() -> None:
    """random < fixed < the learners on average (the learners all succeed: 1)."""
    boxes = [dfa_box(100 + i, 3 + i % 4) for i in range(16)]
    info: dict[str, float] = {}
    for agent in ("random", "fixed", "lstar", "kv", "ttt"):
        trajs = [play(box, agent) for box in boxes]
        info[agent] = statistics.fmean(dfa_information(t) for t in trajs)
        if agent in ("lstar", "kv", "ttt"):
            assert all(t.success for t in trajs)
    assert info["random"] < info["fixed"] < info["lstar"] == info["kv"] == info["ttt"] == 1.0
    # info_total is that number: 1 after an accepted EQ, else RPNI's similarity from the
    # evidence (1 too when the last witness completed it).
    short = [play(box, "random", factor=0.5) for box in BOXES[:6]]
    assert any(dfa_information(t) < 1.0 for t in short)
    for traj in short:
        analysis = analyse_dfa(traj)
        assert analysis.info_total == dfa_information(traj) <= 1.0
        assert analysis.score == (1.0 if traj.success else 0.0)
        if traj.success:
            assert analysis.info_total == 1.0


def test_the_runner_plays_the_baselines_with_the_jobs_rng(
    tmp_path: Path, suite_builder: Any
) -> None:
    suite = suite_builder(tmp_path, n=2, seed=4, family_name="DFA", kinds=["states-2", "states-3"])
    result = evaluate_suite(suite, ["random", "fixed"], None, None, SEED, tmp_path / "run")
    assert result.failed == 0 and result.executed == 4
    boxes = {b.info.id: b for b in load_suite_boxes(suite)[1]}
    for path in result.trajectories:
        traj = load_dfa_trajectory(path)
        replay = play(boxes[traj.box_id], traj.agent)
        assert traj.calls == replay.calls and traj.sandbox_layers
