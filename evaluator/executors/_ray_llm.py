"""The run's LLM budget and call cache for episodes on Ray workers, and their events.

LLM agents of one run share a :class:`~evaluator.usage.RunBudget` (checked before each
call, charged after it) and a :class:`~providers.CallCache` (the run folder's SQLite
file). Under Ray the episodes run in other processes, possibly on other machines, so
both live in one Ray actor, :class:`LlmServices`, pinned to the driver's node (the
cache file is in the run folder there): episode tasks reach it through the stand-ins
made by :func:`attach_services`, one actor call per check, charge, cache look-up and
store.

The actor is the budget that stops agents; the driver keeps its own run budget as a
mirror, for ``may_start``, progress and the manifest. Every charge and every retry wait
is also queued in the actor as a numbered event; the driver's :class:`EventPump` drains
them in order into the run's budget (which reports each paid call as a
``UsageProgress``) and retry hook (``RetryProgress``, in the episode's call scope).
A task returns the number of its last event, and the driver waits for that event before
it records the episode, so each ``ProgressEvent`` counts every call of its episode, as
with local threads.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evaluator.usage import BudgetExhausted, LlmCallRecord, RunBudget
from oracle_bench._executor import import_ray
from providers import CallCache, Reply, RetryEvent

if TYPE_CHECKING:
    from types import ModuleType

    from evaluator.llm_agents import LlmAgentSettings

__all__ = [
    "EventPump",
    "EventTracker",
    "LlmServices",
    "attach_services",
    "shippable",
    "start_services",
]

log = logging.getLogger(__name__)

_POLL_S = 1.0
"""How long one drain of the actor's events waits for a new one."""


class LlmServices:
    """The Ray actor (threaded) owning a run's budget and call cache (module docstring)."""

    def __init__(
        self,
        cache_path: str | None,
        max_cost: float | None,
        max_tokens: int | None,
        spent_cost: float,
        spent_tokens: int,
    ) -> None:
        self._cache = CallCache(cache_path) if cache_path is not None else None
        self._budget = RunBudget(
            max_cost=max_cost,
            max_tokens=max_tokens,
            spent_cost=spent_cost,
            spent_tokens=spent_tokens,
        )
        self._stopped: str | None = None
        self._cond = threading.Condition()
        self._events: list[tuple[int, str, dict[str, Any]]] = []
        self._seq = 0
        self._closing = False

    def check(self) -> str | None:
        """Why no call may go out (a cap reached, Ctrl-C), or None."""
        if self._stopped is not None:
            return self._stopped
        try:
            self._budget.check()
        except BudgetExhausted as exc:
            return str(exc)
        return None

    def charge(self, record: dict[str, Any]) -> int:
        """Charge a call (``LlmCallRecord`` JSON); the number of its event."""
        checked = LlmCallRecord.model_validate(record)
        self._budget.charge(checked)
        return self._push("charge", checked.model_dump(mode="json"))

    def retry(self, event: dict[str, Any]) -> int:
        """Queue a retry wait (provider, attempt, wait_s, reason, scope)."""
        return self._push("retry", event)

    def cache_get(self, key: str) -> str | None:
        reply = self._cache.get(key) if self._cache is not None else None
        return None if reply is None else reply.model_dump_json()

    def cache_put(self, key: str, reply: str) -> None:
        if self._cache is not None:
            self._cache.put(key, Reply.model_validate_json(reply))

    def stop(self, reason: str) -> None:
        """Every later :meth:`check` says ``reason`` (agents stop at their next call)."""
        self._stopped = reason

    def events(self, after: int, timeout: float) -> list[tuple[int, str, dict[str, Any]]]:
        """The events numbered above ``after`` (those up to it are forgotten), waiting up
        to ``timeout`` seconds for one."""
        with self._cond:
            self._cond.wait_for(lambda: self._seq > after or self._closing, timeout)
            self._events = [e for e in self._events if e[0] > after]
            return list(self._events)

    def close(self) -> None:
        with self._cond:
            self._closing = True
            self._cond.notify_all()
        if self._cache is not None:
            self._cache.close()

    def _push(self, kind: str, payload: dict[str, Any]) -> int:
        with self._cond:
            self._seq += 1
            self._events.append((self._seq, kind, payload))
            self._cond.notify_all()
            return self._seq


def start_services(ray: ModuleType, settings: LlmAgentSettings) -> Any:
    """Start the run's :class:`LlmServices` actor on this (the driver's) node."""
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    budget = settings.budget
    cache = settings.cache
    here = ray.get_runtime_context().get_node_id()
    actor = ray.remote(LlmServices).options(
        num_cpus=0,
        max_concurrency=64,  # threads: one per task in a call, plus the event drain
        scheduling_strategy=NodeAffinitySchedulingStrategy(node_id=here, soft=False),
    )
    return actor.remote(
        str(cache.path) if cache is not None else None,
        budget.max_cost if budget is not None else None,
        budget.max_tokens if budget is not None else None,
        budget.cost if budget is not None else 0.0,
        budget.tokens if budget is not None else 0,
    )


