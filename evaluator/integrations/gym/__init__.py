"""Boxes as gymnasium environments: text observations, text actions, seeded resets.

>>> from evaluator.integrations.gym import make_env
>>> env = make_env("suites/demo-ERI-easy", box=0, spec="10@1")     # doctest: +SKIP
>>> text, info = env.reset(seed=0)                                   # doctest: +SKIP
>>> text, reward, terminated, truncated, info = env.step("hello")    # doctest: +SKIP
>>> env.close()                                                      # doctest: +SKIP

or, registered: ``register_env(suite=..., spec=...)`` then
``gymnasium.make("oracle-bench/Box-v0")``. An episode is the text episode of
:meth:`evaluator.dataset.BoxItem.episode` (what ``oracle-play`` shows and records);
:class:`BoxEnv` documents rewards, termination, ``info`` and hostile actions. Needs the
``gym`` extra; nothing else in oracle-bench imports gymnasium.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from oracle_bench._lazy import lazy_exports

if TYPE_CHECKING:
    from evaluator.integrations.gym._env import (
        DEFAULT_MAX_OBSERVATION_LENGTH,
        ENV_ID,
        BoxEnv,
        make_env,
        register_env,
    )
    from evaluator.integrations.gym._episodes import (
        DEFAULT_MAX_ACTION_LENGTH,
        DEFAULT_REPEATS,
        SessionTurn,
        TextSession,
    )
else:
    __getattr__, __dir__ = lazy_exports(
        __name__,
        {
            "evaluator.integrations.gym._env": (
                "DEFAULT_MAX_OBSERVATION_LENGTH",
                "ENV_ID",
                "BoxEnv",
                "make_env",
                "register_env",
            ),
            "evaluator.integrations.gym._episodes": (
                "DEFAULT_MAX_ACTION_LENGTH",
                "DEFAULT_REPEATS",
                "SessionTurn",
                "TextSession",
            ),
        },
    )

__all__ = [
    "DEFAULT_MAX_ACTION_LENGTH",
    "DEFAULT_MAX_OBSERVATION_LENGTH",
    "DEFAULT_REPEATS",
    "ENV_ID",
    "BoxEnv",
    "SessionTurn",
    "TextSession",
    "make_env",
    "register_env",
]
