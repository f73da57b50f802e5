"""LLM providers: one interface over the openai and anthropic SDKs and scripted replies.

The only package that imports vendor SDKs, and only lazily, when such a provider is built.
"""

from providers.types import (
    ChatMessage,
    Provider,
    Reply,
    RetryEvent,
    RetryHook,
    ToolCall,
    ToolSpec,
    Usage,
)

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
