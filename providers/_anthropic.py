"""``anthropic/<model>``: the anthropic SDK, Messages API.

Options: ``max_tokens`` (required by the API: 4096 unless given), ``thinking_budget=N``
(sent as ``thinking={"type": "enabled", "budget_tokens": N}``; must be below
``max_tokens``), ``temperature``, ``top_p``, ``top_k``, ``stop_sequences`` and the other
keyword arguments of ``messages.create`` as such (not the request fields oracle-bench sets
itself: ``model``, ``messages``, ``system``, ``tools``, ``thinking``, ``stream``...);
anything else goes into the request body as an extra key.

Structured output (``json_schema``) is emulated with a forced tool call named ``respond``
whose ``input_schema`` is the schema; the reply's ``text`` is the JSON of its input. With
thinking enabled the API refuses forced tool choices, so ``tool_choice`` is sent as
``auto`` then (noted in ``params``).
"""

from __future__ import annotations

import inspect
import json
import logging
from collections.abc import Sequence
from typing import Any

from oracle_bench.errors import ProviderConfigError
from providers._base import (
    Attempt,
    BaseProvider,
    ProviderSettings,
    VendorBackend,
    classify_sdk_error,
    reading_body,
    refuse_reserved_options,
    scope_headers,
)
from providers.registry import register_provider
from providers.retry import TransientError
from providers.types import ChatMessage, Provider, ToolCall, ToolSpec, Usage

log = logging.getLogger(__name__)

KEY_ENV = "ANTHROPIC_API_KEY"
URL_ENV = "ANTHROPIC_BASE_URL"
VENDOR_HOST = "api.anthropic.com"
DEFAULT_MAX_TOKENS = 4096
RESPOND_TOOL = "respond"
_VENDOR_RESERVED = {
    "thinking": "use -M thinking_budget=N (below -M max_tokens)",
}
_RESERVED = frozenset(
    {
        "messages",
        "model",
        "system",
        "tools",
        "tool_choice",
        "stream",
        "thinking",
        "extra_headers",
        "extra_query",
        "extra_body",
        "timeout",
    }
)


