"""A hardened JSON-over-HTTP service on the standard library, for serving boxes.

Every byte a client sends is hostile. The service:

* serves only the routes it is given (method + a pattern over plain path segments of
  ``[A-Za-z0-9._-]``); a path with ``..``, percent escapes, a backslash, a NUL or more than
  :attr:`ServiceLimits.max_path` characters is a 404 before any handler sees it, and
  nothing is ever read from the file system on a client's behalf;
* reads at most :attr:`ServiceLimits.max_body_bytes` of JSON (413 beyond, 400 for bad
  JSON, 415 for another content type), with a read timeout per connection;
* limits each client address with a token bucket (429 with ``Retry-After``) and the
  connections served at once (503 beyond);
* checks an optional bearer token in constant time (401), except on ``GET /health``;
* answers every error as ``{"error": {"status": ..., "message": ...}}`` with one line of
  text: a handler's :class:`HttpError`, or a bare 500 for anything else (logged here,
  never sent: no traceback, no path, no value ever leaves the process).
"""

from __future__ import annotations

import contextlib
import hmac
import json
import logging
import re
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl

from oracle_bench.errors import OracleBenchError, UsageError

__all__ = [
    "HttpError",
    "JsonService",
    "Request",
    "Route",
    "ServiceLimits",
]

log = logging.getLogger(__name__)

_SEGMENT = re.compile(r"[A-Za-z0-9._-]{1,128}")
_SERVER_NAME = "oracle-bench"


class HttpError(OracleBenchError, ValueError):
    """A request a handler refuses: ``status`` and a one-line ``message`` for the client."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = int(status)
        self.message = " ".join(str(message).split())[:500]


@dataclass(frozen=True)
class ServiceLimits:
    """What one client may send and how much the service takes on at once."""

    max_body_bytes: int = 1 << 20
    max_path: int = 512
    max_query_params: int = 16
    read_timeout: float = 15.0
    """Seconds a connection may sit idle or trickle a request (slowloris)."""
    rate_per_second: float = 1000.0
    """Sustained requests per second per client address (an evaluation harness playing
    DFA learners at some concurrency sends hundreds)."""
    burst: int = 2000
    """Requests a client may send at once before the rate applies."""
    max_connections: int = 64
    """Connections served at once; more get 503."""

    def __post_init__(self) -> None:
        if self.max_body_bytes < 1024:
            raise UsageError(f"max_body_bytes must be >= 1024, got {self.max_body_bytes}")
        if not self.read_timeout > 0 or not self.rate_per_second > 0:
            raise UsageError("read_timeout and rate_per_second must be > 0")
        if self.burst < 1 or self.max_connections < 1 or self.max_path < 16:
            raise UsageError("burst and max_connections must be >= 1, max_path >= 16")


@dataclass(frozen=True)
class Request:
    """A request that passed every check: its route's path parameters, query and body."""

    method: str
    path: str
    params: Mapping[str, str]
    query: Mapping[str, str]
    body: Any
    """The parsed JSON body (None without one)."""
    client: str


Handler = Callable[[Request], Any]


@dataclass(frozen=True)
class Route:
    """``GET /episodes/{episode}/state``-style: ``{name}`` matches one plain segment."""

    method: str
    pattern: str
    handler: Handler
    public: bool = False
    """True: answered without the bearer token (health checks)."""
    regex: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        parts = []
        for segment in self.pattern.strip("/").split("/"):
            if segment.startswith("{") and segment.endswith("}"):
                parts.append(f"(?P<{segment[1:-1]}>{_SEGMENT.pattern})")
            else:
                parts.append(re.escape(segment))
        regex = re.compile("^/" + "/".join(p for p in parts if p) + "$")
        object.__setattr__(self, "regex", regex)


class _Bucket:
    __slots__ = ("stamp", "tokens")

    def __init__(self, tokens: float, stamp: float) -> None:
        self.tokens = tokens
        self.stamp = stamp


class _RateLimiter:
    """A token bucket per client address (bounded: the oldest buckets are dropped)."""

    _MAX_CLIENTS = 4096

    def __init__(self, rate: float, burst: int) -> None:
        self._rate, self._burst = rate, float(burst)
        self._buckets: dict[str, _Bucket] = {}
        self._lock = threading.Lock()

    def wait_seconds(self, client: str) -> float:
        """0 when ``client`` may go ahead (a token is taken), else seconds until it may."""
        now = time.monotonic()
        with self._lock:
            bucket = self._buckets.get(client)
            if bucket is None:
                if len(self._buckets) >= self._MAX_CLIENTS:
                    self._buckets.pop(next(iter(self._buckets)))
                bucket = self._buckets[client] = _Bucket(self._burst, now)
            bucket.tokens = min(self._burst, bucket.tokens + (now - bucket.stamp) * self._rate)
            bucket.stamp = now
            if bucket.tokens >= 1.0:
                bucket.tokens -= 1.0
                return 0.0
            return (1.0 - bucket.tokens) / self._rate


