"""A turn@shot trajectory as the kind-independent :class:`EpisodeAnalysis`.

Steps are the exploration turns in the order they were taken (free re-asked replies
included, ``counted=False``); their information comes from
:func:`evaluator.kinds.turns.metrics.episode_information`, the box's own kind version
space, the same measure as the run summary's: a turn's realised bits are ``-log2
P(output)``, its expected bits the entropy of the predicted output, and
``log2_consistent`` log2 of the rules of the kind still consistent after it. Answers are
the held-out items.
"""

from __future__ import annotations

import json
import math
from typing import Any

from blackboxes.families import get_family
from blackboxes.information import output_key
from evaluator.analysis import AnswerView, EpisodeAnalysis, StepView, record_identity
from evaluator.kinds.turns.metrics import (
    EpisodeInformation,
    QueryInformation,
    bound_efficiency,
    episode_information,
)
from evaluator.kinds.turns.trajectory import ItemRecord, Trajectory, TurnRecord

__all__ = ["INVALID_KEY", "analyse_turns", "query_key"]

INVALID_KEY = "<invalid>"
"""The query key of a reply that did not parse."""

JSONValue = Any


def query_key(query: JSONValue) -> str:
    """The canonical key of a parsed query: compact JSON with sorted keys."""
    return json.dumps(query, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _information(traj: Trajectory) -> EpisodeInformation | None:
    if traj.log2_h is None:
        # An LLM-designed rule has no hypothesis space to measure information in.
        return None
    return episode_information(traj, get_family(traj.family))


def _after(rows: tuple[QueryInformation, ...], i: int, exact: bool) -> float | None:
    """log2 of the rules consistent after row ``i``: the next row's count before it, and
    for the last, the count before less the bits (equal within one uniform kind)."""
    if i + 1 < len(rows):
        value = rows[i + 1].log2_before
    elif exact:
        value = rows[i].log2_before - rows[i].realised
    else:
        return None
    return value if math.isfinite(value) else None


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def _step(
    position: int, turn: TurnRecord, row: QueryInformation | None, after: float | None
) -> StepView:
    note = None
    if not turn.counted:
        note = "invalid reply, not counted: asked again"
    elif turn.valid and turn.error_kind is not None:
        note = f"the box failed ({turn.error_kind})"
    return StepView(
        index=position,
        action=turn.text,
        result=turn.shown,
        valid=turn.answered,
        counted=turn.counted,
        bits=None if row is None else _finite(row.realised),
        expected_bits=None if row is None else _finite(max(0.0, row.expected)),
        log2_consistent=after,
        note=note,
    )


def _answer(item: ItemRecord) -> AnswerView:
    given = item.attempts[-1].text if item.attempts else ""
    return AnswerView(
        label=f"item {item.index}",
        given=given,
        expected=output_key(item.expected),
        correct=item.correct,
        attempts=len(item.attempts),
    )


def analyse_turns(traj: Trajectory, kind_name: str = "turns") -> EpisodeAnalysis:
    """``traj`` as an :class:`EpisodeAnalysis`: a pure function of the record and the
    family's trusted version space. ``info_total`` is None when the rule has no space
    (an LLM design) or an observed output was impossible under it (a box or count bug)."""
    info = _information(traj)
    rows = {q.turn: (i, q) for i, q in enumerate(info.queries)} if info is not None else {}
    steps: list[StepView] = []
    for position, turn in enumerate(traj.turns, start=1):
        found = rows.get(turn.index) if turn.answered else None
        row = after = None
        if found is not None and info is not None:
            i, row = found
            after = _after(info.queries, i, info.exact)
        steps.append(_step(position, turn, row, after))
    measured = info is not None and info.consistent
    info_total = sum(s.bits for s in steps if s.bits is not None) if measured else None
    identified = info.identified_at if info is not None and measured else None
    metrics: dict[str, float | None] = {
        "queries_used": float(traj.queries_used),
        "invalid_turns": float(traj.invalid_turns),
        "identified_at": None if identified is None else float(identified),
        "bound_efficiency": bound_efficiency(traj.t_info, identified) if measured else None,
    }
    return EpisodeAnalysis(
        **record_identity(traj),
        kind=kind_name,
        setting=f"{traj.spec.turns}@{traj.spec.shots} {traj.feedback}",
        budget=traj.spec.turns,
        feedback=traj.feedback,
        score=traj.accuracy,
        log2_h=traj.log2_h,
        t_info=traj.t_info,
        info_total=info_total,
        info_exact=info.exact if info is not None else True,
        query_keys=[query_key(t.query) if t.valid else INVALID_KEY for t in traj.turns],
        steps=steps,
        answers=[_answer(item) for item in traj.items],
        intro=traj.intro,
        metrics=metrics,
    )
