"""LLM agents: full episodes through the real SDKs (loopback server) and the scripted provider.

Every episode is scripted, so its accuracy, its DFA cost and its token totals are known
in advance and asserted exactly.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from blackboxes.automata.dfa import DFA
from blackboxes.families import Family
from blackboxes.store import Box, load_suite_boxes
from evaluator._llm_text import marker_value, rejected_text
from evaluator.kinds.dfa.llm import LlmDfaAgent
from evaluator.kinds.dfa.protocol import (
    DEFAULT_MAX_INVALID_STREAK,
    DfaAgentContext,
    box_target,
    dfa_intro,
    episode_budget,
    make_dfa_agent,
    run_dfa_episode,
)
from evaluator.kinds.dfa.trajectory import DfaTrajectory
from evaluator.kinds.turns.agents import AgentContext
from evaluator.kinds.turns.llm import DEFERRED_PLACEHOLDER, LlmAgent
from evaluator.kinds.turns.protocol import EpisodeContext, run_episode
from evaluator.kinds.turns.trajectory import Trajectory
from evaluator.llm_agents import (
    IGNORED_CALL,
    LlmAgentSettings,
    check_llm_agent,
    is_llm_agent,
    system_prompt,
)
from evaluator.spec import FeedbackMode, TurnShot
from evaluator.usage import BudgetExhausted, RunBudget
from oracle_bench import rng_for
from oracle_bench.errors import ProviderConfigError, UsageError
from providers import RetryPolicy
from providers.loopback import LoopbackServer
from sandbox import SandboxWorker

FAST_RETRY = RetryPolicy(max_attempts=3, initial=0.01, max_wait=0.05)
_KEY_VARS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL")
WRONG = "#"
"""An answer no ERI ciphertext equals (it normalises to the empty text)."""


@pytest.fixture(autouse=True)
def _no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    # A local base URL needs no key; make sure no real endpoint is ever configured.
    for var in _KEY_VARS:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.delenv("ORACLE_BENCH_PRICING", raising=False)


@pytest.fixture(scope="module")
def eri_box(tmp_path_factory: pytest.TempPathFactory, suite_builder: Any) -> Box:
    suite_dir = suite_builder(tmp_path_factory.mktemp("llm-suites"), n=1, seed=11)
    return load_suite_boxes(suite_dir)[1][0]


@pytest.fixture(scope="module")
def dfa_box(dfa_suite: Path) -> Box:
    """The smallest box of the shared DFA suite."""
    boxes = load_suite_boxes(dfa_suite)[1]
    return min(boxes, key=lambda b: box_target(b)[1].states)


# -- helpers ----------------------------------------------------------------------------


def queries(family: Family, n: int, seed: int = 0) -> list[str]:
    """``n`` distinct valid ERI queries."""
    rng = rng_for(seed, "llm-agent-test")
    seen: list[str] = []
    while len(seen) < n:
        q = family.format_query(family.random_query(rng))
        if q not in seen:
            seen.append(q)
    return seen


def expected_answers(box: Box, family: Family, reference: Any, queried: Sequence[str]) -> list[str]:
    """The held-out items' outputs, drawn as the protocol draws them."""
    rule = reference(family, box)
    exclude = [family.parse_query(q) for q in queried]
    items = family.test_inputs(rng_for(box.hidden.test_seed, "test"), family.test_items, exclude)
    return [family.render_output(rule(x)) for x in items]


def tool_reply(name: str, usage: dict[str, int] | None = None, **arguments: Any) -> dict[str, Any]:
    line: dict[str, Any] = {"tool_calls": [{"name": name, "arguments": arguments}]}
    if usage is not None:
        line["usage"] = usage
    return line


def answer_plan(expected: Sequence[str]) -> tuple[list[str], int]:
    """Answers for the items: the first 3 right at once, the next 2 right on attempt 2,
    the rest wrong twice. Returns (answers in order, correct items)."""
    answers: list[str] = []
    correct = 0
    for i, output in enumerate(expected):
        if i < 3:
            answers.append(output)
            correct += 1
        elif i < 5:
            answers += [WRONG, output]
            correct += 1
        else:
            answers += [WRONG, WRONG]
    return answers, correct


