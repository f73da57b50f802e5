"""What every provider shares: settings, the call cache, the concurrency bound, retries,
timing, pricing and the ``params`` record. A provider implements one attempt."""

from __future__ import annotations

import abc
import contextlib
import logging
import os
import socket
import threading
import time
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from http import HTTPStatus
from typing import Any
from urllib.parse import SplitResult, quote, urlsplit

from pydantic import ValidationError

from oracle_bench.bounded import BoundsError, load_json, preview
from oracle_bench.errors import (
    ProviderConfigError,
    ProviderError,
    ProviderRateLimitError,
    ProviderResponseError,
    ProviderUnavailableError,
)
from providers.cache import CallCache, call_key, current_scope
from providers.pricing import PricingTable
from providers.retry import RetryPolicy, TransientError, parse_retry_after, run_with_retries
from providers.types import ChatMessage, Reply, RetryHook, ToolCall, ToolSpec, Usage

log = logging.getLogger(__name__)

PLACEHOLDER_KEY = "oracle-bench-no-key"
"""Sent as the API key to a self-hosted server when no key is set (they ignore it)."""

_SET_BY_ORACLE_BENCH = "oracle-bench sets it for every call"
RESERVED_OPTIONS: Mapping[str, str] = {
    "model": "set the model in the model string (provider/model)",
    "messages": "the messages are the prompts oracle-bench builds",
    "system": "the system prompt is the one oracle-bench builds",
    "stream": "streaming is not supported",
    "stream_options": "streaming is not supported",
    "n": "oracle-bench reads exactly one choice per call",
    "tools": "the tools are the ones oracle-bench offers",
    "tool_choice": _SET_BY_ORACLE_BENCH,
    "functions": "the tools are the ones oracle-bench offers",
    "function_call": _SET_BY_ORACLE_BENCH,
    "response_format": "structured output is requested by oracle-bench where needed",
    "extra_headers": _SET_BY_ORACLE_BENCH,
    "extra_query": _SET_BY_ORACLE_BENCH,
    "extra_body": "unknown keys already go into the request body",
    "timeout": "the per-attempt timeout is a provider setting, not a model option",
}
"""Request fields a model option (``-M key=value``) may not set, with what to do instead."""


def refuse_reserved_options(
    options: Mapping[str, Any], extra: Mapping[str, str] | None = None
) -> None:
    """A one-line ``ProviderConfigError`` naming the first option that would override a
    request field oracle-bench sets itself (``RESERVED_OPTIONS`` plus a vendor's ``extra``)."""
    reserved = {**RESERVED_OPTIONS, **(extra or {})}
    for key in options:
        hint = reserved.get(key)
        if hint is not None:
            raise ProviderConfigError(f"model option {key!r} cannot be set with -M: {hint}")


@dataclass(frozen=True)
class ProviderSettings:
    """Everything ``create_provider`` resolved for one provider instance."""

    provider: str
    """The registered provider name: ``openai``, ``anthropic``, ``scripted``."""
    model: str
    """The model id after the slash (a file path for ``scripted``)."""
    options: Mapping[str, Any] = field(default_factory=dict)
    base_url: str | None = None
    timeout: float = 600.0
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    on_retry: RetryHook | None = None
    cache: CallCache | None = None
    pricing: PricingTable = field(default_factory=PricingTable)
    semaphore: threading.BoundedSemaphore | None = None

    @property
    def spec(self) -> str:
        return f"{self.provider}/{self.model}"


@dataclass(frozen=True)
class Attempt:
    """What one successful attempt produced, before accounting."""

    text: str
    tool_calls: list[ToolCall]
    finish_reason: str | None
    usage: Usage
    notes: Mapping[str, Any] = field(default_factory=dict)
    """Extra entries for ``Reply.params`` (e.g. a dropped response_format)."""
    reasoning_blocks: list[dict[str, Any]] = field(default_factory=list)


