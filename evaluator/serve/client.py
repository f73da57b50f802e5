"""A client of a served suite (``oracle-serve``, a published image): describe, and
episodes through the OpenEnv-shaped routes.

>>> env = ServedSuite("http://127.0.0.1:8000", token=None)     # doctest: +SKIP
>>> step = env.reset(box="ERI-easy-0000", seed=0)
>>> while not step["done"]:
...     step = env.step(step["episode_id"], policy(step["observation"]))

Everything the server sends is checked: a reply that is not a JSON object of the
expected shape, or over :data:`MAX_REPLY_BYTES`, is a :class:`RemoteProtocolError`; a
server that cannot be reached is a :class:`RemoteEnvError` (a ``ConnectionError``).
"""

from __future__ import annotations

import http.client
import json
import threading
import time
from typing import Any
from urllib.parse import quote, urlsplit

from oracle_bench.errors import RemoteEnvError, RemoteProtocolError, UsageError

__all__ = ["MAX_REPLY_BYTES", "ServedSuite"]

MAX_REPLY_BYTES = 8 << 20
_RATE_RETRIES = 6
_MAX_WAIT = 10.0


def _retry_after(value: str | None) -> float:
    """Seconds to wait from a Retry-After header (1 when absent or odd, at most 10)."""
    try:
        return min(_MAX_WAIT, max(0.05, float(value))) if value else 1.0
    except ValueError:
        return 1.0


def _split_url(url: str) -> tuple[str, int, str]:
    parts = urlsplit(url)
    if parts.scheme != "http" or not parts.hostname:
        raise UsageError(f"--env {url}: give http://HOST:PORT (a served suite)")
    if parts.query or parts.fragment or parts.username or parts.password:
        raise UsageError(f"--env {url}: give http://HOST:PORT without a query or user")
    try:
        port = parts.port or 80
    except ValueError:
        raise UsageError(f"--env {url}: the port is not a number in 1..65535") from None
    return parts.hostname, port, parts.path.rstrip("/")


class ServedSuite:
    """One persistent connection to a served suite (thread-safe: one request at a time)."""

    def __init__(self, url: str, *, token: str | None = None, timeout: float = 60.0) -> None:
        self.url = url.rstrip("/")
        self._host, self._port, self._prefix = _split_url(self.url)
        self._token = token
        self._timeout = timeout
        self._conn: http.client.HTTPConnection | None = None
        self._lock = threading.Lock()

    # -- the routes ---------------------------------------------------------------------
    def health(self) -> dict[str, Any]:
        return self._request("GET", "/health")

    def box(self, box_id: str) -> dict[str, Any]:
        """One box's public description (its box.json and digest)."""
        return self._request("GET", f"/boxes/{quote(box_id, safe='')}")

    def describe(self) -> dict[str, Any]:
        """suite.json, the boxes' box.json, the kind and the settings."""
        return self._request("GET", "/")

    def reset(self, **body: Any) -> dict[str, Any]:
        """Start an episode (``box``, ``seed``, ``repetition``): its ``episode_id`` and first
        ``observation`` (``{"text", "metadata"}``)."""
        reply = self._request("POST", "/reset", body)
        self._expect(reply, "episode_id", str)
        self._observation(reply)
        return reply

    def step(self, episode_id: str, action: str) -> dict[str, Any]:
        """Send one line; the next observation, ``reward`` and ``done``."""
        body = {"episode_id": episode_id, "action": {"text": action}}
        reply = self._request("POST", "/step", body)
        self._observation(reply)
        self._expect(reply, "done", bool)
        return reply

    def state(self, episode_id: str) -> dict[str, Any]:
        return self._request("GET", f"/state?episode_id={quote(episode_id, safe='')}")

    def close_episode(self, episode_id: str) -> dict[str, Any]:
        return self._request("POST", "/close", {"episode_id": episode_id})

    def post(self, path: str, body: Any) -> dict[str, Any]:
        """``POST path`` with a JSON body; the reply object (errors as for every route)."""
        return self._request("POST", path, body)

    def delete(self, path: str) -> dict[str, Any]:
        return self._request("DELETE", path)

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def __enter__(self) -> ServedSuite:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the wire -----------------------------------------------------------------------
    @staticmethod
    def _observation(reply: dict[str, Any]) -> None:
        observation = reply.get("observation")
        if not isinstance(observation, dict) or not isinstance(observation.get("text"), str):
            raise RemoteProtocolError("the server's reply has no observation text")

    @staticmethod
    def _expect(reply: dict[str, Any], key: str, kind: type) -> None:
        if not isinstance(reply.get(key), kind):
            raise RemoteProtocolError(f"the server's reply has no {kind.__name__} {key!r}")

    def _request(self, method: str, path: str, body: Any = None) -> dict[str, Any]:
        data = None if body is None else json.dumps(body).encode("utf-8")
        headers = {"Accept": "application/json"}
        if data is not None:
            headers["Content-Type"] = "application/json"
        if self._token is not None:
            headers["Authorization"] = f"Bearer {self._token}"
        for _ in range(_RATE_RETRIES):
            status, raw, wait = self._send(method, path, data, headers)
            if status != 429:
                break
            time.sleep(wait)  # the server's Retry-After: it asked us to slow down
        return self._decode(status, raw, method, path)

    def _send(
        self, method: str, path: str, data: bytes | None, headers: dict[str, str]
    ) -> tuple[int, bytes, float]:
        with self._lock:
            for attempt in (0, 1):
                conn = self._connection()
                try:
                    conn.request(method, self._prefix + path, body=data, headers=headers)
                    resp = conn.getresponse()
                    raw = resp.read(MAX_REPLY_BYTES + 1)
                    status = resp.status
                    wait = _retry_after(resp.getheader("Retry-After"))
                    if resp.will_close:
                        self._drop()
                    break
                except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
                    self._drop()
                    if attempt == 1 or method != "GET":
                        raise RemoteEnvError(
                            f"{self.url} closed the connection during {method} {path}"
                        ) from None
                except (OSError, http.client.HTTPException) as exc:
                    self._drop()
                    raise RemoteEnvError(f"{self.url} cannot be reached: {exc}") from None
        return status, raw, wait

    def _decode(self, status: int, raw: bytes, method: str, path: str) -> dict[str, Any]:
        if len(raw) > MAX_REPLY_BYTES:
            raise RemoteProtocolError(f"{method} {path}: the reply is over {MAX_REPLY_BYTES} bytes")
        try:
            reply = json.loads(raw.decode("utf-8")) if raw else None
        except (UnicodeDecodeError, ValueError, RecursionError):
            raise RemoteProtocolError(f"{method} {path}: the reply is not JSON") from None
        if not isinstance(reply, dict):
            raise RemoteProtocolError(f"{method} {path}: the reply is not a JSON object")
        if status >= 400:
            error = reply.get("error")
            message = error.get("message") if isinstance(error, dict) else None
            text = " ".join(str(message or f"HTTP {status}").split())[:300]
            raise RemoteProtocolError(f"{method} {path}: {status}: {text}")
        return reply

    def _connection(self) -> http.client.HTTPConnection:
        if self._conn is None:
            self._conn = http.client.HTTPConnection(self._host, self._port, timeout=self._timeout)
        return self._conn

    def _drop(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
