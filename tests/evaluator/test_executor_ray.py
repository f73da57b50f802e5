"""The Ray executor against a real Ray head started as a separate process.

The head (``ray start --head --block`` on 127.0.0.1, 2 CPUs) runs for the module; it is
stopped by its own process group (never ``ray stop``, which would stop every Ray
instance of this user on the machine). The first test joins it through the command
line's ``--ray-address``; the others share one driver session (``ray_driver``), so the
cluster's worker processes are started once. Every comparison is byte for byte with the
local executor.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ray = pytest.importorskip("ray")

from evaluator.cli import main as eval_main  # noqa: E402
from evaluator.llm_agents import LlmAgentSettings  # noqa: E402
from evaluator.runner import (  # noqa: E402
    ProgressEvent,
    RetryProgress,
    RunEvent,
    UsageProgress,
    evaluate_suite,
)
from evaluator.spec import TurnShot  # noqa: E402
from generator.cli import main as gen_main  # noqa: E402
from providers import RetryPolicy  # noqa: E402
from providers.loopback import LoopbackServer  # noqa: E402
from tests.evaluator._inspect_script import INSPECT_WARNINGS  # noqa: E402
from tests.evaluator.test_eval_faults import tool_script  # noqa: E402

# The last test runs an Inspect task: Inspect's own warnings are not errors here.
pytestmark = INSPECT_WARNINGS

AGENTS = ["random", "fixed", "adaptive"]
MODEL = "openai/test-model"
CALLS = 2 + 8  # 2@1 on ERI: two queries, then one answer per held-out item
RAY_BIN = Path(sys.executable).with_name("ray")
GEN = ["--category", "ERI", "--level", "easy", "-n", "4", "--seed", "0"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def ray_address() -> Iterator[str]:
    """A Ray head on 127.0.0.1 in its own process group; its address."""
    if not RAY_BIN.exists():
        pytest.skip("no ray command next to this Python")
    auth = os.environ.get("RAY_AUTH_MODE")
    os.environ["RAY_AUTH_MODE"] = "disabled"  # loopback only: no token to hand around
    port = _free_port()
    command = [
        str(RAY_BIN),
        "start",
        "--head",
        "--block",
        "--node-ip-address=127.0.0.1",
        f"--port={port}",
        "--num-cpus=2",
        "--include-dashboard=false",
        "--disable-usage-stats",
    ]
    head = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # its own process group: stopped as a whole below
    )
    try:
        assert head.stdout is not None
        seen = []
        for line in head.stdout:  # --block: prints its banner, then waits
            seen.append(line)
            if "Ray runtime started" in line:
                break
        else:
            pytest.fail("ray start --head did not start:\n" + "".join(seen[-20:]))
        # keep reading what the head prints, so that a full pipe never blocks it
        drain = threading.Thread(target=head.stdout.read, daemon=True)
        drain.start()
        yield f"127.0.0.1:{port}"
    finally:
        if ray.is_initialized():
            ray.shutdown()
        os.killpg(head.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            head.wait(timeout=3)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(head.pid, signal.SIGKILL)  # what SIGTERM left of the group
        head.wait()
        if head.stdout is not None:
            head.stdout.close()
        if auth is None:
            os.environ.pop("RAY_AUTH_MODE", None)
        else:
            os.environ["RAY_AUTH_MODE"] = auth


@pytest.fixture(scope="module")
def suites(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``oracle-gen --category ERI --level easy -n 4 --seed 0``, locally (``local``)."""
    root = tmp_path_factory.mktemp("ray-suites")
    assert gen_main([*GEN, "--out", str(root / "local")]) == 0
    return root


def _tree(root: Path, *, skip: tuple[str, ...] = ()) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not any(part in skip for part in p.relative_to(root).parts)
    }


def _run_files(out: Path) -> dict[str, bytes]:
    """Everything a run writes that must not depend on the executor (run.json aside)."""
    return _tree(out, skip=("run.json", ".lock", ".cache", "run.lock"))


