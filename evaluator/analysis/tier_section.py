"""The report's exploration tiers: each run's tiers with its companions.

A run's companions are its counterfactual run (``RUN/counterfactual/run``, written by
``oracle-eval --counterfactual``) and, among the report's runs, a deferred-feedback run
of the same suite, kind and budget. :func:`run_tiers` classifies one run
(:func:`evaluator.analysis.tiers.classify_tiers`); the ``tiers`` section shows every
run's tiers, the baselines' confusion table (expected tier vs computed tier: the
classifier is trusted only where it labels them right) and the efficiency figure.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from evaluator.analysis._model import EpisodeAnalysis, Figure, Series
from evaluator.analysis.sections import (
    AnalysedRun,
    Column,
    ReportTable,
    RunSet,
    SectionContent,
    register_section,
)
from evaluator.analysis.tiers import NEAR_GREEDY, TierReport, TierRow, classify_tiers

__all__ = [
    "ConfusionRow",
    "TierTableRow",
    "confusion_rows",
    "counterfactual_analyses",
    "run_tiers",
    "tiers_section",
]

log = logging.getLogger(__name__)


def counterfactual_analyses(
    run: AnalysedRun, which: Literal["twins", "reseeded"] = "twins"
) -> list[EpisodeAnalysis] | None:
    """The analyses of ``run``'s counterfactual run on twin boxes (or of its reseeded
    replay), or None when it has none (or it cannot be read: logged, and the tiers go on
    without it)."""
    from evaluator.counterfactual import counterfactual_run_dir, reseeded_run_dir
    from evaluator.report import load_run
    from oracle_bench.errors import OracleBenchError

    where = (counterfactual_run_dir if which == "twins" else reseeded_run_dir)(run.records.run_dir)
    if not (where / "trajectories").is_dir():
        return None
    try:
        records = load_run(where)
    except OracleBenchError as exc:
        log.warning("%s: counterfactual run not used (%s)", where, exc)
        return None
    kind = records.settings.kind
    return [kind.analyse(t) for t in records.trajectories]


def _budget(run: AnalysedRun) -> int | None:
    return next((a.budget for a in run.analyses if a.budget is not None), None)


def _feedback(run: AnalysedRun) -> str | None:
    value = run.definition.get("feedback")
    return value if isinstance(value, str) else None


def _deferred_companion(run: AnalysedRun, runs: Sequence[AnalysedRun]) -> AnalysedRun | None:
    if _feedback(run) != "instant":
        return None
    for other in runs:
        if (
            other is not run
            and _feedback(other) == "deferred"
            and other.suite == run.suite
            and other.kind.name == run.kind.name
            and _budget(other) == _budget(run)
        ):
            return other
    return None


def run_tiers(
    run: AnalysedRun, runs: Sequence[AnalysedRun] = (), *, seed: int | None = None
) -> TierReport:
    """The tiers of ``run``, with its counterfactual run and, among ``runs``, its
    deferred companion; intervals seeded with ``seed`` (default: the run's seed)."""
    deferred = _deferred_companion(run, runs)
    return classify_tiers(
        run.analyses,
        reference_agent=run.kind.reference_agent,
        expected=dict(run.kind.baseline_tiers),
        seed=run.seed if seed is None else seed,
        counterfactual=counterfactual_analyses(run, "twins"),
        reseeded=counterfactual_analyses(run, "reseeded"),
        deferred=deferred.analyses if deferred is not None else None,
    )


@dataclass(frozen=True)
class TierTableRow:
    run: str
    family: str
    level: str
    agent: str
    tier: str
    efficiency: float | None
    efficiency_low: float | None
    efficiency_high: float | None
    random_gap: float | None
    random_gap_low: float | None
    random_gap_high: float | None
    seed_divergence: float | None
    adaptivity: float | None
    feedback_gain: float | None
    evidence: str
    reason: str


@dataclass(frozen=True)
class ConfusionRow:
    expected: int
    tier_1: int
    tier_2: int
    tier_3: int
    none: int


def _row(run_id: str, r: TierRow) -> TierTableRow:
    return TierTableRow(
        run=run_id,
        family=r.family,
        level=r.level,
        agent=r.agent,
        tier="-" if r.tier is None else str(r.tier),
        efficiency=r.efficiency,
        efficiency_low=r.efficiency_ci_low,
        efficiency_high=r.efficiency_ci_high,
        random_gap=r.random_gap,
        random_gap_low=r.random_gap_ci_low,
        random_gap_high=r.random_gap_ci_high,
        seed_divergence=r.seed_divergence,
        adaptivity=r.adaptivity,
        feedback_gain=r.feedback_gain,
        evidence=r.evidence,
        reason=r.reason,
    )


def confusion_rows(reports: Sequence[TierReport]) -> list[ConfusionRow]:
    """Baseline groups by expected tier (rows) and computed tier (columns)."""
    counts: dict[int, dict[int | None, int]] = {}
    for report in reports:
        for (want, got), n in report.confusion().items():
            cell = counts.setdefault(want, {})
            cell[got] = cell.get(got, 0) + n
    return [
        ConfusionRow(
            expected=want,
            tier_1=cells.get(1, 0),
            tier_2=cells.get(2, 0),
            tier_3=cells.get(3, 0),
            none=cells.get(None, 0),
        )
        for want, cells in sorted(counts.items())
    ]


def _figure(run: AnalysedRun, report: TierReport) -> Figure:
    agents = sorted({r.agent for r in report.rows})
    groups = sorted({(r.family, r.level) for r in report.rows})
    by = {(r.family, r.level, r.agent): r for r in report.rows}
    series = []
    for agent in agents:
        rows = [by.get((f, lv, agent)) for f, lv in groups]
        series.append(
            Series(
                label=agent,
                x=[f"{f} {lv}" for f, lv in groups],
                y=[r.efficiency if r else None for r in rows],
                low=[r.efficiency_ci_low if r else None for r in rows],
                high=[r.efficiency_ci_high if r else None for r in rows],
            )
        )
    return Figure(
        name=f"tiers-efficiency-{run.id}",
        title=f"{run.label}: efficiency over the budget",
        x_label="family and level",
        y_label=f"information / {report.reference_agent}'s (summed over steps)",
        chart="bar",
        series=series,
        caption=(
            f"Bars: mean efficiency with 95% intervals; near greedy from {NEAR_GREEDY}. "
            "Tier 1: no better than random; 2: systematic; 3: adaptive and near greedy."
        ),
        section="tiers",
    )


_TIER_COLUMNS = (
    Column("run", "run"),
    Column("family", "family"),
    Column("level", "level"),
    Column("agent", "agent"),
    Column("tier", "tier"),
    Column("efficiency", "efficiency", low="efficiency_low", high="efficiency_high"),
    Column("random_gap", "vs random", low="random_gap_low", high="random_gap_high"),
    Column("seed_divergence", "diverging reseeds", digits=2),
    Column("adaptivity", "diverging twins", digits=2),
    Column("feedback_gain", "instant - deferred"),
    Column("evidence", "adaptivity from"),
    Column("reason", "why"),
)


@register_section("tiers", order=45, title="Exploration tiers")
def tiers_section(runs: RunSet) -> SectionContent:
    """Every analysed run's tiers (deferred runs serve as companions, not on their own)."""
    analysed = [r for r in runs.runs if r.analysed and r.analyses]
    reports: list[tuple[AnalysedRun, TierReport]] = []
    for run in analysed:
        if _feedback(run) == "deferred" and any(
            _deferred_companion(other, analysed) is run for other in analysed
        ):
            continue
        reports.append((run, run_tiers(run, analysed, seed=runs.seed)))
    if not reports:
        return SectionContent()
    rows = tuple(_row(run.id, r) for run, report in reports for r in report.rows)
    tables = [
        ReportTable(
            "Tiers per agent, family and level",
            _TIER_COLUMNS,
            rows,
            caption=(
                "efficiency: information gathered summed over the steps, over the "
                "reference agent's on the same box; vs random: paired difference from the "
                "random baseline's; diverging reseeds: share of same-box replays with "
                "another agent seed whose queries differ (low: a plan); diverging twins: "
                "share of counterfactual pairs (another key) whose queries differ."
            ),
        )
    ]
    confusion = confusion_rows([report for _, report in reports])
    if confusion:
        tables.append(
            ReportTable(
                "Baselines: expected tier (rows) vs computed tier",
                (
                    Column("expected", "expected"),
                    Column("tier_1", "tier 1"),
                    Column("tier_2", "tier 2"),
                    Column("tier_3", "tier 3"),
                    Column("none", "no tier"),
                ),
                tuple(confusion),
            )
        )
    return SectionContent(
        tables=tuple(tables), figures=tuple(_figure(run, report) for run, report in reports)
    )
