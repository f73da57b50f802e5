"""Several runs side by side: one long table of scores, and paired comparisons of agents.

Kind-independent: a run's episodes are read through the kind (``EpisodeKind.score`` for
the score, ``EpisodeKind.analyse`` for the family and level; a kind without ``analyse``
yet falls back on its records' ``family`` and ``level`` fields, level ``all`` when there
is none).

Scores follow the kinds' summaries: an episode failed through the agent scores 0, one
failed through the box or the infrastructure is not scored, and a box with a box failure
in any episode of the run is left out for every agent. A box's score is the mean over its
scored repetitions; a group's score is the mean of its box scores with the same seeded
two-level bootstrap interval as the summaries
(:func:`evaluator.reporting.hierarchical_bootstrap_ci`, stream ``(family, level, agent)``
seeded by the run's seed), so a turn@shot run's rows equal its ``summary.csv``. Rows of
level ``all`` pool the levels of a family that has several.

Paired comparisons (:func:`paired_rows`) pair, on the boxes both were evaluated on
(:func:`evaluator.analysis.stats.paired_comparison`): every two agents of a run; the same
agent in every two runs; and the agents of two runs that have one agent each (two models
run apart). Boxes of two runs are the same box when their ids match and, where both runs
recorded them, their digests too.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import statistics
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from evaluator.analysis.stats import holm, paired_comparison
from evaluator.failures import failed_boxes, scored
from evaluator.report import RunRecords, load_run
from evaluator.reporting import ALL_LEVELS, hierarchical_bootstrap_ci, rnd
from oracle_bench.errors import UsageError

__all__ = [
    "FORMATS",
    "Format",
    "PairedRow",
    "RunScores",
    "ScoreRow",
    "TextTable",
    "check_same_suite",
    "load_run_scores",
    "paired_rows",
    "paired_table",
    "render",
    "run_scores",
    "score_rows",
    "score_table",
    "sweep_table",
]

Format = Literal["csv", "md", "latex"]
FORMATS: tuple[Format, ...] = ("csv", "md", "latex")


@dataclass(frozen=True)
class EpisodeScore:
    """One episode as the comparisons see it."""

    box_id: str
    family: str
    level: str
    agent: str
    repetition: int
    score: float | None
    """The kind's score (agent failures 0); None: not scored."""
    failed: bool


@dataclass(frozen=True)
class RunScores:
    """A run's identity and its episodes' scores."""

    label: str
    """How the tables name the run: its folder's name unless two runs share one."""
    path: Path
    suite: str
    kind: str
    settings: str
    """The kind's label of the run's settings: ``10@1``, ``x2``."""
    feedback: str | None
    seed: int
    repeats: int
    agents: tuple[str, ...]
    box_digests: Mapping[str, str] | None
    excluded: frozenset[str]
    """Boxes left out for every agent (a box failure)."""
    episodes: tuple[EpisodeScore, ...]

    def box_scores(self, agent: str, family: str, level: str) -> dict[str, list[float]]:
        """Each box's scored repetition values for ``agent`` in one group (level
        :data:`ALL_LEVELS`: every level of the family); boxes left out are absent."""
        boxes: dict[str, list[float]] = defaultdict(list)
        for e in self.episodes:
            if (
                e.agent == agent
                and e.family == family
                and level in (ALL_LEVELS, e.level)
                and e.box_id not in self.excluded
                and e.score is not None
            ):
                boxes[e.box_id].append(e.score)
        return dict(sorted(boxes.items()))

    def groups(self) -> list[tuple[str, str]]:
        """(family, level) of the run, sorted, with a (family, ``all``) after a family's
        levels when it has several."""
        levels: dict[str, set[str]] = defaultdict(set)
        for e in self.episodes:
            levels[e.family].add(e.level)
        out: list[tuple[str, str]] = []
        for family in sorted(levels):
            out += [(family, level) for level in sorted(levels[family])]
            if len(levels[family]) > 1:
                out.append((family, ALL_LEVELS))
        return out


def _group_of(kind: Any, record: Any) -> tuple[str, str]:
    try:
        view = kind.analyse(record)
    except TypeError:  # a kind without analyse() yet: its records' own fields
        return str(record.family), str(getattr(record, "level", None) or ALL_LEVELS)
    return view.family, view.bucket or view.level


def _digests(records: RunRecords) -> dict[str, str] | None:
    for path in records.manifests:
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # load_run read it already; a digest-less comparison is still sound
        digests = raw.get("box_digests") if isinstance(raw, dict) else None
        if isinstance(digests, dict) and digests:
            return {str(k): str(v) for k, v in digests.items()}
    return None


