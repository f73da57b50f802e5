"""One episode of ORACLE's ``turn@shot`` protocol (DESIGN.md "Evaluation protocol").

Exploration: T turns; each answered query or invalid reply costs a turn. The agent
sees the box's task intro, a banner per turn and, per turn, the rendered output, the
family's parse error, or the sandbox error's ``render()``. In ``deferred`` mode the T
replies are collected blind and the answers revealed together afterwards. Replies are
hostile: one that is not text or is over the limits of :mod:`oracle_bench.bounded`
(1 MiB, valid UTF-8) is an invalid turn with the reason, before the family sees it, and
is recorded through its stand-in; such an answer is judged wrong, with the reason in its
feedback and its record.

Evaluation: K = ``family.test_items`` held-out inputs, drawn after exploration from
``family.test_inputs(rng_for(hidden.test_seed, "test"), K, exclude=queried inputs)``,
so every agent gets the same items unless it queried them. Expected outputs come from
the box itself in the sandbox. Each item gets ``shots`` attempts with right/wrong
feedback (never the ground truth); accuracy = correct items / K.

The box's code is only ever run through ``env`` (a sandbox worker); this module never
executes it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from blackboxes.families import Family
from blackboxes.store import Box
from evaluator._solutions import SolutionRunner, program_text
from evaluator.box_env import BoxEnvironment, CallResultLike
from evaluator.conversation import agent_conversation
from evaluator.failures import BoxFailureError, FailureCause, cause_of
from evaluator.kinds.turns._kind import DEFAULT_MAX_REASKS
from evaluator.kinds.turns.agents import Agent, Briefing, Observation, Question
from evaluator.kinds.turns.trajectory import (
    AttemptRecord,
    ItemRecord,
    SpecRecord,
    SubmissionRecord,
    Trajectory,
    TurnRecord,
)
from evaluator.spec import FeedbackMode, TurnShot
from evaluator.usage import agent_llm_calls, totals_of
from oracle_bench.bounded import BoundsError, check_text, recordable_text
from oracle_bench.errors import InvalidQueryError
from oracle_bench.rng import rng_for
from sandbox.trace import call_box

__all__ = [
    "DEFAULT_MAX_REASKS",
    "INVALID_QUERY",
    "INVALID_RENDER",
    "EpisodeContext",
    "briefing_text",
    "failed_trajectory",
    "run_episode",
    "turn_banner",
]

log = logging.getLogger(__name__)

JSONValue = Any

INVALID_QUERY = "invalid_query"
"""``TurnRecord.error_kind`` of a reply the family could not parse."""
INVALID_RENDER = "invalid_output"
"""``error_kind`` of a box output the family cannot render (a box fault)."""


@dataclass(frozen=True)
class EpisodeContext:
    """Everything that identifies an episode besides the box and the agent."""

    suite: str
    agent_name: str
    spec: TurnShot
    feedback: FeedbackMode
    seed: int
    repetition: int = 0
    invalid_costs_turn: bool = True
    """ORACLE's rule (the default): an unparseable reply costs its turn. False: it is
    recorded, not counted, and the turn is asked again up to ``max_reasks`` times."""
    max_reasks: int = DEFAULT_MAX_REASKS
    """With free invalid replies: re-asks per turn before an invalid reply costs the turn."""


def turn_banner(turn: int, turns: int) -> str:
    """``<Turn 3 of 10; 7 remaining>``: remaining turns after this one."""
    return f"<Turn {turn} of {turns}; {turns - turn} remaining>"


def _name(value: Any) -> str:
    """An enum's value or the string itself (ErrorKind, isolation layers)."""
    inner = getattr(value, "value", value)
    return str(inner)


def _checked(agent_reply: object, what: str) -> tuple[str, str | None]:
    """(the text to parse and record, None) for a usable reply; (its recording stand-in,
    the one-line reason) for one that is not text or is over the limits."""
    try:
        return check_text(agent_reply, what), None
    except BoundsError as exc:
        return recordable_text(agent_reply), str(exc)


