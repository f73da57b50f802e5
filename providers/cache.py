"""A persistent cache of completed provider calls, so a resumed run never pays twice.

One SQLite file (WAL mode, safe to share between threads of one process and between
processes) maps the SHA-256 of a call's canonical JSON (the call's *scope*, provider, model,
messages, tools, tool_choice, json_schema, effective options) to the Reply it got. The base
URL is not part of the key: a run resumed against a server on another port still hits its
cache.

The scope names the call site (e.g. ``ERI-easy-0003/attempt-2/coder``), set with
:func:`call_scope` around the calls. It keeps the cache a *resume* cache: two boxes whose
prompts happen to be identical (a designer brief is the same for every box of a level)
still get a call each, as they would from a sampling model, instead of one reply replayed.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sqlite3
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from types import TracebackType
from typing import Any

from pydantic import ValidationError

from providers.types import ChatMessage, Reply, ToolSpec

__all__ = ["CallCache", "call_key", "call_scope", "current_scope"]

log = logging.getLogger(__name__)

_SCOPE: ContextVar[str] = ContextVar("oracle_bench_call_scope", default="")


@contextmanager
def call_scope(scope: str) -> Iterator[None]:
    """Calls made inside this block (in this thread/context) are cached under ``scope``."""
    token = _SCOPE.set(scope)
    try:
        yield
    finally:
        _SCOPE.reset(token)


def current_scope() -> str:
    """The scope set by the innermost :func:`call_scope` ("" outside any)."""
    return _SCOPE.get()


_SCHEMA = """
CREATE TABLE IF NOT EXISTS calls (
    key TEXT PRIMARY KEY,
    provider TEXT NOT NULL,
    reply TEXT NOT NULL,
    created REAL NOT NULL DEFAULT (julianday('now'))
)
"""


def call_key(
    *,
    provider: str,
    model: str,
    messages: Sequence[ChatMessage],
    tools: Sequence[ToolSpec] = (),
    tool_choice: str | None = None,
    json_schema: Mapping[str, Any] | None = None,
    options: Mapping[str, Any] | None = None,
    scope: str | None = None,
) -> str:
    """The SHA-256 hex digest of the canonical JSON of one call (``scope`` defaults to
    :func:`current_scope`)."""
    payload = {
        "scope": current_scope() if scope is None else scope,
        "provider": provider,
        "model": model,
        "messages": [m.model_dump(mode="json") for m in messages],
        "tools": [t.model_dump(mode="json") for t in tools],
        "tool_choice": tool_choice,
        "json_schema": json_schema,
        "options": dict(options or {}),
    }
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class CallCache:
    """``key -> Reply`` in a SQLite file; thread-safe, usable as a context manager."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(
            self.path, check_same_thread=False, timeout=30.0, isolation_level=None
        )
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=NORMAL")
        self._conn.execute(_SCHEMA)

    def get(self, key: str) -> Reply | None:
        """The stored reply for ``key`` (as it was stored), or None."""
        with self._lock:
            row = self._conn.execute("SELECT reply FROM calls WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        try:
            return Reply.model_validate_json(row[0])
        except ValidationError:
            log.warning("call cache %s: unreadable entry %s ignored", self.path, key[:12])
            return None

    def put(self, key: str, reply: Reply) -> None:
        """Store ``reply`` under ``key`` (durably, before the caller goes on)."""
        text = reply.model_dump_json()
        with self._lock:
            self._conn.execute(
                "INSERT OR REPLACE INTO calls (key, provider, reply) VALUES (?, ?, ?)",
                (key, reply.model, text),
            )

    def __len__(self) -> int:
        with self._lock:
            (count,) = self._conn.execute("SELECT COUNT(*) FROM calls").fetchone()
        return int(count)

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, str):
            return False
        with self._lock:
            row = self._conn.execute("SELECT 1 FROM calls WHERE key = ?", (key,)).fetchone()
        return row is not None

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> CallCache:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