def _manifest_but_timing(out: Path) -> dict[str, Any]:
    manifest = json.loads((out / "run.json").read_text())
    for key in ("started", "finished", "duration_s"):
        manifest.pop(key)
    for key in ("out_dir", "executor"):
        manifest["arguments"].pop(key)
    return manifest


def test_cli_joins_the_cluster_and_generates_and_evaluates_the_same(
    ray_address: str, suites: Path, tmp_path: Path
) -> None:
    # generation: candidates as Ray tasks, the same suite byte for byte
    assert gen_main([*GEN, "--out", str(suites / "ray"), "--executor", "ray", "--jobs", "2",
                     "--ray-address", ray_address]) == 0  # fmt: skip
    skip = (".generator",)  # the lock and working state, not part of the suite
    assert _tree(suites / "ray", skip=skip) == _tree(suites / "local", skip=skip)
    # evaluation: the command line with --ray-address
    base = ["3@1", "--suite", str(suites / "local"), "--repeats", "2", "--concurrency", "2"]
    assert eval_main([*base, "--out", str(tmp_path / "local")]) == 0
    argv = [*base, "--out", str(tmp_path / "ray"), "--executor", "ray"]
    assert eval_main([*argv, "--ray-address", ray_address]) == 0
    assert not ray.is_initialized()  # the command's own session, closed
    files = _run_files(tmp_path / "ray")
    assert len([f for f in files if f.startswith("trajectories/")]) == 4 * 3 * 2
    assert files == _run_files(tmp_path / "local")
    assert _manifest_but_timing(tmp_path / "ray") == _manifest_but_timing(tmp_path / "local")
    assert json.loads((tmp_path / "ray" / "run.json").read_text())["arguments"]["executor"] == "ray"


@pytest.fixture(scope="module")
def ray_driver(ray_address: str) -> Iterator[str]:
    """One driver session for the rest of the module (the executor uses it as it is)."""
    ray.init(address=ray_address, logging_level="WARNING")
    yield ray_address
    ray.shutdown()


def _evaluate(suite: Path, out: Path, executor: str, **kwargs: Any) -> Any:
    return evaluate_suite(
        suite, AGENTS, TurnShot(3, 1), "instant", 0, out, 2, executor=executor, **kwargs
    )


def test_events_order_and_resume_across_executors(
    ray_driver: str, suites: Path, tmp_path: Path
) -> None:
    suite = suites / "local"
    local = _evaluate(suite, tmp_path / "local", "local", concurrency=2)
    events: list[RunEvent] = []
    on_ray = _evaluate(suite, tmp_path / "ray", "ray", concurrency=3, progress=events.append)
    assert (on_ray.executed, on_ray.failed, on_ray.pending) == (24, 0, 0)
    assert _run_files(tmp_path / "ray") == _run_files(tmp_path / "local")
    assert [p.name for p in on_ray.trajectories] == [p.name for p in local.trajectories]
    assert [e.done for e in events if isinstance(e, ProgressEvent)] == list(range(1, 25))
    assert {(e.action, e.status) for e in events if isinstance(e, ProgressEvent)} == {
        ("ran", "completed")
    }
    # a local run folder, cut short, is finished by the Ray executor (and vice versa)
    for first, then in (("local", "ray"), ("ray", "local")):
        out = tmp_path / f"{first}-then-{then}"
        shutil.copytree(tmp_path / first, out)
        gone = sorted((out / "trajectories").iterdir())[::5]
        for path in gone:
            path.unlink()
        resumed = _evaluate(suite, out, then, concurrency=2)
        assert (resumed.skipped, resumed.executed) == (24 - len(gone), len(gone))
        assert _run_files(out) == _run_files(tmp_path / "local")


