"""The loopback LLM server, driven by the real openai and anthropic SDKs."""

from __future__ import annotations

import json
import logging
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anthropic
import openai
import pytest

from oracle_bench.errors import UsageError
from providers.loopback import (
    FAULTS,
    LoopbackServer,
    RecordedRequest,
    ScriptedReply,
    load_script,
    main,
)

ROOT = Path(__file__).resolve().parents[2]
USER: Any = [{"role": "user", "content": "add two numbers"}]


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    with LoopbackServer() as srv:
        yield srv


def _openai(srv: LoopbackServer, **kwargs: Any) -> openai.OpenAI:
    kwargs.setdefault("max_retries", 0)
    return openai.OpenAI(base_url=srv.openai_base_url, api_key="test", **kwargs)


def _anthropic(srv: LoopbackServer, **kwargs: Any) -> anthropic.Anthropic:
    kwargs.setdefault("max_retries", 0)
    return anthropic.Anthropic(base_url=srv.anthropic_base_url, api_key="test", **kwargs)


def _ask_openai(client: openai.OpenAI, content: str = "add two numbers", **kwargs: Any) -> Any:
    return client.chat.completions.create(
        model="gpt-test", messages=[{"role": "user", "content": content}], **kwargs
    )


def _ask_anthropic(client: anthropic.Anthropic, content: str = "add two numbers") -> Any:
    return client.messages.create(
        model="claude-test", max_tokens=64, messages=[{"role": "user", "content": content}]
    )


def _ask(fmt: str, srv: LoopbackServer, content: str = "add two numbers", **kw: Any) -> str:
    """One call through the named SDK; returns the reply text."""
    if fmt == "openai":
        with _openai(srv, **kw) as client:
            return str(_ask_openai(client, content).choices[0].message.content)
    with _anthropic(srv, **kw) as client:
        return str(_ask_anthropic(client, content).content[0].text)


def _get(url: str) -> tuple[int, Any]:
    try:
        with urllib.request.urlopen(url, timeout=5) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        with exc:
            return exc.code, json.loads(exc.read())


def _post(url: str, data: bytes) -> tuple[int, Any]:
    request = urllib.request.Request(url, data=data, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=5) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        with exc:
            return exc.code, json.loads(exc.read())


# -- addresses and health --------------------------------------------------------------------


def test_urls_and_health(server: LoopbackServer) -> None:
    assert server.host == "127.0.0.1"
    assert server.port > 0
    assert server.base_url == f"http://127.0.0.1:{server.port}"
    assert server.openai_base_url == f"http://127.0.0.1:{server.port}/v1"
    assert server.anthropic_base_url == server.base_url
    assert _get(server.base_url + "/health") == (200, {"status": "ok"})
    assert server.requests == []  # GETs are not recorded


def test_close_is_idempotent_and_stops_serving() -> None:
    srv = LoopbackServer()
    url = srv.base_url + "/health"
    assert _get(url)[0] == 200
    srv.close()
    srv.close()
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(url, timeout=2)


# -- OpenAI Chat Completions -----------------------------------------------------------------


