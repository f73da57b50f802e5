"""Provider strings, model options, the registry, ``create_provider`` and the preflight.

A provider string is ``provider/model``: ``openai/gpt-5.4``, ``anthropic/claude-sonnet-4-5``,
``scripted/replies.jsonl`` (everything after the first slash is the model, so a scripted
path may contain slashes). Backends register under their name with
:func:`register_provider`; the built-in ones are loaded on first use.

Concurrency: ``create_provider(..., max_concurrency=N)`` bounds the calls in flight with a
``threading.BoundedSemaphore`` shared by every provider of the same provider name created
with a bound (all ``openai/...`` providers share one, whatever their model); a call holds
its slot through its retries. Creating a provider with a different N replaces the shared
semaphore for providers created afterwards.
"""

from __future__ import annotations

import importlib
import json
import re
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, TypeVar

from oracle_bench.errors import ProviderConfigError
from providers._base import ProviderSettings
from providers.cache import CallCache
from providers.pricing import PricingTable, load_pricing
from providers.retry import RetryPolicy
from providers.types import Provider, RetryHook

__all__ = [
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
]

_SPEC_FORMS = "openai/<model>, anthropic/<model> or scripted/<replies.jsonl>"
_BUILTIN_MODULES = ("providers._openai", "providers._anthropic", "providers.scripted")
_NAME = re.compile(r"^[a-z][a-z0-9_-]*$")
_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*$")
_INT = re.compile(r"^[+-]?\d+$")
_FLOAT = re.compile(r"^[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?$")


class ProviderBackend(Protocol):
    """What :func:`register_provider` registers (a class, instantiated without arguments)."""

    def create(self, settings: ProviderSettings) -> Provider:
        """Build a provider; raise ``ProviderConfigError`` for a bad model or options."""
        ...

    def check(self, model: str, *, base_url: str | None, connect_timeout: float) -> None:
        """Preflight before any work: keys set, server reachable, files readable."""
        ...


B = TypeVar("B", bound=type)

_registry: dict[str, ProviderBackend] = {}
_unlisted: set[str] = set()
_registry_lock = threading.Lock()
_builtins_loaded = False
_semaphores: dict[str, tuple[int, threading.BoundedSemaphore]] = {}
_semaphores_lock = threading.Lock()


def register_provider(name: str, *, listed: bool = True) -> Callable[[B], B]:
    """Class decorator: register a :class:`ProviderBackend` as ``name`` (``name/<model>``).

    ``listed=False`` keeps it out of :func:`provider_names` (and the "available" lists of
    errors): for a provider that works only inside a host framework, such as Inspect's
    bridge, which a command line cannot use."""
    if not _NAME.match(name):
        raise ValueError(f"bad provider name {name!r}: lower-case letters, digits, '-', '_'")

    def decorate(cls: B) -> B:
        with _registry_lock:
            _registry[name] = cls()
            if listed:
                _unlisted.discard(name)
            else:
                _unlisted.add(name)
        return cls

    return decorate


def _load_builtins() -> None:
    global _builtins_loaded
    if _builtins_loaded:
        return
    for module in _BUILTIN_MODULES:
        importlib.import_module(module)
    _builtins_loaded = True


def provider_names() -> list[str]:
    """Registered provider names, sorted (the unlisted ones left out)."""
    _load_builtins()
    with _registry_lock:
        return sorted(set(_registry) - _unlisted)


def _backend(name: str) -> ProviderBackend:
    _load_builtins()
    with _registry_lock:
        backend = _registry.get(name)
    if backend is None:
        raise ProviderConfigError(
            f"unknown provider {name!r}; available: {', '.join(provider_names())}"
        )
    return backend


def parse_model_spec(spec: str) -> tuple[str, str]:
    """``"openai/gpt-5.4"`` -> ``("openai", "gpt-5.4")``; a malformed spec is a config error.

    The provider name is not checked against the registry here (``create_provider`` and
    ``check_provider`` do that).
    """
    provider, slash, model = spec.strip().partition("/")
    if not slash or not provider or not model.strip():
        raise ProviderConfigError(f"bad model {spec!r}: expected {_SPEC_FORMS}")
    return provider.lower(), model.strip()


def _typed(value: str) -> Any:
    text = value.strip()
    lowered = text.lower()
    if lowered in {"true", "false"}:
        return lowered == "true"
    if lowered in {"null", "none"}:
        return None
    if _INT.match(text):
        return int(text)
    if _FLOAT.match(text):
        return float(text)
    if text[:1] in {"{", "[", '"'}:
        return json.loads(text)
    return value


