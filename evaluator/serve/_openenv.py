"""Text episodes of a suite's boxes as OpenEnv-shaped sessions, without a transport.

The HTTP server mounts :class:`OpenEnvSessions` on ``POST /reset``, ``POST /step`` and
``GET /state``. The bodies follow OpenEnv's HTTP env server (``openenv.core.env_server``:
``ResetRequest``/``StepRequest`` in, ``{"observation": {...}, "reward": ..., "done": ...}``
out, ``State`` with ``episode_id`` and ``step_count``), plus what serving many sessions at
once needs, which OpenEnv's stateless HTTP routes lack: ``episode_id``, chosen by the
server at reset (``secrets.token_urlsafe``), returned in every body and required by
``/step`` and ``/state``.

``POST /reset`` ``{"seed": 7, "box": "ERI-easy-0000" | 0, "repetition": 2}`` (all
optional; a client's own ``episode_id`` is refused) ->
``{"episode_id": ID, "observation": {"text": ..., "metadata": {...}}, "reward": null,
"done": false}``. What the body leaves out is drawn from ``seed`` (the same seed, the
same episode) or, without one, at random.

``POST /step`` ``{"episode_id": ID, "action": {"text": "hello"}}`` (OpenEnv's optional
``timeout_s``/``request_id`` and ``action.metadata`` are accepted and ignored) -> the same
shape; ``reward`` is 0 until the end, then the episode's score (0 for a failed or quit
episode).

``GET /state?episode_id=ID`` -> ``{"episode_id", "step_count", "done", "box",
"repetition", "kind", "score", "status"}``.

The observation's ``text`` is what ``oracle-play`` shows a person (right/wrong feedback,
never an expected answer, in every kind); ``metadata`` holds the public facts of
:class:`evaluator.integrations.gym.SessionTurn`. The trajectory record (it holds the
expected answers) is never returned. Errors: a malformed body or a step after the end is
:class:`RemoteProtocolError` (HTTP 400); an unknown or closed ``episode_id`` is
:class:`UnknownEpisodeError`, a ``KeyError`` (HTTP 404); no free session is
:class:`SessionLimitError` (HTTP 503); a box whose sandbox cannot start is
:class:`RemoteEnvError` (HTTP 500).
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, ValidationError

from oracle_bench.errors import (
    OracleBenchError,
    RemoteEnvError,
    RemoteProtocolError,
    UsageError,
)
from oracle_bench.rng import rng_for

if TYPE_CHECKING:
    from evaluator.dataset import BoxDataset, BoxItem
    from evaluator.integrations.gym._episodes import SessionTurn, TextSession

__all__ = ["OpenEnvSessions", "SessionLimitError", "UnknownEpisodeError"]

log = logging.getLogger(__name__)

_MAX_SEED = (1 << 63) - 1


class UnknownEpisodeError(RemoteEnvError, KeyError):
    """No session has this ``episode_id`` (never opened, closed, or forgotten)."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class SessionLimitError(RemoteEnvError):
    """Every session slot is taken by an unfinished episode."""


# -- the wire bodies (OpenEnv's shapes, see the module docstring) ---------------------
class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _ResetBody(_Body):
    seed: StrictInt | None = Field(default=None, ge=0, le=_MAX_SEED)
    episode_id: None = None  # OpenEnv lets a client name it; here the server does
    box: StrictStr | StrictInt | None = Field(default=None, union_mode="left_to_right")
    repetition: StrictInt | None = Field(default=None, ge=0)


class _Action(_Body):
    text: StrictStr
    metadata: dict[str, Any] = Field(default_factory=dict)


class _StepBody(_Body):
    episode_id: StrictStr = Field(max_length=255)
    action: _Action
    timeout_s: float | None = Field(default=None, gt=0)
    request_id: StrictStr | None = Field(default=None, max_length=255)


class _Observation(_Body):
    text: str
    metadata: dict[str, Any]


class _Reply(_Body):
    episode_id: str
    observation: _Observation
    reward: float | None
    done: bool


class _State(_Body):
    episode_id: str
    step_count: int
    done: bool
    box: str
    repetition: int
    kind: str
    score: float | None
    status: str | None


def _parse(model: type[_Body], body: object, what: str) -> Any:
    if not isinstance(body, Mapping):
        raise RemoteProtocolError(f"the {what} body must be a JSON object")
    try:
        return model.model_validate(dict(body))
    except ValidationError as exc:
        # Locations and messages only: pydantic's text repeats the (hostile) input.
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'body'}: {err['msg']}"
            for err in exc.errors(include_url=False, include_input=False)[:5]
        )
        raise RemoteProtocolError(f"bad {what} body: {problems}") from None


