"""``scripted/<replies.jsonl>``: replay scripted replies in process, no HTTP.

The file has the loopback server's format (one :class:`providers.loopback.ScriptedReply`
per line: ``text``, ``tool_calls``, ``usage``, ``fault``, ``retry_after``, ``delay``,
``match``) and is served the same way: the first unserved line whose ``match`` is absent
or occurs in the last user/tool message answers the call. A line with a ``fault`` fails
that attempt through the same retry layer as the real providers (``rate_limit`` honours
``retry_after``; ``server_error``, ``disconnect``, ``malformed``, ``truncated``; ``slow``
waits ``delay`` and times out if that exceeds the provider's timeout), so scripts exercise
retries deterministically. Usage keys not scripted are counted as the loopback server
counts them (words in, words out). When no line is left: ``ProviderResponseError``.

With a call cache, a call served from the cache still consumes its lines (faults included),
so a resumed run stays aligned with its script.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from oracle_bench.errors import ProviderConfigError, ProviderResponseError, UsageError
from providers._base import Attempt, BaseProvider, ProviderSettings, count_words
from providers.loopback import THINKING_SIGNATURE, ScriptedReply, load_script
from providers.registry import register_provider
from providers.retry import TransientError
from providers.types import ChatMessage, Provider, Reply, ToolCall, ToolSpec, Usage

__all__ = ["ScriptedBackend", "ScriptedProvider"]

log = logging.getLogger(__name__)

_USAGE_KEYS = ("input", "output", "cache_read", "cache_write", "reasoning")


def _last_text(messages: Sequence[ChatMessage]) -> str:
    for msg in reversed(messages):
        if msg.role in ("user", "tool"):
            return msg.content
    return messages[-1].content if messages else ""


def _load(path: str) -> list[ScriptedReply]:
    try:
        return load_script(Path(path))
    except UsageError as err:
        raise ProviderConfigError(f"scripted provider: {err}") from None


class ScriptedProvider(BaseProvider):
    """Serves a script's lines in order (see the module docstring). Thread-safe."""

    def __init__(self, settings: ProviderSettings, script: Sequence[ScriptedReply]) -> None:
        super().__init__(settings)
        self._script = list(script)
        self._served = [False] * len(self._script)
        self._lock = threading.Lock()

    @property
    def remaining(self) -> int:
        """Lines not served yet."""
        with self._lock:
            return self._served.count(False)

    def _take(self, messages: Sequence[ChatMessage]) -> tuple[int, ScriptedReply]:
        text = _last_text(messages)
        with self._lock:
            pending = [i for i, done in enumerate(self._served) if not done]
            chosen = next((i for i in pending if _matches(self._script[i], text)), None)
            if chosen is None:
                if not pending:
                    raise ProviderResponseError(
                        f"script exhausted after {len(self._script)} replies", self.name
                    )
                raise ProviderResponseError(
                    f"none of the {len(pending)} remaining script lines matches the last "
                    f"message {text[:80]!r}",
                    self.name,
                )
            self._served[chosen] = True
            return chosen, self._script[chosen]

    def _cache_hit(self, reply: Reply, messages: Sequence[ChatMessage]) -> None:
        # Consume what the original call consumed: its fault lines, then one answer.
        for _ in range(len(self._script)):
            try:
                _, line = self._take(messages)
            except ProviderResponseError:
                log.warning("%s: a cached call has no script line left to consume", self.name)
                return
            if line.fault in (None, "slow") and line.delay <= self.settings.timeout:
                return

    def _attempt(
        self,
        messages: Sequence[ChatMessage],
        tools: Sequence[ToolSpec],
        tool_choice: str | None,
        json_schema: dict[str, Any] | None,
    ) -> Attempt:
        index, line = self._take(messages)
        timeout = self.settings.timeout
        if line.delay:
            time.sleep(min(line.delay, timeout))
            if line.delay > timeout:
                raise TransientError("timeout", "timeout")
        fault = line.fault
        if fault == "rate_limit":
            suffix = "" if line.retry_after is None else f" (Retry-After {line.retry_after:g})"
            raise TransientError("rate_limit", f"429 Too Many Requests{suffix}", line.retry_after)
        if fault == "server_error":
            raise TransientError("server", "500 Internal Server Error")
        if fault == "disconnect":
            raise TransientError("connection", "connection error (server disconnected)")
        if fault == "malformed":
            raise TransientError("response", "malformed body (scripted)")
        if fault == "truncated":
            raise TransientError("response", "truncated body (scripted)")
        calls = [
            ToolCall(
                id=str(call.get("id") or f"call_script_{index + 1}_{i}"),
                name=str(call["name"]),
                arguments=dict(call.get("arguments", {})),
            )
            for i, call in enumerate(line.tool_calls)
        ]
        counted = {
            "input": sum(count_words(m.content) for m in messages),
            "output": count_words(line.text)
            + sum(count_words(json.dumps(c.get("arguments", {}))) for c in line.tool_calls),
        }
        usage = Usage(**{k: line.usage.get(k, counted.get(k, 0)) for k in _USAGE_KEYS})
        reasoning = (
            []
            if line.thinking is None
            else [{"type": "thinking", "thinking": line.thinking, "signature": THINKING_SIGNATURE}]
        )
        return Attempt(
            text=line.text,
            tool_calls=calls,
            finish_reason="tool_calls" if calls else "stop",
            usage=usage,
            notes={"script_line": index + 1},
            reasoning_blocks=reasoning,
        )


def _matches(line: ScriptedReply, text: str) -> bool:
    return line.match is None or line.match in text


@register_provider("scripted")
class ScriptedBackend:
    """``scripted/<path.jsonl>``: the path is relative to the working directory."""

    def create(self, settings: ProviderSettings) -> Provider:
        return ScriptedProvider(settings, _load(settings.model))

    def check(self, model: str, *, base_url: str | None, connect_timeout: float) -> None:
        _load(model)
