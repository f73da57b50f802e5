"""The HTML report of one or more runs: one self-contained file (inline CSS, inline SVG
figures, a small vanilla-JS trajectory viewer, no network), and the figure files.

The page is the registered sections (:mod:`evaluator.analysis.sections`) in order, the
kinds' own figures (``EpisodeKind.figures`` over every given run of the kind) joined to
the section their ``Figure.section`` names, then the trajectory viewer: every episode's
:class:`~evaluator.analysis.EpisodeAnalysis` as JSON in a ``<script
type="application/json">`` (every ``<``, ``>`` and ``&`` escaped, so no text from a model
closes the tag), listed in a filterable table; ``#episode=<n>`` opens episode ``n``. The
viewer inserts every string with ``textContent``. The same runs give the same bytes.
"""

from __future__ import annotations

import html
import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evaluator.analysis._model import Figure
from evaluator.analysis.sections import (
    ProgressCallback,
    ReportProgress,
    ReportTable,
    RunSet,
    Section,
    SectionContent,
    load_sections,
)

__all__ = [
    "BuiltReport",
    "BuiltSection",
    "ReportFiles",
    "build_report",
    "render_html",
    "write_figures",
    "write_report",
]

if TYPE_CHECKING:
    from evaluator.report import RunRecords

log = logging.getLogger(__name__)

_UNKNOWN_SECTION_ORDER = 1000


@dataclass(frozen=True)
class BuiltSection:
    """A section with its content, the kinds' figures for it added."""

    name: str
    title: str
    content: SectionContent


@dataclass(frozen=True)
class BuiltReport:
    """Everything the page shows, as data."""

    runs: RunSet
    sections: tuple[BuiltSection, ...]

    @property
    def figures(self) -> list[Figure]:
        """Every figure in page order."""
        return [f for s in self.sections for f in s.content.figures]


def _kind_figures(runs: RunSet) -> list[Figure]:
    out: list[Figure] = []
    for members in runs.by_kind().values():
        kind = members[0].kind
        analyses = [a for r in members for a in r.analyses]
        records = [t for r in members for t in r.records.trajectories]
        out.extend(kind.figures(analyses, records))
    return out


def build_report(runs: RunSet, sections: Sequence[Section] | None = None) -> BuiltReport:
    """Build every section of ``runs`` (default: :func:`load_sections`), add the kinds'
    figures, and leave out empty sections."""
    chosen = list(load_sections() if sections is None else sections)
    built: list[tuple[int, str, str, SectionContent]] = []
    for i, section in enumerate(chosen, start=1):
        built.append((section.order, section.name, section.title, section.build(runs)))
        if runs.progress is not None:
            runs.progress(ReportProgress("sections", i, len(chosen) + 1))
    extra = _kind_figures(runs)
    if runs.progress is not None:
        runs.progress(ReportProgress("sections", len(chosen) + 1, len(chosen) + 1))
    for figure in extra:
        at = next((i for i, b in enumerate(built) if b[1] == figure.section), None)
        if at is None:
            title = figure.section.replace("-", " ").replace("_", " ").capitalize()
            built.append((_UNKNOWN_SECTION_ORDER, figure.section, title, SectionContent()))
            at = len(built) - 1
        order, name, title, content = built[at]
        content = SectionContent(
            tables=content.tables,
            figures=(*content.figures, figure),
            notes=content.notes,
            html=content.html,
        )
        built[at] = (order, name, title, content)
    built.sort(key=lambda b: (b[0], b[1]))
    return BuiltReport(
        runs=runs,
        sections=tuple(BuiltSection(n, t, c) for _, n, t, c in built if not c.empty),
    )


