"""Baseline accuracy on an easy ERI suite: expect adaptive >= fixed >= random.

    python benchmarks/eval/baselines.py [--boxes 30] [--spec 10@1] [--seed 0]
        [--feedback instant] [--out runs/bench-baselines]

Generates (or reuses) an ERI suite exactly as oracle-gen does (or evaluates ``--suite
DIR``), runs the three baselines with evaluate_suite, and prints the group table plus
accuracy per rule kind.
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict
from pathlib import Path

from rich.console import Console
from rich.table import Table

from blackboxes.box import Level
from evaluator import evaluate_suite, parse_spec
from generator import GenerateConfig, generate_suite

AGENTS = ["random", "fixed", "adaptive"]


def build_suite(root: Path, n: int, seed: int, level: Level) -> Path:
    """The suite ``oracle-gen --category ERI --level LEVEL -n N --seed SEED`` writes."""
    out = root / f"bench-eri-{level}-n{n}-s{seed}"
    return generate_suite(GenerateConfig(category="ERI", level=level, n=n, seed=seed, out=out)).path


def main() -> None:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--boxes", type=int, default=30)
    p.add_argument("--level", default="easy", choices=["easy", "hard"])
    p.add_argument("--spec", default="10@1")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--feedback", default="instant")
    p.add_argument("--out", type=Path, default=Path("runs/bench-baselines"))
    p.add_argument("--suite", type=Path, default=None, help="evaluate this suite instead")
    args = p.parse_args()
    console = Console(width=150)
    spec = parse_spec(args.spec)
    suite_dir = args.suite or build_suite(args.out / "suites", args.boxes, args.seed, args.level)
    clock = time.monotonic()
    result = evaluate_suite(
        suite_dir,
        AGENTS,
        spec,
        args.feedback,
        args.seed,
        args.out / suite_dir.name / f"{spec.slug}-{args.feedback}-seed{args.seed}",
    )
    elapsed = time.monotonic() - clock

    table = Table(
        title=f"{result.summary.suite}, {len(result.summary.boxes) // len(AGENTS)} boxes, {spec}, "
        f"{args.feedback}, seed {args.seed} ({elapsed:.1f} s)"
    )
    for col in (
        "agent",
        "accuracy",
        "95% CI",
        "queries",
        "invalid",
        "T_info",
        "bits",
        "efficiency",
        "failed",
    ):
        table.add_column(col, justify="left" if col == "agent" else "right")
    for g in result.summary.groups:
        table.add_row(
            g.agent,
            f"{g.accuracy_mean:.3f}",
            f"[{g.accuracy_ci_low:.3f}, {g.accuracy_ci_high:.3f}]",
            f"{g.queries_used_mean:.1f}",
            f"{g.invalid_turns_mean:.1f}",
            f"{g.t_info_mean:.2f}",
            f"{g.info_gained_mean:.2f}",
            "-" if g.efficiency_mean is None else f"{g.efficiency_mean:.2f}",
            str(g.failed),
        )
    console.print(table)

    per_kind: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for row in result.summary.boxes:
        if row.accuracy is not None:
            per_kind[row.rule_kind][row.agent].append(row.accuracy)
    kinds = Table(title="accuracy per rule kind")
    kinds.add_column("kind")
    kinds.add_column("boxes", justify="right")
    for agent in AGENTS:
        kinds.add_column(agent, justify="right")
    for kind, by_agent in sorted(per_kind.items()):
        n = len(next(iter(by_agent.values())))
        kinds.add_row(
            kind,
            str(n),
            *(f"{sum(by_agent[a]) / len(by_agent[a]):.2f}" if by_agent[a] else "-" for a in AGENTS),
        )
    console.print(kinds)
    acc = {g.agent: g.accuracy_mean or 0.0 for g in result.summary.groups}
    ok = acc["adaptive"] >= acc["fixed"] >= acc["random"]
    console.print(f"ordering adaptive >= fixed >= random: {'holds' if ok else 'FAILS'}")


if __name__ == "__main__":
    main()
