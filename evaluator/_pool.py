"""A bounded pool of sandbox workers shared by the episodes of a run.

Episodes borrow a worker per box call (:class:`PooledBox`), not per episode: a call takes
microseconds, a worker start ~100 ms of CPU. :meth:`BoxWorkerPool.lease` hands out an idle
live worker of the box; while the box's workers are all busy it waits for one (up to
:data:`BUSY_WAIT_S`, so only a box with slow calls gets a second worker); else it starts a
new worker while the pool is under its bound, else closes the least recently used idle
worker of another box and starts one in its place, else waits for a release. A worker
whose call raised is discarded; :meth:`close` kills every worker, leased or idle.
:meth:`BoxWorkerPool.warm` starts a box ahead of its episodes, only into a free slot.

Thread-safe: episodes run in worker threads of the scheduler.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any

from blackboxes.store import Box
from oracle_bench.errors import OracleBenchError, UsageError

if TYPE_CHECKING:
    from sandbox import SandboxLimits

__all__ = ["BoxWorkerPool", "Lease", "PooledBox", "start_sandbox_worker"]

log = logging.getLogger(__name__)

BUSY_WAIT_S = 1.0
"""How long a call waits for its box's busy worker before another worker is started."""

WorkerFactory = Callable[[Box], Any]
"""Starts a worker for a box; raises an ``OracleBenchError`` when the box cannot start."""


def start_sandbox_worker(limits: SandboxLimits | None) -> WorkerFactory:
    """The default factory: a :class:`sandbox.SandboxWorker` running the box's code."""

    def start(box: Box) -> Any:
        from sandbox import SandboxLimits, SandboxWorker

        return SandboxWorker(
            box.code,
            entry=box.info.entry,
            limits=limits if limits is not None else SandboxLimits(),
        )

    return start


def _close(worker: Any, box_id: str) -> None:
    try:
        worker.close()
    except Exception as exc:  # closing must not end the run
        log.warning("box %s: closing the sandbox worker failed: %s", box_id, exc)


class Lease:
    """A worker lent to one episode; give it back with :meth:`BoxWorkerPool.release`."""

    __slots__ = ("box_id", "worker")

    def __init__(self, box_id: str, worker: Any) -> None:
        self.box_id = box_id
        self.worker = worker


