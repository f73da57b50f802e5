"""oracle-eval compare: the long table equals the runs' own summaries, the paired table
pairs what it says, formats, refusals and one-line errors."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import statistics
from pathlib import Path
from typing import Any

import pytest

from evaluator import evaluate
from evaluator.analysis.compare import (
    TextTable,
    check_same_suite,
    load_run_scores,
    paired_rows,
    render,
    score_rows,
)
from evaluator.analysis.stats import sign_flip_p
from evaluator.cli import main
from oracle_bench.errors import UsageError

AGENTS = ["random", "adaptive"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory, suite_builder: Any) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("compare")
    suite = suite_builder(root, n=4, seed=21, name="cmp")
    other = suite_builder(root, n=2, seed=3, name="other")
    out = {}
    for feedback in ("instant", "deferred"):
        out[feedback] = evaluate(
            suite, AGENTS, "1@1", feedback=feedback, repeats=2, out=root / feedback
        ).out_dir
    out["other"] = evaluate(other, ["random"], "1@1", out=root / "other-run").out_dir
    return out


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["compare", *argv])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return code, captured.out, captured.err


def test_score_rows_equal_the_runs_summaries(runs: dict[str, Path]) -> None:
    scores = [load_run_scores(runs["instant"]), load_run_scores(runs["deferred"])]
    rows = score_rows(scores)
    assert [(r.run, r.agent) for r in rows] == [
        ("instant", "random"),
        ("instant", "adaptive"),
        ("deferred", "random"),
        ("deferred", "adaptive"),
    ]
    for row in rows:
        summary = json.loads((runs[row.run] / "summary.json").read_text())
        (group,) = [g for g in summary["groups"] if g["agent"] == row.agent]
        assert (row.score, row.ci_low, row.ci_high) == (
            group["accuracy_mean"],
            group["accuracy_ci_low"],
            group["accuracy_ci_high"],
        )
        assert (row.boxes, row.episodes, row.failed) == (4, 8, 0)
        assert (row.suite, row.kind, row.settings, row.feedback) == ("cmp", "turns", "1@1", row.run)
        assert (row.family, row.level, row.seed, row.repeats) == ("ERI", "easy", 0, 2)


def test_paired_rows_pair_agents_within_and_across_runs(runs: dict[str, Path]) -> None:
    scores = [load_run_scores(runs["instant"]), load_run_scores(runs["deferred"])]
    rows = paired_rows(scores, seed=0)
    assert [(r.a_run, r.a_agent, r.b_run, r.b_agent) for r in rows] == [
        ("instant", "random", "instant", "adaptive"),
        ("deferred", "random", "deferred", "adaptive"),
        ("instant", "random", "deferred", "random"),
        ("instant", "adaptive", "deferred", "adaptive"),
    ]
    for row in rows:
        a = scores[0 if row.a_run == "instant" else 1].box_scores(row.a_agent, "ERI", "easy")
        b = scores[0 if row.b_run == "instant" else 1].box_scores(row.b_agent, "ERI", "easy")
        diffs = [statistics.fmean(a[k]) - statistics.fmean(b[k]) for k in sorted(a)]
        assert row.boxes == 4
        assert row.diff == pytest.approx(statistics.fmean(diffs), abs=1e-6)
        assert row.p == pytest.approx(sign_flip_p(diffs)[0], abs=1e-6)
        assert row.test == "exact"
        assert row.ci_low <= row.diff <= row.ci_high
        assert row.p <= row.p_holm <= 1
    assert paired_rows(scores, seed=0) == rows


def test_cli_formats_and_out_file(
    runs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = str(runs["instant"]), str(runs["deferred"])
    code, text, _ = _run(capsys, a, b, "--format", "csv")
    assert code == 0
    table = list(csv.DictReader(io.StringIO(text)))
    assert list(table[0]) == [
        "run", "suite", "kind", "settings", "feedback", "seed", "repeats", "family",
        "level", "agent", "boxes", "episodes", "failed", "score", "ci_low", "ci_high",
    ]  # fmt: skip
    assert len(table) == 4
    code, md, _ = _run(capsys, a, b)
    assert code == 0
    assert md.splitlines()[2].startswith("| run | suite |")
    assert len([line for line in md.splitlines() if line.startswith("| ")]) == 5
    code, latex, _ = _run(capsys, a, b, "--paired", "--format", "latex")
    assert code == 0
    assert "\\toprule" in latex and "\\bottomrule" in latex
    assert "a\\_run & a\\_agent" in latex
    out = tmp_path / "deep" / "paired.tex"
    code, printed, err = _run(capsys, a, b, "--paired", "--format", "latex", "--out", str(out))
    assert (code, printed) == (0, "")
    assert out.read_text() == latex
    assert str(out) in err


def test_runs_over_different_suites_are_refused(
    runs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    a, other = str(runs["instant"]), str(runs["other"])
    code, out, err = _run(capsys, a, other)
    assert (code, out) == (2, "")
    assert err.count("\n") == 1
    assert "runs over different suites" in err and "--allow-different-suites" in err
    code, out, _ = _run(capsys, a, other, "--allow-different-suites", "--format", "csv")
    assert code == 0 and len(out.splitlines()) == 4
    scores = load_run_scores(runs["instant"])
    digests = dict(scores.box_digests or {})
    digests[next(iter(digests))] = "0" * 64
    with pytest.raises(UsageError, match="box digests differ"):
        check_same_suite([scores, dataclasses.replace(scores, box_digests=digests)])


def test_bad_runs_are_one_line_errors(
    runs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _run(capsys, str(tmp_path / "nope"))
    assert code == 2 and err.count("\n") == 1 and "does not exist" in err
    code, _, err = _run(capsys, str(runs["instant"]), str(runs["instant"]))
    assert code == 2 and "given twice" in err
    code, _, err = _run(capsys, str(runs["instant"]), "--format", "html")
    assert code == 2
    code, _, err = _run(capsys, str(runs["instant"]), "--out", str(tmp_path))
    assert code == 2 and "is a folder" in err


def test_render_escapes_text() -> None:
    table = TextTable(
        title="t",
        columns=("name", "x"),
        numeric=frozenset({"x"}),
        rows=(("a_b & c% {d}", 0.5), ("p|q", None)),
        text={"x": lambda v: f"{v:.1f}"},
    )
    assert render(table, "latex").splitlines()[1:] == [
        "\\begin{tabular}{lr}",
        "\\toprule",
        "name & x \\\\",
        "\\midrule",
        "a\\_b \\& c\\% \\{d\\} & 0.5 \\\\",
        "p|q &  \\\\",
        "\\bottomrule",
        "\\end{tabular}",
    ]
    assert render(table, "md").splitlines()[2:] == [
        "| name | x |",
        "|:---|---:|",
        "| a_b & c% {d} | 0.5 |",
        "| p\\|q |  |",
    ]
    assert render(table, "csv") == "name,x\na_b & c% {d},0.5\np|q,\n"


def test_a_misspelt_subcommand_is_suggested(capsys: pytest.CaptureFixture[str]) -> None:
    for typo, command in (("compre", "compare"), ("plna", "plan"), ("reprot", "report")):
        assert main([typo, "runs/x"]) == 2
        assert f"did you mean '{command}'?" in capsys.readouterr().err
