"""Aggregates of a run: per family x level x agent, per family x agent, per box x agent.

Everything here is recomputed from trajectories (the only input of every metric), so
``summary.json``, ``summary.csv`` and ``boxes.csv`` can be rebuilt without rerunning any
agent (``oracle-eval report RUN_DIR``, see :mod:`evaluator.report`).

Accuracy per box is the mean over its completed repetitions; a group's accuracy is the
mean of its box means. Its 95% interval is a seeded two-level (hierarchical) percentile
bootstrap over boxes AND repetitions (:func:`hierarchical_bootstrap_ci`): each of
``BOOTSTRAP_RESAMPLES`` resamples draws the group's boxes with replacement, then, inside
every drawn box with more than one completed repetition, draws its repetitions with
replacement; the statistic is the mean of the resampled box means. The interval is the
2.5th and 97.5th percentiles of those statistics (clamped to the range of the data, which
float rounding can overshoot by one ulp). A box with one repetition takes no inner draw,
so a run with one repetition per box gets exactly the plain bootstrap over boxes. The
random stream is ``rng_for(seed, "bootstrap", family, level, agent)`` (level ``"all"``
for the per-family rows): the same trajectories always give the same interval.

Usage (LLM agents): ``tokens_mean``, ``cost_usd_mean`` and ``llm_calls_mean`` are per
episode, over the episodes that carry a usage record (failed ones included: their calls
were paid); ``cost_usd_*`` are None when no such episode has a price. Agents that call no
model get None means and zero totals.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from rich.table import Table

from blackboxes.families import get_family
from evaluator.failures import (
    FailureRow,
    failed_boxes,
    failure_counts,
    failure_rows,
    failure_warnings,
    scored,
)
from evaluator.kinds.turns.metrics import (
    bound_efficiency,
    bound_violations,
    efficiency,
    episode_information,
)
from evaluator.kinds.turns.trajectory import Trajectory
from evaluator.reporting import (
    ALL_LEVELS,
    BOOTSTRAP_RESAMPLES,
    FAILED_HEADER,
    ci_text,
    failed_cell,
    fmean_finite,
    fmt,
    hierarchical_bootstrap_ci,
    new_table,
    rnd,
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
    "COLUMNS_LEGEND",
    "BoxRow",
    "GroupRow",
    "Summary",
    "boxes_csv",
    "run_columns",
    "summarise",
    "summary_csv",
    "summary_tables",
    "summary_warnings",
    "write_summary",
]


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
    failed_agent: int = 0
    """Failed through the agent: scored 0 (see evaluator.failures)."""
    failed_box: int = 0
    """Failed through the box (a suite error)."""
    failed_infrastructure: int = 0
    """Failed through providers or the sandbox: not scored, retried on resume."""
    excluded: bool = False
    """The box failed in some episode of the run (any agent): left out for every agent."""
    accuracy: float | None
    """Mean over the scored repetitions (completed, and agent failures as 0)."""
    queries_used: float | None
    invalid_turns: float | None
    t_info: int | None
    info_gained: float | None
    """Mean cumulative realised information (bits) under the box's own kind space."""
    efficiency: float | None
    """info_gained / the adaptive baseline's on the same box and repetitions."""
    bound_efficiency: float | None = None
    """Mean of T_info / the turn the episode pinned the rule down (0 if it never did)."""
    bound_violations: int
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


class GroupRow(_Model):
    """One family x level x agent (level ``"all"``: every level of the family)."""

    family: str
    level: str
    agent: str
    boxes: int
    """Boxes with a score (at least one scored episode, not left out)."""
    episodes: int
    failed: int
    failed_agent: int = 0
    failed_box: int = 0
    failed_infrastructure: int = 0
    boxes_excluded: int = 0
    """Boxes left out because they failed (a suite error), for every agent alike."""
    accuracy_mean: float | None
    accuracy_ci_low: float | None
    accuracy_ci_high: float | None
    queries_used_mean: float | None
    invalid_turns_mean: float | None
    t_info_mean: float | None
    info_gained_mean: float | None
    efficiency_mean: float | None
    bound_efficiency_mean: float | None = None
    """Efficiency against the bound: mean of the boxes' T_info / turns to pin the rule."""
    bound_violations: int
    tokens_mean: float | None = None
    cost_usd_mean: float | None = None
    cost_usd_total: float | None = None
    llm_calls_mean: float | None = None
    retries_total: int = 0


