"""The concurrent runner: results independent of concurrency, shards, the worker pool,
settings refused on resume, and the new oracle-eval flags' usage errors."""

from __future__ import annotations

import json
import socket
import threading
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from evaluator import _pool
from evaluator._pool import BoxWorkerPool, PooledBox
from evaluator.cli import main
from evaluator.runner import (
    EpisodeJob,
    ProgressEvent,
    evaluate_suite,
    job_list,
    parse_shard,
    shard_suffix,
)
from evaluator.spec import TurnShot
from oracle_bench.errors import SandboxCompileError, UsageError

AGENTS = ["random", "fixed", "adaptive"]


@pytest.fixture(scope="module")
def suite_dir(tmp_path_factory: pytest.TempPathFactory, suite_builder: Any) -> Path:
    return suite_builder(tmp_path_factory.mktemp("suites"), n=4, seed=33)


def _files(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((out / "trajectories").glob("*.json"))}


def test_concurrency_does_not_change_results(suite_dir: Path, tmp_path: Path) -> None:
    events: list[ProgressEvent] = []
    one = evaluate_suite(suite_dir, AGENTS, TurnShot(3, 2), "instant", 5, tmp_path / "c1", 2)
    four = evaluate_suite(
        suite_dir,
        AGENTS,
        TurnShot(3, 2),
        "instant",
        5,
        tmp_path / "c4",
        2,
        progress=lambda e: events.append(e),  # type: ignore[arg-type]
        concurrency=4,
        workers=3,
    )
    assert (one.executed, four.executed) == (24, 24)
    files = _files(tmp_path / "c1")
    assert len(files) == 24 and files == _files(tmp_path / "c4")
    for name in ("summary.json", "summary.csv", "index.json"):
        assert (tmp_path / "c1" / name).read_bytes() == (tmp_path / "c4" / name).read_bytes()
    assert [p.name for p in one.trajectories] == [p.name for p in four.trajectories]
    # one event per episode, done counting 1..24 whatever the completion order
    assert [e.done for e in events] == list(range(1, 25))
    assert {e.total for e in events} == {24} and {e.action for e in events} == {"ran"}
    assert sorted((e.job.box_id, e.job.agent, e.job.repetition) for e in events) == sorted(
        (j.box_id, j.agent, j.repetition)
        for j in job_list([f"eri-easy-{i:03d}" for i in range(4)], AGENTS, 2)
    )
    m1 = json.loads((tmp_path / "c1" / "run.json").read_text())
    m4 = json.loads((tmp_path / "c4" / "run.json").read_text())
    assert m1["config_digest"] == m4["config_digest"]  # concurrency is not part of it
    assert (m4["arguments"]["concurrency"], m4["arguments"]["workers"]) == (4, 3)
    assert (m1["arguments"]["concurrency"], m1["arguments"]["workers"]) == (1, 1)
    assert (m4["jobs"], m4["pending"], m4["stopped"]) == (24, 0, None)
    assert m4["usage"]["calls"] == 0
    index = json.loads((tmp_path / "c4" / "index.json").read_text())
    assert len(index["rows"]) == 24 and index["shard"] is None
    first = index["rows"][0]
    assert first["file"] == "trajectories/eri-easy-000__random__r0.json"
    assert (first["box"], first["agent"], first["repetition"]) == ("eri-easy-000", "random", 0)
    traj = json.loads((tmp_path / "c4" / first["file"]).read_text())
    assert first["score"] == traj["accuracy"] and first["status"] == "completed"
    assert first["tokens"] is None and first["cost_usd"] is None


