"""Hostile input at every agent-facing entry point (issue 9, item 2).

Whatever a model, a person or an agent program sends (huge numbers, deep nesting, dicts
with non-string keys, NaN, lone surrogates, megabytes of text, JSON fragments, arguments
no provider could read), no exception escapes, the episode completes, every refused call
or turn is recorded with a one-line reason, and the trajectory round-trips through
canonical JSON. The internal ``_raw`` key of unreadable tool arguments never reaches a
model.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from blackboxes.families import Family, Rule
from blackboxes.store import Box, load_suite_boxes
from evaluator.kinds.dfa.llm import LlmDfaAgent
from evaluator.kinds.dfa.protocol import (
    INVALID_CALL,
    DfaAgentContext,
    DfaEnvironment,
    InvalidCallError,
    dfa_intro,
    in_process_membership,
    run_dfa_episode,
)
from evaluator.kinds.dfa.trajectory import (
    DfaTrajectory,
    dfa_trajectory_text,
    load_dfa_trajectory,
    save_dfa_trajectory,
)
from evaluator.kinds.turns.agents import AgentContext, Briefing, Observation, Question
from evaluator.kinds.turns.llm import LlmAgent
from evaluator.kinds.turns.protocol import INVALID_QUERY, EpisodeContext, run_episode
from evaluator.kinds.turns.trajectory import (
    Trajectory,
    load_trajectory,
    save_trajectory,
    trajectory_text,
)
from evaluator.llm_agents import LlmAgentSettings, ProviderPool
from evaluator.spec import TurnShot
from oracle_bench.bounded import MAX_TEXT_CHARS
from providers import ChatMessage, Reply, ToolCall, ToolSpec
from providers._base import parse_arguments
from sandbox import SandboxWorker
from tests.evaluator.test_dfa_episode import HAS_B, make_box
from tests.test_bounded import HOSTILE_TEXT, HOSTILE_VALUES, nested

PREFIX = "Invalid call (free, not counted): "
HUGE = "1" * 4301
DEEP_DFA = '{"a":' * 1000 + "1" + "}" * 1000
SETTINGS = settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


# -- shared checks ----------------------------------------------------------------------


def one_line(text: str) -> None:
    assert text and "\n" not in text and "\r" not in text


def dfa_roundtrip(traj: DfaTrajectory, tmp: Path) -> None:
    path = tmp / "dfa.json"
    save_dfa_trajectory(traj, path)
    assert dfa_trajectory_text(load_dfa_trajectory(path)) == dfa_trajectory_text(traj)


def turnshot_roundtrip(traj: Trajectory, tmp: Path) -> None:
    path = tmp / "t.json"
    save_trajectory(traj, path)
    assert trajectory_text(load_trajectory(path)) == trajectory_text(traj)


def check_dfa(traj: DfaTrajectory, tmp: Path) -> None:
    assert traj.status == "completed", traj.error
    for call in traj.calls:
        if not call.valid:
            assert call.error == INVALID_CALL and call.shown.startswith(PREFIX)
            one_line(call.shown)
            assert "_raw" not in call.shown
    assert traj.invalid_calls == sum(not c.valid for c in traj.calls)
    dfa_roundtrip(traj, tmp)


def check_turnshot(traj: Trajectory, tmp: Path) -> None:
    assert traj.status == "completed", traj.error
    assert traj.accuracy is not None
    for turn in traj.turns:
        if not turn.valid:
            assert turn.error_kind == INVALID_QUERY and turn.query is None
            one_line(turn.shown)
            assert "_raw" not in turn.shown
    turnshot_roundtrip(traj, tmp)


# -- DFA: the environment ---------------------------------------------------------------


def environment(max_invalid_streak: int = 10_000) -> DfaEnvironment:
    return DfaEnvironment(
        HAS_B, "minimal", 10_000, in_process_membership(HAS_B), "", max_invalid_streak
    )


def test_regression_a_4301_digit_word_or_state_is_a_free_invalid_call() -> None:
    env = environment()
    texts = [
        '{"tool": "membership_query", "word": ' + HUGE + "}",
        '{"tool": "equivalence_query", "dfa": {"states": [' + HUGE + '], "start": 0, '
        '"accepting": [], "transitions": []}}',
    ]
    for text in texts:
        shown = env.call(text)
        assert shown == PREFIX + "the call holds a number with 4301 digits; at most 100 are allowed"
    with pytest.raises(InvalidCallError, match="the word holds a number with 4302 digits"):
        env.membership(10**4301)  # type: ignore[arg-type]
    with pytest.raises(InvalidCallError, match="invalid DFA: the hypothesis holds a number"):
        env.equivalence(
            {"states": [10**4301], "start": 10**4301, "accepting": [], "transitions": []}
        )
    assert [c.valid for c in env.calls] == [False] * 4 and env.used == 0


def test_regression_a_dfa_1000_levels_deep_is_a_free_invalid_call() -> None:
    env = environment()
    shown = env.call('{"tool": "equivalence_query", "dfa": ' + DEEP_DFA + "}")
    assert shown == PREFIX + "the call nests 1001 levels deep; at most 32 are allowed"
    shown = env.call('{"tool": "equivalence_query", "dfa": ' + json.dumps(DEEP_DFA) + "}")
    assert (
        shown
        == PREFIX + "invalid DFA: the hypothesis nests 1000 levels deep; at most 32 are allowed"
    )
    with pytest.raises(InvalidCallError, match="the hypothesis nests 1000 levels deep"):
        env.equivalence(nested(1000, "dict"))
    assert env.used == 0 and len(env.calls) == 3


def test_regression_a_dict_with_non_string_keys_is_a_free_invalid_call() -> None:
    env = environment()
    good = HAS_B.to_json()
    for bad in ({**good, 1: "x"}, {**good, "transitions": {("q0",): {"a": "q0"}}}):
        with pytest.raises(InvalidCallError, match="object key that is not a string"):
            env.equivalence(bad)
    with pytest.raises(InvalidCallError, match="object key that is not a string"):
        env.membership({None: "ab"})  # type: ignore[arg-type]
    assert env.used == 0 and all(not c.valid for c in env.calls)
    assert env.equivalence(good) is None  # a clean hypothesis still goes through


def test_the_text_search_stays_linear_on_many_unclosed_objects() -> None:
    env = environment()
    for text in ('{"' * 300_000, '{"a":"' * 150_000, '{"":0,' * 150_000, "{" * 900_000):
        one_line(env.call(text))
    assert len(env.calls) == 4 and not any(c.valid for c in env.calls)


@SETTINGS
@given(st.lists(HOSTILE_TEXT, min_size=1, max_size=6))
def test_any_text_call_is_answered_never_raised(texts: list[str]) -> None:
    env = environment()
    for text in texts:
        shown = env.call(text)
        assert shown == env.calls[-1].shown
        if not env.calls[-1].valid:
            assert shown.startswith(PREFIX)
            one_line(shown)
    assert len(env.calls) == len(texts)


@SETTINGS
@given(st.lists(st.tuples(st.sampled_from(["mq", "eq"]), HOSTILE_VALUES), max_size=6))
def test_any_structured_call_is_answered_or_refused_free(
    moves: list[tuple[str, Any]],
) -> None:
    env = environment()
    for tool, value in moves:
        try:
            if tool == "mq":
                env.membership(value)
            else:
                env.equivalence(value)
        except InvalidCallError as exc:
            one_line(str(exc))
            assert str(exc) == env.calls[-1].shown
    assert len(env.calls) == len(moves)


# -- DFA: whole episodes ----------------------------------------------------------------


@dataclass
class HostileDfaAgent:
    """Text calls and structured calls of anything at all, in order."""

    moves: Sequence[tuple[str, Any]]

    def play(self, env: DfaEnvironment) -> None:
        for tool, value in self.moves:
            try:
                if tool == "text":
                    env.call(value)
                elif tool == "mq":
                    env.membership(value)
                else:
                    env.equivalence(value)
            except InvalidCallError:
                pass


MOVES = st.lists(
    st.tuples(st.just("text"), HOSTILE_TEXT | HOSTILE_VALUES)
    | st.tuples(st.sampled_from(["mq", "eq"]), HOSTILE_VALUES | HOSTILE_TEXT),
    max_size=8,
)


@SETTINGS
@given(moves=MOVES)
def test_a_hostile_dfa_agent_completes_its_episode(
    moves: list[tuple[str, Any]], tmp_path: Path
) -> None:
    box = make_box(HAS_B, 40)
    traj = run_dfa_episode(
        box, "hostile", HostileDfaAgent(moves), in_process_membership(HAS_B), suite="t"
    )
    check_dfa(traj, tmp_path)
    assert len(traj.calls) == len(moves)


def test_regression_cases_in_one_recorded_dfa_episode(tmp_path: Path) -> None:
    moves = [
        ("text", '{"tool": "membership_query", "word": ' + HUGE + "}"),
        ("text", '{"tool": "equivalence_query", "dfa": ' + DEEP_DFA + "}"),
        ("eq", {1: "x"}),
        ("mq", 10**4301),
        ("text", "x" * (MAX_TEXT_CHARS + 1)),
        ("text", '{"tool": "membership_query", "word": "a\ud800"}'),
        ("mq", "ab"),
    ]
    traj = run_dfa_episode(
        make_box(HAS_B, 40),
        "hostile",
        HostileDfaAgent(moves),
        in_process_membership(HAS_B),
        suite="t",
    )
    check_dfa(traj, tmp_path)
    assert [c.valid for c in traj.calls] == [False] * 6 + [True]
    assert traj.calls[4].text.startswith("[not recorded as sent: the text has 1048577 characters")


# -- turn@shot ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def eri_box(tmp_path_factory: pytest.TempPathFactory, suite_builder: Any) -> Box:
    suite_dir = suite_builder(tmp_path_factory.mktemp("hostile-suites"), n=1, seed=11)
    return load_suite_boxes(suite_dir)[1][0]


@dataclass(frozen=True)
class _Result:
    value: Any
    ok: bool = True
    error: None = None


@dataclass(frozen=True)
class RuleEnv:
    """The box's trusted rule in process (the episode never runs the box code here)."""

    rule: Rule
    layers: frozenset[str] = frozenset()

    def call(self, x: Any) -> _Result:
        return _Result(self.rule(x))


