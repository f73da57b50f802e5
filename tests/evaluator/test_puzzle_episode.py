"""Puzzle episodes (IPI) through the protocol: baselines, early answers, invalid and hostile
replies, deferred feedback, box faults, determinism, the record's own checks, the LLM
agent (scripted provider) and a person (scripted lines).

The box here is the trusted reference behind a stand-in environment, so the protocol's
bookkeeping is checked exactly; the real sandboxed boxes are tested with the IPI family.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from pydantic import ValidationError

from blackboxes.puzzles import PuzzleKind, PuzzleSpace, get_puzzle
from evaluator.human import PlayIO
from evaluator.kinds.puzzle.human import HumanPuzzleAgent
from evaluator.kinds.puzzle.llm import LlmPuzzleAgent
from evaluator.kinds.puzzle.metrics import puzzle_information
from evaluator.kinds.puzzle.protocol import (
    Move,
    PuzzleAgentContext,
    PuzzleBriefing,
    PuzzleEpisodeContext,
    make_puzzle_agent,
    puzzle_agent_names,
    run_puzzle_episode,
)
from evaluator.kinds.puzzle.summary import summarise_puzzles
from evaluator.kinds.puzzle.trajectory import PuzzleTrajectory
from evaluator.llm_agents import LlmAgentSettings
from evaluator.spec import TurnShot
from oracle_bench.rng import rng_for

MASTERMIND = {"pegs": 4, "colours": 4}
TEN_AT_ONE = TurnShot(10, 1)


class Env:
    """The box: the puzzle's reference feedback, called like a sandbox worker."""

    layers = frozenset({"test"})

    def __init__(self, puzzle: PuzzleKind, params: dict[str, Any], reply: Any = None) -> None:
        self.puzzle, self.params, self.reply, self.calls = puzzle, params, reply, 0

    def call(self, secret: str, probe: str, u: float) -> Any:
        self.calls += 1
        value = self.puzzle.feedback(self.params, secret, probe, u)
        if self.reply is not None:
            value = self.reply(value)
        return SimpleNamespace(ok=True, value=value, error=None)


def _family(name: str, params: dict[str, Any]) -> Any:
    return SimpleNamespace(puzzle=get_puzzle(name), params=params, test_items=6)


def _box(name: str, params: dict[str, Any], seed: int = 5) -> Any:
    puzzle = get_puzzle(name)
    return SimpleNamespace(
        info=SimpleNamespace(
            id=f"{name}-box", family="IPI", level="easy", task_intro=puzzle.rules_text(params)
        ),
        facts=SimpleNamespace(rule_kind=name),
        hidden=SimpleNamespace(test_seed=seed),
        digest="d" * 64,
    )


def _params(name: str) -> dict[str, Any]:
    if name == "mastermind":
        return dict(MASTERMIND)
    return get_puzzle(name).sample_params(rng_for(3, "params", name), "easy")


def play(
    agent: Any,
    name: str = "mastermind",
    params: dict[str, Any] | None = None,
    spec: TurnShot = TEN_AT_ONE,
    feedback: str = "instant",
    reply: Any = None,
    agent_name: str = "x",
) -> PuzzleTrajectory:
    params = _params(name) if params is None else params
    ctx = PuzzleEpisodeContext(
        suite="s",
        agent_name=agent_name,
        spec=spec,
        feedback=feedback,  # type: ignore[arg-type]
    )
    env = Env(get_puzzle(name), params, reply)
    return run_puzzle_episode(_box(name, params), _family(name, params), agent, env, ctx)


def baseline(name: str, agent: str, params: dict[str, Any] | None = None) -> Any:
    params = _params(name) if params is None else params
    return make_puzzle_agent(
        agent, PuzzleAgentContext(get_puzzle(name), params, "easy", rng_for(0, "agent", agent))
    )


class Scripted:
    """A puzzle agent replaying moves; answers with ``answers`` in order."""

    def __init__(self, moves: Sequence[Any], answers: Sequence[Any] = ()) -> None:
        self.moves, self.answers = list(moves), list(answers)
        self.seen: list[tuple[int, str, str]] = []
        self.verdicts: list[bool] = []
        self.instances = 0

    def start(self, briefing: PuzzleBriefing) -> None:
        self.briefing = briefing

    def begin_instance(self, index: int, message: str) -> None:
        self.instances += 1

    def move(self, banner: str) -> Any:
        return self.moves.pop(0) if self.moves else Move("answer", "AAAA")

    def observe(self, turn: int, probe_text: str, feedback: str) -> None:
        self.seen.append((turn, probe_text, feedback))

    def answer(self, prompt: str, attempt: int) -> Any:
        return self.answers.pop(0) if self.answers else "AAAA"

    def verdict(self, correct: bool, message: str) -> None:
        self.verdicts.append(correct)


# -- baselines ------------------------------------------------------------------------


def test_the_baselines_are_registered() -> None:
    assert puzzle_agent_names() == ["adaptive", "fixed", "random"]


