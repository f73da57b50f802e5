"""LLM layer figures: per-call overhead, and a scripted three-attempt generation run.

Usage: python benchmarks/llm/bench_llm.py [--quick] [--calls N] [--boxes N]

1. Overhead per call, side by side in one run against the project's loopback server:
   the bare SDK client (``openai.OpenAI(...).chat.completions.create`` /
   ``anthropic.Anthropic(...).messages.create``) vs the same call through our provider
   (message mapping, the retry layer, usage normalisation, pricing, the Reply model).
   Also the loopback round trip itself (a raw ``http.client`` POST) and the in-process
   ``scripted/`` provider. Medians over ``--calls`` calls each, interleaved.
2. A scripted generation run through ``generate_suite`` with the ``llm`` backend: for
   every box the coder first returns crashing code, then misaligned code (a Caesar shift
   off by one), then the correct code; the refiner's verdicts say so. Coder and refiner
   are priced models names (``openai/gpt-5-mini`` and ``anthropic/claude-sonnet-4-5``),
   served by the loopback server with scripted token counts, so the cost per box is what
   the default pricing table says such a run would cost.
"""

from __future__ import annotations

import argparse
import http.client
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run from a checkout

import anthropic
import openai

from blackboxes.box import Attempt
from blackboxes.families import get_family
from blackboxes.store import load_suite_boxes
from generator.suite import GenerateConfig, LlmModels, generate_suite
from oracle_bench.rng import rng_for
from providers import ChatMessage, create_provider
from providers.loopback import LoopbackServer
from templates import render

CODER = "openai/gpt-5-mini"
REFINER = "anthropic/claude-sonnet-4-5"
CODER_USAGE = {"input": 1200, "output": 400}
REFINER_USAGE = {"input": 2500, "output": 120}


def _median_us(times: list[float]) -> float:
    return statistics.median(times) * 1e6


def overhead(calls: int) -> None:
    messages = [{"role": "user", "content": "Say hi."}]
    with LoopbackServer([{"text": "hi"}] * (calls * 6 + 10)) as server:
        raw_openai = openai.OpenAI(base_url=server.openai_base_url, api_key="x", max_retries=0)
        raw_anthropic = anthropic.Anthropic(
            base_url=server.anthropic_base_url, api_key="x", max_retries=0
        )
        ours_openai = create_provider("openai/bench", base_url=server.openai_base_url)
        ours_anthropic = create_provider("anthropic/bench", base_url=server.anthropic_base_url)
        chat = [ChatMessage(role="user", content="Say hi.")]

        def http_post() -> None:
            conn = http.client.HTTPConnection(server.host, server.port, timeout=10)
            body = json.dumps({"model": "bench", "messages": messages})
            conn.request("POST", "/v1/chat/completions", body, {"content-type": "application/json"})
            conn.getresponse().read()
            conn.close()

        runs: dict[str, Callable[[], Any]] = {
            "raw HTTP POST (loopback round trip)": http_post,
            "openai SDK alone": lambda: raw_openai.chat.completions.create(
                model="bench",
                messages=messages,  # type: ignore[arg-type]
            ),
            "openai through our provider": lambda: ours_openai.complete(chat),
            "anthropic SDK alone": lambda: raw_anthropic.messages.create(
                model="bench",
                max_tokens=64,
                messages=messages,  # type: ignore[arg-type]
            ),
            "anthropic through our provider": lambda: ours_anthropic.complete(chat),
        }
        times: dict[str, list[float]] = {name: [] for name in runs}
        for fn in runs.values():  # warm up connections and imports
            fn()
        for _ in range(calls):
            for name, fn in runs.items():
                start = time.perf_counter()
                fn()
                times[name].append(time.perf_counter() - start)
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "s.jsonl"
        script.write_text("".join(json.dumps({"text": "hi"}) + "\n" for _ in range(calls + 1)))
        scripted = create_provider(f"scripted/{script}")
        scripted.complete(chat)
        times["scripted provider (in process)"] = []
        for _ in range(calls):
            start = time.perf_counter()
            scripted.complete(chat)
            times["scripted provider (in process)"].append(time.perf_counter() - start)
    print(f"per-call time, medians over {calls} calls (interleaved), microseconds")
    for name, ts in times.items():
        print(f"  {name:<38} {_median_us(ts):>9.0f}")
    for vendor in ("openai", "anthropic"):
        bare = _median_us(times[f"{vendor} SDK alone"])
        ours = _median_us(times[f"{vendor} through our provider"])
        print(
            f"  {vendor}: our layer adds {ours - bare:+.0f} us per call "
            f"({ours / bare:.2f}x the bare SDK call)"
        )


