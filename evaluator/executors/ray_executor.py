"""The ``ray`` executor: each episode a Ray task on a cluster, recorded by the driver.

Options: ``address`` (None or ``local``: start a Ray instance on this machine; ``auto``
or ``HOST:PORT``: join a cluster; a session already open in this process is used as
it is) and ``num_cpus`` (CPUs a task reserves, default 1: lower it for LLM episodes,
which mostly wait on the network).

Each task gets the kind, its settings, the job, the box, the sandbox limits and the LLM
settings (``_ray_task``); it starts the box's sandbox worker on its node, plays the
episode and returns the record. The driver treats what comes back as untrusted: it
validates it with the kind's record model and checks it is the job's, then writes the
trajectory atomically as the local executor does, so the run folder is byte for byte
the same. Jobs start in order, at most ``concurrency`` tasks in flight; ``on_done``
follows completion order.

Failures: an episode's own failure is in its record. A task whose worker process or node
died, or whose result is not a valid record of its job, is recorded failed with cause
``infrastructure`` (a resumed run plays it again). An exception escaping the episode
code is a bug, raised once the tasks in flight have settled, as with local threads.
Ctrl-C: the agents are told to stop, the tasks in flight are cancelled (one that already
finished is still recorded), and the run returns ``interrupted``; a second Ctrl-C
raises at once. LLM agents: see ``_ray_llm`` (the budget and the call cache hold across
nodes; per-call usage and retry events reach the progress callback); the tasks see the
driver's provider variables and pricing file, not the node's (``_ray_task``).
"""

from __future__ import annotations

import logging
import signal
import threading
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from types import FrameType, ModuleType
from typing import TYPE_CHECKING, Any

from evaluator._schedule import ScheduleResult
from evaluator.executors._base import EpisodeHooks, EpisodePlan, Played, check_option_names
from evaluator.executors._registry import register_executor
from oracle_bench._executor import import_ray, ray_session
from oracle_bench.errors import UsageError

if TYPE_CHECKING:
    from evaluator.executors._ray_llm import EventPump
    from evaluator.runner import EpisodeJob

__all__ = ["RayExecutor"]

log = logging.getLogger(__name__)

OPTIONS = ("address", "num_cpus")


@register_executor("ray")
class RayExecutor:
    """Ray tasks on a cluster (see the module docstring)."""

    def __init__(self, options: Mapping[str, Any] | None = None) -> None:
        options = dict(options or {})
        check_option_names("ray", options, OPTIONS)
        import_ray()  # Ray missing: one line before any work
        address = options.get("address")
        if address is not None and (not isinstance(address, str) or not address.strip()):
            raise UsageError(f"invalid --ray-address {address!r}: local, auto or HOST:PORT")
        self.address: str | None = address.strip() if address is not None else None
        num_cpus = options.get("num_cpus", 1.0)
        if isinstance(num_cpus, bool) or not isinstance(num_cpus, int | float) or num_cpus < 0:
            raise UsageError(f"invalid Ray num_cpus {num_cpus!r}: a number >= 0")
        self.num_cpus = float(num_cpus)

    def run(self, plan: EpisodePlan, hooks: EpisodeHooks) -> ScheduleResult:
        if not plan.jobs:
            return ScheduleResult(started=0, interrupted=False)
        with ray_session(self.address) as ray:
            return _RayRun(ray, plan, hooks, self.num_cpus).go()


class _Interrupts:
    """Ctrl-C while the driver waits for tasks: the first one is raised inside the wait
    (or at the next one, so that recording an episode is never cut in two); a second one
    is raised at once."""

    def __init__(self) -> None:
        self.count = 0
        self.waiting = False

    @contextmanager
    def installed(self) -> Iterator[None]:
        if threading.current_thread() is not threading.main_thread():
            yield  # signals go to the main thread only: nothing to catch here
            return
        previous = signal.signal(signal.SIGINT, self._handle)
        try:
            yield
        finally:
            signal.signal(signal.SIGINT, previous)

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        self.count += 1
        if self.waiting or self.count > 1:
            raise KeyboardInterrupt

    @contextmanager
    def waiting_here(self) -> Iterator[None]:
        if self.count == 1:
            self.count += 1  # delivered now: a later one is a second Ctrl-C
            raise KeyboardInterrupt
        self.waiting = True
        try:
            yield
        finally:
            self.waiting = False


