"""Time per uniform minimal DFA (Boltzmann sampler) for n = 10 ... 10000, with tries.

Usage: python benchmarks/dfa/bench_sampler.py [--quick] [--seed S] [--no-reference]

For each n: the median (and p10/p90) wall time of ``sample_minimal_dfa`` over several
repetitions, the median divided by n^1.5 relative to n = 10 (the expected cost is
O(n^1.5)), and the rejection counts per accepted DFA:

- diagrams: set partitions drawn until one is k-Dyck (about 1.34 for k = 2);
- structures: accessible structures drawn until the DFA is minimal (about 1.2).

Side by side, the *reference* block-size step: n i.i.d. zero-truncated Poisson draws
(``rng.choices``) repeated until they sum to kn, about sqrt(n) tries of O(n) each. Ours
draws the same law as multinomial counts per size (about 25 binomials per try). The
sampler's uniformity on the 1028 minimal 3-state DFAs is checked first.
"""

from __future__ import annotations

import argparse
import hashlib
import math
import random
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator, MutableSequence, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run from a checkout

from blackboxes.automata import sampling
from blackboxes.automata.counting import enumerate_minimal_dfas
from blackboxes.automata.dfa import DFA
from oracle_bench.rng import seed_for

SIZES = (10, 100, 1000, 10000, 100000)
REPS = {10: 300, 100: 100, 1000: 20, 10000: 9, 100000: 5}
QUICK_REPS = {10: 40, 100: 15, 1000: 4, 10000: 2, 100000: 2}
REFERENCE_UP_TO = 10000
"""The reference block-size step takes seconds a try above this."""
TARGET_SECONDS = 1.0
"""n = 10^5 in at most a second (issue 17)."""


class CountingRandom(random.Random):
    """A Random that counts diagrams (one ``shuffle`` each)."""

    diagrams = 0
    digest = ""
    """sha256 of the DFAs drawn with it, to compare checkouts (``PYTHONPATH=CHECKOUT``)."""

    def shuffle(self, x: MutableSequence[Any]) -> None:
        self.diagrams += 1
        super().shuffle(x)


@contextmanager
def counting_structures() -> Iterator[list[int]]:
    """Counts the accessible structures ``sample_minimal_dfa`` draws (on either path:
    lists below ``sampling.VECTOR_FROM`` states, numpy arrays from there on)."""
    calls = [0]
    names = ("sample_accessible_structure", "_structure_array")
    originals = {name: getattr(sampling, name) for name in names if hasattr(sampling, name)}

    def counted(original: Callable[..., Any]) -> Callable[..., Any]:
        def wrapped(rng: random.Random, n: int, k: int) -> Any:
            calls[0] += 1
            return original(rng, n, k)

        return wrapped

    for name, original in originals.items():
        setattr(sampling, name, counted(original))
    try:
        yield calls
    finally:
        for name, original in originals.items():
            setattr(sampling, name, original)


# -- the reference block-size step -------------------------------------------------


def iid_block_sizes(rng: random.Random, n: int, k: int) -> list[int]:
    """n i.i.d. zero-truncated Poisson sizes, redrawn until they sum to kn."""
    support, cum = sampling._size_table(k)
    while True:
        sizes = rng.choices(support, cum_weights=cum, k=n)
        if sum(sizes) == k * n:
            return sizes


@contextmanager
def reference_sizes() -> Iterator[None]:
    original = sampling._block_sizes
    sampling._block_sizes = iid_block_sizes
    try:
        yield
    finally:
        sampling._block_sizes = original


# -- measuring ------------------------------------------------------------------------


def time_samples(
    n: int, reps: int, seed: int, tag: str, sample: Callable[[random.Random], DFA]
) -> tuple[list[float], CountingRandom]:
    rng = CountingRandom(seed_for(seed, "bench-sampler", tag, n))
    times = []
    digest = hashlib.sha256()
    for _ in range(reps):
        start = time.perf_counter()
        dfa = sample(rng)
        times.append(time.perf_counter() - start)
        if dfa.n != n:
            raise SystemExit(f"sampled {dfa.n} states, wanted {n}")
        digest.update(repr((dfa.start, dfa.delta, dfa.accepting)).encode())
    rng.digest = digest.hexdigest()[:12]
    return times, rng