def test_openai_text_reply_with_counted_usage(server: LoopbackServer) -> None:
    server.add(ScriptedReply(text="def f(a, b): return a + b"))
    with _openai(server) as client:
        reply = client.chat.completions.create(
            model="gpt-test",
            messages=[
                {"role": "system", "content": "You write Python."},
                {"role": "user", "content": "add two numbers"},
            ],
        )
    assert reply.object == "chat.completion"
    assert reply.model == "gpt-test"
    assert reply.id.startswith("chatcmpl-loop-")
    choice = reply.choices[0]
    assert choice.index == 0
    assert choice.finish_reason == "stop"
    assert choice.message.role == "assistant"
    assert choice.message.content == "def f(a, b): return a + b"
    assert choice.message.tool_calls is None
    usage = reply.usage
    assert usage is not None
    # 3 system words + 3 user words in; 7 reply words out.
    assert (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (6, 7, 13)
    assert usage.prompt_tokens_details is not None
    assert usage.prompt_tokens_details.cached_tokens == 0
    assert usage.completion_tokens_details is not None
    assert usage.completion_tokens_details.reasoning_tokens == 0


def test_openai_tool_call(server: LoopbackServer) -> None:
    arguments = {"code": "def f(x):\n    return x", "n": 3}
    server.add(ScriptedReply(tool_calls=[{"name": "run_tests", "arguments": arguments}]))
    tools: Any = [
        {
            "type": "function",
            "function": {
                "name": "run_tests",
                "description": "run",
                "parameters": {"type": "object", "properties": {}},
            },
        }
    ]
    with _openai(server) as client:
        reply = client.chat.completions.create(model="gpt-test", messages=USER, tools=tools)
    choice = reply.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content is None
    calls = choice.message.tool_calls
    assert calls is not None and len(calls) == 1
    assert calls[0].type == "function"
    assert calls[0].id == "call_loop_1_0"
    assert calls[0].function.name == "run_tests"
    assert isinstance(calls[0].function.arguments, str)
    assert json.loads(calls[0].function.arguments) == arguments
    assert server.requests[0].body["tools"] == tools


def test_openai_scripted_usage(server: LoopbackServer) -> None:
    usage = {"input": 10, "output": 5, "cache_read": 4, "cache_write": 2, "reasoning": 3}
    server.add(ScriptedReply(text="ok", usage=usage))
    with _openai(server) as client:
        got = _ask_openai(client).usage
    assert (got.prompt_tokens, got.completion_tokens, got.total_tokens) == (16, 5, 21)
    assert got.prompt_tokens_details.cached_tokens == 4
    assert got.prompt_tokens_details.cache_write_tokens == 2
    assert got.completion_tokens_details.reasoning_tokens == 3


def test_openai_json_schema_returns_scripted_text(server: LoopbackServer) -> None:
    server.add(ScriptedReply(text='{"answer": 42}'))
    response_format: Any = {
        "type": "json_schema",
        "json_schema": {"name": "a", "schema": {"type": "object"}},
    }
    with _openai(server) as client:
        reply = _ask_openai(client, response_format=response_format)
    assert reply.choices[0].message.content == '{"answer": 42}'
    assert server.requests[0].body["response_format"] == response_format


# -- Anthropic Messages ----------------------------------------------------------------------


def test_anthropic_text_reply_with_counted_usage(server: LoopbackServer) -> None:
    server.add(ScriptedReply(text="def f(a, b): return a + b"))
    with _anthropic(server) as client:
        reply = client.messages.create(
            model="claude-test",
            max_tokens=64,
            system="You write Python.",
            messages=[{"role": "user", "content": [{"type": "text", "text": "add two numbers"}]}],
        )
    assert reply.type == "message"
    assert reply.role == "assistant"
    assert reply.model == "claude-test"
    assert reply.id.startswith("msg_loop_")
    assert reply.stop_reason == "end_turn"
    assert reply.stop_sequence is None
    assert len(reply.content) == 1
    assert reply.content[0].type == "text"
    assert reply.content[0].text == "def f(a, b): return a + b"
    assert (reply.usage.input_tokens, reply.usage.output_tokens) == (6, 7)
    assert reply.usage.cache_read_input_tokens == 0
    assert reply.usage.cache_creation_input_tokens == 0


def test_anthropic_text_and_tool_use(server: LoopbackServer) -> None:
    server.add(
        ScriptedReply(
            text="Let me test it.",
            tool_calls=[
                {"name": "run_tests", "arguments": {"code": "x = 1"}},
                {"name": "submit", "arguments": {}, "id": "toolu_fixed"},
            ],
        )
    )
    with _anthropic(server) as client:
        reply = _ask_anthropic(client)
    assert reply.stop_reason == "tool_use"
    assert [block.type for block in reply.content] == ["text", "tool_use", "tool_use"]
    assert reply.content[0].text == "Let me test it."
    first, second = reply.content[1], reply.content[2]
    assert (first.id, first.name, first.input) == ("toolu_loop_1_0", "run_tests", {"code": "x = 1"})
    assert (second.id, second.name, second.input) == ("toolu_fixed", "submit", {})


def test_anthropic_scripted_usage(server: LoopbackServer) -> None:
    usage = {"input": 10, "output": 5, "cache_read": 4, "cache_write": 2, "reasoning": 3}
    server.add(ScriptedReply(text="ok", usage=usage))
    with _anthropic(server) as client:
        got = _ask_anthropic(client).usage
    assert (got.input_tokens, got.output_tokens) == (10, 5)
    assert (got.cache_read_input_tokens, got.cache_creation_input_tokens) == (4, 2)
    assert got.output_tokens_details.thinking_tokens == 3


def test_anthropic_tool_result_counts_as_last_message(server: LoopbackServer) -> None:
    server.add(ScriptedReply(text="wrong", match="NOPE"), ScriptedReply(text="fixed", match="FAIL"))
    messages: Any = [
        {"role": "user", "content": "write f"},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "t1", "name": "run_tests", "input": {}}],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "1 FAIL"}],
        },
    ]
    with _anthropic(server) as client:
        reply: Any = client.messages.create(model="claude-test", max_tokens=64, messages=messages)
    assert reply.content[0].text == "fixed"
    assert server.requests[0].served == 1


