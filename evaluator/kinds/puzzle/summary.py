"""Aggregates of a puzzle run: per family x level x agent, per puzzle x agent, per box.

Recomputed from puzzle trajectories only. A box's score is the mean over its scored
repetitions of solved instances / K (an agent failure scores 0; box and infrastructure
failures are left out, see :mod:`evaluator.failures`); a group's score is the mean of its
box means, with the seeded two-level bootstrap interval of
:func:`evaluator.reporting.hierarchical_bootstrap_ci` (stream ``("puzzle", family,
level, agent)``). Probes are per instance: ``probes`` counts the answered ones before the
answer, ``pinned`` the probes after which the answer was certain (instances where it
became certain), to set against ``t_info``, the exact lower bound
ceil(log2|H| / log2|Y|) of the box's puzzle. ``bits`` is the realised information per
instance and ``efficiency`` its ratio to the adaptive baseline's on the same box and
repetition (a group's: its boxes' bits over the adaptive baseline's on the same boxes, a
ratio of sums, since a noisy puzzle's bits per box can be near 0).
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
from evaluator.kinds.puzzle.metrics import PuzzleInformation, puzzle_information
from evaluator.kinds.puzzle.trajectory import PuzzleTrajectory
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
    "PUZZLE_LEGEND",
    "PuzzleBoxRow",
    "PuzzleGroupRow",
    "PuzzleKindRow",
    "PuzzleSummary",
    "puzzle_summary_tables",
    "summarise_puzzles",
    "write_puzzle_summary",
]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PuzzleBoxRow(UsageColumns):
    box_id: str
    family: str
    level: str
    rule_kind: str
    agent: str
    episodes: int
    failed: int
    failed_agent: int = 0
    failed_box: int = 0
    failed_infrastructure: int = 0
    excluded: bool = False
    score: float | None
    """Mean solved fraction over the scored repetitions."""
    probes: float | None
    """Answered probes per instance."""
    pinned: float | None
    """Probes to certainty per instance, over the instances that got there."""
    pinned_share: float | None
    """Instances whose answer became certain."""
    t_info: int
    log2_h: float
    bits: float | None
    efficiency: float | None
    invalid_turns: float | None
    bound_violations: int
    errors: list[str]


class PuzzleGroupRow(UsageColumns):
    """One family x level x agent (level ``all``: every level), or with ``rule_kind`` set
    one puzzle x agent."""

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
    probes_mean: float | None
    pinned_mean: float | None
    pinned_share_mean: float | None
    t_info_mean: float | None
    bits_mean: float | None
    efficiency_mean: float | None
    """Sum of the boxes' bits / the adaptive baseline's on the same boxes."""
    invalid_turns_mean: float | None
    bound_violations: int


PuzzleKindRow = PuzzleGroupRow


class PuzzleSummary(_Model):
    schema_version: int = 1
    kind: Literal["puzzle"] = "puzzle"
    suite: str
    spec: str
    feedback: str
    context: str
    seed: int
    repeats: int
    bootstrap_seed: int | None = None
    confidence: float = 0.95
    bootstrap_resamples: int = BOOTSTRAP_RESAMPLES
    groups: list[PuzzleGroupRow]
    overall: list[PuzzleGroupRow] = Field(default_factory=list)
    puzzles: list[PuzzleGroupRow] = Field(default_factory=list)
    """Per puzzle (rule kind) x agent, over the suite's levels."""
    boxes: list[PuzzleBoxRow]
    usage: UsageTotals = Field(default_factory=UsageTotals)
    failures: list[FailureRow] = Field(default_factory=list)
    excluded_boxes: list[str] = Field(default_factory=list)
    suite_seed: int | Literal["secret"] | None = None


@dataclass(frozen=True)
class _Episode:
    traj: PuzzleTrajectory
    info: PuzzleInformation | None


@dataclass(frozen=True)
class _Box:
    row: PuzzleBoxRow
    scores: list[float]
    usages: list[UsageTotals | None]


def _key(traj: PuzzleTrajectory) -> tuple[str, str, int]:
    return traj.box_id, traj.agent, traj.repetition


def _instances(done: Sequence[_Episode]) -> list[tuple[int, int | None]]:
    """(answered probes, pinned_at) of every instance of the completed episodes."""
    out: list[tuple[int, int | None]] = []
    for e in done:
        infos = e.info.instances if e.info is not None else ()
        for i, inst in enumerate(e.traj.instances):
            pinned = infos[i].pinned_at if i < len(infos) else None
            out.append((inst.probes_used, pinned))
    return out