def test_shards_partition_the_job_list(suite_dir: Path, tmp_path: Path) -> None:
    whole = evaluate_suite(suite_dir, AGENTS, TurnShot(2, 1), "instant", 1, tmp_path / "all", 2)
    shared = tmp_path / "shared"
    seen: list[tuple[str, str, int]] = []
    for i in (1, 2, 3):
        part = evaluate_suite(
            suite_dir,
            AGENTS,
            TurnShot(2, 1),
            "instant",
            1,
            shared,
            2,
            concurrency=3,
            shard=(i, 3),
        )
        assert part.executed == 8 and part.skipped == 0
        index = json.loads((shared / f"index.shard-{i}-of-3.json").read_text())
        assert index["shard"] == f"{i}/3"
        seen += [(r["box"], r["agent"], r["repetition"]) for r in index["rows"]]
        manifest = json.loads((shared / f"run.shard-{i}-of-3.json").read_text())
        assert manifest["arguments"]["shard"] == f"{i}/3" and manifest["jobs"] == 8
        assert manifest["config_digest"] == whole.manifest.config_digest
        assert (shared / f"summary.shard-{i}-of-3.json").is_file()
        assert (shared / f"summary.shard-{i}-of-3.csv").is_file()
    expected = [
        (j.box_id, j.agent, j.repetition)
        for j in job_list([f"eri-easy-{i:03d}" for i in range(4)], AGENTS, 2)
    ]
    assert len(seen) == 24 and sorted(seen) == sorted(expected)  # each job exactly once
    assert not (shared / "run.json").exists() and not (shared / "summary.json").exists()
    assert _files(shared) == _files(tmp_path / "all")
    # a shard rerun into the shared directory skips its own episodes only
    again = evaluate_suite(suite_dir, AGENTS, TurnShot(2, 1), "instant", 1, shared, 2, shard=(2, 3))
    assert (again.executed, again.skipped) == (0, 8)


def test_job_list_and_shard_parsing() -> None:
    jobs = job_list(["a", "b"], ["x", "y"], 2)
    assert jobs[:3] == [EpisodeJob("a", "x", 0), EpisodeJob("a", "x", 1), EpisodeJob("a", "y", 0)]
    assert job_list(["a", "b"], ["x", "y"], 2, (2, 3)) == [jobs[1], jobs[4], jobs[7]]
    assert job_list(["a"], ["x"], 1, (1, 1)) == jobs[:1]
    assert EpisodeJob("b", "openai/m", 3).scope == "b/openai/m/r3"
    assert parse_shard(" 2/4 ") == (2, 4) and shard_suffix((2, 4)) == ".shard-2-of-4"
    assert shard_suffix(None) == ""
    for bad in ("0/3", "4/3", "1/0", "1-3", "a/b", ""):
        with pytest.raises(UsageError, match="invalid --shard"):
            parse_shard(bad)


class _FakeWorker:
    def __init__(self, box_id: str) -> None:
        self.box_id = box_id
        self.closed = False

    def close(self) -> None:
        self.closed = True


def _box(box_id: str) -> Any:
    return SimpleNamespace(info=SimpleNamespace(id=box_id))


class _TellingCondition(threading.Condition):
    """A Condition that sets :attr:`waiting` when a thread starts to wait on it, so a test
    knows a lease is blocked instead of guessing with a sleep."""

    def __init__(self) -> None:
        super().__init__()
        self.waiting = threading.Event()

    def wait(self, timeout: float | None = None) -> bool:
        self.waiting.set()  # the lock is still held: no release can slip in before the wait
        return super().wait(timeout)


def test_worker_pool_bound_reuse_eviction_and_waiting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_pool, "BUSY_WAIT_S", 0.05)
    started: list[_FakeWorker] = []

    def start(box: Any) -> _FakeWorker:
        if box.info.id == "broken":
            raise SandboxCompileError("nope")
        worker = _FakeWorker(box.info.id)
        started.append(worker)
        return worker

    pool = BoxWorkerPool(2, start)
    cond = _TellingCondition()
    pool._cond = cond
    with pytest.raises(SandboxCompileError):
        pool.lease(_box("broken"))  # a box that cannot start gives its slot back
    assert pool.live == 0
    a1 = pool.lease(_box("a"))
    a2 = pool.lease(_box("a"))  # box a's worker stays busy: a second one is started
    assert a1.worker is not a2.worker and pool.live == 2
    pool.release(a1, healthy=True)
    again = pool.lease(_box("a"))
    assert again.worker is a1.worker and pool.started == 2  # the idle worker is reused
    pool.release(again, healthy=True)
    b = pool.lease(_box("b"))  # full: the idle worker of box a is evicted
    assert a1.worker.closed and not a2.worker.closed and pool.live == 2

    # full and nothing idle: a lease waits for a release
    got: list[Any] = []
    cond.waiting.clear()
    waiter = threading.Thread(target=lambda: got.append(pool.lease(_box("c"))))
    waiter.start()
    assert cond.waiting.wait(timeout=30)
    assert got == [] and waiter.is_alive()
    pool.release(b, healthy=False)  # a failed episode's worker is discarded
    waiter.join(timeout=5)
    assert b.worker.closed and got and got[0].worker.box_id == "c"
    assert pool.live == 2
    pool.close()
    assert all(w.closed for w in started)
    with pytest.raises(UsageError):
        pool.lease(_box("a"))


