"""What every provider speaks: messages, tools, replies with normalised usage.

Everything here is a pydantic model, because it is sent to a model or written to disk
(provenance, trajectories). The vendor SDKs never leak past a provider module.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "ChatMessage",
    "Provider",
    "Reply",
    "RetryEvent",
    "RetryHook",
    "ToolCall",
    "ToolSpec",
    "Usage",
]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ToolCall(_Model):
    """A tool call the model made (or, in a history, made earlier)."""

    id: str
    name: str
    arguments: dict[str, Any]


class ChatMessage(_Model):
    """One message of a conversation, provider-neutral.

    ``system`` messages are sent as the system prompt (Anthropic) or a system message
    (OpenAI). An ``assistant`` message may carry ``tool_calls``; each answer to one is a
    ``tool`` message with its ``tool_call_id``.
    """

    role: Literal["system", "user", "assistant", "tool"]
    content: str = ""
    tool_calls: list[ToolCall] = Field(default_factory=list)
    tool_call_id: str | None = None
    reasoning_blocks: list[dict[str, Any]] = Field(default_factory=list)
    """An assistant turn's opaque reasoning blocks, sent back as the provider gave them
    (``Reply.reasoning_blocks``; Anthropic refuses a tool-use turn with thinking enabled
    whose thinking block is missing)."""


class ToolSpec(_Model):
    """A tool the model may call: a name, what it does, a JSON schema of its arguments."""

    name: str
    description: str
    parameters: dict[str, Any]


class Usage(_Model):
    """Tokens of one call, normalised across providers."""

    input: int = 0
    """Prompt tokens not read from a cache."""
    output: int = 0
    """Completion tokens, reasoning included."""
    cache_read: int = 0
    cache_write: int = 0
    reasoning: int = 0
    """The part of ``output`` spent on reasoning/thinking, when the provider says."""

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input=self.input + other.input,
            output=self.output + other.output,
            cache_read=self.cache_read + other.cache_read,
            cache_write=self.cache_write + other.cache_write,
            reasoning=self.reasoning + other.reasoning,
        )

    @property
    def total(self) -> int:
        return self.input + self.output + self.cache_read + self.cache_write


class Reply(_Model):
    """One completed call: the answer and everything needed to account for it."""

    text: str
    tool_calls: list[ToolCall] = Field(default_factory=list)
    finish_reason: str | None = None
    reasoning_blocks: list[dict[str, Any]] = Field(default_factory=list)
    """Opaque reasoning blocks (Anthropic ``thinking``/``redacted_thinking`` with their
    signatures) to copy into the assistant message of a continued conversation."""
    usage: Usage = Field(default_factory=Usage)
    model: str
    """``provider/model`` as requested (the provider's own model id is in ``params``)."""
    params: dict[str, Any] = Field(default_factory=dict)
    """The effective request parameters (model options, tools offered, base URL)."""
    latency_s: float = 0.0
    cost_usd: float | None = None
    """From the pricing table; None when the model has no price."""
    retries: int = 0
    """How many times the retry layer waited before this call succeeded."""
    cached: bool = False
    """Served from the call cache of a resumed run: not paid again (``cost_usd`` is what
    it cost when it was paid)."""


@dataclass(frozen=True)
class RetryEvent:
    """The retry layer is about to wait before trying a call again."""

    provider: str
    attempt: int
    """1-based number of the attempt that failed."""
    wait_s: float
    reason: str
    """e.g. ``429 Too Many Requests (Retry-After 2)``, ``500``, ``timeout``."""


RetryHook = Callable[[RetryEvent], None]


@runtime_checkable
class Provider(Protocol):
    """A chat model behind one interface (``openai/...``, ``anthropic/...``, ``scripted/...``)."""

    @property
    def name(self) -> str:
        """``provider/model``, as the user wrote it."""
        ...

    def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        tools: Sequence[ToolSpec] = (),
        tool_choice: str | None = None,
        json_schema: dict[str, Any] | None = None,
    ) -> Reply:
        """One call. ``tool_choice`` names a tool the model must call (None: its choice);
        ``json_schema`` asks for structured output where the server supports it.

        Raises a ``ProviderError`` subclass once the retry layer gives up.
        """
        ...