@pytest.mark.parametrize("name", ["mastermind", "coin_heavy", "nuts_and_bolts", "bandit"])
def test_every_baseline_completes_and_information_is_bounded(name: str) -> None:
    params = _params(name)
    log2_h = get_puzzle(name).log2_h(params)
    for agent in ("random", "fixed", "adaptive"):
        traj = play(baseline(name, agent, params), name, params, agent_name=agent)
        assert traj.status == "completed", traj.error
        assert len(traj.instances) == 6
        assert traj.score == sum(i.solved for i in traj.instances) / 6
        info = puzzle_information(traj)
        assert info is not None and info.violations == 0
        for inst, measured in zip(traj.instances, info.instances, strict=True):
            assert len(inst.probes) <= 10 and inst.probes_used == len(inst.probes)
            if not get_puzzle(name).noisy:
                assert measured.bits <= log2_h + 1e-9
            if measured.pinned_at is not None:
                assert measured.pinned_at <= inst.probes_used


def test_adaptive_solves_mastermind_44_in_at_most_five_probes() -> None:
    # Knuth: 4 pegs x 6 colours in five guesses; 4 x 4 needs fewer. The greedy space
    # search pins each secret down, then answers at once.
    traj = play(baseline("mastermind", "adaptive"), agent_name="adaptive")
    assert traj.score == 1.0
    assert all(i.probes_used <= 5 and len(i.attempts) == 1 for i in traj.instances)
    info = puzzle_information(traj)
    assert info is not None
    space = PuzzleSpace(get_puzzle("mastermind"), MASTERMIND)
    assert all(
        m.pinned_at == i.probes_used for m, i in zip(info.instances, traj.instances, strict=True)
    )
    assert math.isclose(info.bits, space.log2_count())  # every secret fully pinned


def test_every_agent_meets_the_same_secrets_and_the_run_is_deterministic() -> None:
    first = play(baseline("mastermind", "random"), agent_name="random")
    again = play(baseline("mastermind", "random"), agent_name="random")
    other = play(baseline("mastermind", "adaptive"), agent_name="adaptive")
    assert first.model_dump_json() == again.model_dump_json()
    assert [i.secret for i in first.instances] == [i.secret for i in other.instances]
    assert len({i.secret for i in first.instances}) > 1


# -- the protocol ---------------------------------------------------------------------


def test_invalid_and_hostile_replies_cost_their_turn_and_say_why() -> None:
    moves = [
        Move("probe", "not a code"),
        Move("probe", "x" * 2_000_000),
        SimpleNamespace(action="probe", text=12),
        SimpleNamespace(action="shout", text="ABCD"),
        Move("probe", "abcd"),
    ]
    agent = Scripted(moves)
    traj = play(agent, spec=TurnShot(5, 1))
    first = traj.instances[0]
    assert [p.probe for p in first.probes] == [None, None, None, None, "ABCD"]
    assert first.probes_used == 1 and traj.invalid_turns == 4
    errors = [p.error for p in first.probes[:4]]
    assert all(errors) and "unknown move 'shout'" in str(errors[3])
    assert len(first.probes[1].text) < 2_000  # recorded through its stand-in
    assert [s[2].startswith("invalid probe:") for s in agent.seen[:4]] == [True] * 4


def test_an_early_answer_ends_the_probing_and_counts_as_the_first_attempt() -> None:
    puzzle = get_puzzle("mastermind")
    secret = puzzle.sample_answer(MASTERMIND, rng_for(5, "instance", 0))
    agent = Scripted([Move("probe", "ABCD"), Move("answer", secret.lower())], ["AAAA"])
    traj = play(agent, spec=TurnShot(8, 2))
    first = traj.instances[0]
    assert first.probes_used == 1 and first.solved and len(first.attempts) == 1
    assert first.attempts[0].answer == secret
    # Every other instance: the scripted default answer, twice (2 shots), never probed.
    assert all(len(i.attempts) <= 2 and i.probes_used == 0 for i in traj.instances[1:])


def test_deferred_feedback_comes_after_the_last_probe_turn_with_the_same_noise() -> None:
    name = "coin_lying"
    params = _params(name)
    instant = play(baseline(name, "fixed", params), name, params, agent_name="fixed")
    agent = baseline(name, "fixed", params)
    deferred = play(agent, name, params, feedback="deferred", agent_name="fixed")
    assert deferred.status == "completed"
    # The fixed plan ignores feedback: same probes, and the same u per probe: same feedback.
    for a, b in zip(instant.instances, deferred.instances, strict=True):
        assert [(p.probe, p.feedback) for p in a.probes] == [
            (p.probe, p.feedback) for p in b.probes
        ]


def test_a_box_that_answers_outside_the_feedback_alphabet_fails_the_episode_as_a_box() -> None:
    traj = play(baseline("mastermind", "adaptive"), reply=lambda fb: "B9 W9")
    assert traj.status == "failed" and traj.failure == "box" and traj.score is None
    assert "not a feedback value" in str(traj.error)
    traj = play(baseline("mastermind", "adaptive"), reply=lambda fb: {"fb": fb})
    assert traj.failure == "box"