class _CallWorker(_FakeWorker):
    layers = frozenset({"process"})

    def __init__(self, box_id: str, delay: float = 0.0) -> None:
        super().__init__(box_id)
        self.delay = delay
        self.calls = 0

    def call(self, x: Any) -> Any:
        self.calls += 1
        time.sleep(self.delay)
        if x == "boom":
            raise RuntimeError("worker protocol broke")
        return ("ok", x)


def test_pooled_box_borrows_per_call_and_waits_for_a_busy_worker(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # However long a loaded machine keeps a thread waiting, no call here outwaits this:
    # a second worker would only mean the pool did not wait for the busy one.
    monkeypatch.setattr(_pool, "BUSY_WAIT_S", 300.0)
    started: list[_CallWorker] = []

    def start(box: Any) -> _CallWorker:
        worker = _CallWorker(box.info.id, delay=0.02)
        started.append(worker)
        return worker

    pool = BoxWorkerPool(8, start)
    envs = [PooledBox(pool, _box("a")) for _ in range(6)]
    threads = [threading.Thread(target=lambda e=e: [e.call(i) for i in range(5)]) for e in envs]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=10)
    # 30 calls of 20 ms from 6 episodes at once: one worker serves them all (waiting
    # 20 ms for a busy worker beats starting a process)
    assert len(started) == 1 and started[0].calls == 30 and pool.live == 1
    assert envs[0].layers == frozenset({"process"})
    with pytest.raises(RuntimeError):
        envs[0].call("boom")  # a worker whose call raised is discarded
    assert started[0].closed and pool.live == 0
    assert envs[1].call(1) == ("ok", 1) and len(started) == 2
    pool.close()


class _SlowWorker(_CallWorker):
    """A call that lasts until the pool has started a second worker (``second``), that is,
    longer than any wait for it (bounded only so that a broken pool fails, not hangs)."""

    def __init__(self, box_id: str, second: threading.Event) -> None:
        super().__init__(box_id)
        self.second = second

    def call(self, x: Any) -> Any:
        self.calls += 1
        self.second.wait(timeout=30)
        return ("ok", x)


def test_slow_box_calls_get_a_second_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_pool, "BUSY_WAIT_S", 0.05)
    started: list[_CallWorker] = []
    second = threading.Event()

    def start(box: Any) -> _CallWorker:
        worker = _SlowWorker(box.info.id, second)
        started.append(worker)
        if len(started) == 2:
            second.set()
        return worker

    pool = BoxWorkerPool(4, start)
    envs = [PooledBox(pool, _box("slow")) for _ in range(2)]
    threads = [threading.Thread(target=lambda e=e: e.call(0)) for e in envs]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=10)
    assert len(started) == 2 and [w.calls for w in started] == [1, 1]
    pool.close()


