"""Feedback-free exploration plans chosen by joint information under a prior."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = ["greedy_joint_plan"]

_DENSE_CELLS = 1 << 22
"""Below this many (label, answer) pairs a candidate's cells are counted by direct
indexing; above it, by sorting (the partition is fine by then)."""


def _scores(
    answers: npt.NDArray[np.int64],
    weights: npt.NDArray[np.float64],
    labels: npt.NDArray[np.int64],
    cells: int,
    width: int,
    chosen: Sequence[int],
) -> list[float]:
    """Every candidate's joint entropy with the current partition (-1 if chosen)."""
    import numpy as np

    scores = []
    for c in range(answers.shape[0]):
        if c in chosen:
            scores.append(-1.0)
            continue
        keys = labels * width + answers[c]
        if cells * width <= _DENSE_CELLS:
            mass = np.bincount(keys, weights=weights, minlength=1)
        else:
            mass = np.bincount(np.unique(keys, return_inverse=True)[1], weights=weights)
        mass = mass[mass > 0.0]
        # Rounded, so that float noise cannot reorder equally good candidates.
        scores.append(round(float(-(mass * np.log2(mass)).sum()), 9))
    return scores


def greedy_joint_plan(
    answers: Sequence[Sequence[int]] | npt.NDArray[np.int64],
    weights: Sequence[float] | npt.NDArray[np.float64],
    steps: int,
    *,
    restart: bool = True,
) -> list[int]:
    """Indices of ``steps`` candidate queries, each the one whose answer, jointly with the
    answers of those chosen before it, has the most entropy under the prior.

    ``answers[c][h]`` is an id of hypothesis ``h``'s answer to candidate ``c`` and
    ``weights[h]`` its prior probability. No answer is ever looked at: this is the best plan
    that ignores feedback, chosen greedily (ties go to the earlier candidate). When no
    candidate adds information any more (the chosen answers tell every hypothesis apart),
    the partition starts afresh with ``restart``, or the plan ends there without it (for
    a prior that is only a sample, whose later picks would be noise).
    """
    import numpy as np

    table = np.asarray(answers, dtype=np.int64)
    if table.ndim != 2 or table.shape[0] == 0:
        return []
    # Answer ids as ranks per candidate, so a (label, answer) key stays below H^2.
    table = np.stack([np.unique(row, return_inverse=True)[1] for row in table]).astype(np.int64)
    w = np.asarray(weights, dtype=np.float64)
    width = int(table.max()) + 1
    labels = np.zeros(table.shape[1], dtype=np.int64)
    cells, current = 1, 0.0
    chosen: list[int] = []
    for _ in range(min(steps, table.shape[0])):
        scores = _scores(table, w, labels, cells, width, chosen)
        best = max(range(len(scores)), key=lambda c: (scores[c], -c))
        if scores[best] <= current + 1e-9 and cells > 1:
            if not restart:
                break
            labels, cells, current = np.zeros_like(labels), 1, 0.0
            scores = _scores(table, w, labels, cells, width, chosen)
            best = max(range(len(scores)), key=lambda c: (scores[c], -c))
        current = scores[best]
        chosen.append(best)
        # Relabel to the refined partition (labels stay small: cell ranks).
        _, labels = np.unique(labels * width + table[best], return_inverse=True)
        labels = labels.astype(np.int64)
        cells = int(labels.max()) + 1
    return chosen
