"""Aggregates of a game run: per family x level x agent, per strategy kind x agent, per box.

Recomputed from game trajectories only. A box's score is the mean over its scored
repetitions of the episode score (the mean over settings of the best evaluation game's
points / the exact optimum, clipped to [0, 1]; an agent failure scores 0); a group's is
the mean of its box means with the seeded two-level bootstrap interval of
:func:`evaluator.reporting.hierarchical_bootstrap_ci` (stream ``("game", family, level,
agent)``). Beside it, on the same scale: ``security`` (the best score guaranteed without
knowing the opponent / the optimum) and ``uniform`` (random play's expected score / the
optimum): an agent near them learned nothing; ``explore`` is the exploration games' mean
score / the optimum.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from rich.table import Table

from evaluator.failures import FailureRow, failed_boxes, failure_counts, failure_rows, scored
from evaluator.kinds.game.trajectory import GameTrajectory, SettingRecord
from evaluator.reporting import (
    ALL_LEVELS,
    BOOTSTRAP_RESAMPLES,
    FAILED_HEADER,
    UsageColumns,
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
    write_files,
)
from evaluator.usage import UsageTotals
from oracle_bench.jsonio import canonical_json

__all__ = [
    "GAME_LEGEND",
    "GameBoxRow",
    "GameGroupRow",
    "GameSummary",
    "game_summary_tables",
    "summarise_games",
    "write_game_summary",
]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class GameBoxRow(UsageColumns):
    box_id: str
    family: str
    level: str
    rule_kind: str
    game: str
    agent: str
    episodes: int
    failed: int
    failed_agent: int = 0
    failed_box: int = 0
    failed_infrastructure: int = 0
    excluded: bool = False
    score: float | None
    security: float | None
    uniform: float | None
    explore: float | None
    optimum_mean: float | None
    """The settings' mean exact optimum (points)."""
    log2_h: float | None
    invalid_rounds: float | None
    errors: list[str]


class GameGroupRow(UsageColumns):
    """One family x level x agent (level ``all``: every level), or with ``rule_kind`` set
    one strategy kind x agent."""

    family: str
    level: str
    rule_kind: str | None = None
    agent: str
    boxes: int
    episodes: int
    failed: int
    failed_agent: int = 0
    failed_box: int = 0
    failed_infrastructure: int = 0
    boxes_excluded: int = 0
    score_mean: float | None
    score_ci_low: float | None
    score_ci_high: float | None
    security_mean: float | None
    uniform_mean: float | None
    explore_mean: float | None
    log2_h_mean: float | None
    invalid_rounds_mean: float | None


class GameSummary(_Model):
    schema_version: int = 1
    kind: Literal["game"] = "game"
    suite: str
    spec: str
    context: str
    seed: int
    repeats: int
    bootstrap_seed: int | None = None
    confidence: float = 0.95
    bootstrap_resamples: int = BOOTSTRAP_RESAMPLES
    groups: list[GameGroupRow]
    overall: list[GameGroupRow] = Field(default_factory=list)
    strategies: list[GameGroupRow] = Field(default_factory=list)
    """Per hidden strategy kind x agent."""
    boxes: list[GameBoxRow]
    usage: UsageTotals = Field(default_factory=UsageTotals)
    failures: list[FailureRow] = Field(default_factory=list)
    excluded_boxes: list[str] = Field(default_factory=list)
    suite_seed: int | Literal["secret"] | None = None


@dataclass(frozen=True)
class _Box:
    row: GameBoxRow
    scores: list[float]
    usages: list[UsageTotals | None]


def _ratio(value: float, optimum: float) -> float:
    return 1.0 if optimum <= 0 else min(1.0, max(0.0, value / optimum))


def _explore(s: SettingRecord) -> float | None:
    if not s.exploration:
        return None
    mean = sum(g.score for g in s.exploration) / len(s.exploration)
    return _ratio(mean, s.optimum)


