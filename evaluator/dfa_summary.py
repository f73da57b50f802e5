"""Aggregates of a DFA run: per agent x state bucket, plus one row per box and agent.

Recomputed from DFA trajectories only, like ``evaluator.summary``. Success rates are
averaged per box over its repetitions first, then over boxes, with the same seeded
bootstrap CI over boxes. Medians (MQ, EQ, counted calls) are over completed episodes;
the cost median is over successful ones. A box whose state count lies in no bucket gets
a bucket of its own (``"12"``), so nothing is dropped silently.
"""

from __future__ import annotations

import csv
import io
import itertools
import math
import re
import statistics
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field
from rich import box as rich_box
from rich.table import Table

from evaluator.dfa_metrics import (
    DEFAULT_SIMILARITY_LEN,
    PAPER_BUCKETS,
    DfaAggregateRow,
    DfaEpisodeMetrics,
    aggregate_dfa_metrics,
    dfa_episode_metrics,
    non_informative_rate_by_step,
)
from evaluator.dfa_trajectory import DfaTrajectory
from evaluator.summary import BOOTSTRAP_RESAMPLES, bootstrap_ci
from oracle_bench.errors import UsageError
from oracle_bench.jsonio import atomic_write_text, canonical_json

__all__ = [
    "DEFAULT_BUCKETS",
    "Bucket",
    "DfaBoxRow",
    "DfaGroupRow",
    "DfaSummary",
    "bucket_label",
    "bucket_of",
    "dfa_metrics_table",
    "dfa_summary_csv",
    "dfa_summary_table",
    "format_buckets",
    "parse_buckets",
    "summarise_dfa",
    "write_dfa_summary",
]

Bucket = tuple[int, int]
"""An inclusive range of target state counts."""
DEFAULT_BUCKETS: tuple[Bucket, ...] = PAPER_BUCKETS
"""The DFA seed's complexity levels."""

_DIGITS = 6
_RANGE = re.compile(r"\s*(\d+)\s*(?:-\s*(\d+)\s*)?")


def bucket_label(bucket: Bucket) -> str:
    """``"2-3"``, or ``"5"`` for a single state count."""
    lo, hi = bucket
    return str(lo) if lo == hi else f"{lo}-{hi}"


def format_buckets(buckets: Sequence[Bucket]) -> str:
    """Inverse of :func:`parse_buckets`: ``"2-3,4-5,6-7,8-9"``."""
    return ",".join(bucket_label(b) for b in buckets)


def parse_buckets(text: str) -> tuple[Bucket, ...]:
    """``"2-3,4-5,6-7,8-9"`` (or ``"5"`` for one count); disjoint, sorted by their start."""
    buckets: list[Bucket] = []
    for part in str(text).split(","):
        match = _RANGE.fullmatch(part)
        if match is None:
            raise UsageError(f"invalid buckets {text!r}: expected ranges like 2-3,4-5,6-7,8-9")
        lo = int(match.group(1))
        hi = int(match.group(2)) if match.group(2) is not None else lo
        if not 1 <= lo <= hi:
            raise UsageError(f"invalid bucket {part.strip()!r} in {text!r}: need 1 <= A <= B")
        buckets.append((lo, hi))
    buckets.sort()
    for (_, hi), (lo, _) in itertools.pairwise(buckets):
        if lo <= hi:
            raise UsageError(f"invalid buckets {text!r}: ranges overlap")
    return tuple(buckets)


def bucket_of(states: int, buckets: Sequence[Bucket]) -> Bucket:
    """The bucket holding ``states``, or ``(states, states)`` if none does."""
    for lo, hi in buckets:
        if lo <= states <= hi:
            return (lo, hi)
    return (states, states)


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class DfaBoxRow(_Model):
    """One box and one agent, averaged over its completed repetitions."""

    box_id: str
    states: int
    bucket: str
    agent: str
    episodes: int
    failed: int
    budget: int
    reference_cost: int
    success_rate: float | None
    mq: float | None
    """Counted membership queries (box faults included)."""
    eq: float | None
    calls: float | None
    """Counted calls (MQ + EQ)."""
    cost: float | None
    """Mean cost over successful episodes."""
    invalid_calls: float | None
    errors: list[str]


