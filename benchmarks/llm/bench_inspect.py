"""The Inspect adapter's overhead per LLM call, against our own runner on the same work.

Usage: python benchmarks/llm/bench_inspect.py [--boxes N] [--rounds N] [--spec T@S]

One ERI suite (``--boxes`` easy boxes, seed 0) and one script of replies (every
episode: T queries with one reply without a call, re-asked; every attempt of every
held-out item wrong), played sequentially (one episode at a time) by

* our runner: ``evaluate_suite`` with the in-process ``scripted/`` provider, into a
  fresh run folder;
* Inspect: ``inspect_ai.eval`` of the ``oracle_bench/oracle`` task with
  ``mockllm/model`` replaying the same lines (``max_samples=1``), into a fresh log dir.

Both play the same episodes (same calls, same box calls, same records but for the
agent's name); the wall time of a whole run divided by its LLM calls is the cost per
call of each, everything included (sandbox workers, prompts, the run folder or the
log). Rounds alternate the two; medians over ``--rounds``. The difference per call is
what the adapter (bridge, conversions, Inspect's model layer, transcript and log)
adds to each call.
"""

from __future__ import annotations

import argparse
import json
import logging
import statistics
import sys
import tempfile
import time
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run from a checkout

from inspect_ai import eval as inspect_eval
from inspect_ai.model import ModelOutput, ModelUsage, get_model

from evaluator.integrations.inspect import oracle
from evaluator.llm_agents import LlmAgentSettings
from evaluator.runner import evaluate_suite
from generator import GenerateConfig, generate_suite

WORDS = ["THE", "QUICK", "BROWN", "FOX", "JUMPS", "OVER", "LAZY", "DOG", "A", "B", "Z", "KEY"]


def script(turns: int, answers: int) -> list[dict[str, Any]]:
    lines: list[dict[str, Any]] = []

    def add(tool: str | None, text: str = "", **arguments: Any) -> None:
        i = len(lines)
        line: dict[str, Any] = {"text": text, "usage": {"input": 100 + i, "output": 7}}
        if tool is not None:
            line["tool_calls"] = [{"id": f"call-{i}", "name": tool, "arguments": arguments}]
        lines.append(line)

    for turn in range(turns):
        if turn == 1:
            add(None, "Let me think first.")
        add("query", input=f"{WORDS[turn % len(WORDS)]} {turn}")
    for _ in range(answers):
        add("answer", output="#")
    return lines


def output(line: dict[str, Any]) -> ModelOutput:
    calls = line.get("tool_calls") or []
    if calls:
        c = calls[0]
        out = ModelOutput.for_tool_call(
            "mockllm/model", c["name"], c["arguments"], tool_call_id=c["id"], content=line["text"]
        )
    else:
        out = ModelOutput.from_content("mockllm/model", line["text"])
    u = line["usage"]
    out.usage = ModelUsage(
        input_tokens=u["input"], output_tokens=u["output"], total_tokens=u["input"] + u["output"]
    )
    return out


class Replayer:
    """The scripted provider's order over Inspect messages, from the first line in every
    episode (samples run one at a time)."""

    def __init__(self, lines: Sequence[dict[str, Any]]) -> None:
        self.outputs = [output(line) for line in lines]
        self.calls = 0

    def __call__(self, input: list[Any], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
        self.calls += 1
        return self.outputs[sum(m.role == "assistant" for m in input)]


def ours(suite: Path, replies: str, spec: str, root: Path) -> tuple[float, int]:
    out = Path(tempfile.mkdtemp(dir=root, prefix="run-"))
    start = time.perf_counter()
    result = evaluate_suite(suite, [replies], spec, None, 0, out, llm=LlmAgentSettings())
    wall = time.perf_counter() - start
    calls = result.usage.calls
    if result.failed:
        raise SystemExit(f"our run had {result.failed} failed episodes")
    return wall, calls


def theirs(suite: Path, lines: list[dict[str, Any]], spec: str, root: Path) -> tuple[float, int]:
    logs = Path(tempfile.mkdtemp(dir=root, prefix="logs-"))
    replayer = Replayer(lines)
    model = get_model("mockllm/model", custom_outputs=replayer)
    task = oracle(suite=str(suite), spec=spec)
    start = time.perf_counter()
    [log] = inspect_eval(task, model=model, log_dir=str(logs), display="none", max_samples=1)
    wall = time.perf_counter() - start
    failed = [
        s for s in log.samples or [] if s.scores["oracle_score"].metadata["status"] != "completed"
    ]
    if log.status != "success" or failed:
        raise SystemExit(f"the Inspect run failed: {log.status} {log.error} {len(failed)}")
    return wall, replayer.calls


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--boxes", type=int, default=3)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--spec", default="20@2")
    args = p.parse_args()
    # tenacity, under Inspect, warns at every call in this version; not what is measured.
    warnings.filterwarnings("ignore", category=DeprecationWarning)
    logging.getLogger("inspect_ai").setLevel(logging.ERROR)
    turns, shots = (int(x) for x in args.spec.split("@"))
    lines = script(turns, 8 * shots)
    with tempfile.TemporaryDirectory(prefix="bench-inspect-") as tmp:
        root = Path(tmp)
        suite = root / "eri"
        generate_suite(
            GenerateConfig(category="ERI", level="easy", n=args.boxes, seed=0, out=suite)
        )
        replies = root / "replies.jsonl"
        replies.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
        name = f"scripted/{replies}"
        ours(suite, name, args.spec, root)  # warm-up: imports, first worker starts
        theirs(suite, lines, args.spec, root)
        mine: list[float] = []
        inspect: list[float] = []
        calls_mine = calls_inspect = 0
        for _ in range(args.rounds):
            wall, calls_mine = ours(suite, name, args.spec, root)
            mine.append(wall / calls_mine)
            wall, calls_inspect = theirs(suite, lines, args.spec, root)
            inspect.append(wall / calls_inspect)
    a, b = statistics.median(mine) * 1e3, statistics.median(inspect) * 1e3
    print(
        f"ERI easy, {args.boxes} boxes x {args.spec}, one episode at a time, "
        f"{args.rounds} rounds (medians)"
    )
    print(f"{'':28}{'calls/run':>10}{'ms/call':>10}")
    print(f"{'our runner (scripted/)':28}{calls_mine:>10}{a:>10.2f}")
    print(f"{'Inspect (mockllm, adapter)':28}{calls_inspect:>10}{b:>10.2f}")
    print(f"ratio Inspect/ours: {b / a:.2f}x; the adapter adds {b - a:.2f} ms per call")


if __name__ == "__main__":
    main()
