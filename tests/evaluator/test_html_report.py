"""The HTML report of several runs (``oracle-eval report RUN_DIR... --html``): its
sections as data, its numbers, its page (self-contained, deterministic, hostile text kept
as text) and the figure files. The page in a real browser: test_report_chromium.py."""

from __future__ import annotations

import dataclasses
import html
import json
import re
import shutil
from pathlib import Path

import pytest

from evaluator._report_cli import report_main
from evaluator.analysis import (
    AnalysedRun,
    Column,
    ConversationMessage,
    EpisodeAnalysis,
    ReportProgress,
    ReportTable,
    RunSet,
    SectionContent,
    StepView,
    analyse_runs,
)
from evaluator.analysis import sections as sections_module
from evaluator.analysis.generic_sections import (
    budget_section,
    feedback_section,
    information_section,
    results_section,
)
from evaluator.analysis.html_report import build_report, render_html, write_report
from evaluator.report import RunRecords, load_run
from evaluator.spec import parse_spec

FIXTURES = Path(__file__).parent / "fixtures" / "runs"
HOSTILE = '</script><script>alert(1)</script><!-- <img src=x onerror=alert(2)> & "'


@pytest.fixture(scope="module")
def eri() -> RunRecords:
    return load_run(FIXTURES / "eri-easy-2at1")


@pytest.fixture(scope="module")
def dfa() -> RunRecords:
    return load_run(FIXTURES / "dfa-x2")


def _episode(
    box: str, agent: str, score: float | None, info: float | None, **more: object
) -> EpisodeAnalysis:
    fields: dict[str, object] = {
        "box_id": box,
        "family": "ERI",
        "level": "easy",
        "rule_kind": "affine",
        "agent": agent,
        "repetition": 0,
        "kind": "turns",
        "setting": "2@1",
        "budget": 2,
        "feedback": "instant",
        "status": "completed",
        "score": score,
        "log2_h": 8.0,
        "t_info": 2,
        "info_total": info,
    }
    fields.update(more)
    return EpisodeAnalysis.model_validate(fields)


def _run(
    records: RunRecords, run_id: str, analyses: list[EpisodeAnalysis], **settings: object
) -> AnalysedRun:
    """``records`` (for its kind and identity) with other settings and made-up analyses."""
    s = records.settings
    mine = dataclasses.replace(s, settings=dataclasses.replace(s.settings, **settings))
    return AnalysedRun(
        id=run_id,
        records=dataclasses.replace(records, settings=mine),
        analyses=tuple(analyses),
    )


def _made_up(
    records: RunRecords, feedback: str, budget: int, scale: float
) -> list[EpisodeAnalysis]:
    out = []
    for box in ("B1", "B2"):
        out.append(_episode(box, "adaptive", 1.0, 4.0, feedback=feedback, budget=budget))
        out.append(_episode(box, "random", scale, 2.0 * scale, feedback=feedback, budget=budget))
    return out


# -- the numbers -------------------------------------------------------------------


def test_scores_and_efficiency_are_box_means_against_the_reference(eri: RunRecords) -> None:
    analyses = [
        _episode("B1", "adaptive", 1.0, 4.0),
        _episode("B2", "adaptive", 0.5, 8.0),
        _episode("B1", "random", 0.0, 2.0),
        _episode("B2", "random", 1.0, 2.0),
        # an agent's failure scores 0; a box failure leaves the box out for everyone
        _episode("B3", "adaptive", None, None, status="failed", failure="agent"),
        _episode("B4", "random", None, None, status="failed", failure="box"),
        _episode("B4", "adaptive", 1.0, 1.0),
    ]
    runs = RunSet(runs=(_run(eri, "r1", analyses),))
    results = results_section(runs)
    (table,) = results.tables
    by_agent = {r.agent: r for r in table.rows}
    assert by_agent["adaptive"].score == pytest.approx((1.0 + 0.5 + 0.0) / 3)
    assert by_agent["adaptive"].boxes == 3
    assert by_agent["random"].score == 0.5
    assert by_agent["random"].score_low is not None
    assert by_agent["random"].score_low <= 0.5 <= by_agent["random"].score_high
    assert [f.name for f in results.figures] == ["r1-score"]

    info = information_section(runs)
    (eff,) = info.tables
    rows = {r.agent: r for r in eff.rows}
    assert rows["adaptive"].efficiency == 1.0
    assert rows["random"].efficiency == pytest.approx((0.5 + 0.25) / 2)
    assert rows["random"].reference == "adaptive"
    # no episode has steps with bits: no information curve
    assert [f.name for f in info.figures] == ["r1-efficiency"]


