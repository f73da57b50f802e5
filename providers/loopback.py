"""A loopback LLM server: scripted replies over the real OpenAI and Anthropic wire formats.

Tests (and offline end-to-end runs) point the real SDKs at it::

    with LoopbackServer([ScriptedReply(text="hello")]) as server:
        client = openai.OpenAI(base_url=server.openai_base_url, api_key="test")
        anthropic.Anthropic(base_url=server.anthropic_base_url, api_key="test")

Endpoints (stdlib ``http.server``, HTTP/1.1, 127.0.0.1, port 0 = any free port):

* ``POST /v1/chat/completions``: OpenAI Chat Completions (non-streaming only).
* ``POST /v1/messages``: Anthropic Messages (non-streaming only).
* ``GET /health``: ``200 {"status": "ok"}``.

Replies are served in order, one per request. With ``per_conversation=True`` (CLI
``--per-conversation``) the script is instead replayed by every conversation: the request
whose messages hold i assistant turns gets line i (0-based), so concurrent evaluation
episodes each get the whole script, deterministically; ``match`` is ignored then, and
faults come only from :meth:`LoopbackServer.inject`. A reply with ``match`` is only served to a
request whose last user/tool message contains that substring, so one server can answer
several roles deterministically: the first unserved reply whose ``match`` is None or occurs
is served. Faults queued with :meth:`LoopbackServer.inject` are served first and consume
only themselves. When nothing is left the server answers 500 with ``x-should-retry: false``.

Usage in replies comes from the script (keys ``input``, ``output``, ``cache_read``,
``cache_write``, ``reasoning``, the fields of ``providers.Usage``) or, when a key is not
given, is counted deterministically: ``input`` = words in the request's messages (system
included), ``output`` = words in the reply text plus in the JSON of its tool arguments, the
other three 0. On the wire:

* OpenAI: ``prompt_tokens = input + cache_read + cache_write``,
  ``prompt_tokens_details = {cached_tokens: cache_read, cache_write_tokens: cache_write}``,
  ``completion_tokens = output`` (reasoning included),
  ``completion_tokens_details.reasoning_tokens = reasoning``, ``total_tokens`` the sum.
* Anthropic: ``input_tokens = input``, ``output_tokens = output``,
  ``cache_read_input_tokens = cache_read``, ``cache_creation_input_tokens = cache_write``,
  ``output_tokens_details.thinking_tokens = reasoning``.

Waiting for traffic (tests time nothing by sleeps)::

    server = LoopbackServer(script, on_request=hook)  # hook(request) before each answer
    server.wait_for_requests(3, timeout=30)             # 3 POSTs received
    server.wait_for_requests(3, timeout=30, answered=True)
    server.drain(timeout=30)  # after a client process exited: all it sent is in the log

A request is *received* when it is recorded (before the latency wait), *answered* when
the server is done with it (its reply written, or the attempt over: a ``disconnect``
fault, a client that hung up). ``on_request`` runs in the request's handler thread,
after recording and before the answer, which waits for it: a test can hold a reply
while it kills the client.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import logging
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any, Literal, NoReturn
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from oracle_bench.cli import add_version
from oracle_bench.errors import UsageError

__all__ = [
    "FAULTS",
    "Fault",
    "LoopbackServer",
    "RecordedRequest",
    "ScriptedReply",
    "load_script",
    "main",
]

logger = logging.getLogger(__name__)

Fault = Literal["rate_limit", "server_error", "slow", "malformed", "truncated", "disconnect"]
FAULTS: tuple[Fault, ...] = (
    "rate_limit",
    "server_error",
    "slow",
    "malformed",
    "truncated",
    "disconnect",
)
_FAULT_STATUS: dict[str, int | None] = {
    "rate_limit": 429,
    "server_error": 500,
    "slow": 200,
    "malformed": 200,
    "truncated": 200,
    "disconnect": None,
}
WireFormat = Literal["openai", "anthropic"]
USAGE_KEYS = ("input", "output", "cache_read", "cache_write", "reasoning")
_TOOL_CALL_KEYS = {"name", "arguments", "id"}
THINKING_SIGNATURE = "loopback-signature"
MALFORMED_BODY = b'{"id": "chatcmpl-broken", "choices": [ this is not JSON'


class ScriptedReply(BaseModel):
    """One scripted answer: a line of a JSONL script, also the scripted provider's format."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    text: str = ""
    tool_calls: list[dict[str, Any]] = Field(default_factory=list)
    """``[{"name": ..., "arguments": {...}}]``; ids are generated unless an ``id`` is given."""
    usage: dict[str, int] = Field(default_factory=dict)
    """Any of ``input``, ``output``, ``cache_read``, ``cache_write``, ``reasoning``."""
    fault: Fault | None = None
    retry_after: float | None = Field(default=None, ge=0)
    """For ``rate_limit`` (and ``server_error``): sent as the ``Retry-After`` header (seconds)."""
    delay: float = Field(default=0.0, ge=0)
    """Seconds to wait before answering (any reply; the point of ``slow``)."""
    match: str | None = None
    """Serve only to a request whose last user/tool message contains this substring."""
    thinking: str | None = None
    """Anthropic format: a signed ``thinking`` block before the text (ignored by OpenAI)."""

    @field_validator("tool_calls")
    @classmethod
    def _check_tool_calls(cls, value: list[dict[str, Any]]) -> list[dict[str, Any]]:
        for i, call in enumerate(value):
            unknown = sorted(set(call) - _TOOL_CALL_KEYS)
            if unknown:
                raise ValueError(f"tool call {i}: unknown keys {unknown}")
            if not isinstance(call.get("name"), str) or not call["name"]:
                raise ValueError(f"tool call {i}: 'name' must be a non-empty string")
            if not isinstance(call.get("arguments", {}), dict):
                raise ValueError(f"tool call {i}: 'arguments' must be an object")
            if "id" in call and not isinstance(call["id"], str):
                raise ValueError(f"tool call {i}: 'id' must be a string")
        return value

    @field_validator("usage")
    @classmethod
    def _check_usage(cls, value: dict[str, int]) -> dict[str, int]:
        unknown = sorted(set(value) - set(USAGE_KEYS))
        if unknown:
            raise ValueError(f"unknown usage keys {unknown}; allowed: {', '.join(USAGE_KEYS)}")
        negative = sorted(k for k, v in value.items() if v < 0)
        if negative:
            raise ValueError(f"negative usage {negative}")
        return value