def settings(**kw: Any) -> LlmAgentSettings:
    kw.setdefault("retry", FAST_RETRY)
    return LlmAgentSettings(**kw)


def play_eri(
    box: Box,
    family: Family,
    agent_name: str,
    spec: TurnShot,
    llm: LlmAgentSettings,
    *,
    feedback: FeedbackMode = "instant",
    invalid_costs_turn: bool = True,
) -> tuple[Trajectory, LlmAgent]:
    agent = LlmAgent(agent_name, AgentContext(family, box.info.level, random.Random(0)), llm)
    ctx = EpisodeContext(
        suite="t",
        agent_name=agent_name,
        spec=spec,
        feedback=feedback,
        seed=0,
        invalid_costs_turn=invalid_costs_turn,
    )
    try:
        with SandboxWorker(box.code, entry=box.info.entry) as worker:
            return run_episode(box, family, agent, worker, ctx), agent
    finally:
        agent.close()


def dfa_context(box: Box) -> DfaAgentContext:
    target, info = box_target(box)
    budget = episode_budget(info.reference_cost, 2.0)
    return DfaAgentContext(
        alphabet=target.alphabet,
        budget=budget,
        intro=dfa_intro(target.alphabet, budget, DEFAULT_MAX_INVALID_STREAK),
        rng=random.Random(0),
    )


def play_dfa(box: Box, agent_name: str, agent: Any) -> DfaTrajectory:
    with SandboxWorker(box.code, entry=box.info.entry) as worker:
        return run_dfa_episode(box, agent_name, agent, worker.call, suite="t")


@dataclass(frozen=True)
class LearnerCall:
    tool: str
    arguments: dict[str, Any]


@pytest.fixture(scope="module")
def lstar_run(dfa_box: Box) -> tuple[DfaTrajectory, list[LearnerCall]]:
    """The lstar baseline on the box, and its calls as tool calls."""
    traj = play_dfa(dfa_box, "lstar", make_dfa_agent("lstar", dfa_context(dfa_box)))
    calls = []
    for c in traj.calls:
        if c.tool == "mq":
            calls.append(LearnerCall("membership_query", {"word": c.word}))
        else:
            hypothesis = c.hypothesis_dfa()
            assert hypothesis is not None
            calls.append(LearnerCall("equivalence_query", {"dfa": hypothesis.to_json()}))
    return traj, calls


def write_script(path: Path, lines: Sequence[dict[str, Any] | str]) -> str:
    """A scripted/ provider name for ``lines`` written as JSONL."""
    path.write_text(
        "".join(json.dumps({"text": x} if isinstance(x, str) else x) + "\n" for x in lines),
        encoding="utf-8",
    )
    return f"scripted/{path}"


def request_messages(server: LoopbackServer) -> list[list[dict[str, Any]]]:
    return [r.body["messages"] for r in server.requests if r.format == "openai"]


def assert_tool_ids_answered(messages: list[dict[str, Any]]) -> None:
    """Every tool call of an assistant message is answered by a tool message right after."""
    for i, m in enumerate(messages):
        if m["role"] == "assistant" and m.get("tool_calls"):
            ids = [c["id"] for c in m["tool_calls"]]
            following = []
            for n in messages[i + 1 :]:
                if n["role"] != "tool":
                    break
                following.append(n["tool_call_id"])
            assert following == ids
        if m["role"] == "tool":
            owners = [
                c["id"]
                for a in messages[:i]
                if a["role"] == "assistant"
                for c in a.get("tool_calls") or []
            ]
            assert m["tool_call_id"] in owners


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    with LoopbackServer() as s:
        yield s


def base_url(server: LoopbackServer, vendor: str) -> str:
    return server.openai_base_url if vendor == "openai" else server.anthropic_base_url


# -- 1. acceptance: full episodes through the real SDKs ----------------------------------


