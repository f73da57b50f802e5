"""The DFA kind's analyse() and figures(): exact steps of a hand episode, every figure."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from blackboxes.automata.dfa import DFA
from blackboxes.automata.metrics import similarity
from blackboxes.automata.sampling import sample_minimal_dfa
from blackboxes.box import (
    BoxFacts,
    BoxInfo,
    DfaBaselineCost,
    DfaBoxInfo,
    DfaFacts,
    HiddenInfo,
    Provenance,
)
from blackboxes.store import Box
from evaluator.analysis import AnswerView, EpisodeAnalysis, StepView
from evaluator.kinds import get_kind
from evaluator.kinds.dfa.analysis import analyse_dfa
from evaluator.kinds.dfa.figures import FIGURE_NAMES, dfa_figures
from evaluator.kinds.dfa.llm import LlmDfaAgent
from evaluator.kinds.dfa.protocol import (
    DEFAULT_MAX_INVALID_STREAK,
    DfaAgentContext,
    DfaEnvironment,
    box_target,
    dfa_intro,
    episode_budget,
    failed_dfa_trajectory,
    in_process_membership,
    make_dfa_agent,
    run_dfa_episode,
)
from evaluator.kinds.dfa.trajectory import DfaTrajectory
from evaluator.llm_agents import LlmAgentSettings
from oracle_bench import rng_for
from providers import RetryPolicy

HAS_B = DFA.build("ab", [[0, 1], [1, 1]], [1])
"""Words over {a, b} with at least one b."""
EMPTY = DFA.universal("ab", accept=False)
AGENTS = ("fixed", "kv", "lstar", "random", "ttt")


def make_box(
    target: DFA, box_id: str = "dfa-test-000", costs: dict[str, DfaBaselineCost] | None = None
) -> Box:
    """An in-memory DFA box; MQs are answered in-process, never by its code. Without
    ``costs``, L* and TTT cost 5 (so does KV)."""
    if costs is None:
        costs = {
            "lstar": DfaBaselineCost(mq=4, eq=1),
            "kv": DfaBaselineCost(mq=3, eq=2),
            "ttt": DfaBaselineCost(mq=3, eq=2),
        }
    reference_cost = min(costs["lstar"].total, costs["ttt"].total)
    info = BoxInfo(
        id=box_id,
        family="DFA",
        level="easy",
        task_intro="(intro)",
        input_schema="a word",
        output_schema="1 or 0",
        dfa=DfaBoxInfo(alphabet=list(target.alphabet), reference_cost=reference_cost),
    )
    facts = BoxFacts(
        rule_kind=f"states-{target.n}",
        log2_h=None,
        log2_y=1.0,
        t_info=None,
        dfa=DfaFacts(states=target.n, counterexamples="minimal", baselines=costs),
    )
    hidden = HiddenInfo(
        rule_kind=facts.rule_kind,
        params={**target.to_table(), "counterexamples": "minimal"},
        description="test target",
        test_seed=0,
    )
    provenance = Provenance(backend="test", tool_version="0", accepted=True, attempts=[])
    return Box(info, facts, "", hidden, provenance, digest="d" * 64, path=Path("."))


class HandAgent:
    def play(self, env: DfaEnvironment) -> None:
        env.membership("")
        env.membership("")  # a repeated word: non-informative
        env.call("no call here")  # invalid, free
        env.equivalence(EMPTY)  # counterexample "b"
        env.membership("b")  # implied by the witness
        env.equivalence(HAS_B)


def hand_episode() -> DfaTrajectory:
    box = make_box(HAS_B)
    return run_dfa_episode(
        box, "hand", HandAgent(), in_process_membership(HAS_B), suite="t", seed=3
    )


def test_analyse_a_hand_episode_exactly() -> None:
    traj = hand_episode()
    a = analyse_dfa(traj)
    empty_sim = float(similarity(EMPTY, HAS_B, max_len=200))
    invalid = traj.calls[2].shown
    assert a.steps == [
        StepView(index=1, action="MQ ε", result="0"),
        StepView(index=2, action="MQ ε", result="0", note="non-informative: mq_duplicate"),
        StepView(
            index=3, action="invalid call: no call here", result=invalid, valid=False, counted=False
        ),
        StepView(
            index=4, action="EQ (1 states)", result='counterexample "b"', similarity=empty_sim
        ),
        StepView(index=5, action="MQ b", result="1", note="non-informative: mq_implied_by_witness"),
        StepView(index=6, action="EQ (2 states)", result="accepted", similarity=1.0),
    ]
    assert a.query_keys == ["MQ:", "MQ:", "EQ", "MQ:b", "EQ"]
    assert a.answers == [
        AnswerView(
            label="EQ 1",
            given="DFA with 1 states",
            expected="DFA with 2 states",
            correct=False,
            score=empty_sim,
        ),
        AnswerView(
            label="EQ 2",
            given="DFA with 2 states",
            expected="DFA with 2 states",
            correct=True,
            score=1.0,
        ),
    ]
    assert (a.box_id, a.family, a.level, a.rule_kind, a.bucket) == (
        "dfa-test-000",
        "DFA",
        "easy",
        "states-2",
        "2-3",
    )
    assert (a.agent, a.kind, a.setting, a.budget, a.status, a.score) == (
        "hand",
        "dfa",
        "x2",
        10,
        "completed",
        1.0,
    )
    assert (a.info_total, a.info_exact, a.intro, a.conversation) == (1.0, True, traj.intro, None)
    m = a.metrics
    assert (m["success"], m["cost"], m["calls"], m["mq"], m["eq"], m["invalid"]) == (
        1.0,
        5.0,
        5.0,
        3.0,
        2.0,
        1.0,
    )
    assert (m["non_informative"], m["non_informative_rate"]) == (1.0, 1 / 5)
    assert m["non_informative_mq_implied_by_witness"] == 1.0
    assert (m["delta_vs_ttt"], m["delta_vs_lstar"]) == (0.0, 0.0)
    assert (m["best_similarity"], m["passive_similarity"], m["states"]) == (1.0, 1.0, 2.0)
    assert (m["planning_failure"], m["reasoning_failure"], m["llm_calls"]) == (0.0, 0.0, None)
    # The kind delegates; the analysis is plain JSON.
    kind = get_kind("dfa")
    assert kind.analyse(traj) == a and kind.score(traj) == a.score
    assert EpisodeAnalysis.model_validate_json(a.model_dump_json()) == a


def test_unscored_and_failed_episodes() -> None:
    box = make_box(HAS_B)
    failed = failed_dfa_trajectory(box, "ttt", "worker died", "infrastructure", suite="t")
    a = analyse_dfa(failed)
    assert (a.status, a.failure, a.score, a.info_total, a.steps, a.query_keys) == (
        "failed",
        "infrastructure",
        None,
        None,
        [],
        [],
    )

    class Idle:
        def play(self, env: DfaEnvironment) -> None:
            env.membership("a")

    idle = run_dfa_episode(box, "idle", Idle(), in_process_membership(HAS_B), suite="t")
    b = analyse_dfa(idle)
    # RPNI from {a: 0} rejects everything: it agrees with HAS_B on a^* only.
    assert (b.score, b.info_total) == (0.0, float(similarity(EMPTY, HAS_B, max_len=200)))


# -- figures -----------------------------------------------------------------------------


def _context(box: Box, factor: float, agent: str) -> DfaAgentContext:
    target, info = box_target(box)
    budget = episode_budget(info.reference_cost, factor)
    return DfaAgentContext(
        alphabet=target.alphabet,
        budget=budget,
        intro=dfa_intro(target.alphabet, budget, DEFAULT_MAX_INVALID_STREAK),
        rng=rng_for(0, "agent", agent, box.info.id, 0),
    )


def _play(box: Box, agent: str, player: Any, factor: float = 2.0) -> DfaTrajectory:
    target = box_target(box)[0]
    return run_dfa_episode(
        box, agent, player, in_process_membership(target), suite="t", budget_factor=factor
    )


def _llm_script(path: Path, learner: DfaTrajectory) -> str:
    """A repeated first MQ, then the learner's calls: a scripted LLM that succeeds."""
    lines = []
    for call in [learner.calls[0], *learner.calls]:
        if call.tool == "mq":
            tool = {"name": "membership_query", "arguments": {"word": call.word}}
        else:
            hypothesis = call.hypothesis_dfa()
            assert hypothesis is not None
            tool = {"name": "equivalence_query", "arguments": {"dfa": hypothesis.to_json()}}
        lines.append(json.dumps({"tool_calls": [tool]}))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return f"scripted/{path}"