def test_cumulative_information_keeps_an_early_stop(eri: RunRecords) -> None:
    steps = [StepView(index=1, action="a", result="b", bits=1.5)]
    long = [*steps, StepView(index=2, action="c", result="d", bits=None, valid=False)]
    long.append(StepView(index=3, action="e", result="f", bits=2.0))
    analyses = [
        _episode("B1", "adaptive", 1.0, 3.5, steps=long),
        _episode("B2", "adaptive", 1.0, 1.5, steps=steps),
    ]
    info = information_section(RunSet(runs=(_run(eri, "r1", analyses),)))
    curve = info.figures[0]
    assert curve.name == "r1-information-eri-easy"
    adaptive = next(s for s in curve.series if s.label == "adaptive")
    assert adaptive.x == [1.0, 2.0, 3.0]
    assert adaptive.y == [1.5, 1.5, (3.5 + 1.5) / 2]
    guides = [s for s in curve.series if s.guide]
    assert [s.label for s in guides] == ["mean log2|H|", "mean T_info"]
    assert (guides[0].y, guides[1].x) == ([8.0, 8.0], [2.0, 2.0])


def test_instant_vs_deferred_pairs_runs_that_differ_in_feedback_only(eri: RunRecords) -> None:
    instant = _run(eri, "r1", _made_up(eri, "instant", 2, 1.0))
    deferred = _run(eri, "r2", _made_up(eri, "deferred", 2, 0.5), feedback="deferred")
    other = _run(eri, "r3", _made_up(eri, "instant", 4, 1.0), spec=parse_spec("4@1"))
    content = feedback_section(RunSet(runs=(instant, deferred, other)))
    (table,) = content.tables
    rows = {r.agent: r for r in table.rows}
    assert set(rows) == {"adaptive", "random"}
    assert (rows["random"].instant, rows["random"].deferred) == (1.0, 0.5)
    assert (rows["random"].efficiency_instant, rows["random"].efficiency_deferred) == (0.5, 0.25)
    assert rows["random"].setting == "spec=2@1"
    assert [s.label for s in content.figures[0].series] == ["instant", "deferred"]
    # no pair: nothing to show
    assert feedback_section(RunSet(runs=(instant, other))).empty


def test_score_by_budget_across_runs(eri: RunRecords) -> None:
    small = _run(eri, "r1", _made_up(eri, "instant", 2, 0.5))
    large = _run(eri, "r2", _made_up(eri, "instant", 4, 1.0), spec=parse_spec("4@1"))
    content = budget_section(RunSet(runs=(small, large)))
    (figure,) = content.figures
    random = next(s for s in figure.series if s.label == "random")
    assert (random.x, random.y) == ([2.0, 4.0], [0.5, 1.0])
    assert [(r.agent, r.budget, r.runs) for r in content.tables[0].rows] == [
        ("adaptive", 2, "r1"),
        ("adaptive", 4, "r2"),
        ("random", 2, "r1"),
        ("random", 4, "r2"),
    ]
    assert budget_section(RunSet(runs=(small,))).empty


# -- the page ----------------------------------------------------------------------


def _payload(page: str) -> dict[str, object]:
    found = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', page)
    assert found is not None
    data: dict[str, object] = json.loads(found.group(1))
    return data


def test_stored_runs_make_one_deterministic_self_contained_page(
    eri: RunRecords, dfa: RunRecords, tmp_path: Path
) -> None:
    events: list[ReportProgress] = []
    first = write_report([eri, dfa], html_path=tmp_path / "a.html", progress=events.append)
    write_report([eri, dfa], html_path=tmp_path / "b.html")
    page = (tmp_path / "a.html").read_text(encoding="utf-8")
    assert (tmp_path / "b.html").read_bytes() == page.encode("utf-8")

    figures = first.report.figures
    assert page.count("<svg ") == len(figures) >= 4
    names = [s.name for s in first.report.sections]
    assert names[:3] == ["runs", "results", "information"]
    assert "dfa" in names  # the DFA kind's own figures, by their Figure.section
    dfa_section = next(s for s in first.report.sections if s.name == "dfa")
    assert dfa_section.content.figures
    assert all(f.name.startswith("dfa-") for f in dfa_section.content.figures)
    # nothing outside the file: no address but the SVG namespace, no external resource
    assert set(re.findall(r"https?://[^\s\"'<>)]+", page)) == {"http://www.w3.org/2000/svg"}
    assert not re.search(r"<(link|img|iframe)\b|\bsrc=", page)
    assert "default-src 'none'" in page
    data = _payload(page)
    episodes = data["episodes"]
    assert isinstance(episodes, list)
    assert len(episodes) == len(eri.trajectories) + len(dfa.trajectories)
    assert [e["n"] for e in episodes] == list(range(len(episodes)))
    assert {e["run"] for e in episodes} == {"r1", "r2"}
    stages = {e.stage for e in events}
    assert stages == {"analysing", "sections", "figures"}
    for stage in stages:
        last = [e for e in events if e.stage == stage][-1]
        assert last.done == last.total


