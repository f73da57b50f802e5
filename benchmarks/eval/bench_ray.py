"""The Ray executor against the local one: overhead per episode and throughput per CPU.

    python benchmarks/eval/bench_ray.py [--boxes 8] [--repeats 2] [--runs 3]
        [--concurrency 2] [--cpus 1,2,4]

The baseline agents (random, fixed, adaptive) play 3@1 episodes of a procedural ERI
easy suite (``--boxes`` boxes x 3 agents x ``--repeats``), into fresh run folders.

(a) Overhead: the same job list at the same ``--concurrency`` on the local executor
    and on a local Ray instance with that many CPUs, ``--runs`` times each, interleaved
    after one warm-up run of each (Ray's worker processes started); medians of the wall
    time per episode, side by side, and their ratio.
(b) Throughput: episodes per second on Ray instances of 1, 2, 4... CPUs (``--cpus``;
    more CPUs than cores oversubscribes them), concurrency = CPUs, median of ``--runs``
    after a warm-up.

Each Ray instance is started by this script (``ray.init``, loopback, no dashboard) and
shut down before the next; the runs join it through ``executor="ray"``. Every run's
files are checked against the first local run's (trajectories, index and summaries
byte for byte).
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run from a checkout

from evaluator.runner import evaluate_suite
from evaluator.spec import TurnShot
from generator import GenerateConfig, generate_suite

AGENTS = ["random", "fixed", "adaptive"]
SPEC = TurnShot(3, 1)


def files(out: Path) -> dict[str, bytes]:
    found = {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*.json")}
    found.pop("run.json", None)
    found = {k: v for k, v in found.items() if not k.startswith(".")}
    found["summary.csv"] = (out / "summary.csv").read_bytes()
    return found


class Bench:
    def __init__(self, root: Path, suite: Path, repeats: int) -> None:
        self.root = root
        self.suite = suite
        self.repeats = repeats
        self.count = 0
        self.reference: dict[str, bytes] | None = None

    def run(self, executor: str, concurrency: int) -> float:
        """One run into a fresh folder; its wall time in seconds."""
        self.count += 1
        out = self.root / f"run{self.count}-{executor}"
        clock = time.perf_counter()
        result = evaluate_suite(
            self.suite, AGENTS, SPEC, "instant", 0, out, self.repeats,
            concurrency=concurrency, executor=executor,
        )  # fmt: skip
        took = time.perf_counter() - clock
        if result.failed or result.pending:
            raise SystemExit(f"{out}: {result.failed} failed, {result.pending} pending")
        got = files(out)
        if self.reference is None:
            self.reference = got
        elif got != self.reference:
            raise SystemExit(f"{out} differs from the first run")
        return took


def start_ray(cpus: int) -> None:
    import ray

    ray.init(
        address="local",
        num_cpus=cpus,
        include_dashboard=False,
        _node_ip_address="127.0.0.1",
        logging_level=logging.WARNING,
    )


def main() -> None:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--boxes", type=int, default=8)
    p.add_argument("--repeats", type=int, default=2)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--concurrency", type=int, default=2)
    p.add_argument("--cpus", default="1,2,4")
    args = p.parse_args()
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")  # a loopback instance of our own
    import ray

    episodes = args.boxes * len(AGENTS) * args.repeats
    cpus = [int(c) for c in args.cpus.split(",")]
    with tempfile.TemporaryDirectory(prefix="bench-ray-") as tmp:
        root = Path(tmp)
        config = GenerateConfig(category="ERI", level="easy", n=args.boxes, seed=0, out=root / "s")
        bench = Bench(root, generate_suite(config).path, args.repeats)
        print(
            f"{episodes} episodes per run ({args.boxes} ERI easy boxes x {len(AGENTS)} baseline "
            f"agents x {args.repeats} repeats, {SPEC}); {os.cpu_count()} cores here"
        )

        # (a) overhead at the same concurrency
        c = args.concurrency
        start_ray(c)
        try:
            bench.run("local", c)
            bench.run("ray", c)  # warm-up: Ray's worker processes started
            local, on_ray = [], []
            for _ in range(args.runs):
                local.append(bench.run("local", c))
                on_ray.append(bench.run("ray", c))
        finally:
            ray.shutdown()
        per_local = statistics.median(local) / episodes * 1000
        per_ray = statistics.median(on_ray) / episodes * 1000
        print(f"\n(a) overhead, concurrency {c}, median of {args.runs} runs after a warm-up")
        print(f"{'executor':<10}{'run s':>9}{'ms/episode':>12}")
        print(f"{'local':<10}{statistics.median(local):>9.2f}{per_local:>12.1f}")
        print(f"{'ray':<10}{statistics.median(on_ray):>9.2f}{per_ray:>12.1f}")
        print(
            f"ray/local: {per_ray / per_local:.2f}x; Ray's overhead "
            f"{per_ray - per_local:+.1f} ms per episode"
        )

        # (b) throughput against the Ray CPUs
        rows = []
        for n in cpus:
            start_ray(n)
            try:
                bench.run("ray", n)  # warm-up
                took = [bench.run("ray", n) for _ in range(args.runs)]
            finally:
                ray.shutdown()
            rows.append((n, statistics.median(took)))
        print(
            f"\n(b) throughput, concurrency = Ray CPUs, median of {args.runs} runs after a warm-up"
        )
        print(f"{'Ray CPUs':<10}{'run s':>9}{'episodes/s':>12}{'vs 1 CPU':>10}")
        base = episodes / rows[0][1]
        for n, took in rows:
            rate = episodes / took
            print(f"{n:<10}{took:>9.2f}{rate:>12.1f}{rate / base:>9.2f}x")
        print("\nevery run's trajectories, index and summaries: identical to the first run's")


if __name__ == "__main__":
    main()