def _unique_names(figures: Sequence[Figure]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for figure in figures:
        n = seen.get(figure.name, 0) + 1
        seen[figure.name] = n
        if n > 1:
            log.warning("two figures named %s: the second is %s-%d", figure.name, figure.name, n)
        out.append(figure.name if n == 1 else f"{figure.name}-{n}")
    return out


def write_figures(
    report: BuiltReport,
    out_dir: Path,
    formats: Sequence[str] = ("png",),
    *,
    progress: ProgressCallback | None = None,
) -> list[Path]:
    """Write every figure of ``report`` as ``out_dir/<Figure.name>.<format>``; the paths."""
    from evaluator.analysis._render import render_figure
    from oracle_bench.jsonio import atomic_write_bytes

    out_dir.mkdir(parents=True, exist_ok=True)
    figures = report.figures
    written = []
    for i, (figure, name) in enumerate(zip(figures, _unique_names(figures), strict=True), 1):
        for fmt in formats:
            path = out_dir / f"{name}.{fmt}"
            atomic_write_bytes(path, render_figure(figure, fmt))
            written.append(path)
        if progress is not None:
            progress(ReportProgress("figures", i, len(figures)))
    return written


# -- HTML ------------------------------------------------------------------------


def _asset(name: str) -> str:
    return resources.files("evaluator.analysis").joinpath(name).read_text(encoding="utf-8")


def _cell(value: Any, digits: int) -> str:
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def _field(row: Any, key: str) -> Any:
    return getattr(row, key, None)


def _table_html(table: ReportTable) -> str:
    e = html.escape
    head = "".join(f"<th>{e(c.label)}</th>" for c in table.columns)
    body = []
    for row in table.rows:
        cells = []
        for c in table.columns:
            value = _field(row, c.key)
            text = _cell(value, c.digits)
            if c.low is not None and c.high is not None and value is not None:
                low, high = _field(row, c.low), _field(row, c.high)
                if low is not None and high is not None:
                    text += f" [{_cell(low, c.digits)}, {_cell(high, c.digits)}]"
            numeric = isinstance(value, int | float) and not isinstance(value, bool)
            cells.append(f'<td class="num">{e(text)}</td>' if numeric else f"<td>{e(text)}</td>")
        body.append(f"<tr>{''.join(cells)}</tr>")
    caption = f'<p class="caption">{e(table.caption)}</p>' if table.caption else ""
    return (
        f'<div class="table"><h3>{e(table.title)}</h3><table><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table>{caption}</div>\n"
    )


def _figure_html(figure: Figure, index: int, progress: ProgressCallback | None, total: int) -> str:
    from evaluator.analysis._render import inline_svg

    svg = inline_svg(figure, f"f{index}-")
    if progress is not None:
        progress(ReportProgress("figures", index, total))
    caption = f"<figcaption>{html.escape(figure.caption)}</figcaption>" if figure.caption else ""
    return f'<figure id="figure-{html.escape(figure.name)}">{svg}{caption}</figure>\n'


def _episodes_json(runs: RunSet) -> str:
    episodes = []
    for n, (run, analysis) in enumerate(runs.episodes()):
        data = analysis.model_dump(mode="json")
        data["n"] = n
        data["run"] = run.id
        episodes.append(data)
    payload = {
        "runs": [{"id": r.id, "label": r.label} for r in runs.runs],
        "episodes": episodes,
    }
    text = json.dumps(payload, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    # Nothing in the data can end the <script> element or open a comment in it.
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


_CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
    "img-src data:; base-uri 'none'; form-action 'none'"
)


def render_html(report: BuiltReport, *, title: str = "oracle-bench report") -> str:
    """The report as one HTML page (no network, nothing outside the file)."""
    e = html.escape
    runs = report.runs
    progress = runs.progress
    total = len(report.figures)
    episodes = sum(len(r.analyses) for r in runs.runs)
    nav = "".join(f'<a href="#{e(s.name)}">{e(s.title)}</a>' for s in report.sections)
    parts = [
        "<!DOCTYPE html>\n",
        '<html lang="en"><head><meta charset="utf-8">\n',
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">\n',
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n',
        f"<title>{e(title)}</title>\n<style>\n{_asset('_viewer.css')}</style>\n</head>\n<body>\n",
        f"<header><h1>{e(title)}</h1>",
        f'<p class="sub">{len(runs.runs)} run(s), {episodes} episode(s), {total} figure(s)</p>',
        f'<nav>{nav}<a href="#trajectories">Trajectories</a></nav></header>\n<main>\n',
    ]
    index = 0
    for section in report.sections:
        c = section.content
        parts.append(f'<section id="{e(section.name)}"><h2>{e(section.title)}</h2>\n')
        parts.extend(f"<p>{e(note)}</p>\n" for note in c.notes)
        parts.extend(_table_html(t) for t in c.tables)
        if c.figures:
            parts.append('<div class="figures">\n')
            for figure in c.figures:
                index += 1
                parts.append(_figure_html(figure, index, progress, total))
            parts.append("</div>\n")
        parts.append(c.html)
        parts.append("</section>\n")
    parts.append(
        '<section id="trajectories"><h2>Trajectories</h2>\n'
        '<p class="caption">Every episode; choose one to see it step by step '
        "(the address #episode=N opens episode N).</p>\n"
        '<div id="filters"></div>\n<div id="episode-list"></div>\n'
        '<div id="episode"></div>\n</section>\n</main>\n'
    )
    parts.append(
        f'<script type="application/json" id="report-data">{_episodes_json(runs)}</script>\n'
    )
    parts.append(f"<script>\n{_asset('_viewer.js')}</script>\n</body></html>\n")
    return "".join(parts)


@dataclass(frozen=True)
class ReportFiles:
    """What :func:`write_report` wrote."""

    report: BuiltReport
    html: Path | None
    figures: tuple[Path, ...]


def write_report(
    runs: Sequence[RunRecords],
    *,
    html_path: Path | None = None,
    figures_dir: Path | None = None,
    formats: Sequence[str] = ("png",),
    seed: int | None = None,
    progress: ProgressCallback | None = None,
) -> ReportFiles:
    """Analyse ``runs`` (``evaluator.report.load_runs``), build the report, and write the
    HTML page to ``html_path`` and/or every figure into ``figures_dir`` (one file per
    format: ``<Figure.name>.<format>``). ``seed``: the bootstrap seed (default: each
    run's own)."""
    from evaluator.analysis._render import FORMATS
    from evaluator.analysis.sections import analyse_runs
    from oracle_bench.errors import UsageError
    from oracle_bench.jsonio import atomic_write_text

    unknown = [f for f in formats if f not in FORMATS]
    if unknown:
        raise UsageError(f"unknown figure format {unknown[0]!r} (one of {', '.join(FORMATS)})")
    report = build_report(analyse_runs(runs, seed=seed, progress=progress))
    written: list[Path] = []
    if figures_dir is not None:
        written = write_figures(report, Path(figures_dir), formats, progress=progress)
    if html_path is not None:
        html_path = Path(html_path)
        html_path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(html_path, render_html(report))
    return ReportFiles(report=report, html=html_path, figures=tuple(written))
