"""Feedback-free exploration plans chosen by joint information under a prior."""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["greedy_joint_plan"]


def _entropy(weights: dict[int, float]) -> float:
    return -sum(w * math.log2(w) for w in weights.values() if w > 0.0)


def _best(
    answers: Sequence[Sequence[int]],
    weights: Sequence[float],
    labels: Sequence[int],
    width: int,
    chosen: Sequence[int],
) -> tuple[int, float]:
    best, best_h = -1, -1.0
    for c, row in enumerate(answers):
        if c in chosen:
            continue
        cells: dict[int, float] = {}
        for label, y, w in zip(labels, row, weights, strict=True):
            cell = label * width + y
            cells[cell] = cells.get(cell, 0.0) + w
        # Rounded, so that float noise cannot reorder equally good candidates.
        score = round(_entropy(cells), 9)
        if score > best_h:
            best, best_h = c, score
    return best, best_h


def greedy_joint_plan(
    answers: Sequence[Sequence[int]],
    weights: Sequence[float],
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
    labels = [0] * len(weights)
    current = 0.0
    chosen: list[int] = []
    width = 1 + max((max(row, default=0) for row in answers), default=0)
    for _ in range(min(steps, len(answers))):
        best, best_h = _best(answers, weights, labels, width, chosen)
        if best_h <= current + 1e-9 and any(labels):
            if not restart:
                break
            labels, current = [0] * len(weights), 0.0
            best, best_h = _best(answers, weights, labels, width, chosen)
        current = best_h
        chosen.append(best)
        # Relabel to the refined partition (labels stay small: cell ranks).
        cells_of: dict[int, int] = {}
        labels = [
            cells_of.setdefault(label * width + y, len(cells_of))
            for label, y in zip(labels, answers[best], strict=True)
        ]
    return chosen