class HostileAgent:
    """Replies and answers of anything at all (not even text)."""

    def __init__(self, replies: Sequence[object], answers: Sequence[object]) -> None:
        self.replies = list(replies)
        self.answers = list(answers)

    def start(self, briefing: Briefing) -> None:
        pass

    def query(self, banner: str) -> Any:
        return self.replies.pop(0) if self.replies else 12

    def observe(self, observation: Observation) -> None:
        one_line(observation.response)

    def begin_evaluation(self, message: str) -> None:
        pass

    def answer(self, question: Question) -> Any:
        return self.answers.pop(0) if self.answers else None

    def feedback(self, correct: bool, message: str) -> None:
        one_line(message)

    def notes(self) -> list[str]:
        return []


REPLIES = st.lists(HOSTILE_TEXT | HOSTILE_VALUES, min_size=1, max_size=5)


def turnshot(
    box: Box, family: Family, agent: Any, env: Any, turns: int, free: bool = False
) -> Trajectory:
    ctx = EpisodeContext(
        suite="t",
        agent_name="hostile",
        spec=TurnShot(turns, 2),
        feedback="instant",
        seed=0,
        invalid_costs_turn=not free,
    )
    return run_episode(box, family, agent, env, ctx)


@SETTINGS
@given(replies=REPLIES, answers=REPLIES, free=st.booleans())
def test_a_hostile_turnshot_agent_completes_its_episode(
    replies: list[object],
    answers: list[object],
    free: bool,
    eri_box: Box,
    eri: Family,
    reference: Any,
    tmp_path: Path,
) -> None:
    env = RuleEnv(reference(eri, eri_box))
    traj = turnshot(eri_box, eri, HostileAgent(replies, answers), env, len(replies), free)
    check_turnshot(traj, tmp_path)
    assert sum(t.counted for t in traj.turns) == len(replies)