@pytest.mark.parametrize("vendor", ["openai", "anthropic"])
def test_full_20at2_episode_through_the_real_sdk(
    vendor: str, server: LoopbackServer, eri_box: Box, eri: Family, reference: Any
) -> None:
    explore = queries(eri, 20)
    answers, correct = answer_plan(expected_answers(eri_box, eri, reference, explore))
    script = [
        tool_reply("query", {"input": 100 + i, "output": 7, "reasoning": 2}, input=q)
        for i, q in enumerate(explore)
    ] + [
        tool_reply("answer", {"input": 300 + i, "output": 5, "cache_read": 11}, output=a)
        for i, a in enumerate(answers)
    ]
    server.add(*script)
    name = f"{vendor}/loopback-player"
    traj, agent = play_eri(
        eri_box, eri, name, TurnShot(20, 2), settings(base_url=base_url(server, vendor))
    )
    assert traj.status == "completed", traj.error
    assert traj.accuracy == correct / eri.test_items == 5 / 8
    assert [t.text for t in traj.turns] == explore
    assert traj.queries_used == 20 and traj.invalid_turns == 0
    assert [len(item.attempts) for item in traj.items] == [1, 1, 1, 2, 2, 2, 2, 2]
    # usage: exactly the scripted numbers, per call and in total
    n = len(script)
    assert traj.usage is not None and traj.usage.calls == n == len(traj.llm_calls)
    assert traj.usage.input_tokens == sum(100 + i for i in range(20)) + sum(
        300 + i for i in range(len(answers))
    )
    assert traj.usage.output_tokens == 7 * 20 + 5 * len(answers)
    assert traj.usage.reasoning_tokens == 2 * 20
    assert traj.usage.cache_read_tokens == 11 * len(answers)
    assert [c.phase for c in traj.llm_calls] == ["explore"] * 20 + ["answer"] * len(answers)
    assert [c.turn for c in traj.llm_calls[:20]] == list(range(1, 21))
    assert traj.llm_calls[0].tool_calls[0]["arguments"] == {"input": explore[0]}
    assert traj.agent_notes == [] and agent.notes() == []
    # the wire: one request per reply, the offered tools per phase, full history
    wire = [r for r in server.requests if r.format == vendor]
    assert len(wire) == n and server.remaining == 0
    tools = [[t.get("name") or t["function"]["name"] for t in r.body["tools"]] for r in wire]
    assert tools == [["query"]] * 20 + [["answer", "query"]] * len(answers)
    if vendor == "openai":
        last = wire[-1].body["messages"]
        assert last[0] == {"role": "system", "content": system_prompt("turnshot", "tools")}
        assert last[1]["content"].startswith(eri_box.info.task_intro.rstrip())
        assert_tool_ids_answered(last)
        assert sum(m["role"] == "assistant" for m in last) == n - 1
    else:
        assert wire[-1].body["system"] == system_prompt("turnshot", "tools")
        msgs = wire[-1].body["messages"]
        assert [m["role"] for m in msgs] == ["user"] + ["assistant", "user"] * (n - 1)
        for said, reply in zip(msgs[1::2], msgs[2::2], strict=True):
            uses = [b["id"] for b in said["content"] if b["type"] == "tool_use"]
            results = [b["tool_use_id"] for b in reply["content"] if b["type"] == "tool_result"]
            assert results == uses and reply["content"][0]["type"] == "tool_result"


@pytest.mark.parametrize("vendor", ["openai", "anthropic"])
def test_full_dfa_episode_through_the_real_sdk(
    vendor: str,
    server: LoopbackServer,
    dfa_box: Box,
    lstar_run: tuple[DfaTrajectory, list[LearnerCall]],
) -> None:
    learner, calls = lstar_run
    assert learner.success and learner.cost is not None
    server.add(
        *[
            tool_reply(c.tool, {"input": 50 + i, "output": 9}, **c.arguments)
            for i, c in enumerate(calls)
        ]
    )
    name = f"{vendor}/loopback-learner"
    agent = LlmDfaAgent(name, dfa_context(dfa_box), settings(base_url=base_url(server, vendor)))
    try:
        traj = play_dfa(dfa_box, name, agent)
    finally:
        agent.close()
    assert traj.status == "completed", traj.error
    assert traj.success is True
    assert (traj.cost, traj.queries_used) == (learner.cost, learner.queries_used)
    assert traj.invalid_calls == 0
    assert [c.shown for c in traj.calls] == [c.shown for c in learner.calls]
    assert traj.usage is not None and traj.usage.calls == len(calls)
    assert traj.usage.input_tokens == sum(50 + i for i in range(len(calls)))
    assert traj.usage.output_tokens == 9 * len(calls)
    assert {c.phase for c in traj.llm_calls} == {"play"}
    assert [c.turn for c in traj.llm_calls] == list(range(1, len(calls) + 1))
    wire = [r for r in server.requests if r.format == vendor]
    assert len(wire) == len(calls)
    if vendor == "openai":
        messages = wire[-1].body["messages"]
        assert messages[1]["content"] == dfa_context(dfa_box).intro
        assert_tool_ids_answered(messages)
        banner = messages[-1]["content"]
        budget = dfa_context(dfa_box).budget
        used = learner.queries_used - 1
        assert banner == f"<Call {used + 1}; {budget - used} of {budget} calls left>"