def _plain_path(raw: str, limit: int) -> str | None:
    """The path of a request target if it is plain (no escapes, no dot segments)."""
    path, _, _query = raw.partition("?")
    if len(raw) > limit or not path.startswith("/") or "%" in path or "\\" in path:
        return None
    segments = path[1:].split("/") if path != "/" else []
    for segment in segments:
        if segment in ("", ".", "..") or not _SEGMENT.fullmatch(segment):
            return None
    return path


def _error_body(status: int, message: str) -> dict[str, Any]:
    return {"error": {"status": status, "message": message}}


class JsonService:
    """Routes served on ``host:port`` (port 0: any free one) in threads of this process.

    >>> service = JsonService([Route("GET", "/health", lambda r: {"status": "ok"}, public=True)])
    >>> with service:                          # doctest: +SKIP
    ...     print(service.url)                 # http://127.0.0.1:40123
    """

    def __init__(
        self,
        routes: Sequence[Route],
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        token: str | None = None,
        limits: ServiceLimits | None = None,
    ) -> None:
        if token is not None and len(token) < 16:
            raise UsageError("a bearer token must have at least 16 characters")
        self.routes = list(routes)
        self.limits = limits or ServiceLimits()
        self._token = token.encode() if token is not None else None
        self._rates = _RateLimiter(self.limits.rate_per_second, self.limits.burst)
        self._slots = threading.BoundedSemaphore(self.limits.max_connections)
        self._server = _Server((host, port), _handler_class(self))
        self._thread: threading.Thread | None = None

    @property
    def address(self) -> tuple[str, int]:
        host, port = self._server.server_address[:2]
        return str(host), int(port)

    @property
    def url(self) -> str:
        host, port = self.address
        shown = f"[{host}]" if ":" in host else host
        return f"http://{shown}:{port}"

    def start(self) -> JsonService:
        """Serve in a background thread; returns at once (the socket is already bound)."""
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._server.serve_forever,
                kwargs={"poll_interval": 0.2},
                name="json-service",
                daemon=True,
            )
            self._thread.start()
        return self

    def serve_forever(self) -> None:
        """Serve in this thread until :meth:`stop` (from another thread) or an interrupt."""
        self._server.serve_forever(poll_interval=0.2)

    def stop(self) -> None:
        """Stop accepting, close the socket; requests in flight finish in their threads."""
        if self._thread is not None or self._server.serving:
            self._server.shutdown()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None

    def __enter__(self) -> JsonService:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- one request ----------------------------------------------------------------
    def authorised(self, header: str | None) -> bool:
        if self._token is None:
            return True
        if header is None or not header.startswith("Bearer "):
            return False
        return hmac.compare_digest(header[len("Bearer ") :].strip().encode(), self._token)

    def route(self, method: str, path: str) -> tuple[Route, dict[str, str]] | str | None:
        """The route and its parameters; None: no such path; ``"method"``: path known,
        method not."""
        known = False
        for route in self.routes:
            match = route.regex.match(path)
            if match is None:
                continue
            known = True
            if route.method == method:
                return route, match.groupdict()
        return "method" if known else None


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler]) -> None:
        super().__init__(address, handler)
        self.serving = False

    def serve_forever(self, poll_interval: float = 0.5) -> None:
        self.serving = True
        try:
            super().serve_forever(poll_interval)
        finally:
            self.serving = False