def _box_row(
    box_id: str, agent: str, eps: list[_Episode], out: bool, base: dict[tuple[str, int], float]
) -> _Box:
    done = [e for e in eps if e.traj.status == "completed"]
    first = eps[0].traj
    scores_raw = (
        []
        if out
        else [
            (e.traj.score or 0.0) if e.traj.status == "completed" else 0.0
            for e in eps
            if scored(e.traj)
        ]
    )
    effs: list[float | None] = []
    for e in done:
        ref = base.get((box_id, e.traj.repetition))
        if e.info is not None and ref is not None:
            effs.append(e.info.bits / ref if ref > 0 else None)
    instances = _instances(done)
    pinned = [p for _, p in instances if p is not None]
    usages = [e.traj.usage for e in eps]
    row = PuzzleBoxRow(
        box_id=box_id,
        family=first.family,
        level=first.level,
        rule_kind=first.rule_kind,
        agent=agent,
        episodes=len(eps),
        failed=len(eps) - len(done),
        **failure_counts(e.traj for e in eps),
        excluded=out,
        score=rnd(fmean_finite(scores_raw)),
        probes=rnd(fmean_finite(float(n) for n, _ in instances)),
        pinned=rnd(fmean_finite(float(p) for p in pinned)),
        pinned_share=rnd(len(pinned) / len(instances)) if instances else None,
        t_info=first.t_info,
        log2_h=rnd(first.log2_h) or 0.0,
        bits=rnd(fmean_finite(e.info.bits for e in done if e.info is not None)),
        efficiency=rnd(fmean_finite(effs)),
        invalid_turns=rnd(fmean_finite(float(e.traj.invalid_turns) for e in done)),
        bound_violations=sum(e.info.violations for e in eps if e.info is not None),
        errors=sorted({e.traj.error for e in eps if e.traj.error}),
        **usage_columns(usages).model_dump(),
    )
    return _Box(row, [s for a in scores_raw if (s := rnd(a)) is not None], usages)


def _efficiency(rows: Sequence[PuzzleBoxRow], base: dict[str, float]) -> float | None:
    pairs = [(r.bits, base[r.box_id]) for r in rows if r.bits is not None and r.box_id in base]
    total = sum(b for _, b in pairs)
    return None if not pairs or total <= 0 else sum(a for a, _ in pairs) / total


def _group(
    items: Sequence[_Box],
    seed: int,
    base: dict[str, float],
    *,
    family: str,
    level: str,
    agent: str,
    kind: str | None,
) -> PuzzleGroupRow:
    every = [b.row for b in items]
    rows = [r for r in every if not r.excluded]
    scores = [r.score for r in rows if r.score is not None]
    parts = ("puzzle", family, level, agent) if kind is None else ("puzzle", family, kind, agent)
    ci = hierarchical_bootstrap_ci([b.scores for b in items], seed, *parts)
    return PuzzleGroupRow(
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
        probes_mean=rnd(fmean_finite(r.probes for r in rows)),
        pinned_mean=rnd(fmean_finite(r.pinned for r in rows)),
        pinned_share_mean=rnd(fmean_finite(r.pinned_share for r in rows)),
        t_info_mean=rnd(fmean_finite(float(r.t_info) for r in rows)),
        bits_mean=rnd(fmean_finite(r.bits for r in rows)),
        efficiency_mean=rnd(_efficiency(rows, base)),
        invalid_turns_mean=rnd(fmean_finite(r.invalid_turns for r in rows)),
        bound_violations=sum(r.bound_violations for r in every),
        **usage_columns(u for b in items for u in b.usages).model_dump(),
    )


def summarise_puzzles(
    trajectories: Iterable[PuzzleTrajectory],
    *,
    suite: str,
    spec: str,
    feedback: str,
    context: str,
    seed: int,
    repeats: int,
    bootstrap_seed: int | None = None,
) -> PuzzleSummary:
    """Per-box, per-group, per-family and per-puzzle aggregates (order does not matter)."""
    episodes = [_Episode(t, puzzle_information(t)) for t in sorted(trajectories, key=_key)]
    excluded = failed_boxes(e.traj for e in episodes)
    base: dict[tuple[str, int], float] = {}
    for e in episodes:
        if e.traj.agent == "adaptive" and e.traj.status == "completed" and e.info is not None:
            base[(e.traj.box_id, e.traj.repetition)] = e.info.bits
    by_box: dict[tuple[str, str], list[_Episode]] = defaultdict(list)
    for e in episodes:
        by_box[(e.traj.box_id, e.traj.agent)].append(e)
    boxes = [
        _box_row(box_id, agent, eps, box_id in excluded, base)
        for (box_id, agent), eps in sorted(by_box.items())
    ]
    boot = seed if bootstrap_seed is None else bootstrap_seed
    adaptive = {
        b.row.box_id: b.row.bits
        for b in boxes
        if b.row.agent == "adaptive" and b.row.bits is not None and not b.row.excluded
    }
    groups: dict[tuple[str, str, str], list[_Box]] = defaultdict(list)
    families: dict[tuple[str, str], list[_Box]] = defaultdict(list)
    kinds: dict[tuple[str, str, str], list[_Box]] = defaultdict(list)
    for b in boxes:
        r = b.row
        groups[(r.family, r.level, r.agent)].append(b)
        families[(r.family, r.agent)].append(b)
        kinds[(r.family, r.rule_kind, r.agent)].append(b)
    return PuzzleSummary(
        suite=suite,
        spec=spec,
        feedback=feedback,
        context=context,
        seed=seed,
        repeats=repeats,
        bootstrap_seed=bootstrap_seed,
        groups=[
            _group(items, boot, adaptive, family=f, level=lv, agent=a, kind=None)
            for (f, lv, a), items in sorted(groups.items())
        ],
        overall=[
            _group(items, boot, adaptive, family=f, level=ALL_LEVELS, agent=a, kind=None)
            for (f, a), items in sorted(families.items())
        ],
        puzzles=[
            _group(items, boot, adaptive, family=f, level=ALL_LEVELS, agent=a, kind=k)
            for (f, k, a), items in sorted(kinds.items())
        ],
        boxes=[b.row for b in boxes],
        usage=run_usage(e.traj.usage for e in episodes),
        failures=failure_rows(e.traj for e in episodes),
        excluded_boxes=sorted(excluded),
        suite_seed=suite_seed_of(e.traj for e in episodes),
    )


