"""Agent episodes of a served suite: the protocol runs here, the agent at the client.

``oracle-eval --env URL`` plays the episodes of a served suite with any agent. The
episode's protocol (held-out items, feedback, the hidden opponent, equivalence queries,
the record) runs on the server, next to the box; the agent runs in the client's process.
Every call the protocol makes on its agent crosses the wire (:mod:`evaluator.serve._wire`)
as an *event*; the client answers it with the agent's return value or exception. An object
handed to the agent that is not a value (the DFA environment) crosses as a handle: the
client calls back through ``POST /episodes/{id}/handle`` while it holds the event.

At the end the server returns the record with what it must never reveal withheld
(:meth:`evaluator.kinds.EpisodeKind.withhold`: expected answers, secrets, targets).
"""

from __future__ import annotations

import logging
import queue
import secrets
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from blackboxes.store import Box
from evaluator.failures import FAILURE_CAUSES
from evaluator.serve._wire import Handle, decode, encode
from oracle_bench.errors import RemoteEnvError, RemoteProtocolError

__all__ = ["AgentEpisodes", "EpisodeAbandoned"]

log = logging.getLogger(__name__)

# Names every agent may have beyond its kind's protocol (usage, conversation, closing).
_OPTIONAL_METHODS = frozenset({"llm_calls", "conversation", "notes", "close"})
_MAX_SURFACE = 256


class EpisodeAbandoned(BaseException):
    """Raised in an episode's protocol thread when its client is gone: unwinds the
    protocol without a record (a BaseException, so no ``except Exception`` records it)."""


@dataclass(frozen=True)
class _Job:
    box_id: str
    agent: str
    repetition: int


class _RemoteError(Exception):
    """An exception the client's agent raised, standing in for its own class."""

    failure_cause: str = "agent"


def _stand_in(name: str, message: str, cause: str) -> BaseException:
    """An exception whose class name and text are the client's: the protocol records
    ``f"{type(exc).__name__}: {exc}"`` and ``cause_of(exc)`` exactly as locally."""
    safe = "".join(c for c in name if c.isalnum() or c == "_")[:80] or "Exception"
    cls = type(
        safe, (_RemoteError,), {"failure_cause": cause if cause in FAILURE_CAUSES else "agent"}
    )
    return cls(message)


def _surface(obj: object) -> Handle:
    cls = type(obj)
    methods, properties = [], []
    for name in dir(cls):
        if name.startswith("_"):
            continue
        attr = getattr(cls, name, None)
        if isinstance(attr, property):
            properties.append(name)
        elif callable(attr):
            methods.append(name)
    return Handle("", tuple(methods), tuple(properties))