class BaseProvider(abc.ABC):
    """Cache, concurrency bound, retries, latency, cost and params around ``_attempt``."""

    def __init__(self, settings: ProviderSettings) -> None:
        self.settings = settings

    @property
    def name(self) -> str:
        return self.settings.spec

    def effective_options(self) -> dict[str, Any]:
        """The model options as sent (defaults filled in); part of the cache key."""
        return dict(self.settings.options)

    @abc.abstractmethod
    def _attempt(
        self,
        messages: Sequence[ChatMessage],
        tools: Sequence[ToolSpec],
        tool_choice: str | None,
        json_schema: dict[str, Any] | None,
    ) -> Attempt:
        """One request. Raise ``TransientError`` to be retried, ``ProviderError`` to stop.

        Read the 200 response inside ``with reading_body():`` so that any failure there is a
        malformed body; ``complete`` also checks that the ``Attempt`` makes a valid ``Reply``.
        """

    def close(self) -> None:
        """Release the HTTP client, if any (providers are also fine to drop unclosed)."""
        client = getattr(self, "_client", None)
        if client is not None:
            client.close()

    def _cache_hit(self, reply: Reply, messages: Sequence[ChatMessage]) -> None:  # noqa: B027
        """Called when a call is served from the cache (the scripted provider advances);
        a hook, doing nothing unless a provider needs it."""

    def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        tools: Sequence[ToolSpec] = (),
        tool_choice: str | None = None,
        json_schema: dict[str, Any] | None = None,
    ) -> Reply:
        if tool_choice is not None and tool_choice not in {t.name for t in tools}:
            raise ValueError(f"tool_choice {tool_choice!r} is not one of the tools offered")
        settings = self.settings
        options = self.effective_options()
        key = None
        if settings.cache is not None:
            key = call_key(
                provider=settings.provider,
                model=settings.model,
                messages=messages,
                tools=tools,
                tool_choice=tool_choice,
                json_schema=json_schema,
                options=options,
            )
            hit = settings.cache.get(key)
            if hit is not None:
                log.debug("%s: served from the call cache (%s)", self.name, key[:12])
                self._cache_hit(hit, messages)
                # ``cost_usd`` stays what the call cost when it was paid (by the run that
                # was cut off); ``cached`` says it was not paid again now.
                return hit.model_copy(update={"cached": True})

        def attempt() -> tuple[Reply, Mapping[str, Any]]:
            result = self._attempt(messages, tools, tool_choice, json_schema)
            # Whatever a provider made of the body must make a valid Reply, or the body
            # was malformed (e.g. a list where the text should be): retried like one.
            with reading_body():
                checked = Reply(
                    text=result.text,
                    tool_calls=result.tool_calls,
                    finish_reason=result.finish_reason,
                    reasoning_blocks=result.reasoning_blocks,
                    usage=result.usage,
                    model=self.name,
                    cost_usd=settings.pricing.price(self.name, result.usage),
                )
                return checked, dict(result.notes)

        sem = settings.semaphore
        if sem is not None:
            sem.acquire()
        try:
            start = time.perf_counter()
            (checked, notes), retries = run_with_retries(
                attempt,
                policy=settings.retry,
                provider_name=self.name,
                on_retry=settings.on_retry,
            )
            latency = time.perf_counter() - start
        finally:
            if sem is not None:
                sem.release()

        params: dict[str, Any] = {
            "provider": settings.provider,
            "model": settings.model,
            "options": options,
            "base_url": settings.base_url,
            "tools": [t.name for t in tools],
            "tool_choice": tool_choice,
            "json_schema": json_schema is not None,
        }
        params.update(notes)
        reply = checked.model_copy(
            update={"params": params, "latency_s": latency, "retries": retries}
        )
        if settings.cache is not None and key is not None:
            settings.cache.put(key, reply)
        return reply


@contextlib.contextmanager
def reading_body() -> Iterator[None]:
    """Around reading and normalising a 200 response: any failure there (a null where an
    object should be, a wrong type, a missing field) is a malformed body, a
    ``TransientError`` the retry layer retries and finally reports as a
    ``ProviderResponseError`` with a one-line reason."""
    try:
        yield
    except (TransientError, ProviderError):
        raise
    except Exception as err:
        raise TransientError("response", f"malformed body ({describe_error(err)})") from err


