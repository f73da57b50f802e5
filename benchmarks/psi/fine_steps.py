"""Each PSI parameter's fine step: the resolution the answer tolerance distinguishes.

    python benchmarks/psi/fine_steps.py

For every stepped parameter, the sensitivity of the motion to it (the largest change of
any coordinate at any time in [0, 20] s per unit of the parameter, median over 48 coarse
grid points) gives the change that moves a coordinate by the absolute tolerance,
0.02 m. The step a kind states is the largest of 1, 2 or 5 times a power of ten that is
at most that and divides the coarse spacing (so the coarse grid is a sub-grid).
tests/blackboxes/psi/test_kinds.py checks each stated step against the same measure.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from blackboxes.families.psi._answers import ABS_TOL
from blackboxes.families.psi._kind import TIMES
from blackboxes.families.psi._kinds import KINDS


def nice_step(spacing: float, derived: float) -> float | None:
    """The largest 1, 2 or 5 times 10^e at most ``derived`` dividing ``spacing``."""
    best: float | None = None
    for e in range(-7, 3):
        for d in (1, 2, 5):
            c = d * 10.0**e
            ratio = spacing / c
            if c <= derived * (1 + 1e-9) and abs(ratio - round(ratio)) < 1e-6:
                best = c if best is None else max(best, c)
    return best


def main() -> None:
    times = np.array(TIMES)
    rng = np.random.default_rng(0)
    print(f"{'kind':<20} {'parameter':<10} {'derived':>10} {'suggested':>10} {'stated':>10}")
    for name, kind in KINDS.items():
        idx = rng.choice(kind.size, size=min(48, kind.size), replace=False)
        base = {k: v[idx] for k, v in kind.grid.items()}
        p0 = kind.positions(base, times)
        for q in kind.params:
            if q.step is None:
                print(f"{name:<20} {q.name:<10} {'categorical':>32}")
                continue
            spacing = q.values[1] - q.values[0]
            h = spacing * 1e-3
            moved = kind.positions({**base, q.name: base[q.name] + h}, times)
            sens = np.median(np.abs(moved - p0).reshape(len(idx), -1).max(axis=1)) / h
            derived = ABS_TOL / sens if sens > 0 else math.inf
            print(
                f"{name:<20} {q.name:<10} {derived:>10.3g} "
                f"{nice_step(spacing, derived) or float('nan'):>10g} {q.step:>10g}"
            )


if __name__ == "__main__":
    main()