def test_ctrl_c_cancels_the_tasks_in_flight_and_a_rerun_finishes(
    ray_driver: str, suites: Path, tmp_path: Path
) -> None:
    suite = suites / "local"
    _evaluate(suite, tmp_path / "local", "local")
    out = tmp_path / "ray"
    sent = []

    def ctrl_c(event: RunEvent) -> None:
        if isinstance(event, ProgressEvent) and not sent:
            sent.append(event)
            os.kill(os.getpid(), signal.SIGINT)

    with pytest.raises(KeyboardInterrupt):
        _evaluate(suite, out, "ray", concurrency=2, progress=ctrl_c)
    manifest = json.loads((out / "run.json").read_text())
    assert manifest["stopped"] == "interrupted (Ctrl-C)" and manifest["pending"] > 0
    written = {p.name: p.read_bytes() for p in (out / "trajectories").iterdir()}
    assert 1 <= len(written) < 24 and not [n for n in written if not n.endswith(".json")]
    reference = {p.name: p.read_bytes() for p in (tmp_path / "local" / "trajectories").iterdir()}
    assert all(reference[name] == data for name, data in written.items())
    rerun = _evaluate(suite, out, "ray", concurrency=2)
    assert (rerun.skipped, rerun.executed) == (len(written), 24 - len(written))
    assert _run_files(out) == _run_files(tmp_path / "local")


