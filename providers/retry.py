"""The one retry layer of every provider call.

SDK clients are built with ``max_retries=0``: retrying happens here and only here, so a
call is never retried 2 x 6 times by two layers. A provider turns a failed attempt into
:class:`TransientError` (retried) or a :class:`~oracle_bench.errors.ProviderError`
(raised at once, e.g. a 400). What is retried: 429 (honouring ``Retry-After``), 5xx,
timeouts, connection errors and malformed or truncated bodies. Before each wait the layer
logs a WARNING and calls the ``on_retry`` hook, so a user sees why a run is waiting.
"""

from __future__ import annotations

import email.utils
import logging
import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal, TypeVar

from oracle_bench.errors import (
    ProviderError,
    ProviderRateLimitError,
    ProviderResponseError,
    ProviderTimeoutError,
    ProviderUnavailableError,
)
from providers.types import RetryEvent, RetryHook

__all__ = [
    "FaultKind",
    "RetryPolicy",
    "TransientError",
    "parse_retry_after",
    "run_with_retries",
    "with_retries",
]

log = logging.getLogger(__name__)

T = TypeVar("T")

FaultKind = Literal["rate_limit", "server", "timeout", "connection", "response"]
"""Why an attempt failed: each maps to the ProviderError subclass raised on giving up."""

_FINAL: dict[str, type[ProviderError]] = {
    "rate_limit": ProviderRateLimitError,
    "server": ProviderUnavailableError,
    "connection": ProviderUnavailableError,
    "timeout": ProviderTimeoutError,
    "response": ProviderResponseError,
}

_jitter_rng = random.Random()  # jitter is off by default; when on, it need not be reproducible


@dataclass(frozen=True)
class RetryPolicy:
    """Exponential backoff: wait ``initial * factor**(n-1)`` after the n-th failed attempt.

    ``max_attempts`` counts every attempt (the first included). ``max_wait`` caps each wait,
    Retry-After included. ``jitter`` adds up to that fraction of the wait at random
    (0: deterministic).
    """

    max_attempts: int = 6
    initial: float = 1.0
    factor: float = 2.0
    max_wait: float = 60.0
    jitter: float = 0.0

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError(f"max_attempts must be >= 1, got {self.max_attempts}")
        if self.initial < 0 or self.max_wait < 0 or self.jitter < 0 or self.factor < 1:
            raise ValueError("initial, max_wait and jitter must be >= 0 and factor >= 1")

    def wait_for(self, attempt: int, retry_after: float | None = None) -> float:
        """Seconds to wait after the ``attempt``-th (1-based) failure."""
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.max_wait)
        wait = min(self.initial * self.factor ** (attempt - 1), self.max_wait)
        if self.jitter:
            wait = min(wait + _jitter_rng.uniform(0.0, self.jitter * wait), self.max_wait)
        return wait


class TransientError(Exception):
    """An attempt failed in a way worth retrying.

    ``reason`` is shown to the user (``429 Too Many Requests (Retry-After 2)``, ``500``,
    ``timeout``); ``retry_after`` is the server's Retry-After in seconds, if it sent one.
    """

    def __init__(self, kind: FaultKind, reason: str, retry_after: float | None = None) -> None:
        self.kind: FaultKind = kind
        self.reason = reason
        self.retry_after = retry_after
        super().__init__(reason)


def parse_retry_after(value: str | None, *, now: float | None = None) -> float | None:
    """Seconds from a ``Retry-After`` header: delta-seconds or an HTTP-date; None if absent/bad."""
    if value is None:
        return None
    text = value.strip()
    if not text:
        return None
    try:
        seconds = float(text)
    except ValueError:
        pass
    else:
        return seconds if math.isfinite(seconds) and seconds >= 0 else None
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    reference = now if now is not None else datetime.now(UTC).timestamp()
    return max(when.timestamp() - reference, 0.0)


def run_with_retries(
    call: Callable[[], T],
    *,
    policy: RetryPolicy,
    provider_name: str,
    on_retry: RetryHook | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> tuple[T, int]:
    """Like :func:`with_retries`, also returning how many times it waited."""
    attempt = 1
    while True:
        try:
            return call(), attempt - 1
        except TransientError as err:
            if attempt >= policy.max_attempts:
                cls = _FINAL[err.kind]
                word = "attempt" if attempt == 1 else "attempts"
                raise cls(f"gave up after {attempt} {word}: {err.reason}", provider_name) from err
            wait = policy.wait_for(attempt, err.retry_after)
            log.warning(
                "%s: attempt %d/%d failed (%s); retrying in %.2fs",
                provider_name,
                attempt,
                policy.max_attempts,
                err.reason,
                wait,
            )
            if on_retry is not None:
                on_retry(RetryEvent(provider_name, attempt, wait, err.reason))
            sleep(wait)
            attempt += 1


def with_retries(
    call: Callable[[], T],
    *,
    policy: RetryPolicy,
    provider_name: str,
    on_retry: RetryHook | None = None,
) -> T:
    """Run ``call``, retrying :class:`TransientError` per ``policy``.

    Any other exception (a ``ProviderError`` for a 4xx, a bug) propagates at once. After the
    last attempt the mapped ``ProviderError`` subclass is raised with the last reason:
    ``ProviderRateLimitError`` (429), ``ProviderUnavailableError`` (5xx, connection),
    ``ProviderTimeoutError``, ``ProviderResponseError`` (malformed/truncated body).
    """
    result, _ = run_with_retries(
        call, policy=policy, provider_name=provider_name, on_retry=on_retry
    )
    return result