class _RayRun:
    def __init__(
        self, ray: ModuleType, plan: EpisodePlan, hooks: EpisodeHooks, cpus: float
    ) -> None:
        self.ray = ray
        self.plan = plan
        self.hooks = hooks
        self.cpus = cpus
        self.in_flight: dict[Any, EpisodeJob] = {}
        self.errors: list[BaseException] = []
        self.box_refs: dict[str, Any] = {}
        self.services: Any = None
        self.pump: EventPump | None = None
        self.interrupts = _Interrupts()

    def go(self) -> ScheduleResult:
        from evaluator.executors._ray_llm import EventPump, shippable, start_services
        from evaluator.executors._ray_task import TaskShared, play_task, provider_environment

        ray, plan, hooks = self.ray, self.plan, self.hooks
        context = plan.context
        environment, pricing = provider_environment() if plan.llm is not None else ({}, None)
        shared = ray.put(
            TaskShared(
                run_id=uuid.uuid4().hex,
                kind=plan.kind.name,
                kind_settings=plan.kind_settings,
                suite=context.suite,
                seed=context.seed,
                repeats=context.repeats,
                limits=plan.limits,
                llm_names=context.llm_names,
                llm=shippable(plan.llm) if plan.llm is not None else None,
                environment=environment,
                pricing=pricing,
            )
        )
        if plan.llm is not None:
            self.services = start_services(ray, plan.llm)
            self.pump = EventPump(ray, self.services, plan.llm)
        task = ray.remote(play_task).options(num_cpus=self.cpus, max_retries=0)
        started = 0
        interrupted = False
        try:
            with self.interrupts.installed():
                try:
                    for job in plan.jobs:
                        while len(self.in_flight) >= plan.concurrency:
                            self._settle_one()
                        if self.errors or not hooks.may_start():
                            break
                        ref = task.remote(shared, self._box(job.box_id), job, self.services)
                        self.in_flight[ref] = job
                        started += 1
                    while self.in_flight:
                        self._settle_one()
                except KeyboardInterrupt:
                    interrupted = True
                    self._interrupt()
        finally:
            self._close()
        if self.errors:
            raise self.errors[0]
        return ScheduleResult(started=started, interrupted=interrupted)

    def _box(self, box_id: str) -> Any:
        ref = self.box_refs.get(box_id)
        if ref is None:  # each box goes to the object store once, however many episodes
            ref = self.box_refs[box_id] = self.ray.put(self.plan.boxes[box_id])
        return ref

    def _interrupt(self) -> None:
        log.warning("interrupted: cancelling %d episode(s) in flight", len(self.in_flight))
        self.hooks.on_interrupt()
        if self.services is not None:
            self.services.stop.remote("interrupted")
        for ref in self.in_flight:
            self.ray.cancel(ref)
        while self.in_flight:
            self._settle_one(interruptible=False)

    def _close(self) -> None:
        if self.services is not None:
            try:
                self.ray.get(self.services.close.remote())
            except Exception as exc:  # the actor died: its events are lost, not the run
                log.warning("closing the LLM services actor failed: %s", exc)
        if self.pump is not None:
            self.pump.close()
        if self.services is not None:
            self.ray.kill(self.services)

    def _settle_one(self, *, interruptible: bool = True) -> None:
        """Wait for a task in flight to end and record it."""
        refs = list(self.in_flight)
        if interruptible:
            with self.interrupts.waiting_here():
                ready, _ = self.ray.wait(refs, num_returns=1)
        else:
            ready, _ = self.ray.wait(refs, num_returns=1)
        ref = ready[0]
        job = self.in_flight.pop(ref)
        played = self._played(ref, job)
        if played is None:
            return
        outcome = self.hooks.finish(job, played)
        self.hooks.on_done(job, outcome)

    def _played(self, ref: Any, job: EpisodeJob) -> Played | None:
        """The task's episode, validated; None for a bug (kept in ``errors``)."""
        exceptions = self.ray.exceptions
        try:
            result = self.ray.get(ref)
        except exceptions.TaskCancelledError:
            return Played(None, "interrupted")
        except exceptions.RayTaskError as exc:
            cause = getattr(exc, "cause", None)
            error = cause if isinstance(cause, BaseException) else exc
            if isinstance(error, KeyboardInterrupt):  # cancelled while it ran
                return Played(None, "interrupted")
            log.error("internal error in a job: %s: %s", type(error).__name__, error)
            self.errors.append(error)
            return None
        except exceptions.RayError as exc:
            # The worker process or its node died, the result was lost...: nothing of
            # the episode is known, and a resumed run plays it again.
            return self._failed(job, f"Ray task lost: {type(exc).__name__}: {_one_line(exc)}")
        if not isinstance(result, dict):
            return self._failed(job, f"invalid result from a Ray task: {type(result).__name__}")
        seq = result.get("seq", 0)
        if self.pump is not None and isinstance(seq, int):
            self.pump.wait_for(seq)
        if "record" not in result:
            stopped = result.get("stopped")
            if not isinstance(stopped, str):
                return self._failed(job, "invalid result from a Ray task: no record")
            return Played(None, stopped)
        return self._validated(job, result["record"])

    def _validated(self, job: EpisodeJob, raw: Any) -> Played:
        """The record, read with the kind's own model, if it is this job's."""
        box = self.plan.boxes[job.box_id]
        try:
            record = self.plan.kind.load_record(raw, self.hooks.path(job))
        except Exception as exc:  # CorruptTrajectoryError, or anything a hostile value does
            return self._failed(job, f"invalid record from a Ray task: {_one_line(exc)}")
        mine = (job.box_id, job.agent, job.repetition, box.digest)
        theirs = tuple(
            getattr(record, name, None) for name in ("box_id", "agent", "repetition", "box_digest")
        )
        if theirs != mine:
            return self._failed(job, "invalid record from a Ray task: not this job's episode")
        return Played(record)

    def _failed(self, job: EpisodeJob, message: str) -> Played:
        log.warning("%s: %s", job.scope, message)
        box = self.plan.boxes[job.box_id]
        return Played(self.plan.kind_run.cannot_start(box, job, message, "infrastructure"))


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text[:300] or type(exc).__name__