class Summary(_Model):
    schema_version: int = 2
    suite: str
    spec: str
    feedback: str
    seed: int
    """The run's seed; the bootstrap's too unless ``bootstrap_seed`` is set."""
    repeats: int
    bootstrap_seed: int | None = None
    """Set when a report re-drew the intervals with another seed (``--seed``)."""
    confidence: float = 0.95
    bootstrap_resamples: int = BOOTSTRAP_RESAMPLES
    groups: list[GroupRow]
    """Per family x level x agent."""
    overall: list[GroupRow] = Field(default_factory=list)
    """Per family x agent over every level (level ``"all"``)."""
    boxes: list[BoxRow]
    usage: UsageTotals = Field(default_factory=UsageTotals)
    """The run's LLM usage: the sum over every trajectory."""
    failures: list[FailureRow] = Field(default_factory=list)
    """Every failed episode with its cause and error."""
    excluded_boxes: list[str] = Field(default_factory=list)
    """Boxes that failed in some episode (cause ``box``): left out of every score."""
    suite_seed: int | Literal["secret"] | None = None
    """The suite's seed when public (anyone can regenerate its boxes), ``"secret"``
    otherwise; None when the trajectories do not say."""


@dataclass(frozen=True)
class _Episode:
    traj: Trajectory
    bits: float | None
    violations: int
    bound_eff: float | None = None


def _measure(traj: Trajectory) -> _Episode:
    if traj.status != "completed" or traj.log2_h is None:
        # LLM-designed rules have no hypothesis space to measure information in.
        return _Episode(traj, None, 0)
    family = get_family(traj.family)
    info = episode_information(traj, family)
    bits = info.realised_total if info.consistent else None
    eff = bound_efficiency(traj.t_info, info.identified_at) if info.consistent else None
    return _Episode(traj, bits, len(bound_violations(traj, info)), eff)


@dataclass(frozen=True)
class _Box:
    row: BoxRow
    scores: list[float]
    """Scored repetitions' accuracies (agent failures as 0), in repetition order; empty
    for a box left out."""
    usages: list[UsageTotals | None]


def _failures_of(rows: Sequence[BoxRow | GroupRow]) -> dict[str, int]:
    return {
        "failed_agent": sum(r.failed_agent for r in rows),
        "failed_box": sum(r.failed_box for r in rows),
        "failed_infrastructure": sum(r.failed_infrastructure for r in rows),
    }


def _group_row(family: str, level: str, agent: str, items: Sequence[_Box], seed: int) -> GroupRow:
    every = [b.row for b in items]
    rows = [r for r in every if not r.excluded]
    accs = [r.accuracy for r in rows if r.accuracy is not None]
    ci = hierarchical_bootstrap_ci([b.scores for b in items], seed, family, level, agent)
    usage = usage_columns(u for b in items for u in b.usages)
    return GroupRow(
        family=family,
        level=level,
        agent=agent,
        boxes=len(accs),
        episodes=sum(r.episodes for r in every),
        failed=sum(r.failed for r in every),
        **_failures_of(every),
        boxes_excluded=sum(r.excluded for r in every),
        accuracy_mean=rnd(fmean_finite(accs)),
        accuracy_ci_low=rnd(ci[0]) if ci else None,
        accuracy_ci_high=rnd(ci[1]) if ci else None,
        queries_used_mean=rnd(fmean_finite(r.queries_used for r in rows)),
        invalid_turns_mean=rnd(fmean_finite(r.invalid_turns for r in rows)),
        t_info_mean=rnd(fmean_finite(r.t_info for r in rows)),
        info_gained_mean=rnd(fmean_finite(r.info_gained for r in rows)),
        efficiency_mean=rnd(fmean_finite(r.efficiency for r in rows)),
        bound_efficiency_mean=rnd(fmean_finite(r.bound_efficiency for r in rows)),
        bound_violations=sum(r.bound_violations for r in every),
        **usage.model_dump(),
    )


def _job_key(traj: Trajectory) -> tuple[str, str, int]:
    return traj.box_id, traj.agent, traj.repetition