def _clean(text: str) -> str:
    """``text`` with lone surrogates replaced: JSON encoders choke on them."""
    return text.encode("utf-8", "replace").decode("utf-8")


@dataclass
class _Session:
    text: TextSession
    lock: threading.Lock = field(default_factory=threading.Lock)
    last_used: float = 0.0


class OpenEnvSessions:
    """Episodes of the boxes of one dataset, served as OpenEnv-shaped sessions.

    ``dataset`` is a :class:`evaluator.dataset.BoxDataset` factory (called once, here), or
    a suite folder read as ``BoxDataset(dataset, **options)`` (``spec``, ``feedback``,
    ``seed``: the run seed, ``repeats``: default :data:`DEFAULT_REPEATS`, kind options).
    ``boxes`` restricts the boxes served (ids; a reset's ``box`` index counts in them).
    At most ``max_sessions`` unfinished episodes run at once, each with its own sandbox
    worker; finished ones are kept (for ``state``) up to ``max_sessions`` more, the oldest
    forgotten first. Thread-safe: calls on different sessions run in parallel, calls on
    one session one at a time. ``clock`` (seconds) dates use, for :meth:`close_idle`.
    """

    def __init__(
        self,
        dataset: Callable[[], BoxDataset] | Path | str,
        *,
        boxes: Sequence[str] | None = None,
        options: Mapping[str, Any] | None = None,
        max_sessions: int = 16,
        max_action_length: int | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        from evaluator.dataset import BoxDataset
        from evaluator.integrations.gym._episodes import (
            DEFAULT_MAX_ACTION_LENGTH,
            DEFAULT_REPEATS,
        )

        if max_sessions < 1:
            raise UsageError(f"invalid max_sessions {max_sessions}: must be >= 1")
        if isinstance(dataset, (str, Path)):
            given = {"repeats": DEFAULT_REPEATS, **(options or {})}
            self.dataset = BoxDataset(dataset, **given)
        elif options:
            raise UsageError("options go with a suite folder, not with a dataset factory")
        else:
            self.dataset = dataset()
        data = self.dataset
        every = [data[i * data.repeats].box_id for i in range(len(data) // data.repeats)]
        self.boxes: list[str] = every if boxes is None else list(boxes)
        unknown = sorted(set(self.boxes) - set(every))
        if unknown or not self.boxes:
            raise UsageError(f"no box(es) {', '.join(unknown)} in suite {data.suite.name}")
        self.settings: dict[str, Any] = {
            **data.kind.definition(data.settings),
            "seed": data.seed,
            "repeats": data.repeats,
        }
        """The episodes' settings (public): the kind's, the run seed, the repetitions."""
        self.max_sessions = max_sessions
        self.max_action_length = max_action_length or DEFAULT_MAX_ACTION_LENGTH
        self._clock = clock
        self._lock = threading.Lock()
        self._live: dict[str, _Session] = {}
        self._starting = 0
        self._finished: OrderedDict[str, _Session] = OrderedDict()

    # -- routes ---------------------------------------------------------------------
    def reset(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """``POST /reset``: start an episode in a new session."""
        from evaluator.integrations.gym._episodes import TextSession

        if isinstance(body, Mapping) and body.get("episode_id") is not None:
            raise RemoteProtocolError("bad reset body: the server chooses episode_id; leave it out")
        request: _ResetBody = _parse(_ResetBody, body, "reset")
        with self._lock:
            if len(self._live) + self._starting >= self.max_sessions:
                raise SessionLimitError(
                    f"all {self.max_sessions} sessions are in use: finish or close one"
                )
            self._starting += 1
        try:
            item = self._item(request)
            session = _Session(TextSession(item, max_action_length=self.max_action_length))
            try:
                turn = session.text.reset()
            except OracleBenchError as exc:
                log.warning("box %s could not start: %s", item.box_id, exc)
                raise RemoteEnvError(f"box {item.box_id} could not start") from None
            episode_id = secrets.token_urlsafe(24)
            session.last_used = self._clock()
            with self._lock:
                self._live[episode_id] = session
        finally:
            with self._lock:
                self._starting -= 1
        return self._reply(episode_id, turn, reward=None)

    def step(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """``POST /step``: one action in the session ``body["episode_id"]``."""
        request: _StepBody = _parse(_StepBody, body, "step")
        session = self._session(request.episode_id)
        with session.lock:
            if session.text.done:
                raise RemoteProtocolError(
                    "the episode is over: reset for a new one (state gives its score)"
                )
            turn = session.text.step(request.action.text)
            session.last_used = self._clock()
        if turn.done:
            self._retire(request.episode_id, session)
        return self._reply(request.episode_id, turn, reward=turn.reward)

    def state(self, episode_id: str) -> dict[str, Any]:
        """``GET /state``: the session's public state."""
        if not isinstance(episode_id, str):
            raise RemoteProtocolError("episode_id must be a string")
        session = self._session(episode_id)
        with session.lock:
            text = session.text
            state = _State(
                episode_id=episode_id,
                step_count=text.step_count,
                done=text.done,
                box=text.item.box_id,
                repetition=text.item.repetition,
                kind=text.kind,
                score=text.score,
                status=text.status,
            )
        return state.model_dump(mode="json")

    # -- housekeeping ---------------------------------------------------------------
    def close(self, episode_id: str) -> None:
        """End a session and stop its worker (an unfinished episode is recorded as quit)
        and forget it."""
        with self._lock:
            session = self._live.pop(episode_id, None) or self._finished.pop(episode_id, None)
        if session is None:
            raise UnknownEpisodeError(f"no episode {_shown(episode_id)}")
        with session.lock:
            session.text.close()

    def close_all(self) -> None:
        """Close every session (at shutdown)."""
        with self._lock:
            sessions = [*self._live.values(), *self._finished.values()]
            self._live.clear()
            self._finished.clear()
        for session in sessions:
            with session.lock:
                session.text.close()

    def close_idle(self, max_idle: float) -> list[str]:
        """Close the unfinished sessions unused for more than ``max_idle`` seconds of
        ``clock``; their ids."""
        now = self._clock()
        with self._lock:
            idle = [i for i, s in self._live.items() if now - s.last_used > max_idle]
        closed = []
        for episode_id in idle:
            try:
                self.close(episode_id)
            except UnknownEpisodeError:
                continue  # closed meanwhile
            closed.append(episode_id)
        return closed

    @property
    def active(self) -> int:
        """Unfinished sessions (each holds a sandbox worker)."""
        with self._lock:
            return len(self._live)

    # -- internals --------------------------------------------------------------------
    def _item(self, request: _ResetBody) -> BoxItem:
        from evaluator.integrations.gym._episodes import choose_item

        seed = request.seed if request.seed is not None else secrets.randbits(63)
        rng = rng_for(seed, "openenv-reset", self.dataset.suite.name)
        box = request.box
        if box is None:
            box = self.boxes[rng.randrange(len(self.boxes))]
        elif isinstance(box, int):
            if not 0 <= box < len(self.boxes):
                raise RemoteProtocolError(
                    f"bad reset body: box index {box} out of range: {len(self.boxes)} served"
                )
            box = self.boxes[box]
        elif box not in self.boxes:
            raise RemoteProtocolError(f"bad reset body: no box {_shown(box)} is served here")
        try:
            return choose_item(self.dataset, box, request.repetition, draw=rng.randrange)
        except UsageError as exc:
            raise RemoteProtocolError(f"bad reset body: {exc}") from None

    def _session(self, episode_id: str) -> _Session:
        with self._lock:
            session = self._live.get(episode_id) or self._finished.get(episode_id)
        if session is None:
            raise UnknownEpisodeError(f"no episode {_shown(episode_id)}")
        return session

    def _retire(self, episode_id: str, session: _Session) -> None:
        with self._lock:
            if self._live.pop(episode_id, None) is None:
                return
            self._finished[episode_id] = session
            while len(self._finished) > self.max_sessions:
                self._finished.popitem(last=False)

    @staticmethod
    def _reply(episode_id: str, turn: SessionTurn, *, reward: float | None) -> dict[str, Any]:
        reply = _Reply(
            episode_id=episode_id,
            observation=_Observation(
                text=_clean(turn.text),
                metadata={
                    key: _clean(value) if isinstance(value, str) else value
                    for key, value in turn.metadata.items()
                },
            ),
            reward=reward,
            done=turn.done,
        )
        return reply.model_dump(mode="json")


def _shown(episode_id: object) -> str:
    text = str(episode_id)
    return repr(text if len(text) <= 64 else text[:61] + "...")
