"""What an LLM agent's model saw: the episode's messages, each stored once.

A trajectory's ``conversation`` (:class:`ConversationLog`) holds the system prompt and
every distinct message of the episode in the order they first appeared: the intro, the
user and tool messages, and each model reply (an assistant message naming, in ``call``,
the index in ``llm_calls`` of the call that produced it; the episode's last reply, never
sent back, is there too). Each :class:`~evaluator.usage.LlmCallRecord` says in ``sent``
which of them it sent, as half-open ranges ``[start, end)`` of ``messages`` after the
system prompt: a full history is one range, a ``--history N`` window two (the intro, then
the last N exchanges), a re-ask's correction that a later call no longer sends simply
falls outside its ranges. A conversation started again (a puzzle or game with ``reset``
context) starts again with its intro. So the record grows with the messages, not with
calls times history, and :func:`messages_sent` rebuilds exactly what any call sent.

:class:`ConversationRecorder` builds the log from the message lists an agent sends; it
knows messages by identity (an agent's conversation keeps its message objects), and a
reply by its value the first time it is sent back.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from evaluator.analysis._model import ConversationMessage
from evaluator.usage import LlmCallRecord, Span
from oracle_bench.errors import EvaluationError
from providers import ChatMessage, ToolCall

__all__ = [
    "ConversationLog",
    "ConversationRecorder",
    "LoggedMessage",
    "agent_conversation",
    "check_conversation",
    "messages_sent",
]


def _absent(value: object) -> bool:
    return value is None


def _empty(value: object) -> bool:
    return value == []


class LoggedMessage(ConversationMessage):
    """A :class:`~evaluator.analysis.ConversationMessage` with what a provider needs to
    send it again: the id of the tool call a ``tool`` message answers and an assistant
    message's opaque reasoning blocks. Empty fields are left out of the record."""

    tool_calls: list[dict[str, Any]] = Field(default_factory=list, exclude_if=_empty)
    """``[{"id", "name", "arguments"}]`` as sent back to the model."""
    call: int | None = Field(default=None, exclude_if=_absent)
    """For an assistant message: the index in ``llm_calls`` of the call that produced it."""
    tool_call_id: str | None = Field(default=None, exclude_if=_absent)
    reasoning_blocks: list[dict[str, Any]] = Field(default_factory=list, exclude_if=_empty)

    def chat_message(self) -> ChatMessage:
        """The message as it was sent."""
        return ChatMessage(
            role=self.role,
            content=self.content,
            tool_calls=[ToolCall.model_validate(c) for c in self.tool_calls],
            tool_call_id=self.tool_call_id,
            reasoning_blocks=self.reasoning_blocks,
        )


