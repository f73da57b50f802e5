"""What the analysis reads alike from any kind's record: its identity and the conversation
an LLM agent's model saw."""

from __future__ import annotations

from typing import Any

from evaluator.analysis._model import ConversationMessage

__all__ = ["conversation_of", "record_identity"]

_FIELDS = ("role", "content", "tool_calls", "call")


def conversation_of(record: Any) -> list[ConversationMessage] | None:
    """The messages of ``record``'s conversation, in order, the system prompt first;
    None for a record that holds none (agents that call no model).

    Each distinct message appears once, in the order it first appeared (see
    :mod:`evaluator.conversation`; what one call sent is
    :func:`evaluator.conversation.messages_sent`)."""
    stored = getattr(record, "conversation", None)
    if stored is None:
        return None
    out: list[ConversationMessage] = []
    if stored.system is not None:
        out.append(ConversationMessage(role="system", content=stored.system))
    for message in stored.messages:
        # The record's messages carry more (tool call ids, reasoning blocks) than the
        # analysis view; keep the view's own fields only.
        out.append(ConversationMessage(**{f: getattr(message, f) for f in _FIELDS}))
    return out


def record_identity(record: Any) -> dict[str, Any]:
    """The :class:`~evaluator.analysis.EpisodeAnalysis` fields every kind's record holds
    under the same names: box, family, level, rule kind, agent, repetition, status,
    failure, error; and the conversation."""
    return {
        "box_id": record.box_id,
        "family": record.family,
        "level": record.level,
        "rule_kind": record.rule_kind,
        "agent": record.agent,
        "repetition": record.repetition,
        "status": record.status,
        "failure": record.failure,
        "error": record.error,
        "conversation": conversation_of(record),
    }
