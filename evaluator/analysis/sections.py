"""The HTML report's sections: a registry any module can add to, and what they read.

A section is a function of the report's runs (:class:`RunSet`) to its content
(:class:`SectionContent`: tables, figures, notes), registered under a name and an order::

    from evaluator.analysis.sections import (
        Column, ReportTable, RunSet, SectionContent, register_section,
    )

    @register_section("tiers", order=45, title="Exploration tiers")
    def tiers_section(runs: RunSet) -> SectionContent:
        rows = [...]  # frozen dataclasses or pydantic models, one per table row
        table = ReportTable("Tiers", (Column("agent", "agent"), Column("tier", "tier")), rows)
        return SectionContent(tables=(table,), figures=(...,))

Sections are drawn in ``(order, name)`` order; the built-in ones
(:mod:`evaluator.analysis.generic_sections`) use 10 (runs), 20 (results), 30
(information), 40 (feedback), 50 (budget); the kinds' own figures
(``EpisodeKind.figures``) join the section named by their ``Figure.section`` (a new one,
after the registered ones, for a name no section has). A section with nothing to show
returns an empty :class:`SectionContent` and is left out of the page.

:func:`load_sections` imports every public module of :mod:`evaluator.analysis` before a
report is built, so a module there that registers a section at import is all it takes
(a module elsewhere must be imported before the report is built). Everything a section
gets is data: it reads ``RunSet.runs`` (each run's records, its episodes as
:class:`~evaluator.analysis.EpisodeAnalysis`, and on demand the kind's summary) and
never prints. Text in tables, notes and figure labels is escaped when rendered; the
``html`` field is the one place for markup, and the section must escape any data it puts
there (:func:`html.escape`).
"""

from __future__ import annotations

import functools
import importlib
import logging
import pkgutil
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evaluator.analysis._model import EpisodeAnalysis, Figure

if TYPE_CHECKING:
    from evaluator.kinds import EpisodeKind, KindSummary
    from evaluator.report import RunRecords

__all__ = [
    "AnalysedRun",
    "Column",
    "ProgressCallback",
    "ReportProgress",
    "ReportTable",
    "RunSet",
    "Section",
    "SectionBuilder",
    "SectionContent",
    "analyse_runs",
    "load_sections",
    "register_section",
    "registered_sections",
    "source_name",
]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ReportProgress:
    """How far a report build is: ``done`` of ``total`` steps of ``stage``."""

    stage: str
    """``analysing``, ``sections``, ``figures``."""
    done: int
    total: int


ProgressCallback = Callable[[ReportProgress], None]


@dataclass(frozen=True)
class Column:
    """A column of a :class:`ReportTable`: the attribute ``key`` of each row."""

    key: str
    label: str
    digits: int = 3
    """Decimals of a float cell."""
    low: str | None = None
    """The attribute holding the lower end of the value's 95% interval, shown as
    ``0.500 [0.300, 0.700]`` (None: no interval)."""
    high: str | None = None


@dataclass(frozen=True)
class ReportTable:
    """A table as data: rows (frozen dataclasses or pydantic models) read by column key."""

    title: str
    columns: tuple[Column, ...]
    rows: tuple[Any, ...]
    caption: str | None = None


@dataclass(frozen=True)
class SectionContent:
    """What a section shows, in this order: notes, tables, figures, then ``html``."""

    tables: tuple[ReportTable, ...] = ()
    figures: tuple[Figure, ...] = ()
    notes: tuple[str, ...] = ()
    """Paragraphs of plain text (escaped when rendered)."""
    html: str = ""
    """Markup of the section's own (trusted: escape any data in it)."""

    @property
    def empty(self) -> bool:
        return not (self.tables or self.figures or self.notes or self.html)


SectionBuilder = Callable[["RunSet"], SectionContent]


@dataclass(frozen=True)
class Section:
    """A registered section."""

    name: str
    """Its anchor, and what ``Figure.section`` names to join it."""
    title: str
    order: int
    build: SectionBuilder


_SECTIONS: dict[str, Section] = {}


def register_section(
    name: str, order: int, *, title: str | None = None
) -> Callable[[SectionBuilder], SectionBuilder]:
    """Register the decorated function as the report section ``name`` (its heading
    ``title``, default ``name`` capitalised), drawn in ``order``. Registering a name
    again replaces the earlier one (a module reloaded)."""

    def register(build: SectionBuilder) -> SectionBuilder:
        _SECTIONS[name] = Section(
            name=name, title=title or name.capitalize(), order=order, build=build
        )
        return build

    return register