def test_anthropic_thinking_episode_sends_the_signed_blocks_back(
    server: LoopbackServer,
    dfa_box: Box,
    lstar_run: tuple[DfaTrajectory, list[LearnerCall]],
) -> None:
    # The loopback server, like the API, answers 400 to a thinking tool turn sent back
    # without its signed thinking block: a whole episode only succeeds if every turn has it.
    learner, calls = lstar_run
    server.add(
        *[
            {**tool_reply(c.tool, **c.arguments), "thinking": f"step {i}"}
            for i, c in enumerate(calls)
        ]
    )
    name = "anthropic/loopback-thinker"
    options = {"thinking_budget": 1024, "max_tokens": 4096}
    agent = LlmDfaAgent(
        name, dfa_context(dfa_box), settings(base_url=server.anthropic_base_url, options=options)
    )
    try:
        traj = play_dfa(dfa_box, name, agent)
    finally:
        agent.close()
    assert traj.status == "completed", traj.error
    assert (traj.success, traj.cost) == (True, learner.cost)
    last = [r for r in server.requests if r.format == "anthropic"][-1].body["messages"]
    firsts = [m["content"][0] for m in last if m["role"] == "assistant"]
    assert [b["thinking"] for b in firsts] == [f"step {i}" for i in range(len(calls) - 1)]


# -- 2. the text protocol ----------------------------------------------------------------


def test_text_protocol_eri_episode(
    tmp_path: Path, eri_box: Box, eri: Family, reference: Any
) -> None:
    explore = queries(eri, 5, seed=1)
    answers, correct = answer_plan(expected_answers(eri_box, eri, reference, explore))
    forms = [
        "Let me start simple.\nQUERY: {}",
        "query: {}",
        "I think.\n```\nQUERY: {}\n```",
        "**QUERY:** {}",
        "Two lines:\nQUERY: ignored\nQUERY: {}",
    ]
    lines: list[dict[str, Any] | str] = [f.format(q) for f, q in zip(forms, explore, strict=True)]
    lines += [f"The cipher seems to shift.\nANSWER: {a}" for a in answers]
    name = write_script(tmp_path / "text.jsonl", lines)
    traj, _ = play_eri(eri_box, eri, name, TurnShot(5, 2), settings(protocol="text"))
    assert traj.status == "completed", traj.error
    assert [t.text for t in traj.turns] == explore
    assert traj.accuracy == correct / eri.test_items
    assert traj.usage is not None and traj.usage.calls == len(lines)
    assert all(not c.tool_calls for c in traj.llm_calls)


def test_text_protocol_dfa_episode(
    tmp_path: Path, dfa_box: Box, lstar_run: tuple[DfaTrajectory, list[LearnerCall]]
) -> None:
    learner, calls = lstar_run
    lines: list[dict[str, Any] | str] = [
        f"Next call:\n```json\n{json.dumps({'tool': c.tool, **c.arguments})}\n```" for c in calls
    ]
    name = write_script(tmp_path / "dfa.jsonl", lines)
    agent = LlmDfaAgent(name, dfa_context(dfa_box), settings(protocol="text"))
    traj = play_dfa(dfa_box, name, agent)
    assert traj.success and (traj.cost, traj.queries_used) == (learner.cost, learner.queries_used)
    assert traj.usage is not None and traj.usage.calls == len(calls)


