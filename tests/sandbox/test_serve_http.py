"""sandbox.serve.JsonService against hostile requests, over real sockets."""

from __future__ import annotations

import http.client
import json
import socket
from collections.abc import Iterator
from typing import Any

import pytest

from sandbox.serve import HttpError, JsonService, Request, Route, ServiceLimits

TOKEN = "t0ken-of-sixteen-chars"
SECRET = "the-secret-value-never-sent"


def _echo(request: Request) -> dict[str, Any]:
    return {"params": dict(request.params), "query": dict(request.query), "body": request.body}


def _refuse(request: Request) -> dict[str, Any]:
    raise HttpError(409, "refused\nwith  a second line")


def _crash(request: Request) -> dict[str, Any]:
    raise RuntimeError(SECRET)


@pytest.fixture
def service() -> Iterator[JsonService]:
    routes = [
        Route("GET", "/health", lambda r: {"status": "ok"}, public=True),
        Route("GET", "/items/{item}", _echo),
        Route("POST", "/echo", _echo),
        Route("POST", "/refuse", _refuse),
        Route("GET", "/crash", _crash),
    ]
    limits = ServiceLimits(max_body_bytes=4096, burst=1000, rate_per_second=1000.0)
    with JsonService(routes, token=TOKEN, limits=limits) as svc:
        yield svc


def _call(
    svc: JsonService,
    method: str,
    path: str,
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
    token: str | None = TOKEN,
) -> tuple[int, dict[str, Any], dict[str, str]]:
    host, port = svc.address
    conn = http.client.HTTPConnection(host, port, timeout=30)
    h = {"Content-Type": "application/json"}
    if token is not None:
        h["Authorization"] = f"Bearer {token}"
    h.update(headers or {})
    try:
        conn.request(method, path, body=body, headers=h)
        resp = conn.getresponse()
        data = resp.read()
        return resp.status, json.loads(data) if data else {}, dict(resp.getheaders())
    finally:
        conn.close()


def test_routes_params_and_query(service: JsonService) -> None:
    status, body, headers = _call(service, "GET", "/items/a-b_1.c?x=1&y=")
    assert status == 200
    assert body == {"params": {"item": "a-b_1.c"}, "query": {"x": "1", "y": ""}, "body": None}
    assert headers["Content-Type"] == "application/json"
    assert headers["Cache-Control"] == "no-store"
    status, body, _ = _call(service, "POST", "/echo", json.dumps({"k": [1, "é"]}).encode())
    assert (status, body["body"]) == (200, {"k": [1, "é"]})


@pytest.mark.parametrize(
    "path",
    [
        "/items/..",
        "/items/%2e%2e",
        "/items/..%2fetc%2fpasswd",
        "/../etc/passwd",
        "/items/x/",
        "/items/a\\b",
        "/items/" + "a" * 600,
        "/items/caf%C3%A9",
        "/nothing",
        "/items/x/y",
    ],
)
def test_traversal_and_unknown_paths_are_404(service: JsonService, path: str) -> None:
    status, body, _ = _call(service, "GET", path)
    assert status == 404
    assert body == {"error": {"status": 404, "message": "no such route"}}


def test_wrong_method_is_405(service: JsonService) -> None:
    status, body, _ = _call(service, "DELETE", "/echo")
    assert status == 405
    assert body["error"]["status"] == 405


def test_token_is_required_except_on_health(service: JsonService) -> None:
    assert _call(service, "GET", "/health", token=None)[0] == 200
    for token in (None, "wrong-token-of-sixteen", TOKEN + "x", TOKEN[:-1]):
        status, body, headers = _call(service, "GET", "/items/a", token=token)
        assert status == 401
        assert headers["WWW-Authenticate"] == "Bearer"
        assert "items" not in json.dumps(body)


def test_bodies(service: JsonService) -> None:
    assert _call(service, "POST", "/echo", b"{not json")[0] == 400
    assert _call(service, "POST", "/echo", b"\xff\xfe")[0] == 400
    assert _call(service, "POST", "/echo", b"[" * 100_00 + b"]" * 100_00)[0] in (400, 413)
    assert _call(service, "POST", "/echo", b"x" * 5000)[0] == 413
    status, _, _ = _call(service, "POST", "/echo", b"{}", headers={"Content-Type": "text/plain"})
    assert status == 415
    status, _, _ = _call(service, "POST", "/echo", b"{}", headers={"Content-Length": "-1"})
    assert status == 400


def test_oversized_body_is_refused_without_reading_it(service: JsonService) -> None:
    host, port = service.address
    with socket.create_connection((host, port), timeout=30) as sock:
        sock.sendall(
            b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Authorization: Bearer " + TOKEN.encode() + b"\r\n"
            b"Content-Length: 1000000000\r\n\r\n"
        )
        reply = sock.recv(4096)
    assert reply.startswith(b"HTTP/1.1 413")


def test_handler_errors(service: JsonService) -> None:
    status, body, _ = _call(service, "POST", "/refuse")
    assert (status, body) == (
        409,
        {"error": {"status": 409, "message": "refused with a second line"}},
    )
    status, body, _ = _call(service, "GET", "/crash")
    assert (status, body) == (500, {"error": {"status": 500, "message": "internal error"}})
    assert SECRET not in json.dumps(body)
    assert _call(service, "GET", "/health")[0] == 200  # still up


def test_garbage_request_lines_get_json_errors(service: JsonService) -> None:
    host, port = service.address
    for raw in (b"GARBAGE\r\n\r\n", b"GET /health HTTP/9.9\r\n\r\n", b"\x00\x01\x02\r\n\r\n"):
        with socket.create_connection((host, port), timeout=30) as sock:
            sock.sendall(raw)
            reply = sock.recv(4096)
        # an HTTP/0.9-style line gets the JSON error without a status line
        assert b'"status":400' in reply or b'"status":505' in reply, raw
        assert b"Traceback" not in reply
    assert _call(service, "GET", "/health")[0] == 200


def test_rate_limit_per_client() -> None:
    routes = [Route("GET", "/health", lambda r: {"status": "ok"}, public=True)]
    limits = ServiceLimits(burst=3, rate_per_second=0.001)
    with JsonService(routes, limits=limits) as svc:
        codes = [_call(svc, "GET", "/health", token=None) for _ in range(5)]
    assert [c[0] for c in codes] == [200, 200, 200, 429, 429]
    assert int(codes[3][2]["Retry-After"]) >= 1


def test_short_tokens_and_bad_limits_are_refused() -> None:
    from oracle_bench.errors import UsageError

    with pytest.raises(UsageError):
        JsonService([], token="short")
    with pytest.raises(UsageError):
        ServiceLimits(max_body_bytes=10)
