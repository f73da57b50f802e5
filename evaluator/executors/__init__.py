"""Executors: where a run's episodes are played, as plug-ins looked up by name.

``local`` (the default) plays them in threads of this process; ``ray`` plays each as a
Ray task on a cluster and writes the records it returns. The runner hands an executor
an :class:`EpisodePlan` and :class:`EpisodeHooks` and never asks which one it has; the
results (trajectories, index, summaries) are the same byte for byte.
"""

from __future__ import annotations

from evaluator.executors._base import (
    EpisodeHooks,
    EpisodeOutcome,
    EpisodePlan,
    Executor,
    ExecutorFactory,
    Played,
    SuiteContext,
)
from evaluator.executors._episode import play_job
from evaluator.executors._registry import executor_names, make_executor, register_executor
from oracle_bench._executor import current_executor, use_executor

__all__ = [
    "EpisodeHooks",
    "EpisodeOutcome",
    "EpisodePlan",
    "Executor",
    "ExecutorFactory",
    "Played",
    "SuiteContext",
    "current_executor",
    "executor_names",
    "make_executor",
    "play_job",
    "register_executor",
    "use_executor",
]
