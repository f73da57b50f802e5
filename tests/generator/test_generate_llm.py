"""oracle-gen --backend llm end to end: the real SDKs against the loopback server.

One loopback server speaks both wire formats: the coder (``openai/test-coder``) posts to
``/v1/chat/completions``, the refiner (``anthropic/test-refiner``) to ``/v1/messages``.
Coder replies are routed to their box with ``match``: a piece of the box's rule
description. The refiner's prompt holds the description too, so verdict replies (which
match the refiner template's first words) come first in every script: the server serves
the first unserved reply that matches.
"""

from __future__ import annotations

import json
import re
import socket
import threading
from collections.abc import Iterator
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from blackboxes.families import get_family
from blackboxes.store import load_suite_boxes
from evaluator.runner import evaluate_suite
from evaluator.spec import TurnShot
from generator.cli import main
from generator.suite import GenerateConfig, LlmModels, generate_suite
from oracle_bench.errors import GenerationError
from oracle_bench.jsonio import canonical_json
from oracle_bench.rng import rng_for
from providers import RetryEvent, RetryPolicy
from providers.loopback import LoopbackServer, ScriptedReply
from templates import render

CODER = "openai/test-coder"
REFINER = "anthropic/test-refiner"
REVIEW = "Review a candidate black box"
"""The first words of every refiner prompt (templates/prompts/refiner.j2)."""
_KEY_VARS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL")


MEASURED = ("latency_s", "retries")
"""Provenance fields measured during a run: the only bytes two runs may differ in."""


def _unmeasured(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _unmeasured(v) for k, v in value.items() if k not in MEASURED}
    if isinstance(value, list):
        return [_unmeasured(v) for v in value]
    return value


def _comparable(rel: Path, data: bytes) -> bytes:
    if rel.name in ("suite.json", ".suite.partial.json"):
        suite = json.loads(data)
        for box in suite["boxes"]:
            # The box digest covers provenance.json, whose measured fields differ by run.
            box.pop("digest")
        return canonical_json(suite).encode()
    if rel.name in ("owner.json", ".owner.partial.json"):
        owner = json.loads(data)
        for files in owner["files"].values():
            files.pop("provenance.json")
        return canonical_json(owner).encode()
    if rel.name == "provenance.json" or rel.parts[0] == "rejected":
        return canonical_json(_unmeasured(json.loads(data))).encode()
    return data


def tree(root: Path) -> dict[str, bytes]:
    """Every file of a suite folder, the run's working state (.generator/) excluded, with
    the measured provenance fields (``MEASURED``) and the digests covering them dropped;
    everything else must match byte for byte."""
    return {
        str(p.relative_to(root)): _comparable(p.relative_to(root), p.read_bytes())
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".generator" not in p.relative_to(root).parts
    }


def box_key(index: int, seed: int, level: str = "easy") -> tuple[str, str]:
    """(a piece of the rule description unique to the box, the correct code)."""
    family = get_family("ERI")
    rule = family.sample_rule(rng_for(seed, "ERI", level, index), level, None)  # type: ignore[arg-type]
    template, ctx = family.code_template(rule)
    # The rule-specific sentence follows the kind's preamble ("... modulo 26. " or, for
    # case-sensitive kinds, "... is A). ").
    body = re.split(r"modulo 26\. |is A\)\. ", rule.description, maxsplit=1)[1]
    unique = body[:70]
    return unique, render(template, **ctx)


def coder_reply(index: int, seed: int, code: str | None = None) -> ScriptedReply:
    unique, correct = box_key(index, seed)
    body = correct if code is None else code
    return ScriptedReply(
        text=f"Here it is.\n```python\n{body}```\n",
        match=unique,
        usage={"input": 300, "output": 120},
    )


def verdict_reply(verdict: str = "correct") -> ScriptedReply:
    return ScriptedReply(
        tool_calls=[
            {
                "name": "submit_verdict",
                "arguments": {
                    "verdict": verdict,
                    "reasons": [f"scripted verdict: {verdict}"],
                    "changes": [],
                },
            }
        ],
        match=REVIEW,
        usage={"input": 500, "output": 40},
    )