# -- 3. re-asks --------------------------------------------------------------------------


def test_reply_without_a_call_is_reasked_then_an_invalid_turn(
    tmp_path: Path, eri_box: Box, eri: Family
) -> None:
    good = queries(eri, 2, seed=2)
    lines: list[dict[str, Any] | str] = [
        "Hmm, let me think about it",  # turn 1: no call
        tool_reply("query", input=good[0]),  # re-ask answered
        "I am not sure",  # turn 2: no call, re-asked twice, still none
        "still thinking",
        "nothing yet",
        tool_reply("query", input=good[1]),  # turn 3
        *[tool_reply("answer", output=WRONG)] * eri.test_items,
    ]
    name = write_script(tmp_path / "reask.jsonl", lines)
    traj, agent = play_eri(eri_box, eri, name, TurnShot(3, 1), settings(max_reasks=2))
    assert traj.status == "completed", traj.error
    assert [(t.index, t.valid, t.counted) for t in traj.turns] == [
        (1, True, True),
        (2, False, True),
        (3, True, True),
    ]
    # an ERI family would read "NOTHING YET" as a query: the agent sends a rejected text
    assert traj.turns[1].text == "" and traj.turns[1].error_kind == "invalid_query"
    assert [t.query for t in traj.turns if t.valid] == good
    assert [c.phase for c in traj.llm_calls[:6]] == [
        "explore",
        "reask",
        "explore",
        "reask",
        "reask",
        "explore",
    ]
    assert [c.turn for c in traj.llm_calls[:6]] == [1, 1, 2, 2, 2, 3]
    assert traj.agent_notes == [
        "turn 1: no query call; asked again",
        "turn 2: no query call; asked again",
        "turn 2: no query call; asked again",
        "turn 2: no query call after 2 re-ask(s); the raw reply was sent",
    ]
    assert agent.notes() == traj.agent_notes


def test_free_invalid_turn_is_not_consumed(tmp_path: Path, eri_box: Box, eri: Family) -> None:
    good = queries(eri, 2, seed=3)
    lines: list[dict[str, Any] | str] = [
        "no call here",
        tool_reply("query", input=good[0]),
        tool_reply("query", input=good[1]),
        *[tool_reply("answer", output=WRONG)] * eri.test_items,
    ]
    name = write_script(tmp_path / "free.jsonl", lines)
    traj, _ = play_eri(
        eri_box, eri, name, TurnShot(2, 1), settings(max_reasks=0), invalid_costs_turn=False
    )
    assert traj.status == "completed", traj.error
    assert [(t.index, t.valid, t.counted) for t in traj.turns] == [
        (1, False, False),
        (1, True, True),
        (2, True, True),
    ]
    assert traj.queries_used == 2
    assert traj.agent_notes == ["turn 1: no query call after 0 re-ask(s); the raw reply was sent"]


def test_answer_after_the_reasks_is_judged_raw(
    tmp_path: Path, eri_box: Box, eri: Family, reference: Any
) -> None:
    q = queries(eri, 1, seed=4)
    expected = expected_answers(eri_box, eri, reference, q)
    lines: list[dict[str, Any] | str] = [
        tool_reply("query", input=q[0]),
        expected[0],  # the right ciphertext, but as prose: re-asked once, then judged raw
        expected[0],
        *[tool_reply("answer", output=WRONG)] * (eri.test_items - 1),
    ]
    name = write_script(tmp_path / "raw.jsonl", lines)
    traj, _ = play_eri(eri_box, eri, name, TurnShot(1, 1), settings(max_reasks=1))
    assert traj.status == "completed", traj.error
    assert [item.correct for item in traj.items] == [True] + [False] * (eri.test_items - 1)
    assert traj.agent_notes == [
        "item 1 attempt 1: no answer call; asked again",
        "item 1 attempt 1: no answer call after 1 re-ask(s); the raw reply was sent",
    ]


