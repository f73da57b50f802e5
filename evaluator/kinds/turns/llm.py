"""The LLM agent of turn@shot episodes (:class:`LlmAgent`).

Tools protocol: ``query`` ({"input": str}) while exploring and ``answer`` ({"output": str})
while evaluated. Text protocol: a reply ends with a line ``QUERY: <input>`` or
``ANSWER: <output>`` (the last such line counts). A reply without a usable call is asked
again with a short correction, up to ``max_reasks`` times (each a call recorded with
phase ``reask``, and a note); then the raw reply goes to the protocol, which records an
invalid turn. See :mod:`evaluator.llm_agents` for what every LLM agent shares.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from evaluator._llm_text import (
    arguments_text,
    clip,
    marker_value,
    rejected_text,
    string_argument,
    unusable_arguments,
)
from evaluator._solutions import program_text
from evaluator.kinds.turns.agents import AgentContext, Briefing, Observation, Question
from evaluator.llm_agents import (
    IGNORED_CALL,
    Conversation,
    LlmAgentBase,
    LlmAgentSettings,
    assistant_message,
    object_schema,
    reply_problem,
    system_prompt,
)
from evaluator.usage import CallPhase
from providers import ChatMessage, Reply, ToolCall, ToolSpec

__all__ = ["ANSWER_MARKER", "DEFERRED_PLACEHOLDER", "QUERY_MARKER", "LlmAgent", "turnshot_tools"]

DEFERRED_PLACEHOLDER = "recorded; the answers are revealed after your last turn"
"""The tool result of a query in deferred feedback mode."""

QUERY_MARKER = "QUERY"
ANSWER_MARKER = "ANSWER"
_BANNER_TURN = re.compile(r"<Turn (\d+) of \d+")


def turnshot_tools() -> tuple[ToolSpec, ToolSpec]:
    """``(query, answer)``: the exploration tool and the evaluation tool."""
    query = ToolSpec(
        name="query",
        description="Send one input to the black box; the result is its output for it.",
        parameters=object_schema(
            {"input": {"type": "string", "description": "the input, as the task describes it"}}
        ),
    )
    answer = ToolSpec(
        name="answer",
        description="Answer the current question with what the black box outputs.",
        parameters=object_schema(
            {"output": {"type": "string", "description": "the black box's output"}}
        ),
    )
    return query, answer


_CLOSED_QUERY = ToolSpec(
    name="query",
    description="Exploration is over: this tool no longer reaches the black box. Use answer.",
    parameters=object_schema(
        {"input": {"type": "string", "description": "the input, as the task describes it"}}
    ),
)


@dataclass
class _Open:
    """The usable tool call of the last reply, waiting for its result."""

    call: ToolCall
    bad_arguments: str | None = None
    """Why the arguments were unusable (shown before the result), or None."""


class LlmAgent(LlmAgentBase):
    """An LLM playing turn@shot episodes (:class:`evaluator.kinds.turns.agents.Agent`)."""

    def __init__(self, name: str, ctx: AgentContext, settings: LlmAgentSettings) -> None:
        super().__init__(name, settings)
        self.ctx = ctx
        self._tools = turnshot_tools()
        self._reset()

    def _reset(self) -> None:
        """The state of one episode (``start`` begins a new one)."""
        self._conversation: Conversation | None = None
        self._deferred = False
        self._evaluating = False
        self._turn = 0
        # What the next call must first deliver for the last reply.
        self._open: _Open | None = None
        self._ignored: list[tuple[str, str]] = []
        """(tool call id, result) for the other calls of the last reply."""
        self._observations: list[Observation] = []
        self._feedback: str | None = None
        self._pending: list[str] = []
        self._sent: Literal["query", "answer"] | None = None
        """What the last reply gave the protocol (None after a reply without a call)."""
        self._unusable: str | None = None
        """Why the last reply was unusable as a whole (shown in the correction), or None."""
        self._program = False
        """The current answer is a program (a code-answer box): read from a fenced block."""

    # -- Agent -----------------------------------------------------------------
    def start(self, briefing: Briefing) -> None:
        self._reset()
        self._deferred = briefing.feedback == "deferred"
        mode = (
            "The results of your queries are revealed together after your last exploration "
            "turn: you choose every query before seeing any result."
            if self._deferred
            else "The result of each query is shown right after it."
        )
        intro = f"{briefing.intro.rstrip()}\n\n{mode}"
        self._conversation = Conversation(
            system_prompt("turnshot", self.settings.protocol), intro, self.settings.history
        )

    def query(self, banner: str) -> str:
        found = _BANNER_TURN.search(banner)
        self._turn = int(found.group(1)) if found else self._turn + 1
        return self._act(banner, "query", self._turn, f"turn {self._turn}")

    def observe(self, observation: Observation) -> None:
        self._observations.append(observation)

    def begin_evaluation(self, message: str) -> None:
        self._evaluating = True
        self._pending.append(message)

    def answer(self, question: Question) -> str:
        self._program = question.program
        where = (
            f"submission {question.attempt + 1}"
            if question.program
            else f"item {question.item} attempt {question.attempt + 1}"
        )
        return self._act(question.prompt, "answer", question.item, where)

    def feedback(self, correct: bool, message: str) -> None:
        self._feedback = message

    # -- internals -------------------------------------------------------------
    @property
    def _chat(self) -> Conversation:
        if self._conversation is None:
            raise RuntimeError("LlmAgent.start() was not called")
        return self._conversation

    def _result_text(self) -> str | None:
        """What the episode said about the last reply (None: nothing yet)."""
        if self._feedback is not None:
            text, self._feedback = self._feedback, None
            return text
        if self._observations and not (self._deferred and self._evaluating):
            text = "\n".join(o.response for o in self._observations)
            self._observations = []
            return text
        if self._deferred and self._sent == "query":
            return DEFERRED_PLACEHOLDER
        return None

    def _deliver(self, new_text: str) -> None:
        """Append the results owed to the last reply, then the next user message."""
        chat = self._chat
        lines: list[str] = []
        result = self._result_text()
        if self._open is not None:
            bad = self._open.bad_arguments
            if bad is not None and result is None:
                content = bad  # re-asked: nothing reached the box
            else:
                content = result if result is not None else DEFERRED_PLACEHOLDER
                if bad is not None:
                    content = f"{bad}\n{content}"
            chat.add(ChatMessage(role="tool", content=content, tool_call_id=self._open.call.id))
        elif result is not None:
            lines.append(result)
        for call_id, text in self._ignored:
            chat.add(ChatMessage(role="tool", content=text, tool_call_id=call_id))
        self._open, self._ignored, self._sent = None, [], None
        if self._observations:  # deferred mode: every result at once, after the last turn
            lines.append(
                f"The results of your {len(self._observations)} queries, in order:\n"
                + "\n".join(
                    f"Turn {o.turn}: {clip(o.query_text)} -> {o.response}"
                    for o in self._observations
                )
            )
            self._observations = []
        lines.extend(self._pending)
        self._pending = []
        lines.append(new_text)
        chat.add(ChatMessage(role="user", content="\n\n".join(x for x in lines if x)))

    def _act(self, prompt: str, kind: Literal["query", "answer"], turn: int, where: str) -> str:
        """One exploration turn or one answer: call, re-ask without a usable call, return."""
        self._deliver(prompt)
        tools: Sequence[ToolSpec] = ()
        if self.settings.protocol == "tools":
            # Answers also list a closed `query` tool: the history holds query calls, and an
            # API may refuse tool_use blocks naming a tool the request does not define.
            tools = [self._tools[0]] if kind == "query" else [self._tools[1], _CLOSED_QUERY]
        phase: CallPhase = "explore" if kind == "query" else "answer"
        asked = 0
        while True:
            reply = self._complete(self._chat.window(), tools, phase, turn)
            found = self._read(reply, kind, where)
            if found is None and asked >= self.settings.max_reasks:
                self._notes.append(
                    f"{where}: no {self._expected(kind)} after {asked} re-ask(s); "
                    "the raw reply was sent"
                )
                found = self._fallback(reply, kind)
            if found is not None:
                self._sent = kind
                return found
            asked += 1
            self._notes.append(f"{where}: no {self._expected(kind)}; asked again")
            phase = "reask"
            correction = self._correction(kind)
            if self._unusable is not None:
                correction = f"{self._unusable[0].upper()}{self._unusable[1:]}. {correction}"
            self._deliver(correction)

    def _expected(self, kind: Literal["query", "answer"]) -> str:
        if self.settings.protocol == "tools":
            return f"{kind} call"
        return f"{QUERY_MARKER if kind == 'query' else ANSWER_MARKER} line"

    def _correction(self, kind: Literal["query", "answer"]) -> str:
        if self.settings.protocol == "tools":
            argument = '{"input": "..."}' if kind == "query" else '{"output": "..."}'
            return (
                f"Your reply made no {kind} call. Call the tool {kind} with {argument}: "
                "exactly one tool call."
            )
        if kind == "answer" and self._program:
            entry = self.ctx.family.solution_entry
            return (
                f"Your reply has no program. Reply with the whole program defining {entry}() "
                "in one ```python fenced block."
            )
        marker = QUERY_MARKER if kind == "query" else ANSWER_MARKER
        what = "input" if kind == "query" else "output"
        return f"Your reply has no {marker} line. End your reply with one line {marker}: <{what}>"

    def _read(self, reply: Reply, kind: Literal["query", "answer"], where: str) -> str | None:
        """The text for the protocol if the reply holds a usable call; records the reply."""
        chat = self._chat
        chat.add(assistant_message(reply))
        self._unusable = reply_problem(reply)
        if self._unusable is not None:
            for call in reply.tool_calls:
                self._ignored.append((call.id, f"ignored: {self._unusable}"))
            self._notes.append(f"{where}: {self._unusable}")
            return None
        if self.settings.protocol == "text":
            if kind == "answer" and self._program:
                return program_text(reply.text, self.ctx.family.solution_entry)
            return marker_value(reply.text, QUERY_MARKER if kind == "query" else ANSWER_MARKER)
        primary = next((c for c in reply.tool_calls if c.name == kind), None)
        for call in reply.tool_calls:
            if call is primary:
                continue
            text = (
                IGNORED_CALL
                if primary is not None
                else f"ignored: there is no tool {call.name!r} now; call the tool {kind}"
            )
            self._ignored.append((call.id, text))
        if len(reply.tool_calls) > 1 and primary is not None:
            self._notes.append(f"{where}: {len(reply.tool_calls) - 1} extra tool call(s) ignored")
        if primary is None:
            return None
        key = "input" if kind == "query" else "output"
        problem = unusable_arguments(primary.arguments)
        found = string_argument(primary.arguments, key) if problem is None else None
        if found is not None:
            value, used = found
            if used != key:
                self._notes.append(f"{where}: took the argument {clip(used, 60)!r} as {key!r}")
            self._open = _Open(primary)
            return value
        raw = arguments_text(primary.arguments)
        self._notes.append(f"{where}: {kind} call with unusable arguments {clip(raw, 120)}")
        why = "" if problem is None else f" ({problem})"
        self._open = _Open(
            primary,
            f'Invalid call: the tool {kind} takes {{"{key}": "<text>"}}, got {clip(raw, 200)}'
            f"{why}.",
        )
        return None  # asked again, like a reply without a call

    def _fallback(self, reply: Reply, kind: Literal["query", "answer"]) -> str:
        """The raw reply after the last re-ask: judged as an answer (its text, else its
        call's arguments); as a query, a text the family rejects, so the protocol records
        the invalid turn it is. An unusable reply (too long) goes as it is: the protocol
        refuses it with the reason."""
        if self._unusable is not None:
            return reply.text
        if kind == "answer":
            if reply.text.strip() or not reply.tool_calls:
                return reply.text
            return arguments_text(reply.tool_calls[0].arguments)
        return rejected_text(self.ctx.family.parse_query, [reply.text])
