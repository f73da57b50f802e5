"""A served box's per-query round trip: HTTP step vs in-process text step vs the bare
sandbox worker call, and the server's start time.

One ERI easy box, one long episode per mode (``N@1``: every step is one query). The
three modes run in interleaved blocks of ``--block`` queries, so load on a shared machine
hits them alike; medians and ratios are printed side by side.

* ``worker``: ``SandboxWorker.call`` on the box's code (the box alone).
* ``text``: ``TextEpisode.step`` (the protocol and the box, no transport).
* ``http``: ``POST /step`` to ``oracle-serve`` on loopback over one kept-alive connection
  (transport, JSON, sessions, the protocol and the box).

Usage: python benchmarks/serve/bench_served.py [--queries 1000] [--block 50]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from evaluator.dataset import BoxDataset
from evaluator.serve import BoxServer
from evaluator.serve.client import ServedSuite
from evaluator.spec import parse_spec
from generator import GenerateConfig, generate_suite
from sandbox import SandboxWorker
from sandbox.serve import ServiceLimits


def _median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def _server_start(suite: Path) -> tuple[float, float]:
    """(in-process BoxServer construct+bind, CLI process until its ready line), seconds."""
    clock = time.perf_counter()
    server = BoxServer(suite, options={"spec": parse_spec("3@1")})
    inproc = time.perf_counter() - clock
    server.stop()
    clock = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "evaluator.serve", str(suite), "3@1", "--port", "0"],
        stdout=subprocess.PIPE,
        text=True,
    )
    line = proc.stdout.readline() if proc.stdout else ""
    cli = time.perf_counter() - clock
    proc.terminate()
    proc.wait(timeout=30)
    if not line.startswith("serving"):
        raise SystemExit(f"the server did not start: {line!r}")
    return inproc, cli


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--block", type=int, default=50)
    args = parser.parse_args()
    n = args.queries
    with tempfile.TemporaryDirectory() as tmp:
        suite = Path(tmp) / "eri"
        generate_suite(GenerateConfig(category="ERI", level="easy", n=1, seed=0, out=suite))
        spec = f"{n + 5}@1"
        data = BoxDataset(suite, spec=spec, seed=0)
        item = data[0]
        box_id = item.box_id
        query = "THE QUICK BROWN FOX"

        worker = SandboxWorker(item._box.code, entry=item.info.entry)
        episode = item.episode()
        episode.reset()
        # The benchmark is one client asking as fast as it can: no rate limit.
        unlimited = ServiceLimits(rate_per_second=1e9, burst=10**9)
        server = BoxServer(suite, options={"spec": parse_spec(spec)}, limits=unlimited).start()
        env = ServedSuite(server.url)
        served = env.reset(box=box_id)["episode_id"]

        def timed(call: Callable[[], object]) -> float:
            clock = time.perf_counter()
            call()
            return time.perf_counter() - clock

        modes: dict[str, Callable[[], object]] = {
            "worker": lambda: worker.call(query),
            "text": lambda: episode.step(query),
            "http": lambda: env.step(served, query),
        }
        samples: dict[str, list[float]] = {m: [] for m in modes}
        for name, call in modes.items():  # warm-up
            for _ in range(5):
                samples[name].append(timed(call))
        samples = {m: [] for m in modes}
        done = 0
        while done < n:
            block = min(args.block, n - done)
            for name, call in modes.items():
                samples[name].extend(timed(call) for _ in range(block))
            done += block
        env.close()
        server.stop()
        episode.close()
        worker.close()
        inproc, cli = _server_start(suite)

    worker_ms = _median_ms(samples["worker"])
    print(
        f"per-query round trip, median over {n} queries each (interleaved blocks of {args.block})"
    )
    print(f"{'mode':<8}{'median ms':>12}{'p90 ms':>10}{'x worker':>10}")
    for name in modes:
        med = _median_ms(samples[name])
        p90 = statistics.quantiles(samples[name], n=10)[-1] * 1000
        print(f"{name:<8}{med:>12.3f}{p90:>10.3f}{med / worker_ms:>10.2f}")
    overhead = _median_ms(samples["http"]) / _median_ms(samples["text"])
    print(f"http / text (transport overhead): {overhead:.2f}x")
    print(
        f"server start: in-process {inproc * 1000:.0f} ms; `python -m evaluator.serve` "
        f"until its ready line {cli * 1000:.0f} ms"
    )


if __name__ == "__main__":
    main()
