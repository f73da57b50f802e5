"""Aggregates of a DFA run: per agent x state bucket, per agent, per box x agent.

Recomputed from DFA trajectories only, like the turn@shot summary. Success rates are
averaged per box over its repetitions first, then over boxes; the 95% interval is the
same seeded two-level bootstrap over boxes and repetitions
(:func:`evaluator.reporting.hierarchical_bootstrap_ci`, stream ``("dfa", agent, bucket)``),
which with one repetition per box is the plain bootstrap over boxes. Medians (MQ, EQ,
counted calls) are over completed episodes; the cost median is over successful ones. A
box whose state count lies in no bucket gets a bucket of its own (``"12"``), so nothing
is dropped silently. The ``overall`` rows pool every bucket of an agent (bucket
``"all"``). Usage columns as in ``evaluator.kinds.turns.summary``.
"""

from __future__ import annotations

import csv
import io
import math
import statistics
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from rich import box as rich_box
from rich.table import Table

from evaluator.failures import FailureRow, failed_boxes, failure_counts, failure_rows, scored
from evaluator.kinds.dfa._defaults import (
    DEFAULT_BUCKETS,
    Bucket,
    bucket_label,
    format_buckets,
    parse_buckets,
)
from evaluator.kinds.dfa.metrics import (
    DEFAULT_SIMILARITY_LEN,
    DfaAggregateRow,
    DfaEpisodeMetrics,
    aggregate_dfa_metrics,
    dfa_episode_metrics,
    non_informative_rate_by_step,
)
from evaluator.kinds.dfa.trajectory import DfaTrajectory
from evaluator.reporting import (
    ALL_LEVELS,
    BOOTSTRAP_RESAMPLES,
    FAILED_HEADER,
    ci_text,
    failed_cell,
    hierarchical_bootstrap_ci,
    rows_csv,
    run_usage,
    suite_seed_of,
    title_tail,
    usage_columns,
    usage_table,
)
from evaluator.usage import UsageTotals
from oracle_bench.jsonio import atomic_write_text, canonical_json

__all__ = [
    "DEFAULT_BUCKETS",
    "Bucket",
    "DfaBoxRow",
    "DfaGroupRow",
    "DfaSummary",
    "bucket_label",
    "bucket_of",
    "dfa_boxes_csv",
    "dfa_metrics_csv",
    "dfa_metrics_table",
    "dfa_run_columns",
    "dfa_summary_csv",
    "dfa_summary_table",
    "dfa_usage_table",
    "format_buckets",
    "parse_buckets",
    "summarise_dfa",
    "write_dfa_summary",
]

_DIGITS = 6


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
    failed_agent: int = 0
    """Failed through the agent: scored as a failure (see evaluator.failures)."""
    failed_box: int = 0
    """Failed through the box (a suite error)."""
    failed_infrastructure: int = 0
    """Failed through providers or the sandbox: not scored, retried on resume."""
    excluded: bool = False
    """The box failed in some episode of the run (any agent): left out for every agent."""
    budget: int
    reference_cost: int
    success_rate: float | None
    """Over the scored repetitions (completed, and agent failures as failures)."""
    mq: float | None
    """Counted membership queries (box faults included)."""
    eq: float | None
    calls: float | None
    """Counted calls (MQ + EQ)."""
    cost: float | None
    """Mean cost over successful episodes."""
    invalid_calls: float | None
    errors: list[str]
    tokens_mean: float | None = None
    """LLM tokens per episode (input + output + cache read/write)."""
    cost_usd_mean: float | None = None
    """Dollars per priced episode."""
    cost_usd_total: float | None = None
    llm_calls_mean: float | None = None
    """Provider calls per episode, re-asks included."""
    retries_total: int = 0
    """Waits of the provider retry layer (429, 5xx, timeouts...)."""


class DfaGroupRow(_Model):
    """One agent x state bucket (bucket ``"all"``: every bucket of the agent)."""

    agent: str
    bucket: str
    states_min: int
    states_max: int
    boxes: int
    """Boxes with a score (at least one scored episode, not left out)."""
    episodes: int
    failed: int
    failed_agent: int = 0
    failed_box: int = 0
    failed_infrastructure: int = 0
    boxes_excluded: int = 0
    """Boxes left out because they failed (a suite error), for every agent alike."""
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
    tokens_mean: float | None = None
    cost_usd_mean: float | None = None
    cost_usd_total: float | None = None
    llm_calls_mean: float | None = None
    retries_total: int = 0


