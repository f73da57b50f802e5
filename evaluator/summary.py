"""Aggregates of a run: per family x level x agent, plus one row per box and agent.

Everything here is recomputed from trajectories (the only input of every metric), so
``summary.json`` / ``summary.csv`` can be rebuilt without rerunning any agent. The
accuracy CI is a seeded percentile bootstrap over boxes (each box first averaged over
its repetitions), so the summary is deterministic too.
"""

from __future__ import annotations

import csv
import io
import math
import statistics
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from blackboxes.families import get_family
from evaluator.metrics import bound_violations, efficiency, episode_information
from evaluator.trajectory import Trajectory
from oracle_bench.jsonio import atomic_write_text, canonical_json
from oracle_bench.rng import rng_for

__all__ = [
    "BOOTSTRAP_RESAMPLES",
    "BoxRow",
    "GroupRow",
    "Summary",
    "bootstrap_ci",
    "summarise",
    "summary_csv",
    "write_summary",
]

BOOTSTRAP_RESAMPLES = 2000
_DIGITS = 6


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class BoxRow(_Model):
    """One box and one agent, averaged over its completed repetitions."""

    box_id: str
    family: str
    level: str
    rule_kind: str
    agent: str
    episodes: int
    failed: int
    accuracy: float | None
    queries_used: float | None
    invalid_turns: float | None
    t_info: int | None
    info_gained: float | None
    """Mean cumulative realised information (bits) under the box's own kind space."""
    efficiency: float | None
    """info_gained / the adaptive baseline's on the same box and repetitions."""
    bound_violations: int
    errors: list[str]


class GroupRow(_Model):
    """One family x level x agent."""

    family: str
    level: str
    agent: str
    boxes: int
    """Boxes with at least one completed episode."""
    episodes: int
    failed: int
    accuracy_mean: float | None
    accuracy_ci_low: float | None
    accuracy_ci_high: float | None
    queries_used_mean: float | None
    invalid_turns_mean: float | None
    t_info_mean: float | None
    info_gained_mean: float | None
    efficiency_mean: float | None
    bound_violations: int


class Summary(_Model):
    schema_version: int = 1
    suite: str
    spec: str
    feedback: str
    seed: int
    repeats: int
    confidence: float = 0.95
    bootstrap_resamples: int = BOOTSTRAP_RESAMPLES
    groups: list[GroupRow]
    boxes: list[BoxRow]


def _r(value: float | None) -> float | None:
    if value is None or not math.isfinite(value):
        return None
    return round(value, _DIGITS)


def _mean(values: Iterable[float | None]) -> float | None:
    kept = [v for v in values if v is not None and math.isfinite(v)]
    return statistics.fmean(kept) if kept else None


def bootstrap_ci(
    values: Sequence[float], seed: int, *parts: str | int, resamples: int = BOOTSTRAP_RESAMPLES
) -> tuple[float, float] | None:
    """Seeded 95% percentile bootstrap CI of the mean of ``values`` (None if empty)."""
    if not values:
        return None
    if len(values) == 1:
        return values[0], values[0]
    rng = rng_for(seed, "bootstrap", *parts)
    n = len(values)
    means = sorted(statistics.fmean(rng.choices(values, k=n)) for _ in range(resamples))
    low = means[math.floor(0.025 * (resamples - 1))]
    high = means[math.ceil(0.975 * (resamples - 1))]
    return low, high


@dataclass(frozen=True)
class _Episode:
    traj: Trajectory
    bits: float | None
    violations: int


def _measure(traj: Trajectory) -> _Episode:
    if traj.status != "completed" or traj.log2_h is None:
        # LLM-designed rules have no hypothesis space to measure information in.
        return _Episode(traj, None, 0)
    family = get_family(traj.family)
    info = episode_information(traj, family)
    bits = info.realised_total if info.consistent else None
    return _Episode(traj, bits, len(bound_violations(traj, info)))