class DfaGroupRow(_Model):
    """One agent x state bucket."""

    agent: str
    bucket: str
    states_min: int
    states_max: int
    boxes: int
    """Boxes with at least one completed episode."""
    episodes: int
    failed: int
    success_rate: float | None
    success_ci_low: float | None
    success_ci_high: float | None
    mq_median: float | None
    eq_median: float | None
    calls_median: float | None
    cost_median: float | None
    """Over successful episodes."""
    cost_ratio_median: float | None
    """cost / reference cost (min of L* and TTT), over successful episodes."""
    invalid_calls_mean: float | None
    budget_median: float | None
    reference_cost_median: float | None


class DfaSummary(_Model):
    schema_version: int = 1
    kind: Literal["dfa"] = "dfa"
    suite: str
    seed: int
    repeats: int
    budget_factor: float
    buckets: list[str]
    confidence: float = 0.95
    bootstrap_resamples: int = BOOTSTRAP_RESAMPLES
    groups: list[DfaGroupRow]
    boxes: list[DfaBoxRow]
    similarity_len: int = DEFAULT_SIMILARITY_LEN
    """K of the best-hypothesis similarity in ``metrics``."""
    metrics: list[DfaAggregateRow] = Field(default_factory=list)
    """The automata-learning metrics per agent x bucket (``evaluator.dfa_metrics``)."""


def _r(value: float | None) -> float | None:
    if value is None or not math.isfinite(value):
        return None
    return round(value, _DIGITS)


def _mean(values: Iterable[float | None]) -> float | None:
    kept = [v for v in values if v is not None]
    return statistics.fmean(kept) if kept else None


def _median(values: Iterable[float | None]) -> float | None:
    kept = [v for v in values if v is not None]
    return float(statistics.median(kept)) if kept else None


def _tools(traj: DfaTrajectory) -> tuple[int, int]:
    counted = traj.counted()
    return sum(c.tool == "mq" for c in counted), sum(c.tool == "eq" for c in counted)


