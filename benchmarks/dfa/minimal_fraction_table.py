"""Writes blackboxes/automata/_minimal_fraction.py: minimal-DFA counts beyond runtime reach.

Usage: python benchmarks/dfa/minimal_fraction_table.py [--max-n 200] [--jobs J] [--check]

Two tables, both deterministic:

- EXACT: minimal-DFA counts by full enumeration (``count_minimal_dfas``) for the sizes
  too slow to enumerate at generation time (k=2 n=5,6; k=3 n=4; k=4,5 n=3; minutes;
  n=5 and n=6 reproduce OEIS A129622);
- HITS: for k = 2, 3, 4 and every n from the first size without an exact count up to
  --max-n, how many of SAMPLES[k] uniform accessible DFAs are minimal
  (``minimal_fraction_hits`` with ``MONTE_CARLO_SEED``; about an hour on one core).

Before the tallies it validates the estimator on every size with an exact count: the
99 % Clopper-Pearson interval of the same number of draws must contain the exact
fraction (printed; a miss is reported, not hidden), and, after them, the tallies on
the sizes with only a published count (k=2 n=7). --check recomputes everything and
compares with the checked-in module instead of writing it. --jobs only spreads the
(n, k) cells over processes; every cell has its own seed, so the output is the same.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Iterable
from multiprocessing import Pool
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # run from a checkout

from blackboxes.automata._binomial_ci import clopper_pearson  # noqa: E402
from blackboxes.automata.counting import (  # noqa: E402
    CONFIDENCE,
    ENUMERATION_LIMIT,
    MONTE_CARLO_SEED,
    PUBLISHED_COUNTS,
    accessible_dfas,
    count_minimal_dfas,
    minimal_dfa_count,
    minimal_fraction_hits,
)

OUT = ROOT / "blackboxes" / "automata" / "_minimal_fraction.py"
EXACT_SIZES = ((5, 2), (6, 2), (4, 3), (3, 4), (3, 5))
SAMPLES = {2: 4000, 3: 2000, 4: 2000}
"""More draws for k = 2, where the fraction stays near 0.85 and its interval is widest."""

Cell = tuple[int, int, int, float]
"""(n, k, count, seconds) for one cell."""


def _runtime_exact(n: int, k: int) -> bool:
    return n <= 2 or (accessible_dfas(n, k) << n) <= ENUMERATION_LIMIT


def _first_estimated(k: int) -> int:
    n = 3
    while _runtime_exact(n, k) or (n, k) in EXACT_SIZES:
        n += 1
    return n


def _exact(cell: tuple[int, int]) -> Cell:
    n, k = cell
    start = time.perf_counter()
    return n, k, count_minimal_dfas(n, k), time.perf_counter() - start


def _hits(cell: tuple[int, int]) -> Cell:
    n, k = cell
    start = time.perf_counter()
    return (
        n,
        k,
        minimal_fraction_hits(n, k, SAMPLES[k], MONTE_CARLO_SEED),
        time.perf_counter() - start,
    )


def _run(
    fn: Callable[[tuple[int, int]], Cell], cells: list[tuple[int, int]], jobs: int
) -> Iterable[Cell]:
    if jobs == 1:
        yield from map(fn, cells)
    else:
        with Pool(jobs) as pool:
            yield from pool.imap(fn, cells)


def _validate(n: int, k: int, hits: int, count: int, note: str) -> bool:
    """Print whether the draws' interval holds the exact fraction; True if it does."""
    fraction = count / (accessible_dfas(n, k) << n)
    low, high = clopper_pearson(hits, SAMPLES[k], CONFIDENCE)
    inside = low <= fraction <= high
    print(
        f"  k={k} n={n}: exact {fraction:.5f}, drawn {hits}/{SAMPLES[k]} -> "
        f"[{low:.5f}, {high:.5f}] {'ok' if inside else 'MISS'} {note}",
        flush=True,
    )
    return inside


