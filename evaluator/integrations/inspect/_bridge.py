"""The ``inspect/<model>`` provider: our LLM agents' calls, made by Inspect's model.

An episode runs synchronously in a thread of its own (our protocols are synchronous);
Inspect's model lives on the sample's event loop. The solver sets a :class:`Bridge` in a
context variable before starting the episode's thread, which inherits it; each call of
the agent's provider is converted (:mod:`._convert`), sent back to the loop with
``asyncio.run_coroutine_threadsafe`` and awaited there by ``Model.generate``, so Inspect
applies its own retries, limits, cache and logging, and the sample's transcript records
every call. A failed call raises a ``ProviderError``, which our protocols record as a
failed episode, as any provider failure.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import Future
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from oracle_bench.errors import ProviderError, ProviderResponseError
from providers import (
    ChatMessage,
    Provider,
    ProviderSettings,
    Reply,
    ToolSpec,
    register_provider,
)

if TYPE_CHECKING:
    from inspect_ai.model import ChatMessage as InspectMessage
    from inspect_ai.model import Model, ModelOutput

__all__ = [
    "PROVIDER",
    "Bridge",
    "InspectBackend",
    "InspectLimitError",
    "InspectProvider",
    "agent_name",
    "bridged",
]

log = logging.getLogger(__name__)

PROVIDER = "inspect"
"""The provider name of the bridge: the agent of an Inspect sample is ``inspect/<model>``."""


def agent_name(model: str) -> str:
    """The LLM agent that plays through Inspect's ``model``: ``inspect/openai/gpt-4o``."""
    return f"{PROVIDER}/{model}"


class InspectLimitError(ProviderError):
    """Inspect stopped a model call at one of the sample's limits (tokens, messages, time,
    cost): the agent used up what it was given, so the episode fails as the agent's."""

    failure_cause = "agent"


@dataclass
class Bridge:
    """One sample's way back to Inspect: its event loop and model, and the last call."""

    loop: asyncio.AbstractEventLoop
    model: Model
    last: tuple[list[InspectMessage], ModelOutput] | None = None
    """The input and output of the last call (the sample's final messages)."""
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _pending: set[Future[Any]] = field(default_factory=set)
    _closed: bool = False

    def generate(
        self,
        messages: list[InspectMessage],
        tools: list[Any],
        choice: Any,
        name: str,
    ) -> ModelOutput:
        """``model.generate`` on the sample's loop, from the episode's thread."""
        with self._lock:
            if self._closed:
                raise ProviderError("the Inspect sample is over (cancelled or timed out)", name)
            future = asyncio.run_coroutine_threadsafe(
                self.model.generate(messages, tools=tools, tool_choice=choice), self.loop
            )
            self._pending.add(future)
        try:
            output = future.result()
        except Exception as exc:
            from inspect_ai.util import LimitExceededError

            if isinstance(exc, LimitExceededError):
                raise InspectLimitError(f"{exc.type} limit: {exc.message}", name) from None
            raise ProviderError(_one_line(exc), name) from exc
        finally:
            with self._lock:
                self._pending.discard(future)
        self.last = (messages, output)
        return output

    def close(self) -> None:
        """Refuse further calls and cancel those in flight (the sample was cancelled)."""
        with self._lock:
            self._closed = True
            pending, self._pending = list(self._pending), set()
        for future in pending:
            future.cancel()


_BRIDGE: ContextVar[Bridge | None] = ContextVar("oracle_bench_inspect_bridge", default=None)


@contextmanager
def bridged(bridge: Bridge) -> Iterator[Bridge]:
    """Within this block, this context's ``inspect/...`` providers call through ``bridge``
    (a thread started from it inherits it); the bridge is closed at the end."""
    token = _BRIDGE.set(bridge)
    try:
        yield bridge
    finally:
        _BRIDGE.reset(token)
        bridge.close()


def _one_line(exc: BaseException, limit: int = 300) -> str:
    text = " ".join(f"{type(exc).__name__}: {exc}".split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


class InspectProvider:
    """A :class:`~providers.Provider` whose calls go to the current sample's Inspect model."""

    def __init__(self, settings: ProviderSettings) -> None:
        self.settings = settings

    @property
    def name(self) -> str:
        return self.settings.spec

    def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        tools: Sequence[ToolSpec] = (),
        tool_choice: str | None = None,
        json_schema: dict[str, Any] | None = None,
    ) -> Reply:
        from evaluator.integrations.inspect._convert import (
            reply_from_output,
            to_inspect_messages,
            to_inspect_tools,
        )
        from evaluator.integrations.inspect._convert import (
            tool_choice as inspect_choice,
        )

        bridge = _BRIDGE.get()
        if bridge is None:
            raise ProviderResponseError("no Inspect sample is running this episode", self.name)
        if tool_choice is not None and tool_choice not in {t.name for t in tools}:
            raise ValueError(f"tool_choice {tool_choice!r} is not one of the tools offered")
        start = time.perf_counter()
        output = bridge.generate(
            to_inspect_messages(messages),
            to_inspect_tools(tools),
            inspect_choice(tools, tool_choice),
            self.name,
        )
        latency = time.perf_counter() - start
        reply = reply_from_output(output, name=self.name, latency_s=latency, cost_usd=None)
        cost = output.usage.total_cost if output.usage is not None else None
        if cost is None:
            # Priced as our own providers price the same model (``openai/gpt-4o``).
            cost = self.settings.pricing.price(self.settings.model, reply.usage)
        return reply.model_copy(update={"cost_usd": cost})

    def close(self) -> None:
        """Nothing to release: Inspect owns the model's client."""


@register_provider(PROVIDER, listed=False)  # usable inside an Inspect sample only
class InspectBackend:
    """``inspect/<model>``: the model of the running Inspect sample (see the module)."""

    def create(self, settings: ProviderSettings) -> Provider:
        return InspectProvider(settings)

    def check(self, model: str, *, base_url: str | None, connect_timeout: float) -> None:
        """Nothing to check: Inspect resolves and checks its model itself."""
