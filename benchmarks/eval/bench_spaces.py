"""Speed of the hypothesis spaces the baselines and T_info lean on.

    python benchmarks/eval/bench_spaces.py [--rounds 5]

The tests assert what these spaces compute; how fast they compute it is measured here,
side by side in one run, against the budget each one is held to (a machine under load
must not fail a test, so no test times them). Prints the first (cold) round, the median
of ``--rounds`` warm rounds, and their ratios to the budget (below 1 is within budget):

- ERI stateful kinds: one predictive distribution (entropy and top 3) on a fresh space;
- ERI easy mixture: one predictive entropy after two observations;
- puzzles: one greedy step over 200 probes on a space of 5,000-20,000 secrets;
- puzzles: one parse of a hostile text (the worst of the corpus, per kind).
"""

from __future__ import annotations

import argparse
import contextlib
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run from a checkout

from blackboxes.families import get_family
from blackboxes.families.eri._alphabet import ALPHABET, normalise
from blackboxes.families.eri._autokey import AutokeyKind, CipherAutokeyKind
from blackboxes.families.eri._frequency import FrequencyShiftKind
from blackboxes.puzzles import PuzzleError, PuzzleSpace, get_puzzle, puzzle_names
from tests.blackboxes.puzzles._cases import MEDIUM
from tests.blackboxes.puzzles.test_parsing import HOSTILE


def _query(rng: random.Random, longest: int = 32) -> str:
    while True:
        raw = "".join(
            " " if rng.random() < 0.15 else rng.choice(ALPHABET)
            for _ in range(rng.randint(1, longest))
        )
        if text := normalise(raw):
            return text


def _cipher(kind: AutokeyKind | CipherAutokeyKind | FrequencyShiftKind) -> Callable[[], int]:
    rng = random.Random(0)
    pool = [_query(rng) for _ in range(32)] + ["A" * 32, "AB" * 16]

    def run() -> int:
        for x in pool:
            space = kind.space()  # fresh: nothing memoised
            _ = space.predictive(x).entropy
            space.predictive(x).top(3)
        return len(pool)

    return run


def _mixture() -> Callable[[], int]:
    eri: Any = get_family("ERI")
    pool = eri.query_pool(random.Random(0), "easy", 30)
    rule = eri.sample_rule(random.Random(7), "easy", "substitution")
    mix = eri.version_space("easy")
    for x in ("HELLO WORLD", "AB"):
        mix = mix.observe(x, rule(x))

    def run() -> int:
        for x in pool:
            _ = mix.predictive(x).entropy
        return len(pool)

    return run


def _greedy(name: str, params: dict[str, int]) -> Callable[[], int]:
    kind = get_puzzle(name)
    space = PuzzleSpace(kind, params)
    candidates = space.candidates(random.Random(0), 200)
    space.expected_information(candidates[0])  # builds the kind's tables

    def run() -> int:
        space.greedy_probe(candidates)
        return 1

    return run


def _parse(name: str) -> Callable[[], int]:
    kind = get_puzzle(name)
    params = MEDIUM[name]

    def run() -> int:
        for text in HOSTILE:
            for parse in (kind.parse_probe, kind.parse_answer):
                with contextlib.suppress(PuzzleError):
                    parse(params, text)
        return 2 * len(HOSTILE)

    return run


def _per_call(run: Callable[[], int], rounds: int) -> tuple[float, float]:
    """(first round, median of the later ones): the first pays for tables built once."""
    times = []
    for _ in range(rounds + 1):
        start = time.perf_counter()
        calls = run()
        times.append((time.perf_counter() - start) / calls)
    return times[0], statistics.median(times[1:])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    cases: list[tuple[str, Callable[[], int], float]] = [
        *(
            (f"ERI {k.name} predictive", _cipher(k), 0.02)
            for k in (AutokeyKind(), CipherAutokeyKind(), FrequencyShiftKind())
        ),
        ("ERI easy mixture predictive", _mixture(), 0.01),
        ("mastermind greedy step", _greedy("mastermind", {"pegs": 5, "colours": 6}), 1.0),
        ("bulls_and_cows greedy step", _greedy("bulls_and_cows", {"length": 5, "digits": 8}), 1.0),
        ("nuts_and_bolts greedy step", _greedy("nuts_and_bolts", {"size": 7, "pairs": 3}), 1.0),
        *((f"{n} hostile parse", _parse(n), 0.5) for n in puzzle_names()),
    ]
    print(
        f"{'case':<36} {'cold ms/call':>13} {'warm ms/call':>13} {'budget ms':>10} "
        f"{'cold/budget':>12} {'warm/budget':>12}"
    )
    for label, run, budget in cases:
        cold, warm = _per_call(run, args.rounds)
        print(
            f"{label:<36} {cold * 1e3:>13.3f} {warm * 1e3:>13.3f} {budget * 1e3:>10.1f} "
            f"{cold / budget:>12.3f} {warm / budget:>12.3f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
