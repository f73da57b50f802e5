"""A bounded pool of sandbox workers shared by the episodes of a run.

One worker serves one episode at a time. :meth:`BoxWorkerPool.lease` hands out an idle
live worker of the episode's box, else starts a new one while the pool is under its
bound, else closes the least recently used idle worker of another box and starts one in
its place, else waits for a release. Several episodes of one box may therefore run at
once, each on its own worker. A worker whose episode failed is discarded (the next
episode gets a fresh process); :meth:`close` kills every worker, leased or idle.

Thread-safe: episodes run in worker threads of the scheduler.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from blackboxes.store import Box
from oracle_bench.errors import UsageError

if TYPE_CHECKING:
    from sandbox import SandboxLimits

__all__ = ["BoxWorkerPool", "Lease", "start_sandbox_worker"]

log = logging.getLogger(__name__)

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

    def lease(self, box: Box) -> Lease:
        """A worker for ``box``; blocks while the pool is full and nothing is idle.

        Raises the factory's error (e.g. ``SandboxCompileError``) when the box cannot start.
        """
        box_id = box.info.id
        evicted: Lease | None = None
        with self._cond:
            while True:
                if self._closed:
                    raise UsageError("the worker pool is closed")
                mine = next((k for k, v in self._idle.items() if v.box_id == box_id), None)
                if mine is not None:
                    lease = self._idle.pop(mine)
                    self._leased[id(lease)] = lease
                    return lease
                if self._live < self.size:
                    self._live += 1
                    break
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
                self._cond.notify()
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
                self._cond.notify()
                return
            self._live -= 1
            self._cond.notify()
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