def sample_of_size(n: int) -> Callable[[random.Random], DFA]:
    # Looks sampling.sample_minimal_dfa up at call time, so the patches above apply.
    return lambda rng: sampling.sample_minimal_dfa(rng, n)


def quantile(xs: Sequence[float], q: float) -> float:
    ordered = sorted(xs)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def check_uniformity(seed: int, per_cell: int) -> str:
    """Chi-square of the sampler over the 1028 minimal 3-state DFAs."""
    support = set(enumerate_minimal_dfas(3, 2))
    rng = random.Random(seed_for(seed, "bench-sampler", "check"))
    draws = Counter(
        (d.delta, d.accepting)
        for d in (sampling.sample_minimal_dfa(rng, 3) for _ in range(per_cell * len(support)))
    )
    if not set(draws) <= support:
        raise SystemExit("the sampler drew a DFA outside the support")
    expected = per_cell
    stat = sum((draws[x] - expected) ** 2 / expected for x in support)
    df = len(support) - 1
    z = 3.090232  # 0.999 normal quantile; Wilson-Hilferty for the chi-square one
    critical = df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3
    # Below ~20 draws per DFA a few are expected to stay unseen (e^-per_cell each).
    covered = len(draws) == len(support) or per_cell < 20
    verdict = "ok" if stat < critical and covered else "FAILED"
    return (
        f"uniformity (n=3, {per_cell * len(support)} draws): "
        f"{len(draws)}/{len(support)} DFAs seen, chi2 = {stat:.0f} on {df} df "
        f"(0.999 critical {critical:.0f}): {verdict}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="few repetitions")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-reference", action="store_true")
    args = parser.parse_args()
    reps_by_n = QUICK_REPS if args.quick else REPS
    reference = not args.no_reference

    print(check_uniformity(args.seed, 5 if args.quick else 20))
    header = (
        f"{'n':>6} {'reps':>4} {'median ms':>10} {'p10':>9} {'p90':>9} {'mean':>9}"
        f" {'/n^1.5 vs n=10':>15}"
        f" {'diagrams':>8} {'structs':>7} {'digest':>12}"
    )
    if reference:
        header += f" {'iid ms':>9} {'mean':>9} {'speed-up':>8}"
    print(header)
    base = None
    target_line = ""
    for n in SIZES:
        reps = reps_by_n[n]
        with counting_structures() as structures:
            times, rng = time_samples(n, reps, args.seed, "current", sample_of_size(n))
        median = statistics.median(times)
        scaled = median / n**1.5
        base = base or scaled
        row = (
            f"{n:>6} {reps:>4} {median * 1e3:>10.3f} {quantile(times, 0.1) * 1e3:>9.3f}"
            f" {quantile(times, 0.9) * 1e3:>9.3f} {statistics.fmean(times) * 1e3:>9.3f}"
            f" {scaled / base:>15.2f}"
            f" {rng.diagrams / structures[0]:>8.2f}"
            f" {structures[0] / reps:>7.2f} {rng.digest:>12}"
        )
        if n == SIZES[-1]:
            verdict = "meets" if median <= TARGET_SECONDS else "MISSES"
            target_line = (
                f"n = {n}: {median:.2f} s per DFA ({verdict} the {TARGET_SECONDS} s target)"
            )
        if reference and n <= REFERENCE_UP_TO:
            with reference_sizes():
                ref, _ = time_samples(n, reps, args.seed, "reference", sample_of_size(n))
            ref_median = statistics.median(ref)
            row += (
                f" {ref_median * 1e3:>9.3f} {statistics.fmean(ref) * 1e3:>9.3f}"
                f" {ref_median / median:>8.1f}"
            )
        print(row, flush=True)
    print(
        "times in ms per minimal DFA; diagrams ="
        " partitions per structure (Dyck rejection); structs = structures per minimal DFA"
        " (minimality rejection); speed-up = iid reference median / our median."
    )
    print(target_line)


if __name__ == "__main__":
    main()