ReplyLike = ScriptedReply | Mapping[str, Any] | str


def _to_reply(item: ReplyLike) -> ScriptedReply:
    if isinstance(item, ScriptedReply):
        return item
    if isinstance(item, str):
        return ScriptedReply(text=item)
    return ScriptedReply.model_validate(dict(item))


def _one_line(error: ValidationError) -> str:
    parts = []
    for err in error.errors():
        loc = ".".join(str(p) for p in err["loc"]) or "line"
        parts.append(f"{loc}: {err['msg']}")
    return "; ".join(parts)


def load_script(path: str | Path) -> list[ScriptedReply]:
    """Read a JSONL script (one :class:`ScriptedReply` object per line; blank lines skipped).

    Raises ``UsageError`` naming the file and line on a missing file or a bad line.
    """
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise UsageError(f"{path}: no such script file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: cannot read script: {exc}") from None
    replies = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise UsageError(f"{path}:{number}: invalid JSON: {exc.msg}") from None
        if not isinstance(data, dict):
            raise UsageError(f"{path}:{number}: expected a JSON object, got {type(data).__name__}")
        try:
            replies.append(ScriptedReply.model_validate(data))
        except ValidationError as exc:
            raise UsageError(f"{path}:{number}: {_one_line(exc)}") from None
    return replies


@dataclass(frozen=True)
class RecordedRequest:
    """One POST the server received, in arrival order."""

    path: str
    """The request path without the query string, e.g. ``/v1/messages``."""
    format: WireFormat | None
    """None for a path that is neither API."""
    body: Any
    """The parsed JSON body (None when it was not JSON)."""
    headers: dict[str, str]
    """Lower-cased header names (e.g. ``x-stainless-retry-count`` on SDK retries)."""
    served: int | None
    """Index of the scripted reply served (script order, then :meth:`LoopbackServer.add`)."""
    fault: str | None
    """The fault served (``rate_limit``, ``slow``, ...), or why no reply was: ``exhausted``,
    ``unmatched``, ``bad_request``, ``not_found``."""
    status: int | None
    """HTTP status sent; None when the socket was closed without a response."""


