"""The report's sections that every kind gets: runs, results, information, feedback modes,
budgets. Each reads only :class:`~evaluator.analysis.EpisodeAnalysis` values.

Scores: an episode's ``score``; a failed episode counts 0 when the agent caused it and
not at all otherwise, and boxes with a box-caused failure are left out for every agent
(as the kinds' summaries do, :mod:`evaluator.failures`). A group's value is the mean of
its box means; its 95% interval is the seeded two-level bootstrap over boxes and
repetitions (:func:`evaluator.reporting.hierarchical_bootstrap_ci`, stream
``("report", <section>, ...)``).

Efficiency: an episode's ``info_total`` over the kind's reference agent's
(``EpisodeKind.reference_agent``) on the same box and repetition of the same run, where
that is positive.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, cast

from evaluator.analysis._model import EpisodeAnalysis, Figure, Series
from evaluator.analysis.sections import (
    AnalysedRun,
    Column,
    ReportTable,
    RunSet,
    SectionContent,
    register_section,
    source_name,
)

__all__ = [
    "AccuracyRow",
    "BudgetRow",
    "EfficiencyRow",
    "FeedbackRow",
    "RunRow",
    "budget_section",
    "feedback_section",
    "information_section",
    "results_section",
    "runs_section",
]

_Values = dict[str, list[float]]
"""Values by box: each box's repetitions."""


@dataclass(frozen=True)
class _Stat:
    mean: float | None
    low: float | None
    high: float | None
    boxes: int


def _stat(by_box: _Values, seed: int, *parts: str | int) -> _Stat:
    from evaluator.reporting import hierarchical_bootstrap_ci

    kept = [values for _, values in sorted(by_box.items()) if values]
    if not kept:
        return _Stat(None, None, None, 0)
    means = [sum(v) / len(v) for v in kept]
    ci = hierarchical_bootstrap_ci(kept, seed, "report", *parts)
    low, high = ci if ci is not None else (None, None)
    return _Stat(sum(means) / len(means), low, high, len(kept))


def _excluded(analyses: Iterable[EpisodeAnalysis]) -> frozenset[str]:
    from evaluator.failures import failed_boxes

    return failed_boxes(cast("Iterable[Any]", analyses))


def _score(a: EpisodeAnalysis) -> float | None:
    """The episode's score as the summaries count it (an agent's failure scores 0)."""
    from evaluator.failures import scored

    if a.score is not None:
        return a.score
    return 0.0 if a.status == "failed" and scored(cast(Any, a)) else None


def _scores(run: AnalysedRun, analyses: Iterable[EpisodeAnalysis]) -> _Values:
    """Scores by box of ``analyses`` (of ``run``), the run's box-failed boxes left out."""
    out = _excluded(run.analyses)
    by_box: _Values = defaultdict(list)
    for a in analyses:
        value = _score(a)
        if value is not None and a.box_id not in out:
            by_box[a.box_id].append(value)
    return by_box


def _efficiencies(run: AnalysedRun, analyses: Iterable[EpisodeAnalysis]) -> _Values:
    reference = run.kind.reference_agent
    ref = {
        (a.box_id, a.repetition): a.info_total
        for a in run.analyses
        if a.agent == reference and a.status == "completed"
    }
    by_box: _Values = defaultdict(list)
    for a in analyses:
        base = ref.get((a.box_id, a.repetition))
        if a.status == "completed" and a.info_total is not None and base:
            by_box[a.box_id].append(a.info_total / base)
    return by_box


def _groups(
    analyses: Iterable[EpisodeAnalysis], key: Callable[[EpisodeAnalysis], tuple[str, ...]]
) -> dict[tuple[str, ...], list[EpisodeAnalysis]]:
    out: dict[tuple[str, ...], list[EpisodeAnalysis]] = defaultdict(list)
    for a in analyses:
        out[key(a)].append(a)
    return dict(sorted(out.items()))


def _agents(analyses: Iterable[EpisodeAnalysis]) -> list[str]:
    return sorted({a.agent for a in analyses})


def _name_part(text: str) -> str:
    """A figure name's part: letters, digits and dashes only."""
    return "".join(c if c.isalnum() else "-" for c in text).strip("-").lower() or "x"


def _ci_column(key: str, label: str) -> Column:
    return Column(key, label, low=f"{key}_low", high=f"{key}_high")


# -- runs ----------------------------------------------------------------------


@dataclass(frozen=True)
class RunRow:
    run: str
    source: str
    suite: str
    kind: str
    setting: str
    seed: int
    repeats: int
    agents: str
    episodes: int
    failed: int


