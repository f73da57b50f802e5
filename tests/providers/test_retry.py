"""The one retry layer: waits, Retry-After, hooks, logging and the errors it gives up with."""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from email.utils import format_datetime

import pytest

from oracle_bench.errors import (
    ProviderError,
    ProviderRateLimitError,
    ProviderResponseError,
    ProviderTimeoutError,
    ProviderUnavailableError,
)
from providers import RetryEvent, RetryPolicy, TransientError, with_retries
from providers.retry import parse_retry_after, run_with_retries


class Flaky:
    """Fails with the given errors in turn, then returns ``"done"``."""

    def __init__(self, *errors: Exception) -> None:
        self.errors = list(errors)
        self.calls = 0

    def __call__(self) -> str:
        self.calls += 1
        if self.errors:
            raise self.errors.pop(0)
        return "done"


def test_policy_defaults_are_deterministic() -> None:
    policy = RetryPolicy()
    assert (policy.max_attempts, policy.initial, policy.factor, policy.max_wait) == (6, 1, 2, 60)
    assert [policy.wait_for(n) for n in range(1, 9)] == [1, 2, 4, 8, 16, 32, 60, 60]


def test_retry_after_is_honoured_and_capped() -> None:
    policy = RetryPolicy(max_wait=10.0)
    assert policy.wait_for(1, retry_after=3.5) == 3.5
    assert policy.wait_for(5, retry_after=0.0) == 0.0
    assert policy.wait_for(1, retry_after=120.0) == 10.0


def test_jitter_stays_within_bounds() -> None:
    policy = RetryPolicy(initial=1.0, jitter=0.5, max_wait=100.0)
    waits = [policy.wait_for(1) for _ in range(50)]
    assert all(1.0 <= w <= 1.5 for w in waits)


@pytest.mark.parametrize("bad", [{"max_attempts": 0}, {"factor": 0.5}, {"initial": -1.0}])
def test_bad_policy_is_refused(bad: dict[str, float]) -> None:
    with pytest.raises(ValueError):
        RetryPolicy(**bad)  # type: ignore[arg-type]


def test_parse_retry_after_seconds_and_dates() -> None:
    assert parse_retry_after("2") == 2.0
    assert parse_retry_after(" 0.05 ") == 0.05
    assert parse_retry_after(None) is None
    assert parse_retry_after("") is None
    assert parse_retry_after("soon") is None
    assert parse_retry_after("-3") is None
    assert parse_retry_after("nan") is None
    now = datetime(2026, 3, 1, 12, 0, 0, tzinfo=UTC)
    later = format_datetime(datetime(2026, 3, 1, 12, 0, 7, tzinfo=UTC), usegmt=True)
    assert parse_retry_after(later, now=now.timestamp()) == 7.0
    earlier = format_datetime(datetime(2026, 3, 1, 11, 0, 0, tzinfo=UTC), usegmt=True)
    assert parse_retry_after(earlier, now=now.timestamp()) == 0.0


def test_retries_then_succeeds_with_events_and_warnings(caplog: pytest.LogCaptureFixture) -> None:
    events: list[RetryEvent] = []
    waits: list[float] = []
    call = Flaky(
        TransientError("rate_limit", "429 Too Many Requests (Retry-After 2)", retry_after=2.0),
        TransientError("server", "500 Internal Server Error"),
        TransientError("timeout", "timeout"),
    )
    policy = RetryPolicy(initial=0.5, factor=3.0)
    with caplog.at_level(logging.WARNING, logger="providers.retry"):
        result, retries = run_with_retries(
            call,
            policy=policy,
            provider_name="openai/m",
            on_retry=events.append,
            sleep=waits.append,
        )
    assert (result, retries, call.calls) == ("done", 3, 4)
    assert waits == [2.0, 1.5, 4.5]
    assert events == [
        RetryEvent("openai/m", 1, 2.0, "429 Too Many Requests (Retry-After 2)"),
        RetryEvent("openai/m", 2, 1.5, "500 Internal Server Error"),
        RetryEvent("openai/m", 3, 4.5, "timeout"),
    ]
    assert [r.getMessage() for r in caplog.records] == [
        "openai/m: attempt 1/6 failed (429 Too Many Requests (Retry-After 2)); retrying in 2.00s",
        "openai/m: attempt 2/6 failed (500 Internal Server Error); retrying in 1.50s",
        "openai/m: attempt 3/6 failed (timeout); retrying in 4.50s",
    ]
    assert all(r.levelno == logging.WARNING for r in caplog.records)


@pytest.mark.parametrize(
    ("kind", "error"),
    [
        ("rate_limit", ProviderRateLimitError),
        ("server", ProviderUnavailableError),
        ("connection", ProviderUnavailableError),
        ("timeout", ProviderTimeoutError),
        ("response", ProviderResponseError),
    ],
)
def test_gives_up_with_the_mapped_error(kind: str, error: type[ProviderError]) -> None:
    waits: list[float] = []
    call = Flaky(*(TransientError(kind, f"{kind} fault") for _ in range(5)))  # type: ignore[arg-type]
    with pytest.raises(error) as info:
        run_with_retries(
            call,
            policy=RetryPolicy(max_attempts=3, initial=0.25),
            provider_name="anthropic/m",
            sleep=waits.append,
        )
    assert str(info.value) == f"anthropic/m: gave up after 3 attempts: {kind} fault"
    assert info.value.provider == "anthropic/m"
    assert (call.calls, waits) == (3, [0.25, 0.5])


def test_other_errors_are_never_retried() -> None:
    events: list[RetryEvent] = []
    call = Flaky(ProviderResponseError("400 Bad Request: no", "openai/m"))
    with pytest.raises(ProviderResponseError, match="400 Bad Request"):
        with_retries(call, policy=RetryPolicy(), provider_name="openai/m", on_retry=events.append)
    assert (call.calls, events) == (1, [])
    bug = Flaky(KeyError("bug"))
    with pytest.raises(KeyError):
        with_retries(bug, policy=RetryPolicy(), provider_name="openai/m")
    assert bug.calls == 1


def test_with_retries_really_sleeps_the_small_waits() -> None:
    call = Flaky(TransientError("connection", "connection error (reset)"))
    policy = RetryPolicy(initial=0.01)
    assert with_retries(call, policy=policy, provider_name="p/m") == "done"
    assert call.calls == 2


def test_single_attempt_policy_says_attempt() -> None:
    with pytest.raises(ProviderTimeoutError, match=r"^p/m: gave up after 1 attempt: timeout$"):
        with_retries(
            Flaky(TransientError("timeout", "timeout")),
            policy=RetryPolicy(max_attempts=1),
            provider_name="p/m",
        )