# -- faults ----------------------------------------------------------------------------------

SDKS = {"openai": openai, "anthropic": anthropic}


@pytest.mark.parametrize("fmt", ["openai", "anthropic"])
def test_rate_limit_fault(server: LoopbackServer, fmt: str) -> None:
    sdk: Any = SDKS[fmt]
    server.add("after the storm")
    server.inject("rate_limit", retry_after=0.25)
    with pytest.raises(sdk.RateLimitError) as info:
        _ask(fmt, server)
    assert info.value.status_code == 429
    assert info.value.response.headers["retry-after"] == "0.25"
    error = info.value.body if fmt == "openai" else info.value.body["error"]
    assert error["type"] == ("rate_limit_exceeded" if fmt == "openai" else "rate_limit_error")
    # The fault consumed only itself: the next call gets the scripted reply.
    assert _ask(fmt, server) == "after the storm"
    assert [(r.fault, r.served, r.status) for r in server.requests] == [
        ("rate_limit", None, 429),
        (None, 0, 200),
    ]


@pytest.mark.parametrize("fmt", ["openai", "anthropic"])
@pytest.mark.parametrize(
    ("fault", "error", "status"),
    [
        ("server_error", "InternalServerError", 500),
        ("truncated", "APIConnectionError", 200),
        ("disconnect", "APIConnectionError", None),
    ],
)
def test_error_faults(
    server: LoopbackServer, fmt: str, fault: Any, error: str, status: int | None
) -> None:
    sdk: Any = SDKS[fmt]
    server.add("fine")
    server.inject(fault)
    with pytest.raises(getattr(sdk, error)) as info:
        _ask(fmt, server)
    assert type(info.value) is getattr(sdk, error)
    assert _ask(fmt, server) == "fine"
    assert [(r.fault, r.status) for r in server.requests] == [(fault, status), (None, 200)]


@pytest.mark.parametrize("fmt", ["openai", "anthropic"])
def test_malformed_fault_is_a_json_error(server: LoopbackServer, fmt: str) -> None:
    server.add("fine")
    server.inject("malformed")
    with pytest.raises(json.JSONDecodeError):
        _ask(fmt, server)
    assert _ask(fmt, server) == "fine"


def test_script_line_faults_consume_the_line(server: LoopbackServer) -> None:
    server.add(
        ScriptedReply(fault="server_error"),
        ScriptedReply(fault="rate_limit", retry_after=1),
        ScriptedReply(text="third"),
    )
    with _openai(server) as client:
        with pytest.raises(openai.InternalServerError):
            _ask_openai(client)
        with pytest.raises(openai.RateLimitError) as info:
            _ask_openai(client)
        assert info.value.response.headers["retry-after"] == "1"
        assert _ask_openai(client).choices[0].message.content == "third"
    assert [(r.served, r.fault) for r in server.requests] == [
        (0, "server_error"),
        (1, "rate_limit"),
        (2, None),
    ]


def test_slow_fault_times_out_then_answers_normally(server: LoopbackServer) -> None:
    server.add("lost to the timeout", "on time")
    server.inject("slow", delay=5.0)
    with _openai(server, timeout=0.15) as client:
        start = time.monotonic()
        with pytest.raises(openai.APITimeoutError):
            _ask_openai(client)
        assert time.monotonic() - start < 4.0  # the timeout, not the 5 s reply
        # The slow request was served the first scripted reply (to a client that left).
        assert _ask_openai(client).choices[0].message.content == "on time"
    assert [(r.served, r.fault) for r in server.requests] == [(0, "slow"), (1, None)]


def test_slow_script_line_and_latency() -> None:
    with LoopbackServer([ScriptedReply(text="late", fault="slow", delay=0.1)], latency=0.05) as srv:
        start = time.monotonic()
        assert _ask("anthropic", srv) == "late"
        assert time.monotonic() - start >= 0.15
        assert srv.requests[0].fault == "slow"