def run_scores(records: RunRecords, label: str | None = None) -> RunScores:
    """The scores of a run read by :func:`evaluator.report.load_run` (or an Inspect log's
    loader); ``label`` defaults to the run folder's name."""
    s = records.settings
    kind = s.kind
    excluded = failed_boxes(records.trajectories)
    episodes = []
    for record in records.trajectories:
        family, level = _group_of(kind, record)
        if record.status == "completed":
            score = kind.score(record)
        else:
            score = 0.0 if scored(record) else None
        episodes.append(
            EpisodeScore(
                box_id=record.box_id,
                family=family,
                level=level,
                agent=record.agent,
                repetition=record.repetition,
                score=None if score is None else float(score),
                failed=record.status != "completed",
            )
        )
    episodes.sort(key=lambda e: (e.box_id, e.agent, e.repetition))
    agents = s.agents if s.agents is not None else tuple(sorted({e.agent for e in episodes}))
    identity = kind.settings_identity(s.settings)
    feedback = identity.get("feedback")
    return RunScores(
        label=label or records.run_dir.name,
        path=records.run_dir,
        suite=s.suite,
        kind=kind.name,
        settings=kind.label(s.settings),
        feedback=None if feedback is None else str(feedback),
        seed=s.seed,
        repeats=s.repeats,
        agents=tuple(a for a in agents if any(e.agent == a for e in episodes)),
        box_digests=_digests(records),
        excluded=excluded,
        episodes=tuple(episodes),
    )


def load_run_scores(run_dir: Path | str, label: str | None = None) -> RunScores:
    """:func:`run_scores` of the run folder ``run_dir`` (errors as ``load_run``)."""
    return run_scores(load_run(Path(run_dir)), label)


def check_same_suite(runs: Sequence[RunScores]) -> None:
    """:class:`UsageError` naming the first run whose suite (name, or box digests where
    both runs recorded them) differs from the first run's."""
    first = runs[0]
    for run in runs[1:]:
        if run.suite != first.suite:
            raise UsageError(
                f"runs over different suites: {first.path} ({first.suite}) vs {run.path} "
                f"({run.suite}); --allow-different-suites to compare them anyway"
            )
        if (
            first.box_digests is not None
            and run.box_digests is not None
            and first.box_digests != run.box_digests
        ):
            raise UsageError(
                f"runs over different boxes of suite {run.suite}: {first.path} vs "
                f"{run.path} (box digests differ); --allow-different-suites to compare "
                "them anyway"
            )


# -- the long table ---------------------------------------------------------------------


@dataclass(frozen=True)
class ScoreRow:
    """One run x family x level x agent."""

    run: str
    suite: str
    kind: str
    settings: str
    feedback: str | None
    seed: int
    repeats: int
    family: str
    level: str
    agent: str
    boxes: int
    """Boxes with a score."""
    episodes: int
    failed: int
    score: float | None
    ci_low: float | None
    ci_high: float | None


def score_rows(runs: Sequence[RunScores], *, seed: int | None = None) -> list[ScoreRow]:
    """The long table: one row per run x family x level x agent, runs in the order given.
    ``seed`` re-seeds every interval (default: each run's own seed, as its summary)."""
    rows = []
    for run in runs:
        for family, level in run.groups():
            for agent in run.agents:
                eps = [
                    e
                    for e in run.episodes
                    if e.agent == agent and e.family == family and level in (ALL_LEVELS, e.level)
                ]
                if not eps:
                    continue
                boxes = run.box_scores(agent, family, level)
                # Rounded as the summaries round box rows and bootstrap values, so that
                # the rows equal theirs.
                means = [m for v in boxes.values() if (m := rnd(statistics.fmean(v))) is not None]
                values = [[x for x in map(rnd, v) if x is not None] for v in boxes.values()]
                boot = run.seed if seed is None else seed
                ci = hierarchical_bootstrap_ci(values, boot, family, level, agent)
                rows.append(
                    ScoreRow(
                        run=run.label,
                        suite=run.suite,
                        kind=run.kind,
                        settings=run.settings,
                        feedback=run.feedback,
                        seed=run.seed,
                        repeats=run.repeats,
                        family=family,
                        level=level,
                        agent=agent,
                        boxes=len(means),
                        episodes=len(eps),
                        failed=sum(e.failed for e in eps),
                        score=rnd(statistics.fmean(means)) if means else None,
                        ci_low=rnd(ci[0]) if ci else None,
                        ci_high=rnd(ci[1]) if ci else None,
                    )
                )
    return rows


# -- paired comparisons -----------------------------------------------------------------