def test_pool_check_starts_a_box_once_and_remembers_its_error() -> None:
    starts: list[str] = []

    def start(box: Any) -> _CallWorker:
        starts.append(box.info.id)
        if box.info.id == "broken":
            raise SandboxCompileError("nope")
        return _CallWorker(box.info.id)

    pool = BoxWorkerPool(4, start)
    threads = [threading.Thread(target=pool.check, args=(_box("a"),)) for _ in range(5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=10)
    for _ in range(3):
        with pytest.raises(SandboxCompileError):
            pool.check(_box("broken"))
    assert starts == ["a", "broken"] and pool.live == 1
    pool.close()


def test_other_episode_settings_are_refused_on_resume(suite_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    evaluate_suite(suite_dir, ["random"], TurnShot(2, 1), "instant", 0, out)
    with pytest.raises(UsageError, match=r"--invalid-turns count, not free"):
        evaluate_suite(
            suite_dir, ["random"], TurnShot(2, 1), "instant", 0, out, invalid_turns="free"
        )
    with pytest.raises(UsageError, match=r"--max-reasks 2, not 5"):
        evaluate_suite(suite_dir, ["random"], TurnShot(2, 1), "instant", 0, out, max_reasks=5)
    # concurrency, workers and budgets may change between runs
    again = evaluate_suite(
        suite_dir, ["random"], TurnShot(2, 1), "instant", 0, out, concurrency=3, max_tokens=10
    )
    assert (again.executed, again.skipped) == (0, 4)


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (["--shard", "4/3"], "--shard"),
        (["--shard", "x"], "--shard"),
        (["--concurrency", "0"], "--concurrency"),
        (["--concurrency", "many"], "--concurrency"),
        (["--workers", "0"], "--workers"),
        (["--max-cost", "0"], "--max-cost"),
        (["--max-cost", "-1"], "--max-cost"),
        (["--max-cost", "nan"], "--max-cost"),
        (["--max-tokens", "0"], "--max-tokens"),
        (["--invalid-turns", "sometimes"], "--invalid-turns"),
        (["--max-reasks", "-1"], "--max-reasks"),
        (["--base-url", "http://127.0.0.1:1/v1"], "--base-url applies to LLM agents"),
        (["--agent", "openai/m", "--protocol", "xml"], "--protocol"),
        (["--agent", "openai/m", "--history", "0"], "--history"),
        (["--agent", "openai/m", "--timeout", "0"], "--timeout"),
        (["--agent", "openai/m", "-M", "temperature"], "model option"),
        (["--agent", "nosuch/m"], "nosuch"),
    ],
)
def test_cli_bad_values_are_one_line_exit_2(
    extra: list[str],
    needle: str,
    suite_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["2@1", "--suite", str(suite_dir), "--out", str(tmp_path / "o"), *extra]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and needle in err[0] and "Traceback" not in err[0], err
    assert not (tmp_path / "o").exists()  # refused before any work


def test_cli_unreachable_base_url_is_one_line_exit_2(
    suite_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    argv = ["2@1", "--suite", str(suite_dir), "--agent", "openai/test-model", "--base-url", url]
    assert main([*argv, "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(_port(url)) in err[0] and "Traceback" not in err[0], err
    assert not (tmp_path / "o").exists()


def _port(url: str) -> int:
    return int(url.rsplit(":", 1)[1].split("/")[0])


def test_cli_concurrent_run_and_help(
    suite_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "o"
    argv = ["2@1", "--suite", str(suite_dir), "--agent", "random", "--out", str(out)]
    assert main([*argv, "--concurrency", "4", "--shard", "1/2"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "2 episode(s): 2 run, 0 already done, 0 failed" in text
    assert (out / "run.shard-1-of-2.json").is_file() and (out / "index.shard-1-of-2.json").is_file()
    assert main(["--help"]) == 0
    help_text = capsys.readouterr().out
    for flag in ("--concurrency", "--shard", "--max-cost", "--base-url", "--invalid-turns"):
        assert flag in help_text
    assert "exits 3" in help_text


def test_duplicate_agents_and_a_file_as_out_are_one_line(
    suite_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["1@1", "--suite", str(suite_dir)]
    assert main([*base, "--agent", "random", "--agent", "random"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["oracle-eval: error: agent listed twice: random"]
    (tmp_path / "f").write_text("x")
    assert main([*base, "--agent", "random", "--out", str(tmp_path / "f")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "is a file, not a directory" in err[0]


def test_progress_usage_text_says_when_dollars_are_unknown() -> None:
    from evaluator import cli

    assert cli._priced(["random", "adaptive"]) == "all"
    assert cli._priced(["openai/gpt-5-mini"]) == "all"
    assert cli._priced(["openai/gpt-5-mini", "openai/some-local-model"]) == "some"
    assert cli._priced(["openai/some-local-model"]) == "none"
    assert cli._usage_text(1234, 0.5, "all") == "1,234 tok $0.5000"
    assert cli._usage_text(1234, 0.5, "some") == "1,234 tok >=$0.5000"
    assert cli._usage_text(1234, 0.0, "none") == "1,234 tok $-"
    assert cli._usage_text(0, 0.0, "all") == ""
