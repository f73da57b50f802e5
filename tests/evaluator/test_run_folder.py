"""A run folder belongs to one run: a default unique per suite, a definition that refuses
another run, one writer at a time; and the files and messages researchers get."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from evaluator.cli import main
from evaluator.runner import evaluate_suite
from evaluator.spec import TurnShot
from oracle_bench import __version__
from oracle_bench.errors import UsageError
from oracle_bench.lock import FolderLock
from providers.loopback import LoopbackServer, RecordedRequest

ROOT = Path(__file__).resolve().parents[2]
MODEL = "openai/test-model"


def _one_error_line(capsys: pytest.CaptureFixture[str]) -> str:
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("oracle-eval: error: ")
    return lines[0]


def test_suites_of_one_name_in_two_folders_get_two_run_folders(
    tmp_path: Path,
    suite_builder: Any,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    a = suite_builder(tmp_path / "one", n=1, seed=1, name="same")
    b = suite_builder(tmp_path / "two", n=1, seed=2, name="same")
    monkeypatch.chdir(tmp_path)
    for suite in (a, b):
        assert main(["2@1", "--suite", str(suite), "--agent", "random"]) == 0
    capsys.readouterr()
    roots = sorted(p.name for p in (tmp_path / "runs").iterdir())
    assert len(roots) == 2 and all(r.startswith("same-") for r in roots)
    for root in roots:  # neither overwrote the other
        (traj,) = (tmp_path / "runs" / root / "2at1-instant-seed0" / "trajectories").glob("*")
        assert traj.name == "eri-easy-000__random__r0.json"
    defs = [
        json.loads((tmp_path / "runs" / r / "2at1-instant-seed0" / "definition.json").read_text())
        for r in roots
    ]
    assert defs[0]["suite_json_sha256"] != defs[1]["suite_json_sha256"]


def test_a_folder_of_another_run_is_refused_naming_the_first_difference(
    tmp_path: Path, suite_builder: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = suite_builder(tmp_path / "s", n=1, seed=3, name="one")
    other = suite_builder(tmp_path / "t", n=1, seed=4, name="two")
    out = tmp_path / "run"
    base = ["--agent", "random", "--out", str(out)]
    assert main(["2@1", "--suite", str(suite), *base]) == 0
    capsys.readouterr()
    before = {p.name: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    for argv, difference in (
        (["3@1", "--suite", str(suite)], "spec 2@1, not 3@1"),
        (["2@1", "--suite", str(suite), "--seed", "5"], "--seed 0, not 5"),
        (
            ["2@1", "--suite", str(suite), "--feedback", "deferred"],
            "--feedback instant, not deferred",
        ),
        (["2@1", "--suite", str(other)], "suite one, not two"),
        (
            ["2@1", "--suite", str(suite), "--invalid-turns", "free"],
            "--invalid-turns count, not free",
        ),
    ):
        assert main([*argv, *base]) == 2
        line = _one_error_line(capsys)
        assert f"{out} holds another run ({difference})" in line, line
    after = {p.name: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert after == before  # nothing written, nothing mixed
    # other agents and repetitions are the same run: allowed
    assert main(["2@1", "--suite", str(suite), *base, "--agent", "fixed", "--repeats", "2"]) == 0


def test_a_folder_with_other_files_is_refused(
    tmp_path: Path, suite_builder: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = suite_builder(tmp_path / "s", n=1, seed=3)
    for argv in (["--out", str(suite)], ["--out", str(tmp_path / "s")]):
        assert main(["2@1", "--suite", str(suite), "--agent", "random", *argv]) == 2
        assert "is not empty and holds no oracle-eval run" in _one_error_line(capsys)
    (tmp_path / "file").write_text("x")
    assert main(["2@1", "--suite", str(suite), "--out", str(tmp_path / "file")]) == 2
    assert "is a file" in _one_error_line(capsys)


def test_a_stale_lock_of_a_dead_process_is_taken_over(tmp_path: Path, suite_builder: Any) -> None:
    suite = suite_builder(tmp_path / "s", n=1, seed=3)
    out = tmp_path / "run"
    out.mkdir()
    (out / ".lock").write_text(json.dumps({"pid": 999_999_999, "host": "elsewhere"}))
    result = evaluate_suite(suite, ["random"], TurnShot(2, 1), "instant", 0, out)
    assert result.executed == 1


def test_a_held_lock_refuses_a_second_writer_but_not_another_shard(
    tmp_path: Path, suite_builder: Any
) -> None:
    suite = suite_builder(tmp_path / "s", n=2, seed=3)
    out = tmp_path / "run"
    with FolderLock(out / ".lock.shard-1-of-2", "oracle-eval run"):
        with pytest.raises(
            UsageError, match=rf"in use by another oracle-eval run \(PID {os.getpid()}\)"
        ):
            evaluate_suite(suite, ["random"], TurnShot(2, 1), "instant", 0, out, shard=(1, 2))
        other = evaluate_suite(suite, ["random"], TurnShot(2, 1), "instant", 0, out, shard=(2, 2))
    assert other.executed == 1


def _script() -> list[dict[str, Any]]:
    lines: list[dict[str, Any]] = [
        {"tool_calls": [{"id": f"q{i}", "name": "query", "arguments": {"input": "HELLO"}}]}
        for i in range(2)
    ]
    return lines + [
        {"tool_calls": [{"id": f"a{i}", "name": "answer", "arguments": {"output": "X"}}]}
        for i in range(8)
    ]


@pytest.fixture
def held_server() -> Iterator[tuple[LoopbackServer, threading.Event, threading.Event]]:
    """A loopback server whose first request is held until ``release`` is set; ``arrived``
    is set when it comes in."""
    arrived, release = threading.Event(), threading.Event()

    def hold(request: RecordedRequest) -> None:
        arrived.set()
        release.wait(60)

    with LoopbackServer(_script(), per_conversation=True, on_request=hold) as server:
        yield server, arrived, release
        release.set()


def test_two_processes_into_one_folder_exactly_one_runs(
    tmp_path: Path, suite_builder: Any, held_server: Any
) -> None:
    server, arrived, release = held_server
    suite = suite_builder(tmp_path / "s", n=1, seed=3)
    out = tmp_path / "run"
    argv = [sys.executable, "-m", "evaluator.cli", "2@1", "--suite", str(suite)]
    argv += ["--agent", MODEL, "--base-url", server.openai_base_url, "--out", str(out)]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_PROXY": "127.0.0.1,localhost"}
    with subprocess.Popen(
        argv, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    ) as first:
        assert arrived.wait(60), "the first run never called the model"
        # the first holds the folder (its episode is waiting for the model): the second
        # exits 2 at once, naming the holder, and never calls the model
        second = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
        assert second.returncode == 2, second.stderr
        lines = second.stderr.strip().splitlines()
        assert (
            len(lines) == 1 and f"in use by another oracle-eval run (PID {first.pid})" in lines[0]
        )
        assert len(server.requests) == 1
        release.set()
        _, err = first.communicate(timeout=120)
        assert first.returncode == 0, err.decode()[-2000:]
    assert len(list((out / "trajectories").glob("*.json"))) == 1


def test_outputs_follow_the_umask(tmp_path: Path, suite_builder: Any) -> None:
    suite = suite_builder(tmp_path / "s", n=1, seed=3)
    old = os.umask(0o027)
    try:
        evaluate_suite(suite, ["random"], TurnShot(2, 1), "instant", 0, tmp_path / "run")
    finally:
        os.umask(old)
    files = [p for p in (tmp_path / "run").rglob("*") if p.is_file() and p.name != ".lock"]
    assert {p.name for p in files} >= {"summary.json", "summary.csv", "run.json", "index.json"}
    assert {oct(p.stat().st_mode & 0o777) for p in files} == {oct(0o640)}


def test_report_out_writes_elsewhere_and_shows_its_seed(
    tmp_path: Path, suite_builder: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = suite_builder(tmp_path / "s", n=3, seed=3)
    run = tmp_path / "run"
    evaluate_suite(suite, ["random", "fixed"], TurnShot(2, 1), "instant", 7, run)
    before = {p.name: p.read_bytes() for p in run.iterdir() if p.is_file()}
    assert main(["report", str(run), "--seed", "8", "--out", str(tmp_path / "r8")]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "seed 7 · bootstrap seed 8" in out and str(tmp_path / "r8") in out
    assert {p.name: p.read_bytes() for p in run.iterdir() if p.is_file()} == before
    summary = json.loads((tmp_path / "r8" / "summary.json").read_text())
    assert (summary["seed"], summary["bootstrap_seed"]) == (7, 8)
    rows = (tmp_path / "r8" / "summary.csv").read_text().splitlines()
    assert rows[0].startswith("suite,suite_seed,spec,feedback,seed,repeats,bootstrap_seed,")
    assert all(
        r.startswith(
            f"{json.loads((suite / 'suite.json').read_text())['name']},3,2@1,instant,7,1,8,"
        )
        for r in rows[1:]
    )


def test_version_typo_and_bad_paths(
    tmp_path: Path, suite_builder: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"oracle-eval {__version__} (oracle-bench)"
    assert main(["report", "--version"]) == 0
    assert capsys.readouterr().out.strip() == f"oracle-eval report {__version__} (oracle-bench)"
    assert main(["reprot", "runs/x"]) == 2
    assert "did you mean 'report'?" in _one_error_line(capsys)
    suite = suite_builder(tmp_path / "s", n=1, seed=3)
    bad = os.fsdecode(os.fsencode(str(tmp_path)) + b"/run-\xff")
    assert main(["2@1", "--suite", str(suite), "--out", bad]) == 2
    assert "is not valid UTF-8" in _one_error_line(capsys)
    assert not any(p.name.startswith("run-") for p in tmp_path.iterdir())
