"""One puzzle episode (IPI, DESIGN.md "Episode kinds"): K instances of one box's puzzle.

The rules are known (the box's task intro states them) and each instance hides its own
secret. For each instance the agent gets up to T probe turns (``T@shot``: an answered
probe or an invalid reply costs a turn; it may stop early by answering), then ``shot``
attempts to state the answer, with right/wrong feedback; the score is solved instances
/ K. In ``deferred`` mode an instance's probes are collected blind and their feedback
revealed together after the last one.

Secrets and noise come from the box's hidden test seed: instance k's secret is drawn
uniformly from the puzzle's answer set with ``rng_for(test_seed, "instance", k)``, and
the n-th answered probe of instance k gets the uniform ``u`` number n of
``rng_for(test_seed, "noise", k)``, so every agent meets the same secrets and the same
noise. The feedback itself comes from the box's code, in its sandbox worker
(``blackbox(secret, probe, u)``); a reply that is not one of the puzzle's feedback values
is a box fault. Answers are checked here against the trusted puzzle rules.

Replies are hostile: text over the limits of :mod:`oracle_bench.bounded` is an invalid
turn (or a wrong attempt) with the reason, and is recorded through its stand-in.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from blackboxes.puzzles import PuzzleError, PuzzleKind
from blackboxes.store import Box
from evaluator.box_env import BoxEnvironment
from evaluator.conversation import agent_conversation
from evaluator.failures import BoxFailureError, FailureCause, cause_of
from evaluator.kinds.puzzle._agents import (
    check_puzzle_agent_name,
    make_puzzle_agent,
    puzzle_agent_names,
    register_puzzle_agent,
)
from evaluator.kinds.puzzle.trajectory import (
    InstanceRecord,
    ProbeRecord,
    PuzzleAttempt,
    PuzzleTrajectory,
)
from evaluator.spec import FeedbackMode, TurnShot
from evaluator.usage import agent_llm_calls, totals_of
from oracle_bench.bounded import BoundsError, check_text, recordable_text
from oracle_bench.rng import rng_for

__all__ = [
    "Context",
    "Move",
    "PuzzleAgent",
    "PuzzleAgentContext",
    "PuzzleBriefing",
    "PuzzleEpisodeContext",
    "PuzzleFamily",
    "check_puzzle_agent_name",
    "failed_puzzle_trajectory",
    "make_puzzle_agent",
    "puzzle_agent_names",
    "puzzle_intro",
    "register_puzzle_agent",
    "run_puzzle_episode",
]

log = logging.getLogger(__name__)

Context = Literal["reset", "keep"]
"""``reset``: an LLM agent starts every instance with a fresh conversation (ORACLE);
``keep``: the conversation runs on across instances."""


class PuzzleFamily(Protocol):
    """What the protocol needs of a box's family: its puzzle, the box's parameters and
    the number of instances per episode."""

    @property
    def puzzle(self) -> PuzzleKind: ...

    @property
    def params(self) -> Mapping[str, Any]: ...

    @property
    def test_items(self) -> int: ...


@dataclass(frozen=True)
class Move:
    """An agent's reply in a probe turn: a probe, or its answer (which ends probing)."""

    action: Literal["probe", "answer"]
    text: str


@dataclass(frozen=True)
class PuzzleBriefing:
    intro: str
    instances: int
    turns: int
    shots: int
    feedback: FeedbackMode
    context: Context


class PuzzleAgent(Protocol):
    """Plays a puzzle episode. Every text it returns is hostile to the protocol."""

    def start(self, briefing: PuzzleBriefing) -> None:
        """The rules, K, T, shots and the feedback mode, once per episode."""
        ...

    def begin_instance(self, index: int, message: str) -> None:
        """A new instance (a new secret) starts; ``message`` says so."""
        ...

    def move(self, banner: str) -> Move:
        """The next probe, or the answer (no more probes for this instance)."""
        ...

    def observe(self, turn: int, probe_text: str, feedback: str) -> None:
        """What one probe turn gave: the feedback, or why the reply was invalid."""
        ...

    def answer(self, prompt: str, attempt: int) -> str:
        """State the answer (attempt 0, 1, ...)."""
        ...

    def verdict(self, correct: bool, message: str) -> None:
        """Right or wrong (never the secret)."""
        ...


@dataclass(frozen=True)
class PuzzleAgentContext:
    """What a puzzle agent is built with: the box's puzzle and parameters (public: the
    rules are told), the episode's budget, and its own random stream."""

    puzzle: PuzzleKind
    params: Mapping[str, Any]
    level: str
    rng: Any
    """A ``random.Random`` of its own."""


@dataclass(frozen=True)
class PuzzleEpisodeContext:
    """Everything that identifies a puzzle episode besides the box and the agent."""

    suite: str
    agent_name: str
    spec: TurnShot
    feedback: FeedbackMode = "instant"
    context: Context = "reset"
    seed: int = 0
    repetition: int = 0


