"""How PSI's particle version space does on each kind's own answers.

    python benchmarks/psi/particles.py [--boxes 6] [--answers 6] [KIND ...]

For every kind, ``--boxes`` boxes each answer ``--answers`` random query times, in turn,
into the box's own kind space (as an episode is measured). Printed per kind: log2|H|;
answers the search could not place (left out, counted as 0 bits); the median log2 of the
estimated count after the last answer; the median bits an answer gave; seconds per answer.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from blackboxes.families import get_family
from blackboxes.families.psi._kind import TIMES
from blackboxes.families.psi._kinds import KINDS
from blackboxes.families.psi._particles import ParticleSpace
from blackboxes.information import realised_information
from oracle_bench.rng import rng_for


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "kinds", nargs="*", default=sorted(KINDS, key=lambda n: (KINDS[n].level, n))
    )
    parser.add_argument("--boxes", type=int, default=6)
    parser.add_argument("--answers", type=int, default=6)
    args = parser.parse_args()
    psi = get_family("PSI")
    print(
        f"{'kind':<20} {'level':<5} {'log2|H|':>8} {'left out':>9} {'final log2':>11} "
        f"{'bits/answer':>12} {'s/answer':>9}"
    )
    for name in args.kinds:
        kind = KINDS[name]
        left, took, finals, bits = 0, 0.0, [], []
        for b in range(args.boxes):
            rng = rng_for(2, "particles", name, b)
            rule = psi.sample_rule(rng, kind.level, name)
            space = psi.version_space(kind.level, name)
            for t in rng.sample(TIMES, args.answers):
                y = rule(t)
                start = time.perf_counter()
                bits.append(realised_information(space, t, y))
                placed = space.placed if isinstance(space, ParticleSpace) else 0
                space = space.observe(t, y)
                took += time.perf_counter() - start
                if isinstance(space, ParticleSpace) and space.placed == placed:
                    left += 1
            finals.append(space.log2_count())
        answers = args.boxes * args.answers
        print(
            f"{name:<20} {kind.level:<5} {kind.log2_size:>8.1f} {left:>4}/{answers:<4} "
            f"{statistics.median(finals):>11.1f} {statistics.median(bits) + 0.0:>12.1f} "
            f"{took / answers:>9.3f}"
        )


if __name__ == "__main__":
    main()