class ConversationLog(BaseModel):
    """An episode's conversation: the system prompt and every distinct message once."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    system: str | None = None
    """The system prompt, sent first by every call (None: calls sent none)."""
    messages: list[LoggedMessage] = Field(default_factory=list)
    """Every distinct message, in the order it first appeared."""

    def replay(self, sent: Sequence[Span]) -> list[ChatMessage]:
        """The messages of a call whose ``LlmCallRecord.sent`` is ``sent``, the system
        prompt first; an :class:`EvaluationError` for a range outside ``messages``."""
        out: list[ChatMessage] = []
        if self.system is not None:
            out.append(ChatMessage(role="system", content=self.system))
        for start, end in sent:
            if not 0 <= start < end <= len(self.messages):
                raise EvaluationError(
                    f"sent range [{start}, {end}) is outside the {len(self.messages)} messages"
                )
            out.extend(m.chat_message() for m in self.messages[start:end])
        return out


def messages_sent(record: Any, call: int) -> list[ChatMessage]:
    """The exact messages ``record.llm_calls[call]`` sent its provider, rebuilt from a
    trajectory of any kind (``record.conversation`` and ``record.llm_calls``).

    Raises :class:`EvaluationError` when the record keeps no conversation (an agent that
    calls no model, or a record written before conversations were kept)."""
    log = getattr(record, "conversation", None)
    calls: Sequence[LlmCallRecord] = getattr(record, "llm_calls", [])
    if not -len(calls) <= call < len(calls):
        raise EvaluationError(f"the record has no LLM call {call} ({len(calls)} calls)")
    sent = calls[call].sent
    if log is None or sent is None:
        raise EvaluationError("the record keeps no conversation to replay")
    return log.replay(sent)


def check_conversation(log: ConversationLog | None, calls: Sequence[LlmCallRecord]) -> None:
    """A ``ValueError`` (for a record's validator) unless every call's ``sent`` ranges lie
    within ``log`` and every assistant message names a call of ``calls``."""
    if log is None:
        if any(c.sent is not None for c in calls):
            raise ValueError("llm_calls say what they sent but the record has no conversation")
        return
    n = len(log.messages)
    for i, c in enumerate(calls):
        for start, end in c.sent or []:
            if not 0 <= start < end <= n:
                raise ValueError(f"llm call {i} sent [{start}, {end}), outside the {n} messages")
    for m in log.messages:
        if m.call is not None and not 0 <= m.call < len(calls):
            raise ValueError(f"a message names llm call {m.call} of {len(calls)}")


def _spans(indices: Sequence[int]) -> list[Span]:
    """Consecutive runs of ``indices`` as half-open ranges."""
    spans: list[Span] = []
    for i in indices:
        if spans and spans[-1][1] == i:
            spans[-1] = (spans[-1][0], i + 1)
        else:
            spans.append((i, i + 1))
    return spans


def _logged(message: ChatMessage, call: int | None) -> LoggedMessage:
    return LoggedMessage(
        role=message.role,
        content=message.content,
        tool_calls=[c.model_dump(mode="json") for c in message.tool_calls],
        call=call,
        tool_call_id=message.tool_call_id,
        reasoning_blocks=message.reasoning_blocks,
    )


class ConversationRecorder:
    """Builds an agent's :class:`ConversationLog` from the message lists it sends.

    :meth:`sent` before each call gives the call's ranges; :meth:`replied` after it logs
    the reply (as the agent will send it back) with the call's index. A message is known
    by identity; an assistant message not seen yet is the latest logged reply it equals
    (the agent builds its own copy of the reply), else a new message.
    """

    def __init__(self) -> None:
        self._system: str | None = None
        self._calls = 0
        self._messages: list[ChatMessage] = []
        self._producers: list[int | None] = []
        self._known: dict[int, tuple[ChatMessage, int]] = {}
        """id(message) -> (the message, kept alive so the id stays its own; its index)."""
        self._unclaimed: list[int] = []
        """Indices of logged replies no sent message has been matched to yet."""

    def sent(self, messages: Sequence[ChatMessage]) -> list[Span]:
        """Log what a call sends; its ranges for ``LlmCallRecord.sent``."""
        rest = list(messages)
        head = rest[0] if rest else None
        plain_system = head is not None and head == ChatMessage(role="system", content=head.content)
        if self._calls == 0 and head is not None and plain_system:
            self._system = head.content
        if self._system is not None:
            if head is None or not plain_system or head.content != self._system:
                # Every agent sends its one system prompt first; a call that does not
                # cannot be recorded as "the system prompt, then these ranges".
                raise EvaluationError("a call did not send the episode's system prompt first")
            rest = rest[1:]
        self._calls += 1
        return _spans([self._index(m) for m in rest])

    def replied(self, call: int, message: ChatMessage) -> None:
        """Log the reply of call ``call`` as the assistant message it becomes."""
        self._unclaimed.append(self._append(message, call))

    def log(self) -> ConversationLog | None:
        """The conversation so far (None before the first call)."""
        if self._calls == 0:
            return None
        return ConversationLog(
            system=self._system,
            messages=[_logged(m, c) for m, c in zip(self._messages, self._producers, strict=True)],
        )

    def _append(self, message: ChatMessage, call: int | None) -> int:
        self._messages.append(message)
        self._producers.append(call)
        return len(self._messages) - 1

    def _index(self, message: ChatMessage) -> int:
        known = self._known.get(id(message))
        if known is not None and known[0] is message:
            return known[1]
        index = None
        if message.role == "assistant":
            index = next(
                (i for i in reversed(self._unclaimed) if self._messages[i] == message), None
            )
            if index is not None:
                self._unclaimed.remove(index)
        if index is None:
            index = self._append(message, None)
        self._known[id(message)] = (message, index)
        return index


def agent_conversation(agent: object) -> ConversationLog | None:
    """The agent's conversation, or None for an agent that calls no model."""
    method = getattr(agent, "conversation", None)
    if not callable(method):
        return None
    log = method()
    return log if isinstance(log, ConversationLog) else None
