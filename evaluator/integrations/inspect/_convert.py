"""Our provider-neutral messages, tools and replies to and from Inspect AI's.

Pure functions: the bridge (:mod:`._bridge`) calls them on both sides of a model call.
Reasoning blocks travel as Inspect's own ``ContentReasoning`` dumps, so a model that
thinks gets its signed thinking back with the conversation, as our providers do.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from oracle_bench.errors import ProviderResponseError
from providers import ChatMessage, Reply, ToolCall, ToolSpec, Usage

if TYPE_CHECKING:
    from inspect_ai.model import ChatMessage as InspectMessage
    from inspect_ai.model import ModelOutput
    from inspect_ai.tool import ToolChoice, ToolInfo

__all__ = ["reply_from_output", "to_inspect_messages", "to_inspect_tools", "tool_choice"]

REASONING = "reasoning"
"""``type`` of an Inspect ``ContentReasoning`` dump among our ``reasoning_blocks``."""


def to_inspect_messages(messages: Sequence[ChatMessage]) -> list[InspectMessage]:
    """Our conversation as Inspect messages (a tool result names the function its call
    named, which some providers require)."""
    from inspect_ai.model import (
        ChatMessageAssistant,
        ChatMessageSystem,
        ChatMessageTool,
        ChatMessageUser,
        ContentReasoning,
        ContentText,
    )
    from inspect_ai.tool import ToolCall as InspectToolCall

    functions: dict[str, str] = {}
    out: list[InspectMessage] = []
    for m in messages:
        if m.role == "system":
            out.append(ChatMessageSystem(content=m.content))
        elif m.role == "user":
            out.append(ChatMessageUser(content=m.content))
        elif m.role == "tool":
            call_id = m.tool_call_id
            out.append(
                ChatMessageTool(
                    content=m.content,
                    tool_call_id=call_id,
                    function=None if call_id is None else functions.get(call_id),
                )
            )
        else:
            calls = [
                InspectToolCall(id=c.id, function=c.name, arguments=dict(c.arguments))
                for c in m.tool_calls
            ]
            functions.update((c.id, c.name) for c in m.tool_calls)
            reasoning = [
                ContentReasoning.model_validate(b)
                for b in m.reasoning_blocks
                if b.get("type") == REASONING
            ]
            content: Any = m.content if not reasoning else [*reasoning, ContentText(text=m.content)]
            out.append(ChatMessageAssistant(content=content, tool_calls=calls or None))
    return out


def to_inspect_tools(tools: Sequence[ToolSpec]) -> list[ToolInfo]:
    """Our tools as Inspect ``ToolInfo`` (the same JSON schema)."""
    from inspect_ai.tool import ToolInfo, ToolParams

    return [
        ToolInfo(
            name=t.name,
            description=t.description,
            parameters=ToolParams.model_validate(t.parameters),
        )
        for t in tools
    ]


def tool_choice(tools: Sequence[ToolSpec], name: str | None) -> ToolChoice | None:
    """Inspect's tool choice for ours: the named tool, else the model's choice."""
    from inspect_ai.tool import ToolFunction

    if name is not None:
        return ToolFunction(name=name)
    return "auto" if tools else None


def reply_from_output(
    output: ModelOutput, *, name: str, latency_s: float, cost_usd: float | None
) -> Reply:
    """Inspect's output as our reply; ``ProviderResponseError`` when it holds no message or
    what it holds makes no valid reply (a hostile or broken model API)."""
    if not output.choices:
        raise ProviderResponseError(f"no output ({output.error or 'no choices'})", name)
    message = output.message
    try:
        calls = [
            ToolCall(id=c.id, name=c.function, arguments=c.arguments)
            for c in message.tool_calls or []
        ]
        reasoning = [
            c.model_dump(mode="json")
            for c in (message.content if isinstance(message.content, list) else [])
            if c.type == REASONING
        ]
        return Reply(
            text=message.text,
            tool_calls=calls,
            finish_reason=output.stop_reason,
            reasoning_blocks=reasoning,
            usage=usage_from_output(output),
            model=name,
            params={"provider": "inspect", "model": output.model or name.partition("/")[2]},
            latency_s=latency_s,
            cost_usd=cost_usd,
        )
    except (ValidationError, TypeError, ValueError) as exc:
        problem = f"malformed output ({type(exc).__name__}: {exc})"
        raise ProviderResponseError(problem, name) from None


def usage_from_output(output: ModelOutput) -> Usage:
    """Inspect's token counts as ours (both count input without the cached part)."""
    u = output.usage
    if u is None:
        return Usage()
    return Usage(
        input=u.input_tokens,
        output=u.output_tokens,
        cache_read=u.input_tokens_cache_read or 0,
        cache_write=u.input_tokens_cache_write or 0,
        reasoning=u.reasoning_tokens or 0,
    )
