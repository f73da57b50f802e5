"""The runner: determinism, resume, failed boxes, outputs; and the CLI end to end."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from blackboxes.store import load_suite
from evaluator._run_folder import default_run_root
from evaluator.cli import main
from evaluator.kinds.turns.trajectory import load_trajectory
from evaluator.runner import evaluate_suite
from evaluator.spec import TurnShot
from oracle_bench.jsonio import sha256_hex

AGENTS = ["random", "fixed", "adaptive"]


@pytest.fixture(scope="module")
def suite_dir(tmp_path_factory: pytest.TempPathFactory, suite_builder: Any) -> Path:
    return suite_builder(tmp_path_factory.mktemp("suites"), n=4, seed=21)


def _files(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((out / "trajectories").glob("*.json"))}


def test_same_seed_is_byte_identical(suite_dir: Path, tmp_path: Path) -> None:
    a = evaluate_suite(suite_dir, AGENTS, TurnShot(4, 1), "instant", 3, tmp_path / "a")
    b = evaluate_suite(suite_dir, AGENTS, TurnShot(4, 1), "instant", 3, tmp_path / "b")
    assert a.executed == b.executed == 12
    files_a, files_b = _files(tmp_path / "a"), _files(tmp_path / "b")
    assert len(files_a) == 12 and files_a == files_b
    assert (tmp_path / "a" / "summary.json").read_bytes() == (
        tmp_path / "b" / "summary.json"
    ).read_bytes()
    assert (tmp_path / "a" / "summary.csv").read_bytes() == (
        tmp_path / "b" / "summary.csv"
    ).read_bytes()

    c = evaluate_suite(suite_dir, ["random"], TurnShot(4, 1), "instant", 4, tmp_path / "c")
    for path in c.trajectories:
        other = load_trajectory(tmp_path / "a" / "trajectories" / path.name)
        assert [t.text for t in load_trajectory(path).turns] != [t.text for t in other.turns]


def test_resume_reruns_only_missing_episodes(suite_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    first = evaluate_suite(suite_dir, AGENTS, TurnShot(3, 2), "deferred", 0, out, repeats=2)
    assert (first.executed, first.skipped) == (24, 0)
    summary = (out / "summary.json").read_bytes()
    files = _files(out)
    victim = first.trajectories[5]
    victim.unlink()
    seen: list[str] = []
    second = evaluate_suite(
        suite_dir,
        AGENTS,
        TurnShot(3, 2),
        "deferred",
        0,
        out,
        repeats=2,
        progress=lambda e: seen.append(e.action),
    )
    assert (second.executed, second.skipped) == (1, 23)
    assert seen.count("ran") == 1 and len(seen) == 24
    assert _files(out) == files
    assert (out / "summary.json").read_bytes() == summary
    # a corrupt file is rerun too, and a different spec never reuses a trajectory
    victim.write_text("{")
    third = evaluate_suite(suite_dir, AGENTS, TurnShot(3, 2), "deferred", 0, out, repeats=2)
    assert third.executed == 1
    assert _files(out) == files
    manifest = json.loads((out / "run.json").read_text())
    assert manifest["executed"] == 1 and manifest["arguments"]["spec"] == "3@2"
    assert set(manifest["box_digests"]) == {f"eri-easy-{i:03d}" for i in range(4)}


def test_box_that_cannot_start_is_recorded_and_the_run_goes_on(
    tmp_path: Path, suite_builder: Any
) -> None:
    suite = suite_builder(
        tmp_path,
        n=2,
        seed=2,
        name="half-broken",
        code_override={0: "def blackbox(x):\n    return x +\n"},
    )
    result = evaluate_suite(suite, ["random"], TurnShot(2, 1), "instant", 0, tmp_path / "out")
    first, second = (load_trajectory(p) for p in result.trajectories)
    assert first.status == "failed" and first.error and "SandboxCompileError" in first.error
    assert second.status == "completed"
    assert result.failed == 1
    group = result.summary.groups[0]
    assert (group.episodes, group.failed, group.boxes) == (2, 1, 1)


def test_cli_end_to_end(
    suite_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    suite_builder: Any,
) -> None:
    # no --suite: the newest suite under ORACLE_BENCH_SUITES is chosen, and said so
    root = tmp_path / "suites"
    old = suite_builder(root, n=1, seed=1, name="older")
    os.utime(old / "suite.json", (time.time() - 100, time.time() - 100))
    new = suite_builder(root, n=2, seed=2, name="newer")
    monkeypatch.setenv("ORACLE_BENCH_SUITES", str(root))
    monkeypatch.chdir(tmp_path)
    assert main(["3@1", "--agent", "random", "--agent", "adaptive"]) == 0
    out = capsys.readouterr().out
    assert str(new) in out and "most recent" in out
    suite_sha = sha256_hex((new / "suite.json").read_bytes())
    root_of_runs = default_run_root(new, load_suite(new), suite_sha)
    assert root_of_runs.name.startswith("newer-") and len(root_of_runs.name) == len("newer-") + 8
    expected = root_of_runs / "3at1-instant-seed0"
    assert str(expected) in out.replace("\n", "")
    assert (tmp_path / expected / "summary.csv").exists()
    assert len(list((tmp_path / expected / "trajectories").glob("*.json"))) == 4
    # the rerun resumes
    assert main(["3@1", "--agent", "random", "--agent", "adaptive"]) == 0
    assert "4 already done" in capsys.readouterr().out


def test_cli_bad_suite_is_one_line_exit_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], suite_builder: Any
) -> None:
    suite = suite_builder(tmp_path, n=1, seed=3, name="tampered")
    hidden = suite / "boxes" / "eri-easy-000" / "hidden.json"
    hidden.write_text(hidden.read_text().replace("1", "2", 1))
    assert main(["2@1", "--suite", str(suite), "--out", str(tmp_path / "o")]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "hidden.json" in err[0] and "Traceback" not in err[0]


def test_cli_bad_suite_argument_is_one_line_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], suite_builder: Any
) -> None:
    suite = suite_builder(tmp_path, n=1, seed=3, name="good")
    (tmp_path / "empty").mkdir()
    for argv, needle in (
        (["--suite", str(tmp_path / "nowhere")], "nowhere does not exist"),
        (["--suite", str(suite / "suite.json")], f"did you mean its folder, --suite {suite}?"),
        (["--suite", str(tmp_path / "empty")], "has no suite.json"),
    ):
        assert main(["2@1", *argv, "--out", str(tmp_path / "o")]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and needle in err[0], err
    assert not (tmp_path / "o").exists()  # refused before any work


def test_generator_suite_evaluates(eri_easy_suite: Path, tmp_path: Path) -> None:
    """A suite made by oracle-gen's procedural backend runs end to end."""
    result = evaluate_suite(eri_easy_suite, AGENTS, TurnShot(3, 1), "instant", 0, tmp_path)
    assert result.failed == 0
    assert all(g.bound_violations == 0 for g in result.summary.groups)


def test_byte_identical_across_processes(suite_dir: Path, tmp_path: Path) -> None:
    """Different hash seeds (fresh interpreters) still give byte-identical files."""
    import subprocess
    import sys

    script = (
        "import sys; from pathlib import Path; from evaluator import evaluate_suite, TurnShot; "
        "evaluate_suite(Path(sys.argv[1]), ['random', 'fixed', 'adaptive'], TurnShot(2, 2), "
        "'instant', 9, Path(sys.argv[2]))"
    )
    root = Path(__file__).resolve().parents[2]
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed, "PYTHONPATH": str(root)}
        subprocess.run(
            [sys.executable, "-c", script, str(suite_dir), str(tmp_path / hash_seed)],
            check=True,
            env=env,
            cwd=root,
            timeout=120,
        )
    assert _files(tmp_path / "1") == _files(tmp_path / "2")
    assert len(_files(tmp_path / "1")) == 12
    assert (tmp_path / "1" / "summary.json").read_bytes() == (
        tmp_path / "2" / "summary.json"
    ).read_bytes()