def _box(box_id: str, agent: str, trajs: list[GameTrajectory], out: bool) -> _Box:
    done = [t for t in trajs if t.status == "completed"]
    first = trajs[0]
    raw = (
        []
        if out
        else [(t.score or 0.0) if t.status == "completed" else 0.0 for t in trajs if scored(t)]
    )
    settings = [s for t in done for s in t.settings_played]
    usages = [t.usage for t in trajs]
    row = GameBoxRow(
        box_id=box_id,
        family=first.family,
        level=first.level,
        rule_kind=first.rule_kind,
        game=first.game,
        agent=agent,
        episodes=len(trajs),
        failed=len(trajs) - len(done),
        **failure_counts(trajs),
        excluded=out,
        score=rnd(fmean_finite(raw)),
        security=rnd(fmean_finite(_ratio(s.security, s.optimum) for s in settings)),
        uniform=rnd(fmean_finite(_ratio(s.uniform, s.optimum) for s in settings)),
        explore=rnd(fmean_finite(_explore(s) for s in settings)),
        optimum_mean=rnd(fmean_finite(s.optimum for s in settings)),
        log2_h=rnd(first.log2_h),
        invalid_rounds=rnd(fmean_finite(float(t.invalid_rounds) for t in done)),
        errors=sorted({t.error for t in trajs if t.error}),
        **usage_columns(usages).model_dump(),
    )
    return _Box(row, [s for a in raw if (s := rnd(a)) is not None], usages)


def _group(
    items: Sequence[_Box], seed: int, *, family: str, level: str, agent: str, kind: str | None
) -> GameGroupRow:
    every = [b.row for b in items]
    rows = [r for r in every if not r.excluded]
    scores = [r.score for r in rows if r.score is not None]
    parts = ("game", family, level, agent) if kind is None else ("game", family, kind, agent)
    ci = hierarchical_bootstrap_ci([b.scores for b in items], seed, *parts)
    return GameGroupRow(
        family=family,
        level=level,
        rule_kind=kind,
        agent=agent,
        boxes=len(scores),
        episodes=sum(r.episodes for r in every),
        failed=sum(r.failed for r in every),
        failed_agent=sum(r.failed_agent for r in every),
        failed_box=sum(r.failed_box for r in every),
        failed_infrastructure=sum(r.failed_infrastructure for r in every),
        boxes_excluded=sum(r.excluded for r in every),
        score_mean=rnd(fmean_finite(scores)),
        score_ci_low=rnd(ci[0]) if ci else None,
        score_ci_high=rnd(ci[1]) if ci else None,
        security_mean=rnd(fmean_finite(r.security for r in rows)),
        uniform_mean=rnd(fmean_finite(r.uniform for r in rows)),
        explore_mean=rnd(fmean_finite(r.explore for r in rows)),
        log2_h_mean=rnd(fmean_finite(r.log2_h for r in rows)),
        invalid_rounds_mean=rnd(fmean_finite(r.invalid_rounds for r in rows)),
        **usage_columns(u for b in items for u in b.usages).model_dump(),
    )


def _key(t: GameTrajectory) -> tuple[str, str, int]:
    return t.box_id, t.agent, t.repetition


def summarise_games(
    trajectories: Iterable[GameTrajectory],
    *,
    suite: str,
    spec: str,
    context: str,
    seed: int,
    repeats: int,
    bootstrap_seed: int | None = None,
) -> GameSummary:
    """Per-box, per-group, per-family and per-strategy aggregates (order does not matter)."""
    trajs = sorted(trajectories, key=_key)
    excluded = failed_boxes(trajs)
    by_box: dict[tuple[str, str], list[GameTrajectory]] = defaultdict(list)
    for t in trajs:
        by_box[(t.box_id, t.agent)].append(t)
    boxes = [_box(b, a, ts, b in excluded) for (b, a), ts in sorted(by_box.items())]
    boot = seed if bootstrap_seed is None else bootstrap_seed
    groups: dict[tuple[str, str, str], list[_Box]] = defaultdict(list)
    families: dict[tuple[str, str], list[_Box]] = defaultdict(list)
    kinds: dict[tuple[str, str, str], list[_Box]] = defaultdict(list)
    for b in boxes:
        r = b.row
        groups[(r.family, r.level, r.agent)].append(b)
        families[(r.family, r.agent)].append(b)
        kinds[(r.family, r.rule_kind, r.agent)].append(b)
    return GameSummary(
        suite=suite,
        spec=spec,
        context=context,
        seed=seed,
        repeats=repeats,
        bootstrap_seed=bootstrap_seed,
        groups=[
            _group(v, boot, family=f, level=lv, agent=a, kind=None)
            for (f, lv, a), v in sorted(groups.items())
        ],
        overall=[
            _group(v, boot, family=f, level=ALL_LEVELS, agent=a, kind=None)
            for (f, a), v in sorted(families.items())
        ],
        strategies=[
            _group(v, boot, family=f, level=ALL_LEVELS, agent=a, kind=k)
            for (f, k, a), v in sorted(kinds.items())
        ],
        boxes=[b.row for b in boxes],
        usage=run_usage(t.usage for t in trajs),
        failures=failure_rows(trajs),
        excluded_boxes=sorted(excluded),
        suite_seed=suite_seed_of(trajs),
    )