@dataclass(frozen=True)
class PairedRow:
    """A paired comparison of (run A, agent A) and (run B, agent B) in one group."""

    family: str
    level: str
    a_run: str
    a_agent: str
    b_run: str
    b_agent: str
    boxes: int
    mean_a: float
    mean_b: float
    diff: float
    ci_low: float
    ci_high: float
    p: float
    p_holm: float
    """Holm-adjusted over every row of the table."""
    test: str
    d_z: float | None
    a_better: float
    b_better: float


def _same_boxes(a: RunScores, b: RunScores) -> frozenset[str] | None:
    """Box ids that name different boxes in ``a`` and ``b`` (None: no digests to tell)."""
    if a is b or a.box_digests is None or b.box_digests is None:
        return None
    return frozenset(
        k for k in set(a.box_digests) & set(b.box_digests) if a.box_digests[k] != b.box_digests[k]
    )


def _pairs(
    runs: Sequence[RunScores],
) -> list[tuple[RunScores, str, RunScores, str]]:
    pairs = []
    for run in runs:
        pairs += [(run, x, run, y) for x, y in itertools.combinations(run.agents, 2)]
    for a, b in itertools.combinations(runs, 2):
        common = [agent for agent in a.agents if agent in b.agents]
        pairs += [(a, agent, b, agent) for agent in common]
        if len(a.agents) == 1 and len(b.agents) == 1 and not common:
            pairs.append((a, a.agents[0], b, b.agents[0]))
    return pairs


def paired_rows(runs: Sequence[RunScores], *, seed: int = 0) -> list[PairedRow]:
    """Every paired comparison of ``runs`` (see the module docstring), per family x level
    the two share, with Holm-adjusted p-values over all of them. ``seed`` seeds the
    bootstrap intervals and any Monte Carlo test."""
    found: list[tuple[str, str, RunScores, str, RunScores, str, Any]] = []
    for a, x, b, y in _pairs(runs):
        differ = _same_boxes(a, b) or frozenset()
        for family, level in a.groups():
            if (family, level) not in b.groups():
                continue
            sa = a.box_scores(x, family, level)
            sb = b.box_scores(y, family, level)
            ma = {k: statistics.fmean(v) for k, v in sa.items() if k not in differ}
            mb = {k: statistics.fmean(v) for k, v in sb.items() if k not in differ}
            result = paired_comparison(ma, mb, seed, a.label, x, b.label, y, family, level)
            if result is not None:
                found.append((family, level, a, x, b, y, result))
    adjusted = holm([r[-1].p_value for r in found])
    rows = []
    for (family, level, a, x, b, y, r), p_holm in zip(found, adjusted, strict=True):
        rows.append(
            PairedRow(
                family=family,
                level=level,
                a_run=a.label,
                a_agent=x,
                b_run=b.label,
                b_agent=y,
                boxes=r.boxes,
                mean_a=_r(r.mean_a),
                mean_b=_r(r.mean_b),
                diff=_r(r.mean_diff),
                ci_low=_r(r.ci_low),
                ci_high=_r(r.ci_high),
                p=_r(r.p_value),
                p_holm=_r(p_holm),
                test=r.test,
                d_z=rnd(r.d_z),
                a_better=_r(r.a_better),
                b_better=_r(r.b_better),
            )
        )
    return rows


def _r(value: float) -> float:
    rounded = rnd(value)
    return value if rounded is None else rounded


# -- tables -----------------------------------------------------------------------------


@dataclass(frozen=True)
class TextTable:
    """A table to render: column names, which are numeric (right-aligned), and rows of
    cells (None: empty). CSV writes the cells as they are; Markdown and LaTeX as text."""

    title: str
    columns: tuple[str, ...]
    numeric: frozenset[str]
    rows: tuple[tuple[Any, ...], ...]
    text: Mapping[str, Callable[[Any], str]]
    """Per column, how Markdown and LaTeX show a cell (default: ``str``)."""


def _num(digits: int) -> Callable[[Any], str]:
    return lambda v: "" if v is None else f"{v:.{digits}f}"


def _p(v: Any) -> str:
    if v is None:
        return ""
    return "<0.0001" if v < 0.0001 else f"{v:.4f}"


def score_table(rows: Sequence[ScoreRow]) -> TextTable:
    """The long table of :func:`score_rows`."""
    columns = (
        "run",
        "suite",
        "kind",
        "settings",
        "feedback",
        "seed",
        "repeats",
        "family",
        "level",
        "agent",
        "boxes",
        "episodes",
        "failed",
        "score",
        "ci_low",
        "ci_high",
    )
    return TextTable(
        title="Scores (mean of box means, 95% bootstrap CI over boxes and repetitions)",
        columns=columns,
        numeric=frozenset(columns[-6:]) | {"seed", "repeats"},
        rows=tuple(tuple(getattr(r, c) for c in columns) for r in rows),
        text={"score": _num(3), "ci_low": _num(3), "ci_high": _num(3)},
    )