def test_hostile_replies_against_the_real_box_in_the_sandbox(
    eri_box: Box, eri: Family, tmp_path: Path
) -> None:
    replies = ["x" * (MAX_TEXT_CHARS + 1), 42, "HELLO\ud800", "HELLO", None]
    answers = ["y" * (MAX_TEXT_CHARS + 1), {"not": "text"}]
    with SandboxWorker(eri_box.code, entry=eri_box.info.entry) as worker:
        traj = turnshot(eri_box, eri, HostileAgent(replies, answers), worker, len(replies))
    check_turnshot(traj, tmp_path)
    assert [t.valid for t in traj.turns] == [False, False, False, True, False]
    assert [t.shown for t in traj.turns if not t.valid] == [
        "the reply has 1048577 characters; at most 1048576 are allowed",
        "the reply must be text, got int",
        "the reply holds an unpaired surrogate (U+D800); send valid UTF-8 text",
        "the reply must be text, got NoneType",
    ]
    first, second = traj.items[0].attempts
    assert not first.correct and first.text.startswith(
        "[not recorded as sent: the text has 1048577 characters"
    )
    assert not second.correct and second.text.startswith(
        "[not recorded as sent: the text must be text, got dict]"
    )
    assert traj.accuracy == 0.0


# -- LLM agents through a fake provider --------------------------------------------------


