"""Resumable LLM generation: SIGKILL mid-run, failed boxes, changed arguments refused.

The kill test runs ``oracle-gen`` as a subprocess against a loopback server that holds
its third reply (``on_request``) until the process is killed with SIGKILL, so a request
is in flight at the kill; it runs the same command again and compares both the suite and
the server's request log with an uninterrupted run. Nothing is timed: the kill waits for
the server's hook, the log is complete once ``LoopbackServer.drain`` returns.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from blackboxes.store import load_suite_boxes
from generator.cli import main
from generator.suite import GenerateConfig, LlmModels, SuiteExistsError, generate_suite
from oracle_bench.errors import GenerationError
from providers.loopback import LoopbackServer, RecordedRequest, ScriptedReply
from tests.generator.test_generate_llm import (
    FAST,
    REVIEW,
    cli_args,
    coder_reply,
    llm_config,
    script,
    tree,
    verdict_reply,
)

_KEY_VARS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL")
_REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in _KEY_VARS:
        monkeypatch.delenv(var, raising=False)


def _bodies(requests: list[RecordedRequest]) -> list[str]:
    return sorted(json.dumps(r.body, sort_keys=True) for r in requests)


def _set_on_exit(proc: subprocess.Popen[bytes], event: threading.Event) -> None:
    """Set ``event`` when ``proc`` exits (run in a thread: a test waiting on ``event``
    wakes up on the event it expects or on the process ending early, whichever is first)."""
    proc.wait()
    event.set()


def test_sigkill_mid_run_then_rerun_finishes_without_paying_twice(tmp_path: Path) -> None:
    n, seed = 3, 12
    calls = 2 * n  # one coder and one refiner call per box
    wake = threading.Event()  # the third request arrived, or oracle-gen ended early
    held, release = threading.Event(), threading.Event()
    seen: list[RecordedRequest] = []
    seen_lock = threading.Lock()

    def hold_the_third(request: RecordedRequest) -> None:
        # One job: calls are sequential. Box 0 is done (2 calls) when box 1's coder call
        # comes; its reply is held until the process is dead, so that call is in flight.
        with seen_lock:
            seen.append(request)
            third = len(seen) == 3
        if third:
            held.set()
            wake.set()
            release.wait(timeout=300)  # bounded only so a broken test cannot hang

    with LoopbackServer(on_request=hold_the_third) as server:
        # One spare reply per call: a request cut off by the kill is answered again alike.
        server.add(*script(range(n), seed, spares=1))
        out = tmp_path / "killed"
        argv = [sys.executable, "-m", "generator.cli", *cli_args(server, out, n=n, seed=seed)]
        env = {k: v for k, v in os.environ.items() if k not in _KEY_VARS}
        proc = subprocess.Popen(
            argv, cwd=_REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        threading.Thread(target=_set_on_exit, args=(proc, wake), daemon=True).start()
        try:
            wake.wait(timeout=300)
            if not held.is_set():
                assert proc.stderr is not None  # it has exited: its stderr reads to the end
                pytest.fail(f"oracle-gen ended early: {proc.stderr.read()!r}")
            proc.send_signal(signal.SIGKILL)
        finally:
            proc.kill()
            proc.communicate()
            release.set()
        assert proc.returncode == -signal.SIGKILL
        first = server.drain(timeout=60)  # everything the dead process sent, and only that
        assert len(first) == 3  # some but not all
        assert not (out / "suite.json").exists()

        rerun = subprocess.run(
            argv, cwd=_REPO, env=env, capture_output=True, text=True, timeout=120, check=False
        )
        assert rerun.returncode == 0, rerun.stderr
        second = server.requests[len(first) :]

        reference = tmp_path / "reference"
        server.add(*script(range(n), seed))
        assert main(cli_args(server, reference, n=n, seed=seed)) == 0
        uninterrupted = server.requests[len(first) + len(second) :]

    assert len(uninterrupted) == calls
    # The resumed suite is the uninterrupted one, byte for byte.
    assert tree(out) == tree(reference)
    # The second run sent only what the first had not completed, and the call whose reply
    # the kill cut off once more, first.
    completed, in_flight = first[:2], first[2]
    assert not set(_bodies(second)) & set(_bodies(completed))
    assert len(second) == calls - len(completed)
    assert second[0].body == in_flight.body
    assert _bodies(completed + second) == _bodies(uninterrupted)


def _refiner_faults(times: int) -> list[ScriptedReply]:
    return [ScriptedReply(fault="server_error", match=REVIEW) for _ in range(times)]


def _raw_tree(root: Path) -> dict[str, bytes]:
    """Every byte of a suite folder but its working state (.generator/)."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".generator" not in p.relative_to(root).parts
    }