def parse_model_options(items: Sequence[str]) -> dict[str, Any]:
    """``["temperature=0", "reasoning_effort=medium"]`` -> ``{"temperature": 0, ...}``.

    Values become bool (``true``/``false``), None (``null``/``none``), int, float, JSON
    (starting with ``{``, ``[`` or ``"``) or else stay strings. A later key overrides an
    earlier one. A malformed item raises ``ProviderConfigError``.
    """
    options: dict[str, Any] = {}
    for item in items:
        key, eq, value = item.partition("=")
        key = key.strip()
        if not eq or not _KEY.match(key):
            raise ProviderConfigError(
                f"bad model option {item!r}: expected KEY=VALUE, e.g. temperature=0"
            )
        try:
            options[key] = _typed(value)
        except json.JSONDecodeError as err:
            raise ProviderConfigError(
                f"bad model option {item!r}: invalid JSON value ({err.msg})"
            ) from None
    return options


_PROVIDER_PREFIX = re.compile(r"^([A-Za-z][A-Za-z0-9_-]*)=(.+)$")


def parse_base_urls(items: Sequence[str]) -> dict[str, str]:
    """``--base-url`` values, ``URL`` (every provider) or ``PROVIDER=URL``, as
    ``{provider or "": url}``; a later value for the same key wins. A value that is not an
    http(s) URL, or names an unknown provider, is a one-line ``ProviderConfigError``."""
    urls: dict[str, str] = {}
    for item in items:
        match = _PROVIDER_PREFIX.match(item)
        provider, url = (match.group(1).lower(), match.group(2)) if match else ("", item)
        if not url.startswith(("http://", "https://")):
            raise ProviderConfigError(f"--base-url expects [PROVIDER=]http(s)://..., not {item!r}")
        if provider and provider not in provider_names():
            raise ProviderConfigError(
                f"--base-url {provider}=...: unknown provider {provider!r}; "
                f"available: {', '.join(provider_names())}"
            )
        urls[provider] = url
    return urls


def base_url_for(urls: Mapping[str, str], spec: str) -> str | None:
    """The server of a model spec: its provider's entry in ``urls``, else the general one
    (key ``""``), else None (the provider's environment variable or vendor API)."""
    provider = spec.partition("/")[0].strip().lower()
    return urls.get(provider) or urls.get("") or None


def _semaphore(name: str, bound: int) -> threading.BoundedSemaphore:
    with _semaphores_lock:
        current = _semaphores.get(name)
        if current is None or current[0] != bound:
            current = (bound, threading.BoundedSemaphore(bound))
            _semaphores[name] = current
        return current[1]


def create_provider(
    spec: str,
    *,
    options: Mapping[str, Any] | None = None,
    base_url: str | None = None,
    on_retry: RetryHook | None = None,
    retry: RetryPolicy | None = None,
    cache: CallCache | None = None,
    pricing: PricingTable | None = None,
    timeout: float = 600.0,
    max_concurrency: int | None = None,
) -> Provider:
    """A provider for ``spec`` (``openai/...``, ``anthropic/...``, ``scripted/...``).

    ``options`` are model options passed through to the request (see each provider);
    ``base_url`` overrides ``$OPENAI_BASE_URL``/``$ANTHROPIC_BASE_URL``; ``retry`` is the one
    retry layer (``on_retry`` sees every wait); ``cache`` serves repeated calls without
    paying again; ``pricing`` defaults to :func:`load_pricing` (``$ORACLE_BENCH_PRICING``);
    ``timeout`` is per attempt, in seconds; ``max_concurrency`` bounds calls in flight per
    provider name (see the module docstring). Raises ``ProviderConfigError`` on a bad spec,
    a missing key or bad options; does not contact the server (see :func:`check_provider`).
    """
    name, model = parse_model_spec(spec)
    backend = _backend(name)
    if timeout <= 0:
        raise ProviderConfigError(f"timeout must be > 0 seconds, got {timeout}")
    if max_concurrency is not None and max_concurrency < 1:
        raise ProviderConfigError(f"max_concurrency must be >= 1, got {max_concurrency}")
    settings = ProviderSettings(
        provider=name,
        model=model,
        options=dict(options or {}),
        base_url=base_url,
        timeout=timeout,
        retry=retry or RetryPolicy(),
        on_retry=on_retry,
        cache=cache,
        pricing=pricing if pricing is not None else load_pricing(),
        semaphore=_semaphore(name, max_concurrency) if max_concurrency is not None else None,
    )
    return backend.create(settings)


def check_provider(spec: str, *, base_url: str | None = None, connect_timeout: float = 3.0) -> None:
    """Preflight, before any work: raise a one-line ``ProviderConfigError`` naming what to set.

    Unknown provider, missing API key (a non-vendor base URL needs none), a missing or
    corrupt script file, or a server calls could not reach: the base URL or, without one,
    the vendor's API (through the environment's proxy, if any). Reachability is one TCP
    connect, name resolution included, within ``connect_timeout`` seconds, so an
    unreachable API fails here in seconds rather than after every call's retries.
    """
    name, model = parse_model_spec(spec)
    _backend(name).check(model, base_url=base_url, connect_timeout=connect_timeout)
