"""Box starts beside the episodes: the first model call overlaps the box's start, later
calls and box calls wait for it, a box that cannot start is recorded as before, and the
warmer starts boxes ahead only into free worker slots."""

from __future__ import annotations

import threading
from concurrent.futures import Future
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from blackboxes.families import get_family
from evaluator._pool import BoxWorkerPool, PooledBox
from evaluator._starts import BoxStarts, before_model_call, gated_model_calls
from evaluator.kinds.turns.trajectory import load_trajectory
from evaluator.llm_agents import LlmAgentSettings
from evaluator.runner import evaluate_suite
from evaluator.spec import TurnShot
from oracle_bench.errors import SandboxCompileError
from oracle_bench.rng import rng_for
from providers._base import SCOPE_HEADER
from providers.loopback import LoopbackServer

MODEL = "openai/test-model"


def _box(box_id: str) -> Any:
    return SimpleNamespace(info=SimpleNamespace(id=box_id))


class _Worker:
    layers = frozenset({"process"})

    def __init__(self, box_id: str) -> None:
        self.box_id = box_id
        self.closed = False
        self.calls = 0

    def call(self, x: Any) -> Any:
        self.calls += 1
        return ("ok", x)

    def close(self) -> None:
        self.closed = True


class _WatchedFuture(Future[None]):
    """A future that tells when a thread starts to wait for its result."""

    def __init__(self) -> None:
        super().__init__()
        self.waited = threading.Event()

    def result(self, timeout: float | None = None) -> None:
        self.waited.set()
        return super().result(timeout)


def test_the_first_model_call_passes_and_later_ones_wait_for_the_start() -> None:
    started = _WatchedFuture()
    first, second = threading.Event(), threading.Event()

    def episode() -> None:
        with gated_model_calls(started):
            before_model_call()
            first.set()
            before_model_call()
            second.set()

    thread = threading.Thread(target=episode)
    thread.start()
    assert started.waited.wait(timeout=30)  # the second call is waiting for the start
    assert first.is_set() and not second.is_set()
    started.set_result(None)
    thread.join(timeout=30)
    assert second.is_set()
    before_model_call()  # outside an episode: never waits


def test_a_failed_start_stops_later_model_calls_with_its_error() -> None:
    started: Future[None] = Future()
    started.set_exception(SandboxCompileError("nope"))
    with gated_model_calls(started):
        before_model_call()  # the first call went out before the start failed
        with pytest.raises(SandboxCompileError):
            before_model_call()


def test_a_pooled_box_waits_for_its_start_and_raises_its_error() -> None:
    workers: list[_Worker] = []

    def start(box: Any) -> _Worker:
        workers.append(_Worker(box.info.id))
        return workers[-1]

    pool = BoxWorkerPool(4, start)
    failed: Future[None] = Future()
    failed.set_exception(SandboxCompileError("nope"))
    with pytest.raises(SandboxCompileError):
        PooledBox(pool, _box("broken"), ready=failed).call(1)
    assert workers == []  # no second start of a box that could not start
    ready = _WatchedFuture()
    env = PooledBox(pool, _box("a"), ready)
    result: list[Any] = []
    caller = threading.Thread(target=lambda: result.append(env.call(2)))
    caller.start()
    assert ready.waited.wait(timeout=30)
    assert workers == [] and result == []  # the call waits for the box's start
    pool.check(_box("a"))
    ready.set_result(None)
    caller.join(timeout=30)
    assert result == [("ok", 2)] and len(workers) == 1  # the call used the started worker
    pool.close()


def test_warm_starts_into_free_slots_only_and_keeps_start_errors() -> None:
    workers: list[_Worker] = []

    def start(box: Any) -> _Worker:
        if box.info.id == "broken":
            raise SandboxCompileError("nope")
        workers.append(_Worker(box.info.id))
        return workers[-1]

    pool = BoxWorkerPool(2, start)
    assert pool.warm(_box("a")) and pool.warm(_box("a")) and len(workers) == 1
    assert pool.warm(_box("broken"))  # checked: its error is kept for the episodes
    with pytest.raises(SandboxCompileError):
        pool.check(_box("broken"))
    assert pool.warm(_box("b")) and pool.live == 2
    # Full: nothing is evicted, and the box is not marked as started.
    assert not pool.warm(_box("c"))
    assert not any(w.closed for w in workers) and pool.live == 2 and len(workers) == 2
    pool.check(_box("c"))  # an episode's own start still evicts the least recently used
    assert workers[0].closed and workers[-1].box_id == "c"
    pool.close()
    assert not pool.warm(_box("d"))


def test_box_starts_start_each_box_once_and_warm_in_order() -> None:
    order: list[str] = []

    def start(box: Any) -> _Worker:
        order.append(box.info.id)
        return _Worker(box.info.id)

    pool = BoxWorkerPool(8, start)
    starts = BoxStarts(pool, 4)
    futures = [starts.start(_box("a")) for _ in range(5)]
    assert all(f is futures[0] for f in futures)
    futures[0].result(timeout=30)
    done = threading.Event()
    boxes = [_box(name) for name in ("a", "b", "c")]
    starts.warm(boxes, lambda: not done.is_set())
    starts.close()  # waits for the warmer
    assert order == ["a", "b", "c"]
    pool.close()


def _script(turns: int) -> list[dict[str, Any]]:
    eri = get_family("ERI")
    rng = rng_for(0, "starts-test")
    lines = [
        {"tool_calls": [{"id": f"q{i}", "name": "query", "arguments": {"input": q}}]}
        for i, q in enumerate(eri.format_query(eri.random_query(rng)) for _ in range(turns))
    ]
    lines += [
        {"tool_calls": [{"id": f"a{i}", "name": "answer", "arguments": {"output": str(i)}}]}
        for i in range(8)
    ]
    return lines


def test_a_box_that_cannot_start_costs_an_llm_agent_one_call_and_is_recorded_as_before(
    tmp_path: Path, suite_builder: Any
) -> None:
    suite = suite_builder(
        tmp_path, n=2, seed=5, name="half-broken", code_override={0: "def blackbox(x):\n"}
    )
    # Deferred feedback: three model calls before the first box call.
    with LoopbackServer(_script(3), per_conversation=True) as server:
        result = evaluate_suite(
            suite,
            [MODEL],
            TurnShot(3, 1),
            "deferred",
            0,
            tmp_path / "out",
            concurrency=2,
            llm=LlmAgentSettings(base_url=server.openai_base_url),
        )
        scopes = [r.headers.get(SCOPE_HEADER, "") for r in server.requests]
    broken, good = (load_trajectory(p) for p in result.trajectories)
    assert broken.status == "failed" and broken.failure == "box"
    assert broken.error is not None and "SandboxCompileError" in broken.error
    assert broken.llm_calls == [] and broken.turns == []
    assert good.status == "completed" and len(good.llm_calls) == 3 + 8
    assert sum(s.startswith("eri-easy-000/") for s in scopes) == 1
    assert sum(s.startswith("eri-easy-001/") for s in scopes) == 3 + 8