def test_a_complete_suite_with_a_failed_box_is_left_as_it_is(tmp_path: Path) -> None:
    with LoopbackServer() as server:
        # Box 0's review fails on every retry: box 0 fails, box 1 completes the suite.
        server.add(*_refiner_faults(FAST.max_attempts), *script(range(2), seed=2))
        config = llm_config(server, tmp_path / "s", n=1, seed=2)
        first = generate_suite(config, retry=FAST)
        assert (first.failed, first.accepted) == (["ERI-easy-0000"], ["ERI-easy-0001"])
        before, requests = _raw_tree(first.path), len(server.requests)

        # The same command again: the suite is complete, so box 0 is not retried and
        # box 1 is neither displaced nor rewritten; suite.json keeps its digests.
        server.add(*script(range(1), seed=2))
        second = generate_suite(config, retry=FAST)
        assert second.unchanged
        assert (second.accepted, second.skipped, second.failed) == (
            ["ERI-easy-0001"],
            ["ERI-easy-0001"],
            [],
        )
        assert len(server.requests) == requests
    assert _raw_tree(second.path) == before


def test_a_failed_box_resumes_at_its_failed_node(tmp_path: Path) -> None:
    with LoopbackServer() as server:
        # Box 0's review fails on every retry, box 1 is written; two candidates at most,
        # so the suite stays unfinished (1 of 2).
        server.add(*_refiner_faults(FAST.max_attempts), *script(range(2), seed=2))
        config = llm_config(server, tmp_path / "s", n=2, seed=2, max_candidates=2)
        with pytest.raises(GenerationError, match="only 1 of 2 boxes"):
            generate_suite(config, retry=FAST)
        box1 = _raw_tree(tmp_path / "s" / "boxes" / "ERI-easy-0001")
        before = len(server.requests)
        assert [r.format for r in server.requests] == ["openai"] + ["anthropic"] * 3 + [
            "openai",
            "anthropic",
        ]

        # The same arguments again: box 0's slot is still missing, so it resumes at the
        # refiner (its coder call is in the checkpoint) and, now served, takes its place
        # at the head of the suite; box 1 is kept as it was.
        server.add(*script(range(1), seed=2))
        second = generate_suite(config, retry=FAST)
        assert (second.failed, second.accepted) == ([], ["ERI-easy-0000", "ERI-easy-0001"])
        assert second.skipped == ["ERI-easy-0001"]
        assert [r.format for r in server.requests[before:]] == ["anthropic"]
        assert _raw_tree(tmp_path / "s" / "boxes" / "ERI-easy-0001") == box1
        # The failure record of box 0 went with its failure.
        assert not (second.path / "rejected").exists()

        server.add(*script(range(2), seed=2))
        reference = generate_suite(replace(config, out=tmp_path / "ref"))
    assert tree(second.path) == tree(reference.path)


