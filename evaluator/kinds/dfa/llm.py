"""The LLM agent of DFA episodes (:class:`LlmDfaAgent`).

Tools protocol: ``membership_query`` ({"word": str}) and ``equivalence_query``
({"dfa": object}); text protocol: a reply holds one JSON call as the task intro shows.
Every call goes to the episode's environment, which counts, refuses or answers it. See
:mod:`evaluator.llm_agents` for what every LLM agent shares.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from evaluator._llm_text import arguments_text, unusable_arguments
from evaluator.kinds.dfa.protocol import DfaAgentContext, DfaEnvironment
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
from oracle_bench.bounded import recordable
from providers import ChatMessage, ToolCall, ToolSpec

__all__ = ["LlmDfaAgent", "dfa_tools"]

_STATE_LIST = {"type": "array", "items": {"type": "string"}}


def dfa_tools() -> tuple[ToolSpec, ToolSpec]:
    """``(membership_query, equivalence_query)``, the DFA episode's tools."""
    membership = ToolSpec(
        name="membership_query",
        description='Is the word in the hidden language? "" is the empty word. Costs one call.',
        parameters=object_schema({"word": {"type": "string"}}),
    )
    dfa = {
        "type": "object",
        "description": (
            "A complete DFA over exactly the alphabet: one transition "
            "[source, letter, target] for every state and letter."
        ),
        "properties": {
            "states": _STATE_LIST,
            "alphabet": _STATE_LIST,
            "start": {"type": "string"},
            "accepting": _STATE_LIST,
            "transitions": {
                "type": "array",
                "items": {"type": "array", "items": {"type": "string"}},
            },
        },
        "required": ["states", "alphabet", "start", "accepting", "transitions"],
    }
    equivalence = ToolSpec(
        name="equivalence_query",
        description=(
            "Does this DFA accept exactly the hidden language? The answer is 'correct' or "
            "a counterexample. Costs one call."
        ),
        parameters=object_schema({"dfa": dfa}),
    )
    return membership, equivalence


class LlmDfaAgent(LlmAgentBase):
    """An LLM playing DFA episodes (:class:`evaluator.kinds.dfa.protocol.DfaAgent`)."""

    def __init__(self, name: str, ctx: DfaAgentContext, settings: LlmAgentSettings) -> None:
        super().__init__(name, settings)
        self.ctx = ctx

    def play(self, env: DfaEnvironment) -> None:
        """Call the model and forward its calls until the episode is over.

        ``EpisodeOver`` from ``env.call`` propagates (``run_dfa_episode`` catches it).
        """
        chat = Conversation(
            system_prompt("dfa", self.settings.protocol), self.ctx.intro, self.settings.history
        )
        tools: Sequence[ToolSpec] = dfa_tools() if self.settings.protocol == "tools" else ()
        names = {t.name for t in dfa_tools()}
        shown: str | None = None
        while not env.over:
            banner = f"<Call {env.used + 1}; {env.remaining} of {env.budget} calls left>"
            content = banner if shown is None else f"{shown}\n\n{banner}"
            chat.add(ChatMessage(role="user", content=content))
            index = len(env.calls) + 1
            reply = self._complete(chat.window(), tools, "play", index)
            chat.add(assistant_message(reply))
            if not reply.tool_calls:
                shown = env.call(reply.text)
                continue
            first = next((c for c in reply.tool_calls if c.name in names), reply.tool_calls[0])
            extra = [c for c in reply.tool_calls if c is not first]
            if extra:
                self._notes.append(f"call {index}: {len(extra)} extra tool call(s) ignored")
            problem = reply_problem(reply) or unusable_arguments(first.arguments)
            if problem is None:
                result = env.call(_json_text(_dfa_payload(first)))
            else:
                sent = {"tool": first.name, "arguments": arguments_text(first.arguments)}
                result = env.refuse(_json_text(sent), problem, first.name)
            chat.add(ChatMessage(role="tool", content=result, tool_call_id=first.id))
            for call in extra:
                chat.add(ChatMessage(role="tool", content=IGNORED_CALL, tool_call_id=call.id))
            shown = None


_NAME_KEYS = frozenset({"tool", "tool_name", "name"})


def _json_text(payload: dict[str, Any]) -> str:
    """A DFA call as JSON text; never raises (over the limits: the recording stand-in)."""
    return json.dumps(recordable(payload), ensure_ascii=False, default=repr)


def _dfa_payload(call: ToolCall) -> dict[str, Any]:
    """``{"tool": name, **arguments}`` (the intro's form), or the arguments nested under
    ``"arguments"`` when one of them would clash with the tool's name."""
    arguments = dict(call.arguments)
    if _NAME_KEYS & set(arguments):
        return {"tool": call.name, "arguments": arguments}
    return {"tool": call.name, **arguments}