def test_llm_agent_budget_cache_and_events_hold_across_nodes(
    ray_driver: str, suites: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite = suites / "local"
    prices = {"version": 1, "unit": "USD per million tokens", "note": "test", "models": {}}
    prices["models"] = {MODEL: {"input": 1.0, "output": 4.0, "cache_read": 0.5, "cache_write": 1}}
    (tmp_path / "prices.json").write_text(json.dumps(prices))
    monkeypatch.setenv("ORACLE_BENCH_PRICING", str(tmp_path / "prices.json"))
    with LoopbackServer(tool_script("ray-test"), per_conversation=True) as server:
        llm = LlmAgentSettings(
            base_url=server.openai_base_url,
            retry=RetryPolicy(max_attempts=4, initial=0.01, max_wait=0.05),
        )

        def run(out: str, executor: str, **kwargs: Any) -> Any:
            return evaluate_suite(
                suite, [MODEL, "random"], TurnShot(2, 1), "instant", 0, tmp_path / out, 1,
                executor=executor, llm=llm, concurrency=2, **kwargs,
            )  # fmt: skip

        whole = run("local", "local")
        server.inject("server_error", times=2)
        events: list[RunEvent] = []
        on_ray = run("ray", "ray", progress=events.append)
        assert (on_ray.executed, on_ray.failed) == (8, 0)
        assert on_ray.usage.calls == 4 * CALLS and on_ray.usage.retries == 2
        # the same files, the two retries aside (they are recorded where they happened)
        local_files = _run_files(tmp_path / "local")
        ray_files = _run_files(tmp_path / "ray")
        assert set(ray_files) == set(local_files)
        for name, data in ray_files.items():
            if name.endswith(".csv"):
                continue  # summary.csv: the same numbers as summary.json, compared there
            ours, theirs = json.loads(data), json.loads(local_files[name])
            assert _drop(ours, "retries") == _drop(theirs, "retries"), name
        # per-call usage and the retry waits reached the driver's progress callback
        usage = [e for e in events if isinstance(e, UsageProgress)]
        assert [e.calls for e in usage] == list(range(1, 4 * CALLS + 1))
        assert usage[-1].tokens == on_ray.usage.tokens == whole.usage.tokens
        retries = [e for e in events if isinstance(e, RetryProgress)]
        assert len(retries) == 2 and {e.provider for e in retries} == {MODEL}
        assert {e.scope.split("/r")[0].split("/", 1)[1] for e in retries} == {MODEL}
        done = [e for e in events if isinstance(e, ProgressEvent)]
        assert [e.done for e in done] == list(range(1, 9))
        assert done[-1].tokens == on_ray.usage.tokens

        # the budget holds across nodes: one episode at a time, the third is dropped
        first = json.loads(
            (
                tmp_path / "local" / "trajectories" / "ERI-easy-0000__openai-test-model__r0.json"
            ).read_text()
        )["usage"]["tokens"]
        llm_only = [MODEL]

        def capped(out: str, cap: int) -> Any:
            return evaluate_suite(
                suite, llm_only, TurnShot(2, 1), "instant", 0, tmp_path / out, 1,
                executor="ray", llm=llm, concurrency=1, max_tokens=cap,
            )  # fmt: skip

        stopped = capped("capped", int(2.5 * first))
        assert stopped.stopped is not None and stopped.stopped.startswith("--max-tokens")
        assert (stopped.executed, stopped.pending) == (2, 2)
        # and the cache too: the dropped episode replays its paid calls on resume
        finished = capped("capped", 100 * first)
        assert (finished.skipped, finished.executed, finished.stopped) == (2, 2, None)
        third = json.loads(
            (
                tmp_path / "capped" / "trajectories" / "ERI-easy-0002__openai-test-model__r0.json"
            ).read_text()
        )
        assert 0 < third["usage"]["cached_calls"] < CALLS
        assert finished.usage.tokens == sum(
            json.loads(p.read_text())["usage"]["tokens"]
            for p in (tmp_path / "local" / "trajectories").glob("*openai*")
        )


def _drop(value: Any, key: str) -> Any:
    if isinstance(value, dict):
        return {k: _drop(v, key) for k, v in value.items() if not k.startswith(key)}
    if isinstance(value, list):
        return [_drop(v, key) for v in value]
    return value


def test_local_ray_and_inspect_score_every_episode_alike(
    ray_driver: str, suites: Path, tmp_path: Path
) -> None:
    """The acceptance test of the integrations: one suite, one script of replies, played
    by our runner locally, by the Ray executor and as an Inspect task (mockllm replaying
    the same lines): the same score for every episode."""
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import get_model

    from evaluator.integrations.inspect import oracle
    from evaluator.integrations.inspect._facts import SCORER_NAME
    from tests.evaluator._inspect_script import SPEC, Replayer, eri_script, write

    suite = suites / "local"
    probe = evaluate_suite(
        suite, [write(tmp_path / "probe.jsonl", eri_script({}))], SPEC, None, 0,
        tmp_path / "probe", llm=LlmAgentSettings(),
    )  # fmt: skip
    items = {}
    for path in probe.trajectories:
        raw = json.loads(path.read_text())
        items[raw["box_id"]] = [(it["input_text"], it["expected"]) for it in raw["items"]]
    lines = eri_script(items)
    agent = write(tmp_path / "replies.jsonl", lines)

    def scores(out: Path) -> dict[str, float]:
        rows = json.loads((out / "index.json").read_text())["rows"]
        return {row["box"]: row["score"] for row in rows}

    for executor in ("local", "ray"):
        evaluate_suite(
            suite, [agent], SPEC, None, 0, tmp_path / executor, llm=LlmAgentSettings(),
            executor=executor, concurrency=2,
        )  # fmt: skip
    [log] = inspect_eval(
        oracle(suite=str(suite), spec=SPEC),
        model=get_model("mockllm/model", custom_outputs=Replayer(lines)),
        log_dir=str(tmp_path / "logs"),
        display="none",
        max_samples=1,
    )
    assert log.status == "success" and log.samples is not None
    on_inspect = {str(s.id): s.scores[SCORER_NAME].value for s in log.samples}  # type: ignore[index]
    local = scores(tmp_path / "local")
    assert scores(tmp_path / "ray") == local
    assert on_inspect == local
    assert sorted(local) == ["ERI-easy-0000", "ERI-easy-0001", "ERI-easy-0002", "ERI-easy-0003"]
    assert set(local.values()) == {0.25}  # two of eight items right, as scripted