# -- in an episode task ---------------------------------------------------------------


class EventTracker:
    """The number of the last event an episode task caused."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.seq = 0

    def saw(self, seq: int) -> None:
        with self._lock:
            self.seq = max(self.seq, seq)


class _ActorBudget(RunBudget):
    """The run's budget as seen from a task: every check and charge is an actor call."""

    def __init__(self, services: Any, tracker: EventTracker) -> None:
        super().__init__()
        self._services = services
        self._tracker = tracker
        self._ray = import_ray()

    def check(self) -> None:
        reason = self._ray.get(self._services.check.remote())
        if reason is not None:
            raise BudgetExhausted(reason)

    def charge(self, record: LlmCallRecord) -> None:
        super().charge(record)  # this task's own running total, for nothing but logs
        seq = self._ray.get(self._services.charge.remote(record.model_dump(mode="json")))
        self._tracker.saw(seq)


class _ActorCache(CallCache):
    """The run's call cache as seen from a task (the SQLite file stays on the driver's
    node): the same interface, each look-up and store an actor call."""

    def __init__(self, services: Any) -> None:  # no file here: nothing of the base's
        self.path = Path("<ray:LlmServices>")
        self._services = services
        self._ray = import_ray()

    def get(self, key: str) -> Reply | None:
        text = self._ray.get(self._services.cache_get.remote(key))
        return None if text is None else Reply.model_validate_json(text)

    def put(self, key: str, reply: Reply) -> None:
        self._ray.get(self._services.cache_put.remote(key, reply.model_dump_json()))

    def __len__(self) -> int:
        return 0

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self.get(key) is not None

    def close(self) -> None:
        """The actor's file is closed with the run, not by a task."""


def attach_services(
    settings: LlmAgentSettings, services: Any, tracker: EventTracker
) -> LlmAgentSettings:
    """``settings`` (shipped without budget, cache and hooks) with the run's, through
    the actor; providers are built per episode (no pool across tasks)."""
    ray = import_ray()

    def on_retry(event: RetryEvent) -> None:
        from providers.cache import current_scope

        payload = {
            "provider": event.provider,
            "attempt": event.attempt,
            "wait_s": event.wait_s,
            "reason": event.reason,
            "scope": current_scope(),
        }
        tracker.saw(ray.get(services.retry.remote(payload)))

    return replace(
        settings,
        budget=_ActorBudget(services, tracker),
        cache=_ActorCache(services),
        on_retry=on_retry,
        pool=None,
    )


def shippable(settings: LlmAgentSettings) -> LlmAgentSettings:
    """``settings`` without what stays on the driver: budget, cache, hooks, pool."""
    return replace(settings, budget=None, on_retry=None, pool=None, cache=None)


# -- on the driver --------------------------------------------------------------------


class EventPump:
    """Drains the actor's events into the run's budget and retry hook (a thread)."""

    def __init__(self, ray: ModuleType, services: Any, settings: LlmAgentSettings) -> None:
        self._ray = ray
        self._services = services
        self._settings = settings
        self._cond = threading.Condition()
        self._applied = 0
        self._closing = False
        self._failed = False
        self._thread = threading.Thread(target=self._loop, name="ray-llm-events", daemon=True)
        self._thread.start()

    def wait_for(self, seq: int) -> None:
        """Until the events up to ``seq`` are applied (or the pump has stopped)."""
        with self._cond:
            self._cond.wait_for(lambda: self._applied >= seq or self._failed or self._closing)

    def close(self) -> None:
        """Apply what is left, then stop (call once no task is in flight and the actor
        is closed, which ends a drain waiting for events)."""
        with self._cond:
            self._closing = True
            self._cond.notify_all()
        self._thread.join()

    def _loop(self) -> None:
        while True:
            with self._cond:
                closing = self._closing
            try:
                timeout = 0.0 if closing else _POLL_S
                events = self._ray.get(self._services.events.remote(self._applied, timeout))
            except Exception as exc:  # the actor is gone: nothing more to report
                log.warning("the LLM services actor stopped answering: %s", exc)
                with self._cond:
                    self._failed = True
                    self._cond.notify_all()
                return
            for seq, kind, payload in events:
                if seq <= self._applied:
                    continue
                self._apply(kind, payload)
                with self._cond:
                    self._applied = seq
                    self._cond.notify_all()
            if closing:
                return

    def _apply(self, kind: str, payload: dict[str, Any]) -> None:
        settings = self._settings
        try:
            if kind == "charge" and settings.budget is not None:
                settings.budget.charge(LlmCallRecord.model_validate(payload))
            elif kind == "retry" and settings.on_retry is not None:
                from providers.cache import call_scope

                event = RetryEvent(
                    str(payload["provider"]),
                    int(payload["attempt"]),
                    float(payload["wait_s"]),
                    str(payload["reason"]),
                )
                with call_scope(str(payload["scope"])):
                    settings.on_retry(event)
        except Exception as exc:  # a malformed event must not stop the run
            log.warning("ignored a malformed %s event from a Ray task: %s", kind, exc)
