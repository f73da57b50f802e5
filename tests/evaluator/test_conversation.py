"""The conversation an LLM agent's model saw, kept once per episode in its record.

For scripted episodes of every kind (tools and text protocols, re-asks, ``--history``
windows, conversations reset per instance, thinking blocks), every call's messages rebuilt
from the record equal what the provider received; the record grows with the messages,
not with calls times history; records without a conversation still load; and an episode
resumed from the call cache keeps the same conversation, byte for byte.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from blackboxes.families import Family
from blackboxes.puzzles import get_puzzle
from blackboxes.store import Box, load_suite_boxes
from evaluator.analysis import conversation_of
from evaluator.conversation import ConversationLog, ConversationRecorder, messages_sent
from evaluator.kinds.dfa.llm import LlmDfaAgent
from evaluator.kinds.dfa.protocol import make_dfa_agent
from evaluator.kinds.dfa.trajectory import DfaTrajectory
from evaluator.kinds.game.llm import LlmGameAgent
from evaluator.kinds.game.protocol import GameAgentContext
from evaluator.kinds.game.trajectory import GameTrajectory
from evaluator.kinds.puzzle.llm import LlmPuzzleAgent
from evaluator.kinds.puzzle.protocol import PuzzleAgentContext
from evaluator.kinds.puzzle.trajectory import PuzzleTrajectory
from evaluator.kinds.turns.trajectory import Trajectory, trajectory_text
from evaluator.llm_agents import EMPTY_REPLY, LlmAgentSettings, system_prompt
from evaluator.spec import TurnShot
from evaluator.usage import BudgetExhausted, RunBudget
from oracle_bench.errors import EvaluationError
from oracle_bench.jsonio import canonical_json
from oracle_bench.rng import rng_for
from providers import CallCache, ChatMessage
from providers.scripted import ScriptedProvider
from tests.evaluator.test_dfa_episode import HAS_B, make_box
from tests.evaluator.test_dfa_episode import run as run_dfa
from tests.evaluator.test_game_episode import _setup
from tests.evaluator.test_game_episode import baseline as game_baseline
from tests.evaluator.test_game_episode import play as play_game
from tests.evaluator.test_llm_agents import (
    FAST_RETRY,
    dfa_context,
    expected_answers,
    play_eri,
    queries,
    settings,
    tool_reply,
    write_script,
)
from tests.evaluator.test_puzzle_episode import MASTERMIND, baseline
from tests.evaluator.test_puzzle_episode import play as play_puzzle

Record = Trajectory | DfaTrajectory | GameTrajectory | PuzzleTrajectory


@pytest.fixture(scope="module")
def eri_box(tmp_path_factory: pytest.TempPathFactory, suite_builder: Any) -> Box:
    suite_dir = suite_builder(tmp_path_factory.mktemp("conv-suites"), n=1, seed=11)
    return load_suite_boxes(suite_dir)[1][0]


@pytest.fixture
def received(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[list[ChatMessage]]]:
    """What the scripted provider received, call by call."""
    seen: list[list[ChatMessage]] = []
    original = ScriptedProvider.complete

    def complete(self: ScriptedProvider, messages: Sequence[ChatMessage], **kw: Any) -> Any:
        seen.append(list(messages))
        return original(self, messages, **kw)

    monkeypatch.setattr(ScriptedProvider, "complete", complete)
    yield seen


def assert_replays(traj: Record, received: list[list[ChatMessage]]) -> ConversationLog:
    """Every call's rebuilt messages are what the provider received, after the record is
    written and read back; every message is a reply or was sent."""
    text = canonical_json(traj.model_dump(mode="json"))
    loaded = type(traj).model_validate_json(text)
    assert loaded == traj
    log = loaded.conversation
    assert log is not None
    assert len(received) == len(loaded.llm_calls) > 0
    for i, messages in enumerate(received):
        assert messages_sent(loaded, i) == messages, f"call {i}"
    sent = {j for c in loaded.llm_calls for a, b in c.sent or [] for j in range(a, b)}
    for j, m in enumerate(log.messages):
        if m.call is not None:
            assert m.role == "assistant"
            assert m.content in (loaded.llm_calls[m.call].text, EMPTY_REPLY)
        else:
            assert j in sent, f"message {j} was never sent"
    replies = sorted(m.call for m in log.messages if m.call is not None)
    assert replies == list(range(len(loaded.llm_calls)))  # every reply once
    return log


def stored(log: ConversationLog) -> int:
    return len(log.messages)


def resent(traj: Record) -> int:
    """Messages sent over all calls (what storing every call's history would cost)."""
    return sum(b - a for c in traj.llm_calls for a, b in c.sent or [])


# -- every kind: the rebuilt messages are what the provider received -------------------------


def test_turns_tools_episode_with_reasks_thinking_and_extra_calls(
    tmp_path: Path,
    eri_box: Box,
    eri: Family,
    reference: Any,
    received: list[list[ChatMessage]],
) -> None:
    explore = queries(eri, 4, seed=5)
    answers = expected_answers(eri_box, eri, reference, explore)
    lines: list[dict[str, Any] | str] = [
        {"text": "let me think", "thinking": "no call yet"},  # re-asked
        {**tool_reply("query", input=explore[0]), "thinking": "first"},
        {
            "tool_calls": [
                {"name": "query", "arguments": {"input": explore[1]}},
                {"name": "query", "arguments": {"input": "extra"}},  # ignored
            ]
        },
        tool_reply("query", inpt=explore[2]),  # renamed key: taken
        tool_reply("query", input=explore[3]),
        *[tool_reply("answer", output=a) for a in answers],
    ]
    name = write_script(tmp_path / "t.jsonl", lines)
    traj, _ = play_eri(eri_box, eri, name, TurnShot(4, 1), settings())
    assert traj.status == "completed", traj.error
    log = assert_replays(traj, received)
    assert log.system == system_prompt("turnshot", "tools")
    first = log.messages[0]
    assert first.role == "user" and first.content.startswith(eri_box.info.task_intro.rstrip())
    # the intro, the first banner, the reply re-asked (its thinking kept), the correction
    assert [m.role for m in log.messages[:4]] == ["user", "user", "assistant", "user"]
    assert log.messages[2].reasoning_blocks[0]["thinking"] == "no call yet"
    assert [c.sent for c in traj.llm_calls[:3]] == [[(0, 2)], [(0, 4)], [(0, 7)]]
    tool_ids = [m.tool_call_id for m in log.messages if m.role == "tool"]
    assert len(tool_ids) == len(set(tool_ids)) == len(lines) - 2 + 1  # one extra call


def test_turns_text_protocol_in_a_history_window(
    tmp_path: Path, eri_box: Box, eri: Family, received: list[list[ChatMessage]]
) -> None:
    explore = queries(eri, 6, seed=6)
    lines: list[dict[str, Any] | str] = ["no marker here", f"QUERY: {explore[0]}"]
    lines += [f"QUERY: {q}" for q in explore[1:]] + ["ANSWER: x"] * eri.test_items
    name = write_script(tmp_path / "w.jsonl", lines)
    traj, _ = play_eri(eri_box, eri, name, TurnShot(6, 1), settings(protocol="text", history=2))
    assert traj.status == "completed", traj.error
    log = assert_replays(traj, received)
    # the intro, then the last two exchanges: two ranges once the window slides
    assert traj.llm_calls[-1].sent == [(0, 1), (stored(log) - 5, stored(log) - 1)]
    assert all(len(c.sent or []) <= 2 for c in traj.llm_calls)


def test_puzzle_episode_reset_per_instance(
    tmp_path: Path, received: list[list[ChatMessage]]
) -> None:
    adaptive = play_puzzle(baseline("mastermind", "adaptive"), agent_name="adaptive")
    lines: list[dict[str, Any]] = [{"text": "thinking, no call"}]
    for inst in adaptive.instances:
        lines += [
            {"tool_calls": [{"name": "probe", "arguments": {"probe": p.probe}}]}
            for p in inst.probes
        ]
        lines += [{"tool_calls": [{"name": "answer", "arguments": {"answer": inst.solution}}]}]
    name = write_script(tmp_path / "p.jsonl", lines)
    ctx = PuzzleAgentContext(get_puzzle("mastermind"), MASTERMIND, "easy", rng_for(0, "x"))
    traj = play_puzzle(LlmPuzzleAgent(name, ctx, LlmAgentSettings()), agent_name=name)
    assert traj.status == "completed", traj.error
    log = assert_replays(traj, received)
    # each instance starts its conversation again with the intro
    intros = [i for i, m in enumerate(log.messages) if m.content == log.messages[0].content]
    assert len(intros) == len(traj.instances) > 1
    starts = [c.sent[0][0] for c in traj.llm_calls if c.sent]
    assert sorted(set(starts)) == intros


def test_game_episode_in_a_one_exchange_window(
    tmp_path: Path, received: list[list[ChatMessage]]
) -> None:
    adaptive = play_game(game_baseline("adaptive"), name="adaptive")
    actions = [
        r.action
        for s in adaptive.settings_played
        for g in (*s.exploration, *s.evaluation)
        for r in g.rounds
    ]
    lines = [{"text": "hmm"}] + [
        {"tool_calls": [{"name": "play", "arguments": {"action": a.upper()}}]} for a in actions
    ]
    name = write_script(tmp_path / "g.jsonl", lines)
    family, _, _ = _setup("rps", "cycle")
    agent = LlmGameAgent(
        name, GameAgentContext(family, "easy", rng_for(0)), LlmAgentSettings(history=1)
    )
    traj = play_game(agent, name=name, context="keep")
    assert traj.status == "completed", traj.error
    assert_replays(traj, received)
    # the intro, then the last exchange only
    assert {len(c.sent or []) for c in traj.llm_calls[2:]} == {2}


def test_dfa_episode(tmp_path: Path, received: list[list[ChatMessage]]) -> None:
    box = make_box(HAS_B, 5)
    learner = run_dfa(make_dfa_agent("lstar", dfa_context(box)), box)
    calls: list[dict[str, Any]] = [{"text": "no call: an invalid call"}]
    for c in learner.calls:
        if c.tool == "mq":
            calls.append(tool_reply("membership_query", word=c.word))
        else:
            hypothesis = c.hypothesis_dfa()
            assert hypothesis is not None
            calls.append(tool_reply("equivalence_query", dfa=hypothesis.to_json()))
    name = write_script(tmp_path / "d.jsonl", calls)
    agent = LlmDfaAgent(name, dfa_context(box), settings())
    try:
        traj = run_dfa(agent, box)
    finally:
        agent.close()
    assert traj.status == "completed", traj.error
    assert traj.success
    log = assert_replays(traj, received)
    assert log.system == system_prompt("dfa", "tools")


# -- size: once per episode -------------------------------------------------------------------


def test_a_20_turn_episode_stores_each_message_once(
    tmp_path: Path,
    eri_box: Box,
    eri: Family,
    reference: Any,
    received: list[list[ChatMessage]],
) -> None:
    explore = queries(eri, 20, seed=7)
    answers = expected_answers(eri_box, eri, reference, explore)
    lines = [tool_reply("query", input=q) for q in explore]
    lines += [tool_reply("answer", output=a) for a in answers]
    name = write_script(tmp_path / "s.jsonl", lines)
    traj, _ = play_eri(eri_box, eri, name, TurnShot(20, 1), settings())
    assert traj.status == "completed", traj.error
    log = assert_replays(traj, received)
    n = len(traj.llm_calls)
    assert n == 20 + eri.test_items
    # the intro, then per call a user message and the reply, after the tool result of the
    # reply before
    assert stored(log) == 1 + 2 + 3 * (n - 1) == 3 * n
    assert resent(traj) == sum(2 + 3 * k for k in range(n))  # what full histories would hold
    assert all(len(c.sent or []) == 1 for c in traj.llm_calls)  # one range per call


# -- reading records ----------------------------------------------------------------------------


def test_conversation_of_puts_the_system_prompt_first(
    tmp_path: Path, eri_box: Box, eri: Family, received: list[list[ChatMessage]]
) -> None:
    lines = [tool_reply("query", input=q) for q in queries(eri, 2, seed=8)]
    lines += [tool_reply("answer", output="x")] * eri.test_items
    name = write_script(tmp_path / "c.jsonl", lines)
    traj, _ = play_eri(eri_box, eri, name, TurnShot(2, 1), settings())
    messages = conversation_of(traj)
    assert messages is not None and traj.conversation is not None
    assert messages[0].role == "system"
    assert messages[0].content == traj.conversation.system
    assert [m.content for m in messages[1:]] == [m.content for m in traj.conversation.messages]
    assert [m.role for m in messages[:4]] == ["system", "user", "user", "assistant"]
    assert messages[3].call == 0 and messages[3].tool_calls[0]["name"] == "query"
    # the whole conversation of the last call is a prefix of the read-back conversation
    last = received[-1]
    assert [(m.role, m.content) for m in messages[: len(last)]] == [
        (m.role, m.content) for m in last
    ]


def test_records_of_other_agents_and_old_records(
    tmp_path: Path, eri_box: Box, eri: Family, received: list[list[ChatMessage]]
) -> None:
    lines = [tool_reply("query", input=q) for q in queries(eri, 2, seed=9)]
    lines += [tool_reply("answer", output="x")] * eri.test_items
    name = write_script(tmp_path / "o.jsonl", lines)
    traj, _ = play_eri(eri_box, eri, name, TurnShot(2, 1), settings())
    raw = json.loads(trajectory_text(traj))
    assert "conversation" in raw and all("sent" in c for c in raw["llm_calls"])
    # a record written before conversations were kept
    del raw["conversation"]
    for c in raw["llm_calls"]:
        del c["sent"]
    old = Trajectory.model_validate(raw)
    assert old.conversation is None and conversation_of(old) is None
    assert trajectory_text(old) == canonical_json(raw)
    with pytest.raises(EvaluationError, match="no conversation"):
        messages_sent(old, 0)
    # ranges outside the messages make the record corrupt
    bad = json.loads(trajectory_text(traj))
    bad["llm_calls"][0]["sent"] = [[0, 999]]
    with pytest.raises(ValueError, match="outside"):
        Trajectory.model_validate(bad)
    # an agent that calls no model: no conversation in the record
    box = make_box(HAS_B, 5)
    lstar = run_dfa(make_dfa_agent("lstar", dfa_context(box)), box)
    assert lstar.conversation is None and "conversation" not in lstar.model_dump(mode="json")


def test_the_recorder_keeps_a_reask_that_a_later_call_drops() -> None:
    system = ChatMessage(role="system", content="sys")
    intro = ChatMessage(role="user", content="intro")
    first = ChatMessage(role="assistant", content="no call")
    correction = ChatMessage(role="user", content="again")
    second = ChatMessage(role="assistant", content="ok")
    after = ChatMessage(role="user", content="next")
    recorder = ConversationRecorder()
    assert recorder.sent([system, intro]) == [(0, 1)]
    recorder.replied(0, first.model_copy())
    assert recorder.sent([system, intro, first, correction]) == [(0, 3)]
    recorder.replied(1, second.model_copy())
    # a history without the re-ask: the first reply and its correction are left out
    assert recorder.sent([system, intro, second, after]) == [(0, 1), (3, 5)]
    log = recorder.log()
    assert log is not None
    assert [m.content for m in log.messages] == ["intro", "no call", "again", "ok", "next"]
    assert [m.call for m in log.messages] == [None, 0, None, 1, None]
    assert log.replay([(0, 1), (3, 5)]) == [system, intro, second, after]
    with pytest.raises(EvaluationError, match="system prompt"):
        recorder.sent([intro])


# -- resume ------------------------------------------------------------------------------------


def test_a_resumed_episode_keeps_the_same_conversation(
    tmp_path: Path, eri_box: Box, eri: Family, reference: Any
) -> None:
    explore = queries(eri, 5, seed=10)
    answers = expected_answers(eri_box, eri, reference, explore)
    lines: list[dict[str, Any] | str] = ["no call"]
    lines += [tool_reply("query", input=q) for q in explore]
    lines += [tool_reply("answer", output=a) for a in answers]
    name = write_script(tmp_path / "r.jsonl", lines)
    spec = TurnShot(5, 1)

    def conversation(traj: Trajectory) -> str:
        assert traj.conversation is not None
        calls = [c.sent for c in traj.llm_calls]
        return canonical_json([traj.conversation.model_dump(mode="json"), calls])

    fresh, _ = play_eri(eri_box, eri, name, spec, settings())
    with CallCache(tmp_path / "calls.sqlite") as cache:
        budget = RunBudget(max_tokens=60)  # cut off after a few calls
        with pytest.raises(BudgetExhausted):
            play_eri(
                eri_box,
                eri,
                name,
                spec,
                LlmAgentSettings(retry=FAST_RETRY, cache=cache, budget=budget),
            )
        resumed, _ = play_eri(eri_box, eri, name, spec, settings(cache=cache))
    cached = [c.cached for c in resumed.llm_calls]
    assert any(cached) and not all(cached)
    assert conversation(resumed) == conversation(fresh)