def test_other_arguments_are_refused_unless_overwrite(tmp_path: Path) -> None:
    with LoopbackServer() as server:
        server.add(*script(range(2), seed=1))
        config = llm_config(server, tmp_path / "s", n=2, seed=1)
        generate_suite(config)
        run_file = tmp_path / "s" / ".generator" / "run.json"
        identity: dict[str, Any] = json.loads(run_file.read_text())
        assert identity["options"]["llm"]["options"] == {}

        # The same arguments: every box kept, nothing sent.
        before = len(server.requests)
        again = generate_suite(config)
        assert again.skipped == ["ERI-easy-0000", "ERI-easy-0001"] and again.unchanged
        assert len(server.requests) == before

        # Other model options: refused before any call, the suite untouched.
        assert config.llm is not None
        hot = replace(config, llm=replace(config.llm, options={"temperature": 0.5}))
        kept = _raw_tree(tmp_path / "s")
        with pytest.raises(SuiteExistsError) as info:
            generate_suite(hot)
        assert str(info.value) == (
            f"{tmp_path / 's'} holds an ERI easy suite made without -M, not with "
            "-M temperature=0.5: use --overwrite to replace it, or another --out"
        )
        assert _raw_tree(tmp_path / "s") == kept and len(server.requests) == before

        # --overwrite: other boxes, made again (and the checkpoints restarted).
        server.add(*script(range(2), seed=1))
        other = generate_suite(replace(hot, overwrite=True))
        assert other.skipped == []
        assert len(server.requests) == before + 4
        assert json.loads(run_file.read_text())["options"]["llm"]["options"] == {"temperature": 0.5}
        suite, boxes = load_suite_boxes(other.path)
        assert suite.options["llm"]["options"] == {"temperature": 0.5}
        assert all(b.provenance.models["options"] == '{"temperature":0.5}' for b in boxes)


def test_llm_models_identity_ignores_where_models_are_served() -> None:
    a = LlmModels(coder="openai/a", refiner="anthropic/b", base_urls={"": "http://x:1"})
    b = replace(a, base_urls={"openai": "http://y:2/v1"}, max_per_provider=1)
    assert (
        a.identity()
        == b.identity()
        == {
            "coder": "openai/a",
            "refiner": "anthropic/b",
            "design": "reference",
            "options": {},
        }
    )
    assert b.base_url("openai/a") == "http://y:2/v1" and b.base_url("anthropic/b") is None
    assert a.base_url("anthropic/b") == "http://x:1"


def test_a_procedural_run_over_an_llm_suite_is_refused_and_a_complete_one_needs_no_server(
    tmp_path: Path,
) -> None:
    with LoopbackServer() as server:
        server.add(*script(range(1), seed=3))
        config = llm_config(server, tmp_path / "s", n=1, seed=3)
        generate_suite(config)
    before = _raw_tree(tmp_path / "s")
    procedural = GenerateConfig(category="ERI", level="easy", n=1, seed=3, out=tmp_path / "s")
    with pytest.raises(SuiteExistsError, match="made with --backend llm, not --backend procedural"):
        generate_suite(procedural)
    # The server is gone: a complete suite is kept without a preflight or a call.
    assert generate_suite(config).unchanged
    assert _raw_tree(tmp_path / "s") == before


def test_the_llm_call_timeout_reaches_the_providers(tmp_path: Path) -> None:
    with LoopbackServer() as server:
        # Every coder reply comes after 2 s; a 0.3 s timeout gives up on each attempt.
        slow = coder_reply(0, 5).model_copy(update={"delay": 2.0})
        # With the default timeout this script makes the box (checked below).
        server.add(verdict_reply(), *[slow] * FAST.max_attempts)
        config = llm_config(server, tmp_path / "s", n=1, seed=5, max_candidates=1)
        assert config.llm is not None
        config = replace(config, llm=replace(config.llm, timeout=0.3))
        with pytest.raises(GenerationError, match="only 0 of 1 boxes"):
            generate_suite(config, retry=FAST)
    record = json.loads((tmp_path / "s" / "rejected" / "ERI-easy-0000.json").read_text())
    assert record["outcome"] == "failed"
    assert "timeout" in record["reason"] and record["reason"].startswith("provider error: ")
    assert len(server.requests) == FAST.max_attempts  # coder attempts only, all timed out

    with LoopbackServer() as server:
        server.add(verdict_reply(), coder_reply(0, 5).model_copy(update={"delay": 2.0}))
        patient = llm_config(server, tmp_path / "p", n=1, seed=5, max_candidates=1)
        assert generate_suite(patient, retry=FAST).accepted == ["ERI-easy-0000"]
