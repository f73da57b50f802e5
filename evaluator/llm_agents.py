"""What every LLM agent shares, whatever the kind of episode: ``provider/model`` names
(``openai/gpt-5.4``, ``anthropic/claude-sonnet-4-5``, ``scripted/replies.jsonl``), their
settings, the run's provider pool, the preflight, the system prompt, the conversation
window and the recorded, budgeted call. Each episode kind's own agent lives with the kind
(``evaluator.kinds.<kind>.llm``). Each agent builds its provider on first use (or takes
the run's pooled one), so every episode is its own conversation (a ``scripted/`` file
replays from its first line in every episode).

Conversation: the system prompt (templates/prompts/player/system.j2: what a black box is and
how to act, never anything about the rule), the task intro as the first user message, then
one exchange per model reply. The full history is the context unless
``LlmAgentSettings.history`` keeps only the last N exchanges (an exchange is a reply with
the tool results and the user message that follow it, so a tool call is never separated
from its result).

Two protocols: ``tools`` (default, native tool calls; every tool call id of a reply is
answered, extra calls with :data:`IGNORED_CALL`) and ``text`` (the reply's text carries the
call, as the kind's intro says).

Replies are hostile: a reply over :data:`~oracle_bench.bounded.MAX_TEXT_CHARS` has no
usable call, tool arguments that cannot be read (not JSON, not an object, over the limits
of :mod:`oracle_bench.bounded`) are an invalid call whose one-line reason is shown to the
model, and every record and history message holds such input only through its
recording-safe stand-in. Every call is checked against and charged to the run's
:class:`~evaluator.usage.RunBudget` and recorded as an :class:`~evaluator.usage.LlmCallRecord`.
``ProviderError`` and ``BudgetExhausted`` propagate: the protocols record the first as a
failed episode, the runner handles the second.

Every agent keeps its episode's :class:`~evaluator.conversation.ConversationLog` (each
message once; each call record says which it sent), which the protocols copy into the
trajectory: :func:`evaluator.conversation.messages_sent` rebuilds what any call sent.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import templates
from evaluator._defaults import PROTOCOLS, PlayProtocol
from evaluator._llm_text import (
    unusable_arguments,
)
from evaluator._starts import before_model_call
from evaluator.conversation import ConversationLog, ConversationRecorder
from evaluator.usage import CallPhase, LlmCallRecord, RunBudget, Span
from oracle_bench.bounded import BoundsError, check_text, recordable, recordable_text
from oracle_bench.errors import UsageError
from providers import (
    CallCache,
    ChatMessage,
    Provider,
    Reply,
    RetryHook,
    RetryPolicy,
    ToolCall,
    ToolSpec,
    base_url_for,
    check_provider,
    create_provider,
    parse_model_spec,
)

__all__ = [
    "EMPTY_REPLY",
    "IGNORED_CALL",
    "PROTOCOLS",
    "Conversation",
    "LlmAgentBase",
    "LlmAgentSettings",
    "PlayProtocol",
    "ProviderPool",
    "assistant_message",
    "call_record",
    "check_llm_agent",
    "deliver_owed",
    "is_llm_agent",
    "object_schema",
    "reply_problem",
    "system_prompt",
]

log = logging.getLogger(__name__)

IGNORED_CALL = "ignored: make one call per message"
"""The tool result of every tool call after the first usable one of a reply."""


@dataclass(frozen=True)
class LlmAgentSettings:
    """How LLM agents call their provider (shared by every LLM agent of a run)."""

    options: Mapping[str, Any] = field(default_factory=dict)
    """Model options (``-M key=value``), passed through (reasoning/thinking included)."""
    base_url: str | None = None
    """The server of every LLM agent (None: ``$OPENAI_BASE_URL`` etc. or the vendor's API)."""
    base_urls: Mapping[str, str] = field(default_factory=dict)
    """Per provider name (``openai``, ``anthropic``; ``""``: every provider), before
    ``base_url``: ``--base-url openai=URL``."""
    protocol: PlayProtocol = "tools"
    max_reasks: int = 2
    """Re-asks after a reply with no usable call, before the raw reply goes to the protocol."""
    history: int | None = None
    """None: the full history (both seeds' default); N: only the last N exchanges."""
    timeout: float = 600.0
    """Per attempt, in seconds."""
    retry: RetryPolicy | None = None
    on_retry: RetryHook | None = None
    cache: CallCache | None = None
    budget: RunBudget | None = None
    max_per_provider: int | None = None
    """Calls in flight per provider name (``create_provider(max_concurrency=...)``)."""
    pool: ProviderPool | None = None
    """Providers shared by the run's episodes (None: each agent builds its own)."""

    def url_for(self, name: str) -> str | None:
        """The base URL for the agent ``provider/model``."""
        return base_url_for(self.base_urls, name) or self.base_url

    def __post_init__(self) -> None:
        if self.protocol not in PROTOCOLS:
            raise UsageError(
                f"unknown protocol {self.protocol!r}; available: {', '.join(PROTOCOLS)}"
            )
        if isinstance(self.max_reasks, bool) or self.max_reasks < 0:
            raise UsageError(f"invalid max_reasks {self.max_reasks}: must be >= 0")
        if self.history is not None and self.history < 1:
            raise UsageError(f"invalid history {self.history}: keep at least 1 exchange")
        if not self.timeout > 0:
            raise UsageError(f"invalid timeout {self.timeout}: must be > 0 seconds")
        if self.max_per_provider is not None and self.max_per_provider < 1:
            raise UsageError(f"invalid max_per_provider {self.max_per_provider}: must be >= 1")


def is_llm_agent(name: str) -> bool:
    """True for ``provider/model`` names (LLM agents); baseline names have no slash."""
    return "/" in name


def _create(name: str, settings: LlmAgentSettings) -> Provider:
    return create_provider(
        name,
        options=settings.options,
        base_url=settings.url_for(name),
        on_retry=settings.on_retry,
        retry=settings.retry,
        cache=settings.cache,
        timeout=settings.timeout,
        max_concurrency=settings.max_per_provider,
    )


class ProviderPool:
    """The providers of a run, one per agent name, shared by its episodes.

    An HTTP client is thread-safe and costs tens of milliseconds of CPU to build, so
    ``openai/...`` and ``anthropic/...`` agents share one per name. ``scripted/...``
    providers are not pooled: each episode replays its script from the first line.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._providers: dict[str, Provider] = {}

    def get(self, name: str, settings: LlmAgentSettings) -> Provider | None:
        """The shared provider for ``name`` (built on first use), or None for a provider
        that must not be shared (scripted)."""
        if parse_model_spec(name)[0] == "scripted":
            return None
        with self._lock:
            provider = self._providers.get(name)
            if provider is None:
                provider = self._providers[name] = _create(name, settings)
            return provider

    def close(self) -> None:
        """Close every pooled provider (at the end of the run)."""
        with self._lock:
            providers, self._providers = list(self._providers.values()), {}
        for provider in providers:
            _close(provider)


def _close(provider: Provider | None) -> None:
    close = getattr(provider, "close", None)
    if close is not None:
        close()


def check_llm_agent(name: str, settings: LlmAgentSettings) -> str:
    """Preflight for an LLM agent before any work: ``name`` if usable, else a one-line
    ``ProviderConfigError`` (unknown provider, missing key, unreachable server, bad model
    options, a missing script file)."""
    check_provider(name, base_url=settings.url_for(name))
    _close(_create(name, settings))
    return name


def system_prompt(kind: str, protocol: PlayProtocol) -> str:
    """templates/prompts/player/system.j2 for an episode kind (the template's ``kind``) and
    a protocol."""
    return templates.render("prompts/player/system.j2", kind=kind, protocol=protocol).strip()


def object_schema(properties: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": sorted(properties),
        "additionalProperties": False,
    }


def call_record(
    phase: CallPhase, turn: int | None, reply: Reply, sent: list[Span] | None = None
) -> LlmCallRecord:
    """The record of one call: its reply, usage and (``sent``) the messages it sent."""
    usage = reply.usage
    return LlmCallRecord(
        phase=phase,
        turn=turn,
        text=recordable_text(reply.text),
        tool_calls=[
            {"id": c.id, "name": c.name, "arguments": recordable(c.arguments)}
            for c in reply.tool_calls
        ],
        finish_reason=reply.finish_reason,
        input_tokens=usage.input,
        output_tokens=usage.output,
        cache_read_tokens=usage.cache_read,
        cache_write_tokens=usage.cache_write,
        reasoning_tokens=usage.reasoning,
        cost_usd=reply.cost_usd,
        retries=reply.retries,
        cached=reply.cached,
        sent=sent,
    )


class Conversation:
    """The messages of one episode and the window of them sent to the model."""

    def __init__(self, system: str, intro: str, history: int | None) -> None:
        self.head = [
            ChatMessage(role="system", content=system),
            ChatMessage(role="user", content=intro),
        ]
        self.body: list[ChatMessage] = []
        self.history = history

    def add(self, message: ChatMessage) -> None:
        self.body.append(message)

    def window(self) -> list[ChatMessage]:
        """The head and, with ``history=N``, the last N exchanges only (an exchange starts
        at an assistant message and runs to the next one)."""
        if self.history is None:
            return [*self.head, *self.body]
        starts = [i for i, m in enumerate(self.body) if m.role == "assistant"]
        if len(starts) <= self.history:
            return [*self.head, *self.body]
        return [*self.head, *self.body[starts[-self.history] :]]


class LlmAgentBase:
    """Provider, budget, call records and notes shared by both agents."""

    def __init__(self, name: str, settings: LlmAgentSettings) -> None:
        self.name = name
        self.settings = settings
        self._provider: Provider | None = None
        self._shared = False
        self._calls: list[LlmCallRecord] = []
        self._notes: list[str] = []
        self._recorder = ConversationRecorder()

    # -- ReportsUsage ----------------------------------------------------------
    def llm_calls(self) -> list[LlmCallRecord]:
        return list(self._calls)

    def conversation(self) -> ConversationLog | None:
        """What the model saw so far, each message once (None before the first call)."""
        return self._recorder.log()

    def notes(self) -> list[str]:
        return list(self._notes)

    def close(self) -> None:
        """Release the provider (its HTTP client); the agent may not be used afterwards."""
        provider, self._provider = self._provider, None
        if not self._shared:  # a pooled provider is closed with its pool
            _close(provider)

    # -- calls -----------------------------------------------------------------
    def _complete(
        self,
        messages: Sequence[ChatMessage],
        tools: Sequence[ToolSpec],
        phase: CallPhase,
        turn: int | None,
    ) -> Reply:
        budget = self.settings.budget
        if budget is not None:
            budget.check()
        before_model_call()
        if self._provider is None:
            pool = self.settings.pool
            shared = pool.get(self.name, self.settings) if pool is not None else None
            self._shared = shared is not None
            self._provider = shared if shared is not None else _create(self.name, self.settings)
        sent = self._recorder.sent(messages)
        reply = self._provider.complete(messages, tools=tools, tool_choice=None)
        record = call_record(phase, turn, reply, sent)
        self._recorder.replied(len(self._calls), assistant_message(reply))
        self._calls.append(record)
        if budget is not None:
            budget.charge(record)
        return reply


def reply_problem(reply: Reply) -> str | None:
    """Why a reply's text is unusable as a whole (too long, not UTF-8), or None."""
    try:
        check_text(reply.text, "your reply")
    except BoundsError as exc:
        return str(exc)
    return None


EMPTY_REPLY = "(empty reply)"


def assistant_message(reply: Reply) -> ChatMessage:
    """The reply as a history message, its reasoning blocks included (Anthropic refuses a
    thinking tool turn without them); an empty one gets a stand-in text (APIs refuse
    empty assistant text blocks).

    A reply over the limits of :mod:`oracle_bench.bounded` is kept as its stand-in, and
    unusable tool arguments as ``{}``: the history is sent again with every call (a
    provider serialises it), and the tool result already says what was wrong."""
    text = reply.text if (reply.text or reply.tool_calls) else EMPTY_REPLY
    calls = [
        c if unusable_arguments(c.arguments) is None else c.model_copy(update={"arguments": {}})
        for c in reply.tool_calls
    ]
    return ChatMessage(
        role="assistant",
        content=recordable_text(text),
        tool_calls=calls,
        reasoning_blocks=reply.reasoning_blocks,
    )


def deliver_owed(
    chat: Conversation,
    text: str,
    *,
    pending: Sequence[str],
    open_call: ToolCall | None,
    open_note: str | None,
    ignored: Sequence[tuple[str, str]],
    placeholder: str,
) -> None:
    """Add what the next message owes the model, then ``text``: the result of the last
    reply's usable call (the ``pending`` lines, after ``open_note`` when its arguments were
    unusable; ``placeholder`` when nothing came back), an answer for every ignored call,
    then a user message; without an open call the pending lines lead the user message."""
    lines = list(pending)
    if open_call is not None:
        result = "\n".join(lines) or (open_note or placeholder)
        if open_note is not None and lines:
            result = f"{open_note}\n{result}"
        chat.add(ChatMessage(role="tool", content=result, tool_call_id=open_call.id))
        lines = []
    for call_id, note in ignored:
        chat.add(ChatMessage(role="tool", content=note, tool_call_id=call_id))
    lines.append(text)
    chat.add(ChatMessage(role="user", content="\n\n".join(x for x in lines if x)))
