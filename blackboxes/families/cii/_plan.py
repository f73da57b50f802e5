"""CII's fixed exploration plan: greedy joint information under the prior, no feedback."""

from __future__ import annotations

import threading
from collections.abc import Sequence

from blackboxes.box import JSONValue
from blackboxes.families.cii._kinds import analysis
from blackboxes.families.cii._query import canonical
from blackboxes.families.cii._trace import answer
from blackboxes.information import VersionSpace, expected_information
from blackboxes.planning import greedy_joint_plan

__all__ = ["greedy_plan", "ranked_plan"]

_PLANS: dict[tuple[tuple[str, ...], str], tuple[JSONValue, ...]] = {}
_LOCK = threading.Lock()


def _plan(
    kinds: Sequence[str], candidates: Sequence[dict[str, JSONValue]], steps: int
) -> list[int]:
    # Every hypothesis of the prior mixture with its prior weight: kinds uniform, programs
    # uniform within a kind.
    weights: list[float] = []
    answers: list[list[int]] = [[] for _ in candidates]
    ids: dict[str, int] = {}
    for kind in kinds:
        a = analysis(kind)  # every kind here lists its behaviour classes
        share = 1.0 / (len(kinds) * len(a.hypotheses))
        for h in range(len(a.hypotheses)):
            weights.append(share)
            for c, x in enumerate(candidates):
                key = canonical(answer(a.memo.grouped(h, x["inputs"]), x))
                answers[c].append(ids.setdefault(key, len(ids)))
    return greedy_joint_plan(answers, weights, steps)


def greedy_plan(
    kinds: Sequence[str], candidates: Sequence[dict[str, JSONValue]], steps: int, key: str
) -> tuple[JSONValue, ...]:
    """``steps`` candidates, each the one whose answer (jointly with the answers of those
    before it) has the most entropy under the prior: the best plan that never looks at
    an answer, chosen greedily. Cached per ``(kinds, key)``."""
    cache_key = (tuple(kinds), key)
    with _LOCK:
        hit = _PLANS.get(cache_key)
        if hit is None:
            order = _plan(kinds, candidates, steps)
            hit = _PLANS[cache_key] = tuple(candidates[i] for i in order)
    return hit


def ranked_plan(
    space: VersionSpace, candidates: Sequence[dict[str, JSONValue]], key: str
) -> tuple[JSONValue, ...]:
    """For priors that cannot be listed: per input set its query of most expected
    information under ``space``, the sets best first (feedback-free). Cached per ``key``."""
    cache_key = (("ranked",), key)
    with _LOCK:
        hit = _PLANS.get(cache_key)
        if hit is None:
            best: dict[str, tuple[float, str, JSONValue]] = {}
            for x in candidates:
                # Rounded, so that float noise cannot reorder equally good queries.
                entry = (-round(expected_information(space, x), 9), canonical(x), x)
                inputs = canonical(x["inputs"])
                if inputs not in best or entry[:2] < best[inputs][:2]:
                    best[inputs] = entry
            ordered = sorted(best.values(), key=lambda e: e[:2])
            hit = _PLANS[cache_key] = tuple(x for _, _, x in ordered)
    return hit
