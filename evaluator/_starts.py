"""Box starts beside the episodes, so a worker start is not on an episode's critical path.

A sandbox worker takes ~100 ms of CPU to start, and an episode used to wait for its box's
start (:meth:`BoxWorkerPool.check`) before its agent's first model call; with many boxes
starting at once on a few cores, every episode of a wide run began a few hundred
milliseconds late. Now:

* :class:`BoxStarts` runs each box's check once, in a thread of its own, and gives every
  episode of the box the same future; its warmer starts the boxes of the job list one at
  a time, in order, while the pool has a free slot (never evicting), so the episodes of
  later boxes find them started.
* :func:`gated_model_calls`: inside an episode the agent's first model call goes out at
  once, beside its box's start; every later call waits for the start and raises its
  error. A box that cannot start thus costs at most that one call (paid, and recorded in
  no trajectory), and its episode is recorded as before, from the start's error.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from contextvars import ContextVar

from blackboxes.store import Box
from evaluator._pool import BoxWorkerPool

__all__ = ["BoxStarts", "before_model_call", "gated_model_calls"]

_GATE: ContextVar[Callable[[], None] | None] = ContextVar(
    "oracle_bench_model_call_gate", default=None
)


@contextmanager
def gated_model_calls(started: Future[None]) -> Iterator[None]:
    """Within this block (this thread), the first model call passes at once and every
    later one waits for ``started`` (raising its exception)."""
    passed = threading.Event()

    def gate() -> None:
        if passed.is_set():
            started.result()
        passed.set()

    token = _GATE.set(gate)
    try:
        yield
    finally:
        _GATE.reset(token)


def before_model_call() -> None:
    """Called by an LLM agent before each model call: waits as :func:`gated_model_calls`
    says (nothing outside an episode)."""
    gate = _GATE.get()
    if gate is not None:
        gate()


class BoxStarts:
    """Each box's start, once per run, in the background (see the module docstring)."""

    def __init__(self, pool: BoxWorkerPool, threads: int) -> None:
        self._pool = pool
        self._executor = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="box-start")
        self._lock = threading.Lock()
        self._futures: dict[str, Future[None]] = {}
        self._stop = threading.Event()
        self._warmer: threading.Thread | None = None

    def start(self, box: Box) -> Future[None]:
        """The future of ``box``'s check: done when its first worker is up, or failed with
        the error that kept it from starting."""
        with self._lock:
            future = self._futures.get(box.info.id)
            if future is None:
                future = self._futures[box.info.id] = self._executor.submit(self._pool.check, box)
            return future

    def warm(self, boxes: Sequence[Box], may_start: Callable[[], bool]) -> None:
        """Start ``boxes`` in order in a background thread, one at a time, while
        ``may_start()`` and the pool has a free slot."""

        def run() -> None:
            for box in boxes:
                if self._stop.is_set() or not may_start() or not self._pool.warm(box):
                    return

        self._warmer = threading.Thread(target=run, name="box-warmer", daemon=True)
        self._warmer.start()

    def close(self) -> None:
        """Stop warming and wait for the starts in flight (call after the pool is closed:
        a start then ends as soon as its process is up)."""
        self._stop.set()
        if self._warmer is not None:
            self._warmer.join()
        self._executor.shutdown(wait=True, cancel_futures=True)