def describe_error(err: BaseException) -> str:
    """One line: ``Type: message``; for a pydantic error, the first failing field."""
    if isinstance(err, ValidationError) and err.errors():
        first = err.errors()[0]
        where = ".".join([err.title, *(str(p) for p in first["loc"])])
        got = repr(first.get("input"))
        got = got if len(got) <= 60 else got[:57] + "..."
        return _one_line(f"{where}: {first['msg']}, got {got}")
    return f"{type(err).__name__}: {_one_line(str(err))}".rstrip(": ")


def split_base_url(url: str) -> SplitResult:
    """The parts of an ``http(s)://host[:port]/...`` base URL, or a one-line config error."""
    try:
        parts = urlsplit(url)
        hostname = parts.hostname
    except ValueError as err:
        raise ProviderConfigError(f"bad base URL {url!r}: {err}") from None
    if parts.scheme not in {"http", "https"} or not hostname:
        raise ProviderConfigError(
            f"bad base URL {url!r}: expected http://host:port/... or https://..."
        )
    try:
        _ = parts.port  # raises on a port that is not a number (or out of range)
    except ValueError:
        raise ProviderConfigError(f"bad base URL {url!r}: the port is not a number") from None
    return parts


def is_local_url(url: str) -> bool:
    try:
        host = (urlsplit(url).hostname or "").lower()
    except ValueError:
        return False
    return host in {"localhost", "::1", "0.0.0.0"} or host.startswith("127.")


def resolve_api_key(
    *, key_env: str, url_env: str, base_url: str | None, default_host: str
) -> tuple[str, str | None]:
    """``(api_key, base_url)`` from arguments and environment, or a one-line config error.

    A base URL other than the vendor's may run without a key: a placeholder is sent then.
    A malformed base URL is a config error.
    """
    url = base_url or os.environ.get(url_env) or None
    host = None if url is None else split_base_url(url).hostname
    key = os.environ.get(key_env) or ""
    if key:
        return key, url
    if url is not None and (host or "") != default_host:
        return PLACEHOLDER_KEY, url
    raise ProviderConfigError(
        f"set {key_env} (or pass --base-url / set {url_env} for a local server, which needs no key)"
    )


def check_reachable(
    url: str, *, url_env: str, connect_timeout: float, vendor: bool = False
) -> None:
    """A TCP connect to the URL's host and port (or to the proxy the SDKs would use for
    it), name resolution included, within ``connect_timeout`` seconds; else a one-line
    ``ProviderConfigError`` naming what is unreachable and what to set.

    ``vendor``: the URL is the vendor's API (no base URL set), so the hint is the network
    or a proxy, not a server to start.
    """
    parts = split_base_url(url)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    proxy = _proxy_for(parts.scheme, host)
    target, via = (host, port), ""
    if proxy is not None:
        target, via = proxy, f" through the proxy {proxy[0]}:{proxy[1]}"
    try:
        _connect(*target, timeout=connect_timeout)
    except OSError as err:
        reason = _describe_socket_error(err)
        if vendor:
            hint = (
                "check the network (or HTTPS_PROXY), or set --base-url/"
                f"{url_env} to a server that is reachable"
            )
        else:
            hint = f"is the server running? set --base-url/{url_env}"
        raise ProviderConfigError(f"cannot reach {url}{via}: {reason}; {hint}") from None


def _proxy_for(scheme: str, host: str) -> tuple[str, int] | None:
    """(host, port) of the proxy the SDKs' HTTP client takes from the environment for
    ``scheme://host``, or None (no proxy, or ``NO_PROXY`` covers the host)."""
    proxies = urllib.request.getproxies()
    proxy = proxies.get(scheme) or proxies.get("all")
    if not proxy or urllib.request.proxy_bypass(host):
        return None
    try:
        parts = urlsplit(proxy if "://" in proxy else f"http://{proxy}")
        if not parts.hostname:
            return None
        return parts.hostname, parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return None


class _ResolveTimeout(TimeoutError):
    """Name resolution took longer than the connect timeout."""