class DfaSummary(_Model):
    schema_version: int = 2
    kind: Literal["dfa"] = "dfa"
    suite: str
    seed: int
    """The run's seed; the bootstrap's too unless ``bootstrap_seed`` is set."""
    repeats: int
    budget_factor: float
    buckets: list[str]
    bootstrap_seed: int | None = None
    """Set when a report re-drew the intervals with another seed (``--seed``)."""
    confidence: float = 0.95
    bootstrap_resamples: int = BOOTSTRAP_RESAMPLES
    groups: list[DfaGroupRow]
    """Per agent x bucket."""
    overall: list[DfaGroupRow] = Field(default_factory=list)
    """Per agent over every bucket (bucket ``"all"``)."""
    boxes: list[DfaBoxRow]
    usage: UsageTotals = Field(default_factory=UsageTotals)
    """The run's LLM usage: the sum over every trajectory."""
    similarity_len: int = DEFAULT_SIMILARITY_LEN
    """K of the best-hypothesis similarity in ``metrics``."""
    metrics: list[DfaAggregateRow] = Field(default_factory=list)
    """The automata-learning metrics per agent x bucket (``evaluator.kinds.dfa.metrics``)."""
    failures: list[FailureRow] = Field(default_factory=list)
    """Every failed episode with its cause and error."""
    excluded_boxes: list[str] = Field(default_factory=list)
    """Boxes that failed in some episode (cause ``box``): left out of every score."""
    suite_seed: int | Literal["secret"] | None = None
    """The suite's seed when public, ``"secret"`` otherwise; None when not recorded."""


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


@dataclass(frozen=True)
class _Box:
    row: DfaBoxRow
    bucket: Bucket
    done: list[DfaTrajectory]
    """Completed repetitions, in repetition order (empty for a box left out)."""
    scores: list[float]
    """Scored repetitions' success (agent failures as 0), in repetition order."""
    usages: list[UsageTotals | None]


