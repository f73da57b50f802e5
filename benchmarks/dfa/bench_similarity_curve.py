"""The per-step similarity curve of a 100-step DFA trajectory, as the evaluator computes it.

    python benchmarks/dfa/bench_similarity_curve.py [--states 100] [--steps 100]
        [--max-len 200] [--runs 5] [--seed 0]

The evaluator scores every step's hypothesis against the target (``similarity`` at K =
``--max-len``), once per distinct language (``evaluator/kinds/dfa/metrics.py``). Two
100-step trajectories against a uniform minimal target of ``--states`` states:

* ``growing``: step i's hypothesis is a uniform minimal DFA of about i * states / steps
  states (a learner's hypotheses grow towards the target's size);
* ``worst``: every step a new uniform minimal DFA of the target's size (no two alike, so
  nothing is cached).

Every run builds fresh DFA objects (nothing cached from the run before). Prints the
median wall time per curve and a digest of the exact values (numerators and
denominators), so two checkouts can be compared: run it with ``PYTHONPATH=CHECKOUT``.
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import time
from fractions import Fraction

from blackboxes.automata.dfa import DFA
from blackboxes.automata.metrics import similarity
from blackboxes.automata.sampling import sample_minimal_dfa
from oracle_bench.rng import rng_for

TARGET_SECONDS = 0.5


def trajectory(seed: int, states: int, steps: int, shape: str) -> tuple[DFA, list[DFA]]:
    target = sample_minimal_dfa(rng_for(seed, "curve-target", states), states)
    hyps = []
    for i in range(1, steps + 1):
        size = max(1, round(i * states / steps)) if shape == "growing" else states
        hyps.append(sample_minimal_dfa(rng_for(seed, "curve", shape, i), size))
    return target, hyps


def curve(target: DFA, hyps: list[DFA], max_len: int) -> list[Fraction]:
    """The evaluator's loop: one similarity per distinct language, in step order."""
    sims: dict[str, Fraction] = {}
    out = []
    for h in hyps:
        key = h.fingerprint
        if key not in sims:
            sims[key] = similarity(h, target, max_len=max_len)
        out.append(sims[key])
    return out


def main() -> None:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--states", type=int, default=100)
    p.add_argument("--steps", type=int, default=100)
    p.add_argument("--max-len", type=int, default=200)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    print(
        f"{args.steps}-step curve, {args.states}-state target, K = {args.max_len}, "
        f"{args.runs} runs (median); target <= {TARGET_SECONDS} s"
    )
    print(f"{'trajectory':10} {'distinct':>8} {'median s':>9} {'per step ms':>12}  digest")
    for shape in ("growing", "worst"):
        times = []
        values: list[Fraction] = []
        for _ in range(args.runs):
            target, hyps = trajectory(args.seed, args.states, args.steps, shape)
            start = time.perf_counter()
            values = curve(target, hyps, args.max_len)
            times.append(time.perf_counter() - start)
        digest = hashlib.sha256(
            ";".join(f"{v.numerator}/{v.denominator}" for v in values).encode()
        ).hexdigest()[:12]
        med = statistics.median(times)
        verdict = "meets" if med <= TARGET_SECONDS else "MISSES"
        print(
            f"{shape:10} {len(set(values)):>8} {med:>9.3f} {1000 * med / args.steps:>12.1f}  "
            f"{digest}  ({verdict} the target)"
        )


if __name__ == "__main__":
    main()