def script(indices: range, seed: int, *, spares: int = 0) -> list[ScriptedReply]:
    """Correct code and a ``correct`` verdict for each box, plus ``spares`` copies of each.

    A spare answers a request repeated after a kill (its first answer was never received);
    spares a run does not need stay unserved.
    """
    copies = 1 + spares
    verdicts = [verdict_reply() for _ in range(copies * len(indices))]
    return verdicts + [coder_reply(i, seed) for _ in range(copies) for i in indices]


def cli_args(server: LoopbackServer, out: Path, *, n: int, seed: int) -> list[str]:
    return [
        "--category",
        "ERI",
        "--level",
        "easy",
        "-n",
        str(n),
        "--seed",
        str(seed),
        "--out",
        str(out),
        "--backend",
        "llm",
        "--coder",
        CODER,
        "--refiner",
        REFINER,
        "--base-url",
        f"openai={server.openai_base_url}",
        "--base-url",
        f"anthropic={server.anthropic_base_url}",
    ]


def llm_config(
    server: LoopbackServer, out: Path, *, n: int, seed: int, **kw: Any
) -> GenerateConfig:
    models = LlmModels(
        coder=CODER,
        refiner=REFINER,
        base_urls={"openai": server.openai_base_url, "anthropic": server.anthropic_base_url},
    )
    return GenerateConfig(
        category="ERI", level="easy", n=n, seed=seed, out=out, backend="llm", llm=models, **kw
    )


FAST = RetryPolicy(max_attempts=3, initial=0.01, max_wait=0.1)


@pytest.fixture(autouse=True)
def _no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """No real key or server from the environment: local base URLs need none."""
    for var in _KEY_VARS:
        monkeypatch.delenv(var, raising=False)


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    with LoopbackServer() as srv:
        yield srv