def test_an_agent_that_raises_fails_the_episode_through_the_agent() -> None:
    class Broken(Scripted):
        def move(self, banner: str) -> Any:
            raise RuntimeError("boom")

    traj = play(Broken([]))
    assert traj.status == "failed" and traj.failure == "agent" and "boom" in str(traj.error)


def test_a_record_that_contradicts_itself_is_refused() -> None:
    traj = play(baseline("mastermind", "adaptive"), agent_name="adaptive")
    data = json.loads(traj.model_dump_json())
    for mutate in (
        lambda d: d.update(score=0.5),
        lambda d: d.update(invalid_turns=3),
        lambda d: d["instances"][0].update(probes_used=99),
        lambda d: d["instances"][0].update(solved=not d["instances"][0]["solved"]),
        lambda d: d.update(turns=1),
    ):
        bad = json.loads(json.dumps(data))
        mutate(bad)
        with pytest.raises(ValidationError):
            PuzzleTrajectory.model_validate(bad)


def test_the_summary_orders_the_baselines_and_pairs_efficiency_with_adaptive() -> None:
    trajs = [
        play(baseline("mastermind", a), agent_name=a, spec=TurnShot(3, 1))
        for a in ("random", "fixed", "adaptive")
    ]
    summary = summarise_puzzles(
        trajs, suite="s", spec="3@1", feedback="instant", context="reset", seed=0, repeats=1
    )
    by_agent = {g.agent: g for g in summary.groups}
    assert by_agent["adaptive"].efficiency_mean == 1.0
    assert by_agent["adaptive"].t_info_mean == 3.0
    assert [p.rule_kind for p in summary.puzzles] == ["mastermind"] * 3
    scores = [by_agent[a].score_mean for a in ("random", "fixed", "adaptive")]
    assert scores == sorted(scores)  # type: ignore[type-var]


# -- an LLM and a person --------------------------------------------------------------


def _script(path: Path, lines: list[dict[str, Any]]) -> str:
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return f"scripted/{path}"


def _call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def test_an_llm_replaying_the_adaptive_moves_gets_the_adaptive_record(tmp_path: Path) -> None:
    adaptive = play(baseline("mastermind", "adaptive"), agent_name="adaptive")
    lines: list[dict[str, Any]] = [{"text": "thinking, no call"}]  # one re-ask first
    for inst in adaptive.instances:
        lines += [_call("probe", probe=p.probe) for p in inst.probes]
        lines += [_call("answer", answer=inst.solution)]
    name = _script(tmp_path / "pz.jsonl", lines)
    ctx = PuzzleAgentContext(get_puzzle("mastermind"), MASTERMIND, "easy", rng_for(0, "x"))
    agent = LlmPuzzleAgent(name, ctx, LlmAgentSettings())
    traj = play(agent, agent_name=name)
    assert traj.status == "completed", traj.error
    assert traj.score == adaptive.score == 1.0
    assert [[p.probe for p in i.probes] for i in traj.instances] == [
        [p.probe for p in i.probes] for i in adaptive.instances
    ]
    assert traj.usage is not None and traj.usage.calls == len(lines)
    assert any("asked again" in n for n in traj.agent_notes)


def test_text_protocol_markers_and_the_last_one_counts(tmp_path: Path) -> None:
    lines = [
        {"text": "PROBE: AAAA\nno wait\nPROBE: ABCD"},
        {"text": "I know it.\nANSWER: DCBA"},
    ] + [{"text": "ANSWER: AAAA"}] * 5
    name = _script(tmp_path / "text.jsonl", lines)
    ctx = PuzzleAgentContext(get_puzzle("mastermind"), MASTERMIND, "easy", rng_for(0, "x"))
    agent = LlmPuzzleAgent(name, ctx, LlmAgentSettings(protocol="text"))
    traj = play(agent, agent_name=name)
    assert traj.status == "completed", traj.error
    first = traj.instances[0]
    assert [p.probe for p in first.probes] == ["ABCD"]
    assert first.attempts[0].answer == "DCBA"


def test_a_person_probes_answers_early_and_uses_the_free_commands() -> None:
    puzzle = get_puzzle("mastermind")
    secret = puzzle.sample_answer(MASTERMIND, rng_for(5, "instance", 0))
    lines = iter([":help", "abcd", ":history", f"! {secret}", *["! AAAA"] * 5])
    shown: list[str] = []

    def read(prompt: str) -> str:
        try:
            return next(lines)
        except StopIteration:
            raise EOFError from None

    agent = HumanPuzzleAgent(PlayIO(read, shown.append))
    traj = play(agent)
    assert traj.status == "completed"
    first = traj.instances[0]
    assert [p.probe for p in first.probes] == ["ABCD"] and first.solved
    assert any("ANSWER" in s for s in shown)  # :help
    assert any(s.startswith("Turn 1: abcd ->") for s in "\n".join(shown).splitlines())