def _group_row(agent: str, label: str, items: Sequence[_Box], seed: int) -> DfaGroupRow:
    every = [b.row for b in items]
    rows = [r for r in every if not r.excluded]
    done = [t for b in items for t in b.done]
    wins = [t for t in done if t.success]
    rates = [r.success_rate for r in rows if r.success_rate is not None]
    ci = hierarchical_bootstrap_ci([b.scores for b in items], seed, "dfa", agent, label)
    tools = [_tools(t) for t in done]
    return DfaGroupRow(
        agent=agent,
        bucket=label,
        states_min=min(r.states for r in every),
        states_max=max(r.states for r in every),
        boxes=len(rates),
        episodes=sum(r.episodes for r in every),
        failed=sum(r.failed for r in every),
        failed_agent=sum(r.failed_agent for r in every),
        failed_box=sum(r.failed_box for r in every),
        failed_infrastructure=sum(r.failed_infrastructure for r in every),
        boxes_excluded=sum(r.excluded for r in every),
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
        **usage_columns(u for b in items for u in b.usages).model_dump(),
    )


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
    bootstrap_seed: int | None = None,
) -> DfaSummary:
    """Per-box, per agent x bucket and per-agent aggregates of DFA trajectories.

    ``metrics`` (one per trajectory, in order) adds the automata-learning metrics rows;
    without it they are computed here, with similarity over words of length <=
    ``similarity_len``. The order of ``trajectories`` does not matter.
    ``bootstrap_seed`` (default: ``seed``) seeds the intervals.
    """
    trajs = list(trajectories)
    if metrics is None:
        metrics = [dfa_episode_metrics(t, similarity_len=similarity_len) for t in trajs]
    if len(metrics) != len(trajs):
        raise ValueError(f"{len(metrics)} metrics for {len(trajs)} trajectories")
    pairs = sorted(
        zip(trajs, metrics, strict=True), key=lambda p: (p[0].box_id, p[0].agent, p[0].repetition)
    )
    trajs = [t for t, _ in pairs]
    excluded = failed_boxes(trajs)
    by_box: dict[tuple[str, str], list[DfaTrajectory]] = defaultdict(list)
    for t in trajs:
        by_box[(t.box_id, t.agent)].append(t)

    boxes: list[_Box] = []
    for (box_id, agent), eps in sorted(by_box.items()):
        out = box_id in excluded
        done = [] if out else [t for t in eps if t.status == "completed"]
        # Agent failures count as unsuccessful; box and infrastructure failures are not scored.
        scores = [] if out else [float(t.success) for t in eps if scored(t)]
        first = eps[0]
        bucket = bucket_of(first.states, buckets)
        tools = [_tools(t) for t in done]
        usages = [t.usage for t in eps]
        row = DfaBoxRow(
            box_id=box_id,
            states=first.states,
            bucket=bucket_label(bucket),
            agent=agent,
            episodes=len(eps),
            failed=sum(t.status == "failed" for t in eps),
            **failure_counts(eps),
            excluded=out,
            budget=first.budget,
            reference_cost=first.reference_cost,
            success_rate=_r(_mean(scores)),
            mq=_r(_mean(m for m, _ in tools)),
            eq=_r(_mean(e for _, e in tools)),
            calls=_r(_mean(t.queries_used for t in done)),
            cost=_r(_mean(t.cost for t in done if t.success)),
            invalid_calls=_r(_mean(t.invalid_calls for t in done)),
            errors=sorted({t.error for t in eps if t.error}),
            **usage_columns(usages).model_dump(),
        )
        boxes.append(_Box(row, bucket, done, scores, usages))

    boot = seed if bootstrap_seed is None else bootstrap_seed
    by_group: dict[tuple[str, Bucket], list[_Box]] = defaultdict(list)
    by_agent: dict[str, list[_Box]] = defaultdict(list)
    for b in boxes:
        by_group[(b.row.agent, b.bucket)].append(b)
        by_agent[b.row.agent].append(b)
    groups = [
        _group_row(agent, bucket_label(bucket), items, boot)
        for (agent, bucket), items in sorted(by_group.items())
    ]
    overall = [
        _group_row(agent, ALL_LEVELS, items, boot) for agent, items in sorted(by_agent.items())
    ]
    present = sorted({bucket_of(t.states, buckets) for t in trajs} | set(buckets))
    kept = [(t, m) for t, m in pairs if t.box_id not in excluded]
    rows_m = aggregate_dfa_metrics([t for t, _ in kept], present, metrics=[m for _, m in kept])
    return DfaSummary(
        suite=suite,
        seed=seed,
        repeats=repeats,
        budget_factor=budget_factor,
        buckets=[bucket_label(b) for b in present],
        bootstrap_seed=bootstrap_seed,
        groups=groups,
        overall=overall,
        boxes=[b.row for b in boxes],
        similarity_len=similarity_len,
        metrics=[m for m in rows_m if m.episodes or m.failed],
        usage=run_usage(t.usage for t in trajs),
        failures=failure_rows(trajs),
        excluded_boxes=sorted(excluded),
        suite_seed=suite_seed_of(trajs),
    )


def dfa_run_columns(summary: DfaSummary) -> dict[str, Any]:
    """The columns that say which run a CSV row comes from (first in every CSV)."""
    return {
        "suite": summary.suite,
        "suite_seed": summary.suite_seed,
        "budget_factor": summary.budget_factor,
        "seed": summary.seed,
        "repeats": summary.repeats,
        "bootstrap_seed": summary.bootstrap_seed,
    }


def dfa_summary_csv(summary: DfaSummary) -> str:
    """The group rows, then the per-agent rows (bucket ``all``), as CSV."""
    return rows_csv(DfaGroupRow, [*summary.groups, *summary.overall], dfa_run_columns(summary))


def dfa_boxes_csv(summary: DfaSummary) -> str:
    """One row per box x agent as CSV."""
    return rows_csv(DfaBoxRow, summary.boxes, dfa_run_columns(summary))