@dataclass
class _Episode:
    """Mutable state while an episode runs; frozen into a Trajectory at the end."""

    box: Box
    family: Family
    agent: Agent
    ctx: EpisodeContext
    env: BoxEnvironment
    solutions: SolutionRunner | None = None
    intro: str = ""
    turns: list[TurnRecord] = field(default_factory=list)
    items: list[ItemRecord] = field(default_factory=list)
    submissions: list[SubmissionRecord] | None = None

    # -- exploration ----------------------------------------------------------
    def _parse(self, reply: object) -> tuple[str, JSONValue, str | None]:
        """(recorded text, query, None), or (recorded text, None, why it is invalid)."""
        text, problem = _checked(reply, "the reply")
        if problem is not None:
            return text, None, problem
        try:
            return text, self.family.parse_query(text), None
        except InvalidQueryError as exc:
            return text, None, str(exc)

    def _answer_turn(self, index: int, reply: object) -> tuple[TurnRecord, Observation]:
        """Parse one reply and ask the box; never raises for a bad reply or a box fault."""
        text, x, problem = self._parse(reply)
        if problem is not None:
            shown = problem
            rec = TurnRecord(
                index=index,
                text=text,
                query=None,
                valid=False,
                shown=shown,
                error_kind=INVALID_QUERY,
            )
            return rec, Observation(turn=index, query_text=text, response=shown)
        result = call_box(self.env, self.family.box_call(x))
        if result.ok:
            try:
                shown = self.family.render_output(result.value)
            except Exception as exc:
                log.info("box %s: unrenderable output %r (%s)", self.box.info.id, result.value, exc)
                rec = TurnRecord(
                    index=index,
                    text=text,
                    query=x,
                    valid=True,
                    shown=f"[black box error: {INVALID_RENDER}]",
                    error_kind=INVALID_RENDER,
                )
                return rec, Observation(turn=index, query_text=text, response=rec.shown, query=x)
            rec = TurnRecord(
                index=index, text=text, query=x, valid=True, shown=shown, output=result.value
            )
            obs = Observation(
                turn=index, query_text=text, response=shown, query=x, output=result.value, ok=True
            )
            return rec, obs
        error = result.error
        kind = _name(error.kind) if error is not None else "unknown"
        shown = error.render() if error is not None else "[black box error: unknown]"
        rec = TurnRecord(index=index, text=text, query=x, valid=True, shown=shown, error_kind=kind)
        return rec, Observation(turn=index, query_text=text, response=shown, query=x)

    def _reply(self, index: int, total: int) -> tuple[object, list[TurnRecord]]:
        """The reply for turn ``index`` (as the agent gave it); with free invalid replies,
        unparseable ones are recorded (``counted=False``), shown their error at once and
        re-asked up to ``ctx.max_reasks`` times (the parse error says nothing about the box)."""
        free: list[TurnRecord] = []
        while True:
            reply = self.agent.query(turn_banner(index, total))
            if self.ctx.invalid_costs_turn or len(free) >= self.ctx.max_reasks:
                return reply, free
            text, _, problem = self._parse(reply)
            if problem is not None:
                shown = f"{problem} (invalid reply, not counted; the turn is asked again)"
                rec = TurnRecord(
                    index=index,
                    text=text,
                    query=None,
                    valid=False,
                    shown=shown,
                    error_kind=INVALID_QUERY,
                    counted=False,
                )
                free.append(rec)
                self.agent.observe(Observation(turn=index, query_text=text, response=shown))
                continue
            return reply, free

    def explore(self) -> None:
        total = self.ctx.spec.turns
        if self.ctx.feedback == "instant":
            for i in range(1, total + 1):
                text, free = self._reply(i, total)
                self.turns.extend(free)
                rec, obs = self._answer_turn(i, text)
                self.turns.append(rec)
                self.agent.observe(obs)
            return
        # deferred: every reply first, blind; then every answer, in order.
        replies = []
        for i in range(1, total + 1):
            text, free = self._reply(i, total)
            replies.append((text, free))
        observations = []
        for i, (text, free) in enumerate(replies, start=1):
            self.turns.extend(free)
            rec, obs = self._answer_turn(i, text)
            self.turns.append(rec)
            observations.append(obs)
        for obs in observations:
            self.agent.observe(obs)

    # -- evaluation -----------------------------------------------------------
    def held_out(self) -> list[tuple[JSONValue, JSONValue]]:
        """The K held-out inputs with the box's own outputs; raises if the box fails."""
        k = self.family.test_items
        exclude = [t.query for t in self.turns if t.valid]
        rng = rng_for(self.box.hidden.test_seed, "test")

        def ask(x: JSONValue) -> JSONValue:
            result = call_box(self.env, self.family.box_call(x))
            if not result.ok:
                kind = _name(result.error.kind) if result.error is not None else "unknown"
                raise BoxFailureError(
                    f"the box failed on held-out input {self.family.format_query(x)!r} ({kind})"
                )
            return result.value

        return self.family.held_out(rng, k, exclude, ask)

    def evaluate(self) -> None:
        pairs = self.held_out()
        if self.family.answers_as_code:
            self.evaluate_program(pairs)
            return
        k, shots = len(pairs), self.ctx.spec.shots
        self.agent.begin_evaluation(
            f"Exploration is over. Evaluation starts: {k} question(s), "
            f"{shots} attempt(s) for each: answer each question as it asks."
        )
        for n, (x, expected) in enumerate(pairs, start=1):
            input_text = self.family.format_query(x)
            attempts: list[AttemptRecord] = []
            for a in range(shots):
                prompt = (
                    f"Question {n} of {k} (attempt {a + 1} of {shots}). "
                    f"Input: {input_text}\n{self.family.question_text}"
                )
                question = Question(
                    prompt=prompt, input_text=input_text, input=x, item=n, attempt=a
                )
                text, problem = _checked(self.agent.answer(question), "your answer")
                correct = problem is None and self.family.check_answer(expected, text)
                attempts.append(self._attempt(expected, text, correct))
                wrong = "Your answer is wrong." if problem is None else f"Wrong: {problem}."
                if correct:
                    message = "Your answer is correct."
                elif a + 1 < shots:
                    message = f"{wrong} Please try again."
                else:
                    message = wrong
                if n < k and (correct or a + 1 == shots):
                    message += " Let's move to the next question."
                self.agent.feedback(correct, message)
                if correct:
                    break
            self.items.append(
                ItemRecord(
                    index=n,
                    input=x,
                    input_text=input_text,
                    expected=expected,
                    attempts=attempts,
                    correct=attempts[-1].correct,
                )
            )

    def _attempt(self, expected: JSONValue, text: str, correct: bool) -> AttemptRecord:
        wrong = None if correct else (self.family.wrong_parts(expected, text) or None)
        return AttemptRecord(text=text, correct=correct, wrong=wrong)

    def evaluate_program(self, pairs: list[tuple[JSONValue, JSONValue]]) -> None:
        """Code answers: each attempt is one program, run in a fresh sandbox worker at
        every held-out item still wrong; feedback says which items it got right."""
        if self.solutions is None:
            raise RuntimeError("this box takes code answers, but no solution sandbox was given")
        k, shots = len(pairs), self.ctx.spec.shots
        entry = self.family.solution_entry
        inputs = [self.family.format_query(x) for x, _ in pairs]
        self.agent.begin_evaluation(
            f"Exploration is over. Evaluation starts: submit one Python program defining "
            f"{entry}({self.family.entry_signature}); it is run at {k} held-out input(s) "
            f"you have not seen. {shots} submission(s) allowed."
        )
        attempts: list[list[AttemptRecord]] = [[] for _ in pairs]
        done = [False] * k
        self.submissions = []
        for a in range(shots):
            prompt = (
                f"Submission {a + 1} of {shots}: reply with the whole program, defining "
                f"{entry}({self.family.entry_signature}), in one ```python fenced block."
            )
            question = Question(
                prompt=prompt, input_text="", input=None, item=0, attempt=a, program=True
            )
            reply, problem = _checked(self.agent.answer(question), "your program")
            source = None if problem is not None else program_text(reply, entry)
            open_items = [i for i in range(k) if not done[i]]
            error = problem
            if source is None and error is None:
                error = f"no program defining {entry}() in the reply"
            results: tuple[Any, ...] = ()
            if error is None and source is not None:
                calls = [self.family.box_call(pairs[i][0]).args for i in open_items]
                run = self.solutions.run(source, entry, calls)
                error, results = run.error, run.results
            right = 0
            for n, i in enumerate(open_items):
                expected = pairs[i][1]
                if error is not None:
                    attempts[i].append(AttemptRecord(text=f"[{error}]"[:300], correct=False))
                    continue
                text = self._program_output(results[n])
                correct = self.family.check_answer(expected, text)
                attempts[i].append(self._attempt(expected, text, correct))
                done[i] = correct
                right += correct
            self.submissions.append(
                SubmissionRecord(
                    attempt=a,
                    source=source or "",
                    reply=reply,
                    error=error,
                    correct=right,
                    asked=len(open_items),
                )
            )
            solved = sum(done)
            message = f"Your program is right at {solved} of {k} held-out input(s)."
            if error is not None:
                message = f"Your program did not run ({error[:200]}). " + message
            else:
                wrong = [inputs[i] for i in range(k) if not done[i]]
                if wrong:
                    message += f" Wrong at: {', '.join(wrong)}."
            if solved < k and a + 1 < shots:
                message += " Please submit an improved program."
            self.agent.feedback(solved == k, message)
            if solved == k:
                break
        for i, (x, expected) in enumerate(pairs):
            self.items.append(
                ItemRecord(
                    index=i + 1,
                    input=x,
                    input_text=inputs[i],
                    expected=expected,
                    attempts=attempts[i],
                    correct=done[i],
                )
            )

    def _program_output(self, result: CallResultLike) -> str:
        """A program's output on one input as an answer text; its error, bracketed (which
        no family reads as right), when it failed or returned what cannot be rendered."""
        if not result.ok:
            error = result.error
            return f"[{error.render() if error is not None else 'error'}]"[:300]
        try:
            return self.family.render_output(result.value)
        except Exception as exc:
            return f"[unusable output: {type(exc).__name__}]"

    # -- record ---------------------------------------------------------------
    def trajectory(self, error: str | None, failure: FailureCause | None = None) -> Trajectory:
        k = len(self.items)
        completed = error is None
        accuracy = sum(item.correct for item in self.items) / k if completed and k else None
        if completed and k == 0:
            accuracy = None
            error = "the family produced no held-out items"
            failure = "box"
            completed = False
        calls = agent_llm_calls(self.agent)
        try:
            notes = [str(n) for n in self.agent.notes()]
        except Exception as exc:
            notes = [f"agent.notes() failed: {type(exc).__name__}: {exc}"]
        try:
            layers = sorted(_name(layer) for layer in self.env.layers)
        except Exception:
            layers = []
        return Trajectory(
            **_header(self.box, self.ctx, self.intro),
            sandbox_layers=layers,
            turns=self.turns,
            items=self.items,
            submissions=self.submissions,
            accuracy=accuracy,
            queries_used=sum(t.answered for t in self.turns),
            invalid_turns=sum(not t.valid for t in self.turns),
            agent_notes=notes,
            llm_calls=calls,
            usage=totals_of(calls) if calls else None,
            conversation=agent_conversation(self.agent),
            status="completed" if completed else "failed",
            error=error,
            failure=None if completed else (failure or "agent"),
        )


