"""The LLM agent of puzzle episodes (:class:`LlmPuzzleAgent`).

System prompt: templates/prompts/player/puzzle.j2. Tools protocol: ``probe``
({"probe": str}) and ``answer`` ({"answer": str}), both offered while probing (answering
ends the instance's probing), only ``answer`` (and a closed ``probe``) while answering.
Text protocol: a reply ends with a line ``PROBE: <probe>`` or ``ANSWER: <answer>``.
A reply without a usable call is asked again up to ``max_reasks`` times, then its raw
text goes to the protocol, which records an invalid probe (or a wrong answer). With
context ``reset`` (ORACLE's) every instance starts a fresh conversation: the system
prompt, the rules and that instance's first banner. See :mod:`evaluator.llm_agents`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import templates
from evaluator._llm_text import (
    arguments_text,
    clip,
    marker_value,
    string_argument,
    unusable_arguments,
)
from evaluator.kinds.puzzle.protocol import Move, PuzzleAgentContext, PuzzleBriefing
from evaluator.llm_agents import (
    IGNORED_CALL,
    Conversation,
    LlmAgentBase,
    LlmAgentSettings,
    assistant_message,
    deliver_owed,
    object_schema,
    reply_problem,
)
from evaluator.usage import CallPhase
from providers import Reply, ToolCall, ToolSpec

__all__ = ["ANSWER_MARKER", "PROBE_MARKER", "LlmPuzzleAgent", "puzzle_tools"]

PROBE_MARKER = "PROBE"
ANSWER_MARKER = "ANSWER"
Action = Literal["probe", "answer"]
_KEYS: dict[Action, str] = {"probe": "probe", "answer": "answer"}


def puzzle_tools() -> tuple[ToolSpec, ToolSpec]:
    """``(probe, answer)``."""
    probe = ToolSpec(
        name="probe",
        description="Send one probe to the puzzle; the result is its feedback.",
        parameters=object_schema(
            {"probe": {"type": "string", "description": "the probe, as the rules describe it"}}
        ),
    )
    answer = ToolSpec(
        name="answer",
        description="State the hidden answer of the current instance (ends its probing).",
        parameters=object_schema(
            {"answer": {"type": "string", "description": "the answer, as the rules describe it"}}
        ),
    )
    return probe, answer


_CLOSED_PROBE = ToolSpec(
    name="probe",
    description="Probing is over for this instance: this tool no longer reaches it. Use answer.",
    parameters=object_schema({"probe": {"type": "string"}}),
)


def system_text(protocol: str) -> str:
    return templates.render("prompts/player/puzzle.j2", protocol=protocol).strip()


class LlmPuzzleAgent(LlmAgentBase):
    """An LLM playing puzzle episodes (:class:`evaluator.kinds.puzzle.protocol.PuzzleAgent`)."""

    def __init__(self, name: str, ctx: PuzzleAgentContext, settings: LlmAgentSettings) -> None:
        super().__init__(name, settings)
        self.ctx = ctx
        self._tools = puzzle_tools()
        self._intro = ""
        self._reset_each = True
        self._chat: Conversation | None = None
        self._pending: list[str] = []
        self._open: ToolCall | None = None
        self._open_note: str | None = None
        self._ignored: list[tuple[str, str]] = []
        self._turn = 0
        self._instance = 0

    # -- the protocol --------------------------------------------------------
    def start(self, briefing: PuzzleBriefing) -> None:
        self._intro = briefing.intro
        self._reset_each = briefing.context == "reset"
        self._chat = None

    def begin_instance(self, index: int, message: str) -> None:
        self._instance = index + 1
        if self._chat is None or self._reset_each:
            self._chat = Conversation(
                system_text(self.settings.protocol), self._intro, self.settings.history
            )
            self._open, self._open_note, self._ignored, self._pending = None, None, [], []
        self._pending.append(message)

    def move(self, banner: str) -> Move:
        self._turn += 1
        action, text = self._act(banner, ("probe", "answer"), "explore")
        return Move(action, text)

    def observe(self, turn: int, probe_text: str, feedback: str) -> None:
        self._pending.append(f"Probe turn {turn}: {clip(probe_text)} -> {feedback}")

    def answer(self, prompt: str, attempt: int) -> str:
        _, text = self._act(prompt, ("answer",), "answer")
        return text

    def verdict(self, correct: bool, message: str) -> None:
        self._pending.append(message)

    # -- internals -----------------------------------------------------------
    @property
    def chat(self) -> Conversation:
        if self._chat is None:
            raise RuntimeError("LlmPuzzleAgent.begin_instance() was not called")
        return self._chat

    def _deliver(self, text: str) -> None:
        """The results owed to the last reply (tool results first), then ``text``."""
        deliver_owed(
            self.chat,
            text,
            pending=self._pending,
            open_call=self._open,
            open_note=self._open_note,
            ignored=self._ignored,
            placeholder="recorded; its feedback comes after the last probe turn",
        )
        self._pending, self._open, self._open_note, self._ignored = [], None, None, []

    def _act(
        self, prompt: str, allowed: tuple[Action, ...], phase: CallPhase
    ) -> tuple[Action, str]:
        self._deliver(prompt)
        tools: Sequence[ToolSpec] = ()
        if self.settings.protocol == "tools":
            tools = list(self._tools) if "probe" in allowed else [self._tools[1], _CLOSED_PROBE]
        where = f"instance {self._instance} turn {self._turn}"
        asked = 0
        while True:
            reply = self._complete(self.chat.window(), tools, phase, self._turn)
            found = self._read(reply, allowed, where)
            if found is not None:
                return found
            if asked >= self.settings.max_reasks:
                self._notes.append(f"{where}: no usable call after {asked} re-ask(s)")
                return allowed[0], reply.text or arguments_text(
                    reply.tool_calls[0].arguments if reply.tool_calls else {}
                )
            asked += 1
            self._notes.append(f"{where}: no usable call; asked again")
            phase = "reask"
            self._deliver(self._correction(allowed))

    def _correction(self, allowed: tuple[Action, ...]) -> str:
        if self.settings.protocol == "tools":
            names = " or ".join(f'{a} with {{"{_KEYS[a]}": "..."}}' for a in allowed)
            return f"Your reply made no usable call. Call the tool {names}: exactly one call."
        lines = " or ".join(f"{a.upper()}: <{a}>" for a in allowed)
        return f"Your reply has no usable line. End your reply with one line {lines}."

    def _read(
        self, reply: Reply, allowed: tuple[Action, ...], where: str
    ) -> tuple[Action, str] | None:
        self.chat.add(assistant_message(reply))
        problem = reply_problem(reply)
        if problem is not None:
            self._ignored += [(c.id, f"ignored: {problem}") for c in reply.tool_calls]
            self._notes.append(f"{where}: {problem}")
            return None
        if self.settings.protocol == "text":
            found: list[tuple[int, Action, str]] = []
            for name in allowed:
                value = marker_value(reply.text, name.upper())
                if value is not None:
                    # The last marker line of the reply counts.
                    found.append((reply.text.rfind(value), name, value))
            if not found:
                return None
            _, last, text = max(found)
            return last, text
        primary = next((c for c in reply.tool_calls if c.name in allowed), None)
        for call in reply.tool_calls:
            if call is not primary:
                self._ignored.append((call.id, IGNORED_CALL))
        if primary is None:
            return None
        action: Action = "probe" if primary.name == "probe" else "answer"
        key = _KEYS[action]
        problem = unusable_arguments(primary.arguments)
        argument = string_argument(primary.arguments, key) if problem is None else None
        self._open = primary
        if argument is None:
            raw = arguments_text(primary.arguments)
            self._open_note = (
                f'Invalid call: the tool {action} takes {{"{key}": "<text>"}}, got '
                f"{clip(raw, 200)}{'' if problem is None else f' ({problem})'}."
            )
            return None
        return action, argument[0]