def test_hostile_text_stays_text(eri: RunRecords) -> None:
    hostile = _episode(
        HOSTILE,
        HOSTILE,
        1.0,
        1.0,
        steps=[StepView(index=1, action=HOSTILE, result=HOSTILE, note=HOSTILE)],
        intro=HOSTILE,
        conversation=[ConversationMessage(role="assistant", content=HOSTILE)],
    )
    run = _run(eri, "r1", [hostile, _episode("B1", "adaptive", 1.0, 1.0)])
    page = render_html(build_report(RunSet(runs=(run,))))
    # the data cannot close its <script> nor open a comment: two script elements only
    assert page.count("</script>") == 2
    assert page.count("<script") == 2
    assert "<img" not in page
    assert "<!--" not in page
    episodes = _payload(page)["episodes"]
    assert isinstance(episodes, list)
    assert episodes[0]["steps"][0]["result"] == HOSTILE
    assert episodes[0]["conversation"][0]["content"] == HOSTILE
    viewer = (Path(sections_module.__file__).parent / "_viewer.js").read_text(encoding="utf-8")
    assert "innerHTML" not in viewer
    assert "insertAdjacentHTML" not in viewer
    assert "document.write" not in viewer


@dataclasses.dataclass(frozen=True)
class _Row:
    agent: str
    value: float | None
    value_low: float | None
    value_high: float | None


def test_a_registered_section_is_drawn_in_order_and_escaped(
    eri: RunRecords, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sections_module, "_SECTIONS", dict(sections_module._SECTIONS))

    @sections_module.register_section("tiers", order=45, title="Exploration <tiers>")
    def tiers(runs: RunSet) -> SectionContent:
        rows = (_Row(HOSTILE, 0.5, 0.25, 0.75), _Row("fixed", None, None, None))
        columns = (
            Column("agent", "agent"),
            Column("value", "value", digits=2, low="value_low", high="value_high"),
        )
        return SectionContent(tables=(ReportTable("Tiers", columns, rows),), notes=(HOSTILE,))

    @sections_module.register_section("empty", order=46)
    def empty(runs: RunSet) -> SectionContent:
        return SectionContent()

    sections = sections_module.load_sections()
    order = [s.name for s in sections]
    assert (
        order.index("feedback")
        < order.index("tiers")
        < order.index("empty")
        < order.index("budget")
    )
    run = AnalysedRun(id="r1", records=eri, analyses=analyse_runs([eri]).runs[0].analyses)
    report = build_report(RunSet(runs=(run,)), sections)
    assert "empty" not in [s.name for s in report.sections]
    page = render_html(report)
    assert '<section id="tiers"><h2>Exploration &lt;tiers&gt;</h2>' in page
    assert '<td class="num">0.50 [0.25, 0.75]</td>' in page
    assert "<td>–</td>" in page
    assert html.escape(HOSTILE) in page
    assert page.count("</script>") == 2


# -- the command line -----------------------------------------------------------------


def _error_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    return err


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ([], "several runs make an --html OUT.html report"),
        (["--html", "x.html", "--out", "o"], "--out rewrites one run's summary files"),
        (["--html", "x.html", "--buckets", "2-3"], "--buckets applies to one run's summary"),
        (["--figures", "f", "--figure-format", "png,gif"], "'gif' is not a figure format"),
    ],
)
def test_bad_report_arguments_are_one_line_and_exit_2(
    extra: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = [str(FIXTURES / "eri-easy-2at1"), str(FIXTURES / "cii-easy-2at1")]
    argv = [*runs, *[str(tmp_path / a) if a in ("x.html", "o", "f") else a for a in extra]]
    assert report_main(argv) == 2
    assert message in _error_line(capsys)
    assert not list(tmp_path.iterdir())


def test_figures_are_written_as_their_names_in_every_format(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "eri"
    shutil.copytree(FIXTURES / "eri-easy-2at1", run)
    before = {p.name: p.read_bytes() for p in run.iterdir() if p.is_file()}
    figures = tmp_path / "figures"
    argv = [str(run), "--figures", str(figures), "--figure-format", "svg,png,pdf"]
    assert report_main(argv) == 0
    files = sorted(p.name for p in figures.iterdir())
    stems = sorted({name.rsplit(".", 1)[0] for name in files})
    assert f"{len(files)} figure files" in capsys.readouterr().out
    # every figure in every format; the generic ones at least (other sections add theirs)
    assert files == sorted(f"{s}.{ext}" for s in stems for ext in ("svg", "png", "pdf"))
    assert {"r1-efficiency", "r1-information-eri-easy", "r1-score"} <= set(stems)
    assert (figures / "r1-score.png").read_bytes().startswith(b"\x89PNG")
    assert (figures / "r1-score.pdf").read_bytes().startswith(b"%PDF")
    # the run's own files are left alone
    assert {p.name: p.read_bytes() for p in run.iterdir() if p.is_file()} == before
