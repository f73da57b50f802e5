"""Acceptance: SIGKILL oracle-eval in the middle of a 40-episode LLM run against a server
with 200 ms replies, start it again: every episode once, no finished episode redone (the
server's request log says so), and the totals of an uninterrupted run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from blackboxes.families import get_family
from evaluator.llm_agents import LlmAgentSettings
from evaluator.runner import evaluate_suite
from evaluator.spec import TurnShot
from evaluator.trajectory import load_trajectory
from oracle_bench.rng import rng_for
from providers.loopback import LoopbackServer

ROOT = Path(__file__).resolve().parents[2]
MODEL = "openai/test-model"
CALLS = 2 + 8  # 2@1 on ERI: two queries, eight held-out answers
BOXES, REPEATS = 10, 4


def _script() -> list[dict[str, Any]]:
    eri = get_family("ERI")
    rng = rng_for(0, "kill-test")
    queries = [eri.format_query(eri.random_query(rng)) for _ in range(2)]
    lines = [
        {"tool_calls": [{"id": f"q{i}", "name": "query", "arguments": {"input": q}}]}
        for i, q in enumerate(queries)
    ]
    return lines + [
        {"tool_calls": [{"id": f"a{i}", "name": "answer", "arguments": {"output": str(i % 2)}}]}
        for i in range(8)
    ]


def _oracle_eval(argv: list[str], log: Path) -> subprocess.Popen[bytes]:
    """``oracle-eval ARGV`` in a fresh interpreter; stdout to ``log``.out, stderr to .err."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_PROXY": "127.0.0.1,localhost"}
    with open(log.with_suffix(".out"), "wb") as out, open(log.with_suffix(".err"), "wb") as err:
        return subprocess.Popen(
            [sys.executable, "-m", "evaluator.cli", *argv],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=err,
        )


def _trajectories(out: Path) -> list[Path]:
    folder = out / "trajectories"
    return sorted(folder.glob("*.json")) if folder.is_dir() else []


def _scope(name: str) -> str:
    box, _, rep = name.removesuffix(".json").split("__")
    return f"{box}/{MODEL}/{rep}"


def test_sigkill_then_resume(tmp_path: Path, suite_builder: Any) -> None:
    suite = suite_builder(tmp_path / "suites", n=BOXES, seed=55)
    out = tmp_path / "run"
    with LoopbackServer(_script(), latency=0.2, per_conversation=True) as server:
        argv = ["2@1", "--suite", str(suite), "--agent", MODEL]
        argv += ["--base-url", server.openai_base_url, "--repeats", str(REPEATS)]
        argv += ["--concurrency", "8", "--out", str(out)]

        first = _oracle_eval(argv, tmp_path / "first")
        deadline = time.monotonic() + 40
        while len(_trajectories(out)) < 10:
            assert first.poll() is None, (tmp_path / "first.err").read_text()[-2000:]
            assert time.monotonic() < deadline, "no progress"
            time.sleep(0.02)
        # Episodes run in waves (same latency for all): kill mid-wave, when the episodes in
        # flight have finished some calls, so that resuming has calls to replay.
        time.sleep(0.5)
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=10)
        time.sleep(0.5)  # let the requests in flight at the kill reach the log
        done_before = {p.name: p.read_bytes() for p in _trajectories(out)}
        assert 10 <= len(done_before) < BOXES * REPEATS
        mark = len(server.requests)

        second = _oracle_eval(argv, tmp_path / "second")
        assert second.wait(timeout=60) == 0, (tmp_path / "second.err").read_text()[-2000:]
        stdout = (tmp_path / "second.out").read_text()
        after = server.requests[mark:]

    # every episode exactly once, the finished ones untouched
    files = _trajectories(out)
    expected = {
        f"eri-easy-{b:03d}__openai-test-model__r{r}.json"
        for b in range(BOXES)
        for r in range(REPEATS)
    }
    assert {p.name for p in files} == expected
    for name, data in done_before.items():
        assert (out / "trajectories" / name).read_bytes() == data
    assert (
        " ".join(stdout.split()).count(
            f"40 episode(s): {40 - len(done_before)} run, {len(done_before)} already done, 0 failed"
        )
        == 1
    )
    # no episode finished before the kill sent a request after the restart
    scopes = Counter(r.headers.get("x-oracle-bench-scope") for r in after)
    assert not set(scopes) & {_scope(n) for n in done_before}
    assert set(scopes) <= {_scope(n) for n in expected - set(done_before)}
    # the rest made exactly the calls the call cache could not replay; an episode killed
    # after its last call but before its file was written replays every call, silently
    resumed = {p.name: load_trajectory(p) for p in files if p.name not in done_before}
    for name, traj in resumed.items():
        if _scope(name) not in scopes:
            assert traj.usage is not None and traj.usage.cached_calls == CALLS, name
    cached = sum(t.usage.cached_calls for t in resumed.values() if t.usage is not None)
    assert cached > 0  # episodes cut off by the kill replayed their finished calls
    assert len(after) == CALLS * len(resumed) - cached
    index = json.loads((out / "index.json").read_text())
    assert [r["status"] for r in index["rows"]] == ["completed"] * 40

    # the totals of an uninterrupted run
    with LoopbackServer(_script(), per_conversation=True) as server:
        whole = evaluate_suite(
            suite,
            [MODEL],
            TurnShot(2, 1),
            "instant",
            0,
            tmp_path / "whole",
            REPEATS,
            concurrency=8,
            llm=LlmAgentSettings(base_url=server.openai_base_url),
        )
    killed = json.loads((out / "summary.json").read_text())
    uninterrupted = json.loads((tmp_path / "whole" / "summary.json").read_text())
    assert [(b["box_id"], b["agent"], b["accuracy"]) for b in killed["boxes"]] == [
        (b["box_id"], b["agent"], b["accuracy"]) for b in uninterrupted["boxes"]
    ]
    manifest = json.loads((out / "run.json").read_text())
    assert manifest["usage"]["tokens"] == whole.usage.tokens > 0
    assert manifest["usage"]["calls"] == whole.usage.calls == 40 * CALLS
    for path in _trajectories(tmp_path / "whole"):
        mine = load_trajectory(out / "trajectories" / path.name)
        theirs = load_trajectory(path)
        assert mine.accuracy == theirs.accuracy
        assert mine.usage is not None and theirs.usage is not None
        assert mine.usage.tokens == theirs.usage.tokens