@pytest.fixture(scope="module")
def run(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[list[EpisodeAnalysis], list[DfaTrajectory]]:
    """Three tiny boxes: the five baselines, a scripted LLM agent, and lstar and random at
    a second budget factor."""
    folder = tmp_path_factory.mktemp("dfa-figures")
    boxes = [
        learned_box(sample_minimal_dfa(rng_for(2, "fig", n), n), f"dfa-{n}") for n in (2, 3, 4)
    ]
    records = []
    for box in boxes:
        for agent in AGENTS:
            records.append(_play(box, agent, make_dfa_agent(agent, _context(box, 2.0, agent))))
        lstar = records[-3]
        name = _llm_script(folder / f"{box.info.id}.jsonl", lstar)
        llm = LlmDfaAgent(
            name,
            _context(box, 2.0, name),
            LlmAgentSettings(retry=RetryPolicy(max_attempts=2, initial=0.01, max_wait=0.02)),
        )
        try:
            records.append(_play(box, "scripted/llm", llm))
        finally:
            llm.close()
        for agent in ("lstar", "random"):
            ctx = _context(box, 1.5, agent)
            records.append(_play(box, agent, make_dfa_agent(agent, ctx), factor=1.5))
    return [analyse_dfa(r) for r in records], records


def learned_box(target: DFA, box_id: str) -> Box:
    """A box of ``target`` with the learners' real costs (the budget's basis)."""
    from blackboxes.automata.learners import learn
    from blackboxes.automata.oracle import TargetOracle

    costs = {}
    for name in ("lstar", "kv", "ttt"):
        result = learn(name, TargetOracle(target, "minimal"))
        costs[name] = DfaBaselineCost(mq=result.mq, eq=result.eq)
    return make_box(target, box_id, costs)


def test_every_figure_has_data(run: tuple[list[EpisodeAnalysis], list[DfaTrajectory]]) -> None:
    analyses, records = run
    llm = [r for r in records if r.agent == "scripted/llm"]
    assert all(r.success and r.llm_calls for r in llm)
    figures = get_kind("dfa").figures(analyses, records)
    assert [f.name for f in figures] == list(FIGURE_NAMES)
    assert figures == dfa_figures(analyses, records)  # deterministic
    everyone = sorted([*AGENTS, "scripted/llm"])
    winners = sorted({r.agent for r in records if r.success})
    assert len(winners) >= 4
    by_name = {f.name: f for f in figures}
    for figure in figures:
        assert figure.section == "dfa" and figure.caption
        for s in figure.series:
            assert s.x and len(s.x) == len(s.y)
            assert s.low is None or len(s.low) == len(s.y)
        if figure.name == "dfa-usd-by-budget-factor":
            # Only LLM episodes have a price (the scripted model's is 0).
            assert [(s.label, s.y) for s in figure.series] == [("scripted/llm", [0.0])]
        elif figure.name == "dfa-context-by-step":
            assert [s.label for s in figure.series] == ["scripted/llm"]
            (series,) = figure.series
            assert len(series.x) == max(len(r.llm_calls) for r in llm)
            assert all(y is not None and y > 0 for y in series.y)
            # The context grows with the conversation.
            assert series.y[-1] > series.y[0]  # type: ignore[operator]
        elif figure.name == "dfa-failure-kinds":
            assert [s.label for s in figure.series] == [
                "success",
                "reasoning failure",
                "planning failure",
            ]
            assert all(s.x == everyone for s in figure.series)
        elif figure.name == "dfa-delta-vs-ttt":  # successful episodes only
            assert [s.label for s in figure.series] == winners
        else:
            assert [s.label for s in figure.series] == everyone, figure.name
    bucket = by_name["dfa-success-by-bucket"]
    assert all(s.x == ["2-3", "4-5"] for s in bucket.series)
    lstar = next(s for s in bucket.series if s.label == "lstar")
    assert lstar.y == [1.0, 1.0] and lstar.low == [1.0, 1.0]
    factors = {s.label: s.x for s in by_name["dfa-success-by-budget-factor"].series}
    assert factors["lstar"] == factors["random"] == [1.5, 2.0] and factors["ttt"] == [2.0]
    states = {s.label: s.x for s in by_name["dfa-similarity-by-states"].series}
    assert states["random"] == [2.0, 3.0, 4.0]
    informative = {s.label: s for s in by_name["dfa-non-informative-by-step"].series}
    assert informative["scripted/llm"].y[1] == 1.0  # its repeated first word
    assert set(informative["ttt"].y) == {0.0}
    ttt = next(s for s in by_name["dfa-delta-vs-ttt"].series if s.label == "ttt")
    assert set(ttt.y) == {0.0}


def test_figures_without_llm_agents(
    run: tuple[list[EpisodeAnalysis], list[DfaTrajectory]],
) -> None:
    analyses, records = run
    kept = [(a, r) for a, r in zip(analyses, records, strict=True) if not r.llm_calls]
    figures = dfa_figures([a for a, _ in kept], [r for _, r in kept])
    context = figures[FIGURE_NAMES.index("dfa-context-by-step")]
    assert context.series == [] and context.caption is not None
    assert "No agent" in context.caption
    usd = figures[FIGURE_NAMES.index("dfa-usd-by-budget-factor")]
    assert usd.series == [] and usd.caption is not None and "No priced" in usd.caption
    assert dfa_figures([], [])[0].series == []