def summarise(
    trajectories: Iterable[Trajectory],
    *,
    suite: str,
    spec: str,
    feedback: str,
    seed: int,
    repeats: int,
    bootstrap_seed: int | None = None,
) -> Summary:
    """Per-box, per-group and per-family aggregates of a set of trajectories.

    The order of ``trajectories`` does not matter. ``bootstrap_seed`` (default: ``seed``)
    seeds the intervals.
    """
    episodes = [_measure(t) for t in sorted(trajectories, key=_job_key)]
    excluded = failed_boxes(ep.traj for ep in episodes)
    by_box: dict[tuple[str, str], list[_Episode]] = defaultdict(list)
    for ep in episodes:
        by_box[(ep.traj.box_id, ep.traj.agent)].append(ep)
    adaptive_bits: dict[tuple[str, int], float] = {}
    for ep in episodes:
        if ep.traj.agent == "adaptive" and ep.bits is not None:
            adaptive_bits[(ep.traj.box_id, ep.traj.repetition)] = ep.bits

    boxes: list[_Box] = []
    for (box_id, agent), eps in sorted(by_box.items()):
        done = [e for e in eps if e.traj.status == "completed"]
        out = box_id in excluded
        # Agent failures score 0; box and infrastructure failures are not scored.
        accuracies = (
            []
            if out
            else [
                e.traj.accuracy if e.traj.status == "completed" else 0.0
                for e in eps
                if scored(e.traj)
            ]
        )
        first = eps[0].traj
        effs: list[float | None] = []
        for e in done:
            base = adaptive_bits.get((box_id, e.traj.repetition))
            if e.bits is not None and base is not None:
                effs.append(efficiency(e.bits, base))
        usages = [e.traj.usage for e in eps]
        row = BoxRow(
            box_id=box_id,
            family=first.family,
            level=first.level,
            rule_kind=first.rule_kind,
            agent=agent,
            episodes=len(eps),
            failed=len(eps) - len(done),
            **failure_counts(e.traj for e in eps),
            excluded=out,
            accuracy=rnd(fmean_finite(accuracies)),
            queries_used=rnd(fmean_finite(e.traj.queries_used for e in done)),
            invalid_turns=rnd(fmean_finite(e.traj.invalid_turns for e in done)),
            t_info=first.t_info,
            info_gained=rnd(fmean_finite(e.bits for e in done)),
            efficiency=rnd(fmean_finite(effs)),
            bound_efficiency=rnd(fmean_finite(e.bound_eff for e in done)),
            bound_violations=sum(e.violations for e in eps),
            errors=sorted({e.traj.error for e in eps if e.traj.error}),
            **usage_columns(usages).model_dump(),
        )
        # Rounded like the box row, so one repetition reproduces it exactly.
        scores = [s for a in accuracies if (s := rnd(a)) is not None]
        boxes.append(_Box(row, scores, usages))

    boot = seed if bootstrap_seed is None else bootstrap_seed
    by_group: dict[tuple[str, str, str], list[_Box]] = defaultdict(list)
    by_family: dict[tuple[str, str], list[_Box]] = defaultdict(list)
    for b in boxes:
        by_group[(b.row.family, b.row.level, b.row.agent)].append(b)
        by_family[(b.row.family, b.row.agent)].append(b)
    groups = [
        _group_row(family, level, agent, items, boot)
        for (family, level, agent), items in sorted(by_group.items())
    ]
    overall = [
        _group_row(family, ALL_LEVELS, agent, items, boot)
        for (family, agent), items in sorted(by_family.items())
    ]
    return Summary(
        suite=suite,
        spec=spec,
        feedback=feedback,
        seed=seed,
        repeats=repeats,
        bootstrap_seed=bootstrap_seed,
        groups=groups,
        overall=overall,
        boxes=[b.row for b in boxes],
        usage=run_usage(ep.traj.usage for ep in episodes),
        failures=failure_rows(ep.traj for ep in episodes),
        excluded_boxes=sorted(excluded),
        suite_seed=suite_seed_of(ep.traj for ep in episodes),
    )


def run_columns(summary: Summary) -> dict[str, Any]:
    """The columns that say which run a CSV row comes from (first in every CSV)."""
    return {
        "suite": summary.suite,
        "suite_seed": summary.suite_seed,
        "spec": summary.spec,
        "feedback": summary.feedback,
        "seed": summary.seed,
        "repeats": summary.repeats,
        "bootstrap_seed": summary.bootstrap_seed,
    }