def paired_table(rows: Sequence[PairedRow]) -> TextTable:
    """The paired comparisons of :func:`paired_rows`."""
    columns = (
        "family",
        "level",
        "a_run",
        "a_agent",
        "b_run",
        "b_agent",
        "boxes",
        "mean_a",
        "mean_b",
        "diff",
        "ci_low",
        "ci_high",
        "p",
        "p_holm",
        "test",
        "d_z",
        "a_better",
        "b_better",
    )
    three = _num(3)
    return TextTable(
        title="Paired comparisons on the same boxes (A - B; 95% paired bootstrap CI; "
        "two-sided sign-flip permutation test; p_holm: Holm-adjusted over the table)",
        columns=columns,
        numeric=frozenset(columns[6:]) - {"test"},
        rows=tuple(tuple(getattr(r, c) for c in columns) for r in rows),
        text={
            "mean_a": three,
            "mean_b": three,
            "diff": three,
            "ci_low": three,
            "ci_high": three,
            "p": _p,
            "p_holm": _p,
            "d_z": _num(2),
            "a_better": _num(2),
            "b_better": _num(2),
        },
    )


def sweep_table(runs: Sequence[RunScores], rows: Sequence[ScoreRow]) -> TextTable:
    """Score per agent (rows: family, level, agent) per run (columns: each run's
    settings label, e.g. a sweep's budgets), ``0.62 [0.50, 0.75]`` per cell."""
    labels = [run.settings if run.settings else run.label for run in runs]
    if len(set(labels)) < len(labels):
        labels = [run.label for run in runs]
    by_run = {run.label: label for run, label in zip(runs, labels, strict=True)}
    keys: list[tuple[str, str, str]] = []
    cells: dict[tuple[str, str, str, str], str] = {}
    for r in rows:
        key = (r.family, r.level, r.agent)
        if key not in keys:
            keys.append(key)
        ci = "" if r.ci_low is None or r.ci_high is None else f" [{r.ci_low:.2f}, {r.ci_high:.2f}]"
        cells[(*key, by_run[r.run])] = "-" if r.score is None else f"{r.score:.2f}{ci}"
    keys.sort(key=lambda k: (k[0], k[1] == ALL_LEVELS, k[1]))
    return TextTable(
        title="Score per agent and setting (95% CI)",
        columns=("family", "level", "agent", *labels),
        numeric=frozenset(labels),
        rows=tuple((*k, *(cells.get((*k, label)) for label in labels)) for k in keys),
        text={},
    )


_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def _latex(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(c, c) for c in text)


def _md(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def _texts(table: TextTable) -> list[list[str]]:
    return [
        [
            "" if v is None else table.text.get(c, str)(v)
            for c, v in zip(table.columns, row, strict=True)
        ]
        for row in table.rows
    ]


def render(table: TextTable, fmt: Format) -> str:
    """``table`` as CSV (a header line, raw cells), a Markdown pipe table (under a
    ``**title**`` line) or a LaTeX ``tabular`` with booktabs rules (text escaped)."""
    if fmt == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(table.columns)
        writer.writerows(["" if v is None else v for v in row] for row in table.rows)
        return buffer.getvalue()
    texts = _texts(table)
    right = [c in table.numeric for c in table.columns]
    if fmt == "md":
        lines = [
            f"**{_md(table.title)}**",
            "",
            "| " + " | ".join(_md(c) for c in table.columns) + " |",
            "|" + "|".join("---:" if r else ":---" for r in right) + "|",
        ]
        lines += ["| " + " | ".join(_md(t) for t in row) + " |" for row in texts]
        return "\n".join(lines) + "\n"
    if fmt == "latex":
        spec = "".join("r" if r else "l" for r in right)
        lines = [
            f"% {table.title}",
            f"\\begin{{tabular}}{{{spec}}}",
            "\\toprule",
            " & ".join(_latex(c) for c in table.columns) + r" \\",
            "\\midrule",
        ]
        lines += [" & ".join(_latex(t) for t in row) + r" \\" for row in texts]
        lines += ["\\bottomrule", "\\end{tabular}"]
        return "\n".join(lines) + "\n"
    raise UsageError(f"invalid format {fmt!r}: use {', '.join(FORMATS)}")
