"""PSI's fixed plan: the times whose answers, jointly, say most about the prior."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from blackboxes.families.psi._kind import TIMES
from blackboxes.families.psi._kinds import KINDS
from blackboxes.families.psi._table import table_of
from blackboxes.planning import greedy_joint_plan

__all__ = ["greedy_times"]


@lru_cache(maxsize=64)
def greedy_times(kinds: tuple[str, ...], steps: int) -> tuple[float, ...]:
    """``steps`` query times (at most 201), chosen greedily by joint entropy under the
    prior of ``kinds`` (uniform over kinds, then over each kind's grid)."""
    cells = [table_of(KINDS[k]).cells for k in kinds]
    weights = np.concatenate([np.full(len(c), 1.0 / (len(kinds) * len(c))) for c in cells])
    stacked = np.concatenate(cells, axis=0)
    answers = np.stack(
        [
            np.unique(stacked[:, i, :], axis=0, return_inverse=True)[1].ravel()
            for i in range(len(TIMES))
        ]
    )
    order = greedy_joint_plan(answers.astype(np.int64), weights, min(steps, len(TIMES)))
    return tuple(TIMES[i] for i in order)