def test_cli_generates_an_llm_suite_through_both_sdks(
    server: LoopbackServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server.add(*script(range(2), seed=3))
    out = tmp_path / "s"
    assert main([*cli_args(server, out, n=2, seed=3), "-M", "temperature=0"]) == 0
    assert f"wrote 2 verified boxes to {out}" in capsys.readouterr().out.replace("\n", "")

    suite, boxes = load_suite_boxes(out)
    assert [b.info.id for b in boxes] == ["ERI-easy-0000", "ERI-easy-0001"]
    assert suite.backend == "llm"
    assert suite.options == {
        "llm": {
            "coder": CODER,
            "refiner": REFINER,
            "design": "reference",
            "options": {"temperature": 0},
        }
    }
    for index, box in enumerate(boxes):
        assert box.code == box_key(index, 3)[1]
        prov = box.provenance
        assert prov.accepted and prov.backend == "llm"
        assert prov.models == {"coder": CODER, "refiner": REFINER, "options": '{"temperature":0}'}
        [attempt] = prov.attempts
        assert attempt.verdict == "correct" and attempt.differential_mismatches == 0
        assert [(c.role, c.model) for c in attempt.calls] == [
            ("coder", CODER),
            ("refiner", REFINER),
        ]
        assert [c.params["options"]["temperature"] for c in attempt.calls] == [0, 0]
        assert attempt.tokens == {
            "cache_read": 0,
            "cache_write": 0,
            "input": 800,
            "output": 160,
            "reasoning": 0,
        }
        # Measured latency is recorded per call and summed per attempt; a fault-free run
        # has no retries, and replays from the cache are telemetry, not provenance.
        assert all(c.latency_s > 0 and not c.cached and c.retries == 0 for c in attempt.calls)
        assert attempt.latency_s == pytest.approx(sum(c.latency_s for c in attempt.calls))
    assert [r.format for r in server.requests] == ["openai", "anthropic"] * 2
    assert all(r.status == 200 for r in server.requests)
    # The working state is there, outside the suite's digests.
    work = out / ".generator"
    assert {p.name for p in work.iterdir()} >= {"checkpoints.sqlite", "llm-cache.sqlite"}
    telemetry = [json.loads(line) for line in (work / "telemetry.jsonl").read_text().splitlines()]
    assert [t["id"] for t in telemetry] == ["ERI-easy-0000", "ERI-easy-0001"]
    assert all(c["latency_s"] > 0 and c["cached"] is False for t in telemetry for c in t["calls"])


SHIFT3 = """def blackbox(x):
    out = ""
    for ch in x:
        if ch == " ":
            out = out + " "
        else:
            out = out + chr((ord(ch) - 65 + 3) % 26 + 65)
    return out
"""
DESIGNED = "Each letter moves three places forward in the alphabet, Z wrapping to C; spaces stay."


def test_design_llm_writes_a_box_without_reference(server: LoopbackServer, tmp_path: Path) -> None:
    server.add(
        verdict_reply(),
        ScriptedReply(
            tool_calls=[{"name": "submit_design", "arguments": {"description": DESIGNED}}],
            match="Design a new hidden rule",
        ),
        ScriptedReply(text=f"```python\n{SHIFT3}```", match="Write a Python black box"),
    )
    out = tmp_path / "s"
    assert main([*cli_args(server, out, n=1, seed=2), "--design", "llm"]) == 0
    suite, [box] = load_suite_boxes(out)
    assert suite.options["llm"]["design"] == "llm"
    assert box.code == SHIFT3
    assert (box.facts.has_reference, box.facts.rule_kind) == (False, "llm_designed")
    assert (box.facts.log2_h, box.facts.t_info) == (None, None)
    assert (box.hidden.rule_kind, box.hidden.params) == ("llm_designed", {})
    assert box.hidden.description == DESIGNED
    assert box.provenance.models == {"coder": CODER, "designer": CODER, "refiner": REFINER}
    [attempt] = box.provenance.attempts
    assert [c.role for c in attempt.calls] == ["designer", "coder", "refiner"]
    # The box is playable: the evaluator answers from its code and measures no
    # information (a designed rule has no hypothesis space).
    run = evaluate_suite(out, ["fixed"], TurnShot(4, 1), "instant", 0, tmp_path / "run")
    assert run.failed == 0 and run.executed == 1
    [group] = run.summary.groups  # type: ignore[union-attr]
    assert group.info_gained_mean is None and group.queries_used_mean == 4.0
    assert "differential" not in attempt.checks and all(attempt.checks.values())


def test_jobs_2_gives_the_same_suite_as_jobs_1(server: LoopbackServer, tmp_path: Path) -> None:
    # Box 1 gets wrong code twice (the refiner's "correct" is overruled both times) and is
    # rejected, so box 3 is needed: the suite is the first three accepted indices.
    _, wrong = box_key(0, 7)
    for _ in range(2):  # one script per run
        server.add(
            *[verdict_reply() for _ in range(5)],
            coder_reply(1, 7, code=wrong),
            coder_reply(1, 7, code=wrong),
            *[coder_reply(i, 7) for i in (0, 2, 3)],
        )
    config = llm_config(server, tmp_path / "j1", n=3, seed=7, max_attempts=2)
    one = generate_suite(config)
    assert one.accepted == ["ERI-easy-0000", "ERI-easy-0002", "ERI-easy-0003"]
    assert one.rejected == ["ERI-easy-0001"]
    two = generate_suite(replace(config, out=tmp_path / "j2", jobs=2))
    assert (two.accepted, two.rejected) == (one.accepted, one.rejected)
    assert tree(one.path) == tree(two.path)
    assert "rejected/ERI-easy-0001.json" in tree(one.path)
    # 10 requests per run: 5 coder and 5 refiner calls. Box 1's second review sees the same
    # code and report as its first, but it is another call site (attempt 2), so the call
    # cache (a resume cache, scoped by box and attempt) does not answer it.
    assert len(server.requests) == 20 and server.remaining == 0


def test_provider_faults_are_retried_visibly(
    server: LoopbackServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server.add(*script(range(1), seed=4))
    server.inject("rate_limit", retry_after=0.05)
    assert main(cli_args(server, tmp_path / "s", n=1, seed=4)) == 0
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if "retry 1 in 0.05s" in line]
    assert len(lines) == 1, err
    assert lines[0].startswith(f"oracle-gen: {CODER}: 429")
    assert [r.status for r in server.requests] == [429, 200, 200]
    _, [box] = load_suite_boxes(tmp_path / "s")
    assert box.provenance.accepted


@pytest.mark.parametrize("fault", ["server_error", "malformed"])
def test_fault_mid_run_is_survived(fault: str, server: LoopbackServer, tmp_path: Path) -> None:
    server.add(*script(range(2), seed=5))
    events: list[RetryEvent] = []
    done: list[str] = []

    def progress(n: int, total: int, box_id: str, status: str) -> None:
        done.append(status)
        if len(done) == 1:  # between the two boxes
            server.inject(fault)  # type: ignore[arg-type]

    result = generate_suite(
        llm_config(server, tmp_path / "s", n=2, seed=5),
        progress=progress,
        on_retry=events.append,
        retry=FAST,
    )
    assert result.accepted == ["ERI-easy-0000", "ERI-easy-0001"] and result.failed == []
    assert [(e.provider, e.attempt) for e in events] == [(CODER, 1)]
    assert [r.fault for r in server.requests] == [None, None, fault, None, None]


def test_faults_outlasting_retries_fail_the_box_and_the_run_goes_on(
    server: LoopbackServer, tmp_path: Path
) -> None:
    server.add(*script(range(3), seed=6))
    server.inject("server_error", times=FAST.max_attempts)
    out = tmp_path / "s"
    result = generate_suite(llm_config(server, out, n=2, seed=6), retry=FAST)
    assert result.failed == ["ERI-easy-0000"] and result.rejected == ["ERI-easy-0000"]
    assert result.accepted == ["ERI-easy-0001", "ERI-easy-0002"]
    suite, boxes = load_suite_boxes(out)  # the suite is valid and complete
    assert suite.rejected == ["ERI-easy-0000"] and len(boxes) == 2
    record = json.loads((out / "rejected" / "ERI-easy-0000.json").read_text())
    assert record["outcome"] == "failed"
    assert record["reason"].startswith(f"provider error: {CODER}: ")
    assert "500" in record["reason"]
    assert record["provenance"]["accepted"] is False
    assert record["provenance"]["attempts"] == []  # it failed in its first coder call
    assert record["last_code"] == ""


def test_too_many_failures_raise_the_usual_generation_error(
    server: LoopbackServer, tmp_path: Path
) -> None:
    server.add(*script(range(1), seed=8))
    server.inject("server_error", times=2 * FAST.max_attempts)
    config = llm_config(server, tmp_path / "s", n=1, seed=8, max_candidates=2)
    with pytest.raises(GenerationError, match="only 0 of 1 boxes passed verification after 2"):
        generate_suite(config, retry=FAST)
    assert sorted(p.name for p in (tmp_path / "s" / "rejected").iterdir()) == [
        "ERI-easy-0000.json",
        "ERI-easy-0001.json",
    ]


class _NullMessageHandler(BaseHTTPRequestHandler):
    """An OpenAI-compatible server whose every 200 reply has ``choices[0].message: null``."""

    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        choice = {"index": 0, "message": None, "finish_reason": "stop"}
        body = {"id": "x", "object": "chat.completion", "created": 0, "choices": [choice]}
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def test_malformed_200_replies_fail_the_box_and_the_run_goes_on(
    server: LoopbackServer, tmp_path: Path
) -> None:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _NullMessageHandler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    coder_url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    config = llm_config(server, tmp_path / "s", n=1, seed=9, max_candidates=2)
    assert config.llm is not None
    llm = replace(config.llm, base_urls={**config.llm.base_urls, "openai": coder_url})
    try:
        with pytest.raises(GenerationError, match="only 0 of 1 boxes passed verification after 2"):
            generate_suite(replace(config, llm=llm), retry=FAST)
    finally:
        httpd.shutdown()
        httpd.server_close()
    for box_id in ("ERI-easy-0000", "ERI-easy-0001"):  # both candidates ran and were recorded
        record = json.loads((tmp_path / "s" / "rejected" / f"{box_id}.json").read_text())
        assert record["outcome"] == "failed"
        assert record["reason"] == (
            f"provider error: {CODER}: gave up after 3 attempts: "
            "malformed body (choices[0].message is null)"
        )


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


BASE = ["--category", "ERI", "--level", "easy", "-n", "1"]


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (
            ["--backend", "llm", "--coder", "nope/x", "--refiner", REFINER],
            "unknown provider 'nope'",
        ),
        (["--backend", "llm", "--coder", "gpt-4", "--refiner", REFINER], "gpt-4"),
        (["--backend", "llm", "--coder", CODER, "--refiner", REFINER], "set OPENAI_API_KEY"),
        (
            [
                "--backend",
                "llm",
                "--coder",
                CODER,
                "--refiner",
                REFINER,
                "--base-url",
                "http://127.0.0.1:{port}",
            ],
            "cannot reach http://127.0.0.1:{port}",
        ),
        (
            [
                "--backend",
                "llm",
                "--coder",
                "scripted/{missing}",
                "--refiner",
                "scripted/{missing}",
            ],
            "{missing}",
        ),
        (["--coder", CODER, "--refiner", REFINER], "--coder, --refiner need --backend llm"),
        (["-M", "temperature=0"], "-M need --backend llm"),
        (["--backend", "llm", "--coder", CODER], "--backend llm needs --refiner MODEL"),
        (["--backend", "llm"], "--backend llm needs --coder and --refiner MODEL"),
        (
            ["--backend", "llm", "--coder", CODER, "--refiner", REFINER, "-M", "temperature"],
            "temperature",
        ),
        (
            ["--backend", "llm", "--coder", CODER, "--refiner", REFINER, "--base-url", "localhost"],
            "--base-url expects [PROVIDER=]http(s)://..., not 'localhost'",
        ),
        (["--jobs", "0"], "--jobs must be >= 1, not 0"),
        (
            [
                "--backend",
                "llm",
                "--coder",
                CODER,
                "--refiner",
                REFINER,
                "--base-url",
                "http://[::1",
            ],
            "bad base URL 'http://[::1': Invalid IPv6 URL",
        ),
        (
            [
                "--backend",
                "llm",
                "--coder",
                CODER,
                "--refiner",
                REFINER,
                "--base-url",
                "http://127.0.0.1:{port}",
                "--base-url",
                "opneai=http://127.0.0.1:{port}/v1",
            ],
            "--base-url opneai=...: unknown provider 'opneai'; available: anthropic, openai",
        ),
    ],
)
def test_preflight_errors_are_one_line_exit_2_before_any_work(
    extra: list[str], needle: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fill = {"port": _closed_port(), "missing": tmp_path / "missing.jsonl"}
    argv = [*BASE, "--out", str(tmp_path / "s"), *(a.format(**fill) for a in extra)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert err.startswith("oracle-gen: error: ")
    assert needle.format(**fill) in err
    assert not (tmp_path / "s").exists()


@pytest.mark.parametrize(
    ("extra", "pricing", "needle"),
    [
        (
            ["-M", "max_tokens=abc"],
            None,
            "oracle-gen: error: max_tokens must be a positive integer, got 'abc'",
        ),
        (
            ["-M", "thinking_budget=5000"],
            None,
            "oracle-gen: error: thinking_budget (5000) must be below max_tokens (4096); "
            "pass -M max_tokens=N with N > 5000",
        ),
        (
            ["-M", "model=other"],
            None,
            "oracle-gen: error: model option 'model' cannot be set with -M: "
            "set the model in the model string",
        ),
        (
            ["-M", 'messages=[{"role": "user", "content": "x"}]'],
            None,
            "oracle-gen: error: model option 'messages' cannot be set with -M",
        ),
        ([], '{"models": {"openai/x": {"input": "cheap"}}}', "models.openai/x.input: Input should"),
        ([], "{not json", "is not JSON (line 1: Expecting property name"),
        ([], None, "pricing file {missing} does not exist"),
    ],
    ids=["max_tokens", "thinking_budget", "model", "messages", "pricing", "not-json", "missing"],
)
def test_config_errors_behind_a_reachable_server_are_preflight_errors(
    extra: list[str],
    pricing: str | None,
    needle: str,
    server: LoopbackServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Found by building each provider and loading the pricing table in the preflight:
    one line, exit 2, nothing written and the server never called."""
    missing = tmp_path / "missing-pricing.json"
    if pricing is not None:
        (tmp_path / "pricing.json").write_text(pricing)
        monkeypatch.setenv("ORACLE_BENCH_PRICING", str(tmp_path / "pricing.json"))
    elif "{missing}" in needle:
        monkeypatch.setenv("ORACLE_BENCH_PRICING", str(missing))
    else:
        monkeypatch.delenv("ORACLE_BENCH_PRICING", raising=False)
    out = tmp_path / "s"
    assert main([*cli_args(server, out, n=1, seed=0), *extra]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert err.startswith("oracle-gen: error: ")
    assert needle.format(missing=missing) in err
    assert not out.exists()
    assert server.requests == []
