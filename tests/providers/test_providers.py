"""Providers through the REAL openai/anthropic SDKs against the loopback server, the scripted
provider, the call cache, the concurrency bound and the preflight."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from oracle_bench.errors import (
    ProviderConfigError,
    ProviderRateLimitError,
    ProviderResponseError,
    ProviderTimeoutError,
    ProviderUnavailableError,
)
from providers import (
    CallCache,
    ChatMessage,
    ModelPrice,
    PricingTable,
    Provider,
    RetryEvent,
    RetryPolicy,
    ToolCall,
    ToolSpec,
    Usage,
    base_url_for,
    call_scope,
    check_provider,
    parse_base_urls,
    parse_model_options,
    parse_model_spec,
    provider_names,
)
from providers import create_provider as _create_provider
from providers.loopback import LoopbackServer

FORMATS = ["openai", "anthropic"]
FAST = RetryPolicy(max_attempts=3, initial=0.01)
PRICE = ModelPrice(input=1.0, output=2.0, cache_read=0.5, cache_write=4.0)
TABLE = PricingTable({"openai/loopback-*": PRICE, "anthropic/loopback-*": PRICE})
MESSAGES = [ChatMessage(role="system", content="be brief"), ChatMessage(role="user", content="hi")]
RUN = ToolSpec(
    name="run",
    description="Run code",
    parameters={"type": "object", "properties": {"code": {"type": "string"}}},
)
SCHEMA = {
    "title": "Verdict",
    "type": "object",
    "properties": {"verdict": {"type": "string"}},
    "required": ["verdict"],
}
ENV = [
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "OPENAI_BASE_URL",
    "ANTHROPIC_BASE_URL",
    "ORACLE_BENCH_PRICING",
]


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ENV:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    with LoopbackServer() as srv:
        yield srv


def url_of(server: LoopbackServer, fmt: str) -> str:
    return server.openai_base_url if fmt == "openai" else server.anthropic_base_url


_MADE: list[Provider] = []


@pytest.fixture(autouse=True)
def _close_made_providers() -> Iterator[None]:
    """Every provider a test made is closed after it (a dropped client's sockets would be
    reported by the GC in whichever later test it happens to run)."""
    yield
    while _MADE:
        _MADE.pop().close()


def create_provider(spec: str, **kwargs: Any) -> Provider:
    """:func:`providers.create_provider`, closed after the test."""
    made = _create_provider(spec, **kwargs)
    _MADE.append(made)
    return made


def make(fmt: str, server: LoopbackServer, **kwargs: Any) -> Provider:
    kwargs.setdefault("retry", FAST)
    kwargs.setdefault("pricing", TABLE)
    return create_provider(f"{fmt}/loopback-test", base_url=url_of(server, fmt), **kwargs)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# -- replies, usage, params ---------------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
def test_text_reply_with_exact_usage_cost_and_params(fmt: str, server: LoopbackServer) -> None:
    usage = {"input": 100, "output": 7, "cache_read": 20, "cache_write": 5, "reasoning": 3}
    server.add({"text": "hello world", "usage": usage})
    options = {"temperature": 0, "top_p": 0.5, "foo": "bar"}
    reply = make(fmt, server, options=options).complete(MESSAGES)

    assert reply.text == "hello world"
    assert reply.tool_calls == []
    assert reply.finish_reason == ("stop" if fmt == "openai" else "end_turn")
    assert reply.usage == Usage(input=100, output=7, cache_read=20, cache_write=5, reasoning=3)
    # (100 * 1 + 7 * 2 + 20 * 0.5 + 5 * 4) / 1e6
    assert reply.cost_usd == pytest.approx(144e-6)
    assert reply.model == f"{fmt}/loopback-test"
    assert (reply.retries, reply.cached) == (0, False)
    assert reply.latency_s > 0
    effective = dict(options, max_tokens=4096) if fmt == "anthropic" else options
    # Keyword arguments the SDK's create() accepts go in as such, the rest as extra body keys
    # (anthropic 2.x's messages.create has no temperature/top_p keywords).
    if fmt == "openai":
        sent, extra = ["temperature", "top_p"], ["foo"]
    else:
        sent, extra = ["max_tokens"], ["foo", "temperature", "top_p"]
    assert reply.params == {
        "provider": fmt,
        "model": "loopback-test",
        "options": effective,
        "base_url": url_of(server, fmt),
        "tools": [],
        "tool_choice": None,
        "json_schema": False,
        "request_options": sent,
        "extra_body": extra,
    }

    (request,) = server.requests
    body = request.body
    assert (body["model"], body["temperature"], body["top_p"], body["foo"]) == (
        "loopback-test",
        0,
        0.5,
        "bar",
    )
    if fmt == "openai":
        assert request.path == "/v1/chat/completions"
        assert body["messages"] == [
            {"role": "system", "content": "be brief"},
            {"role": "user", "content": "hi"},
        ]
    else:
        assert request.path == "/v1/messages"
        assert body["system"] == "be brief"
        assert body["max_tokens"] == 4096
        assert body["messages"] == [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]
    assert request.headers.get("x-stainless-retry-count", "0") == "0"


def test_openai_max_tokens_goes_to_a_local_server_as_max_tokens(server: LoopbackServer) -> None:
    server.add("ok")
    provider = make("openai", server, options={"max_tokens": 512, "reasoning_effort": "low"})
    reply = provider.complete(MESSAGES)
    provider.close()  # type: ignore[attr-defined]
    body = server.requests[0].body
    assert (body["max_tokens"], body["reasoning_effort"]) == (512, "low")
    assert "max_completion_tokens" not in body
    assert reply.params["request_options"] == ["max_tokens", "reasoning_effort"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_tool_calls(fmt: str, server: LoopbackServer) -> None:
    server.add({"tool_calls": [{"id": "call_1", "name": "run", "arguments": {"code": "x = 1"}}]})
    reply = make(fmt, server).complete(MESSAGES, tools=[RUN], tool_choice="run")
    assert reply.tool_calls == [ToolCall(id="call_1", name="run", arguments={"code": "x = 1"})]
    assert reply.text == ""
    assert reply.finish_reason == ("tool_calls" if fmt == "openai" else "tool_use")
    assert (reply.params["tools"], reply.params["tool_choice"]) == (["run"], "run")
    body = server.requests[0].body
    if fmt == "openai":
        assert body["tools"] == [
            {
                "type": "function",
                "function": {
                    "name": "run",
                    "description": "Run code",
                    "parameters": RUN.parameters,
                },
            }
        ]
        assert body["tool_choice"] == {"type": "function", "function": {"name": "run"}}
    else:
        assert body["tools"] == [
            {"name": "run", "description": "Run code", "input_schema": RUN.parameters}
        ]
        assert body["tool_choice"] == {"type": "tool", "name": "run"}


def test_unknown_tool_choice_is_refused(server: LoopbackServer) -> None:
    with pytest.raises(ValueError, match="tool_choice 'nope' is not one of the tools offered"):
        make("openai", server).complete(MESSAGES, tools=[RUN], tool_choice="nope")
    assert server.requests == []


HISTORY = [
    ChatMessage(role="system", content="sys"),
    ChatMessage(role="user", content="go"),
    ChatMessage(
        role="assistant",
        content="running",
        tool_calls=[
            ToolCall(id="c1", name="run", arguments={"code": "1"}),
            ToolCall(id="c2", name="run", arguments={"code": "2"}),
        ],
    ),
    ChatMessage(role="tool", tool_call_id="c1", content="one"),
    ChatMessage(role="tool", tool_call_id="c2", content="two"),
]


def test_openai_history_mapping(server: LoopbackServer) -> None:
    server.add("done")
    make("openai", server).complete(HISTORY, tools=[RUN])
    assert server.requests[0].body["messages"] == [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "go"},
        {
            "role": "assistant",
            "content": "running",
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "run", "arguments": '{"code": "1"}'},
                },
                {
                    "id": "c2",
                    "type": "function",
                    "function": {"name": "run", "arguments": '{"code": "2"}'},
                },
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "one"},
        {"role": "tool", "tool_call_id": "c2", "content": "two"},
    ]


def test_anthropic_history_mapping(server: LoopbackServer) -> None:
    server.add("done")
    make("anthropic", server).complete(HISTORY, tools=[RUN])
    body = server.requests[0].body
    assert body["system"] == "sys"
    assert body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "go"}]},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "running"},
                {"type": "tool_use", "id": "c1", "name": "run", "input": {"code": "1"}},
                {"type": "tool_use", "id": "c2", "name": "run", "input": {"code": "2"}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "c1", "content": "one"},
                {"type": "tool_result", "tool_use_id": "c2", "content": "two"},
            ],
        },
    ]


def test_openai_json_schema_uses_response_format(server: LoopbackServer) -> None:
    server.add('{"verdict": "correct"}')
    reply = make("openai", server).complete(MESSAGES, json_schema=SCHEMA)
    assert json.loads(reply.text) == {"verdict": "correct"}
    assert reply.params["json_schema"] is True
    assert reply.params["response_format"] == "json_schema"
    assert server.requests[0].body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "Verdict", "schema": SCHEMA, "strict": False},
    }


def test_anthropic_json_schema_is_a_forced_respond_tool(server: LoopbackServer) -> None:
    server.add({"tool_calls": [{"name": "respond", "arguments": {"verdict": "correct"}}]})
    reply = make("anthropic", server).complete(MESSAGES, tools=[RUN], json_schema=SCHEMA)
    assert reply.text == '{"verdict": "correct"}'
    assert reply.tool_calls == []
    assert reply.params["response_format"] == "forced tool 'respond'"
    body = server.requests[0].body
    assert [t["name"] for t in body["tools"]] == ["run", "respond"]
    assert body["tools"][1]["input_schema"] == SCHEMA
    assert body["tool_choice"] == {"type": "tool", "name": "respond"}


class _NoSchemaHandler(BaseHTTPRequestHandler):
    """A minimal OpenAI-compatible server that refuses ``response_format`` with a 400."""

    protocol_version = "HTTP/1.1"
    bodies: list[dict[str, Any]]

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).bodies.append(body)
        payload: dict[str, Any]
        if "response_format" in body:
            payload = {"error": {"message": "response_format is not supported"}}
        else:
            message = {"role": "assistant", "content": '{"verdict": "ok"}'}
            choice = {"index": 0, "message": message, "finish_reason": "stop"}
            payload = {
                "id": "x",
                "object": "chat.completion",
                "created": 0,
                "model": body["model"],
                "choices": [choice],
            }
        data = json.dumps(payload).encode()
        self.send_response(400 if "response_format" in body else 200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def test_openai_json_schema_falls_back_once_on_400() -> None:
    _NoSchemaHandler.bodies = []
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _NoSchemaHandler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        provider = create_provider(
            "openai/local", base_url=f"http://127.0.0.1:{httpd.server_address[1]}/v1", retry=FAST
        )
        first = provider.complete(MESSAGES, json_schema=SCHEMA)
        second = provider.complete(MESSAGES, json_schema=SCHEMA)
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert first.text == second.text == '{"verdict": "ok"}'
    assert first.params["response_format"].startswith("dropped after 400: ")
    assert "response_format is not supported" in first.params["response_format"]
    assert second.params["response_format"] == "dropped: the server refused json_schema earlier"
    assert first.usage == Usage()
    assert first.cost_usd is None  # no price for openai/local
    # The refused request, its retry without response_format, then the second call directly.
    assert ["response_format" in b for b in _NoSchemaHandler.bodies] == [True, False, False]
    system = _NoSchemaHandler.bodies[1]["messages"][0]
    assert system["role"] == "system"
    assert system["content"].startswith("be brief\n\nAnswer with one JSON object matching")


def test_anthropic_thinking_budget(server: LoopbackServer) -> None:
    server.add({"tool_calls": [{"name": "respond", "arguments": {"verdict": "x"}}]})
    provider = make("anthropic", server, options={"thinking_budget": 1024, "max_tokens": 2048})
    reply = provider.complete(MESSAGES, json_schema=SCHEMA)
    body = server.requests[0].body
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 1024}
    assert body["max_tokens"] == 2048
    assert "thinking_budget" not in body
    assert body["tool_choice"] == {"type": "auto"}
    assert reply.params["tool_choice_sent"] == "auto (thinking forbids forced tools)"
    assert reply.params["options"] == {"thinking_budget": 1024, "max_tokens": 2048}


def test_anthropic_thinking_budget_must_fit_max_tokens(server: LoopbackServer) -> None:
    with pytest.raises(
        ProviderConfigError,
        match=r"^thinking_budget \(8192\) must be below max_tokens \(4096\); pass -M max_tokens",
    ):
        make("anthropic", server, options={"thinking_budget": 8192})


# -- faults and the retry layer -----------------------------------------------------------

FAULT_REASONS = {
    "rate_limit": "429 Too Many Requests (Retry-After 0.05)",
    "server_error": "500 Internal Server Error",
    "malformed": "malformed body (JSONDecodeError: ",
    "truncated": "truncated body (peer closed connection without sending complete message body",
    "disconnect": "connection error (Server disconnected without sending a response.)",
}


@pytest.mark.parametrize("fault", sorted(FAULT_REASONS))
@pytest.mark.parametrize("fmt", FORMATS)
def test_each_fault_is_survived_with_one_retry(
    fmt: str, fault: str, server: LoopbackServer
) -> None:
    events: list[RetryEvent] = []
    server.add("recovered")
    server.inject(fault, retry_after=0.05 if fault == "rate_limit" else None)  # type: ignore[arg-type]
    reply = make(fmt, server, on_retry=events.append).complete(MESSAGES)
    assert (reply.text, reply.retries) == ("recovered", 1)
    (event,) = events
    assert (event.provider, event.attempt) == (f"{fmt}/loopback-test", 1)
    assert event.reason.startswith(FAULT_REASONS[fault])
    assert event.wait_s == (0.05 if fault == "rate_limit" else 0.01)
    assert [r.fault for r in server.requests] == [fault, None]


@pytest.mark.parametrize("fmt", FORMATS)
def test_slow_reply_beyond_timeout_is_a_timeout_error(fmt: str, server: LoopbackServer) -> None:
    events: list[RetryEvent] = []
    server.add("late", "late again")
    server.inject("slow", times=2, delay=0.3)
    provider = make(
        fmt,
        server,
        timeout=0.1,
        retry=RetryPolicy(max_attempts=2, initial=0.01),
        on_retry=events.append,
    )
    with pytest.raises(ProviderTimeoutError) as info:
        provider.complete(MESSAGES)
    assert str(info.value) == f"{fmt}/loopback-test: gave up after 2 attempts: timeout"
    assert [e.reason for e in events] == ["timeout"]
    assert len(server.requests) == 2


@pytest.mark.parametrize("fmt", FORMATS)
def test_slow_reply_within_timeout_is_fine(fmt: str, server: LoopbackServer) -> None:
    server.add({"text": "slowly", "delay": 0.05})
    reply = make(fmt, server, timeout=2.0).complete(MESSAGES)
    assert (reply.text, reply.retries) == ("slowly", 0)
    assert reply.latency_s >= 0.05


@pytest.mark.parametrize("fmt", FORMATS)
def test_persistent_429_and_500_give_up_with_mapped_errors(
    fmt: str, server: LoopbackServer
) -> None:
    server.inject("rate_limit", times=3, retry_after=0.01)
    with pytest.raises(ProviderRateLimitError) as info:
        make(fmt, server).complete(MESSAGES)
    assert str(info.value) == (
        f"{fmt}/loopback-test: gave up after 3 attempts: 429 Too Many Requests (Retry-After 0.01)"
    )
    server.inject("server_error", times=3)
    with pytest.raises(ProviderUnavailableError, match=r"gave up after 3 attempts: 500 Internal"):
        make(fmt, server).complete(MESSAGES)
    assert len(server.requests) == 6


@pytest.mark.parametrize("fmt", FORMATS)
def test_400_is_never_retried(fmt: str, server: LoopbackServer) -> None:
    events: list[RetryEvent] = []
    with pytest.raises(ProviderResponseError) as info:
        make(fmt, server, on_retry=events.append).complete([])
    assert str(info.value) == (
        f"{fmt}/loopback-test: 400 Bad Request: 'messages' must be a non-empty list"
    )
    assert (len(server.requests), events) == (1, [])


def test_exhausted_loopback_script_is_not_retried(server: LoopbackServer) -> None:
    with pytest.raises(ProviderUnavailableError, match="the server said not to retry"):
        make("openai", server).complete(MESSAGES)
    assert len(server.requests) == 1


def test_connection_refused_during_a_call_is_retried_then_unavailable() -> None:
    events: list[RetryEvent] = []
    provider = create_provider(
        "openai/loopback-test",
        base_url=f"http://127.0.0.1:{free_port()}/v1",
        retry=RetryPolicy(max_attempts=2, initial=0.01),
        on_retry=events.append,
    )
    with pytest.raises(
        ProviderUnavailableError, match="gave up after 2 attempts: connection error"
    ):
        provider.complete(MESSAGES)
    assert len(events) == 1


def _openai_body(**message: Any) -> dict[str, Any]:
    msg: dict[str, Any] = {"role": "assistant", "content": "hello", **message}
    return {
        "id": "x",
        "object": "chat.completion",
        "created": 0,
        "model": "m",
        "choices": [{"index": 0, "message": msg, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4},
    }


def _anthropic_body(*content: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": "m",
        "type": "message",
        "role": "assistant",
        "model": "m",
        "content": list(content) or [{"type": "text", "text": "hello"}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 3, "output_tokens": 1},
    }


class _BodiesHandler(BaseHTTPRequestHandler):
    """Answers 200 with the queued JSON bodies in order (the last one for ever after)."""

    protocol_version = "HTTP/1.1"
    bodies: list[Any]
    served: int

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        cls = type(self)
        body = cls.bodies[min(cls.served, len(cls.bodies) - 1)]
        cls.served += 1
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def bodies() -> Iterator[tuple[type[_BodiesHandler], str]]:
    handler = type("Handler", (_BodiesHandler,), {"bodies": [], "served": 0})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield handler, f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


_NULL_NAME_CALL = {"id": "c1", "type": "function", "function": {"name": None, "arguments": "{}"}}
MALFORMED_200 = {
    "openai-null-message": (
        "openai",
        {**_openai_body(), "choices": [{"index": 0, "message": None, "finish_reason": "stop"}]},
        "malformed body (choices[0].message is null)",
    ),
    "openai-list-content": (
        "openai",
        _openai_body(content=[{"type": "text", "text": "hi"}]),
        "malformed body (Reply.text: Input should be a valid string, got [{'type': 'text'",
    ),
    "openai-null-tool-name": (
        "openai",
        _openai_body(content=None, tool_calls=[_NULL_NAME_CALL]),
        "malformed body (ToolCall.name: Input should be a valid string, got None)",
    ),
    "anthropic-null-text": (
        "anthropic",
        _anthropic_body({"type": "text", "text": None}),
        "malformed body (a text block has no text)",
    ),
    "anthropic-null-tool-id": (
        "anthropic",
        _anthropic_body({"type": "tool_use", "id": None, "name": "run", "input": {}}),
        "malformed body (ToolCall.id: Input should be a valid string, got None)",
    ),
    "anthropic-null-tool-name": (
        "anthropic",
        _anthropic_body({"type": "tool_use", "id": "t1", "name": None, "input": {}}),
        "malformed body (ToolCall.name: Input should be a valid string, got None)",
    ),
}


@pytest.mark.parametrize("case", sorted(MALFORMED_200))
def test_a_200_with_wrong_field_types_is_a_malformed_body_retried_then_reported(
    case: str, bodies: tuple[type[_BodiesHandler], str]
) -> None:
    fmt, body, reason = MALFORMED_200[case]
    handler, url = bodies
    handler.bodies = [body]
    events: list[RetryEvent] = []
    provider = create_provider(
        f"{fmt}/m",
        base_url=url + ("/v1" if fmt == "openai" else ""),
        retry=FAST,
        on_retry=events.append,
    )
    with pytest.raises(ProviderResponseError) as info:
        provider.complete(MESSAGES, tools=[RUN])
    message = str(info.value)
    assert message.startswith(f"{fmt}/m: gave up after 3 attempts: {reason}"), message
    assert "\n" not in message
    assert handler.served == 3
    assert [e.reason for e in events] == [str(info.value.__cause__)] * 2
    assert events[0].reason.startswith(reason)


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_malformed_200_then_a_good_one_is_survived(
    fmt: str, bodies: tuple[type[_BodiesHandler], str]
) -> None:
    handler, url = bodies
    bad, good = (
        (_openai_body(content=[1]), _openai_body())
        if fmt == "openai"
        else (_anthropic_body({"type": "text", "text": None}), _anthropic_body())
    )
    handler.bodies = [bad, good]
    provider = create_provider(
        f"{fmt}/m", base_url=url + ("/v1" if fmt == "openai" else ""), retry=FAST
    )
    reply = provider.complete(MESSAGES)
    assert (reply.text, reply.retries, reply.usage) == ("hello", 1, Usage(input=3, output=1))


# -- the call cache -----------------------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
def test_cache_serves_repeated_calls_without_the_server(
    fmt: str, server: LoopbackServer, tmp_path: Path
) -> None:
    server.add({"text": "first", "usage": {"input": 10, "output": 5}}, "second")
    with CallCache(tmp_path / "calls.sqlite") as cache:
        provider = make(fmt, server, cache=cache)
        fresh = provider.complete(MESSAGES)
        again = provider.complete(MESSAGES)
        assert len(server.requests) == 1
        assert (fresh.cached, again.cached) == (False, True)
        assert fresh.cost_usd == pytest.approx(20e-6)
        assert again.cost_usd == fresh.cost_usd  # what it cost when it was paid, once
        assert (again.text, again.usage, again.params) == (fresh.text, fresh.usage, fresh.params)
        other = provider.complete([*MESSAGES, ChatMessage(role="user", content="more")])
        assert (other.text, other.cached, len(server.requests)) == ("second", False, 2)
        assert len(cache) == 2


def test_cache_survives_a_restart_on_another_port(tmp_path: Path) -> None:
    path = tmp_path / "calls.sqlite"
    with LoopbackServer(["paid once"]) as first_server, CallCache(path) as cache:
        assert make("openai", first_server, cache=cache).complete(MESSAGES).text == "paid once"
    with LoopbackServer() as second_server, CallCache(path) as cache:
        reply = make("openai", second_server, cache=cache).complete(MESSAGES)
        # the price it had when it was paid (once, by the first run): not paid again
        assert (reply.text, reply.cached, reply.cost_usd) == ("paid once", True, 7e-06)
        assert second_server.requests == []
        other_options = make("openai", second_server, cache=cache, options={"seed": 1})
        with pytest.raises(ProviderUnavailableError):  # other options: a miss, script empty
            other_options.complete(MESSAGES)
        assert len(second_server.requests) == 1


# -- concurrency bound --------------------------------------------------------------------


def test_max_concurrency_is_shared_per_provider_name() -> None:
    with LoopbackServer(["a", "b"], latency=0.15) as server:
        one = make("openai", server, max_concurrency=1)
        two = create_provider(
            "openai/loopback-other", base_url=server.openai_base_url, max_concurrency=1
        )
        start = time.perf_counter()
        with ThreadPoolExecutor(2) as pool:
            texts = sorted(
                f.result().text for f in [pool.submit(p.complete, MESSAGES) for p in (one, two)]
            )
        elapsed = time.perf_counter() - start
    assert texts == ["a", "b"]
    assert elapsed >= 0.3


def test_bad_max_concurrency_is_refused(server: LoopbackServer) -> None:
    with pytest.raises(ProviderConfigError, match="max_concurrency must be >= 1, got 0"):
        make("openai", server, max_concurrency=0)


# -- the scripted provider ----------------------------------------------------------------


def _script(path: Path, *lines: dict[str, Any]) -> str:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return f"scripted/{path}"


def test_scripted_replays_in_order_with_match_usage_and_faults(tmp_path: Path) -> None:
    spec = _script(
        tmp_path / "s.jsonl",
        {"text": "for the refiner", "match": "REFINE"},
        {"text": "first answer"},
        {"fault": "rate_limit", "retry_after": 0.01},
        {"tool_calls": [{"name": "run", "arguments": {"code": "x"}}], "usage": {"input": 3}},
    )
    events: list[RetryEvent] = []
    provider = create_provider(spec, retry=FAST, on_retry=events.append)
    assert provider.name == spec
    first = provider.complete([ChatMessage(role="user", content="two words")])
    assert (first.text, first.retries, first.cost_usd) == ("first answer", 0, 0.0)
    assert first.usage == Usage(input=2, output=2)
    assert first.params["script_line"] == 2
    second = provider.complete([ChatMessage(role="user", content="again")], tools=[RUN])
    assert second.retries == 1
    assert second.tool_calls == [
        ToolCall(id="call_script_4_0", name="run", arguments={"code": "x"})
    ]
    assert second.usage == Usage(input=3, output=2)  # '{"code": "x"}' is two words
    assert second.finish_reason == "tool_calls"
    assert [(e.reason, e.wait_s) for e in events] == [
        ("429 Too Many Requests (Retry-After 0.01)", 0.01)
    ]
    third = provider.complete([ChatMessage(role="user", content="please REFINE this")])
    assert third.text == "for the refiner"
    with pytest.raises(ProviderResponseError, match=r": script exhausted after 4 replies$"):
        provider.complete(MESSAGES)


def test_scripted_unmatched_and_persistent_faults(tmp_path: Path) -> None:
    spec = _script(tmp_path / "m.jsonl", {"text": "x", "match": "needle"})
    with pytest.raises(ProviderResponseError, match="none of the 1 remaining script lines matches"):
        create_provider(spec).complete(MESSAGES)
    spec = _script(
        tmp_path / "f.jsonl", {"fault": "server_error"}, {"fault": "truncated"}, {"text": "late"}
    )
    with pytest.raises(ProviderResponseError, match="gave up after 2 attempts: truncated body"):
        create_provider(spec, retry=RetryPolicy(max_attempts=2, initial=0.01)).complete(MESSAGES)
    spec = _script(tmp_path / "t.jsonl", {"text": "slow", "delay": 0.2}, {"text": "fast"})
    reply = create_provider(spec, retry=FAST, timeout=0.05).complete(MESSAGES)
    assert (reply.text, reply.retries) == ("fast", 1)


def test_scripted_cache_hits_keep_the_script_aligned(tmp_path: Path) -> None:
    spec = _script(
        tmp_path / "r.jsonl",
        {"text": "one"},
        {"fault": "disconnect"},
        {"text": "two"},
        {"text": "three"},
    )
    db = tmp_path / "calls.sqlite"
    asks = [ChatMessage(role="user", content=f"q{i}") for i in range(3)]
    with CallCache(db) as cache:  # the first run dies after two calls
        provider = create_provider(spec, cache=cache, retry=FAST)
        assert [provider.complete([m]).text for m in asks[:2]] == ["one", "two"]
    with CallCache(db) as cache:  # the resumed run
        provider = create_provider(spec, cache=cache, retry=FAST)
        replies = [provider.complete([m]) for m in asks]
    assert [(r.text, r.cached) for r in replies] == [("one", True), ("two", True), ("three", False)]


# -- specs, options, preflight ------------------------------------------------------------


def test_parse_model_spec() -> None:
    assert parse_model_spec("openai/gpt-5.4") == ("openai", "gpt-5.4")
    assert parse_model_spec("scripted/dir/replies.jsonl") == ("scripted", "dir/replies.jsonl")
    for bad in ["gpt-4", "openai/", "/x", ""]:
        with pytest.raises(ProviderConfigError) as info:
            parse_model_spec(bad)
        assert str(info.value) == (
            f"bad model {bad!r}: expected openai/<model>, anthropic/<model> "
            "or scripted/<replies.jsonl>"
        )


def test_parse_model_options_types() -> None:
    items = [
        "temperature=0",
        "top_p=0.9",
        "max_tokens=512",
        "reasoning_effort=medium",
        "thinking_budget=2048",
        "store=false",
        "logprobs=True",
        "stop=null",
        'metadata={"run": "a"}',
        'stop_sequences=["END"]',
        "seed=-3",
        "big=1e3",
        "label=a=b",
    ]
    assert parse_model_options(items) == {
        "temperature": 0,
        "top_p": 0.9,
        "max_tokens": 512,
        "reasoning_effort": "medium",
        "thinking_budget": 2048,
        "store": False,
        "logprobs": True,
        "stop": None,
        "metadata": {"run": "a"},
        "stop_sequences": ["END"],
        "seed": -3,
        "big": 1000.0,
        "label": "a=b",
    }
    assert parse_model_options(["t=1", "t=2"]) == {"t": 2}
    assert type(parse_model_options(["t=0"])["t"]) is int


@pytest.mark.parametrize(
    ("item", "message"),
    [
        ("temperature", "bad model option 'temperature': expected KEY=VALUE, e.g. temperature=0"),
        ("=3", "bad model option '=3': expected KEY=VALUE, e.g. temperature=0"),
        ("x={oops", "bad model option 'x={oops': invalid JSON value (Expecting property name"),
    ],
)
def test_parse_model_options_errors(item: str, message: str) -> None:
    with pytest.raises(ProviderConfigError) as info:
        parse_model_options([item])
    assert str(info.value).startswith(message)


def test_provider_names() -> None:
    assert provider_names() == ["anthropic", "openai", "scripted"]


def test_unknown_provider_is_a_config_error() -> None:
    for call in (check_provider, create_provider):
        with pytest.raises(ProviderConfigError) as info:
            call("gemini/pro")
        assert (
            str(info.value) == "unknown provider 'gemini'; available: anthropic, openai, scripted"
        )


@pytest.mark.parametrize("fmt", FORMATS)
def test_missing_key_names_what_to_set(
    fmt: str, monkeypatch: pytest.MonkeyPatch, server: LoopbackServer
) -> None:
    key, url = f"{fmt.upper()}_API_KEY", f"{fmt.upper()}_BASE_URL"
    expected = f"set {key} (or pass --base-url / set {url} for a local server, which needs no key)"
    for call in (check_provider, create_provider):
        with pytest.raises(ProviderConfigError) as info:
            call(f"{fmt}/some-model")
        assert str(info.value) == expected
    monkeypatch.setenv(key, "sk-test")
    # A key and the vendor URL: the preflight connects to the vendor's host, here a
    # loopback stand-in (tests never reach the internet; see tests/providers/test_preflight.py).
    from providers._anthropic import AnthropicBackend
    from providers._openai import OpenAIBackend

    backend = OpenAIBackend if fmt == "openai" else AnthropicBackend
    monkeypatch.setattr(backend, "vendor_host", server.openai_base_url.split("/")[2])
    check_provider(f"{fmt}/some-model")
    create_provider(f"{fmt}/some-model")


@pytest.mark.parametrize("fmt", FORMATS)
def test_local_server_needs_no_key_and_must_be_reachable(
    fmt: str, server: LoopbackServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    check_provider(f"{fmt}/m", base_url=url_of(server, fmt))
    dead = f"http://127.0.0.1:{free_port()}" + ("/v1" if fmt == "openai" else "")
    env = f"{fmt.upper()}_BASE_URL"
    expected = (
        f"cannot reach {dead}: connection refused; is the server running? set --base-url/{env}"
    )
    with pytest.raises(ProviderConfigError) as info:
        check_provider(f"{fmt}/m", base_url=dead)
    assert str(info.value) == expected
    monkeypatch.setenv(env, dead)
    with pytest.raises(ProviderConfigError) as info:
        check_provider(f"{fmt}/m")
    assert str(info.value) == expected
    with pytest.raises(ProviderConfigError, match=r"^bad base URL 'ftp://x': expected http"):
        check_provider(f"{fmt}/m", base_url="ftp://x")


RESERVED = [
    ("openai", "model", "set the model in the model string (provider/model)"),
    ("anthropic", "model", "set the model in the model string (provider/model)"),
    ("openai", "messages", "the messages are the prompts oracle-bench builds"),
    ("anthropic", "system", "the system prompt is the one oracle-bench builds"),
    ("openai", "stream", "streaming is not supported"),
    ("openai", "tools", "the tools are the ones oracle-bench offers"),
    ("anthropic", "tool_choice", "oracle-bench sets it for every call"),
    ("openai", "response_format", "structured output is requested by oracle-bench"),
    ("openai", "n", "oracle-bench reads exactly one choice per call"),
    ("openai", "extra_body", "unknown keys already go into the request body"),
    ("anthropic", "thinking", "use -M thinking_budget=N (below -M max_tokens)"),
]


@pytest.mark.parametrize(("fmt", "key", "hint"), RESERVED, ids=[f"{f}-{k}" for f, k, _ in RESERVED])
def test_model_options_may_not_override_reserved_request_fields(
    fmt: str, key: str, hint: str, server: LoopbackServer
) -> None:
    with pytest.raises(ProviderConfigError) as info:
        make(fmt, server, options={"temperature": 0, key: [{"role": "user", "content": "x"}]})
    assert str(info.value).startswith(f"model option {key!r} cannot be set with -M: {hint}")
    assert server.requests == []


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("http://[::1", "bad base URL 'http://[::1': Invalid IPv6 URL"),
        ("http://127.0.0.1:99999/v1", "bad base URL 'http://127.0.0.1:99999/v1': the port is"),
        ("ftp://x", "bad base URL 'ftp://x': expected http://host:port/... or https://..."),
    ],
)
def test_malformed_base_url_is_a_config_error(
    fmt: str, url: str, message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for key_set in (False, True):
        if key_set:
            monkeypatch.setenv(f"{fmt.upper()}_API_KEY", "sk-test")
        for call in (check_provider, create_provider):
            with pytest.raises(ProviderConfigError) as info:
                call(f"{fmt}/m", base_url=url)
            assert str(info.value).startswith(message)
    monkeypatch.setenv(f"{fmt.upper()}_BASE_URL", "http://[::1")
    with pytest.raises(ProviderConfigError, match=r"^bad base URL 'http://\[::1': Invalid IPv6"):
        create_provider(f"{fmt}/m")


def test_scripted_preflight_names_file_and_line(tmp_path: Path) -> None:
    missing = tmp_path / "missing.jsonl"
    with pytest.raises(ProviderConfigError) as info:
        check_provider(f"scripted/{missing}")
    assert str(info.value) == f"scripted provider: {missing}: no such script file"
    corrupt = tmp_path / "corrupt.jsonl"
    corrupt.write_text('{"text": "ok"}\n{"text": \n')
    for call in (check_provider, create_provider):
        with pytest.raises(ProviderConfigError) as info:
            call(f"scripted/{corrupt}")
        assert str(info.value).startswith(f"scripted provider: {corrupt}:2: invalid JSON: ")
        assert "\n" not in str(info.value)
    bad_field = tmp_path / "bad.jsonl"
    bad_field.write_text('{"txt": "typo"}\n')
    with pytest.raises(ProviderConfigError, match=r"bad\.jsonl:1: txt: Extra inputs"):
        check_provider(f"scripted/{bad_field}")


@pytest.mark.parametrize("fmt", ["openai", "anthropic"])
def test_scope_is_sent_as_a_header(fmt: str, server: LoopbackServer) -> None:
    server.add("one", "two")
    provider = make(fmt, server)
    provider.complete([ChatMessage(role="user", content="outside")])
    with call_scope("ERI-easy-0001/openai/m/r2 é"):
        provider.complete([ChatMessage(role="user", content="inside")])
    headers = [r.headers.get("x-oracle-bench-scope") for r in server.requests]
    assert headers == [None, "ERI-easy-0001/openai/m/r2%20%C3%A9"]


def test_anthropic_thinking_blocks_go_back_with_the_tool_turn(server: LoopbackServer) -> None:
    tool = ToolSpec(name="query", description="ask", parameters={"type": "object"})
    server.add(
        {"thinking": "try abc", "tool_calls": [{"name": "query", "arguments": {"input": "abc"}}]},
        "done",
        "never served",
    )
    provider = make("anthropic", server, options={"thinking_budget": 1024, "max_tokens": 2048})
    first = provider.complete(MESSAGES, tools=[tool])
    assert first.reasoning_blocks == [
        {"type": "thinking", "thinking": "try abc", "signature": "loopback-signature"}
    ]
    call = first.tool_calls[0]
    turn = ChatMessage(role="assistant", tool_calls=[call], reasoning_blocks=first.reasoning_blocks)
    result = ChatMessage(role="tool", tool_call_id=call.id, content="ABC")
    second = provider.complete([*MESSAGES, turn, result], tools=[tool])
    assert second.text == "done"
    sent = server.requests[1].body["messages"][1]["content"]
    assert [b["type"] for b in sent] == ["thinking", "tool_use"]
    # Without the thinking block the API (and the loopback server) refuses the turn.
    bare = turn.model_copy(update={"reasoning_blocks": []})
    with pytest.raises(ProviderResponseError, match="thinking"):
        provider.complete([*MESSAGES, bare, result], tools=[tool])


def test_scripted_thinking_becomes_reasoning_blocks(tmp_path: Path) -> None:
    script = tmp_path / "s.jsonl"
    script.write_text(json.dumps({"text": "hi", "thinking": "hmm"}) + "\n")
    reply = create_provider(f"scripted/{script}").complete(MESSAGES)
    assert reply.reasoning_blocks == [
        {"type": "thinking", "thinking": "hmm", "signature": "loopback-signature"}
    ]


@pytest.mark.parametrize("fmt", ["openai", "anthropic"])
def test_the_api_key_and_sdk_headers_are_sent(
    fmt: str, server: LoopbackServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-key")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-key")
    server.add("hi")
    make(fmt, server, options={"temperature": 0, "top_k_custom": 3}).complete(MESSAGES)
    request = server.requests[0]
    if fmt == "openai":
        assert request.headers["authorization"] == "Bearer sk-test-key"
        assert request.body["temperature"] == 0 and request.body["top_k_custom"] == 3
        assert request.body["model"] == "loopback-test"
    else:
        assert "sk-ant-test-key" in (
            request.headers.get("x-api-key", "") + request.headers.get("authorization", "")
        )
    assert request.headers["user-agent"].lower().startswith(fmt)


def test_parse_base_urls_and_base_url_for() -> None:
    urls = parse_base_urls(
        ["http://any:1/v1", "OpenAI=http://o:2/v1", "anthropic=https://a:3", "http://any:4/v1"]
    )
    assert urls == {"": "http://any:4/v1", "openai": "http://o:2/v1", "anthropic": "https://a:3"}
    assert base_url_for(urls, "openai/gpt") == "http://o:2/v1"
    assert base_url_for(urls, "anthropic/claude") == "https://a:3"
    assert base_url_for(urls, "scripted/x.jsonl") == "http://any:4/v1"
    assert base_url_for({}, "openai/gpt") is None
    for bad, needle in (("localhost:8000", "expects"), ("nope=http://x", "unknown provider")):
        with pytest.raises(ProviderConfigError, match=needle):
            parse_base_urls([bad])


def test_tool_arguments_of_every_shape_servers_send() -> None:
    from providers._base import parse_arguments

    assert parse_arguments('{"input": "a"}') == {"input": "a"}
    assert parse_arguments({"input": "a"}) == {"input": "a"}  # an object, not a string
    assert parse_arguments(json.dumps('{"input": "a"}')) == {"input": "a"}  # encoded twice
    assert parse_arguments("") == {} and parse_arguments(None) == {}
    assert parse_arguments("[1, 2]") == {"_raw": "[1, 2]"}
    assert parse_arguments("{not json") == {"_raw": "{not json"}
    assert parse_arguments([1, 2]) == {"_raw": "[1, 2]"}


def test_openai_tool_calls_without_ids_get_unique_ones(server: LoopbackServer) -> None:
    from types import SimpleNamespace

    provider: Any = make("openai", server)

    def completion() -> Any:
        function = SimpleNamespace(name="query", arguments='{"input": "a"}')
        calls = [SimpleNamespace(id=None, function=function)] * 2
        message = SimpleNamespace(content=None, tool_calls=calls)
        choice = SimpleNamespace(message=message, finish_reason="tool_calls")
        return SimpleNamespace(choices=[choice], usage=None)

    ids = [c.id for _ in range(2) for c in provider._parse(completion(), {}).tool_calls]
    assert len(set(ids)) == 4 and all(ids)
