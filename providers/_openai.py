"""``openai/<model>``: the openai SDK, Chat Completions, against OpenAI or any compatible
server (vLLM, Ollama, llama.cpp, the loopback server) via ``--base-url``/``OPENAI_BASE_URL``.

Options: ``temperature``, ``top_p``, ``seed``, ``reasoning_effort`` and the other keyword
arguments of ``chat.completions.create`` go in as such; ``max_tokens`` is sent as
``max_completion_tokens`` to OpenAI itself and as ``max_tokens`` to other servers (which all
accept it); anything else goes into the request body as an extra key.
"""

from __future__ import annotations

import inspect
import itertools
import json
import logging
import re
from collections.abc import Sequence
from typing import Any

from providers._base import (
    Attempt,
    BaseProvider,
    ProviderSettings,
    VendorBackend,
    classify_sdk_error,
    parse_arguments,
    reading_body,
    refuse_reserved_options,
    scope_headers,
)
from providers.registry import register_provider
from providers.retry import TransientError
from providers.types import ChatMessage, Provider, ToolCall, ToolSpec, Usage

log = logging.getLogger(__name__)

_fallback_ids = itertools.count(1)

KEY_ENV = "OPENAI_API_KEY"
URL_ENV = "OPENAI_BASE_URL"
VENDOR_HOST = "api.openai.com"
_RESERVED = frozenset(
    {
        "messages",
        "model",
        "tools",
        "tool_choice",
        "response_format",
        "stream",
        "extra_headers",
        "extra_query",
        "extra_body",
        "timeout",
    }
)


def _message(msg: ChatMessage) -> dict[str, Any]:
    if msg.role == "tool":
        return {"role": "tool", "tool_call_id": msg.tool_call_id or "", "content": msg.content}
    if msg.role == "assistant" and msg.tool_calls:
        return {
            "role": "assistant",
            "content": msg.content or None,
            "tool_calls": [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": json.dumps(call.arguments)},
                }
                for call in msg.tool_calls
            ],
        }
    return {"role": msg.role, "content": msg.content}


def schema_instruction(schema: dict[str, Any]) -> str:
    return (
        "Answer with one JSON object matching this JSON schema, and nothing else:\n"
        + json.dumps(schema, sort_keys=True)
    )


def _with_instruction(messages: list[dict[str, Any]], text: str) -> list[dict[str, Any]]:
    if messages and messages[0]["role"] == "system":
        first = dict(messages[0])
        first["content"] = f"{first['content']}\n\n{text}"
        return [first, *messages[1:]]
    return [{"role": "system", "content": text}, *messages]


class _SchemaRefusedError(Exception):
    """The server answered 400 to ``response_format``: try once more without it."""