def summarise_dfa(
    trajectories: Iterable[DfaTrajectory],
    *,
    suite: str,
    seed: int,
    repeats: int,
    budget_factor: float,
    buckets: Sequence[Bucket] = DEFAULT_BUCKETS,
    metrics: Sequence[DfaEpisodeMetrics] | None = None,
    similarity_len: int = DEFAULT_SIMILARITY_LEN,
) -> DfaSummary:
    """Per-box and per agent x bucket aggregates of DFA trajectories.

    ``metrics`` (one per trajectory, in order) adds the automata-learning metrics rows;
    without it they are computed here, with similarity over words of length <=
    ``similarity_len``.
    """
    trajs = list(trajectories)
    if metrics is None:
        metrics = [dfa_episode_metrics(t, similarity_len=similarity_len) for t in trajs]
    by_box: dict[tuple[str, str], list[DfaTrajectory]] = defaultdict(list)
    for t in trajs:
        by_box[(t.box_id, t.agent)].append(t)

    rows: list[DfaBoxRow] = []
    done_by_group: dict[tuple[str, Bucket], list[DfaTrajectory]] = defaultdict(list)
    rows_by_group: dict[tuple[str, Bucket], list[DfaBoxRow]] = defaultdict(list)
    for (box_id, agent), eps in sorted(by_box.items()):
        done = [t for t in eps if t.status == "completed"]
        first = eps[0]
        bucket = bucket_of(first.states, buckets)
        tools = [_tools(t) for t in done]
        row = DfaBoxRow(
            box_id=box_id,
            states=first.states,
            bucket=bucket_label(bucket),
            agent=agent,
            episodes=len(eps),
            failed=len(eps) - len(done),
            budget=first.budget,
            reference_cost=first.reference_cost,
            success_rate=_r(_mean(float(t.success) for t in done)),
            mq=_r(_mean(m for m, _ in tools)),
            eq=_r(_mean(e for _, e in tools)),
            calls=_r(_mean(t.queries_used for t in done)),
            cost=_r(_mean(t.cost for t in done if t.success)),
            invalid_calls=_r(_mean(t.invalid_calls for t in done)),
            errors=sorted({t.error for t in eps if t.error}),
        )
        rows.append(row)
        rows_by_group[(agent, bucket)].append(row)
        done_by_group[(agent, bucket)].extend(done)

    groups: list[DfaGroupRow] = []
    for (agent, bucket), box_rows in sorted(rows_by_group.items()):
        done = done_by_group[(agent, bucket)]
        wins = [t for t in done if t.success]
        rates = [r.success_rate for r in box_rows if r.success_rate is not None]
        label = bucket_label(bucket)
        ci = bootstrap_ci(rates, seed, "dfa", agent, label)
        tools = [_tools(t) for t in done]
        groups.append(
            DfaGroupRow(
                agent=agent,
                bucket=label,
                states_min=min(r.states for r in box_rows),
                states_max=max(r.states for r in box_rows),
                boxes=len(rates),
                episodes=sum(r.episodes for r in box_rows),
                failed=sum(r.failed for r in box_rows),
                success_rate=_r(_mean(rates)),
                success_ci_low=_r(ci[0]) if ci else None,
                success_ci_high=_r(ci[1]) if ci else None,
                mq_median=_r(_median(m for m, _ in tools)),
                eq_median=_r(_median(e for _, e in tools)),
                calls_median=_r(_median(t.queries_used for t in done)),
                cost_median=_r(_median(t.cost for t in wins)),
                cost_ratio_median=_r(
                    _median(t.cost / t.reference_cost for t in wins if t.cost is not None)
                ),
                invalid_calls_mean=_r(_mean(t.invalid_calls for t in done)),
                budget_median=_r(_median(t.budget for t in done)),
                reference_cost_median=_r(_median(t.reference_cost for t in done)),
            )
        )
    present = sorted({bucket_of(t.states, buckets) for t in trajs} | set(buckets))
    rows_m = aggregate_dfa_metrics(trajs, present, metrics=list(metrics))
    return DfaSummary(
        suite=suite,
        seed=seed,
        repeats=repeats,
        budget_factor=budget_factor,
        buckets=[bucket_label(b) for b in present],
        groups=groups,
        boxes=rows,
        similarity_len=similarity_len,
        metrics=[m for m in rows_m if m.episodes or m.failed],
    )