@register_section("runs", order=10, title="Runs")
def runs_section(runs: RunSet) -> SectionContent:
    """One row per run: where it came from and what it ran."""
    rows = []
    notes = []
    for run in runs.runs:
        agents = sorted({getattr(t, "agent", "") for t in run.records.trajectories})
        failed = sum(getattr(t, "status", None) == "failed" for t in run.records.trajectories)
        setting = run.setting
        feedback = run.definition.get("feedback")
        if isinstance(feedback, str):
            setting = f"{setting} {feedback}"
        rows.append(
            RunRow(
                run=run.id,
                source=source_name(run.records.run_dir),
                suite=run.suite,
                kind=run.kind.title,
                setting=setting,
                seed=run.seed,
                repeats=run.records.settings.repeats,
                agents=", ".join(agents),
                episodes=len(run.records.trajectories),
                failed=failed,
            )
        )
        if not run.analysed:
            notes.append(
                f"{run.id}: the {run.kind.title} kind does not analyse its episodes yet; "
                "the run is listed here only."
            )
    columns = tuple(
        Column(k, k)
        for k in (
            "run",
            "source",
            "suite",
            "kind",
            "setting",
            "seed",
            "repeats",
            "agents",
            "episodes",
            "failed",
        )
    )
    return SectionContent(tables=(ReportTable("Runs", columns, tuple(rows)),), notes=tuple(notes))


# -- results -------------------------------------------------------------------


@dataclass(frozen=True)
class AccuracyRow:
    run: str
    family: str
    level: str
    agent: str
    boxes: int
    episodes: int
    score: float | None
    score_low: float | None
    score_high: float | None


def _group_label(family: str, level: str) -> str:
    return f"{family} {level}"


@register_section("results", order=20, title="Results")
def results_section(runs: RunSet) -> SectionContent:
    """Score per family, level and agent with 95% intervals: a table and a bar figure
    per run."""
    rows: list[AccuracyRow] = []
    figures: list[Figure] = []
    for run in runs.runs:
        if not run.analyses:
            continue
        groups = _groups(run.analyses, lambda a: (a.family, a.level, a.agent))
        run_rows = []
        for (family, level, agent), members in groups.items():
            stat = _stat(
                _scores(run, members), runs.ci_seed(run), "results", run.id, family, level, agent
            )
            run_rows.append(
                AccuracyRow(
                    run=run.id,
                    family=family,
                    level=level,
                    agent=agent,
                    boxes=stat.boxes,
                    episodes=len(members),
                    score=stat.mean,
                    score_low=stat.low,
                    score_high=stat.high,
                )
            )
        rows.extend(run_rows)
        figures.append(
            _bars(
                f"{run.id}-score",
                f"{run.label}: score",
                "score (mean of box means)",
                [
                    (_group_label(r.family, r.level), r.agent, r.score, r.score_low, r.score_high)
                    for r in run_rows
                ],
                section="results",
                caption="Mean score per family, level and agent; whiskers: 95% bootstrap "
                "interval over boxes and repetitions.",
                y_range=(0.0, 1.0),
            )
        )
    if not rows:
        return SectionContent()
    columns = (
        Column("run", "run"),
        Column("family", "family"),
        Column("level", "level"),
        Column("agent", "agent"),
        Column("boxes", "boxes"),
        Column("episodes", "episodes"),
        _ci_column("score", "score [95% CI]"),
    )
    table = ReportTable(
        "Score per family, level and agent",
        columns,
        tuple(rows),
        caption="Score: the kind's own in [0, 1] (accuracy, solved share, success); a "
        "failed episode counts 0 when the agent caused it; boxes with a box-caused "
        "failure are left out.",
    )
    return SectionContent(tables=(table,), figures=tuple(figures))


_BarPoint = tuple[str, str, float | None, float | None, float | None]


def _bars(
    name: str,
    title: str,
    y_label: str,
    points: Sequence[_BarPoint],
    *,
    section: str,
    caption: str,
    y_range: tuple[float, float] | None = None,
    x_label: str = "family and level",
) -> Figure:
    """A bar figure of ``(category, group, value, low, high)`` points: x the category,
    one series per group, whiskers from low to high."""
    categories = list(dict.fromkeys(p[0] for p in points))
    series = []
    for group in dict.fromkeys(p[1] for p in points):
        mine = {p[0]: p for p in points if p[1] == group}
        series.append(
            Series(
                label=group,
                x=list(categories),
                y=[mine[c][2] if c in mine else None for c in categories],
                low=[mine[c][3] if c in mine else None for c in categories],
                high=[mine[c][4] if c in mine else None for c in categories],
            )
        )
    return Figure(
        name=name,
        title=title,
        x_label=x_label,
        y_label=y_label,
        chart="bar",
        series=series,
        y_range=y_range,
        caption=caption,
        section=section,
    )