def test_openai_retries_honour_retry_after(server: LoopbackServer) -> None:
    server.add("finally")
    server.inject("rate_limit", times=2, retry_after=0.2)
    with _openai(server, max_retries=2) as client:
        start = time.monotonic()
        reply = _ask_openai(client)
        elapsed = time.monotonic() - start
    assert reply.choices[0].message.content == "finally"
    assert 0.4 <= elapsed < 10.0  # waited both Retry-After pauses; no unbounded wait
    log = server.requests
    assert [r.fault for r in log] == ["rate_limit", "rate_limit", None]
    assert [r.headers["x-stainless-retry-count"] for r in log] == ["0", "1", "2"]


def test_anthropic_retries_server_error_and_disconnect(server: LoopbackServer) -> None:
    server.add("recovered")
    server.inject("server_error", retry_after=0.1)
    server.inject("disconnect")
    with _anthropic(server, max_retries=2) as client:
        assert _ask_anthropic(client).content[0].text == "recovered"
    assert [r.fault for r in server.requests] == ["server_error", "disconnect", None]


def test_inject_rejects_bad_arguments(server: LoopbackServer) -> None:
    bad: Any = "explode"
    with pytest.raises(UsageError, match="unknown fault 'explode'"):
        server.inject(bad)
    with pytest.raises(UsageError, match="times must be >= 1, got 0"):
        server.inject("rate_limit", times=0)
    with pytest.raises(UsageError, match="must be >= 0"):
        server.inject("slow", delay=-1)
    assert FAULTS == ("rate_limit", "server_error", "slow", "malformed", "truncated", "disconnect")


# -- script order, matching, exhaustion ------------------------------------------------------


def test_match_routes_roles(server: LoopbackServer) -> None:
    server.add(
        ScriptedReply(text="refined", match="[refiner]"),
        ScriptedReply(text="coded", match="[coder]"),
        ScriptedReply(text="anyone"),
    )
    assert _ask("openai", server, "[coder] write f") == "coded"
    assert _ask("anthropic", server, "[refiner] fix f") == "refined"
    assert _ask("openai", server, "[coder] again") == "anyone"
    assert server.remaining == 0
    assert [r.served for r in server.requests] == [1, 0, 2]


def test_match_uses_last_user_or_tool_message(server: LoopbackServer) -> None:
    server.add(ScriptedReply(text="a", match="TOOL-OUT"), ScriptedReply(text="b", match="FIRST"))
    messages: Any = [
        {"role": "user", "content": "FIRST"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "t", "arguments": "{}"}}
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "TOOL-OUT"},
    ]
    with _openai(server) as client:
        reply = client.chat.completions.create(model="gpt-test", messages=messages)
    assert reply.choices[0].message.content == "a"


def test_unmatched_request_gets_500(server: LoopbackServer) -> None:
    server.add(ScriptedReply(text="x", match="[refiner]"))
    with (
        _openai(server, max_retries=2) as client,
        pytest.raises(openai.InternalServerError) as info,
    ):
        _ask_openai(client, "[coder] write f")
    assert "none of the 1 remaining replies matches" in str(info.value)
    assert [(r.fault, r.status) for r in server.requests] == [("unmatched", 500)]
    assert server.remaining == 1


@pytest.mark.parametrize("fmt", ["openai", "anthropic"])
def test_exhausted_script_answers_500_without_retries(server: LoopbackServer, fmt: str) -> None:
    sdk: Any = SDKS[fmt]
    server.add("only one")
    assert _ask(fmt, server) == "only one"
    with pytest.raises(sdk.InternalServerError) as info:
        _ask(fmt, server, max_retries=2)
    assert "loopback script exhausted" in str(info.value)
    assert info.value.response.headers["x-should-retry"] == "false"
    assert [(r.served, r.fault, r.status) for r in server.requests] == [
        (0, None, 200),
        (None, "exhausted", 500),
    ]