def _blocks(msg: ChatMessage) -> tuple[str, list[dict[str, Any]]]:
    if msg.role == "tool":
        return "user", [
            {"type": "tool_result", "tool_use_id": msg.tool_call_id or "", "content": msg.content}
        ]
    if msg.role == "assistant":
        # Thinking blocks first, as the API gave them: with thinking enabled it refuses a
        # tool-use turn that does not start with its (signed) thinking block.
        blocks: list[dict[str, Any]] = [dict(b) for b in msg.reasoning_blocks]
        if msg.content:
            blocks.append({"type": "text", "text": msg.content})
        blocks.extend(
            {"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments}
            for c in msg.tool_calls
        )
        return "assistant", blocks or [{"type": "text", "text": ""}]
    return "user", [{"type": "text", "text": msg.content}]


def to_wire(messages: Sequence[ChatMessage]) -> tuple[str, list[dict[str, Any]]]:
    """``(system, messages)``: system messages joined; consecutive same-role turns merged
    (tool results of one assistant turn go into one user message)."""
    system = "\n\n".join(m.content for m in messages if m.role == "system")
    wire: list[dict[str, Any]] = []
    for msg in messages:
        if msg.role == "system":
            continue
        role, blocks = _blocks(msg)
        if wire and wire[-1]["role"] == role:
            wire[-1]["content"].extend(blocks)
        else:
            wire.append({"role": role, "content": blocks})
    return system, wire


class AnthropicProvider(BaseProvider):
    def __init__(self, settings: ProviderSettings, *, api_key: str) -> None:
        super().__init__(settings)
        refuse_reserved_options(settings.options, _VENDOR_RESERVED)
        import anthropic

        self._sdk = anthropic
        self._client: Any = anthropic.Anthropic(
            api_key=api_key,
            base_url=settings.base_url,
            max_retries=0,
            timeout=settings.timeout,
        )
        accepted = set(inspect.signature(self._client.messages.create).parameters)
        self._accepted = accepted - _RESERVED
        self._options = self._effective()
        self._kwargs: dict[str, Any] = {}
        self._extra: dict[str, Any] = {}
        for key, value in self._options.items():
            if key == "thinking_budget":
                self._kwargs["thinking"] = {"type": "enabled", "budget_tokens": value}
            elif key in self._accepted:
                self._kwargs[key] = value
            else:
                self._extra[key] = value

    def _effective(self) -> dict[str, Any]:
        options = dict(self.settings.options)
        options.setdefault("max_tokens", DEFAULT_MAX_TOKENS)
        max_tokens = options["max_tokens"]
        if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 1:
            raise ProviderConfigError(f"max_tokens must be a positive integer, got {max_tokens!r}")
        budget = options.get("thinking_budget")
        if budget is not None:
            if not isinstance(budget, int) or isinstance(budget, bool) or budget < 1:
                raise ProviderConfigError(
                    f"thinking_budget must be a positive integer, got {budget!r}"
                )
            if budget >= max_tokens:
                raise ProviderConfigError(
                    f"thinking_budget ({budget}) must be below max_tokens ({max_tokens}); "
                    f"pass -M max_tokens=N with N > {budget}"
                )
        return options

    def effective_options(self) -> dict[str, Any]:
        return dict(self._options)

    def _attempt(
        self,
        messages: Sequence[ChatMessage],
        tools: Sequence[ToolSpec],
        tool_choice: str | None,
        json_schema: dict[str, Any] | None,
    ) -> Attempt:
        system, wire = to_wire(messages)
        request: dict[str, Any] = {"model": self.settings.model, **self._kwargs}
        if system:
            request["system"] = system
        if self._extra:
            request["extra_body"] = dict(self._extra)
        headers = scope_headers()
        if headers:
            request["extra_headers"] = headers
        wire_tools = [
            {"name": t.name, "description": t.description, "input_schema": t.parameters}
            for t in tools
        ]
        forced = tool_choice
        if json_schema is not None:
            wire_tools.append(
                {
                    "name": RESPOND_TOOL,
                    "description": "Give your answer: call this with the answer as its input.",
                    "input_schema": json_schema,
                }
            )
            forced = RESPOND_TOOL
        if wire_tools:
            request["tools"] = wire_tools
        notes: dict[str, Any] = {"request_options": sorted(self._kwargs)}
        if self._extra:
            notes["extra_body"] = sorted(self._extra)
        if json_schema is not None:
            notes["response_format"] = f"forced tool {RESPOND_TOOL!r}"
        if forced is not None:
            if "thinking" in self._kwargs:
                request["tool_choice"] = {"type": "auto"}
                notes["tool_choice_sent"] = "auto (thinking forbids forced tools)"
            else:
                request["tool_choice"] = {"type": "tool", "name": forced}
        try:
            message = self._client.messages.create(messages=wire, **request)
        except Exception as err:
            mapped = classify_sdk_error(err, self._sdk, provider=self.name, key_env=KEY_ENV)
            if mapped is err:
                raise
            raise mapped from err
        with reading_body():
            return self._parse(message, json_schema is not None, notes)

    def _parse(self, message: Any, structured: bool, notes: dict[str, Any]) -> Attempt:
        content = getattr(message, "content", None)
        if content is None:
            raise TransientError("response", "malformed body (no content)")
        texts: list[str] = []
        calls: list[ToolCall] = []
        reasoning: list[dict[str, Any]] = []
        answer: str | None = None
        for block in content:
            kind = getattr(block, "type", None)
            if kind == "thinking":
                reasoning.append(
                    {"type": "thinking", "thinking": block.thinking, "signature": block.signature}
                )
            elif kind == "redacted_thinking":
                reasoning.append({"type": "redacted_thinking", "data": block.data})
            elif kind == "text":
                if not isinstance(block.text, str):
                    raise TransientError("response", "malformed body (a text block has no text)")
                texts.append(block.text)
            elif kind == "tool_use":
                arguments = block.input if isinstance(block.input, dict) else {"_raw": block.input}
                if structured and block.name == RESPOND_TOOL and answer is None:
                    answer = json.dumps(arguments)
                else:
                    calls.append(ToolCall(id=block.id, name=block.name, arguments=arguments))
        text = "".join(texts)
        if structured and answer is None:
            log.warning("%s: no %r tool call; the text is the answer", self.name, RESPOND_TOOL)
        return Attempt(
            text=answer if answer is not None else text,
            tool_calls=calls,
            finish_reason=getattr(message, "stop_reason", None),
            usage=_usage(getattr(message, "usage", None)),
            notes=notes,
            reasoning_blocks=reasoning,
        )


def _usage(usage: Any) -> Usage:
    if usage is None:
        return Usage()
    details = getattr(usage, "output_tokens_details", None)
    return Usage(
        input=usage.input_tokens or 0,
        output=usage.output_tokens or 0,
        cache_read=getattr(usage, "cache_read_input_tokens", None) or 0,
        cache_write=getattr(usage, "cache_creation_input_tokens", None) or 0,
        reasoning=(getattr(details, "thinking_tokens", None) or 0) if details else 0,
    )


@register_provider("anthropic")
class AnthropicBackend(VendorBackend):
    """``anthropic/<model>``; key ``$ANTHROPIC_API_KEY``, URL ``--base-url`` or
    ``$ANTHROPIC_BASE_URL``."""

    key_env, url_env, vendor_host = KEY_ENV, URL_ENV, VENDOR_HOST

    def provider(self, settings: ProviderSettings, api_key: str) -> Provider:
        return AnthropicProvider(settings, api_key=api_key)