# -- information -----------------------------------------------------------------


@dataclass(frozen=True)
class EfficiencyRow:
    run: str
    family: str
    level: str
    agent: str
    reference: str
    boxes: int
    efficiency: float | None
    efficiency_low: float | None
    efficiency_high: float | None
    info_mean: float | None
    log2_h_mean: float | None


def _mean(values: Iterable[float | None]) -> float | None:
    kept = [v for v in values if v is not None]
    return sum(kept) / len(kept) if kept else None


def _cumulative(a: EpisodeAnalysis) -> list[float] | None:
    """The realised bits gathered by the end of each step (None: no step measured)."""
    if not any(s.bits is not None for s in a.steps):
        return None
    total = 0.0
    out = []
    for step in a.steps:
        total += step.bits or 0.0
        out.append(total)
    return out


def _curve_figure(
    run: AnalysedRun, family: str, level: str, members: list[EpisodeAnalysis]
) -> Figure | None:
    curves: dict[str, list[list[float]]] = defaultdict(list)
    for a in members:
        if a.status != "completed":
            continue
        cumulative = _cumulative(a)
        if cumulative is not None:
            curves[a.agent].append(cumulative)
    if not curves:
        return None
    length = max(len(c) for cs in curves.values() for c in cs)
    xs: list[float | str] = [float(t) for t in range(1, length + 1)]
    series = []
    top = 0.0
    for agent, cs in sorted(curves.items()):
        # An episode that stopped early keeps what it had gathered.
        ys: list[float | None] = []
        for t in range(length):
            at = [c[min(t, len(c) - 1)] for c in cs]
            ys.append(sum(at) / len(at))
        top = max(top, *(y for y in ys if y is not None))
        series.append(Series(label=agent, x=list(xs), y=ys))
    log2_h = _mean(a.log2_h for a in members)
    t_info = _mean(a.t_info for a in members)
    if log2_h is not None:
        top = max(top, log2_h)
        series.append(
            Series(label="mean log2|H|", x=[1.0, float(length)], y=[log2_h, log2_h], guide=True)
        )
    if t_info is not None:
        series.append(Series(label="mean T_info", x=[t_info, t_info], y=[0.0, top], guide=True))
    return Figure(
        name=f"{run.id}-information-{_name_part(family)}-{_name_part(level)}",
        title=f"{run.label}: {family} {level}, information by step",
        x_label="step",
        y_label="cumulative realised bits (mean)",
        series=series,
        caption="Mean cumulative realised information by step per agent (an episode that "
        "stopped keeps its total); dashed: the mean log2 of the hypothesis space and the "
        "mean number of steps needed to identify the rule (T_info).",
        section="information",
    )


@register_section("information", order=30, title="Information")
def information_section(runs: RunSet) -> SectionContent:
    """Information curves per family and level, and efficiency against the kind's
    reference agent with 95% intervals."""
    figures: list[Figure] = []
    rows: list[EfficiencyRow] = []
    for run in runs.runs:
        if not run.analyses:
            continue
        for (family, level), members in _groups(
            run.analyses, lambda a: (a.family, a.level)
        ).items():
            figure = _curve_figure(run, family, level, members)
            if figure is not None:
                figures.append(figure)
        run_rows = []
        groups = _groups(run.analyses, lambda a: (a.family, a.level, a.agent))
        for (family, level, agent), members in groups.items():
            by_box = _efficiencies(run, members)
            if not by_box:
                continue
            stat = _stat(by_box, runs.ci_seed(run), "efficiency", run.id, family, level, agent)
            done = [a for a in members if a.status == "completed"]
            run_rows.append(
                EfficiencyRow(
                    run=run.id,
                    family=family,
                    level=level,
                    agent=agent,
                    reference=run.kind.reference_agent,
                    boxes=stat.boxes,
                    efficiency=stat.mean,
                    efficiency_low=stat.low,
                    efficiency_high=stat.high,
                    info_mean=_mean(a.info_total for a in done),
                    log2_h_mean=_mean(a.log2_h for a in done),
                )
            )
        if run_rows:
            rows.extend(run_rows)
            figures.append(
                _bars(
                    f"{run.id}-efficiency",
                    f"{run.label}: efficiency",
                    f"information / {run.kind.reference_agent}'s",
                    [
                        (
                            _group_label(r.family, r.level),
                            r.agent,
                            r.efficiency,
                            r.efficiency_low,
                            r.efficiency_high,
                        )
                        for r in run_rows
                    ],
                    section="information",
                    caption="Information gathered over the reference agent's on the same box "
                    "and repetition (1: as much); whiskers: 95% bootstrap interval.",
                )
            )
    if not figures and not rows:
        return SectionContent()
    tables: tuple[ReportTable, ...] = ()
    if rows:
        columns = (
            Column("run", "run"),
            Column("family", "family"),
            Column("level", "level"),
            Column("agent", "agent"),
            Column("reference", "reference"),
            Column("boxes", "boxes"),
            _ci_column("efficiency", "efficiency [95% CI]"),
            Column("info_mean", "information (mean)"),
            Column("log2_h_mean", "log2|H| (mean)"),
        )
        tables = (ReportTable("Efficiency against the reference agent", columns, tuple(rows)),)
    return SectionContent(tables=tables, figures=tuple(figures))