def puzzle_intro(box: Box, spec: TurnShot, instances: int, feedback: FeedbackMode) -> str:
    """The box's rules followed by the protocol."""
    mode = (
        "The feedback on an instance's probes is revealed together after its last probe turn."
        if feedback == "deferred"
        else "The feedback on each probe is shown right after it."
    )
    return (
        f"{box.info.task_intro.rstrip()}\n\n"
        f"You will solve {instances} instance(s) of this puzzle, each with its own hidden "
        f"answer. For each instance you have up to {spec.turns} probe turn(s) (an invalid "
        f"probe also costs its turn; you may answer before they run out), then "
        f"{spec.shots} attempt(s) to state the answer, each judged right or wrong. {mode}"
    )


def _check(text: object, what: str) -> str | None:
    """Why a reply is unusable as text (not a string, over the limits), or None."""
    if not isinstance(text, str):
        return f"{what} must be text, got {type(text).__name__}"
    try:
        check_text(text, what)
    except BoundsError as exc:
        return str(exc)
    return None


@dataclass
class _Instance:
    index: int
    secret: str
    solution: str
    probes: list[ProbeRecord] = field(default_factory=list)
    attempts: list[PuzzleAttempt] = field(default_factory=list)

    def record(self) -> InstanceRecord:
        solved = bool(self.attempts) and self.attempts[-1].correct
        return InstanceRecord(
            index=self.index,
            secret=self.secret,
            solution=self.solution,
            probes=list(self.probes),
            attempts=list(self.attempts),
            solved=solved,
            probes_used=sum(p.answered for p in self.probes),
        )


@dataclass
class _Episode:
    box: Box
    family: PuzzleFamily
    agent: PuzzleAgent
    env: BoxEnvironment
    ctx: PuzzleEpisodeContext
    intro: str = ""
    done: list[_Instance] = field(default_factory=list)
    current: _Instance | None = None

    @property
    def puzzle(self) -> PuzzleKind:
        return self.family.puzzle

    @property
    def params(self) -> Mapping[str, Any]:
        return self.family.params

    def run(self) -> None:
        test_seed = self.box.hidden.test_seed
        for k in range(self.family.test_items):
            secret = self.puzzle.sample_answer(self.params, rng_for(test_seed, "instance", k))
            inst = _Instance(k, secret, self.puzzle.solution(self.params, secret))
            self.current = inst
            self.play(inst, rng_for(test_seed, "noise", k))
            self.done.append(inst)
            self.current = None

    def feedback_of(self, secret: str, probe: str, u: float) -> str:
        result = self.env.call(secret, probe, u)
        if not result.ok:
            error = result.error
            shown = error.render() if error is not None else "unknown error"
            raise BoxFailureError(f"the box failed on probe {probe!r}: {shown}")
        value = result.value
        if not isinstance(value, str) or value not in self.puzzle.feedback_values(
            self.params, probe
        ):
            raise BoxFailureError(
                f"the box answered probe {probe!r} with {recordable_text(repr(value))[:80]}, "
                "not a feedback value of its puzzle"
            )
        return value

    def play(self, inst: _Instance, noise: Any) -> None:
        spec, deferred = self.ctx.spec, self.ctx.feedback == "deferred"
        k, total = inst.index + 1, self.family.test_items
        self.agent.begin_instance(
            inst.index,
            f"Instance {k} of {total} starts: a new hidden answer. You have {spec.turns} "
            "probe turn(s).",
        )
        early: str | None = None
        blind: list[tuple[int, str, str]] = []  # deferred: (turn, text, probe)
        for turn in range(1, spec.turns + 1):
            move = self.agent.move(
                f"<Instance {k} of {total}: probe turn {turn} of {spec.turns}, "
                f"{spec.turns - turn + 1} left>"
            )
            action = getattr(move, "action", None)
            text: object = getattr(move, "text", None)
            problem = _check(text, "your reply")
            if problem is None and action == "answer":
                early = str(text)
                break
            if problem is None and action != "probe":
                problem = f"unknown move {action!r}: probe or answer"
            shown = recordable_text(text) if isinstance(text, str) else repr(text)[:200]
            if problem is None:
                try:
                    probe = self.puzzle.parse_probe(self.params, str(text))
                except PuzzleError as exc:
                    problem = str(exc)
            if problem is not None:
                inst.probes.append(
                    ProbeRecord(turn=turn, text=shown, probe=None, feedback=None, error=problem)
                )
                self.agent.observe(turn, shown, f"invalid probe: {problem}")
                continue
            if deferred:
                blind.append((turn, shown, probe))
                inst.probes.append(
                    ProbeRecord(turn=turn, text=shown, probe=probe, feedback=None, error=None)
                )
                continue
            feedback = self.feedback_of(inst.secret, probe, noise.random())
            inst.probes.append(ProbeRecord(turn=turn, text=shown, probe=probe, feedback=feedback))
            self.agent.observe(turn, shown, feedback)
        if deferred:
            answered = {}
            for turn, _, probe in blind:
                answered[turn] = self.feedback_of(inst.secret, probe, noise.random())
            inst.probes = [
                p.model_copy(update={"feedback": answered[p.turn]}) if p.turn in answered else p
                for p in inst.probes
            ]
            for turn, shown, _ in blind:
                self.agent.observe(turn, shown, answered[turn])
        self.answer(inst, early)

    def answer(self, inst: _Instance, early: str | None) -> None:
        shots = self.ctx.spec.shots
        for attempt in range(shots):
            if attempt == 0 and early is not None:
                text: object = early
            else:
                text = self.agent.answer(
                    f"Instance {inst.index + 1}: state the answer (attempt {attempt + 1} of "
                    f"{shots}).",
                    attempt,
                )
            problem = _check(text, "your answer")
            shown = recordable_text(text) if isinstance(text, str) else repr(text)[:200]
            answer: str | None = None
            if problem is None:
                try:
                    answer = self.puzzle.parse_answer(self.params, str(text))
                except PuzzleError as exc:
                    problem = str(exc)
            correct = answer is not None and answer == inst.solution
            inst.attempts.append(
                PuzzleAttempt(text=shown, answer=answer, correct=correct, error=problem)
            )
            if correct:
                message = "Your answer is right."
            elif problem is not None:
                message = f"Your answer is wrong ({problem})."
            else:
                message = "Your answer is wrong."
            left = shots - attempt - 1
            if not correct and left:
                message += f" {left} attempt(s) left."
            self.agent.verdict(correct, message)
            if correct:
                break

    def trajectory(self, error: str | None, failure: FailureCause | None = None) -> Any:
        instances = [inst.record() for inst in self.done]
        if self.current is not None and error is not None:
            partial = self.current.record()
            instances.append(partial)
        calls = agent_llm_calls(self.agent)
        notes = getattr(self.agent, "notes", None)
        completed = error is None
        return PuzzleTrajectory(
            **_header(self.box, self.family, self.ctx, self.intro),
            sandbox_layers=sorted(
                str(getattr(layer, "value", layer)) for layer in getattr(self.env, "layers", ())
            ),
            instances=instances,
            score=(sum(i.solved for i in instances) / len(instances)) if completed else None,
            invalid_turns=sum(not p.answered for i in instances for p in i.probes),
            agent_notes=list(notes()) if callable(notes) else [],
            llm_calls=calls,
            usage=totals_of(calls) if calls else None,
            conversation=agent_conversation(self.agent),
            status="completed" if completed else "failed",
            error=error,
            failure=failure,
        )


