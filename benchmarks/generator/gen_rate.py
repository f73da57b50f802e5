"""Procedural generation rate: verified boxes per minute, per family and level.

    .venv/bin/python benchmarks/generator/gen_rate.py [-n 20] [--category CII ...]

Each run writes a fresh suite to a temporary folder through ``generate_suite`` (the
differential test and the determinism check included) and prints boxes per minute (wall
clock; the machine is shared, so compare families within one run).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from generator import GenerateConfig, generate_suite


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=20)
    parser.add_argument("--category", action="append", default=None)
    args = parser.parse_args()
    categories = args.category or ["CII", "CRI", "ERI"]
    print(f"{'family':8} {'level':6} {'boxes':>6} {'seconds':>8} {'boxes/min':>10}")
    for category in categories:
        for level in ("easy", "hard"):
            with tempfile.TemporaryDirectory() as tmp:
                config = GenerateConfig(
                    category=category, level=level, n=args.n, seed=1, out=Path(tmp) / "s"
                )
                start = time.perf_counter()
                result = generate_suite(config)
                took = time.perf_counter() - start
            boxes = len(result.accepted)
            print(f"{category:8} {level:6} {boxes:>6} {took:>8.1f} {60 * boxes / took:>10.1f}")


if __name__ == "__main__":
    main()