# -- feedback modes --------------------------------------------------------------


@dataclass(frozen=True)
class FeedbackRow:
    suite: str
    kind: str
    setting: str
    agent: str
    instant: float | None
    instant_low: float | None
    instant_high: float | None
    deferred: float | None
    deferred_low: float | None
    deferred_high: float | None
    efficiency_instant: float | None
    efficiency_instant_low: float | None
    efficiency_instant_high: float | None
    efficiency_deferred: float | None
    efficiency_deferred_low: float | None
    efficiency_deferred_high: float | None


_MODES = ("instant", "deferred")


def _feedback_groups(runs: RunSet) -> dict[tuple[str, str, str], dict[str, list[AnalysedRun]]]:
    """Runs of one suite, kind and definition but the feedback mode, by mode."""
    out: dict[tuple[str, str, str], dict[str, list[AnalysedRun]]] = defaultdict(
        lambda: defaultdict(list)
    )
    for run in runs.runs:
        definition = dict(run.definition)
        mode = definition.pop("feedback", None)
        if mode in _MODES and run.analyses:
            rest = ", ".join(f"{k}={v}" for k, v in sorted(definition.items()))
            out[(run.suite, run.kind.title, rest)][str(mode)].append(run)
    return {k: v for k, v in sorted(out.items()) if all(m in v for m in _MODES)}


def _pooled(
    runs: RunSet, members: list[AnalysedRun], agent: str, what: str, *parts: str
) -> tuple[float | None, float | None, float | None]:
    by_box: _Values = defaultdict(list)
    for run in members:
        mine = [a for a in run.analyses if a.agent == agent]
        values = _scores(run, mine) if what == "score" else _efficiencies(run, mine)
        for box, vs in values.items():
            by_box[box].extend(vs)
    stat = _stat(by_box, runs.ci_seed(members[0]), what, *parts)
    return stat.mean, stat.low, stat.high


@register_section("feedback", order=40, title="Instant vs deferred feedback")
def feedback_section(runs: RunSet) -> SectionContent:
    """Per agent, score and efficiency with instant and with deferred feedback, for runs
    of the same suite, kind and settings in both modes."""
    rows: list[FeedbackRow] = []
    figures: list[Figure] = []
    for (suite, kind, rest), modes in _feedback_groups(runs).items():
        agents = sorted(
            set(_agents(a for r in modes["instant"] for a in r.analyses))
            & set(_agents(a for r in modes["deferred"] for a in r.analyses))
        )
        group_rows = []
        for agent in agents:
            parts = (suite, kind, rest, agent)
            si = _pooled(runs, modes["instant"], agent, "score", *parts, "instant")
            sd = _pooled(runs, modes["deferred"], agent, "score", *parts, "deferred")
            ei = _pooled(runs, modes["instant"], agent, "efficiency", *parts, "instant")
            ed = _pooled(runs, modes["deferred"], agent, "efficiency", *parts, "deferred")
            group_rows.append(FeedbackRow(suite, kind, rest, agent, *si, *sd, *ei, *ed))
        if not group_rows:
            continue
        rows.extend(group_rows)
        name = f"feedback-{_name_part(suite)}-{_name_part(kind)}-{_name_part(rest)}"
        series = [
            Series(
                label=mode,
                x=[r.agent for r in group_rows],
                y=[getattr(r, mode) for r in group_rows],
                low=[getattr(r, f"{mode}_low") for r in group_rows],
                high=[getattr(r, f"{mode}_high") for r in group_rows],
            )
            for mode in _MODES
        ]
        figures.append(
            Figure(
                name=name,
                title=f"{suite} {kind} {rest}: instant vs deferred feedback",
                x_label="agent",
                y_label="score",
                chart="bar",
                series=series,
                y_range=(0.0, 1.0),
                caption="Score per agent with each feedback mode; whiskers: 95% intervals.",
                section="feedback",
            )
        )
    if not rows:
        return SectionContent()
    columns = (
        Column("suite", "suite"),
        Column("kind", "kind"),
        Column("setting", "setting"),
        Column("agent", "agent"),
        _ci_column("instant", "score instant"),
        _ci_column("deferred", "score deferred"),
        _ci_column("efficiency_instant", "efficiency instant"),
        _ci_column("efficiency_deferred", "efficiency deferred"),
    )
    table = ReportTable("Instant vs deferred feedback", columns, tuple(rows))
    return SectionContent(tables=(table,), figures=tuple(figures))