def test_request_log(server: LoopbackServer) -> None:
    server.add("one", {"text": "two"})
    _ask("openai", server, "hello")
    _ask("anthropic", server, "world")
    first, second = server.requests
    assert isinstance(first, RecordedRequest)
    assert (first.path, first.format, first.served, first.fault, first.status) == (
        "/v1/chat/completions",
        "openai",
        0,
        None,
        200,
    )
    assert first.body["model"] == "gpt-test"
    assert first.body["messages"] == [{"role": "user", "content": "hello"}]
    assert first.headers["authorization"] == "Bearer test"
    assert (second.path, second.format, second.served) == ("/v1/messages", "anthropic", 1)
    assert second.body["max_tokens"] == 64
    assert second.body["messages"] == [{"role": "user", "content": "world"}]
    assert second.headers["authorization"] == "Bearer test"  # anthropic 2.x sends a bearer
    assert "anthropic-version" in second.headers


def test_stream_bad_bodies_and_unknown_paths(server: LoopbackServer) -> None:
    server.add("kept")
    with _openai(server) as client, pytest.raises(openai.BadRequestError) as info:
        _ask_openai(client, stream=True)
    assert "does not stream" in str(info.value)
    with _anthropic(server) as client, pytest.raises(anthropic.BadRequestError):
        client.messages.create(model="claude-test", max_tokens=8, messages=[])
    status, body = _post(server.base_url + "/v1/messages", b"not json")
    assert (status, body["error"]["type"]) == (400, "invalid_request_error")
    status, body = _post(server.base_url + "/chat/completions", b"{}")
    assert status == 404
    assert "/v1/chat/completions" in body["error"]["message"]
    assert [r.fault for r in server.requests] == ["bad_request"] * 3 + ["not_found"]
    assert server.remaining == 1