def test_bad_tool_arguments_are_asked_again_then_an_invalid_turn(
    server: LoopbackServer, eri_box: Box, eri: Family
) -> None:
    good = queries(eri, 2, seed=5)
    server.add(
        tool_reply("query", inpt=good[0]),  # one string argument under another key: taken
        tool_reply("query", input=["A", "B"]),  # not a string: asked again
        tool_reply("query", input=good[1]),
        tool_reply("query", a="x", b="y"),  # two keys: asked again...
        tool_reply("query", input=5),  # ... and again ...
        tool_reply("query", input=None),  # ... then the turn is invalid
        tool_reply("answer", output=7),  # asked again
        tool_reply("answer", output="ABC"),
        *[tool_reply("answer", answer="XYZ")] * (eri.test_items - 1),
    )
    traj, agent = play_eri(
        eri_box, eri, "openai/m", TurnShot(3, 1), settings(base_url=server.openai_base_url)
    )
    assert traj.status == "completed", traj.error
    assert [(t.text, t.valid, t.counted) for t in traj.turns[:2]] == [
        (good[0], True, True),
        (good[1], True, True),
    ]
    assert (traj.turns[2].valid, traj.turns[2].counted) == (False, True)
    assert [item.attempts[0].text for item in traj.items] == ["ABC"] + ["XYZ"] * (
        eri.test_items - 1
    )
    phases = [c.phase for c in traj.llm_calls]
    assert phases[:7] == ["explore", "explore", "reask", "explore", "reask", "reask", "answer"]
    assert phases[7] == "reask" and server.remaining == 0
    assert "turn 1: took the argument 'inpt' as 'input'" in agent.notes()
    # the re-ask answers the unusable call with what was wrong, and nothing else
    third = request_messages(server)[2]
    assert [m["content"] for m in third if m["role"] == "tool"][-1] == (
        'Invalid call: the tool query takes {"input": "<text>"}, got {"input": ["A", "B"]}.'
    )


# -- 4. deferred mode --------------------------------------------------------------------


def test_deferred_mode_message_shapes(server: LoopbackServer, eri_box: Box, eri: Family) -> None:
    good = queries(eri, 3, seed=6)
    server.add(
        tool_reply("query", input=good[0]),
        # two calls in one reply: the first counts, the second is answered "ignored"
        {
            "tool_calls": [
                {"name": "query", "arguments": {"input": good[1]}},
                {"name": "query", "arguments": {"input": "EXTRA"}},
            ]
        },
        tool_reply("query", input=good[2]),
        *[tool_reply("answer", output=WRONG)] * eri.test_items,
    )
    traj, agent = play_eri(
        eri_box,
        eri,
        "openai/m",
        TurnShot(3, 1),
        settings(base_url=server.openai_base_url),
        feedback="deferred",
    )
    assert traj.status == "completed", traj.error
    assert [t.query for t in traj.turns] == good
    assert agent.notes() == ["turn 2: 1 extra tool call(s) ignored"]
    requests = request_messages(server)
    assert all(r.status == 200 for r in server.requests)
    for messages in requests:
        assert_tool_ids_answered(messages)
    fourth = requests[3]  # the first answer: every query answered, then the reveal
    tools = [m["content"] for m in fourth if m["role"] == "tool"]
    assert tools == [DEFERRED_PLACEHOLDER, DEFERRED_PLACEHOLDER, IGNORED_CALL, DEFERRED_PLACEHOLDER]
    reveal = fourth[-1]["content"]
    assert reveal.startswith("The results of your 3 queries, in order:\nTurn 1: ")
    for t in traj.turns:
        assert f"Turn {t.index}: {t.text} -> {t.shown}" in reveal
    assert "Exploration is over." in reveal and reveal.endswith("What does the black box output?")
    # before the reveal, no result was shown anywhere
    for messages in requests[:3]:
        text = json.dumps(messages)
        assert all(t.shown not in text for t in traj.turns)


# -- 5. history window -------------------------------------------------------------------