def _render(
    exact: dict[tuple[int, int], int], first: dict[int, int], hits: dict[int, list[int]]
) -> str:
    lines = [
        '"""Minimal-DFA counts beyond what generation can afford to enumerate (generated data).',
        "",
        "Written by benchmarks/dfa/minimal_fraction_table.py; do not edit by hand.",
        "",
        "- EXACT[(n, k)]: the number of minimal n-state DFAs over k letters, by full",
        "  enumeration (``counting.count_minimal_dfas``).",
        "- HITS[k][n - FIRST_N[k]]: how many of SAMPLES[k] uniform accessible n-state DFAs",
        "  were minimal (``counting.minimal_fraction_hits`` with seed SEED).",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        f"SEED = {MONTE_CARLO_SEED}",
        "",
        "EXACT: dict[tuple[int, int], int] = {",
        *(f"    ({n}, {k}): {c}," for (n, k), c in sorted(exact.items(), key=lambda x: x[0][::-1])),
        "}",
        "",
        "SAMPLES: dict[int, int] = {" + ", ".join(f"{k}: {s}" for k, s in SAMPLES.items()) + "}",
        "",
        "FIRST_N: dict[int, int] = {" + ", ".join(f"{k}: {n}" for k, n in first.items()) + "}",
        "",
        "# fmt: off",
        "HITS: dict[int, tuple[int, ...]] = {",
    ]
    for k, row in hits.items():
        lines.append(f"    {k}: (")
        for i in range(0, len(row), 10):
            lines.append("        " + " ".join(f"{h}," for h in row[i : i + 10]))
        lines.append("    ),")
    lines += ["}", "# fmt: on"]
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-n", type=int, default=200)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--check", action="store_true", help="compare with the checked-in table")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()

    exact: dict[tuple[int, int], int] = {}
    for n, k, total, secs in _run(_exact, list(EXACT_SIZES), args.jobs):
        exact[(n, k)] = total
        print(f"exact   k={k} n={n}: {total} minimal DFAs ({secs:.1f} s)", flush=True)

    print(
        f"validation: {CONFIDENCE:.0%} intervals of the draws against exact fractions", flush=True
    )
    known = [(n, k) for k in SAMPLES for n in range(2, _first_estimated(k))]
    misses = 0
    for n, k, h, secs in _run(_hits, known, args.jobs):
        known_count = exact[(n, k)] if (n, k) in exact else minimal_dfa_count(n, k)
        if known_count is None:  # pragma: no cover - every size below _first_estimated is exact
            raise RuntimeError(f"no exact count for n={n}, k={k}")
        misses += not _validate(n, k, h, known_count, f"({secs:.1f} s)")

    first = {k: _first_estimated(k) for k in SAMPLES}
    cells = [(n, k) for k in SAMPLES for n in range(first[k], args.max_n + 1)]
    hits: dict[int, list[int]] = {k: [] for k in SAMPLES}
    started = time.perf_counter()
    for n, k, h, secs in _run(_hits, cells, args.jobs):
        hits[k].append(h)
        print(
            f"tally   k={k} n={n}: {h}/{SAMPLES[k]} ({secs:.1f} s, "
            f"{time.perf_counter() - started:.0f} s in all)",
            flush=True,
        )
    for k, row in hits.items():  # imap keeps order; this guards the indexing anyway
        if len(row) != args.max_n + 1 - first[k]:  # pragma: no cover
            raise RuntimeError(f"k={k}: {len(row)} tallies")
    print("validation: tallies against published counts", flush=True)
    for (n, k), count in PUBLISHED_COUNTS.items():
        if k in hits and first[k] <= n <= args.max_n:
            misses += not _validate(n, k, hits[k][n - first[k]], count, "(published)")

    text = _render(exact, first, hits)
    if args.check:
        same = text == args.out.read_text()
        print("checked-in table reproduced" if same else "checked-in table DIFFERS", flush=True)
        return 0 if same else 1
    args.out.write_text(text)
    print(f"wrote {args.out} ({misses} validation misses)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