def _connect(host: str, port: int, *, timeout: float) -> None:
    """Resolve and connect within ``timeout`` seconds in all, or raise ``OSError``.

    ``socket.create_connection`` bounds only the connect: a resolver that hangs (no
    network, an unreachable DNS server) can take far longer, so resolution runs in a
    daemon thread that is abandoned at the deadline.
    """
    deadline = time.monotonic() + timeout
    found: list[Any] = []
    failed: list[OSError] = []

    def resolve() -> None:
        try:
            found.extend(socket.getaddrinfo(host, port, type=socket.SOCK_STREAM))
        except OSError as err:
            failed.append(err)

    thread = threading.Thread(target=resolve, name="oracle-bench-resolve", daemon=True)
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        raise _ResolveTimeout("name resolution timed out")
    if failed:
        raise failed[0]
    error: OSError = OSError("no address")
    for family, kind, proto, _, address in found:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("timed out")
        with socket.socket(family, kind, proto) as sock:
            sock.settimeout(remaining)
            try:
                sock.connect(address)
            except OSError as err:
                error = err
                continue
            return
    raise error


def _describe_socket_error(err: OSError) -> str:
    if isinstance(err, ConnectionRefusedError):
        return "connection refused"
    if isinstance(err, _ResolveTimeout):
        return "name resolution timed out"
    if isinstance(err, TimeoutError):
        return "connection timed out"
    if isinstance(err, socket.gaierror):
        return "unknown host"
    return (err.strerror or str(err) or type(err).__name__).lower()


def _cause_text(err: BaseException) -> str:
    seen: set[int] = set()
    cause = err.__cause__ or err.__context__
    text = ""
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        text = str(cause) or type(cause).__name__
        cause = cause.__cause__ or cause.__context__
    return " ".join(text.split())


def _looks_truncated(detail: str) -> bool:
    lowered = detail.lower()
    return "incomplete" in lowered or "complete message body" in lowered


def classify_sdk_error(err: Exception, sdk: Any, *, provider: str, key_env: str) -> Exception:
    """Map an openai/anthropic SDK exception (same class names in both) to what the retry
    layer understands: a ``TransientError`` to retry or a ``ProviderError`` to raise."""
    if isinstance(err, sdk.APITimeoutError):
        return TransientError("timeout", "timeout")
    if isinstance(err, sdk.APIConnectionError):
        detail = _cause_text(err)
        if _looks_truncated(detail):
            return TransientError("response", f"truncated body ({detail})")
        return TransientError("connection", f"connection error ({detail or 'no detail'})")
    if isinstance(err, sdk.APIResponseValidationError):
        return TransientError("response", f"malformed body ({_one_line(str(err))})")
    if isinstance(err, sdk.APIStatusError):
        status = int(err.status_code)
        phrase = _phrase(status)
        headers = err.response.headers
        retry_after = None
        if headers.get("retry-after-ms"):
            ms = parse_retry_after(headers.get("retry-after-ms"))
            retry_after = None if ms is None else ms / 1000
        if retry_after is None:
            retry_after = parse_retry_after(headers.get("retry-after"))
        suffix = "" if retry_after is None else f" (Retry-After {retry_after:g})"
        message = _error_message(err)
        should_retry = (headers.get("x-should-retry") or "").strip().lower()
        if should_retry == "false" and (status == 429 or status >= 500):
            final = ProviderRateLimitError if status == 429 else ProviderUnavailableError
            return final(f"{status} {phrase}: {message} (the server said not to retry)", provider)
        if should_retry == "true" and status < 500 and status != 429:
            return TransientError("server", f"{status} {phrase}{suffix}", retry_after)
        if status == 429:
            return TransientError("rate_limit", f"429 {phrase}{suffix}", retry_after)
        if status >= 500:
            return TransientError("server", f"{status} {phrase}{suffix}", retry_after)
        hint = f"; check {key_env}" if status in (401, 403) else ""
        return ProviderResponseError(f"{status} {phrase}: {message}{hint}", provider)
    if isinstance(err, ValueError):
        return TransientError(
            "response", f"malformed body ({type(err).__name__}: {_one_line(str(err))})"
        )
    if type(err).__module__.split(".")[0] in {"httpx", "httpx2"}:
        detail = _one_line(str(err)) or type(err).__name__
        if _looks_truncated(detail):
            return TransientError("response", f"truncated body ({detail})")
        return TransientError("connection", f"connection error ({detail})")
    return err