def test_history_keeps_whole_exchanges(server: LoopbackServer, eri_box: Box, eri: Family) -> None:
    good = queries(eri, 4, seed=7)
    server.add(
        "no call",  # turn 1: re-asked once
        tool_reply("query", input=good[0]),
        *[tool_reply("query", input=q) for q in good[1:]],
        *[tool_reply("answer", output=WRONG)] * eri.test_items,
    )
    traj, _ = play_eri(
        eri_box,
        eri,
        "openai/m",
        TurnShot(4, 1),
        settings(base_url=server.openai_base_url, history=2),
    )
    assert traj.status == "completed", traj.error
    requests = request_messages(server)
    head = requests[0][:2]
    assert [m["role"] for m in head] == ["system", "user"]
    for i, messages in enumerate(requests):
        assert messages[:2] == head
        assert_tool_ids_answered(messages)
        assistants = sum(m["role"] == "assistant" for m in messages)
        assert assistants == min(i, 2)
        if i >= 3:  # trimmed: the window starts at an assistant message
            assert messages[2]["role"] == "assistant"
    # the last request: 2 exchanges (assistant, tool, user) after the head
    assert [m["role"] for m in requests[-1]] == [
        "system",
        "user",
        "assistant",
        "tool",
        "user",
        "assistant",
        "tool",
        "user",
    ]


# -- 6. budget ----------------------------------------------------------------------------


def test_budget_exhausted_propagates(tmp_path: Path, eri_box: Box, eri: Family) -> None:
    good = queries(eri, 3, seed=8)
    lines: list[dict[str, Any] | str] = [
        tool_reply("query", {"input": 30, "output": 5}, input=q) for q in good
    ]
    name = write_script(tmp_path / "budget.jsonl", lines)
    budget = RunBudget(max_tokens=60)
    with pytest.raises(BudgetExhausted, match="--max-tokens 60 reached"):
        play_eri(eri_box, eri, name, TurnShot(3, 1), settings(budget=budget))
    assert budget.tokens == 70  # two calls made and charged, the third never made


# -- 7. provider faults --------------------------------------------------------------------


def test_provider_fault_after_retries_fails_the_episode(
    tmp_path: Path, eri_box: Box, eri: Family
) -> None:
    q = queries(eri, 1, seed=9)
    lines: list[dict[str, Any] | str] = [tool_reply("query", input=q[0]), {"fault": "server_error"}]
    name = write_script(tmp_path / "fault.jsonl", lines)
    traj, _ = play_eri(
        eri_box, eri, name, TurnShot(2, 1), settings(retry=RetryPolicy(max_attempts=1))
    )
    assert traj.status == "failed"
    assert traj.error is not None and "500 Internal Server Error" in traj.error
    assert traj.error.startswith("ProviderUnavailableError")
    assert len(traj.turns) == 1 and len(traj.llm_calls) == 1


def test_rate_limit_then_success_records_the_retry(
    server: LoopbackServer, eri_box: Box, eri: Family
) -> None:
    q = queries(eri, 1, seed=10)
    server.add(
        {"fault": "rate_limit", "retry_after": 0.01},
        tool_reply("query", input=q[0]),
        *[tool_reply("answer", output=WRONG)] * eri.test_items,
    )
    events: list[Any] = []
    traj, _ = play_eri(
        eri_box,
        eri,
        "openai/m",
        TurnShot(1, 1),
        settings(base_url=server.openai_base_url, on_retry=events.append),
    )
    assert traj.status == "completed", traj.error
    assert [c.retries for c in traj.llm_calls] == [1] + [0] * eri.test_items
    assert traj.usage is not None and traj.usage.retries == 1
    assert len(events) == 1 and "429" in events[0].reason
    assert [r.status for r in server.requests[:2]] == [429, 200]


# -- units -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("QUERY: hello world", "hello world"),
        ("reasoning first\nquery:  ABC  ", "ABC"),
        ("QUERY: one\nmore thoughts\nQuery: two", "one"),  # upper case first
        ("query: one\nmore thoughts\nQuery: two", "two"),  # else any case, the last
        ("ANSWER: $\\boxed{KHOOR}$", None),
        ("QUERY: $\\boxed{KHOOR}$", "KHOOR"),
        ("QUERY: $abc$", "abc"),
        ("```\nQUERY: fenced\n```", "fenced"),
        ("**QUERY:** bold", "bold"),
        ("> QUERY: `code`", "code"),
        ("QUERY:\n```\nbelow\n```", "below"),
        ("QUERY:", None),  # an empty marker is no marker: asked again
        ("no marker here", None),
        ("ANSWER: not a query", None),
        ("a QUERY: in the middle of a line", None),
    ],
)
def test_marker_value(text: str, value: str | None) -> None:
    assert marker_value(text, "QUERY") == value


