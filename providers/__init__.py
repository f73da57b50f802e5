"""LLM providers: one interface over the openai and anthropic SDKs and scripted replies.

The only package that imports vendor SDKs, and only lazily, when such a provider is built.
``create_provider("openai/gpt-5.4")``, ``create_provider("anthropic/claude-sonnet-4-5")``,
``create_provider("scripted/replies.jsonl")``; ``check_provider`` is the preflight.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from oracle_bench._lazy import lazy_exports

if TYPE_CHECKING:
    from providers.cache import CallCache, call_key, call_scope
    from providers.pricing import ModelPrice, PricingTable, load_pricing
    from providers.registry import (
        ProviderBackend,
        ProviderSettings,
        base_url_for,
        check_provider,
        create_provider,
        parse_base_urls,
        parse_model_options,
        parse_model_spec,
        provider_names,
        register_provider,
    )
    from providers.retry import RetryPolicy, TransientError, with_retries
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
else:
    __getattr__, __dir__ = lazy_exports(
        __name__,
        {
            "providers.cache": ("CallCache", "call_key", "call_scope"),
            "providers.pricing": ("ModelPrice", "PricingTable", "load_pricing"),
            "providers.registry": (
                "ProviderBackend",
                "ProviderSettings",
                "base_url_for",
                "check_provider",
                "create_provider",
                "parse_base_urls",
                "parse_model_options",
                "parse_model_spec",
                "provider_names",
                "register_provider",
            ),
            "providers.retry": ("RetryPolicy", "TransientError", "with_retries"),
            "providers.types": (
                "ChatMessage",
                "Provider",
                "Reply",
                "RetryEvent",
                "RetryHook",
                "ToolCall",
                "ToolSpec",
                "Usage",
            ),
        },
    )

__all__ = [
    "CallCache",
    "ChatMessage",
    "ModelPrice",
    "PricingTable",
    "Provider",
    "ProviderBackend",
    "ProviderSettings",
    "Reply",
    "RetryEvent",
    "RetryHook",
    "RetryPolicy",
    "ToolCall",
    "ToolSpec",
    "TransientError",
    "Usage",
    "base_url_for",
    "call_key",
    "call_scope",
    "check_provider",
    "create_provider",
    "load_pricing",
    "parse_base_urls",
    "parse_model_options",
    "parse_model_spec",
    "provider_names",
    "register_provider",
    "with_retries",
]
