"""Largest deviation of each PSI kind's box code from its trusted reference.

    python benchmarks/psi/differential.py [--boxes 100] [--times 1000]

Box code runs with ``round`` disabled, so the figure is the computation's own error;
the acceptance test (tests/blackboxes/psi/test_differential.py) holds it to DIFF_TOL.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from blackboxes.families.psi._kinds import KINDS
from tests.blackboxes.psi._deviation import DIFF_TOL, box_deviation


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boxes", type=int, default=100)
    parser.add_argument("--times", type=int, default=1000)
    args = parser.parse_args()
    print(f"{'kind':<22} {'level':<5} {'largest |box - ref| (m)':>24} {'seconds':>8}")
    for name in sorted(KINDS, key=lambda n: (KINDS[n].level, n)):
        start = time.perf_counter()
        worst, _ = box_deviation(name, args.boxes, args.times)
        took = time.perf_counter() - start
        print(f"{name:<22} {KINDS[name].level:<5} {worst:>24.2e} {took:>8.1f}")
    print(f"tolerance: {DIFF_TOL} m before rounding (answers: 0.02 m + 0.2 %)")


if __name__ == "__main__":
    main()
