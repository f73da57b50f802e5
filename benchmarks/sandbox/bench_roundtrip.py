"""Per-call round trip: warm sandboxed worker vs in-process call vs a fresh worker per call.

Usage: python benchmarks/sandbox/bench_roundtrip.py [--calls N] [--spawn-calls M]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run from a checkout

from sandbox import SandboxWorker, run_once

CODE = """
def blackbox(text, shift):
    return "".join(chr((ord(c) - 97 + shift) % 26 + 97) if c.isalpha() else c for c in text)
"""


def trusted(text: str, shift: int) -> str:
    """The same function, as plain trusted Python (the in-process baseline)."""
    return "".join(chr((ord(c) - 97 + shift) % 26 + 97) if c.isalpha() else c for c in text)


def _median_seconds(fn: Callable[[], object], calls: int) -> float:
    samples = []
    for _ in range(calls):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=2000, help="calls for warm and in-process")
    parser.add_argument("--spawn-calls", type=int, default=50, help="calls for spawn-per-call")
    args = parser.parse_args()
    text, shift = "hello world, the quick brown fox", 3

    in_process = _median_seconds(lambda: trusted(text, shift), args.calls)
    with SandboxWorker(CODE) as worker:
        expected = trusted(text, shift)
        if worker.call(text, shift).value != expected:
            raise SystemExit("sandboxed result differs from the trusted one")
        for _ in range(50):  # warm-up
            worker.call(text, shift)
        layers = sorted(worker.layers)
        warm = _median_seconds(lambda: worker.call(text, shift), args.calls)
    spawn = _median_seconds(lambda: run_once(CODE, text, shift), args.spawn_calls)

    rows = [
        ("in-process (trusted)", args.calls, in_process),
        ("warm sandboxed worker", args.calls, warm),
        ("spawn per call (run_once)", args.spawn_calls, spawn),
    ]
    print(f"layers: {', '.join(layers)}")
    print(f"{'mode':<28}{'calls':>7}{'median':>14}{'vs in-process':>16}{'vs warm':>12}")
    for name, calls, median in rows:
        print(
            f"{name:<28}{calls:>7}{median * 1e6:>11.1f} us"
            f"{median / in_process:>15.0f}x{median / warm:>11.2f}x"
        )
    ratio = spawn / warm
    verdict = "meets" if ratio >= 300 else "MISSES"
    print(f"warm worker is {ratio:.0f}x faster than spawn-per-call ({verdict} the 300x target)")


if __name__ == "__main__":
    main()
