"""Time the exact similarity score and the Myhill-Nerode scores on random DFA pairs.

    python benchmarks/dfa/bench_similarity.py [--pairs 7] [--max-len 200] [--seed 0] [--quick]

Pairs are uniform minimal DFAs (the benchmark's target distribution). ``similarity``
(product, pruning, vectorised big-integer DP) runs side by side with a naive reference,
a forward DP over reachable state pairs with dict counts as in the paper's code, on the
same pairs in the same run; both must give the same number. Prints medians and the
naive / ours ratio, then the Myhill-Nerode scores' median time.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import defaultdict
from collections.abc import Callable
from fractions import Fraction
from typing import TypeVar

from blackboxes.automata.dfa import DFA
from blackboxes.automata.metrics import myhill_nerode_scores, similarity, words_up_to_count
from blackboxes.automata.sampling import sample_minimal_dfa
from oracle_bench.rng import rng_for

T = TypeVar("T")


def naive_similarity(hyp: DFA, target: DFA, max_len: int) -> Fraction:
    """Forward DP over (target state, hypothesis state) pairs, one dict per length."""
    counts: dict[tuple[int, int], int] = {(target.start, hyp.start): 1}
    differ = 0
    for length in range(max_len + 1):
        differ += sum(c for (p, q), c in counts.items() if target.accepting[p] != hyp.accepting[q])
        if length == max_len:
            break
        nxt: dict[tuple[int, int], int] = defaultdict(int)
        for (p, q), c in counts.items():
            for a in range(target.k):
                nxt[target.delta[p][a], hyp.delta[q][a]] += c
        counts = nxt
    total = words_up_to_count(target.k, max_len)
    return Fraction(total - differ, total)


def timed(fn: Callable[..., T], *args: object) -> tuple[float, T]:
    start = time.perf_counter()
    out = fn(*args)
    return time.perf_counter() - start, out


def main() -> None:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--pairs", type=int, default=7, help="random pairs per size")
    p.add_argument("--max-len", type=int, default=200)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--quick", action="store_true", help="3 pairs per size")
    args = p.parse_args()
    pairs = 3 if args.quick else args.pairs
    k = args.max_len

    print(f"similarity at K={k}, medians over {pairs} random minimal pairs on {{a,b}}")
    print(f"{'states':>9} {'ours ms':>9} {'naive ms':>9} {'ratio':>7} {'median sim':>11}")
    for n in (10, 100):
        ours, naive, sims = [], [], []
        for i in range(pairs):
            t = sample_minimal_dfa(rng_for(args.seed, "target", n, i), n)
            h = sample_minimal_dfa(rng_for(args.seed, "hyp", n, i), n)
            dt_ours, s_ours = timed(similarity, h, t, k)
            dt_naive, s_naive = timed(naive_similarity, h, t, k)
            if s_ours != s_naive:
                raise SystemExit(f"mismatch at n={n}, pair {i}: {s_ours} != {s_naive}")
            ours.append(dt_ours)
            naive.append(dt_naive)
            sims.append(float(s_ours))
        mo, mn = statistics.median(ours), statistics.median(naive)
        print(
            f"{n:>4}x{n:<4} {1000 * mo:>9.1f} {1000 * mn:>9.1f} {mn / mo:>6.1f}x "
            f"{statistics.median(sims):>11.4f}"
        )

    print(f"\nMyhill-Nerode scores (default horizons), medians over {pairs} pairs")
    print(f"{'states':>9} {'ms':>9}")
    for n in (5, 10, 20) if not args.quick else (5, 10):
        times = []
        for i in range(pairs):
            t = sample_minimal_dfa(rng_for(args.seed, "mn-target", n, i), n)
            h = sample_minimal_dfa(rng_for(args.seed, "mn-hyp", n, i), n)
            dt, _ = timed(myhill_nerode_scores, h, t)
            times.append(dt)
        print(f"{n:>4}x{n:<4} {1000 * statistics.median(times):>9.1f}")


if __name__ == "__main__":
    main()
