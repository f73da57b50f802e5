"""Concurrency of the evaluation runner: the same LLM job list at concurrency 1 and 32.

    python benchmarks/eval/bench_concurrency.py [--boxes 16] [--repeats 4] [--latency 0.2]
        [--fast-runs 3] [--concurrency 32]

A scripted LLM agent (``openai/bench-model``) plays 1@1 ERI episodes (1 query + 8
answers = 9 calls each) through the real openai SDK against the project's loopback
server (its own process, like a remote API), which waits ``--latency`` seconds before
every reply and replays the script per conversation.
Both sides run the same job list (boxes x repeats episodes) into fresh
directories, side by side in one process: concurrency 1 once, concurrency N
``--fast-runs`` times (median). Prints both wall times and the ratio (target >= 20x at
200 ms and N = 32) and checks that both sides produced the same results.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run from a checkout

from blackboxes.families import get_family
from evaluator.llm_agents import LlmAgentSettings
from evaluator.runner import evaluate_suite
from evaluator.spec import TurnShot
from generator import GenerateConfig, generate_suite
from oracle_bench.rng import rng_for

ROOT = Path(__file__).resolve().parents[2]
MODEL = "openai/bench-model"


def script() -> list[dict[str, object]]:
    eri = get_family("ERI")
    query = eri.format_query(eri.random_query(rng_for(0, "bench-concurrency")))
    lines: list[dict[str, object]] = [
        {"tool_calls": [{"id": "q0", "name": "query", "arguments": {"input": query}}]}
    ]
    lines += [
        {"tool_calls": [{"id": f"a{i}", "name": "answer", "arguments": {"output": str(i)}}]}
        for i in range(8)
    ]
    return lines


@contextlib.contextmanager
def served(root: Path, latency: float) -> Iterator[str]:
    """The loopback server in its own process (as a remote API would be: its threads do
    not compete with the runner's for one interpreter lock); yields its OpenAI base URL."""
    path = root / "script.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in script()))
    command = [sys.executable, "-m", "providers.loopback", "--script", str(path)]
    command += ["--latency", str(latency), "--per-conversation"]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        if not first.startswith("OpenAI base URL:"):
            raise SystemExit(f"the loopback server did not start: {first!r}")
        yield first.split(":", 1)[1].strip()
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def run(suite: Path, out: Path, url: str, repeats: int, concurrency: int) -> float:
    clock = time.perf_counter()
    result = evaluate_suite(
        suite,
        [MODEL],
        TurnShot(1, 1),
        "instant",
        0,
        out,
        repeats,
        concurrency=concurrency,
        llm=LlmAgentSettings(base_url=url),
    )
    elapsed = time.perf_counter() - clock
    if result.failed or result.executed != result.manifest.jobs:
        raise SystemExit(f"bench run failed: {result.failed} failed of {result.executed}")
    return elapsed


def _without_retries(value: object) -> object:
    """A summary without its retry counts (connection retries are timing, not results)."""
    if isinstance(value, dict):
        return {k: _without_retries(v) for k, v in value.items() if not k.startswith("retries")}
    if isinstance(value, list):
        return [_without_retries(v) for v in value]
    return value


def main() -> None:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--boxes", type=int, default=16)
    p.add_argument("--repeats", type=int, default=4)
    p.add_argument("--latency", type=float, default=0.2)
    p.add_argument("--concurrency", type=int, default=32)
    p.add_argument("--fast-runs", type=int, default=3)
    args = p.parse_args()
    episodes = args.boxes * args.repeats
    with tempfile.TemporaryDirectory(prefix="bench-concurrency-") as tmp:
        root = Path(tmp)
        config = GenerateConfig(
            category="ERI", level="easy", n=args.boxes, seed=7, out=root / "suite"
        )
        suite = generate_suite(config).path
        with served(root, args.latency) as url:
            print(
                f"{episodes} episodes x 9 calls, {args.latency * 1000:.0f} ms per reply, "
                f"openai SDK -> loopback server"
            )
            fast = [
                run(suite, root / f"fast{i}", url, args.repeats, args.concurrency)
                for i in range(args.fast_runs)
            ]
            slow = run(suite, root / "slow", url, args.repeats, 1)
        same = _without_retries(
            json.loads((root / "slow" / "summary.json").read_text())
        ) == _without_retries(json.loads((root / "fast0" / "summary.json").read_text()))
    median = statistics.median(fast)
    print(f"concurrency 1:  {slow:7.2f} s (once)")
    print(
        f"concurrency {args.concurrency}: {median:7.2f} s "
        f"(median of {args.fast_runs}: {', '.join(f'{t:.2f}' for t in fast)})"
    )
    print(f"ratio: {slow / median:.1f}x (target >= 20x); same summaries: {same}")
    if not same:
        raise SystemExit("the two sides disagree")


if __name__ == "__main__":
    main()
