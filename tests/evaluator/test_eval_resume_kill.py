"""Acceptance: SIGKILL oracle-eval in the middle of a 40-episode LLM run against a server
with 200 ms replies, start it again: every episode once, no finished episode redone (the
server's request log says so), and the totals of an uninterrupted run.

Nothing here is timed: the server's ``on_request`` hook picks the moment of the kill from
the requests themselves and holds that request's reply until the process is dead, and
``LoopbackServer.drain`` waits until everything the killed process sent is in the log.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path
from typing import Any

from blackboxes.families import get_family
from evaluator.kinds.turns.trajectory import load_trajectory
from evaluator.llm_agents import LlmAgentSettings
from evaluator.runner import evaluate_suite
from evaluator.spec import TurnShot
from oracle_bench.rng import rng_for
from providers.loopback import LoopbackServer, RecordedRequest

ROOT = Path(__file__).resolve().parents[2]
MODEL = "openai/test-model"
CALLS = 2 + 8  # 2@1 on ERI: two queries, eight held-out answers
BOXES, REPEATS = 10, 4
CONCURRENCY = 8
FINISHED_AT_KILL = 10  # at least this many episodes are on disk when the kill comes


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


def _set_on_exit(proc: subprocess.Popen[bytes], event: threading.Event) -> None:
    """Set ``event`` when ``proc`` exits (run in a thread: a test waiting on ``event``
    wakes up on the event it expects or on the process ending early, whichever is first)."""
    proc.wait()
    event.set()


class _KillPoint:
    """The server's ``on_request`` hook: picks the request at which to kill the run, and
    holds its reply until :attr:`release` is set.

    The scheduler runs at most ``CONCURRENCY`` episodes at a time and starts one only when
    an earlier one has written its trajectory and freed its slot, so once the server has
    seen the scopes of ``CONCURRENCY + FINISHED_AT_KILL`` episodes, at least
    ``FINISHED_AT_KILL`` trajectories are on disk. The request picked is the first one seen
    after that for the second or later call of an episode: that episode has its earlier
    replies in the call cache (a reply is cached before the next call is sent) and, with
    this reply held, it cannot finish before the kill. So the killed run has finished
    episodes (which the resumed run must not redo) and a cut-off one (whose cached calls
    it must replay).
    """

    def __init__(self, wake: threading.Event) -> None:
        self.wake = wake
        self.reached = threading.Event()
        self.release = threading.Event()
        self.picked: RecordedRequest | None = None
        self._lock = threading.Lock()
        self._scopes: set[str] = set()

    def __call__(self, request: RecordedRequest) -> None:
        scope = request.headers.get("x-oracle-bench-scope", "")
        messages = request.body.get("messages", []) if isinstance(request.body, dict) else []
        turn = sum(1 for m in messages if isinstance(m, dict) and m.get("role") == "assistant")
        with self._lock:
            self._scopes.add(scope)
            pick = (
                self.picked is None
                and len(self._scopes) >= CONCURRENCY + FINISHED_AT_KILL
                and turn >= 1
            )
            if pick:
                self.picked = request
        if pick:
            self.reached.set()
            self.wake.set()
            # Bounded only so that a broken test cannot hang the server thread for ever.
            self.release.wait(timeout=300)


def test_sigkill_then_resume(tmp_path: Path, suite_builder: Any) -> None:
    suite = suite_builder(tmp_path / "suites", n=BOXES, seed=55)
    out = tmp_path / "run"
    wake = threading.Event()  # the kill point is reached, or the first run ended early
    kill_point = _KillPoint(wake)
    with LoopbackServer(
        _script(), latency=0.05, per_conversation=True, on_request=kill_point
    ) as server:
        argv = ["2@1", "--suite", str(suite), "--agent", MODEL]
        argv += ["--base-url", server.openai_base_url, "--repeats", str(REPEATS)]
        argv += ["--concurrency", str(CONCURRENCY), "--out", str(out)]

        first = _oracle_eval(argv, tmp_path / "first")
        threading.Thread(target=_set_on_exit, args=(first, wake), daemon=True).start()
        try:
            wake.wait(timeout=300)
            assert kill_point.reached.is_set(), (tmp_path / "first.err").read_text()[-2000:]
            first.send_signal(signal.SIGKILL)
            assert first.wait(timeout=30) == -signal.SIGKILL
        finally:
            kill_point.release.set()
            if first.poll() is None:
                first.kill()
                first.wait()
        # Everything the dead process sent is now in the log, and only that.
        before = server.drain(timeout=60)
        mark = len(before)
        done_before = {p.name: p.read_bytes() for p in _trajectories(out)}
        assert FINISHED_AT_KILL <= len(done_before) < BOXES * REPEATS
        picked = kill_point.picked
        assert picked is not None
        cut_off = picked.headers["x-oracle-bench-scope"]
        assert cut_off not in {_scope(n) for n in done_before}

        second = _oracle_eval(argv, tmp_path / "second")
        assert second.wait(timeout=300) == 0, (tmp_path / "second.err").read_text()[-2000:]
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
    # the episode cut off at the kill replayed the calls it had finished, and sent the rest
    picked_turn = sum(1 for m in picked.body["messages"] if m.get("role") == "assistant")
    (cut_name,) = (n for n in resumed if _scope(n) == cut_off)
    cut_usage = resumed[cut_name].usage
    assert cut_usage is not None and cut_usage.cached_calls == picked_turn >= 1
    assert scopes[cut_off] == CALLS - picked_turn
    cached = sum(t.usage.cached_calls for t in resumed.values() if t.usage is not None)
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
