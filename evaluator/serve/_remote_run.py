"""The client's side of served agent episodes: a run of a served suite (``--env URL``).

:class:`RemoteKindRun` is the :class:`~evaluator.kinds.KindRun` the runner plays through
when its suite is served: the agent is made here from box.json alone
(:meth:`~evaluator.kinds.EpisodeKind.make_agent`, the same seed as locally), and every
call the server's protocol makes on it arrives as an event and is answered with its
return value or exception. Resume, concurrency, budgets and summaries are the runner's,
exactly as for a local suite.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from blackboxes.box import BoxInfo, SuiteInfo
from evaluator._jobs import close_agent, stored_record
from evaluator.failures import FailureCause, cause_of, retried_on_resume
from evaluator.serve._wire import Handle, decode, encode
from evaluator.serve.client import ServedSuite
from oracle_bench.errors import RemoteEnvError, RemoteProtocolError, UsageError
from oracle_bench.jsonio import canonical_json

__all__ = [
    "RemoteKindRun",
    "ServedBox",
    "configure_served",
    "served_suite",
    "served_worker_factory",
]

log = logging.getLogger(__name__)

_MAX_EVENTS = 1_000_000


@dataclass(frozen=True)
class ServedBox:
    """A box of a served suite as the runner handles it: box.json and its digest."""

    info: BoxInfo
    digest: str
    path: Path
    """Where it is served (``URL/boxes/ID``), for messages."""


def configure_served(
    env: ServedSuite, kind: Any, info: SuiteInfo, given: dict[str, Any], subject: str
) -> tuple[dict[str, Any], Any]:
    """The kind's options and settings of a run of the suite served by ``env``: ``given``
    (None: not given) with what it leaves out taken from the server's settings, which the
    result must equal (a served suite is played with its server's); ``UsageError``
    otherwise, before anything runs."""
    from evaluator.kinds import check_options
    from evaluator.spec import parse_spec

    described = env.describe().get("settings")
    served = described.get("arguments") if isinstance(described, dict) else None
    if not isinstance(served, dict) or not isinstance(described, dict):
        raise RemoteProtocolError(f"{env.url} does not say which settings it plays")
    options = {o.name: o for o in kind.options}
    filled = dict(given)
    for name, value in served.items():
        if value is None or filled.get(name) is not None or name not in options:
            continue
        parse = parse_spec if name == "spec" else options[name].parse
        filled[name] = parse(value) if parse is not None and isinstance(value, str) else value
    mine = check_options(kind, filled, subject=subject)
    settings = kind.configure(info, mine, "eval")
    if canonical_json(kind.arguments(settings)) != canonical_json(served):
        raise UsageError(
            f"{env.url} plays its suite with other settings ({described.get('label', '')}): "
            "give none of the kind's settings with --env, or the server's"
        )
    return mine, settings


def served_suite(url: str, token: str | None) -> tuple[ServedSuite, SuiteInfo, list[Any], str]:
    """The client of the suite served at ``url``, its suite.json, its served boxes and
    the sha256 of its suite.json (as the run's definition records it)."""
    env = ServedSuite(url, token=token)
    try:
        described = env.describe()
        try:
            suite = SuiteInfo.model_validate(described.get("suite"))
            sha = described.get("suite_json_sha256")
            entries = described.get("boxes")
            if not isinstance(sha, str) or not isinstance(entries, list):
                raise RemoteProtocolError(f"{url} describes no suite.json digest or boxes")
            boxes = [
                ServedBox(
                    info=BoxInfo.model_validate(entry.get("box")),
                    digest=str(entry.get("digest")),
                    path=Path(f"{env.url}/boxes/{entry.get('box', {}).get('id', '')}"),
                )
                for entry in entries
            ]
        except (ValidationError, AttributeError) as exc:
            raise RemoteProtocolError(f"{url} describes its suite malformed: {exc}") from None
    except BaseException:
        env.close()
        raise
    listed = {entry.id: entry.digest for entry in suite.boxes}
    for box in boxes:
        if listed.get(box.info.id) != box.digest:
            env.close()
            raise RemoteProtocolError(f"{url} serves box {box.info.id}, not as suite.json lists it")
    return env, suite, boxes, sha


class _ServedWorker:
    """What the runner's pool holds for a served box: nothing runs here."""

    layers: frozenset[Any] = frozenset()

    def close(self) -> None:
        return None


def served_worker_factory(env: ServedSuite) -> Callable[[Any], Any]:
    """The pool's factory for a served suite: checks that the server serves the box with
    the digest the run expects (``RemoteEnvError`` otherwise)."""

    def start(box: Any) -> Any:
        described = env.box(box.info.id)
        if described.get("digest") != box.digest:
            raise RemoteEnvError(f"{env.url} serves another version of box {box.info.id}")
        return _ServedWorker()

    return start


class _RemoteHandle:
    """An object of the server's protocol, called back through the server."""

    def __init__(self, call: Callable[[str, str, Any], Any], handle: Handle) -> None:
        self._call = call
        self._handle = handle

    def __getattr__(self, name: str) -> Any:
        if name in self._handle.properties:
            return self._call(self._handle.id, name, None)
        if name in self._handle.methods:
            return lambda *args, **kwargs: self._call(self._handle.id, name, (args, kwargs))
        raise AttributeError(name)


class _Episode:
    def __init__(self, env: ServedSuite) -> None:
        self.env = env
        self.id = ""
        self.raised: dict[int, BaseException] = {}

    def live(self, value: Any) -> Any:
        if isinstance(value, Handle):
            return _RemoteHandle(self.handle_call, value)
        if isinstance(value, list):
            return [self.live(v) for v in value]
        if isinstance(value, tuple):
            return tuple(self.live(v) for v in value)
        if isinstance(value, dict):
            return {k: self.live(v) for k, v in value.items()}
        return value

    def handle_call(self, handle: str, name: str, call: Any) -> Any:
        body: dict[str, Any] = {"handle": handle, "name": name}
        if call is not None:
            args, kwargs = call
            body["args"] = encode(tuple(args))
            body["kwargs"] = encode(dict(kwargs))
        reply = self.env.post(f"/episodes/{self.id}/handle", body)
        if "raise" in reply:
            exc = decode(reply["raise"])
            if not isinstance(exc, BaseException):
                raise RemoteProtocolError("the server raised something that is not an exception")
            self.raised[id(exc)] = exc
            raise exc
        return self.live(decode(reply.get("value")))

    def abandon(self) -> None:
        if self.id:
            with contextlib.suppress(Exception):
                self.env.delete(f"/episodes/{self.id}")


def _error(exc: BaseException) -> dict[str, str]:
    return {"type": type(exc).__name__, "message": str(exc), "cause": cause_of(exc)}


class RemoteKindRun:
    """Episodes of a served suite, for the runner (see the module docstring)."""

    def __init__(
        self,
        env: ServedSuite,
        kind: Any,
        settings: Any,
        context: Any,
    ) -> None:
        self.env = env
        self.kind = kind
        self.settings = settings
        self.context = context
        self.definition = kind.arguments(settings)

    def reusable(self, path: Path, box: Any, job: Any) -> Any:
        """The stored record if it is a final record of exactly this job (its settings
        are the run folder's, checked when the folder was claimed)."""
        record = stored_record(path, self.kind.read_record)
        if record is None:
            return None
        same = (
            not retried_on_resume(record.status, record.failure)
            and record.box_id == box.info.id
            and record.box_digest == box.digest
            and record.agent == job.agent
            and record.seed == self.context.seed
            and record.repetition == job.repetition
        )
        return record if same else None

    def cannot_start(self, box: Any, job: Any, error: str, failure: FailureCause) -> Any:
        # A served box the server will not start is the server's failure, not the
        # episode's: the run stops (and resumes) rather than record it.
        raise RemoteEnvError(f"{self.env.url}: box {box.info.id} cannot be played: {error}")

    def play(self, box: Any, job: Any, env: Any, agent: Callable[[], Any] | None = None) -> Any:
        made: Any = None
        agent_error: dict[str, str] | None = None
        try:
            made = (
                agent()
                if agent is not None
                else self.kind.make_agent(box.info, job, self.settings, self.context)
            )
        except Exception as exc:
            log.info("agent %s cannot start: %s", job.agent, exc)
            agent_error = _error(exc)
        surface = (
            []
            if made is None
            else sorted(
                n
                for n in dir(made)
                if not n.startswith("_") and n != "close" and callable(getattr(made, n, None))
            )
        )
        episode = _Episode(self.env)
        try:
            reply = self.env.post(
                "/episodes",
                {
                    "box": box.info.id,
                    "agent": job.agent,
                    "repetition": job.repetition,
                    "seed": self.context.seed,
                    "settings": self.definition,
                    "surface": surface,
                    "agent_error": agent_error,
                },
            )
            episode.id = str(reply.get("episode_id", ""))
            for _ in range(_MAX_EVENTS):
                event = reply.get("event")
                if not isinstance(event, dict):
                    raise RemoteProtocolError("the server sent no event")
                if event.get("type") == "end":
                    episode.id = ""  # over: nothing to abandon
                    return self.kind.load_record(event.get("record"), box.path)
                reply = self._answer(episode, made, surface, event)
            raise RemoteProtocolError("the episode sent too many events")
        except BaseException:
            episode.abandon()
            raise
        finally:
            close_agent(made)

    def _answer(
        self, episode: _Episode, agent: Any, surface: list[str], event: dict[str, Any]
    ) -> dict[str, Any]:
        method = event.get("method")
        if event.get("type") != "call" or method not in surface:
            raise RemoteProtocolError("the server asked for something the agent does not have")
        args = episode.live(decode(event.get("args", [])))
        kwargs = episode.live(decode(event.get("kwargs", {})))
        if not isinstance(args, list) or not isinstance(kwargs, dict):
            raise RemoteProtocolError("the server's call has malformed arguments")
        path = f"/episodes/{episode.id}/reply"
        try:
            value = getattr(agent, str(method))(*args, **kwargs)
        except BaseException as exc:
            if id(exc) in episode.raised:  # the server's own signal, handed back
                return self.env.post(path, {"id": event["id"], "raise": {"wire": encode(exc)}})
            if not isinstance(exc, Exception):
                raise  # a spent budget, Ctrl-C: stop here (the caller abandons it)
            return self.env.post(path, {"id": event["id"], "raise": _error(exc)})
        return self.env.post(path, {"id": event["id"], "value": encode(value)})