# -- budget ----------------------------------------------------------------------


@dataclass(frozen=True)
class BudgetRow:
    suite: str
    kind: str
    feedback: str
    agent: str
    budget: int
    runs: str
    boxes: int
    score: float | None
    score_low: float | None
    score_high: float | None


def _budget_of(run: AnalysedRun) -> int | None:
    budgets = {a.budget for a in run.analyses}
    return budgets.pop() if len(budgets) == 1 else None


@register_section("budget", order=50, title="Score vs budget")
def budget_section(runs: RunSet) -> SectionContent:
    """Per agent, score by exploration budget, for runs of one suite, kind and feedback
    mode with different budgets (runs of the same budget pooled)."""
    grouped: dict[tuple[str, str, str], dict[int, list[AnalysedRun]]] = defaultdict(
        lambda: defaultdict(list)
    )
    for run in runs.runs:
        budget = _budget_of(run)
        if budget is None:
            continue
        feedback = {a.feedback for a in run.analyses}
        mode = str(feedback.pop()) if len(feedback) == 1 else "mixed"
        grouped[(run.suite, run.kind.title, mode)][budget].append(run)
    rows: list[BudgetRow] = []
    figures: list[Figure] = []
    for (suite, kind, mode), by_budget in sorted(grouped.items()):
        if len(by_budget) < 2:
            continue
        budgets = sorted(by_budget)
        agents = _agents(a for rs in by_budget.values() for r in rs for a in r.analyses)
        series = []
        for agent in agents:
            points = []
            for budget in budgets:
                members = by_budget[budget]
                if not any(a.agent == agent for r in members for a in r.analyses):
                    continue
                parts = (suite, kind, mode, agent, budget)
                mean, low, high = _pooled(runs, members, agent, "score", *map(str, parts))
                boxes = len({a.box_id for r in members for a in r.analyses if a.agent == agent})
                row = BudgetRow(
                    suite,
                    kind,
                    mode,
                    agent,
                    budget,
                    ", ".join(r.id for r in members),
                    boxes,
                    mean,
                    low,
                    high,
                )
                points.append(row)
            rows.extend(points)
            series.append(
                Series(
                    label=agent,
                    x=[float(p.budget) for p in points],
                    y=[p.score for p in points],
                    low=[p.score_low for p in points],
                    high=[p.score_high for p in points],
                )
            )
        figures.append(
            Figure(
                name=f"budget-{_name_part(suite)}-{_name_part(kind)}-{_name_part(mode)}",
                title=f"{suite} {kind} {mode}: score vs budget",
                x_label="budget (exploration steps)",
                y_label="score",
                series=series,
                y_range=(0.0, 1.0),
                log_x=budgets[-1] >= 8 * max(budgets[0], 1),
                caption="Mean score per agent at each budget; band: 95% interval.",
                section="budget",
            )
        )
    if not rows:
        return SectionContent()
    columns = (
        Column("suite", "suite"),
        Column("kind", "kind"),
        Column("feedback", "feedback"),
        Column("agent", "agent"),
        Column("budget", "budget"),
        Column("runs", "runs"),
        Column("boxes", "boxes"),
        _ci_column("score", "score [95% CI]"),
    )
    table = ReportTable("Score vs budget", columns, tuple(rows))
    return SectionContent(tables=(table,), figures=tuple(figures))
