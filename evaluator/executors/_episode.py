"""One episode's play, the same wherever it runs: in a thread of the local executor or
in a Ray task on a worker node.

The box starts beside the agent's first model call (``evaluator._starts``); box calls
borrow pooled workers (``evaluator._pool``). A box that cannot start makes the kind's
failed record with that start's error, whatever the play did meanwhile; a spent budget
stops the episode unrecorded.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from evaluator._pool import BoxWorkerPool, PooledBox
from evaluator._starts import BoxStarts, gated_model_calls
from evaluator.executors._base import Played
from evaluator.failures import cause_of
from evaluator.usage import BudgetExhausted
from oracle_bench.errors import OracleBenchError

if TYPE_CHECKING:
    from blackboxes.store import Box
    from evaluator.kinds import EpisodeJobLike, KindRun

__all__ = ["play_job"]

log = logging.getLogger(__name__)


def play_job(
    kind_run: KindRun,
    pool: BoxWorkerPool,
    starts: BoxStarts,
    box: Box,
    job: EpisodeJobLike,
    scope: str,
) -> Played:
    """Play ``job`` on ``box`` with its LLM calls in the cache scope ``scope``.

    Raises only for a bug: a box's start-up failure other than an ``OracleBenchError``.
    """
    from providers.cache import call_scope

    with call_scope(scope):
        started = starts.start(box)
        stopped: str | None = None
        record = None
        try:
            with gated_model_calls(started):
                record = kind_run.play(box, job, PooledBox(pool, box, ready=started))
        except BudgetExhausted as exc:
            stopped = str(exc)
        error = started.exception()
        if isinstance(error, OracleBenchError):
            # SandboxCompileError or a failure while loading (box), isolation
            # unavailable or a worker that would not start (infrastructure): the
            # episode fails with that cause and the run goes on.
            cause = cause_of(error)
            log.info("box %s cannot start (%s): %s", box.info.id, cause, error)
            message = f"{type(error).__name__}: {error}"
            return Played(kind_run.cannot_start(box, job, message, cause))
        if error is not None:
            raise error  # not a box's start-up failure: a bug
        if stopped is not None:
            return Played(None, stopped)
    return Played(record)
