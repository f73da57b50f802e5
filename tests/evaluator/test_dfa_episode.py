"""One DFA episode against an in-process target: budget, calls, text protocol, records."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blackboxes.automata.dfa import DFA
from blackboxes.automata.oracle import CounterexampleMode
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
from evaluator.kinds.dfa.protocol import (
    DEFAULT_MAX_INVALID_STREAK,
    INVALID_CALL,
    BoxFaultError,
    DfaAgentContext,
    DfaEnvironment,
    EpisodeOver,
    InvalidCallError,
    check_dfa_agent_name,
    dfa_agent_names,
    dfa_intro,
    episode_budget,
    failed_dfa_trajectory,
    in_process_membership,
    register_dfa_agent,
    run_dfa_episode,
)
from evaluator.kinds.dfa.trajectory import DfaCall, DfaTrajectory, dfa_trajectory_text
from oracle_bench import rng_for
from oracle_bench.errors import UnknownNameError, UsageError

# Words over {a, b} containing at least one b (the DFA seed's Table 1 example).
HAS_B = DFA.build("ab", [[0, 1], [1, 1]], [1])
EMPTY = DFA.universal("ab", accept=False)


def make_box(
    target: DFA,
    reference_cost: int,
    mode: CounterexampleMode = "minimal",
    box_id: str = "dfa-test-000",
) -> Box:
    """An in-memory DFA box (the box code is never run here: MQs go in-process)."""
    costs = {
        "lstar": DfaBaselineCost(mq=reference_cost - 1, eq=1),
        "kv": DfaBaselineCost(mq=reference_cost + 2, eq=2),
        "ttt": DfaBaselineCost(mq=reference_cost, eq=1),
    }
    info = BoxInfo(
        id=box_id,
        family="DFA",
        level="easy",
        task_intro="(family intro)",
        input_schema="a word",
        output_schema="1 or 0",
        dfa=DfaBoxInfo(alphabet=list(target.alphabet), reference_cost=reference_cost),
    )
    facts = BoxFacts(
        rule_kind=f"states-{target.n}",
        log2_h=None,
        log2_y=1.0,
        t_info=None,
        dfa=DfaFacts(states=target.n, counterexamples=mode, baselines=costs),
    )
    hidden = HiddenInfo(
        rule_kind=facts.rule_kind,
        params={**target.to_table(), "counterexamples": mode},
        description="test target",
        test_seed=0,
    )
    provenance = Provenance(backend="test", tool_version="0", accepted=True, attempts=[])
    return Box(info, facts, "", hidden, provenance, digest="d" * 64, path=Path("."))


class TextAgent:
    """Plays a fixed list of text calls; keeps what it was shown."""

    def __init__(self, texts: Sequence[str]) -> None:
        self.texts = list(texts)
        self.shown: list[str] = []

    def play(self, env: DfaEnvironment) -> None:
        for text in self.texts:
            self.shown.append(env.call(text))

    def notes(self) -> list[str]:
        return [f"{len(self.shown)} answers seen"]


class FnAgent:
    """Runs a function as ``play``."""

    def __init__(self, fn: Callable[[DfaEnvironment], None]) -> None:
        self.fn = fn

    def play(self, env: DfaEnvironment) -> None:
        self.fn(env)


def run(
    agent: Any,
    box: Box | None = None,
    *,
    factor: float = 2.0,
    mq: Any = None,
    **kwargs: Any,
) -> DfaTrajectory:
    box = box or make_box(HAS_B, 5)
    target = DFA.from_table(dict(box.hidden.params))
    return run_dfa_episode(
        box,
        "scripted",
        agent,
        mq or in_process_membership(target),
        suite="unit",
        budget_factor=factor,
        seed=3,
        repetition=1,
        **kwargs,
    )


def mq(word: str) -> str:
    return json.dumps({"tool": "membership_query", "word": word})


def eq(dfa: DFA | dict[str, Any]) -> str:
    return json.dumps(
        {"tool": "equivalence_query", "dfa": dfa.to_json() if isinstance(dfa, DFA) else dfa}
    )


# -- budget ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reference", "factor", "budget"),
    [(26, 1.25, 33), (7, 1.5, 11), (10, 2.0, 20), (29, 2.0, 58), (5, 1.1, 6), (3, 0.1, 1)],
)
def test_budget_rounds_half_up(reference: int, factor: float, budget: int) -> None:
    assert episode_budget(reference, factor) == budget
    traj = run(TextAgent([]), make_box(HAS_B, reference), factor=factor)
    assert (traj.budget, traj.budget_factor, traj.reference_cost) == (budget, factor, reference)


@pytest.mark.parametrize("factor", [0, -1.0, math.nan, math.inf])
def test_bad_budget_factor_is_a_usage_error(factor: float) -> None:
    with pytest.raises(UsageError, match="budget factor"):
        episode_budget(10, factor)
    with pytest.raises(UsageError):
        run(TextAgent([]), factor=factor)


# -- a scripted agent: exact records ----------------------------------------------------


def test_scripted_text_agent_exact_records() -> None:
    agent = TextAgent(
        [
            mq(""),
            mq("ab"),
            "I think I should ask about 'b' first.",  # no JSON: free
            mq("abc"),  # foreign letter: free
            mq("ab"),  # a duplicate: counted and answered
            eq(EMPTY),
            eq({"states": ["x"], "start": "x", "accepting": [], "transitions": []}),  # incomplete
            eq(HAS_B),
            mq("b"),  # never sent: the episode is over
        ]
    )
    traj = run(agent, make_box(HAS_B, 5))  # budget 10
    assert traj.status == "completed" and traj.error is None
    assert (traj.success, traj.cost, traj.queries_used, traj.invalid_calls) == (True, 5, 5, 3)
    expected = [
        DfaCall(index=1, text=mq(""), tool="mq", valid=True, step=1, word="", member=False,
                shown='Membership query "": 0 (not in the language). 9 of 10 calls left.'),
        DfaCall(index=2, text=mq("ab"), tool="mq", valid=True, step=2, word="ab", member=True,
                shown='Membership query "ab": 1 (in the language). 8 of 10 calls left.'),
        DfaCall(index=3, text="I think I should ask about 'b' first.", tool=None, valid=False,
                shown="Invalid call (free, not counted): no JSON tool call found",
                error=INVALID_CALL),
        DfaCall(index=4, text=mq("abc"), tool="mq", valid=False,
                shown="Invalid call (free, not counted): letter(s) 'c' not in the alphabet {a, b}",
                error=INVALID_CALL),
        DfaCall(index=5, text=mq("ab"), tool="mq", valid=True, step=3, word="ab", member=True,
                shown='Membership query "ab": 1 (in the language). 7 of 10 calls left.'),
        DfaCall(index=6, text=eq(EMPTY), tool="eq", valid=True, step=4,
                hypothesis=EMPTY.to_table(), accepted=False, counterexample="b",
                shown='Equivalence query: wrong. Counterexample "b": the hidden language '
                "contains it, your DFA rejects it. 6 of 10 calls left."),
        DfaCall(index=7, text=agent.texts[6], tool="eq", valid=False,
                shown="Invalid call (free, not counted): invalid DFA: incomplete: no "
                "transition for ('x', 'a'), ('x', 'b')",
                error=INVALID_CALL),
        DfaCall(index=8, text=eq(HAS_B), tool="eq", valid=True, step=5,
                hypothesis=HAS_B.to_table(), accepted=True,
                shown="Equivalence query: correct. Your DFA accepts exactly the hidden "
                "language. The episode is over."),
    ]  # fmt: skip
    assert traj.calls == expected
    assert agent.shown == [c.shown for c in expected]
    assert [c.step for c in traj.counted()] == [1, 2, 3, 4, 5]
    assert traj.agent_notes == ["8 answers seen"]
    header = (traj.box_id, traj.suite, traj.agent, traj.seed, traj.repetition, traj.states)
    assert header == ("dfa-test-000", "unit", "scripted", 3, 1, 2)
    assert traj.target == HAS_B.to_table() and traj.target_dfa() == HAS_B
    assert traj.intro == dfa_intro(("a", "b"), 10, DEFAULT_MAX_INVALID_STREAK)
    assert traj.baselines["ttt"].total == 6 and traj.counterexamples == "minimal"


def test_counterexample_says_which_side() -> None:
    sigma_star = DFA.universal("ab")
    traj = run(TextAgent([eq(sigma_star)]))
    call = traj.calls[0]
    assert call.counterexample == ""  # the empty word: the shortest disagreement
    assert call.shown.startswith(
        'Equivalence query: wrong. Counterexample "": your DFA accepts it, '
        "the hidden language does not contain it."
    )


# -- the text protocol ----------------------------------------------------------------

SEED_DFA = {
    "states": [0, 1],
    "alphabet": ["a", "b"],
    "start_state": 0,
    "accept_states": [1],
    "transitions": [[0, "a", 0], [0, "b", 1], [1, "a", 1], [1, "b", 1]],
}


@pytest.mark.parametrize(
    "text",
    [
        '{"tool": "membership_query", "word": "ba"}',
        '{"tool_name": "membership_query", "arguments": {"word": "ba"}}',
        '{"tool_name": "is_word_in_language", "arguments": {"word": "ba"}}',
        '{"name": "membership_query", "arguments": "{\\"word\\": \\"ba\\"}"}',
        'Let me test "ba".\n```json\n{"tool": "membership_query", "word": "ba"}\n```\nDone.',
        '<TOOL_ACTION>{"tool_name": "is_word_in_language", "arguments": {"word": "ba"}}'
        "</TOOL_ACTION>",
        'the alphabet is {a, b}; so: {"tool": "MQ", "word": "ba"}',
    ],
)
def test_membership_text_forms(text: str) -> None:
    traj = run(TextAgent([text]))
    (call,) = traj.calls
    assert (call.valid, call.tool, call.word, call.member, call.text) == (
        True,
        "mq",
        "ba",
        True,
        text,
    )


@pytest.mark.parametrize(
    "text",
    [
        json.dumps({"tool": "equivalence_query", "dfa": HAS_B.to_json()}),
        json.dumps(
            {"tool_name": "evaluate_dfa_candidate", "arguments": {"candidate_dfa": SEED_DFA}}
        ),
        json.dumps({"tool": "equivalence_query", "hypothesis": json.dumps(SEED_DFA)}),
        json.dumps(
            {
                "tool": "eq",
                "dfa": {
                    "states": ["s", "t"],
                    "start": "s",
                    "accepting": ["t"],
                    "transitions": {"s": {"a": "s", "b": "t"}, "t": {"a": "t", "b": "t"}},
                },
            }
        ),
    ],
)
def test_equivalence_text_forms(text: str) -> None:
    traj = run(TextAgent([text]))
    (call,) = traj.calls
    assert (call.valid, call.tool, call.accepted, traj.success, traj.cost) == (
        True,
        "eq",
        True,
        True,
        1,
    )
    assert call.hypothesis_dfa() is not None and call.hypothesis_dfa().equivalent(HAS_B)  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("text", "tool", "reason"),
    [
        ("", None, "no JSON tool call found"),
        ('{"tool": "membership_query", "word": "a"', None, "not valid JSON"),
        ('{"word": "a"}', None, 'no "tool" field'),
        (mq("a") + " " + mq("b"), None, "exactly one tool call per message (found 2)"),
        ('{"tool": "guess", "word": "a"}', None, "unknown tool 'guess'"),
        ('{"tool": "membership_query"}', "mq", 'needs a "word"'),
        ('{"tool": "membership_query", "word": "a", "why": "x"}', "mq", "unexpected: why"),
        ('{"tool": "membership_query", "word": 12}', "mq", "the word must be a string"),
        ('{"tool": "membership_query", "word": "aXb"}', "mq", "'X' not in the alphabet"),
        (
            '{"tool": "membership_query", "tool_name": "mq", "word": "a"}',
            None,
            "name the tool once",
        ),
        ('{"tool_name": "mq", "arguments": {"word": "a"}, "word": "b"}', None, "unexpected field"),
        ('{"tool_name": "mq", "arguments": "{oops"}', None, "'arguments' is not valid JSON"),
        ('{"tool": "equivalence_query"}', "eq", 'needs a "dfa"'),
        ('{"tool": "equivalence_query", "dfa": "{"}', "eq", "invalid DFA: the hypothesis is not"),
        ('{"tool": "equivalence_query", "dfa": [1]}', "eq", "must be a JSON object"),
        (
            eq({**HAS_B.to_json(), "alphabet": ["a", "b", "c"]}),
            "eq",
            "the alphabet must be exactly {a, b}",
        ),
        (
            eq({**SEED_DFA, "start": 0}),
            "eq",
            "gives 'start' twice",
        ),
    ],
)
def test_invalid_text_calls_are_free_and_explained(
    text: str, tool: str | None, reason: str
) -> None:
    traj = run(TextAgent([text, mq("b")]))
    bad, good = traj.calls
    assert (bad.valid, bad.tool, bad.step, bad.error, bad.word) == (
        False,
        tool,
        None,
        INVALID_CALL,
        None,
    )
    assert bad.shown.startswith("Invalid call (free, not counted): ") and reason in bad.shown
    assert "\n" not in bad.shown
    assert (good.valid, good.step, traj.queries_used, traj.invalid_calls) == (True, 1, 1, 1)
    assert traj.status == "completed"


def test_intro_examples_are_valid_calls() -> None:
    box = make_box(HAS_B, 5)
    intro = dfa_intro(("a", "b"), 10, 20)
    examples = [line.strip() for line in intro.splitlines() if line.strip().startswith('{"tool"')]
    assert len(examples) == 2
    traj = run(TextAgent(examples), box)
    assert [c.valid for c in traj.calls] == [True, True] and traj.invalid_calls == 0
    needles = (
        "{a, b}",
        "10 tool calls",
        "cost nothing",
        "repeated ones included",
        "up to and including the accepted equivalence query",
        "20 invalid calls",
    )
    for needle in needles:
        assert needle in intro
    # The intro depends on the alphabet and budget only, never on the target's size.
    big = sample_minimal_dfa(rng_for(0, "intro"), 7)
    assert run(TextAgent([]), make_box(big, 5)).intro == intro


# -- the end of an episode ------------------------------------------------------------


def test_episode_ends_exactly_at_the_budget() -> None:
    sent: list[str] = []

    def spam(env: DfaEnvironment) -> None:
        i = 0
        while True:  # never stops by itself; free invalid calls in between
            sent.append(env.call(mq("a" * (i % 3))))
            sent.append(env.call("garbage"))
            i += 1

    traj = run(FnAgent(spam), make_box(HAS_B, 3), factor=1.0)  # budget 3
    assert (traj.budget, traj.queries_used, traj.success, traj.cost) == (3, 3, False, None)
    assert [c.step for c in traj.calls] == [1, None, 2, None, 3]
    assert traj.calls[-1].shown.endswith(
        "0 of 3 calls left. The budget is spent; the episode is over."
    )
    assert traj.status == "completed" and traj.invalid_calls == 2
    assert traj.agent_notes == ["evaluator: the episode ended: the budget is spent"]


def test_accepted_eq_on_the_last_unit_is_a_success() -> None:
    traj = run(TextAgent([mq("a"), mq("a"), eq(HAS_B)]), make_box(HAS_B, 3), factor=1.0)
    assert (traj.success, traj.cost, traj.queries_used) == (True, 3, 3)


def test_episode_over_cannot_be_swallowed_by_except_exception() -> None:
    attempts: list[int] = []

    def stubborn(env: DfaEnvironment) -> None:
        while True:
            attempts.append(1)
            try:
                env.equivalence(HAS_B)
            except Exception:  # a retry loop: must not keep the episode alive
                continue

    traj = run(FnAgent(stubborn))
    assert len(attempts) == 2 and traj.success and traj.cost == 1


def test_every_call_after_the_end_raises_episode_over() -> None:
    env = DfaEnvironment(HAS_B, "minimal", 2, in_process_membership(HAS_B))
    assert env.equivalence(HAS_B) is None and env.over and env.cost == 1
    for call in (
        lambda: env.call("junk"),
        lambda: env.membership("a"),
        lambda: env.equivalence(HAS_B),
    ):
        with pytest.raises(EpisodeOver, match="accepted"):
            call()
    assert len(env.calls) == 1
    env = DfaEnvironment(HAS_B, "minimal", 1, in_process_membership(HAS_B))
    assert env.membership("b") and env.remaining == 0 and env.cost is None
    with pytest.raises(EpisodeOver, match="budget is spent"):
        env.call("junk")
    with pytest.raises(UsageError, match="budget"):
        DfaEnvironment(HAS_B, "minimal", 0, in_process_membership(HAS_B))


def test_structured_calls() -> None:
    box = make_box(HAS_B, 5, mode="short_random")
    seen: dict[str, Any] = {}

    def play(env: DfaEnvironment) -> None:
        assert (env.alphabet, env.budget, env.remaining) == (("a", "b"), 10, 10)
        seen["member"] = [env.membership(w) for w in ("", "a", "ab")]
        with pytest.raises(InvalidCallError, match="not in the alphabet"):
            env.membership("abc")
        with pytest.raises(InvalidCallError, match="must be a string"):
            env.membership(3)  # type: ignore[arg-type]
        with pytest.raises(InvalidCallError, match="alphabet must be exactly"):
            env.equivalence(DFA.universal("abc"))
        with pytest.raises(InvalidCallError, match="no 'start' field"):
            env.equivalence({"states": ["q"]})
        seen["witness"] = env.equivalence(EMPTY)
        seen["remaining"] = env.remaining
        seen["final"] = env.equivalence(HAS_B)
        env.membership("b")

    traj = run(FnAgent(play), box)
    assert seen == {"member": [False, False, True], "witness": seen["witness"], "remaining": 6,
                    "final": None}  # fmt: skip
    witness = seen["witness"]
    assert HAS_B.accepts(witness) and not EMPTY.accepts(witness)
    assert 1 <= len(witness) <= 4  # short_random: lengths kmin..kmin+3 with kmin = 1
    assert (traj.success, traj.cost, traj.queries_used, traj.invalid_calls) == (True, 5, 5, 4)
    assert traj.calls[0].text == '{"tool":"membership_query","word":""}'
    assert traj.calls[4].text == '{"tool":"membership_query","word":3}'
    assert json.loads(traj.calls[5].text)["dfa"] == DFA.universal("abc").to_json()
    assert traj.agent_notes == []  # FnAgent has no notes(); the success needs no evaluator note


def test_structured_and_text_equivalence_record_the_same() -> None:
    # start = 1 and an unreachable state: recorded as submitted, not minimised
    odd = DFA.build("ab", [[2, 0], [1, 0], [1, 2]], [1], start=1)
    flipped = DFA.build("ba", [[0, 2], [0, 1], [2, 1]], [1], start=1)  # same, letters swapped
    records = []
    for play in (
        lambda env: env.equivalence(odd),
        lambda env: env.call(eq(odd)),
        lambda env: env.equivalence(flipped),
    ):
        traj = run(FnAgent(play), make_box(HAS_B, 5, mode="short_random"))
        (call,) = traj.calls
        records.append((call.hypothesis, call.counterexample, call.shown, call.valid))
    assert records[0] == records[1] == records[2]
    assert records[0][0] == {"alphabet": "ab", "delta": [[2, 0], [1, 0], [1, 2]],
                             "accepting": [1], "start": 1}  # fmt: skip


def test_invalid_streak_ends_the_episode() -> None:
    traj = run(TextAgent([mq("a")] + ["nope"] * 10), max_invalid_streak=4)
    assert [c.valid for c in traj.calls] == [True, False, False, False, False]
    assert traj.status == "completed" and not traj.success and traj.invalid_calls == 4
    assert "evaluator: the episode ended: 4 invalid calls in a row" in traj.agent_notes
    # a valid call resets the streak
    traj = run(TextAgent(["x", "x", "x", mq("a"), "x", "x", "x", mq("b")]), max_invalid_streak=4)
    assert traj.invalid_calls == 6 and traj.queries_used == 2
    assert traj.agent_notes == [
        "8 answers seen",
        "evaluator: the agent stopped with 8 call(s) left",
    ]


# -- faults and failures --------------------------------------------------------------


class _Error:
    def __init__(self, kind: str) -> None:
        self.kind = kind

    def render(self) -> str:
        return f"[black box error: {self.kind}]"


class _Result:
    def __init__(self, value: Any, error: _Error | None = None) -> None:
        self.value, self.error = value, error

    @property
    def ok(self) -> bool:
        return self.error is None


def faulty(word: str) -> _Result:
    if word == "aa":
        return _Result(None, _Error("timeout"))
    if word == "bb":
        return _Result(7)
    return _Result(int(HAS_B.accepts(word)))


def test_box_faults_cost_the_call_and_show_the_fault() -> None:
    traj = run(TextAgent([mq("aa"), mq("bb"), mq("b")]), mq=faulty)
    first, second, third = traj.calls
    assert (first.valid, first.step, first.error, first.member, first.shown) == (
        True, 1, "timeout", None, "[black box error: timeout]"
    )  # fmt: skip
    assert (second.error, second.shown) == ("invalid_output", "[black box error: invalid_output]")
    assert (third.member, third.step, traj.queries_used, traj.status) == (True, 3, 3, "completed")

    def structured(env: DfaEnvironment) -> None:
        env.membership("aa")

    traj = run(FnAgent(structured), mq=faulty)
    assert traj.status == "failed" and traj.error == "BoxFaultError: [black box error: timeout]"
    assert traj.queries_used == 1 and traj.calls[0].error == "timeout"
    with pytest.raises(BoxFaultError) as info:
        DfaEnvironment(HAS_B, "minimal", 5, faulty).membership("bb")
    assert info.value.kind == "invalid_output"


def test_agent_exception_is_recorded_not_raised() -> None:
    def crash(env: DfaEnvironment) -> None:
        env.call(mq("a"))
        raise RuntimeError("boom")

    traj = run(FnAgent(crash))
    assert (traj.status, traj.error, traj.queries_used, traj.success) == (
        "failed", "RuntimeError: boom", 1, False
    )  # fmt: skip

    def late(env: DfaEnvironment) -> None:
        env.equivalence(HAS_B)
        raise RuntimeError("after the end")

    traj = run(FnAgent(late))
    assert (traj.status, traj.error, traj.success) == ("completed", None, True)
    assert traj.agent_notes == [
        "evaluator: the agent raised after the episode ended: RuntimeError: after the end"
    ]

    class BadNotes(TextAgent):
        def notes(self) -> list[str]:
            raise ValueError("no notes")

    traj = run(BadNotes([eq(HAS_B)]))
    assert traj.agent_notes == ["agent.notes() failed: ValueError: no notes"] and traj.success


def test_failed_trajectory_of_a_box_that_cannot_start() -> None:
    box = make_box(HAS_B, 7)
    traj = failed_dfa_trajectory(
        box, "ttt", "WorkerError: nope", "infrastructure", suite="s", seed=2, repetition=0
    )
    assert (traj.status, traj.error, traj.calls, traj.success, traj.cost, traj.failure) == (
        "failed", "WorkerError: nope", [], False, None, "infrastructure"
    )  # fmt: skip
    assert (traj.budget, traj.reference_cost, traj.states, traj.agent) == (14, 7, 2, "ttt")
    assert traj.intro == dfa_intro(("a", "b"), 14, DEFAULT_MAX_INVALID_STREAK)


# -- determinism and invariants (property test) ------------------------------------------

_FRAGMENTS = [mq(""), mq("a"), mq("b"), mq("ab"), mq("bab"), mq("c"), "?", "{", eq(EMPTY),
              eq(DFA.universal("ab")), '{"tool": "eq", "dfa": {}}']  # fmt: skip


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(2, 5),
    seed=st.integers(0, 10_000),
    picks=st.lists(st.integers(0, len(_FRAGMENTS) + 1), max_size=30),
    mode=st.sampled_from(["short_random", "minimal"]),
)
def test_episode_invariants_against_brute_force(
    n: int, seed: int, picks: list[int], mode: CounterexampleMode
) -> None:
    target = sample_minimal_dfa(rng_for(seed, "episode"), n)
    texts = [_FRAGMENTS[i] if i < len(_FRAGMENTS) else eq(target) for i in picks]
    box = make_box(target, 4 + seed % 5, mode=mode)
    first = run(TextAgent(texts), box, factor=1.5)
    second = run(TextAgent(texts), box, factor=1.5)
    assert dfa_trajectory_text(first) == dfa_trajectory_text(second)

    counted = first.counted()
    assert [c.step for c in counted] == list(range(1, len(counted) + 1))
    assert first.queries_used == len(counted) <= first.budget
    assert first.invalid_calls == sum(not c.valid for c in first.calls)
    assert [c.index for c in first.calls] == list(range(1, len(first.calls) + 1))
    assert len(first.calls) <= len(texts)
    for call in first.calls:
        assert (call.step is None) == (not call.valid) == (call.error == INVALID_CALL)
        if call.valid and call.tool == "mq":
            assert call.word is not None and call.member == target.accepts(call.word)
        if call.valid and call.tool == "eq":
            hyp = call.hypothesis_dfa()
            assert hyp is not None and call.accepted == hyp.equivalent(target)
            if not call.accepted:
                assert call.counterexample is not None
                assert hyp.accepts(call.counterexample) != target.accepts(call.counterexample)
    if first.success:
        assert counted[-1].accepted and first.cost == first.queries_used
        assert first.calls[-1] is counted[-1]  # nothing after the accepted EQ
    else:
        assert first.cost is None
    if len(first.calls) < len(texts):  # cut short: accepted or out of budget
        assert first.success or first.queries_used == first.budget


# -- the agent registry ---------------------------------------------------------------


def test_dfa_agent_registry() -> None:
    assert dfa_agent_names() == ["fixed", "kv", "lstar", "random", "ttt"]
    assert check_dfa_agent_name("ttt") == "ttt"
    with pytest.raises(UnknownNameError) as info:
        check_dfa_agent_name("adaptive")
    assert str(info.value) == (
        "unknown DFA agent 'adaptive'; available: fixed, kv, lstar, random, ttt"
    )
    with pytest.raises(ValueError, match="registered twice"):
        register_dfa_agent("ttt")(lambda ctx: TextAgent([]))


def test_baseline_agents_learn_the_target_in_process() -> None:
    from evaluator.kinds.dfa.protocol import make_dfa_agent

    target = sample_minimal_dfa(rng_for(1, "baselines"), 6)
    box = make_box(target, 60, mode="short_random")
    for name in ("lstar", "kv", "ttt"):
        ctx = DfaAgentContext(("a", "b"), 120, "intro", rng_for(0, name))
        traj = run(make_dfa_agent(name, ctx), box)
        assert traj.success and traj.status == "completed", (name, traj.error)
        known: set[str | None] = set()
        for call in traj.counted():
            # The word cache: no word is asked twice, nor after an EQ witnessed its label.
            assert call.word not in known
            known.add(call.word if call.tool == "mq" else call.counterexample)
        assert traj.agent_notes[0].startswith(f"{name}: final hypothesis has 6 states")