@dataclass
class _Episode:
    kind_run: Any
    box: Box
    job: _Job
    env: Any
    surface: frozenset[str]
    timeout: float
    events: queue.Queue[dict[str, Any]] = field(default_factory=queue.Queue)
    replies: queue.Queue[dict[str, Any]] = field(default_factory=queue.Queue)
    handles: dict[str, tuple[Any, Handle]] = field(default_factory=dict)
    """By id: the object and its surface (read once: a learner calls back hundreds of times)."""
    pending: int | None = None
    calls: int = 0
    done: bool = False
    abandoned: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)
    thread: threading.Thread | None = None

    # -- the protocol's thread ---------------------------------------------------------
    def handle(self, obj: object) -> Handle:
        surface = _surface(obj)
        handle = Handle(secrets.token_hex(8), surface.methods, surface.properties)
        self.handles[handle.id] = (obj, handle)
        return handle

    def ask(self, method: str, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> Any:
        if self.abandoned.is_set():
            raise EpisodeAbandoned
        self.calls += 1
        call = {
            "type": "call",
            "id": self.calls,
            "method": method,
            "args": encode(list(args), self.handle),
            "kwargs": encode(dict(kwargs), self.handle),
        }
        self.events.put(call)
        try:
            reply = self.replies.get(timeout=self.timeout)
        except queue.Empty:
            self.abandoned.set()
            raise EpisodeAbandoned from None
        if reply.get("abandon"):
            raise EpisodeAbandoned
        if "raise" in reply:
            raise reply["raise"]
        return reply.get("value")

    def proxy(self) -> Any:
        episode = self

        class RemoteAgent:
            """The client's agent, as the protocol sees it."""

        for name in sorted(self.surface):

            def method(*args: Any, _name: str = name, **kwargs: Any) -> Any:
                return episode.ask(_name, args, kwargs)

            setattr(RemoteAgent, name, staticmethod(method))
        return RemoteAgent()

    def run(self, agent_error: BaseException | None) -> None:
        def make() -> Any:
            if agent_error is not None:
                raise agent_error
            return self.proxy()

        try:
            record = self.kind_run.play(self.box, self.job, self.env, agent=make)
        except EpisodeAbandoned:
            self.events.put({"type": "abandoned"})
            return
        except BaseException as exc:  # a protocol bug: the episode ends without a record
            log.exception("served episode of %s crashed", self.box.info.id)
            self.events.put(
                {"type": "failed", "message": f"the episode crashed: {type(exc).__name__}"}
            )
            return
        self.events.put({"type": "end", "record": record})


class AgentEpisodes:
    """Episodes whose agents play from the client (see the module docstring)."""

    def __init__(
        self,
        kind: Any,
        settings: Any,
        kind_run_for: Any,
        boxes: Mapping[str, Box],
        env_for: Any,
        *,
        max_episodes: int = 32,
        reply_timeout: float = 600.0,
    ) -> None:
        self.kind = kind
        self.settings = settings
        self._kind_run_for = kind_run_for
        self._boxes = boxes
        self._env_for = env_for
        self.max_episodes = max_episodes
        self.reply_timeout = reply_timeout
        self._episodes: dict[str, _Episode] = {}
        self._lock = threading.Lock()

    def start(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """``POST /episodes``: start the protocol; its first event."""
        box_id, agent, repetition, seed = (
            body.get(k) for k in ("box", "agent", "repetition", "seed")
        )
        if not isinstance(box_id, str) or box_id not in self._boxes:
            raise KeyError("no such box")
        if not isinstance(agent, str) or not 0 < len(agent) <= 200 or not agent.isprintable():
            raise RemoteProtocolError("give the agent's name (1 to 200 printable characters)")
        if type(repetition) is not int or not 0 <= repetition < 1 << 20:
            raise RemoteProtocolError("repetition must be an integer in [0, 2**20)")
        if type(seed) is not int or not 0 <= seed < 1 << 63:
            raise RemoteProtocolError("seed must be an integer in [0, 2**63)")
        surface = body.get("surface")
        if (
            not isinstance(surface, list)
            or len(surface) > _MAX_SURFACE
            or not all(
                isinstance(n, str) and n.isidentifier() and not n.startswith("_") for n in surface
            )
        ):
            raise RemoteProtocolError("surface must list the agent's public method names")
        error = body.get("agent_error")
        agent_error = None
        if error is not None:
            if not isinstance(error, dict) or not all(
                isinstance(error.get(k), str) for k in ("type", "message", "cause")
            ):
                raise RemoteProtocolError("agent_error must be {type, message, cause}")
            agent_error = _stand_in(error["type"], error["message"][:2000], error["cause"])
        kind_run = self._kind_run_for(body.get("settings"), seed, repetition)
        box = self._boxes[box_id]
        with self._lock:
            if len(self._episodes) >= self.max_episodes:
                from evaluator.serve._openenv import SessionLimitError

                raise SessionLimitError(f"all {self.max_episodes} episode slots are in use")
            episode_id = secrets.token_urlsafe(24)
            episode = _Episode(
                kind_run=kind_run,
                box=box,
                job=_Job(box_id, agent, repetition),
                env=self._env_for(box),
                surface=frozenset(surface),
                timeout=self.reply_timeout,
            )
            self._episodes[episode_id] = episode
        episode.thread = threading.Thread(
            target=episode.run, args=(agent_error,), name=f"episode-{box_id}", daemon=True
        )
        episode.thread.start()
        return self._next(episode_id, episode)

    def reply(self, episode_id: str, body: Mapping[str, Any]) -> dict[str, Any]:
        """``POST /episodes/{id}/reply``: the agent's answer to the pending call."""
        episode = self._get(episode_id)
        with episode.lock:
            if episode.pending is None or body.get("id") != episode.pending:
                raise RemoteProtocolError("no call of that id is waiting for a reply")
            if "raise" in body:
                exc = body["raise"]
                if isinstance(exc, dict) and "wire" in exc:
                    # One of our own exceptions coming back (a handle raised it inside
                    # the agent's call and the agent let it through): the same class.
                    raised = decode(exc["wire"])
                    if not isinstance(raised, BaseException):
                        raise RemoteProtocolError("raise.wire must be an exception")
                    reply: dict[str, Any] = {"raise": raised}
                elif not isinstance(exc, dict) or not all(
                    isinstance(exc.get(k), str) for k in ("type", "message", "cause")
                ):
                    raise RemoteProtocolError("raise must be {type, message, cause}")
                else:
                    reply = {"raise": _stand_in(exc["type"], exc["message"][:2000], exc["cause"])}
            else:
                raw = body.get("value")
                reply = {"value": decode(raw)}
                self._check_handles(reply["value"])
            episode.pending = None
            episode.replies.put(reply)
            return self._next(episode_id, episode, locked=True)

    def call_handle(self, episode_id: str, body: Mapping[str, Any]) -> dict[str, Any]:
        """``POST /episodes/{id}/handle``: the agent calls back an object it was handed
        (only while a call is pending: the protocol's thread is waiting, nothing races)."""
        episode = self._get(episode_id)
        with episode.lock:
            if episode.pending is None:
                raise RemoteProtocolError("no call is in progress")
            held = episode.handles.get(str(body.get("handle")))
            name = body.get("name")
            if held is None or not isinstance(name, str):
                raise RemoteProtocolError("no such handle")
            obj, known = held
            if name in known.properties:
                return {"value": encode(getattr(obj, name), episode.handle)}
            if name not in known.methods:
                raise RemoteProtocolError("the handle has no such method")
            args, kwargs = decode(body.get("args", {"__t": []})), decode(body.get("kwargs", {}))
            if not isinstance(args, tuple | list) or not isinstance(kwargs, dict):
                raise RemoteProtocolError("args must be a list and kwargs an object")
            self._check_handles(args)
            try:
                value = getattr(obj, name)(*args, **kwargs)
            except (KeyboardInterrupt, SystemExit, GeneratorExit):
                raise
            except BaseException as exc:  # the protocol's own signals (EpisodeOver) too
                return {"raise": encode(exc)}
            return {"value": encode(value, episode.handle)}

    def abandon(self, episode_id: str) -> None:
        """``DELETE /episodes/{id}``: end it unrecorded, free its slot."""
        with self._lock:
            episode = self._episodes.pop(episode_id, None)
        if episode is None:
            raise KeyError("no such episode")
        episode.abandoned.set()
        episode.replies.put({"abandon": True})

    def close_all(self) -> None:
        with self._lock:
            ids = list(self._episodes)
        for episode_id in ids:
            try:
                self.abandon(episode_id)
            except KeyError:
                continue

    # -- internals ------------------------------------------------------------------------
    @staticmethod
    def _check_handles(value: Any) -> None:
        if isinstance(value, Handle):
            raise RemoteProtocolError("a client may not hand the server a handle")
        if isinstance(value, list | tuple):
            for v in value:
                AgentEpisodes._check_handles(v)

    def _get(self, episode_id: str) -> _Episode:
        with self._lock:
            episode = self._episodes.get(episode_id)
        if episode is None:
            raise KeyError("no such episode")
        return episode

    def _next(self, episode_id: str, episode: _Episode, locked: bool = False) -> dict[str, Any]:
        event = episode.events.get()
        if event["type"] == "call":
            episode.pending = event["id"]
            return {"episode_id": episode_id, "event": event}
        with self._lock:
            self._episodes.pop(episode_id, None)
        episode.done = True
        if event["type"] == "end":
            record = self.kind.withhold(event["record"], self.settings)
            return {
                "episode_id": episode_id,
                "event": {"type": "end", "record": record.model_dump(mode="json")},
            }
        if event["type"] == "abandoned":
            raise RemoteEnvError("the episode was abandoned")
        raise RemoteEnvError(str(event.get("message", "the episode failed")))