def summarise(
    trajectories: Iterable[Trajectory],
    *,
    suite: str,
    spec: str,
    feedback: str,
    seed: int,
    repeats: int,
) -> Summary:
    """Per-box and per-group aggregates of a set of trajectories."""
    episodes = [_measure(t) for t in trajectories]
    by_box: dict[tuple[str, str], list[_Episode]] = defaultdict(list)
    for ep in episodes:
        by_box[(ep.traj.box_id, ep.traj.agent)].append(ep)
    adaptive_bits: dict[tuple[str, int], float] = {}
    for ep in episodes:
        if ep.traj.agent == "adaptive" and ep.bits is not None:
            adaptive_bits[(ep.traj.box_id, ep.traj.repetition)] = ep.bits

    rows: list[BoxRow] = []
    for (box_id, agent), eps in sorted(by_box.items()):
        done = [e for e in eps if e.traj.status == "completed"]
        first = eps[0].traj
        effs: list[float | None] = []
        for e in done:
            base = adaptive_bits.get((box_id, e.traj.repetition))
            if e.bits is not None and base is not None:
                effs.append(efficiency(e.bits, base))
        rows.append(
            BoxRow(
                box_id=box_id,
                family=first.family,
                level=first.level,
                rule_kind=first.rule_kind,
                agent=agent,
                episodes=len(eps),
                failed=len(eps) - len(done),
                accuracy=_r(_mean(e.traj.accuracy for e in done)),
                queries_used=_r(_mean(e.traj.queries_used for e in done)),
                invalid_turns=_r(_mean(e.traj.invalid_turns for e in done)),
                t_info=first.t_info,
                info_gained=_r(_mean(e.bits for e in done)),
                efficiency=_r(_mean(effs)),
                bound_violations=sum(e.violations for e in eps),
                errors=sorted({e.traj.error for e in eps if e.traj.error}),
            )
        )

    by_group: dict[tuple[str, str, str], list[BoxRow]] = defaultdict(list)
    for row in rows:
        by_group[(row.family, row.level, row.agent)].append(row)
    groups: list[GroupRow] = []
    for (family, level, agent), box_rows in sorted(by_group.items()):
        accs = [r.accuracy for r in box_rows if r.accuracy is not None]
        ci = bootstrap_ci(accs, seed, family, level, agent)
        groups.append(
            GroupRow(
                family=family,
                level=level,
                agent=agent,
                boxes=len(accs),
                episodes=sum(r.episodes for r in box_rows),
                failed=sum(r.failed for r in box_rows),
                accuracy_mean=_r(_mean(accs)),
                accuracy_ci_low=_r(ci[0]) if ci else None,
                accuracy_ci_high=_r(ci[1]) if ci else None,
                queries_used_mean=_r(_mean(r.queries_used for r in box_rows)),
                invalid_turns_mean=_r(_mean(r.invalid_turns for r in box_rows)),
                t_info_mean=_r(_mean(r.t_info for r in box_rows)),
                info_gained_mean=_r(_mean(r.info_gained for r in box_rows)),
                efficiency_mean=_r(_mean(r.efficiency for r in box_rows)),
                bound_violations=sum(r.bound_violations for r in box_rows),
            )
        )
    return Summary(
        suite=suite,
        spec=spec,
        feedback=feedback,
        seed=seed,
        repeats=repeats,
        groups=groups,
        boxes=rows,
    )


def summary_csv(summary: Summary) -> str:
    """The group rows as CSV (one header line)."""
    buffer = io.StringIO()
    fields = list(GroupRow.model_fields)
    writer = csv.DictWriter(buffer, fieldnames=fields, lineterminator="\n")
    writer.writeheader()
    for row in summary.groups:
        writer.writerow({k: "" if v is None else v for k, v in row.model_dump().items()})
    return buffer.getvalue()


def write_summary(summary: Summary, out_dir: Path) -> None:
    """Write ``summary.json`` and ``summary.csv`` atomically into ``out_dir``."""
    out = Path(out_dir)
    atomic_write_text(out / "summary.json", canonical_json(summary.model_dump(mode="json")))
    atomic_write_text(out / "summary.csv", summary_csv(summary))