def _header(
    box: Box, family: PuzzleFamily, ctx: PuzzleEpisodeContext, intro: str
) -> dict[str, Any]:
    puzzle, params = family.puzzle, family.params
    return {
        "box_id": box.info.id,
        "box_digest": box.digest,
        "suite": ctx.suite,
        "family": box.info.family,
        "level": box.info.level,
        "rule_kind": box.facts.rule_kind,
        "params": dict(params),
        "log2_h": puzzle.log2_h(params),
        "log2_y": math.log2(puzzle.feedback_size(params)),
        "t_info": puzzle.t_info(params),
        "agent": ctx.agent_name,
        "turns": ctx.spec.turns,
        "shots": ctx.spec.shots,
        "feedback": ctx.feedback,
        "context": ctx.context,
        "seed": ctx.seed,
        "repetition": ctx.repetition,
        "intro": intro,
    }


def run_puzzle_episode(
    box: Box,
    family: PuzzleFamily,
    agent: PuzzleAgent,
    env: BoxEnvironment,
    ctx: PuzzleEpisodeContext,
) -> PuzzleTrajectory:
    """Run one puzzle episode and return its trajectory. A failure of the agent or the box
    is recorded (``status="failed"``, the instances so far kept), never raised."""
    episode = _Episode(box=box, family=family, agent=agent, env=env, ctx=ctx)
    episode.intro = puzzle_intro(box, ctx.spec, family.test_items, ctx.feedback)
    try:
        agent.start(
            PuzzleBriefing(
                intro=episode.intro,
                instances=family.test_items,
                turns=ctx.spec.turns,
                shots=ctx.spec.shots,
                feedback=ctx.feedback,
                context=ctx.context,
            )
        )
        episode.run()
    except Exception as exc:
        message = f"{type(exc).__name__}: {exc}"
        cause = cause_of(exc)
        log.info(
            "puzzle episode %s/%s failed (%s): %s", box.info.id, ctx.agent_name, cause, message
        )
        return episode.trajectory(message, cause)
    result: PuzzleTrajectory = episode.trajectory(None)
    return result


def failed_puzzle_trajectory(
    box: Box,
    family: PuzzleFamily,
    ctx: PuzzleEpisodeContext,
    error: str,
    failure: FailureCause,
) -> PuzzleTrajectory:
    """The record of a puzzle episode that could not start."""
    return PuzzleTrajectory(
        **_header(box, family, ctx, puzzle_intro(box, ctx.spec, family.test_items, ctx.feedback)),
        sandbox_layers=[],
        instances=[],
        score=None,
        invalid_turns=0,
        status="failed",
        error=error,
        failure=failure,
    )