@dataclass(frozen=True)
class _Injected:
    fault: Fault
    retry_after: float | None
    delay: float


@dataclass(frozen=True)
class _Plan:
    """What to answer to one request, decided under the lock."""

    index: int | None
    reply: ScriptedReply | None
    fault: str | None
    delay: float
    retry_after: float | None
    status: int | None
    message: str = ""


@dataclass
class _State:
    replies: list[ScriptedReply] = field(default_factory=list)
    served: list[bool] = field(default_factory=list)
    injected: list[_Injected] = field(default_factory=list)
    requests: list[RecordedRequest] = field(default_factory=list)
    answered: int = 0
    """Requests the server is done with (see the module docstring)."""
    opened: int = 0
    """Connections accepted (counted in the accepting thread, at accept)."""
    closed: int = 0
    """Connections whose handler has finished and closed them."""


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    # The stdlib default backlog of 5 resets connections when dozens of concurrent
    # episodes connect at once; a real API server accepts them.
    request_queue_size = 128

    def __init__(self, address: tuple[str, int], owner: LoopbackServer) -> None:
        self.owner = owner
        self.connections: set[socket.socket] = set()
        self.connections_lock = threading.Lock()
        super().__init__(address, _Handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        # Clients that time out or hang up mid-reply are expected here: never print.
        logger.debug("loopback: connection from %s ended with an error", client_address)

    # socketserver calls verify_request once per accepted connection and then
    # shutdown_request exactly once for it (after its handler thread, or when that thread
    # cannot start): the two counters tell when every accepted connection is closed.
    def verify_request(self, request: Any, client_address: Any) -> bool:
        with self.owner._changed:
            self.owner._state.opened += 1
        return True

    def shutdown_request(self, request: Any) -> None:
        try:
            super().shutdown_request(request)
        finally:
            with self.owner._changed:
                self.owner._state.closed += 1
                self.owner._changed.notify_all()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out as two small writes on a kept-alive connection; with Nagle
    # on, the body waits for the client's delayed ACK (about 40 ms per call).
    disable_nagle_algorithm = True
    server: _HTTPServer
    server_version = "oracle-loopback/1"

    def setup(self) -> None:
        super().setup()
        with self.server.connections_lock:
            self.server.connections.add(self.connection)

    def finish(self) -> None:
        with self.server.connections_lock:
            self.server.connections.discard(self.connection)
        super().finish()

    def log_message(self, format: str, *args: Any) -> None:
        logger.debug("loopback: " + format, *args)

    def do_GET(self) -> None:
        if urlsplit(self.path).path.rstrip("/") == "/health":
            _send_json(self, 200, {"status": "ok"})
        else:
            _send_json(self, 404, {"error": {"message": f"no route GET {self.path}"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length > 0 else b""
        self.server.owner._handle(self, raw)


def _send_json(
    handler: BaseHTTPRequestHandler,
    status: int,
    payload: Any,
    headers: Mapping[str, str] | None = None,
) -> None:
    _send_bytes(handler, status, json.dumps(payload).encode(), headers)


def _send_bytes(
    handler: BaseHTTPRequestHandler,
    status: int,
    body: bytes,
    headers: Mapping[str, str] | None = None,
    *,
    content_length: int | None = None,
) -> None:
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header(
        "Content-Length", str(len(body) if content_length is None else content_length)
    )
    for name, value in (headers or {}).items():
        handler.send_header(name, value)
    handler.end_headers()
    handler.wfile.write(body)
    handler.wfile.flush()


def _text_of(content: Any) -> str:
    """All text inside a message content: a string, or parts/blocks (tool results included)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(_text_of(part) for part in content)
    if isinstance(content, dict):
        pieces = [content[k] for k in ("text", "content") if k in content]
        return "\n".join(_text_of(p) for p in pieces)
    return ""


def _last_message_text(body: Mapping[str, Any]) -> str:
    messages = body.get("messages") or []
    for message in reversed(messages):
        if isinstance(message, dict) and message.get("role") in ("user", "tool"):
            return _text_of(message.get("content"))
    if messages and isinstance(messages[-1], dict):
        return _text_of(messages[-1].get("content"))
    return ""


def _unsigned_tool_turn(body: Mapping[str, Any]) -> str | None:
    """Anthropic's rule with thinking enabled: the last assistant turn, if it used a tool,
    must start with a signed thinking block (the API answers 400 otherwise)."""
    thinking = body.get("thinking")
    if not isinstance(thinking, dict) or thinking.get("type") != "enabled":
        return None
    messages = body.get("messages") or []
    for i in range(len(messages) - 1, -1, -1):
        message = messages[i]
        if not isinstance(message, dict) or message.get("role") != "assistant":
            continue
        blocks = message.get("content")
        if not isinstance(blocks, list):
            return None
        kinds = [b.get("type") for b in blocks if isinstance(b, dict)]
        if "tool_use" not in kinds:
            return None
        first = blocks[0] if blocks and isinstance(blocks[0], dict) else {}
        if first.get("type") == "redacted_thinking":
            return None
        if first.get("type") == "thinking" and first.get("signature") == THINKING_SIGNATURE:
            return None
        return (
            f"messages.{i}.content.0.type: Expected `thinking` or `redacted_thinking`, but found "
            f"`{first.get('type')}`. When `thinking` is enabled, a final `assistant` message "
            "must start with a thinking block."
        )
    return None


def _matches(reply: ScriptedReply, text: str) -> bool:
    return reply.match is None or reply.match in text


def _count_words(text: str) -> int:
    return len(text.split())


def _request_words(body: Mapping[str, Any]) -> int:
    words = _count_words(_text_of(body.get("system", "")))
    for message in body.get("messages") or []:
        if isinstance(message, dict):
            words += _count_words(_text_of(message.get("content")))
    return words


class LoopbackServer:
    """A scripted OpenAI/Anthropic-compatible HTTP server in a background thread.

    It listens as soon as it is built; ``close()`` (or leaving the ``with`` block) stops it.
    ``latency`` seconds are waited before every API answer. ``on_request(request)`` is
    called for every POST, in its handler thread, after it is recorded and before it is
    answered (the answer waits for it; calls from concurrent requests may overlap, so it
    must be thread-safe; its return value is ignored; an exception in it is logged and the
    request answered as planned). Thread-safe.
    """

    def __init__(
        self,
        script: Iterable[ReplyLike] = (),
        *,
        latency: float = 0.0,
        host: str = "127.0.0.1",
        port: int = 0,
        per_conversation: bool = False,
        on_request: Callable[[RecordedRequest], object] | None = None,
    ) -> None:
        if latency < 0:
            raise UsageError(f"latency must be >= 0, got {latency}")
        self.latency = latency
        self.per_conversation = per_conversation
        self.on_request = on_request
        self._lock = threading.Lock()
        # Notified whenever a request is recorded or answered or a connection closes.
        self._changed = threading.Condition(self._lock)
        self._state = _State()
        self._ids = itertools.count(1)
        self.add(*script)
        self._httpd = _HTTPServer((host, port), self)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"loopback-llm-{self.port}",
            daemon=True,
        )
        self._closed = False
        self._thread.start()
        logger.debug("loopback LLM server on %s", self.base_url)

    # -- addresses -------------------------------------------------------------------------

    @property
    def host(self) -> str:
        return str(self._httpd.server_address[0])

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """``http://HOST:PORT``."""
        return f"http://{self.host}:{self.port}"

    @property
    def openai_base_url(self) -> str:
        """``base_url`` for ``openai.OpenAI``: ``http://HOST:PORT/v1``."""
        return f"{self.base_url}/v1"

    @property
    def anthropic_base_url(self) -> str:
        """``base_url`` for ``anthropic.Anthropic``: ``http://HOST:PORT``."""
        return self.base_url

    # -- script ----------------------------------------------------------------------------

    def add(self, *replies: ReplyLike) -> None:
        """Append replies (a ``ScriptedReply``, a dict of its fields, or plain text)."""
        parsed = [_to_reply(r) for r in replies]
        if self.per_conversation:
            for i, reply in enumerate(parsed):
                if reply.fault is not None and reply.fault != "slow":
                    raise UsageError(
                        f"scripted reply {i + 1}: a per-conversation script replays every line "
                        f"in every conversation, so a {reply.fault!r} line would fail every "
                        "retry; inject faults with LoopbackServer.inject() instead"
                    )
        with self._lock:
            self._state.replies.extend(parsed)
            self._state.served.extend(False for _ in parsed)

    def inject(
        self,
        fault: Fault,
        times: int = 1,
        retry_after: float | None = None,
        delay: float = 0.0,
    ) -> None:
        """Serve ``fault`` to the next ``times`` requests, before any scripted reply.

        A fault consumes only itself: a retried request then gets the next scripted reply.
        ``slow`` waits ``delay`` seconds and then answers that scripted reply normally.
        """
        if fault not in FAULTS:
            raise UsageError(f"unknown fault {fault!r}; available: {', '.join(FAULTS)}")
        if times < 1:
            raise UsageError(f"times must be >= 1, got {times}")
        if delay < 0 or (retry_after is not None and retry_after < 0):
            raise UsageError("delay and retry_after must be >= 0")
        with self._lock:
            self._state.injected.extend(_Injected(fault, retry_after, delay) for _ in range(times))

    @property
    def requests(self) -> list[RecordedRequest]:
        """A snapshot of every POST received so far, in arrival order."""
        with self._lock:
            return list(self._state.requests)

    @property
    def remaining(self) -> int:
        """Scripted replies not served yet (injected faults not counted)."""
        with self._lock:
            return self._state.served.count(False)

    @property
    def answered(self) -> int:
        """How many of :attr:`requests` the server is done with (reply written or given up)."""
        with self._lock:
            return self._state.answered

    def wait_for_requests(
        self, n: int, timeout: float = 30.0, *, answered: bool = False
    ) -> list[RecordedRequest]:
        """Block until at least ``n`` POSTs were received (``answered=True``: answered);
        return :attr:`requests` as of then.

        Raises ``TimeoutError`` (with the counts) when ``timeout`` seconds pass first.
        """
        with self._changed:
            done = self._changed.wait_for(
                lambda: (self._state.answered if answered else len(self._state.requests)) >= n,
                timeout,
            )
            if not done:
                raise TimeoutError(
                    f"loopback: waited {timeout:g} s for {n} request(s) "
                    f"{'answered' if answered else 'received'}; received "
                    f"{len(self._state.requests)}, answered {self._state.answered}"
                )
            return list(self._state.requests)

    def drain(self, timeout: float = 30.0) -> list[RecordedRequest]:
        """Wait until every connection made before this call is served and closed; return
        :attr:`requests` as of then.

        For after a client process has exited (SIGKILL included): requests it sent that
        still sat in socket buffers or in the listen backlog are then recorded and
        answered, so the log holds everything it sent. A probe ``GET /health`` goes first:
        connections are accepted in arrival order, so once the probe is answered every
        earlier one has been accepted. Connections a live client keeps open make this
        raise ``TimeoutError``; a closed server, ``UsageError``.
        """
        if self._closed:
            raise UsageError("the loopback server is closed")
        deadline = time.monotonic() + timeout
        host = self.host if self.host not in ("0.0.0.0", "::", "") else "127.0.0.1"
        try:
            with socket.create_connection((host, self.port), timeout=timeout) as probe:
                probe.sendall(
                    b"GET /health HTTP/1.1\r\nHost: loopback\r\nConnection: close\r\n\r\n"
                )
                while True:  # read the answer to its end: the server closes the probe
                    probe.settimeout(max(deadline - time.monotonic(), 0.001))
                    if not probe.recv(65536):
                        break
        except OSError as exc:
            raise TimeoutError(f"loopback: drain probe failed: {exc}") from exc
        with self._changed:
            done = self._changed.wait_for(
                lambda: self._state.closed >= self._state.opened,
                max(deadline - time.monotonic(), 0.0),
            )
            if not done:
                open_now = self._state.opened - self._state.closed
                raise TimeoutError(
                    f"loopback: waited {timeout:g} s for connections to close; "
                    f"{open_now} still open"
                )
            return list(self._state.requests)

    # -- lifecycle -------------------------------------------------------------------------

    def close(self) -> None:
        """Stop serving and drop open connections. Idempotent."""
        if self._closed:
            return
        self._closed = True
        self._httpd.shutdown()
        with self._httpd.connections_lock:
            open_connections = list(self._httpd.connections)
        for conn in open_connections:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> LoopbackServer:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"LoopbackServer({self.base_url!r}, remaining={self.remaining})"

    # -- serving ---------------------------------------------------------------------------

    def _record(
        self, handler: _Handler, path: str, fmt: WireFormat | None, body: Any, plan: _Plan
    ) -> None:
        headers = {k.lower(): v for k, v in handler.headers.items()}
        self._state.requests.append(
            RecordedRequest(path, fmt, body, headers, plan.index, plan.fault, plan.status)
        )

    def _plan(self, body: Mapping[str, Any]) -> _Plan:
        """Pick the answer; called with the lock held."""
        state = self._state
        injected = state.injected.pop(0) if state.injected else None
        if injected is not None and injected.fault != "slow":
            return _Plan(
                None,
                None,
                injected.fault,
                injected.delay,
                injected.retry_after,
                _FAULT_STATUS[injected.fault],
            )
        if self.per_conversation:
            return self._plan_in_conversation(body, injected)
        text = _last_message_text(body)
        pending = [i for i, done in enumerate(state.served) if not done]
        chosen = next((i for i in pending if _matches(state.replies[i], text)), None)
        extra = injected.delay if injected is not None else 0.0
        if chosen is None:
            reason = "exhausted" if not pending else "unmatched"
            message = (
                "loopback script exhausted: no scripted reply left"
                if not pending
                else f"loopback script: none of the {len(pending)} remaining replies matches "
                f"the last message {text[:80]!r}"
            )
            return _Plan(None, None, reason, extra, None, 500, message)
        state.served[chosen] = True
        reply = state.replies[chosen]
        fault = reply.fault
        if fault is None or fault == "slow":
            tag = "slow" if (fault == "slow" or injected is not None) else None
            return _Plan(chosen, reply, tag, extra + reply.delay, None, 200)
        return _Plan(
            chosen, reply, fault, extra + reply.delay, reply.retry_after, _FAULT_STATUS[fault]
        )

    def _plan_in_conversation(self, body: Mapping[str, Any], injected: _Injected | None) -> _Plan:
        """Per-conversation mode: the reply whose index is the number of assistant turns."""
        state = self._state
        messages = body.get("messages") or []
        index = sum(1 for m in messages if isinstance(m, dict) and m.get("role") == "assistant")
        extra = injected.delay if injected is not None else 0.0
        if index >= len(state.replies):
            message = (
                f"loopback script exhausted: the conversation is at assistant turn {index + 1} "
                f"and the script has {len(state.replies)} replies"
            )
            return _Plan(None, None, "exhausted", extra, None, 500, message)
        state.served[index] = True
        reply = state.replies[index]
        tag = "slow" if (reply.fault == "slow" or injected is not None) else None
        return _Plan(index, reply, tag, extra + reply.delay, None, 200)

    def _handle(self, handler: _Handler, raw: bytes) -> None:
        path = urlsplit(handler.path).path.rstrip("/")
        fmt: WireFormat | None = {
            "/v1/chat/completions": "openai",
            "/v1/messages": "anthropic",
        }.get(path)  # type: ignore[assignment]
        try:
            body = json.loads(raw) if raw else None
        except (json.JSONDecodeError, UnicodeDecodeError):
            body = None
        problem = None
        if fmt is None:
            problem = (
                404,
                "not_found",
                f"no route POST {path}: use /v1/chat/completions (OpenAI base_url "
                "http://HOST:PORT/v1) or /v1/messages (Anthropic base_url http://HOST:PORT)",
            )
        elif not isinstance(body, dict):
            problem = (400, "bad_request", "request body must be a JSON object")
        elif body.get("stream"):
            problem = (
                400,
                "bad_request",
                "the loopback server does not stream: send stream=false",
            )
        elif not isinstance(body.get("messages"), list) or not body["messages"]:
            problem = (400, "bad_request", "'messages' must be a non-empty list")
        elif fmt == "anthropic":
            unsigned = _unsigned_tool_turn(body)
            if unsigned is not None:
                problem = (400, "bad_request", unsigned)
        with self._changed:
            if problem is not None or not isinstance(body, dict):
                code, reason, message = problem or (400, "bad_request", "bad request")
                plan = _Plan(None, None, reason, 0.0, None, code, message)
            else:
                plan = self._plan(body)
            self._record(handler, path, fmt, body, plan)
            recorded = self._state.requests[-1]
            self._changed.notify_all()
        try:
            hook = self.on_request
            if hook is not None:
                try:
                    hook(recorded)
                except Exception:
                    logger.exception("loopback: on_request hook failed; answering anyway")
            if problem is not None or fmt is None or not isinstance(body, dict):
                self._error(handler, fmt, plan)
                return
            wait = self.latency + plan.delay
            if wait > 0:
                time.sleep(wait)
            self._answer(handler, fmt, body, plan)
        finally:
            with self._changed:
                self._state.answered += 1
                self._changed.notify_all()

    def _error(self, handler: _Handler, fmt: WireFormat | None, plan: _Plan) -> None:
        status = plan.status or 500
        kind = {
            400: ("invalid_request_error", "invalid_request_error"),
            404: ("invalid_request_error", "not_found_error"),
            429: ("rate_limit_exceeded", "rate_limit_error"),
        }.get(status, ("server_error", "api_error"))
        headers: dict[str, str] = {"x-request-id": f"req_loop_{next(self._ids)}"}
        headers["request-id"] = headers["x-request-id"]
        if plan.retry_after is not None:
            headers["Retry-After"] = f"{plan.retry_after:g}"
        if plan.fault in ("exhausted", "unmatched"):
            headers["x-should-retry"] = "false"
        if fmt == "anthropic":
            payload: dict[str, Any] = {
                "type": "error",
                "error": {"type": kind[1], "message": plan.message},
            }
        else:
            payload = {
                "error": {"message": plan.message, "type": kind[0], "param": None, "code": kind[0]}
            }
        _send_json(handler, status, payload, headers)

    def _answer(
        self, handler: _Handler, fmt: WireFormat, body: Mapping[str, Any], plan: _Plan
    ) -> None:
        fault = plan.fault
        if fault == "disconnect":
            handler.close_connection = True
            return
        if fault == "rate_limit":
            message = "loopback: rate limit reached (injected fault)"
            self._error(handler, fmt, _Plan(None, None, fault, 0, plan.retry_after, 429, message))
            return
        if fault == "server_error":
            message = "loopback: internal server error (injected fault)"
            self._error(handler, fmt, _Plan(None, None, fault, 0, plan.retry_after, 500, message))
            return
        if fault in ("exhausted", "unmatched"):
            self._error(handler, fmt, plan)
            return
        if fault == "malformed":
            _send_bytes(handler, 200, MALFORMED_BODY)
            return
        reply = plan.reply if plan.reply is not None else ScriptedReply(text="")
        if fault == "truncated" and not (reply.text or reply.tool_calls):
            reply = ScriptedReply(text="this reply is cut short by the loopback server")
        payload = (
            self._openai_payload(body, reply)
            if fmt == "openai"
            else self._anthropic_payload(body, reply)
        )
        data = json.dumps(payload).encode()
        if fault == "truncated":
            handler.close_connection = True
            _send_bytes(handler, 200, data[: len(data) // 2], content_length=len(data))
            return
        rid = f"req_loop_{next(self._ids)}"
        _send_bytes(handler, 200, data, {"x-request-id": rid, "request-id": rid})

    def _usage(self, body: Mapping[str, Any], reply: ScriptedReply) -> dict[str, int]:
        output = _count_words(reply.text) + sum(
            _count_words(json.dumps(call.get("arguments", {}))) for call in reply.tool_calls
        )
        counted = {"input": _request_words(body), "output": output}
        return {key: reply.usage.get(key, counted.get(key, 0)) for key in USAGE_KEYS}

    def _openai_payload(self, body: Mapping[str, Any], reply: ScriptedReply) -> dict[str, Any]:
        n = next(self._ids)
        usage = self._usage(body, reply)
        message: dict[str, Any] = {
            "role": "assistant",
            "content": reply.text if (reply.text or not reply.tool_calls) else None,
            "refusal": None,
        }
        if reply.tool_calls:
            message["tool_calls"] = [
                {
                    "id": call.get("id") or f"call_loop_{n}_{i}",
                    "type": "function",
                    "function": {
                        "name": call["name"],
                        "arguments": json.dumps(call.get("arguments", {})),
                    },
                }
                for i, call in enumerate(reply.tool_calls)
            ]
        prompt = usage["input"] + usage["cache_read"] + usage["cache_write"]
        return {
            "id": f"chatcmpl-loop-{n}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": str(body.get("model", "loopback")),
            "system_fingerprint": None,
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "logprobs": None,
                    "finish_reason": "tool_calls" if reply.tool_calls else "stop",
                }
            ],
            "usage": {
                "prompt_tokens": prompt,
                "completion_tokens": usage["output"],
                "total_tokens": prompt + usage["output"],
                "prompt_tokens_details": {
                    "cached_tokens": usage["cache_read"],
                    "cache_write_tokens": usage["cache_write"],
                },
                "completion_tokens_details": {"reasoning_tokens": usage["reasoning"]},
            },
        }

    def _anthropic_payload(self, body: Mapping[str, Any], reply: ScriptedReply) -> dict[str, Any]:
        n = next(self._ids)
        usage = self._usage(body, reply)
        content: list[dict[str, Any]] = []
        if reply.thinking is not None:
            content.append(
                {"type": "thinking", "thinking": reply.thinking, "signature": THINKING_SIGNATURE}
            )
        if reply.text or not reply.tool_calls:
            content.append({"type": "text", "text": reply.text, "citations": None})
        content.extend(
            {
                "type": "tool_use",
                "id": call.get("id") or f"toolu_loop_{n}_{i}",
                "name": call["name"],
                "input": call.get("arguments", {}),
            }
            for i, call in enumerate(reply.tool_calls)
        )
        return {
            "id": f"msg_loop_{n}",
            "type": "message",
            "role": "assistant",
            "model": str(body.get("model", "loopback")),
            "content": content,
            "stop_reason": "tool_use" if reply.tool_calls else "end_turn",
            "stop_sequence": None,
            "usage": {
                "input_tokens": usage["input"],
                "output_tokens": usage["output"],
                "cache_creation_input_tokens": usage["cache_write"],
                "cache_read_input_tokens": usage["cache_read"],
                "output_tokens_details": {"thinking_tokens": usage["reasoning"]},
            },
        }


# -- command line ------------------------------------------------------------------------------


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, exit 2 (argparse adds usage)
        self.exit(2, f"{self.prog}: error: {message}\n")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="oracle-llm-server",
        description="Serve scripted LLM replies over the OpenAI and Anthropic wire formats.",
    )
    parser.add_argument("--script", required=True, type=Path, help="JSONL of scripted replies")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=0, help="port (default 0: any free port)")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds before each answer")
    parser.add_argument(
        "--per-conversation",
        action="store_true",
        help="answer the i-th assistant turn of EVERY conversation with script line i "
        "(for evaluation runs: each episode replays the whole script)",
    )
    add_version(parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """``oracle-llm-server --script FILE [--port N] [--latency S]``: serve until Ctrl-C."""
    parser = _parser()
    args = parser.parse_args(argv)
    if not 0 <= args.port <= 65535:
        parser.error(f"--port must be in 0..65535, got {args.port}")
    if args.latency < 0:
        parser.error(f"--latency must be >= 0, got {args.latency}")
    try:
        script = load_script(args.script)
    except UsageError as exc:
        print(f"oracle-llm-server: error: {exc}", file=sys.stderr)
        return 2
    try:
        server = LoopbackServer(
            script,
            latency=args.latency,
            host=args.host,
            port=args.port,
            per_conversation=args.per_conversation,
        )
    except UsageError as exc:
        print(f"oracle-llm-server: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(
            f"oracle-llm-server: error: cannot listen on {args.host}:{args.port}: {exc.strerror}",
            file=sys.stderr,
        )
        return 1
    # "Until Ctrl-C" however it was started: a shell without job control starts a
    # background command with SIGINT ignored, and Python then raises no KeyboardInterrupt.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    with server:
        print(f"OpenAI base URL:    {server.openai_base_url}", flush=True)
        print(f"Anthropic base URL: {server.anthropic_base_url}", flush=True)
        print(f"{len(script)} scripted replies; Ctrl-C to stop", flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass
    served = sum(1 for r in server.requests if r.served is not None)
    print(f"served {served} of {len(script)} replies", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