def _columns(summary: GameSummary) -> dict[str, Any]:
    return {
        "suite": summary.suite,
        "suite_seed": summary.suite_seed,
        "spec": summary.spec,
        "context": summary.context,
        "seed": summary.seed,
        "repeats": summary.repeats,
        "bootstrap_seed": summary.bootstrap_seed,
    }


def write_game_summary(summary: GameSummary, out_dir: Path) -> list[Path]:
    """summary.json, summary.csv (groups, families, strategies), boxes.csv; their paths."""
    out = Path(out_dir)
    rows = [*summary.groups, *summary.overall, *summary.strategies]
    files = {
        "summary.json": canonical_json(summary.model_dump(mode="json")),
        "summary.csv": rows_csv(GameGroupRow, rows, _columns(summary)),
        "boxes.csv": rows_csv(GameBoxRow, summary.boxes, _columns(summary)),
    }
    return write_files(out, files)


def _table(title: str, rows: Sequence[GameGroupRow], label: str | None = None) -> Table:
    show_failed = any(r.failed for r in rows)
    table = new_table(title)
    if label is not None:
        table.add_column(label, overflow="fold")
    table.add_column("agent", overflow="fold", min_width=8)
    headers = ["boxes", "score", "95% CI", "explore", "secure", "random", "inv."]
    if label is not None:  # per strategy kind: narrower, to fit 80 columns
        headers = ["boxes", "score", "explore", "secure", "random"]
    for name in headers + ([FAILED_HEADER] if show_failed else []):
        table.add_column(name, justify="right", no_wrap=True, min_width=len(name))
    for r in rows:
        values = {
            "boxes": str(r.boxes),
            "score": fmt(r.score_mean, 3),
            "95% CI": ci_text(r.score_ci_low, r.score_ci_high),
            "explore": fmt(r.explore_mean, 2),
            "secure": fmt(r.security_mean, 2),
            "random": fmt(r.uniform_mean, 2),
            "inv.": fmt(r.invalid_rounds_mean, 1),
        }
        lead = [r.rule_kind or ""] if label is not None else []
        cells = [*lead, r.agent, *(values[h] for h in headers)]
        table.add_row(*cells, *([failed_cell(r)] if show_failed else []))
    return table


def game_summary_tables(summary: GameSummary) -> list[Table]:
    """One table per family x level, one per strategy kind x agent, then LLM usage."""
    tail = (
        f"{summary.spec} · context {summary.context} · "
        f"{title_tail(summary.seed, summary.bootstrap_seed)}"
    )
    tables: list[Table] = []
    for family, level in sorted({(g.family, g.level) for g in summary.groups}):
        rows = [g for g in summary.groups if (g.family, g.level) == (family, level)]
        tables.append(_table(f"{family} {level} · {tail}", rows))
    if summary.strategies:
        tables.append(_table(f"per strategy kind · {tail}", summary.strategies, "strategy"))
    usage = usage_table(
        f"LLM usage · {tail}", summary.groups, lambda g: f"{g.family} {g.level}", "boxes of"
    )
    return tables if usage is None else [*tables, usage]


GAME_LEGEND = (
    "score: best evaluation game / the exact optimum against the true opponent, per setting "
    "(mean); explore: exploration games / optimum; secure: the best score guaranteed without "
    "knowing the opponent / optimum; random: uniform play's expected score / optimum."
)
