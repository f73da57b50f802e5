"""Runs written before a change report byte for byte as they did: ``oracle-eval report``
on the stored runs under ``fixtures/runs`` (one per family and episode kind) rewrites
every result file identically."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from evaluator._report_cli import report_main

FIXTURES = Path(__file__).parent / "fixtures" / "runs"
RUNS = sorted(p.name for p in FIXTURES.iterdir() if p.is_dir())
RESULTS = ("summary.json", "summary.csv", "boxes.csv", "metrics.json", "metrics.csv")


def test_every_kind_of_run_is_kept() -> None:
    assert RUNS == [
        "cii-easy-2at1",
        "cri-hard-2at1",
        "dfa-x2",
        "eri-easy-2at1",
        "psi-easy-2at1",
    ]


@pytest.mark.parametrize("name", RUNS)
def test_stored_run_reports_byte_for_byte(name: str, tmp_path: Path) -> None:
    run = tmp_path / name
    shutil.copytree(FIXTURES / name, run)
    out = tmp_path / "report"
    assert report_main([str(run), "--out", str(out)]) == 0
    stored = [f for f in RESULTS if (FIXTURES / name / f).exists()]
    assert {"summary.json", "summary.csv", "boxes.csv"} <= set(stored)
    for f in stored:
        assert (out / f).read_bytes() == (FIXTURES / name / f).read_bytes(), f
    # the run's own files are left as they were
    for f in stored:
        assert (run / f).read_bytes() == (FIXTURES / name / f).read_bytes(), f


@pytest.mark.parametrize(
    ("name", "episode", "field", "value"),
    [
        ("eri-easy-2at1", "ERI-easy-0000__fixed__r0", "accuracy", 0.5),
        ("eri-easy-2at1", "ERI-easy-0000__fixed__r0", "queries_used", 1),
        ("eri-easy-2at1", "ERI-easy-0000__fixed__r0", "items", []),
        ("dfa-x2", "DFA-states2-4-0000__kv__r0", "success", False),
        ("dfa-x2", "DFA-states2-4-0000__kv__r0", "cost", 5),
        ("dfa-x2", "DFA-states2-4-0000__kv__r0", "queries_used", 5),
        ("dfa-x2", "DFA-states2-4-0000__kv__r0", "invalid_calls", 1),
    ],
)
def test_a_record_whose_scores_disagree_with_it_is_corrupt(
    name: str,
    episode: str,
    field: str,
    value: object,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The scores are the record's own: an accuracy, success, cost or count that its
    items, turns or calls contradict makes the file corrupt (exit 1, one line naming
    it), never a result."""
    run = tmp_path / "run"
    shutil.copytree(FIXTURES / name, run)
    path = run / "trajectories" / f"{episode}.json"
    record = json.loads(path.read_text())
    assert record[field] != value
    record[field] = value
    path.write_text(json.dumps(record))
    assert report_main([str(run), "--out", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err.strip()
    assert f"{episode}.json" in err and "\n" not in err
    assert not (tmp_path / "out" / "summary.json").exists()


@pytest.mark.parametrize(
    "attempts",
    [
        [],  # no attempt, yet right
        [{"text": "x", "correct": False}],  # its only attempt is wrong
        [{"text": "x", "correct": True}, {"text": "y", "correct": True}],  # asked again
    ],
)
def test_an_item_its_attempts_contradict_is_corrupt(
    attempts: list[dict[str, object]], tmp_path: Path
) -> None:
    """An item is right when its last attempt is, attempts stop at the first right one,
    and there are no more of them than shots (1 in this run)."""
    run = tmp_path / "run"
    shutil.copytree(FIXTURES / "eri-easy-2at1", run)
    path = run / "trajectories" / "ERI-easy-0000__fixed__r0.json"
    record = json.loads(path.read_text())
    assert record["items"][0]["correct"] is True
    record["items"][0]["attempts"] = attempts
    path.write_text(json.dumps(record))
    assert report_main([str(run), "--out", str(tmp_path / "out")]) == 1