class BoxWorkerPool:
    """At most ``size`` live workers over all boxes (see the module docstring)."""

    def __init__(self, size: int, start: WorkerFactory) -> None:
        if size < 1:
            raise UsageError(f"invalid --workers {size}: must be >= 1")
        self.size = size
        self._start = start
        self._cond = threading.Condition()
        self._idle: OrderedDict[int, Lease] = OrderedDict()
        """Idle workers, least recently used first (keyed by id of the lease)."""
        self._live = 0
        """Workers alive or starting, leased or idle."""
        self._leased: dict[int, Lease] = {}
        self._closed = False
        self.started = 0
        """Workers started so far (for tests and the manifest)."""
        self._checked: dict[str, BaseException | None] = {}
        self._check_locks: dict[str, threading.Lock] = {}

    def check(self, box: Box) -> None:
        """Raise the box's start-up error if it cannot start (started once per box per
        run: concurrent first episodes of a box wait for that one start)."""
        box_id = box.info.id
        with self._cond:
            lock = self._check_locks.setdefault(box_id, threading.Lock())
        with lock:
            if box_id not in self._checked:
                try:
                    self.release(self.lease(box), healthy=True)
                except OracleBenchError as exc:
                    self._checked[box_id] = exc
                else:
                    self._checked[box_id] = None
            error = self._checked[box_id]
        if error is not None:
            raise error

    def warm(self, box: Box) -> bool:
        """Start ``box`` ahead of its episodes, as :meth:`check` would, but only into a free
        slot: never evicting another box's worker, never waiting. False (nothing done) when
        the pool is full; True once the box is checked (its error, if any, is kept for
        :meth:`check`)."""
        box_id = box.info.id
        with self._cond:
            lock = self._check_locks.setdefault(box_id, threading.Lock())
            if self._closed:
                return False
        with lock:
            if box_id in self._checked:
                return True
            try:
                lease = self._lease(box, evict=False)
            except OracleBenchError as exc:
                if self._closed:  # the run is over: nothing to remember about the box
                    return False
                self._checked[box_id] = exc
                return True
            if lease is None:
                return False
            self.release(lease, healthy=True)
            self._checked[box_id] = None
            return True

    def lease(self, box: Box) -> Lease:
        """A worker for ``box``; blocks while the pool is full and nothing is idle.

        Raises the factory's error (e.g. ``SandboxCompileError``) when the box cannot start.
        """
        lease = self._lease(box, evict=True)
        if lease is None:  # pragma: no cover - only a non-evicting lease returns None
            raise UsageError("no worker slot")
        return lease

    def _lease(self, box: Box, *, evict: bool) -> Lease | None:
        """``lease``; with ``evict=False``, None instead of waiting for or evicting a slot."""
        box_id = box.info.id
        evicted: Lease | None = None
        deadline: float | None = None
        with self._cond:
            while True:
                if self._closed:
                    raise UsageError("the worker pool is closed")
                mine = next((k for k, v in self._idle.items() if v.box_id == box_id), None)
                if mine is not None:
                    lease = self._idle.pop(mine)
                    self._leased[id(lease)] = lease
                    return lease
                busy = any(v.box_id == box_id for v in self._leased.values())
                if busy and evict:
                    # A box call takes microseconds and a worker start ~100 ms of CPU:
                    # wait for the box's busy worker; start another only for a box whose
                    # calls are slow (longer than BUSY_WAIT_S).
                    if deadline is None:
                        deadline = time.monotonic() + BUSY_WAIT_S
                    left = deadline - time.monotonic()
                    if left > 0:
                        self._cond.wait(left)
                        continue
                if self._live < self.size:
                    self._live += 1
                    break
                if not evict:
                    return None
                if self._idle:
                    _, evicted = self._idle.popitem(last=False)
                    break  # its slot passes to the new worker: _live unchanged
                self._cond.wait()
        if evicted is not None:
            _close(evicted.worker, evicted.box_id)
        try:
            worker = self._start(box)
        except BaseException:
            with self._cond:
                self._live -= 1
                self._cond.notify_all()
            raise
        lease = Lease(box_id, worker)
        with self._cond:
            self.started += 1
            if self._closed:  # closed while starting (close() already zeroed the count)
                _close(worker, box_id)
                raise UsageError("the worker pool is closed")
            self._leased[id(lease)] = lease
        return lease

    def release(self, lease: Lease, *, healthy: bool) -> None:
        """Give ``lease`` back: kept idle when ``healthy``, else closed."""
        with self._cond:
            if self._leased.pop(id(lease), None) is None:
                return  # already released, or closed with the pool
            if healthy and not self._closed:
                self._idle[id(lease)] = lease
                self._cond.notify_all()
                return
            self._live -= 1
            self._cond.notify_all()
        _close(lease.worker, lease.box_id)

    @property
    def live(self) -> int:
        """Workers alive now (leased or idle)."""
        with self._cond:
            return self._live

    def close(self) -> None:
        """Close every worker, idle or leased (idempotent); later leases are refused."""
        with self._cond:
            self._closed = True
            victims = list(self._idle.values()) + list(self._leased.values())
            self._idle.clear()
            self._leased.clear()
            self._live = 0
            self._cond.notify_all()
        for lease in victims:
            _close(lease.worker, lease.box_id)


class PooledBox:
    """One episode's view of a box: each call borrows a pooled worker and gives it back.

    A box call takes microseconds while an agent's turn (an LLM call) takes seconds, so
    an episode that held a worker from start to end would need a process per episode in
    flight. Borrowing per call keeps about one busy worker per box, started by the first
    call (which overlaps the agent's first model call). A worker whose call raised is
    discarded; a box that cannot start raises its error from :meth:`call`, which the
    episode protocols record as the episode's failure.

    ``ready`` (the box's start, run beside the episode: ``evaluator._starts``) is waited for
    before the first call, so a call never starts a second worker while the box's first
    one is still starting; a box that could not start raises that start's error.
    """

    def __init__(self, pool: BoxWorkerPool, box: Box, ready: Future[None] | None = None) -> None:
        self._pool = pool
        self._box = box
        self._ready = ready
        self._layers: frozenset[Any] | None = None

    @property
    def layers(self) -> frozenset[Any]:
        """The isolation layers of the box's workers (they all share one set of limits)."""
        if self._layers is None:
            self._borrow(lambda worker: None)
        return self._layers if self._layers is not None else frozenset()

    def call(self, *args: Any, trace: Any = None) -> Any:
        """``SandboxWorker.call(*args, trace=trace)`` on a borrowed worker."""
        if trace is None:
            return self._borrow(lambda worker: worker.call(*args))
        return self._borrow(lambda worker: worker.call(*args, trace=trace))

    def _borrow(self, use: Callable[[Any], Any]) -> Any:
        if self._ready is not None:
            self._ready.result()
        lease = self._pool.lease(self._box)
        healthy = False
        try:
            result = use(lease.worker)
            if self._layers is None:
                self._layers = frozenset(lease.worker.layers)
            healthy = True
            return result
        finally:
            self._pool.release(lease, healthy=healthy)
