"""``oracle-eval report RUN_DIR``: every metric recomputed from the trajectories alone."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from evaluator._report_cli import report_main
from evaluator.cli import main
from evaluator.kinds.dfa.summary import (
    DfaSummary,
    dfa_summary_table,
    dfa_usage_table,
    summarise_dfa,
)
from evaluator.kinds.dfa.trajectory import load_dfa_trajectory
from evaluator.kinds.turns.summary import Summary, summarise
from evaluator.kinds.turns.trajectory import load_trajectory, save_trajectory
from evaluator.records import CorruptTrajectoryError
from evaluator.report import RunDirError, load_run, report_run
from evaluator.reporting import hierarchical_bootstrap_ci
from evaluator.runner import evaluate_suite
from evaluator.spec import TurnShot
from evaluator.usage import LlmCallRecord, totals_of
from oracle_bench.errors import UsageError

AGENTS = ["random", "fixed"]
FILES = ("summary.json", "summary.csv", "boxes.csv")
DFA_FILES = (*FILES, "metrics.json")


@pytest.fixture(scope="module")
def turn_run(tmp_path_factory: pytest.TempPathFactory, suite_builder: Any) -> Path:
    root = tmp_path_factory.mktemp("report")
    suite = suite_builder(root, n=4, seed=21)
    out = root / "run"
    evaluate_suite(suite, AGENTS, TurnShot(1, 1), "instant", 0, out, repeats=2)
    return out


@pytest.fixture(scope="module")
def dfa_run(tmp_path_factory: pytest.TempPathFactory, dfa_suite: Path) -> Path:
    out = tmp_path_factory.mktemp("report-dfa") / "run"
    evaluate_suite(dfa_suite, ["ttt", "lstar"], None, None, 4, out, repeats=2)
    return out


def _copy(run: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(run, tmp_path / "run"))


def _bytes(run: Path, names: tuple[str, ...]) -> dict[str, bytes]:
    return {name: (run / name).read_bytes() for name in names}


def _one_error_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    return err


def test_report_restores_the_turn_run_summary_byte_for_byte(
    turn_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = _copy(turn_run, tmp_path)
    before = _bytes(run, FILES)
    for name in FILES:
        (run / name).unlink()
    assert report_main([str(run)]) == 0
    assert _bytes(run, FILES) == before
    out = capsys.readouterr().out
    assert "ERI easy · 1@1 · instant · seed 0" in out
    assert "16 trajectories (settings from run.json)" in out
    assert "summary.json, summary.csv, boxes.csv" in out

    summary = Summary.model_validate_json(before["summary.json"])
    assert summary.repeats == 2 and summary.schema_version == 2
    assert [(g.family, g.level, g.agent) for g in summary.groups] == [
        ("ERI", "easy", "fixed"),
        ("ERI", "easy", "random"),
    ]
    # One level: the per-family rows repeat the group rows, level "all" and their own stream.
    assert [(g.level, g.agent, g.boxes, g.episodes) for g in summary.overall] == [
        ("all", "fixed", 4, 8),
        ("all", "random", 4, 8),
    ]
    for group, pooled in zip(summary.groups, summary.overall, strict=True):
        assert pooled.accuracy_mean == group.accuracy_mean
    assert len(summary.boxes) == 8 and all(b.episodes == 2 for b in summary.boxes)
    # Baselines call no model: no usage anywhere.
    assert summary.usage.calls == 0 and summary.usage.cost_usd is None
    assert all(b.tokens_mean is None and b.retries_total == 0 for b in summary.boxes)

    # The interval is the two-level bootstrap over the box x repetition accuracies.
    trajs = [load_trajectory(p) for p in sorted((run / "trajectories").glob("*.json"))]
    random_boxes: dict[str, list[float]] = {}
    for t in sorted(trajs, key=lambda t: (t.box_id, t.repetition)):
        if t.agent == "random" and t.accuracy is not None:
            random_boxes.setdefault(t.box_id, []).append(t.accuracy)
    ci = hierarchical_bootstrap_ci(list(random_boxes.values()), 0, "ERI", "easy", "random")
    assert ci is not None
    group = summary.groups[1]
    assert (group.accuracy_ci_low, group.accuracy_ci_high) == (round(ci[0], 6), round(ci[1], 6))
    assert group.accuracy_ci_low is not None and group.accuracy_ci_high is not None
    assert group.accuracy_mean is not None
    assert group.accuracy_ci_low <= group.accuracy_mean <= group.accuracy_ci_high

    header = (run / "boxes.csv").read_text().splitlines()[0]
    assert header.startswith(
        "suite,suite_seed,spec,feedback,seed,repeats,bootstrap_seed,"
        "box_id,family,level,rule_kind,agent,episodes,failed,failed_agent,failed_box,"
        "failed_infrastructure,excluded,accuracy"
    )
    assert header.endswith(",tokens_mean,cost_usd_mean,cost_usd_total,llm_calls_mean,retries_total")
    csv_rows = (run / "summary.csv").read_text().splitlines()
    assert [line.split(",")[8:10] for line in csv_rows[1:]] == [
        ["easy", "fixed"],
        ["easy", "random"],
        ["all", "fixed"],
        ["all", "random"],
    ]


def test_report_prints_the_tables_of_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], suite_builder: Any
) -> None:
    suite = suite_builder(tmp_path, n=2, seed=4, name="tables")
    out = tmp_path / "out"
    assert main(["1@1", "--suite", str(suite), "--out", str(out), "--agent", "random"]) == 0
    ran = capsys.readouterr().out.splitlines()
    assert report_main([str(out)]) == 0
    reported = capsys.readouterr().out.splitlines()
    tables = ran[: next(i for i, line in enumerate(ran) if "episode(s)" in line)]
    assert any("random" in line for line in tables)
    assert reported[: len(tables)] == tables


def test_report_restores_the_dfa_run_summary_and_metrics(
    dfa_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = _copy(dfa_run, tmp_path)
    before = _bytes(run, DFA_FILES)
    for name in DFA_FILES:
        (run / name).unlink()
    summary = report_run(run)
    assert isinstance(summary, DfaSummary)
    assert _bytes(run, DFA_FILES) == before
    assert [(g.agent, g.bucket, g.episodes) for g in summary.overall] == [
        ("lstar", "all", 16),
        ("ttt", "all", 16),
    ]
    assert all(
        (g.success_rate, g.success_ci_low, g.success_ci_high) == (1.0, 1.0, 1.0)
        for g in summary.overall
    )

    # Other buckets: regrouped from the same trajectories, no suite needed.
    assert report_main([str(run), "--buckets", "2-5,6-9"]) == 0
    printed = capsys.readouterr().out
    assert "DFA · DFA-states2-9-seed3-n8" in printed and "automata-learning metrics" in printed
    again = DfaSummary.model_validate_json((run / "summary.json").read_bytes())
    assert [(g.agent, g.bucket, g.boxes) for g in again.groups] == [
        ("lstar", "2-5", 4),
        ("lstar", "6-9", 4),
        ("ttt", "2-5", 4),
        ("ttt", "6-9", 4),
    ]


def test_shards_in_one_directory_make_one_summary(
    turn_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = _copy(turn_run, tmp_path)
    before = _bytes(run, FILES)
    manifest = json.loads((run / "run.json").read_text())
    (run / "run.json").unlink()
    for i in (1, 2):
        manifest["arguments"]["shard"] = f"{i}/2"
        (run / f"run.shard-{i}-of-2.json").write_text(json.dumps(manifest))
    records = load_run(run)
    assert [p.name for p in records.manifests] == ["run.shard-1-of-2.json", "run.shard-2-of-2.json"]
    report_run(run)
    assert _bytes(run, FILES) == before

    manifest["arguments"]["seed"] = 9
    (run / "run.shard-2-of-2.json").write_text(json.dumps(manifest))
    assert report_main([str(run)]) == 1
    err = _one_error_line(capsys)
    assert "run.shard-2-of-2.json" in err and "disagrees with run.shard-1-of-2.json" in err


def test_without_a_manifest_the_trajectories_give_the_settings(
    turn_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = _copy(turn_run, tmp_path)
    before = _bytes(run, FILES)
    (run / "run.json").unlink()
    (run / "summary.json").unlink()
    assert report_main([str(run)]) == 0
    assert "settings from the trajectories (no run manifest)" in capsys.readouterr().out
    assert _bytes(run, FILES) == before


def test_trajectories_outside_the_job_list_are_left_out(
    turn_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = _copy(turn_run, tmp_path)
    manifest = json.loads((run / "run.json").read_text())
    manifest["arguments"]["repeats"] = 1
    manifest["arguments"]["agents"] = ["random"]
    (run / "run.json").write_text(json.dumps(manifest))
    records = load_run(run)
    assert len(records.trajectories) == 4 and len(records.ignored) == 12
    assert {t.agent for t in records.trajectories} == {"random"}
    summary = report_run(run)
    expected = summarise(
        [load_trajectory(p) for p in sorted((run / "trajectories").glob("*random__r0.json"))],
        suite=manifest["suite"],
        spec="1@1",
        feedback="instant",
        seed=0,
        repeats=1,
    )
    assert summary == expected
    assert report_main([str(run)]) == 0
    assert "12 outside the job list left out" in capsys.readouterr().out


def test_seed_redraws_the_intervals_only(turn_run: Path, tmp_path: Path) -> None:
    run = _copy(turn_run, tmp_path)
    plain = report_run(run)
    other = report_run(run, seed=7)
    assert isinstance(plain, Summary) and isinstance(other, Summary)
    assert other.bootstrap_seed == 7 and plain.bootstrap_seed is None and other.seed == 0
    assert [g.accuracy_mean for g in other.groups] == [g.accuracy_mean for g in plain.groups]
    boxes: dict[str, list[float]] = {}
    for p in sorted((run / "trajectories").glob("*__random__*.json")):
        t = load_trajectory(p)
        assert t.accuracy is not None
        boxes.setdefault(t.box_id, []).append(t.accuracy)
    ci = hierarchical_bootstrap_ci(list(boxes.values()), 7, "ERI", "easy", "random")
    assert ci is not None
    random_other = other.groups[1]
    assert (random_other.accuracy_ci_low, random_other.accuracy_ci_high) == (
        round(ci[0], 6),
        round(ci[1], 6),
    )
    assert report_run(run, seed=0) == plain  # the run's own seed is no re-draw


def test_corrupt_trajectory_is_one_line_exit_1(
    turn_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = _copy(turn_run, tmp_path)
    bad = sorted((run / "trajectories").glob("*.json"))[3]
    bad.write_text("{")
    assert report_main([str(run)]) == 1
    err = _one_error_line(capsys)
    assert err.startswith("oracle-eval report: error: ") and bad.name in err
    assert "not valid JSON" in err
    bad.write_text('{"box_id": 3}')
    with pytest.raises(CorruptTrajectoryError, match="invalid Trajectory"):
        load_run(run)


def test_bad_run_directories_and_options_are_exit_2(
    turn_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a_file = tmp_path / "file.txt"
    a_file.write_text("x")
    (tmp_path / "empty").mkdir()
    cases = [
        ([str(a_file)], "is not a directory"),
        ([str(tmp_path / "missing")], "does not exist"),
        ([str(tmp_path / "empty")], "no trajectories"),
        ([str(turn_run), "--buckets", "2-3"], "--buckets does not apply (for DFA runs only)"),
        ([str(turn_run), "--similarity-len", "5"], "not apply (for DFA runs only)"),
        ([str(turn_run), "--buckets", "3-2"], "invalid bucket"),
        ([], "required: RUN_DIR"),
    ]
    for argv, message in cases:
        assert report_main(argv) == 2, argv
        err = _one_error_line(capsys)
        assert message in err, (argv, err)
    with pytest.raises(UsageError):
        load_run(a_file)


def test_the_same_job_twice_names_both_files(
    turn_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = _copy(turn_run, tmp_path)
    first = sorted((run / "trajectories").glob("*.json"))[0]
    copy = first.with_name("zz-copy.json")
    shutil.copy(first, copy)
    assert report_main([str(run)]) == 1
    err = _one_error_line(capsys)
    assert copy.name in err and f"the same episode as {first.name}" in err


def test_a_trajectory_of_another_run_or_kind_is_refused(
    turn_run: Path, dfa_run: Path, tmp_path: Path
) -> None:
    run = _copy(turn_run, tmp_path)
    path = sorted((run / "trajectories").glob("*.json"))[0]
    traj = load_trajectory(path)
    save_trajectory(traj.model_copy(update={"seed": 5}), path)
    with pytest.raises(RunDirError, match=r"trajectory of another run \(seed 0 vs 5"):
        load_run(run)
    (run / "run.json").unlink()
    with pytest.raises(RunDirError, match=path.name):
        load_run(run)

    save_trajectory(traj, path)
    dfa_file = sorted((dfa_run / "trajectories").glob("*.json"))[0]
    shutil.copy(dfa_file, run / "trajectories" / dfa_file.name)
    with pytest.raises(
        RunDirError, match=rf"{dfa_file.name}: a DFA trajectory among turn@shot ones"
    ):
        load_run(run)


def test_dfa_usage_columns_and_table(dfa_run: Path) -> None:
    paths = sorted((dfa_run / "trajectories").glob("*__ttt__*.json"))[:2]
    calls = [
        LlmCallRecord(
            phase="play", turn=1, text="", input_tokens=90, output_tokens=10, cost_usd=0.002
        ),
        LlmCallRecord(phase="play", turn=2, text="", input_tokens=40, output_tokens=20, retries=2),
    ]
    trajs = [
        load_dfa_trajectory(p).model_copy(
            update={
                "agent": "anthropic/m",
                "llm_calls": calls[: i + 1],
                "usage": totals_of(calls[: i + 1]),
            }
        )
        for i, p in enumerate(paths)
    ]
    summary = summarise_dfa(trajs, suite="dfa", seed=0, repeats=2, budget_factor=2.0)
    assert [b.repetition for b in trajs] == [0, 1]  # one box, two repetitions
    [row] = summary.boxes
    assert (row.episodes, row.tokens_mean, row.cost_usd_mean, row.cost_usd_total) == (
        2,
        130.0,
        0.002,
        0.004,
    )
    assert (row.llm_calls_mean, row.retries_total) == (1.5, 2)
    [group] = summary.groups
    [pooled] = summary.overall
    assert pooled.bucket == "all" and pooled.tokens_mean == group.tokens_mean == 130.0
    assert summary.usage.calls == 3 and summary.usage.tokens == 260
    console = Console(record=True, width=200)
    console.print(dfa_summary_table(summary))
    assert "tokens/ep" not in console.export_text()  # usage has a table of its own
    console.print(dfa_usage_table(summary))
    text = console.export_text()
    assert "LLM usage · DFA" in text and "tokens/ep" in text and "130  0.0020" in text


def test_missing_episodes_are_reported(
    turn_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = _copy(turn_run, tmp_path)
    assert report_main([str(run)]) == 0
    assert "warning" not in capsys.readouterr().out
    victims = sorted((run / "trajectories").glob("*.json"))[:3]
    for path in victims:
        path.unlink()
    assert report_main([str(run)]) == 0
    said = " ".join(capsys.readouterr().out.split())
    total = 4 * len(AGENTS) * 2
    assert f"warning: 3 of {total} episodes of the job list have no trajectory here" in said