class FakeProvider:
    """Returns the given replies, then plain text; keeps every request."""

    name = "fake/hostile"

    def __init__(self, replies: Sequence[Reply]) -> None:
        self.replies = list(replies)
        self.requests: list[list[ChatMessage]] = []

    def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        tools: Sequence[ToolSpec] = (),
        tool_choice: str | None = None,
        json_schema: dict[str, Any] | None = None,
    ) -> Reply:
        self.requests.append(list(messages))
        return self.replies.pop(0) if self.replies else Reply(text="nothing", model=self.name)


class FakePool(ProviderPool):
    def __init__(self, provider: FakeProvider) -> None:
        super().__init__()
        self.provider = provider

    def get(self, name: str, settings: LlmAgentSettings) -> Any:
        return self.provider


def no_raw_sent(provider: FakeProvider) -> None:
    """No harness message, and no tool call echoed in the history, names ``_raw``."""
    for messages in provider.requests:
        for message in messages:
            if message.role in ("user", "tool"):
                assert "_raw" not in message.content
            for call in message.tool_calls:
                assert "_raw" not in call.arguments


NAMES = st.sampled_from(["query", "answer", "membership_query", "equivalence_query", "other"])
ARGUMENTS = (
    st.dictionaries(
        st.sampled_from(["input", "output", "word", "dfa", "x"]), HOSTILE_VALUES, max_size=3
    )
    | HOSTILE_VALUES
    | HOSTILE_TEXT.map(parse_arguments)
    | st.builds(dict, st.just({1: "x", "word": "ab"}))
)
CLEAN_TEXT = HOSTILE_TEXT.filter(lambda t: "_raw" not in t)


@st.composite
def replies(draw: st.DrawFn) -> list[Reply]:
    out = []
    for i in range(draw(st.integers(1, 6))):
        calls = [
            ToolCall.model_construct(id=f"c{i}-{j}", name=draw(NAMES), arguments=draw(ARGUMENTS))
            for j in range(draw(st.integers(0, 2)))
        ]
        out.append(Reply(text=draw(CLEAN_TEXT), tool_calls=calls, model="fake/hostile"))
    return out


def fake_settings(provider: FakeProvider, protocol: str) -> LlmAgentSettings:
    return LlmAgentSettings(pool=FakePool(provider), protocol=protocol)  # type: ignore[arg-type]


