"""Inspect AI adapter: a suite as an Inspect task, an Inspect log as a run to report.

``inspect eval oracle_bench/oracle -T suite=DIR -T spec=20@2 --model openai/gpt-4o``
plays every (box, repetition) of the suite as one sample: our own episode protocol
(prompts, tools, parsing, scoring) with every model call made by Inspect's model
(through the ``inspect/<model>`` provider), scored by the episode kind's own score, the
episode's record kept in the score's metadata so that ``oracle-eval report LOG.eval``
reports the log as it reports a run folder. Needs the ``inspect`` extra; nothing else
in oracle-bench imports this package.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from oracle_bench._lazy import lazy_exports

if TYPE_CHECKING:
    from evaluator.integrations.inspect._log import (
        InspectLogError,
        is_inspect_log,
        load_inspect_log,
    )
    from evaluator.integrations.inspect._task import TASK_NAME, oracle
else:
    __getattr__, __dir__ = lazy_exports(
        __name__,
        {
            "evaluator.integrations.inspect._log": (
                "InspectLogError",
                "is_inspect_log",
                "load_inspect_log",
            ),
            "evaluator.integrations.inspect._task": ("TASK_NAME", "oracle"),
        },
    )

__all__ = ["TASK_NAME", "InspectLogError", "is_inspect_log", "load_inspect_log", "oracle"]