def dfa_summary_csv(summary: DfaSummary) -> str:
    """The group rows as CSV (one header line)."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(DfaGroupRow.model_fields), lineterminator="\n")
    writer.writeheader()
    for row in summary.groups:
        writer.writerow({k: "" if v is None else v for k, v in row.model_dump().items()})
    return buffer.getvalue()


def write_dfa_summary(
    summary: DfaSummary,
    out_dir: Path,
    episode_metrics: Mapping[str, tuple[str, DfaEpisodeMetrics]] | None = None,
) -> None:
    """Write ``summary.json``, ``summary.csv`` and, given ``{trajectory file name: (agent,
    metrics)}``, ``metrics.json`` atomically into ``out_dir``.

    metrics.json holds ``episodes`` (every episode's metrics by file name) and
    ``non_informative_rate_by_step`` (per agent, ``[step, rate, episodes reaching it]``
    over the seed paper's three direct kinds).
    """
    out = Path(out_dir)
    atomic_write_text(out / "summary.json", canonical_json(summary.model_dump(mode="json")))
    atomic_write_text(out / "summary.csv", dfa_summary_csv(summary))
    if episode_metrics is not None:
        by_agent: dict[str, list[DfaEpisodeMetrics]] = defaultdict(list)
        for agent, m in episode_metrics.values():
            by_agent[agent].append(m)
        data = {
            "episodes": {
                name: m.model_dump(mode="json") for name, (_, m) in sorted(episode_metrics.items())
            },
            "non_informative_rate_by_step": {
                agent: [list(row) for row in non_informative_rate_by_step(ms)]
                for agent, ms in sorted(by_agent.items())
            },
        }
        atomic_write_text(out / "metrics.json", canonical_json(data))


def _fmt(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _ci(row: DfaGroupRow) -> str:
    if row.success_ci_low is None or row.success_ci_high is None:
        return "-"
    return f"{row.success_ci_low:.2f}-{row.success_ci_high:.2f}"


def dfa_summary_table(summary: DfaSummary) -> Table:
    """One row per agent x bucket: success rate and its 95% CI; medians of MQ, EQ, counted
    calls and (successes only) cost and cost / reference cost; mean invalid calls."""
    show_failed = any(g.failed for g in summary.groups)
    table = Table(
        title=(
            f"DFA · {summary.suite} · budget x{summary.budget_factor:g} of min(L*, TTT) · "
            f"seed {summary.seed}"
        ),
        title_justify="left",
        box=rich_box.SIMPLE_HEAVY,
        pad_edge=False,
        collapse_padding=True,
    )
    table.add_column("agent", no_wrap=True)
    table.add_column("states", no_wrap=True)
    headers = ["boxes", "success", "95% CI", "MQ", "EQ", "calls", "cost", "/ref", "inv."]
    for name in headers + (["failed"] if show_failed else []):
        table.add_column(name, justify="right", no_wrap=True)
    for g in summary.groups:
        cells = [
            g.agent,
            g.bucket,
            str(g.boxes),
            _fmt(g.success_rate, 2),
            _ci(g),
            _fmt(g.mq_median),
            _fmt(g.eq_median),
            _fmt(g.calls_median),
            _fmt(g.cost_median),
            _fmt(g.cost_ratio_median, 2),
            _fmt(g.invalid_calls_mean),
        ]
        table.add_row(*cells, *([str(g.failed)] if show_failed else []))
    return table


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.0f}%"


def dfa_metrics_table(summary: DfaSummary) -> Table:
    """One row per agent x bucket: success within 1x and 1.5x the reference cost, mean
    best-hypothesis similarity, the rate of non-informative calls, planning/reasoning
    failures, the share of episodes with more EQs than states, the share with strictly
    growing hypotheses, and the Myhill-Nerode compression precision / state distinction
    of the best hypothesis."""
    table = Table(
        title=f"automata-learning metrics (similarity over words of length <= "
        f"{summary.similarity_len})",
        title_justify="left",
        box=rich_box.SIMPLE_HEAVY,
        pad_edge=False,
        collapse_padding=True,
    )
    table.add_column("agent", no_wrap=True)
    table.add_column("states", no_wrap=True)
    headers = ["@1x", "@1.5x", "sim", "non-inf", "plan/rsn", "EQ>n", "grow", "MN c/d"]
    for name in headers:
        table.add_column(name, justify="right", no_wrap=True)
    for m in summary.metrics:
        mn = m.myhill_nerode_mean or {}
        comp, dist = mn.get("compression_precision"), mn.get("state_distinction")
        table.add_row(
            m.agent,
            m.bucket,
            _pct(m.success_at.get("1.0")),
            _pct(m.success_at.get("1.5")),
            _fmt(m.best_similarity_mean, 3),
            _pct(m.non_informative_rate),
            f"{m.planning_failures}/{m.reasoning_failures}",
            _pct(m.eq_exceeds_states_share),
            _pct(m.monotone_share),
            f"{_fmt(comp, 2)}/{_fmt(dist, 2)}",
        )
    return table
