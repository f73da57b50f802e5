"""The LLM agent of game episodes (:class:`LlmGameAgent`).

System prompt: templates/prompts/player/game.j2. Tools protocol: ``play``
({"action": str}) every round; text protocol: a reply ends with ``ACTION: <action>``.
A reply without a usable call is asked again up to ``max_reasks`` times, then its raw
text goes to the protocol (which plays the game's stand-in action and says so). With
context ``reset`` every setting starts a fresh conversation. See
:mod:`evaluator.llm_agents`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import templates
from evaluator._llm_text import (
    arguments_text,
    clip,
    marker_value,
    string_argument,
    unusable_arguments,
)
from evaluator.kinds.game.protocol import GameAgentContext, GameBriefing, Phase, RoundResult
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

__all__ = ["ACTION_MARKER", "LlmGameAgent", "play_tool"]

ACTION_MARKER = "ACTION"


def play_tool() -> ToolSpec:
    return ToolSpec(
        name="play",
        description="Play one action this round; the result is the opponent's action and your "
        "points.",
        parameters=object_schema(
            {"action": {"type": "string", "description": "one of the round's legal actions"}}
        ),
    )


class LlmGameAgent(LlmAgentBase):
    """An LLM playing game episodes (:class:`evaluator.kinds.game.protocol.GameAgent`)."""

    def __init__(self, name: str, ctx: GameAgentContext, settings: LlmAgentSettings) -> None:
        super().__init__(name, settings)
        self.ctx = ctx
        self._tool = play_tool()
        self._intro = ""
        self._reset_each = True
        self._chat: Conversation | None = None
        self._pending: list[str] = []
        self._open: ToolCall | None = None
        self._open_note: str | None = None
        self._ignored: list[tuple[str, str]] = []
        self._where = ""
        self._round = 0

    def start(self, briefing: GameBriefing) -> None:
        self._intro = briefing.intro
        self._reset_each = briefing.context == "reset"
        self._chat = None

    def begin_setting(self, index: int, settings: Mapping[str, int], message: str) -> None:
        if self._chat is None or self._reset_each:
            system = templates.render("prompts/player/game.j2", protocol=self.settings.protocol)
            self._chat = Conversation(system.strip(), self._intro, self.settings.history)
            self._open, self._open_note, self._ignored, self._pending = None, None, [], []
        self._where = f"setting {index + 1}"
        self._pending.append(message)

    def begin_game(self, phase: Phase, number: int, message: str) -> None:
        self._pending.append(message)

    def act(self, banner: str, legal: tuple[str, ...]) -> str:
        self._round += 1
        prompt = f"{banner}\nLegal actions: {', '.join(legal)}."
        self._deliver(prompt)
        tools: Sequence[ToolSpec] = [self._tool] if self.settings.protocol == "tools" else ()
        phase: CallPhase = "explore"
        asked = 0
        while True:
            reply = self._complete(self.chat.window(), tools, phase, self._round)
            found = self._read(reply)
            if found is not None:
                return found
            if asked >= self.settings.max_reasks:
                self._notes.append(f"{self._where}: no usable action after {asked} re-ask(s)")
                return reply.text
            asked += 1
            self._notes.append(f"{self._where}: no usable action; asked again")
            phase = "reask"
            self._deliver(
                'Your reply made no usable call. Call the tool play with {"action": "..."}.'
                if self.settings.protocol == "tools"
                else f"Your reply has no usable line. End it with one line {ACTION_MARKER}: <act>."
            )

    def observe(self, result: RoundResult) -> None:
        line = f"Round {result.round}: you {result.action}, opponent {result.opponent}, "
        line += f"{result.points} point(s)."
        if result.note is not None:
            line = f"{result.note}. {line}"
        self._pending.append(line)

    def end_game(self, score: int, message: str) -> None:
        self._pending.append(message)

    @property
    def chat(self) -> Conversation:
        if self._chat is None:
            raise RuntimeError("LlmGameAgent.begin_setting() was not called")
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
            placeholder="played",
        )
        self._pending, self._open, self._open_note, self._ignored = [], None, None, []

    def _read(self, reply: Reply) -> str | None:
        self.chat.add(assistant_message(reply))
        problem = reply_problem(reply)
        if problem is not None:
            self._ignored += [(c.id, f"ignored: {problem}") for c in reply.tool_calls]
            self._notes.append(f"{self._where}: {problem}")
            return None
        if self.settings.protocol == "text":
            return marker_value(reply.text, ACTION_MARKER)
        primary = next((c for c in reply.tool_calls if c.name == "play"), None)
        for call in reply.tool_calls:
            if call is not primary:
                self._ignored.append((call.id, IGNORED_CALL))
        if primary is None:
            return None
        self._open = primary
        problem = unusable_arguments(primary.arguments)
        argument = string_argument(primary.arguments, "action") if problem is None else None
        if argument is None:
            raw = arguments_text(primary.arguments)
            self._open_note = (
                f'Invalid call: the tool play takes {{"action": "<action>"}}, got {clip(raw, 200)}'
                f"{'' if problem is None else f' ({problem})'}."
            )
            return None
        return argument[0]
