"""The served suite: routes over :class:`sandbox.serve.JsonService`.

Routes (JSON in and out; every route but ``/health`` needs the bearer token when the
server has one):

* ``GET /health``: ``{"status": "ok"}``.
* ``GET /``: the suite: suite.json, the served boxes' box.json, the kind, the settings.
* ``GET /boxes/{box}``: one box's public description.
* ``POST /reset``, ``POST /step``, ``GET /state?episode_id=ID``, ``POST /close``: episodes
  shaped like OpenEnv's environment server (``evaluator.serve._openenv``): the text a
  person sees in ``oracle-play`` as observations, one line of text per action.

Nothing here reads anything of a box but box.json; the code runs in sandbox workers, and
neither it, facts.json, hidden.json, provenance.json nor an expected answer is ever put
into a response.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from blackboxes.store import Box, load_suite_boxes
from evaluator._pool import BoxWorkerPool, PooledBox, start_sandbox_worker
from evaluator.serve._describe import describe_box, describe_suite
from evaluator.serve._episodes import AgentEpisodes
from oracle_bench.errors import (
    BoxNotFoundError,
    RemoteEnvError,
    RemoteProtocolError,
    UsageError,
)
from oracle_bench.jsonio import canonical_json, sha256_hex
from sandbox.serve import HttpError, JsonService, Request, Route, ServiceLimits

if TYPE_CHECKING:
    from sandbox import SandboxLimits

__all__ = ["BoxServer", "EpisodeSessions"]

log = logging.getLogger(__name__)


class EpisodeSessions(Protocol):
    """Episodes by id: what the OpenEnv-shaped routes call."""

    def reset(self, body: Mapping[str, Any]) -> dict[str, Any]: ...

    def step(self, body: Mapping[str, Any]) -> dict[str, Any]: ...

    def state(self, episode_id: str) -> dict[str, Any]: ...

    def close(self, episode_id: str) -> None: ...

    def close_all(self) -> None: ...


def _body(request: Request) -> Mapping[str, Any]:
    if request.body is None:
        return {}
    if not isinstance(request.body, dict):
        raise HttpError(400, "the body must be a JSON object")
    return request.body


class BoxServer:
    """A suite (or one box of it) served over HTTP.

    >>> with BoxServer("suites/eri-easy", token=None) as server:   # doctest: +SKIP
    ...     print(server.url)
    """

    def __init__(
        self,
        suite_dir: Path | str,
        *,
        box: str | None = None,
        options: Mapping[str, Any] | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        token: str | None = None,
        limits: ServiceLimits | None = None,
        max_sessions: int = 32,
        seed: int = 0,
        sandbox_limits: SandboxLimits | None = None,
    ) -> None:
        from evaluator.dataset import BoxDataset
        from evaluator.kinds import kind_for_suite
        from evaluator.serve._openenv import OpenEnvSessions

        self.suite_dir = Path(suite_dir)
        only = None if box is None else [box]
        try:
            suite, boxes = load_suite_boxes(self.suite_dir, only)  # digests verified
        except BoxNotFoundError as exc:
            if box is not None and not (self.suite_dir / "boxes" / box).is_dir():
                raise UsageError(f"no box {box!r} in {self.suite_dir}") from None
            raise exc
        self.suite = suite
        self.only = box
        self._suite_sha = sha256_hex((self.suite_dir / "suite.json").read_bytes())
        self.boxes: dict[str, Box] = {b.info.id: b for b in boxes}
        self.kind = kind_for_suite(suite)
        given = dict(options or {})
        # Made here, not at the first reset: bad settings fail before the server binds.
        self._limits = sandbox_limits
        limits_sandbox = sandbox_limits
        dataset = BoxDataset(self.suite_dir, seed=seed, limits=sandbox_limits, boxes=only, **given)
        # What every episode is played with: the kind's settings in their text forms
        # (a client adopts them) and the run seed of the OpenEnv episodes.
        self.settings = {
            "label": dataset.kind.label(dataset.settings),
            "arguments": dataset.kind.arguments(dataset.settings),
            "seed": seed,
        }
        self.sessions: EpisodeSessions = OpenEnvSessions(lambda: dataset, max_sessions=max_sessions)
        self._pool = BoxWorkerPool(max_sessions, start_sandbox_worker(limits_sandbox))
        self._runs: dict[int, Any] = {}
        self._runs_lock = threading.Lock()
        self._server_settings = dataset.settings
        self._definition = canonical_json(self.kind.arguments(dataset.settings))
        self.agents = AgentEpisodes(
            self.kind,
            dataset.settings,
            self._kind_run_for,
            self.boxes,
            lambda b: PooledBox(self._pool, b),
            max_episodes=max_sessions,
        )
        routes = [
            Route("GET", "/health", self._health, public=True),
            Route("GET", "/", self._describe),
            Route("GET", "/boxes/{box}", self._box),
            Route("POST", "/reset", self._reset),
            Route("POST", "/step", self._step),
            Route("GET", "/state", self._state),
            Route("POST", "/close", self._close),
            Route("POST", "/episodes", self._episode_start),
            Route("POST", "/episodes/{episode}/reply", self._episode_reply),
            Route("POST", "/episodes/{episode}/handle", self._episode_handle),
            Route("DELETE", "/episodes/{episode}", self._episode_abandon),
        ]
        self.service = JsonService(routes, host=host, port=port, token=token, limits=limits)

    @property
    def url(self) -> str:
        return self.service.url

    # -- routes -------------------------------------------------------------------------
    def _health(self, request: Request) -> dict[str, Any]:
        return {"status": "ok"}

    def _describe(self, request: Request) -> dict[str, Any]:
        return describe_suite(
            self.suite, list(self.boxes.values()), self.kind.name, self.settings, self._suite_sha
        )

    def _box(self, request: Request) -> dict[str, Any]:
        box = self.boxes.get(request.params["box"])
        if box is None:
            raise HttpError(404, "no such box")
        return describe_box(box, self.kind.name)

    def _call(self, method: Any, *args: Any) -> dict[str, Any]:
        from evaluator.serve._openenv import SessionLimitError

        try:
            result = method(*args)
        except KeyError as exc:  # an unknown episode (before RemoteEnvError: it is both)
            message = exc.args[0] if exc.args and isinstance(exc.args[0], str) else "not found"
            raise HttpError(404, message) from None
        except SessionLimitError as exc:
            raise HttpError(503, str(exc)) from None
        except RemoteProtocolError as exc:
            raise HttpError(400, str(exc)) from None
        except RemoteEnvError as exc:
            raise HttpError(500, str(exc)) from None
        except (UsageError, ValueError, TypeError) as exc:
            raise HttpError(400, str(exc)) from None
        return result if result is not None else {"closed": True}

    def _reset(self, request: Request) -> dict[str, Any]:
        body = dict(_body(request))
        if self.only is not None:
            # A one-box server: that box, whatever the body leaves out.
            if body.get("box") not in (None, self.only):
                raise HttpError(404, "no such box")
            body["box"] = self.only
        return self._call(self.sessions.reset, body)

    def _step(self, request: Request) -> dict[str, Any]:
        return self._call(self.sessions.step, _body(request))

    def _state(self, request: Request) -> dict[str, Any]:
        episode = request.query.get("episode_id")
        if not episode:
            raise HttpError(400, "give ?episode_id=ID")
        return self._call(self.sessions.state, episode)

    def _close(self, request: Request) -> dict[str, Any]:
        body = _body(request)
        episode = body.get("episode_id")
        if not isinstance(episode, str) or not episode:
            raise HttpError(400, 'give {"episode_id": ID}')
        return self._call(self.sessions.close, episode)

    def _kind_run_for(self, definition: Any, seed: int, repetition: int) -> Any:
        """The kind's run for a client's episode: the server's settings (a client asking
        for others is refused), the client's run seed."""
        from evaluator.executors import SuiteContext

        if canonical_json(definition) != self._definition:
            raise RemoteProtocolError(
                f"this server plays {self.kind.label(self._server_settings)} episodes, with "
                f"the settings {self._definition}; the client asked for others"
            )
        with self._runs_lock:
            run = self._runs.get(seed)
            if run is None:
                if len(self._runs) >= 64:
                    self._runs.pop(next(iter(self._runs)))
                context = SuiteContext(
                    suite=self.suite,
                    boxes=list(self.boxes.values()),
                    seed=seed,
                    repeats=1 << 20,
                    limits=self._limits,
                    llm_names=frozenset(),
                )
                run = self._runs[seed] = self.kind.start(context, self._server_settings)
        return run

    def _episode_start(self, request: Request) -> dict[str, Any]:
        return self._call(self.agents.start, _body(request))

    def _episode_reply(self, request: Request) -> dict[str, Any]:
        return self._call(self.agents.reply, request.params["episode"], _body(request))

    def _episode_handle(self, request: Request) -> dict[str, Any]:
        return self._call(self.agents.call_handle, request.params["episode"], _body(request))

    def _episode_abandon(self, request: Request) -> dict[str, Any]:
        return self._call(self.agents.abandon, request.params["episode"])

    # -- life -----------------------------------------------------------------------------
    def start(self) -> BoxServer:
        self.service.start()
        return self

    def serve_forever(self) -> None:
        self.service.serve_forever()

    def stop(self) -> None:
        self.service.stop()
        self.sessions.close_all()
        self.agents.close_all()
        self._pool.close()

    def __enter__(self) -> BoxServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