def _header(box: Box, ctx: EpisodeContext, intro: str) -> dict[str, Any]:
    """The trajectory fields that describe the box and the run, not what happened."""
    info = box.info
    return {
        "box_id": info.id,
        "box_digest": box.digest,
        "suite": ctx.suite,
        "family": info.family,
        "level": info.level,
        "rule_kind": box.facts.rule_kind,
        "log2_h": box.facts.log2_h,
        "log2_y": box.facts.log2_y,
        "t_info": box.facts.t_info,
        "agent": ctx.agent_name,
        "spec": SpecRecord(turns=ctx.spec.turns, shots=ctx.spec.shots),
        "feedback": ctx.feedback,
        "seed": ctx.seed,
        "repetition": ctx.repetition,
        "intro": intro,
    }


def briefing_text(box: Box, spec: TurnShot, test_items: int) -> str:
    """The task intro followed by the budget, as ORACLE's start message."""
    return (
        f"{box.info.task_intro.rstrip()}\n\n"
        f"You have {spec.turns} interaction turn(s) to understand the black box. "
        f"Then {test_items} question(s) follow, with {spec.shots} attempt(s) each."
    )


def run_episode(
    box: Box,
    family: Family,
    agent: Agent,
    env: BoxEnvironment,
    ctx: EpisodeContext,
    solutions: SolutionRunner | None = None,
) -> Trajectory:
    """Run one episode and return its trajectory.

    A failure of the agent, the box (on a held-out item) or the family is recorded as
    ``status="failed"`` with the reason and the turns so far; it is never raised.
    ``solutions`` runs submitted programs for a family that takes code answers.
    """
    episode = _Episode(box=box, family=family, agent=agent, ctx=ctx, env=env, solutions=solutions)
    episode.intro = briefing_text(box, ctx.spec, family.test_items)
    try:
        agent.start(
            Briefing(
                intro=episode.intro,
                turns=ctx.spec.turns,
                shots=ctx.spec.shots,
                feedback=ctx.feedback,
            )
        )
        episode.explore()
        episode.evaluate()
    except Exception as exc:
        message = f"{type(exc).__name__}: {exc}"
        cause = cause_of(exc)
        log.info(
            "episode %s/%s r%d failed (%s): %s",
            box.info.id,
            ctx.agent_name,
            ctx.repetition,
            cause,
            message,
        )
        return episode.trajectory(message, cause)
    return episode.trajectory(None)


def failed_trajectory(
    box: Box, family: Family, ctx: EpisodeContext, error: str, failure: FailureCause
) -> Trajectory:
    """The record of an episode that could not start (e.g. the box's sandbox refused it)."""
    return Trajectory(
        **_header(box, ctx, briefing_text(box, ctx.spec, family.test_items)),
        sandbox_layers=[],
        turns=[],
        items=[],
        accuracy=None,
        queries_used=0,
        invalid_turns=0,
        status="failed",
        error=error,
        failure=failure,
    )