def scripted_generation(boxes: int) -> None:
    family = get_family("ERI")
    replies: list[dict[str, Any]] = []
    # Verdicts come first in the script: a refiner prompt also quotes the rule description
    # (the coder replies' match), while coder prompts never say "Review a candidate".
    verdicts = [
        ("execution_error", ["every call raises"]),
        ("misalignment", ["outputs differ from the description"]),
        ("correct", ["matches the description"]),
    ]
    for _ in range(boxes):
        for verdict, reasons in verdicts:
            arguments = {"verdict": verdict, "reasons": reasons, "changes": []}
            replies.append(
                {
                    "match": "Review a candidate",
                    "tool_calls": [{"name": "submit_verdict", "arguments": arguments}],
                    "usage": REFINER_USAGE,
                }
            )
    for index in range(boxes):
        rule = family.sample_rule(rng_for(0, "ERI", "easy", index), "easy")
        template, ctx = family.code_template(rule)
        correct = render(template, **ctx)
        crash = "def blackbox(plaintext):\n    return 1 // 0\n"
        wrong = "def blackbox(plaintext):\n    return plaintext[::-1]\n"
        key = rule.description[:60]
        for code in (crash, wrong, correct):
            replies.append({"match": key, "text": f"```python\n{code}```", "usage": CODER_USAGE})
    with LoopbackServer(replies) as server, tempfile.TemporaryDirectory() as tmp:
        models = LlmModels(
            coder=CODER,
            refiner=REFINER,
            base_urls={"openai": server.openai_base_url, "anthropic": server.anthropic_base_url},
        )
        config = GenerateConfig(
            category="ERI",
            level="easy",
            n=boxes,
            seed=0,
            out=Path(tmp) / "s",
            backend="llm",
            llm=models,
        )
        start = time.perf_counter()
        result = generate_suite(config)
        elapsed = time.perf_counter() - start
        _, written = load_suite_boxes(result.path)
        requests = len(server.requests)
    print(f"\nscripted generation: {len(written)} ERI boxes, coder {CODER}, refiner {REFINER}")
    print(f"  {requests} LLM requests, {elapsed:.1f} s wall time")
    header = f"  {'box':<18} {'attempts':>8}  {'verdicts':<42} {'tokens in/out':<13} {'USD':>9}"
    print(header)
    costs = []
    for box in written:
        attempts: list[Attempt] = box.provenance.attempts
        tokens_in = sum(a.tokens.get("input", 0) for a in attempts)
        tokens_out = sum(a.tokens.get("output", 0) for a in attempts)
        cost = sum(a.cost_usd or 0.0 for a in attempts)
        costs.append(cost)
        verdicts_seen = ",".join(a.verdict for a in attempts)
        print(
            f"  {box.info.id:<18} {len(attempts):>8}  {verdicts_seen:<42} "
            f"{tokens_in:>6}/{tokens_out:<6} {cost:>9.4f}"
        )
    print(f"  median cost per accepted box: {statistics.median(costs):.4f} USD")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--calls", type=int, default=None)
    parser.add_argument("--boxes", type=int, default=None)
    args = parser.parse_args()
    overhead(args.calls or (30 if args.quick else 200))
    scripted_generation(args.boxes or (2 if args.quick else 4))


if __name__ == "__main__":
    main()