def _columns(summary: PuzzleSummary) -> dict[str, Any]:
    return {
        "suite": summary.suite,
        "suite_seed": summary.suite_seed,
        "spec": summary.spec,
        "feedback": summary.feedback,
        "context": summary.context,
        "seed": summary.seed,
        "repeats": summary.repeats,
        "bootstrap_seed": summary.bootstrap_seed,
    }


def write_puzzle_summary(summary: PuzzleSummary, out_dir: Path) -> list[Path]:
    """summary.json, summary.csv (groups, families, puzzles), boxes.csv; their paths."""
    out = Path(out_dir)
    rows = [*summary.groups, *summary.overall, *summary.puzzles]
    files = {
        "summary.json": canonical_json(summary.model_dump(mode="json")),
        "summary.csv": rows_csv(PuzzleGroupRow, rows, _columns(summary)),
        "boxes.csv": rows_csv(PuzzleBoxRow, summary.boxes, _columns(summary)),
    }
    return write_files(out, files)


def _table(title: str, rows: Sequence[PuzzleGroupRow], label: str | None = None) -> Table:
    """A group table; with ``label`` (per puzzle) a narrower one, to fit 80 columns."""
    show_failed = any(r.failed for r in rows)
    table = new_table(title)
    if label is not None:
        table.add_column(label, overflow="fold")
        headers = ["boxes", "solved", "probes", "pinned", "T_info"]
    else:
        headers = ["boxes", "solved", "95% CI", "probes", "pinned", "T_info", "bits", "eff."]
    table.add_column("agent", overflow="fold", min_width=8)
    for name in headers + ([FAILED_HEADER] if show_failed else []):
        table.add_column(name, justify="right", no_wrap=True, min_width=len(name))
    for r in rows:
        values = {
            "boxes": str(r.boxes),
            "solved": fmt(r.score_mean, 3),
            "95% CI": ci_text(r.score_ci_low, r.score_ci_high),
            "probes": fmt(r.probes_mean, 1),
            "pinned": fmt(r.pinned_mean, 1),
            "T_info": fmt(r.t_info_mean, 1),
            "bits": fmt(r.bits_mean, 1),
            "eff.": fmt(r.efficiency_mean, 2),
        }
        lead = [r.rule_kind or ""] if label is not None else []
        cells = [*lead, r.agent, *(values[h] for h in headers)]
        table.add_row(*cells, *([failed_cell(r)] if show_failed else []))
    return table


def puzzle_summary_tables(summary: PuzzleSummary) -> list[Table]:
    """One table per family x level, one per puzzle x agent, then LLM usage if any."""
    tail = (
        f"{summary.spec} · {summary.feedback} · context {summary.context} · "
        f"{title_tail(summary.seed, summary.bootstrap_seed)}"
    )
    tables: list[Table] = []
    for family, level in sorted({(g.family, g.level) for g in summary.groups}):
        rows = [g for g in summary.groups if (g.family, g.level) == (family, level)]
        tables.append(_table(f"{family} {level} · {tail}", rows))
    if summary.puzzles:
        tables.append(_table(f"per puzzle · {tail}", summary.puzzles, "puzzle"))
    usage = usage_table(
        f"LLM usage · {tail}", summary.groups, lambda g: f"{g.family} {g.level}", "boxes of"
    )
    return tables if usage is None else [*tables, usage]


PUZZLE_LEGEND = (
    "solved: instances solved / K; probes: answered probes per instance; pinned: probes "
    "until one answer was certain (where it became certain); T_info: "
    "ceil(log2|H| / log2|Y|) of the box's puzzle; bits: information per instance; eff.: "
    "bits / the adaptive baseline's."
)