def test_concurrent_requests_each_get_one_reply() -> None:
    n = 8
    # Each request's hook waits until all n have arrived: they all get through only if the
    # server handles them at the same time, not one after another.
    barrier = threading.Barrier(n, timeout=30)
    with LoopbackServer(
        [f"reply {i}" for i in range(n)], on_request=lambda request: barrier.wait()
    ) as srv:
        results: list[str] = []
        errors: list[BaseException] = []
        with _openai(srv) as client:

            def worker(i: int) -> None:
                try:
                    reply = _ask_openai(client, f"worker {i}")
                    results.append(str(reply.choices[0].message.content))
                except BaseException as exc:  # surfaced below
                    errors.append(exc)

            threads = [threading.Thread(target=worker, args=(i,)) for i in range(n)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
        assert errors == []
        assert sorted(results) == [f"reply {i}" for i in range(n)]
        assert not barrier.broken  # all n were in the server at once
        assert sorted(r.served for r in srv.requests if r.served is not None) == list(range(n))
        assert srv.remaining == 0


# -- ScriptedReply and load_script -----------------------------------------------------------


def test_scripted_reply_validation() -> None:
    with pytest.raises(ValueError, match=r"unknown usage keys \['prompt'\]"):
        ScriptedReply(usage={"prompt": 3})
    with pytest.raises(ValueError, match="tool call 0: 'name' must be a non-empty string"):
        ScriptedReply(tool_calls=[{"arguments": {}}])
    with pytest.raises(ValueError, match="tool call 0: 'arguments' must be an object"):
        ScriptedReply(tool_calls=[{"name": "f", "arguments": "[]"}])
    with pytest.raises(ValueError, match="fault"):
        ScriptedReply.model_validate({"fault": "explode"})
    with pytest.raises(ValueError, match="extra"):
        ScriptedReply.model_validate({"txt": "typo"})


def test_load_script(tmp_path: Path) -> None:
    path = tmp_path / "script.jsonl"
    path.write_text(
        '{"text": "hello", "match": "[coder]"}\n'
        "\n"
        '{"tool_calls": [{"name": "f", "arguments": {"x": 1}}], "usage": {"input": 3}}\n'
        '{"fault": "rate_limit", "retry_after": 0.5}\n'
    )
    assert load_script(path) == [
        ScriptedReply(text="hello", match="[coder]"),
        ScriptedReply(tool_calls=[{"name": "f", "arguments": {"x": 1}}], usage={"input": 3}),
        ScriptedReply(fault="rate_limit", retry_after=0.5),
    ]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"text": "ok"}\n{"text": \n', ":2: invalid JSON: Expecting value"),
        ('["text"]\n', ":1: expected a JSON object, got list"),
        ('{"text": "a"}\n\n{"fault": "boom"}\n', ":3: fault: Input should be 'rate_limit'"),
        ('{"txt": "a"}\n', ":1: txt: Extra inputs are not permitted"),
    ],
)
def test_load_script_errors_name_the_line(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(content)
    with pytest.raises(UsageError) as info:
        load_script(path)
    assert str(info.value).startswith(f"{path}{message}")
    assert "\n" not in str(info.value)


def test_load_script_missing_file(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no such script file"):
        load_script(tmp_path / "missing.jsonl")


# -- command line ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([], "the following arguments are required: --script"),
        (["--script", "s.jsonl", "--port", "abc"], "argument --port: invalid int value: 'abc'"),
        (["--script", "s.jsonl", "--port", "70000"], "--port must be in 0..65535, got 70000"),
        (["--script", "s.jsonl", "--latency", "-1"], "--latency must be >= 0, got -1.0"),
    ],
)
def test_cli_argument_errors(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err == f"oracle-llm-server: error: {message}\n"


def test_cli_bad_script_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text("{oops\n")
    assert main(["--script", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"oracle-llm-server: error: {path}:1: invalid JSON")
    assert err.count("\n") == 1


# Starts the server with SIGINT ignored, as a shell without job control starts a
# background command: the disposition survives exec, and Python then installs no
# KeyboardInterrupt handler of its own.
_IGNORING_SIGINT = (
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_IGN); "
    "os.execv(sys.executable, [sys.executable, '-m', 'providers.loopback', *sys.argv[1:]])"
)


@pytest.mark.parametrize("inherited", ["default", "ignored"])
def test_cli_serves_until_interrupted(tmp_path: Path, inherited: str) -> None:
    script = tmp_path / "s.jsonl"
    script.write_text('{"text": "from the cli"}\n')
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    start = ["-m", "providers.loopback"] if inherited == "default" else ["-c", _IGNORING_SIGINT]
    proc = subprocess.Popen(
        [sys.executable, *start, "--script", str(script), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
    )
    try:
        assert proc.stdout is not None
        openai_line = proc.stdout.readline()
        anthropic_line = proc.stdout.readline()
        assert openai_line.startswith("OpenAI base URL:    http://127.0.0.1:")
        openai_url = openai_line.split()[-1]
        assert openai_url.endswith("/v1")
        assert anthropic_line.split()[-1] == openai_url.removesuffix("/v1")
        assert proc.stdout.readline() == "1 scripted replies; Ctrl-C to stop\n"
        with openai.OpenAI(base_url=openai_url, api_key="test", max_retries=0) as client:
            assert _ask_openai(client).choices[0].message.content == "from the cli"
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0
    assert out == "served 1 of 1 replies\n"
    assert err == ""


# -- per-conversation scripts (evaluation episodes) -----------------------------------------


def _conversation(turns: int) -> list[dict[str, str]]:
    messages = [{"role": "user", "content": "start"}]
    for i in range(turns):
        messages += [{"role": "assistant", "content": f"a{i}"}, {"role": "user", "content": "go"}]
    return messages


def test_per_conversation_replays_the_script_for_every_conversation() -> None:
    with LoopbackServer(["first", "second", "third"], per_conversation=True) as srv:
        client = _openai(srv)
        texts = [
            client.chat.completions.create(model="m", messages=_conversation(k))  # type: ignore[arg-type]
            .choices[0]
            .message.content
            for k in (0, 0, 1, 2, 1, 0)
        ]
        assert texts == ["first", "first", "second", "third", "second", "first"]
        reply = _anthropic(srv).messages.create(
            model="c",
            max_tokens=8,
            messages=_conversation(2),  # type: ignore[arg-type]
        )
        assert [b.text for b in reply.content if b.type == "text"] == ["third"]
        assert srv.remaining == 0
        with pytest.raises(openai.InternalServerError) as info:
            client.chat.completions.create(model="m", messages=_conversation(3))  # type: ignore[arg-type]
        assert "assistant turn 4" in str(info.value)
        assert [r.served for r in srv.requests] == [0, 0, 1, 2, 1, 0, 2, None]


def test_per_conversation_injected_faults_are_served_once() -> None:
    with LoopbackServer(["only"], per_conversation=True) as srv:
        srv.inject("server_error")
        client = _openai(srv, max_retries=1)
        reply = client.chat.completions.create(model="m", messages=_conversation(0))  # type: ignore[arg-type]
        assert reply.choices[0].message.content == "only"
        assert [r.status for r in srv.requests] == [500, 200]


def test_per_conversation_refuses_fault_lines() -> None:
    with pytest.raises(UsageError, match="inject"):
        LoopbackServer([ScriptedReply(fault="rate_limit")], per_conversation=True)


def test_cli_per_conversation_flag_is_in_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "--per-conversation" in capsys.readouterr().out


# -- waiting for traffic (tests never sleep) -------------------------------------------------


def test_wait_for_requests_received_then_answered() -> None:
    release = threading.Event()
    seen: list[RecordedRequest] = []

    def hold(request: RecordedRequest) -> None:
        seen.append(request)
        release.wait(timeout=30)

    with LoopbackServer(["held"], on_request=hold) as srv:
        replies: list[str] = []
        asker = threading.Thread(target=lambda: replies.append(_ask("openai", srv, "first")))
        asker.start()
        try:
            log = srv.wait_for_requests(1, timeout=30)
            assert [r.body["messages"][0]["content"] for r in log] == ["first"]
            # The hook holds the reply: received, not answered.
            assert srv.answered == 0 and replies == []
            with pytest.raises(TimeoutError, match=r"1 request.* answered; received 1, answered 0"):
                srv.wait_for_requests(1, timeout=0.05, answered=True)
        finally:
            release.set()
        assert srv.wait_for_requests(1, timeout=30, answered=True) == log
        asker.join(timeout=30)
        assert replies == ["held"] and srv.answered == 1
        assert seen == log  # the hook saw the request as recorded, before its answer


def test_wait_for_requests_counts_faults_and_bad_requests_as_answered() -> None:
    with LoopbackServer(["ok"]) as srv:
        srv.inject("disconnect")
        assert _post(srv.base_url + "/v1/messages", b"not json")[0] == 400
        assert _ask("anthropic", srv, max_retries=1) == "ok"
        log = srv.wait_for_requests(3, timeout=30, answered=True)
    assert [r.fault for r in log] == ["bad_request", "disconnect", None]
    with pytest.raises(TimeoutError, match=r"4 request.* received; received 3, answered 3"):
        srv.wait_for_requests(4, timeout=0.01)


def test_on_request_errors_are_logged_and_the_request_answered(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def broken(request: RecordedRequest) -> None:
        raise RuntimeError("a bug in the hook")

    with (
        caplog.at_level(logging.ERROR, logger="providers.loopback"),
        LoopbackServer(["still served"], on_request=broken) as srv,
    ):
        assert _ask("anthropic", srv) == "still served"
    assert "on_request hook failed" in caplog.text and "a bug in the hook" in caplog.text


_CHILD_CLIENT = """
import socket, sys
port = int(sys.argv[1])
body = b'{"model": "m", "messages": [{"role": "user", "content": "from the child"}]}'
head = "POST /v1/chat/completions HTTP/1.1\\r\\nHost: x\\r\\nContent-Length: %d\\r\\n\\r\\n"
conns = [socket.create_connection(("127.0.0.1", port)) for _ in range(3)]
for conn in conns:
    conn.sendall((head % len(body)).encode() + body)
print("sent", flush=True)
sys.stdin.read()  # keeps the connections open until killed
"""


def test_drain_after_a_client_process_is_killed() -> None:
    release = threading.Event()
    with LoopbackServer(["a", "b", "c"], on_request=lambda r: release.wait(timeout=30)) as srv:
        child = subprocess.Popen(
            [sys.executable, "-c", _CHILD_CLIENT, str(srv.port)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert child.stdout is not None
            assert child.stdout.readline() == "sent\n"
            child.kill()
            assert child.wait(timeout=30) == -signal.SIGKILL
        finally:
            release.set()
            if child.poll() is None:
                child.kill()
            child.communicate()
        log = srv.drain(timeout=30)
        # Every request the dead client sent is recorded and answered; its connections closed.
        assert [r.body["messages"][0]["content"] for r in log] == ["from the child"] * 3
        assert srv.answered == 3 and srv.remaining == 0
        assert srv.drain(timeout=30) == log  # nothing more to wait for


def test_drain_times_out_while_a_client_keeps_a_connection_open() -> None:
    with LoopbackServer() as srv:
        idle = socket.create_connection((srv.host, srv.port))
        with idle, pytest.raises(TimeoutError, match="still open"):
            srv.drain(timeout=0.2)
        assert srv.drain(timeout=30) == []  # closed: the server's handler has ended
    with pytest.raises(UsageError, match="closed"):
        srv.drain()