class OpenAIProvider(BaseProvider):
    def __init__(self, settings: ProviderSettings, *, api_key: str) -> None:
        super().__init__(settings)
        refuse_reserved_options(settings.options)
        import openai
        from openai.types.chat import ChatCompletion

        self._sdk = openai
        self._completion_type = ChatCompletion
        self._client: Any = openai.OpenAI(
            api_key=api_key,
            base_url=settings.base_url,
            max_retries=0,
            timeout=settings.timeout,
        )
        accepted = set(inspect.signature(self._client.chat.completions.create).parameters)
        self._accepted = accepted - _RESERVED
        self._schema_ok = True
        self._kwargs, self._extra = self._split_options()

    def _split_options(self) -> tuple[dict[str, Any], dict[str, Any]]:
        kwargs: dict[str, Any] = {}
        extra: dict[str, Any] = {}
        vendor = self.settings.base_url is None
        for key, value in self.settings.options.items():
            name = key
            if key == "max_tokens" and vendor and "max_completion_tokens" in self._accepted:
                name = "max_completion_tokens"
            if name in self._accepted:
                kwargs[name] = value
            else:
                extra[name] = value
        return kwargs, extra

    def _attempt(
        self,
        messages: Sequence[ChatMessage],
        tools: Sequence[ToolSpec],
        tool_choice: str | None,
        json_schema: dict[str, Any] | None,
    ) -> Attempt:
        wire = [_message(m) for m in messages]
        request: dict[str, Any] = {"model": self.settings.model, **self._kwargs}
        if self._extra:
            request["extra_body"] = dict(self._extra)
        headers = scope_headers()
        if headers:
            request["extra_headers"] = headers
        if tools:
            request["tools"] = [
                {
                    "type": "function",
                    "function": {
                        "name": t.name,
                        "description": t.description,
                        "parameters": t.parameters,
                    },
                }
                for t in tools
            ]
        if tool_choice is not None:
            request["tool_choice"] = {"type": "function", "function": {"name": tool_choice}}
        notes: dict[str, Any] = {"request_options": sorted(self._kwargs)}
        if self._extra:
            notes["extra_body"] = sorted(self._extra)
        if json_schema is not None and self._schema_ok:
            name = re.sub(r"[^A-Za-z0-9_-]", "_", str(json_schema.get("title") or "response"))
            request["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": name[:64], "schema": json_schema, "strict": False},
            }
            notes["response_format"] = "json_schema"
            try:
                completion = self._create(wire, request)
            except _SchemaRefusedError as err:
                log.warning(
                    "%s: the server refused response_format json_schema (400); "
                    "asking for JSON in the prompt instead",
                    self.name,
                )
                self._schema_ok = False
                del request["response_format"]
                notes["response_format"] = f"dropped after 400: {err}"[:300]
                wire = _with_instruction(wire, schema_instruction(json_schema))
                completion = self._create(wire, request)
        elif json_schema is not None:
            notes["response_format"] = "dropped: the server refused json_schema earlier"
            wire = _with_instruction(wire, schema_instruction(json_schema))
            completion = self._create(wire, request)
        else:
            completion = self._create(wire, request)
        with reading_body():
            return self._parse(completion, notes)

    def _create(self, wire: list[dict[str, Any]], request: dict[str, Any]) -> Any:
        # The SDK's documented custom-request path (``client.post``) with its own
        # ChatCompletion model. ``chat.completions.create`` would first re-walk the whole
        # body against its TypedDicts, which for our already wire-shaped messages is an
        # identity costing ~70% of the CPU of a call, growing with the history.
        body = {"messages": wire, **request}
        options: dict[str, Any] = {"security": {"bearer_auth": True}}
        extra = body.pop("extra_body", None)
        if extra:
            body = {**extra, **body}
        headers = body.pop("extra_headers", None)
        if headers:
            options["headers"] = headers
        try:
            return self._client.post(
                "/chat/completions", cast_to=self._completion_type, body=body, options=options
            )
        except Exception as err:
            if "response_format" in request and isinstance(err, self._sdk.BadRequestError):
                raise _SchemaRefusedError(" ".join(str(err).split())) from err
            mapped = classify_sdk_error(err, self._sdk, provider=self.name, key_env=KEY_ENV)
            if mapped is err:
                raise
            raise mapped from err

    def _parse(self, completion: Any, notes: dict[str, Any]) -> Attempt:
        choices = getattr(completion, "choices", None)
        if not choices:
            raise TransientError("response", "malformed body (no choices)")
        choice = choices[0]
        message = getattr(choice, "message", None)
        if message is None:
            raise TransientError("response", "malformed body (choices[0].message is null)")
        calls = []
        n = next(_fallback_ids)
        for i, call in enumerate(message.tool_calls or []):
            function = getattr(call, "function", None)
            if function is None:
                continue
            calls.append(
                ToolCall(
                    # Unique ids even when a server sends none: results are matched by id.
                    id=call.id or f"call_{n}_{i}",
                    name=function.name,
                    arguments=parse_arguments(function.arguments),
                )
            )
        return Attempt(
            text=message.content or "",
            tool_calls=calls,
            finish_reason=choice.finish_reason,
            usage=_usage(getattr(completion, "usage", None)),
            notes=notes,
        )


def _usage(usage: Any) -> Usage:
    if usage is None:
        return Usage()
    prompt = usage.prompt_tokens or 0
    details = getattr(usage, "prompt_tokens_details", None)
    cached = (getattr(details, "cached_tokens", None) or 0) if details else 0
    written = (getattr(details, "cache_write_tokens", None) or 0) if details else 0
    out_details = getattr(usage, "completion_tokens_details", None)
    reasoning = (getattr(out_details, "reasoning_tokens", None) or 0) if out_details else 0
    return Usage(
        input=max(prompt - cached - written, 0),
        output=usage.completion_tokens or 0,
        cache_read=cached,
        cache_write=written,
        reasoning=reasoning,
    )


@register_provider("openai")
class OpenAIBackend(VendorBackend):
    """``openai/<model>``; key ``$OPENAI_API_KEY``, URL ``--base-url`` or ``$OPENAI_BASE_URL``."""

    key_env, url_env, vendor_host = KEY_ENV, URL_ENV, VENDOR_HOST

    def provider(self, settings: ProviderSettings, api_key: str) -> Provider:
        return OpenAIProvider(settings, api_key=api_key)
