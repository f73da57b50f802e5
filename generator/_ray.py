"""Candidates as Ray tasks (``oracle-gen --executor ray``).

Each candidate's graph runs in a Ray task on whichever node Ray places it: the task
gets the family, the backend and the graph settings (once per run, through the object
store) and the candidate, builds the graph there (~10 ms) and returns the graph's final
state. The driver commits the outcomes in index order exactly as with local threads, so
the suite is byte for byte the same. Only backends without per-run state on the
driver's disk run here (the procedural backend): the ``llm`` backend's checkpoints and
call cache are SQLite files of the suite folder.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import Future
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from oracle_bench._executor import ray_session
from oracle_bench.errors import ExecutorError

if TYPE_CHECKING:
    from blackboxes.families import Family
    from generator.backends import Backend
    from generator.graph import GraphSettings
    from generator.suite import _Candidate, _Outcome

__all__ = ["ray_candidates"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class _Shared:
    family: Family
    backend: Backend
    settings: GraphSettings
    max_attempts: int


def _play_candidate(shared: _Shared, cand: _Candidate) -> _Outcome:
    """In a Ray task: run one candidate's graph (no checkpoints)."""
    from generator.graph import build_graph
    from generator.suite import _run_candidate

    app = build_graph(shared.family, shared.backend, shared.settings, checkpointer=None)
    return _run_candidate(app, cand, shared.max_attempts, False)


@contextmanager
def ray_candidates(
    options: Mapping[str, Any],
    family: Family,
    backend: Backend,
    settings: GraphSettings,
    max_attempts: int,
) -> Iterator[Callable[[_Candidate], Future[_Outcome]]]:
    """``submit(candidate)`` -> the future of its outcome, run as a Ray task; tasks
    still running when the block ends are cancelled."""
    with ray_session(options.get("address")) as ray:
        shared = ray.put(_Shared(family, backend, settings, max_attempts))
        task = ray.remote(_play_candidate).options(num_cpus=1, max_retries=0)
        refs: list[Any] = []

        def submit(cand: _Candidate) -> Future[_Outcome]:
            ref = task.remote(shared, cand)
            refs.append(ref)
            future: Future[_Outcome] = Future()

            def settle(done: Future[Any]) -> None:
                error = done.exception()
                if error is None:
                    future.set_result(done.result())
                    return
                # An exception escaping the graph, or a worker that died: one line, the
                # suite left resumable (the candidate was not committed).
                text = " ".join(str(error).split())[:300] or type(error).__name__
                why = f"{cand.box_id}: a Ray task failed: {type(error).__name__}: {text}"
                future.set_exception(ExecutorError(why))

            ref.future().add_done_callback(settle)
            return future

        try:
            yield submit
        finally:
            for ref in refs:
                ray.cancel(ref)  # a no-op for a finished task