def registered_sections() -> list[Section]:
    """Every registered section, in drawing order."""
    return sorted(_SECTIONS.values(), key=lambda s: (s.order, s.name))


def load_sections() -> list[Section]:
    """Import every public module of :mod:`evaluator.analysis` (each registers its
    sections at import), then :func:`registered_sections`."""
    import evaluator.analysis as package

    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        if not info.name.startswith("_"):
            importlib.import_module(f"{package.__name__}.{info.name}")
    return registered_sections()


@dataclass(frozen=True)
class AnalysedRun:
    """One run of the report: its records and their analyses (parallel)."""

    id: str
    """``r1``, ``r2``... in the order the runs were given."""
    records: RunRecords
    analyses: tuple[EpisodeAnalysis, ...]
    """One per trajectory, parallel to ``records.trajectories``; empty when the kind does
    not implement ``EpisodeKind.analyse`` (see ``analysed``)."""
    analysed: bool = True

    @property
    def kind(self) -> EpisodeKind:
        return self.records.settings.kind

    @property
    def suite(self) -> str:
        return self.records.settings.suite

    @property
    def seed(self) -> int:
        return self.records.settings.seed

    @property
    def setting(self) -> str:
        """The kind's label of the run's settings: ``10@1``, ``x2``."""
        s = self.records.settings
        return s.kind.label(s.settings)

    @property
    def definition(self) -> dict[str, Any]:
        """What defines the run's results besides suite and seed (``spec``, ``feedback``...)."""
        s = self.records.settings
        return s.kind.definition(s.settings)

    @property
    def label(self) -> str:
        """``r1 ERI-easy turn@shot 10@1 instant seed 0``: for legends and filters."""
        feedback = self.definition.get("feedback")
        tail = f" {feedback}" if isinstance(feedback, str) else ""
        return f"{self.id} {self.suite} {self.kind.title} {self.setting}{tail} seed {self.seed}"

    @functools.cached_property
    def summary(self) -> KindSummary:
        """The kind's own summary of the run (``summarise_run``), computed once on demand."""
        from evaluator.report import summarise_run

        return summarise_run(self.records).summary


@dataclass(frozen=True)
class RunSet:
    """The runs of one report, in the order given."""

    runs: tuple[AnalysedRun, ...]
    seed: int | None = None
    """The bootstrap seed of every interval (None: each run's own seed)."""
    progress: ProgressCallback | None = field(default=None, compare=False, repr=False)

    def ci_seed(self, run: AnalysedRun) -> int:
        """The seed of ``run``'s bootstrap intervals."""
        return run.seed if self.seed is None else self.seed

    def episodes(self) -> Iterator[tuple[AnalysedRun, EpisodeAnalysis]]:
        """Every analysed episode with its run, run by run, in record order."""
        for run in self.runs:
            for analysis in run.analyses:
                yield run, analysis

    def by_kind(self) -> dict[str, list[AnalysedRun]]:
        """The analysed runs of each kind (by registry name), kinds in first-seen order."""
        out: dict[str, list[AnalysedRun]] = {}
        for run in self.runs:
            if run.analysed:
                out.setdefault(run.kind.name, []).append(run)
        return out


def _implements_analyse(kind: EpisodeKind) -> bool:
    from evaluator.kinds import EpisodeKind

    return type(kind).analyse is not EpisodeKind.analyse


def analyse_runs(
    runs: Sequence[RunRecords],
    *,
    seed: int | None = None,
    progress: ProgressCallback | None = None,
) -> RunSet:
    """Analyse every record of ``runs`` with its kind's ``analyse`` (runs of a kind that
    does not implement it are kept, without episodes, and logged)."""
    total = sum(len(r.trajectories) for r in runs)
    done = 0
    out: list[AnalysedRun] = []
    for i, records in enumerate(runs, start=1):
        kind = records.settings.kind
        if not _implements_analyse(kind):
            log.warning(
                "%s: the %s kind has no analyse(); no episodes", records.run_dir, kind.title
            )
            out.append(AnalysedRun(id=f"r{i}", records=records, analyses=(), analysed=False))
            done += len(records.trajectories)
            continue
        analyses = []
        for record in records.trajectories:
            analyses.append(kind.analyse(record))
            done += 1
            if progress is not None:
                progress(ReportProgress("analysing", done, total))
        out.append(AnalysedRun(id=f"r{i}", records=records, analyses=tuple(analyses)))
    return RunSet(runs=tuple(out), seed=seed, progress=progress)


def source_name(path: Path) -> str:
    """A run's folder or log as the report names it: its last two path parts."""
    return "/".join(Path(path).parts[-2:])