@SETTINGS
@given(script=replies(), protocol=st.sampled_from(["tools", "text"]))
def test_llm_dfa_agent_on_hostile_replies(
    script: list[Reply], protocol: str, tmp_path: Path
) -> None:
    box = make_box(HAS_B, 3)
    provider = FakeProvider(script)
    ctx = DfaAgentContext(("a", "b"), 6, dfa_intro(("a", "b"), 6, 20), random.Random(0))
    agent = LlmDfaAgent("fake/hostile", ctx, fake_settings(provider, protocol))
    traj = run_dfa_episode(box, "fake/hostile", agent, in_process_membership(HAS_B), suite="t")
    check_dfa(traj, tmp_path)
    assert len(traj.llm_calls) == len(provider.requests)
    no_raw_sent(provider)


@SETTINGS
@given(script=replies(), protocol=st.sampled_from(["tools", "text"]))
def test_llm_turnshot_agent_on_hostile_replies(
    script: list[Reply],
    protocol: str,
    eri_box: Box,
    eri: Family,
    reference: Any,
    tmp_path: Path,
) -> None:
    provider = FakeProvider(script)
    agent = LlmAgent(
        "fake/hostile",
        AgentContext(eri, eri_box.info.level, random.Random(0)),
        fake_settings(provider, protocol),
    )
    traj = turnshot(eri_box, eri, agent, RuleEnv(reference(eri, eri_box)), 2)
    check_turnshot(traj, tmp_path)
    assert len(traj.llm_calls) == len(provider.requests)
    no_raw_sent(provider)


def test_regression_unreadable_arguments_are_reported_without_raw(tmp_path: Path) -> None:
    unreadable = parse_arguments('{"word": "ab"')  # what a provider makes of cut-off JSON
    assert list(unreadable) == ["_raw"]
    script = [
        Reply(
            text="",
            tool_calls=[ToolCall(id="c1", name="membership_query", arguments=unreadable)],
            model="fake/hostile",
        ),
        Reply(
            text="",
            tool_calls=[
                ToolCall(id="c2", name="equivalence_query", arguments={"dfa": nested(1000)})
            ],
            model="fake/hostile",
        ),
        Reply(
            text="",
            tool_calls=[ToolCall(id="c3", name="membership_query", arguments={"word": 10**4301})],
            model="fake/hostile",
        ),
    ]
    provider = FakeProvider(script)
    ctx = DfaAgentContext(("a", "b"), 6, dfa_intro(("a", "b"), 6, 20), random.Random(0))
    agent = LlmDfaAgent("fake/hostile", ctx, fake_settings(provider, "tools"))
    traj = run_dfa_episode(
        make_box(HAS_B, 3), "fake/hostile", agent, in_process_membership(HAS_B), suite="t"
    )
    check_dfa(traj, tmp_path)
    first, second, third = traj.calls[:3]
    assert (first.tool, first.shown) == (
        "mq",
        PREFIX + "the tool call's arguments are not valid JSON: Expecting ',' delimiter "
        "(line 1, column 14)",
    )
    assert second.shown == PREFIX + "the tool call nests 1001 levels deep; at most 32 are allowed"
    assert (
        third.shown
        == PREFIX + "the tool call holds a number with 4302 digits; at most 100 are allowed"
    )
    assert first.text == '{"tool": "membership_query", "arguments": "{\\"word\\": \\"ab\\""}'
    no_raw_sent(provider)
    # The record keeps what the model sent, safely: the stand-in key, a clipped preview.
    recorded = [c.tool_calls[0]["arguments"] for c in traj.llm_calls[:3]]
    assert recorded[0] == {"_raw": '{"word": "ab"'}
    assert recorded[1].startswith("[not recorded as sent: the value nests 1001 levels deep")
    assert recorded[2].startswith("[not recorded as sent: the value holds a number with 4302")