def test_rejected_text_falls_back_to_a_text_the_family_rejects(eri: Family) -> None:
    assert rejected_text(eri.parse_query, ["!!!"]) == "!!!"
    assert rejected_text(eri.parse_query, ['{"inpt": "x"}']) == ""
    assert rejected_text(lambda text: text, ["anything"]) == "anything"


def test_names_settings_and_preflight(tmp_path: Path, server: LoopbackServer) -> None:
    assert is_llm_agent("openai/gpt-5.4") and is_llm_agent("scripted/a/b.jsonl")
    assert not is_llm_agent("random")
    for bad in ({"protocol": "json"}, {"max_reasks": -1}, {"history": 0}, {"timeout": 0}):
        with pytest.raises(UsageError):
            LlmAgentSettings(**bad)
    script = write_script(tmp_path / "ok.jsonl", ["x"])
    assert check_llm_agent(script, LlmAgentSettings()) == script
    ok = LlmAgentSettings(base_url=server.openai_base_url)
    assert check_llm_agent("openai/m", ok) == "openai/m"
    with pytest.raises(ProviderConfigError, match="no such script file"):
        check_llm_agent(f"scripted/{tmp_path / 'missing.jsonl'}", LlmAgentSettings())
    with pytest.raises(ProviderConfigError, match="set OPENAI_API_KEY"):
        check_llm_agent("openai/m", LlmAgentSettings())
    with pytest.raises(ProviderConfigError, match="cannot be set with -M"):
        check_llm_agent("openai/m", LlmAgentSettings(base_url=ok.base_url, options={"n": 2}))
    assert server.requests == []  # the preflight sends no request


def test_dfa_reply_without_a_tool_call_goes_to_the_environment_as_text(
    tmp_path: Path, dfa_box: Box
) -> None:
    target = box_target(dfa_box)[0]
    word = target.alphabet[0]
    lines: list[dict[str, Any] | str] = [
        "I will just think aloud",  # invalid (free): no JSON call
        json.dumps({"tool": "membership_query", "word": word}),  # a text call still works
        tool_reply("membership_query", word=word, tool="x"),  # clashing key: invalid, free
        {
            "tool_calls": [
                {"name": "equivalence_query", "arguments": {"dfa": target.to_json()}},
                {"name": "membership_query", "arguments": {"word": word}},
            ]
        },
    ]
    name = write_script(tmp_path / "dfa-mixed.jsonl", lines)
    agent = LlmDfaAgent(name, dfa_context(dfa_box), settings())
    traj = play_dfa(dfa_box, name, agent)
    assert traj.status == "completed", traj.error
    assert [c.valid for c in traj.calls] == [False, True, False, True]
    assert traj.calls[0].shown == "Invalid call (free, not counted): no JSON tool call found"
    assert traj.success and traj.cost == 2
    assert agent.notes() == ["call 4: 1 extra tool call(s) ignored"]
    assert DFA.from_table(traj.target).n == target.n


def test_dfa_reply_forwards_its_first_call_of_a_dfa_tool(tmp_path: Path, dfa_box: Box) -> None:
    calls = [
        {"name": "think", "arguments": {"about": "words"}},
        {"name": "membership_query", "arguments": {"word": ""}},
    ]
    name = write_script(tmp_path / "s.jsonl", [{"tool_calls": calls}])
    agent = LlmDfaAgent(name, dfa_context(dfa_box), settings())
    try:
        traj = play_dfa(dfa_box, name, agent)
    finally:
        agent.close()
    # the membership query reached the box; then the one-line script ran out
    assert (traj.calls[0].tool, traj.calls[0].valid, traj.calls[0].word) == ("mq", True, "")
    assert traj.status == "failed" and "script exhausted" in (traj.error or "")
    assert "call 1: 1 extra tool call(s) ignored" in traj.agent_notes