def _error_message(err: Exception) -> str:
    body = getattr(err, "body", None)
    if isinstance(body, dict):
        inner = body.get("error")
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return _one_line(inner["message"])
        if isinstance(body.get("message"), str):
            return _one_line(body["message"])
    return _one_line(getattr(err, "message", "") or str(err))


def _phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "HTTP error"


def _one_line(text: str, limit: int = 300) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


RAW_ARGUMENTS_KEY = "_raw"
"""The key of :func:`parse_arguments`' stand-in for unusable arguments. Internal: a
consumer reports the arguments as unusable and never shows this key to a model."""


def parse_arguments(raw: Any) -> dict[str, Any]:
    """Tool-call arguments: a JSON object string, an object some servers send as is, or an
    object encoded twice (a string holding JSON text, a quirk of some open models); anything
    else -> ``{"_raw": raw}`` (logged; a non-string ``raw`` as clipped JSON-like text).

    Strings are read with :func:`oracle_bench.bounded.load_json`, so text over its limits
    (a 10 MB string, 1000 levels of nesting, a 4301-digit number, NaN) is unusable too:
    this never raises. An object sent as is comes back as is; its consumers bound it.
    """
    if isinstance(raw, dict):
        return raw
    if not raw:
        return {}
    value: Any = raw
    for _ in range(2):
        if not isinstance(value, str):
            break
        try:
            value = load_json(value, what="the arguments")
        except (BoundsError, ValueError):  # json.JSONDecodeError is a ValueError
            break
    if isinstance(value, dict):
        return value
    log.warning("tool call arguments are not a JSON object: %s", preview(raw, 120))
    return {RAW_ARGUMENTS_KEY: raw if isinstance(raw, str) else preview(raw, 1 << 16)}


SCOPE_HEADER = "x-oracle-bench-scope"
"""Sent with every request made inside a :func:`~providers.cache.call_scope`: it names the
call site (e.g. an evaluation episode), so a server's request log can be grouped by it."""


def scope_headers() -> dict[str, str]:
    """``{SCOPE_HEADER: <scope, percent-encoded to ASCII>}``, or {} outside any scope."""
    scope = current_scope()
    return {SCOPE_HEADER: quote(scope, safe="/:@._-~")} if scope else {}


class VendorBackend(abc.ABC):
    """What the SDK backends share: the API key and base URL from arguments or the
    environment (``resolve_api_key``), and a preflight that also connects to a set URL."""

    key_env: str
    url_env: str
    vendor_host: str

    @abc.abstractmethod
    def provider(self, settings: ProviderSettings, api_key: str) -> Any:
        """The provider for resolved settings (its ``base_url`` is the one to use)."""

    def create(self, settings: ProviderSettings) -> Any:
        key, url = resolve_api_key(
            key_env=self.key_env,
            url_env=self.url_env,
            base_url=settings.base_url,
            default_host=self.vendor_host,
        )
        return self.provider(replace(settings, base_url=url), key)

    @property
    def vendor_url(self) -> str:
        """The vendor's API, where calls go when no base URL is set."""
        return f"https://{self.vendor_host}"

    def check(self, model: str, *, base_url: str | None, connect_timeout: float) -> None:
        """The key (or a non-vendor URL), then a connect to the server calls will go to:
        the base URL, else the vendor's API (an unreachable API would otherwise cost
        every call its full retry schedule before failing)."""
        _, url = resolve_api_key(
            key_env=self.key_env,
            url_env=self.url_env,
            base_url=base_url,
            default_host=self.vendor_host,
        )
        check_reachable(
            url or self.vendor_url,
            url_env=self.url_env,
            connect_timeout=connect_timeout,
            vendor=url is None,
        )


def count_words(text: str) -> int:
    return len(text.split())