def summary_csv(summary: Summary) -> str:
    """The group rows, then the per-family rows (level ``all``), as CSV."""
    return rows_csv(GroupRow, [*summary.groups, *summary.overall], run_columns(summary))


def boxes_csv(summary: Summary) -> str:
    """One row per box x agent as CSV."""
    return rows_csv(BoxRow, summary.boxes, run_columns(summary))


def write_summary(summary: Summary, out_dir: Path, suffix: str = "") -> None:
    """Write ``summary{suffix}.json``, ``summary{suffix}.csv`` and ``boxes{suffix}.csv``
    atomically into ``out_dir`` (a suffix such as ``.shard-1-of-4`` keeps shards apart)."""
    out = Path(out_dir)
    atomic_write_text(
        out / f"summary{suffix}.json", canonical_json(summary.model_dump(mode="json"))
    )
    atomic_write_text(out / f"summary{suffix}.csv", summary_csv(summary))
    atomic_write_text(out / f"boxes{suffix}.csv", boxes_csv(summary))


# -- terminal tables ----------------------------------------------------------------


COLUMNS_LEGEND = (
    "inv.: invalid turns; bits: information gained on the box's own kind; eff.: bits / the "
    "adaptive baseline's; "
    "eff.T: T_info / the turn the rule was pinned down (0 if never). The baselines know the "
    "exact class of the level's kinds; an LLM agent faces an open class."
)
"""Under turn@shot tables: what the information columns mean and what the baselines know."""


def _table(title: str, rows: Sequence[GroupRow]) -> Table:
    show_failed = any(g.failed for g in rows)
    table = new_table(title)
    # 80 columns hold every column and the baselines' names whole.
    table.add_column("agent", overflow="fold", min_width=8)
    headers = ["boxes", "acc", "95% CI", "queries", "inv.", "T_info", "bits", "eff.", "eff.T"]
    for name in headers + ([FAILED_HEADER] if show_failed else []):
        table.add_column(name, justify="right", no_wrap=True, min_width=len(name))
    for g in rows:
        cells = [
            g.agent,
            str(g.boxes),
            fmt(g.accuracy_mean, 3),
            ci_text(g.accuracy_ci_low, g.accuracy_ci_high),
            fmt(g.queries_used_mean, 1),
            fmt(g.invalid_turns_mean, 1),
            fmt(g.t_info_mean, 1),
            fmt(g.info_gained_mean, 1),
            fmt(g.efficiency_mean, 2),
            fmt(g.bound_efficiency_mean, 2),
        ]
        table.add_row(*cells, *([failed_cell(g)] if show_failed else []))
    return table


def summary_tables(summary: Summary) -> list[Table]:
    """One table per family x level (agents as rows), then one per family pooling its
    levels when it has more than one, then the LLM usage table when an LLM agent ran."""
    tail = (
        f"{summary.spec} · {summary.feedback} · {title_tail(summary.seed, summary.bootstrap_seed)}"
    )
    tables: list[Table] = []
    for family, level in sorted({(g.family, g.level) for g in summary.groups}):
        rows = [g for g in summary.groups if (g.family, g.level) == (family, level)]
        tables.append(_table(f"{family} {level} · {tail}", rows))
    for family in sorted({g.family for g in summary.overall}):
        if len({g.level for g in summary.groups if g.family == family}) > 1:
            rows = [g for g in summary.overall if g.family == family]
            tables.append(_table(f"{family} all levels · {tail}", rows))
    usage = usage_table(
        f"LLM usage · {tail}", summary.groups, lambda g: f"{g.family} {g.level}", "boxes of"
    )
    return tables if usage is None else [*tables, usage]


def summary_warnings(summary: Summary) -> list[str]:
    """Lines worth a warning under the tables: failed episodes (a suite error first), then
    information-bound violations."""
    lines = failure_warnings(summary.failures, summary.excluded_boxes)
    violations = sum(g.bound_violations for g in summary.groups)
    if violations:
        lines.append(
            f"{violations} information-bound violation(s); see bound_violations in summary.json"
        )
    return lines
