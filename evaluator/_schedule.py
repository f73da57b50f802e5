"""The asyncio scheduler of a run: jobs in order, at most ``concurrency`` in flight.

Agents, providers and sandbox workers are synchronous, so each job runs in a thread of a
``ThreadPoolExecutor`` of size ``concurrency`` (the default executor is capped at
``min(32, cpus + 4)`` threads, too few for a wide LLM run). An ``asyncio.Semaphore``
bounds the jobs in flight; jobs start in list order and ``on_done`` is called in the
event loop's thread, one at a time, in completion order.

Stopping: before each start ``may_start()`` is asked (a spent budget says no); the jobs
in flight always finish. Ctrl-C (SIGINT, which ``asyncio.run`` turns into a cancellation
of the main task) calls ``on_interrupt()`` (the runner tells in-flight agents to stop at
their next call), waits for the jobs in flight and returns ``interrupted=True``; a second
Ctrl-C raises ``KeyboardInterrupt`` at once.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TypeVar

__all__ = ["ScheduleResult", "run_jobs"]

log = logging.getLogger(__name__)

J = TypeVar("J")
R = TypeVar("R")


@dataclass(frozen=True)
class ScheduleResult:
    started: int
    """Jobs that were started (all of them unless stopped)."""
    interrupted: bool
    """Ctrl-C stopped the run."""


def run_jobs(
    jobs: Sequence[J],
    run: Callable[[J], R],
    *,
    concurrency: int,
    on_done: Callable[[J, R], None],
    may_start: Callable[[], bool] = lambda: True,
    on_interrupt: Callable[[], None] = lambda: None,
) -> ScheduleResult:
    """Run ``run(job)`` for every job (threads, ``concurrency`` at a time); see the module doc.

    ``run`` should return, not raise: an exception escaping it is a bug, re-raised here
    once the jobs in flight have finished (no new job starts after it).
    """
    if concurrency < 1:
        raise ValueError(f"concurrency must be >= 1, got {concurrency}")
    if not jobs:
        return ScheduleResult(started=0, interrupted=False)
    executor = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="oracle-eval")
    clean = False
    try:
        result = asyncio.run(
            _main(jobs, run, executor, concurrency, on_done, may_start, on_interrupt)
        )
        clean = True
        return result
    finally:
        # After a second Ctrl-C do not block on threads still in a provider call.
        executor.shutdown(wait=clean, cancel_futures=True)


async def _main(
    jobs: Sequence[J],
    run: Callable[[J], R],
    executor: ThreadPoolExecutor,
    concurrency: int,
    on_done: Callable[[J, R], None],
    may_start: Callable[[], bool],
    on_interrupt: Callable[[], None],
) -> ScheduleResult:
    loop = asyncio.get_running_loop()
    slots = asyncio.Semaphore(concurrency)
    tasks: set[asyncio.Task[None]] = set()
    errors: list[BaseException] = []
    started = 0

    async def one(job: J) -> None:
        try:
            result = await loop.run_in_executor(executor, run, job)
        except Exception as exc:  # a bug in the episode code: stop starting, report after
            log.error("internal error in a job: %s: %s", type(exc).__name__, exc)
            errors.append(exc)
            return
        finally:
            slots.release()
        on_done(job, result)

    interrupted = False
    try:
        for job in jobs:
            await slots.acquire()
            if errors or not may_start():
                slots.release()
                break
            tasks.add(loop.create_task(one(job)))
            started += 1
        if tasks:
            await asyncio.wait(tasks)
    except asyncio.CancelledError:
        interrupted = True
        on_interrupt()
        pending = {t for t in tasks if not t.done()}
        if pending:
            log.warning("interrupted: waiting for %d episode(s) in flight", len(pending))
            await asyncio.wait(pending)
    if errors:
        raise errors[0]
    return ScheduleResult(started=started, interrupted=interrupted)