def _handler_class(service: JsonService) -> type[BaseHTTPRequestHandler]:
    limits = service.limits

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # Headers and body go out in two writes: with Nagle on, a kept-alive client's
        # delayed ACK adds ~40 ms to every request.
        disable_nagle_algorithm = True
        server_version = _SERVER_NAME
        sys_version = ""
        timeout = limits.read_timeout

        def log_message(self, format: str, *args: Any) -> None:
            log.debug("%s %s", self.address_string(), format % args)

        def do_GET(self) -> None:
            self._serve("GET")

        def do_POST(self) -> None:
            self._serve("POST")

        def do_DELETE(self) -> None:
            self._serve("DELETE")

        def do_PUT(self) -> None:
            self._serve("PUT")

        def do_PATCH(self) -> None:
            self._serve("PATCH")

        def do_HEAD(self) -> None:
            self._serve("HEAD")

        def do_OPTIONS(self) -> None:
            self._serve("OPTIONS")

        def send_error(
            self, code: int, message: str | None = None, explain: str | None = None
        ) -> None:
            # http.server's own refusals (bad request line, oversized headers, bad
            # version): the same JSON shape as ours, and the connection closed.
            self.close_connection = True
            with contextlib.suppress(OSError):
                self._reply(code, _error_body(code, message or HTTPStatus(code).phrase))

        def _reply(self, status: int, payload: Any, extra: Mapping[str, str] = {}) -> None:
            data = json.dumps(payload, ensure_ascii=True, separators=(",", ":")).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Cache-Control", "no-store")
            self.send_header("X-Content-Type-Options", "nosniff")
            for key, value in extra.items():
                self.send_header(key, value)
            if self.close_connection:
                self.send_header("Connection", "close")
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)

        def _fail(self, status: int, message: str, extra: Mapping[str, str] = {}) -> None:
            self._reply(status, _error_body(status, message), extra)

        def _serve(self, method: str) -> None:
            if not service._slots.acquire(blocking=False):
                self.close_connection = True
                self._fail(503, "the server is busy: too many connections")
                return
            try:
                self._serve_one(method)
            except OSError:
                self.close_connection = True  # the client went away or timed out
            finally:
                service._slots.release()

        def _read_body(self) -> Any:
            if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
                self.close_connection = True
                raise HttpError(411, "chunked bodies are not accepted: send Content-Length")
            raw_length = self.headers.get("Content-Length")
            if raw_length is None:
                return None
            try:
                length = int(raw_length)
            except ValueError:
                self.close_connection = True
                raise HttpError(400, "Content-Length is not a number") from None
            if length < 0:
                self.close_connection = True
                raise HttpError(400, "Content-Length is negative")
            if length > limits.max_body_bytes:
                self.close_connection = True  # never read it: drop the connection after
                raise HttpError(413, f"the body is over {limits.max_body_bytes} bytes")
            if length == 0:
                return None
            data = self.rfile.read(length)
            if len(data) != length:
                self.close_connection = True
                raise HttpError(400, "the body ended early")
            kind = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
            if kind != "application/json":
                raise HttpError(415, "send the body as application/json")
            try:
                return json.loads(data.decode("utf-8"))
            except (UnicodeDecodeError, ValueError, RecursionError):
                raise HttpError(400, "the body is not valid UTF-8 JSON") from None

        def _serve_one(self, method: str) -> None:
            client = self.client_address[0] if self.client_address else "?"
            wait = service._rates.wait_seconds(str(client))
            if wait > 0:
                retry = str(max(1, int(wait + 0.999)))
                self._drain_small_body()
                self._fail(429, "too many requests", {"Retry-After": retry})
                return
            path = _plain_path(self.path, limits.max_path)
            if path is None:
                self._drain_small_body()
                self._fail(404, "no such route")
                return
            found = service.route("GET" if method == "HEAD" else method, path)
            if found is None:
                self._drain_small_body()
                self._fail(404, "no such route")
                return
            if isinstance(found, str):
                self._drain_small_body()
                self._fail(405, f"{method} is not allowed here")
                return
            route, params = found
            if not route.public and not service.authorised(self.headers.get("Authorization")):
                self._drain_small_body()
                self._fail(401, "a valid bearer token is required", {"WWW-Authenticate": "Bearer"})
                return
            try:
                body = self._read_body()
                query = self._query()
                result = route.handler(Request(method, path, params, query, body, str(client)))
            except HttpError as exc:
                self._fail(exc.status, exc.message)
                return
            except Exception:
                log.exception("%s %s failed", method, path)
                self._fail(500, "internal error")
                return
            status, payload = result if isinstance(result, tuple) else (200, result)
            self._reply(status, payload)

        def _query(self) -> dict[str, str]:
            _, _, raw = self.path.partition("?")
            if not raw:
                return {}
            try:
                pairs = parse_qsl(
                    raw,
                    keep_blank_values=True,
                    strict_parsing=True,
                    max_num_fields=limits.max_query_params,
                )
            except ValueError:
                raise HttpError(400, "the query string is malformed") from None
            return dict(pairs)

        def _drain_small_body(self) -> None:
            """Read a refused request's small body so the next one on a kept-alive
            connection starts clean; close the connection for anything bigger."""
            raw = self.headers.get("Content-Length")
            try:
                length = int(raw) if raw is not None else 0
            except ValueError:
                length = -1
            if 0 <= length <= 65536:
                if length:
                    self.rfile.read(length)
            else:
                self.close_connection = True

    return Handler
