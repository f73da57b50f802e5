"""The conversation an LLM agent's model saw, read back from any kind's record."""

from __future__ import annotations

from typing import Any

from evaluator.analysis._model import ConversationMessage

__all__ = ["conversation_of"]


def conversation_of(record: Any) -> list[ConversationMessage] | None:
    """The messages of ``record``'s conversation, in order, the system prompt first;
    None for a record that holds none (agents that call no model)."""
    stored = getattr(record, "conversation", None)
    if stored is None:
        return None
    return list(stored.messages)
