"""The tier classifier's confusion table on the baselines of every family.

    python benchmarks/eval/tiers.py [--boxes 8] [--families ERI,CRI,...] [--seed 0]

For each family, a procedural suite at the level and budget of the test
(tests/evaluator/test_tiers_baselines.py, larger here), the default baselines run
three ways: the run, its counterfactual on twin boxes and its reseeded replay
(``oracle-eval --counterfactual``); then the computed tiers. Prints one row per
(family, agent) with the measurements, and the confusion table of expected tier
(random 1, fixed 2, adaptive / DFA learners 3) against computed tier.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import cast

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run from a checkout

from blackboxes.box import Level
from evaluator._tiers_cli import tiers_of_run_dir
from evaluator.api import evaluate, plan_run
from evaluator.counterfactual import counterfactual_plan, reseeded_plan
from tests.evaluator.conftest import build_suite

CASES = {
    "ERI": ("hard", "3@1"),
    "CRI": ("hard", "10@1"),
    "CII": ("hard", "2@1"),
    "PSI": ("easy", "5@1"),
    "IPI": ("hard", "5@1"),
    "GSI": ("easy", "1@1"),
    "DFA": ("easy", None),
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boxes", type=int, default=8)
    parser.add_argument("--families", default=",".join(CASES))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--concurrency", type=int, default=2)
    args = parser.parse_args()
    confusion: Counter[tuple[int, int | None]] = Counter()
    root = Path(tempfile.mkdtemp(prefix="tiers-"))
    print(
        f"{'family':<7}{'level':<6}{'spec':<6}{'agent':<9}{'tier':>5}{'eff':>7}"
        f"{'vs random [95% CI]':>24}{'reseeds':>9}{'twins':>7}  evidence"
    )
    for family in args.families.split(","):
        level, spec = CASES[family]
        suite = build_suite(
            root, n=args.boxes, seed=args.seed, family_name=family, level=cast(Level, level)
        )
        plan = plan_run(suite, None, spec, out=root / f"{family}-run", seed=args.seed)
        evaluate(plan, concurrency=args.concurrency)
        evaluate(counterfactual_plan(plan), concurrency=args.concurrency)
        evaluate(reseeded_plan(plan), concurrency=args.concurrency)
        report = tiers_of_run_dir(plan.out_dir)
        confusion.update(report.confusion())
        for r in report.rows:
            gap = f"{r.random_gap:.3f} [{r.random_gap_ci_low:.2f}, {r.random_gap_ci_high:.2f}]"
            print(
                f"{family:<7}{level:<6}{spec or '-':<6}{r.agent:<9}{r.tier!s:>5}"
                f"{r.efficiency or 0:>7.3f}{gap:>24}{r.seed_divergence or 0:>9.2f}"
                f"{r.adaptivity or 0:>7.2f}  {r.evidence}",
                flush=True,
            )
    print("\nexpected tier (rows) x computed tier (columns), baseline groups:")
    print(f"{'':>10}{'1':>5}{'2':>5}{'3':>5}{'none':>6}")
    for want in (1, 2, 3):
        cells = [confusion.get((want, got), 0) for got in (1, 2, 3, None)]
        print(
            f"{'tier ' + str(want):>10}" + "".join(f"{c:>5}" for c in cells[:3]) + f"{cells[3]:>6}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
