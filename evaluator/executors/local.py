"""The ``local`` executor: episodes in threads of this process (the default).

Jobs run ``concurrency`` at a time (``evaluator._schedule``: asyncio with a thread per
episode); sandbox workers come from one pool of ``workers`` shared by all boxes
(``evaluator._pool``), started beside the episodes and ahead of them
(``evaluator._starts``). Each episode's trajectory is written from its own thread.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from evaluator._pool import BoxWorkerPool, start_sandbox_worker
from evaluator._schedule import ScheduleResult, run_jobs
from evaluator._starts import BoxStarts
from evaluator.executors._base import EpisodeHooks, EpisodeOutcome, EpisodePlan, check_option_names
from evaluator.executors._episode import play_job
from evaluator.executors._registry import register_executor

if TYPE_CHECKING:
    from evaluator.runner import EpisodeJob

__all__ = ["LocalExecutor"]


@register_executor("local")
class LocalExecutor:
    """Threads of this process; takes no options."""

    def __init__(self, options: Mapping[str, Any] | None = None) -> None:
        check_option_names("local", options or {}, ())

    def run(self, plan: EpisodePlan, hooks: EpisodeHooks) -> ScheduleResult:
        factory = plan.worker_factory or start_sandbox_worker(plan.limits)
        pool = BoxWorkerPool(plan.workers, factory)
        starts = BoxStarts(pool, plan.concurrency)

        def episode(job: EpisodeJob) -> EpisodeOutcome:
            box = plan.boxes[job.box_id]
            played = play_job(plan.kind_run, pool, starts, box, job, job.scope)
            return hooks.finish(job, played)

        try:
            if plan.jobs:
                order = {job.box_id: plan.boxes[job.box_id] for job in plan.jobs}
                starts.warm(list(order.values()), hooks.may_start)
            return run_jobs(
                plan.jobs,
                episode,
                concurrency=plan.concurrency,
                on_done=hooks.on_done,
                may_start=hooks.may_start,
                on_interrupt=hooks.on_interrupt,
            )
        finally:
            pool.close()
            starts.close()