def test_regression_turnshot_unreadable_arguments_are_reported_without_raw(
    eri_box: Box, eri: Family, reference: Any
) -> None:
    script = [
        Reply(
            text="",
            tool_calls=[ToolCall(id="c1", name="query", arguments=parse_arguments("[[["))],
            model="fake/hostile",
        )
    ]
    provider = FakeProvider(script)
    agent = LlmAgent(
        "fake/hostile",
        AgentContext(eri, eri_box.info.level, random.Random(0)),
        fake_settings(provider, "tools"),
    )
    traj = turnshot(eri_box, eri, agent, RuleEnv(reference(eri, eri_box)), 1)
    assert traj.status == "completed"
    tool_results = [m for m in provider.requests[1] if m.role == "tool"]
    assert [m.content for m in tool_results] == [
        'Invalid call: the tool query takes {"input": "<text>"}, got [[[ (the tool call\'s '
        "arguments are not valid JSON: Expecting value (line 1, column 4))."
    ]
    no_raw_sent(provider)


@settings(max_examples=200, deadline=None)
@given(HOSTILE_TEXT | HOSTILE_VALUES | st.binary(max_size=20))
def test_parse_arguments_never_raises(raw: Any) -> None:
    parsed = parse_arguments(raw)
    assert isinstance(parsed, dict)
    if "_raw" in parsed and len(parsed) == 1:
        assert isinstance(parsed["_raw"], str)


def test_parse_arguments_on_a_1000_deep_or_10_mb_string() -> None:
    for raw in ("[" * 1000 + "]" * 1000, '{"a": ' + "[" * 1000, "x" * 10_000_000):
        assert parse_arguments(raw) == {"_raw": raw}
    assert parse_arguments('{"a": ' + HUGE + "}") == {"_raw": '{"a": ' + HUGE + "}"}
    assert parse_arguments('{"a": NaN}') == {"_raw": '{"a": NaN}'}


# -- oracle-play: a person's lines and files ---------------------------------------------


def test_a_persons_hostile_lines_and_files(tmp_path: Path) -> None:
    from io import StringIO

    from evaluator.human import PlayIO
    from evaluator.kinds.dfa.human import HumanDfaAgent

    big = tmp_path / "big.json"
    big.write_text("x" * (MAX_TEXT_CHARS + 1), encoding="utf-8")
    deep = tmp_path / "deep.json"
    deep.write_text(DEEP_DFA, encoding="utf-8")
    lines = [
        "eq " + DEEP_DFA,
        "eq " + '{"states": [' + HUGE + '], "start": 0, "accepting": [], "transitions": []}',
        f"eq @{big}",
        f"eq @{deep}",
        '? "\\ud800"',
        "? " + HUGE,
        "{" + "x" * (MAX_TEXT_CHARS + 1),
        "z" * (MAX_TEXT_CHARS + 1),
        "eq " + json.dumps(HAS_B.to_json()),
    ]
    out = StringIO()
    agent = HumanDfaAgent(PlayIO.from_streams(StringIO("".join(f"{x}\n" for x in lines)), out))
    traj = run_dfa_episode(
        make_box(HAS_B, 40), "human:t", agent, in_process_membership(HAS_B), suite="t"
    )
    check_dfa(traj, tmp_path)
    assert traj.success and [c.valid for c in traj.calls] == [False] * 6 + [True]
    assert [c.shown.removeprefix(PREFIX) for c in traj.calls[:6]] == [
        "invalid DFA: the hypothesis nests 1000 levels deep; at most 32 are allowed",
        "invalid DFA: the hypothesis holds a number with 4301 digits; at most 100 are allowed",
        "invalid DFA: the hypothesis nests 1000 levels deep; at most 32 are allowed",
        "letter(s) '\"', '0', '8', '\\\\', 'd', 'u' not in the alphabet {a, b}",
        "letter(s) '1' not in the alphabet {a, b}",
        "the call has 1048578 characters; at most 1048576 are allowed",
    ]
    shown = out.getvalue()
    assert f"{big} has more than {MAX_TEXT_CHARS} characters" in shown
    assert "Not a call: 'zzzz" in shown and len(max(shown.splitlines(), key=len)) < 200_000
