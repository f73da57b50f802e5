"""LLM runs through the real openai SDK against the loopback server: injected provider
faults during a concurrent run, and the token budget stopping cleanly and resuming."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from blackboxes.families import get_family
from evaluator.cli import EXIT_STOPPED, main
from evaluator.kinds.turns.trajectory import load_trajectory
from evaluator.llm_agents import LlmAgentSettings
from evaluator.runner import ProgressEvent, RetryProgress, RunEvent, evaluate_suite
from evaluator.spec import TurnShot
from oracle_bench.errors import UsageError
from oracle_bench.rng import rng_for
from providers import RetryPolicy
from providers.loopback import LoopbackServer

MODEL = "openai/test-model"
CALLS = 2 + 8  # 2@1: two queries, then one answer per held-out item (ERI has 8)


def tool_script(label: str = "fault-test") -> list[dict[str, Any]]:
    """One episode of 2@1 in tool calls (explicit ids: trajectories stay byte-comparable),
    its two queries drawn from ``label``."""
    eri = get_family("ERI")
    rng = rng_for(0, label)
    queries = [eri.format_query(eri.random_query(rng)) for _ in range(2)]
    lines = [
        {"tool_calls": [{"id": f"q{i}", "name": "query", "arguments": {"input": q}}]}
        for i, q in enumerate(queries)
    ]
    lines += [
        {"tool_calls": [{"id": f"a{i}", "name": "answer", "arguments": {"output": str(i % 3)}}]}
        for i in range(8)
    ]
    return lines


@pytest.fixture(scope="module")
def suite_dir(tmp_path_factory: pytest.TempPathFactory, suite_builder: Any) -> Path:
    return suite_builder(tmp_path_factory.mktemp("suites"), n=3, seed=44)


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    with LoopbackServer(tool_script(), per_conversation=True) as s:
        yield s


def _settings(server: LoopbackServer, **extra: Any) -> LlmAgentSettings:
    return LlmAgentSettings(
        base_url=server.openai_base_url,
        retry=RetryPolicy(max_attempts=8, initial=0.01, max_wait=0.2),
        **extra,
    )


def _llm_files(out: Path) -> dict[str, dict[str, Any]]:
    return {
        p.name: json.loads(p.read_text())
        for p in sorted((out / "trajectories").glob("*openai-test-model*.json"))
    }


def _without_retries(traj: dict[str, Any]) -> dict[str, Any]:
    calls = [{k: v for k, v in c.items() if k != "retries"} for c in traj["llm_calls"]]
    usage = {k: v for k, v in traj["usage"].items() if k != "retries"}
    return {**traj, "llm_calls": calls, "usage": usage}


def _drop(value: Any, key: str) -> Any:
    """``value`` without keys starting with ``key``, at any depth."""
    if isinstance(value, dict):
        return {k: _drop(v, key) for k, v in value.items() if not k.startswith(key)}
    if isinstance(value, list):
        return [_drop(v, key) for v in value]
    return value


def test_injected_faults_are_retried_recorded_and_shown(
    suite_dir: Path, tmp_path: Path, server: LoopbackServer
) -> None:
    agents = [MODEL, "random"]
    clean = evaluate_suite(
        suite_dir,
        agents,
        TurnShot(2, 1),
        "instant",
        0,
        tmp_path / "clean",
        2,
        concurrency=4,
        llm=_settings(server),
    )
    assert clean.failed == 0 and clean.usage.retries == 0
    start = len(server.requests)
    server.inject("rate_limit", retry_after=0.05)
    server.inject("server_error", times=2)
    server.inject("slow", delay=1.0)  # past the 0.3 s timeout
    server.inject("malformed")
    server.inject("truncated")
    events: list[RunEvent] = []
    faulty = evaluate_suite(
        suite_dir,
        agents,
        TurnShot(2, 1),
        "instant",
        0,
        tmp_path / "faulty",
        2,
        progress=events.append,
        concurrency=4,
        llm=_settings(server, timeout=0.3),
    )
    injected = [r for r in server.requests[start:] if r.fault is not None]
    assert Counter(r.fault for r in injected) == {
        "rate_limit": 1,
        "server_error": 2,
        "slow": 1,
        "malformed": 1,
        "truncated": 1,
    }
    # the run completed: every episode exactly once, nothing lost
    assert (faulty.executed, faulty.failed, faulty.pending, faulty.stopped) == (12, 0, 0, None)
    rows = json.loads((tmp_path / "faulty" / "index.json").read_text())["rows"]
    assert len(rows) == 12 and {r["status"] for r in rows} == {"completed"}
    assert len({r["file"] for r in rows}) == 12
    # each LLM episode's conversation was served exactly once per call
    served = Counter(
        r.headers["x-oracle-bench-scope"] for r in server.requests[start:] if r.fault is None
    )
    assert served == {f"eri-easy-{b:03d}/{MODEL}/r{rep}": CALLS for b in range(3) for rep in (0, 1)}
    # the retries are recorded: per call, per episode, per run, and seen as events
    trajs = _llm_files(tmp_path / "faulty")
    per_call = sum(c["retries"] for t in trajs.values() for c in t["llm_calls"])
    assert per_call == sum(t["usage"]["retries"] for t in trajs.values()) == 6
    assert faulty.usage.retries == 6
    retries = [e for e in events if isinstance(e, RetryProgress)]
    assert len(retries) == 6 and {e.provider for e in retries} == {MODEL}
    assert {e.scope for e in retries} <= set(served)
    assert any("429" in e.reason for e in retries)
    done = [e for e in events if isinstance(e, ProgressEvent)]
    assert [e.done for e in done] == list(range(1, 13))
    assert done[-1].tokens == clean.usage.tokens
    # and the results are those of the fault-free run, retries aside
    clean_trajs = _llm_files(tmp_path / "clean")
    assert len(trajs) == 6 and set(trajs) == set(clean_trajs)
    for name, traj in trajs.items():
        assert _without_retries(traj) == _without_retries(clean_trajs[name])
    summaries = [
        json.loads((tmp_path / d / "summary.json").read_text()) for d in ("faulty", "clean")
    ]
    assert _drop(summaries[0], "retries") == _drop(summaries[1], "retries")


def test_max_tokens_stops_cleanly_and_a_larger_cap_finishes(
    suite_dir: Path,
    tmp_path: Path,
    server: LoopbackServer,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    prices = {"version": 1, "unit": "USD per million tokens", "note": "test", "models": {}}
    prices["models"] = {MODEL: {"input": 1.0, "output": 4.0, "cache_read": 0.5, "cache_write": 1}}
    (tmp_path / "prices.json").write_text(json.dumps(prices))
    monkeypatch.setenv("ORACLE_BENCH_PRICING", str(tmp_path / "prices.json"))
    url = server.openai_base_url
    base = ["2@1", "--suite", str(suite_dir), "--agent", MODEL, "--base-url", url]
    base += ["--repeats", "2", "--concurrency", "1"]
    assert main([*base, "--out", str(tmp_path / "whole")]) == 0
    whole = {p.name: load_trajectory(p) for p in (tmp_path / "whole" / "trajectories").iterdir()}
    per_episode = {t.usage.tokens for t in whole.values() if t.usage is not None}
    first = whole["eri-easy-000__openai-test-model__r0.json"]
    assert first.usage is not None and first.usage.calls == CALLS
    capsys.readouterr()

    # one episode at a time: two finish, the third crosses the cap and is dropped
    out = tmp_path / "capped"
    cap = int(2.5 * first.usage.tokens)
    assert max(per_episode) < 1.25 * first.usage.tokens  # so exactly two fit
    assert main([*base, "--out", str(out), "--max-tokens", str(cap)]) == EXIT_STOPPED
    said = " ".join(capsys.readouterr().out.split())
    assert "Stopped: --max-tokens" in said and "4 episode(s) not run" in said
    files = sorted(p.name for p in (out / "trajectories").iterdir())
    assert files == [
        "eri-easy-000__openai-test-model__r0.json",
        "eri-easy-000__openai-test-model__r1.json",
    ]  # no temporary or half-written file either
    manifest = json.loads((out / "run.json").read_text())
    assert manifest["stopped"].startswith(f"--max-tokens {cap} reached")
    assert (manifest["episodes"], manifest["pending"], manifest["jobs"]) == (2, 4, 6)
    rows = json.loads((out / "index.json").read_text())["rows"]
    assert [r["status"] for r in rows] == ["completed"] * 2 + ["pending"] * 4
    assert rows[2]["file"] is None and rows[0]["tokens"] == first.usage.tokens
    summary = json.loads((out / "summary.json").read_text())
    assert sum(g["episodes"] for g in summary["groups"]) == 2

    # a larger cap finishes the run: the same totals as the uninterrupted one
    assert main([*base, "--out", str(out), "--max-tokens", str(100 * cap)]) == 0
    said = " ".join(capsys.readouterr().out.split())
    assert "6 episode(s): 4 run, 2 already done, 0 failed" in said
    resumed = {p.name: load_trajectory(p) for p in (out / "trajectories").iterdir()}
    assert set(resumed) == set(whole)
    for name, traj in resumed.items():
        assert traj.accuracy == whole[name].accuracy
        assert traj.usage is not None and whole[name].usage is not None
        assert traj.usage.tokens == whole[name].usage.tokens
    # the dropped episode replayed its paid calls from the cache
    third = resumed["eri-easy-001__openai-test-model__r0.json"]
    assert third.usage is not None and 0 < third.usage.cached_calls < CALLS
    assert sum(t.usage.cached_calls for t in resumed.values() if t.usage) == (
        third.usage.cached_calls
    )
    final = json.loads((out / "run.json").read_text())
    assert final["stopped"] is None and final["usage"]["tokens"] == sum(
        t.usage.tokens for t in whole.values() if t.usage
    )
    # dollars too: a replayed call keeps the price it was paid at, once
    assert final["usage"]["cost_usd"] == pytest.approx(
        sum(t.usage.cost_usd or 0 for t in whole.values() if t.usage)
    )
    assert final["usage"]["cost_usd"] > 0
    # the same summary; only the replayed calls' bookkeeping differs (cached_calls)
    summaries = [json.loads((d / "summary.json").read_text()) for d in (out, tmp_path / "whole")]
    assert _drop(summaries[0], "cached_calls") == _drop(summaries[1], "cached_calls")


def test_both_wire_formats_from_the_cli_with_per_provider_urls(
    suite_dir: Path,
    tmp_path: Path,
    server: LoopbackServer,
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["2@1", "--suite", str(suite_dir), "--agent", MODEL, "--agent", "anthropic/test-model"]
    argv += ["--base-url", f"openai={server.openai_base_url}"]
    argv += ["--base-url", f"anthropic={server.anthropic_base_url}"]
    argv += ["--concurrency", "4", "--out", str(tmp_path / "run")]
    assert main(argv) == 0
    trajectories = [load_trajectory(p) for p in (tmp_path / "run" / "trajectories").iterdir()]
    assert sorted(Counter(t.agent for t in trajectories).items()) == [
        ("anthropic/test-model", 3),
        (MODEL, 3),
    ]
    assert all(t.status == "completed" and t.usage is not None for t in trajectories)
    assert all(t.usage is not None and t.usage.calls == CALLS for t in trajectories)
    # the scripted answers are the same for both formats, so are the accuracies
    by_box = Counter((t.box_id, t.accuracy) for t in trajectories)
    assert set(by_box.values()) == {2}
    formats = Counter(r.format for r in server.requests)
    assert formats == {"openai": 3 * CALLS, "anthropic": 3 * CALLS}
    out = capsys.readouterr().out
    assert "LLM usage ·" in out  # the usage table (agent names may fold in 80 columns)

    # a provider-qualified URL for a provider that does not exist: one line, exit 2
    bad = [*argv[:7], "--base-url", "nope=http://127.0.0.1:1", "--out", str(tmp_path / "x")]
    assert main(bad) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "unknown provider 'nope'" in err[0]


def test_max_cost_for_a_model_without_a_price_is_refused(
    suite_dir: Path, tmp_path: Path, server: LoopbackServer, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["2@1", "--suite", str(suite_dir), "--agent", MODEL, "--max-cost", "0.01"]
    argv += ["--base-url", server.openai_base_url, "--out", str(tmp_path / "run")]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"no price for {MODEL}" in err[0] and "--max-tokens" in err[0]
    assert server.requests == [] and not (tmp_path / "run").exists()


def test_episodes_made_with_other_model_options_are_never_reused(
    suite_dir: Path, tmp_path: Path, server: LoopbackServer
) -> None:
    out = tmp_path / "run"

    def run(agent: str, **options: Any) -> Any:
        llm = _settings(server, options=options) if agent == MODEL else None
        return evaluate_suite(suite_dir, [agent], TurnShot(2, 1), "instant", 0, out, llm=llm)

    assert run(MODEL, temperature=0).executed == 3
    first = load_trajectory(out / "trajectories" / "eri-easy-000__openai-test-model__r0.json")
    assert first.settings["--model-option"] == {"temperature": 0}
    assert first.settings["--invalid-turns"] == "count"
    assert run("random").executed == 3  # rewrites run.json: no LLM settings in it any more
    # ... but the folder's definition keeps them: other model options are another run
    with pytest.raises(UsageError, match=r"--model-option \{\"temperature\": 0\}, not"):
        run(MODEL, temperature=1)
    assert run(MODEL, temperature=0).skipped == 3
    # a trajectory made with other settings (its folder's records lost) is never reused
    (out / "definition.json").unlink()
    (out / "run.json").unlink()
    (out / "index.json").unlink()
    for name in ("summary.json", "summary.csv", "boxes.csv"):
        (out / name).unlink()
    fresh = tmp_path / "fresh"
    (fresh / "trajectories").mkdir(parents=True)
    for path in (out / "trajectories").glob("*openai*.json"):
        (fresh / "trajectories" / path.name).write_bytes(path.read_bytes())
    out = fresh
    with pytest.raises(UsageError, match="holds no oracle-eval run"):
        run(MODEL, temperature=1)