def dfa_metrics_csv(summary: DfaSummary) -> str:
    """The automata-learning metrics rows (agent x bucket) as CSV: nested figures become
    columns of their own (``success_at_1.5``, ``mn_compression_precision``), plus the
    similarity length K."""
    mn_names: list[str] = []
    for row in summary.metrics:
        for name in row.myhill_nerode_mean or {}:
            if name not in mn_names:
                mn_names.append(name)
    factors: list[str] = []
    for row in summary.metrics:
        for key in row.success_at:
            if key not in factors:
                factors.append(key)
    flat: list[dict[str, Any]] = []
    for row in summary.metrics:
        data = row.model_dump()
        success_at = data.pop("success_at") or {}
        mn = data.pop("myhill_nerode_mean") or {}
        cells = {**dfa_run_columns(summary), "similarity_len": summary.similarity_len, **data}
        cells.update({f"success_at_{f}": success_at.get(f) for f in factors})
        cells.update({f"mn_{name}": mn.get(name) for name in mn_names})
        flat.append(cells)
    fields = (
        [*dfa_run_columns(summary), "similarity_len"]
        + [k for k in DfaAggregateRow.model_fields if k not in ("success_at", "myhill_nerode_mean")]
        + [f"success_at_{f}" for f in factors]
        + [f"mn_{name}" for name in mn_names]
    )
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=fields, lineterminator="\n")
    writer.writeheader()
    for cells in flat:
        writer.writerow({k: "" if v is None else v for k, v in cells.items()})
    return buffer.getvalue()


def write_dfa_summary(
    summary: DfaSummary,
    out_dir: Path,
    episode_metrics: Mapping[str, tuple[str, DfaEpisodeMetrics]] | None = None,
    suffix: str = "",
) -> None:
    """Write ``summary.json``, ``summary.csv``, ``boxes.csv``, ``metrics.csv`` and, given
    ``{trajectory file name: (agent, metrics)}``, ``metrics.json`` atomically into
    ``out_dir``; ``suffix`` goes before each extension (``summary.shard-1-of-4.json``).

    metrics.json holds ``episodes`` (every episode's metrics by file name) and
    ``non_informative_rate_by_step`` (per agent, ``[step, rate, episodes reaching it]``
    over the seed paper's three direct kinds).
    """
    out = Path(out_dir)
    atomic_write_text(
        out / f"summary{suffix}.json", canonical_json(summary.model_dump(mode="json"))
    )
    atomic_write_text(out / f"summary{suffix}.csv", dfa_summary_csv(summary))
    atomic_write_text(out / f"boxes{suffix}.csv", dfa_boxes_csv(summary))
    atomic_write_text(out / f"metrics{suffix}.csv", dfa_metrics_csv(summary))
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
        atomic_write_text(out / f"metrics{suffix}.json", canonical_json(data))


def _fmt(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def dfa_summary_table(summary: DfaSummary) -> Table:
    """One row per agent x bucket: success rate and its 95% CI; medians of MQ, EQ, counted
    calls and (successes only) cost and cost / reference cost; mean invalid calls; tokens
    and dollars per episode when an LLM agent ran. Then, when an agent played more than one
    bucket, one row per agent over every bucket (``all``)."""
    show_failed = any(g.failed for g in summary.groups)
    table = Table(
        title=(
            f"DFA · {summary.suite} · budget x{summary.budget_factor:g} of min(L*, TTT) · "
            f"{title_tail(summary.seed, summary.bootstrap_seed)}"
        ),
        title_justify="left",
        box=rich_box.SIMPLE_HEAVY,
        pad_edge=False,
        collapse_padding=True,
    )
    table.add_column("agent", no_wrap=True)
    table.add_column("states", no_wrap=True)
    headers = ["boxes", "success", "95% CI", "MQ", "EQ", "calls", "cost", "/ref", "inv."]
    for name in headers + ([FAILED_HEADER] if show_failed else []):
        table.add_column(name, justify="right", no_wrap=True, min_width=len(name))
    pooled = len({g.bucket for g in summary.groups}) > 1
    rows = [*summary.groups, *(summary.overall if pooled else [])]
    for i, g in enumerate(rows):
        if pooled and i == len(summary.groups):
            table.add_section()
        cells = [
            g.agent,
            g.bucket,
            str(g.boxes),
            _fmt(g.success_rate, 2),
            ci_text(g.success_ci_low, g.success_ci_high),
            _fmt(g.mq_median),
            _fmt(g.eq_median),
            _fmt(g.calls_median),
            _fmt(g.cost_median),
            _fmt(g.cost_ratio_median, 2),
            _fmt(g.invalid_calls_mean),
        ]
        table.add_row(*cells, *([failed_cell(g)] if show_failed else []))
    return table


def dfa_usage_table(summary: DfaSummary) -> Table | None:
    """LLM usage per agent x bucket, or None when no agent called a model."""
    return usage_table(
        f"LLM usage · DFA · {summary.suite} · {title_tail(summary.seed, summary.bootstrap_seed)}",
        summary.groups,
        lambda g: g.bucket,
        "states",
    )


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
