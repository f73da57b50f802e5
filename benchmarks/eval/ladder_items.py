"""Baselines on a budget ladder for the item kinds (IPI puzzles, GSI games).

    python benchmarks/eval/ladder_items.py --category IPI [--boxes 30] [--seed 0]
        [--budgets 1@1,2@1,5@1,10@1] [--levels easy,hard] [--concurrency 2]
        [--out runs/bench-ladder-items]

For each level it generates (or reuses) the suite ``oracle-gen --category C --level L
-n BOXES --seed SEED`` writes, evaluates random, fixed and adaptive at every budget with
``evaluate_suite`` (budgets are per item: probes@answers for a puzzle instance,
exploration@evaluation games for a game setting), and prints:

1. the score per (level, budget, agent), and whether random <= fixed <= adaptive holds
   and is strict somewhere;
2. IPI: per puzzle, the exact T_info (its range over the level's boxes), and the
   adaptive baseline's mean probes per instance and probes to certainty, against T_info,
   at every budget;
   GSI: per hidden strategy kind, T_info in rounds of play (log2|H| / log2|Y|, rounded
   up: compare with the settings' game lengths), each baseline's normalised score at
   every budget, with the security value and uniform play on the same scale (what
   learning nothing gets).
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from blackboxes.box import Level
from blackboxes.store import load_suite_boxes
from evaluator import evaluate_suite, parse_spec
from evaluator.reporting import bootstrap_ci
from generator import GenerateConfig, generate_suite

AGENTS = ("random", "fixed", "adaptive")


def build_suite(root: Path, category: str, n: int, seed: int, level: Level) -> Path:
    out = root / f"bench-{category.lower()}-{level}-n{n}-s{seed}"
    if (out / "suite.json").is_file():
        return out
    return generate_suite(
        GenerateConfig(category=category, level=level, n=n, seed=seed, out=out)
    ).path


def _fmt(value: float | None, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--category", default="IPI")
    p.add_argument("--boxes", type=int, default=30)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--budgets", default="1@1,2@1,5@1,10@1")
    p.add_argument("--levels", default="easy,hard")
    p.add_argument("--concurrency", type=int, default=2)
    p.add_argument("--out", type=Path, default=Path("runs/bench-ladder-items"))
    args = p.parse_args()
    console = Console(width=220)
    budgets = [parse_spec(b) for b in args.budgets.split(",")]
    levels: list[Level] = [lv for lv in ("easy", "hard") if lv in args.levels.split(",")]
    scores: dict[tuple[str, str, str], float | None] = {}
    box_scores: dict[tuple[str, str, str], dict[str, float]] = {}
    per_kind: dict[tuple[str, str], dict[str, Any]] = defaultdict(dict)
    t_info: dict[tuple[str, str], list[int]] = defaultdict(list)
    for level in levels:
        suite_dir = build_suite(args.out / "suites", args.category, args.boxes, args.seed, level)
        _, boxes = load_suite_boxes(suite_dir)
        for box in boxes:
            if box.facts.t_info is not None:
                t_info[(level, box.facts.rule_kind)].append(box.facts.t_info)
        for spec in budgets:
            out = args.out / "runs" / f"{args.category.lower()}-{level}-{spec.slug}"
            result = evaluate_suite(
                suite_dir, list(AGENTS), spec, None, args.seed, out, concurrency=args.concurrency
            )
            summary: Any = result.summary
            for g in summary.groups:
                scores[(level, str(spec), g.agent)] = g.score_mean
            for b in summary.boxes:
                if b.score is not None:
                    box_scores.setdefault((level, str(spec), b.agent), {})[b.box_id] = b.score
            rows = getattr(summary, "puzzles", None) or getattr(summary, "strategies", [])
            for r in rows:
                per_kind[(level, r.rule_kind)][f"{spec}/{r.agent}"] = r
            console.print(f"{args.category} {level} {spec}: done ({result.manifest.executed} run)")

    table = Table(title=f"{args.category}: score per level, budget and agent (seed {args.seed})")
    for col in ("level", "budget", *AGENTS, "order", "reversed pairs (paired 95% CI)"):
        table.add_column(col, justify="right")
    for level in levels:
        for spec in budgets:
            vals = [scores.get((level, str(spec), a)) for a in AGENTS]
            known = [v for v in vals if v is not None]
            ordered = len(known) == 3 and known[0] <= known[1] <= known[2]
            strict = ordered and (known[0] < known[1] or known[1] < known[2])
            verdict = "strict" if strict else "holds" if ordered else "FAILS"
            notes = []
            for lo, hi in (("random", "fixed"), ("fixed", "adaptive"), ("random", "adaptive")):
                a = box_scores.get((level, str(spec), lo), {})
                b = box_scores.get((level, str(spec), hi), {})
                common = sorted(set(a) & set(b))
                diffs = [b[k] - a[k] for k in common]
                if not diffs or sum(diffs) >= 0:
                    continue
                ci = bootstrap_ci(diffs, args.seed, "ladder", level, str(spec), lo, hi)
                beyond = ci is not None and ci[1] < 0
                shown = "-" if ci is None else f"[{ci[0]:+.3f}, {ci[1]:+.3f}]"
                notes.append(f"{hi}<{lo} {shown} {'BEYOND noise' if beyond else 'within noise'}")
            table.add_row(level, str(spec), *(_fmt(v) for v in vals), verdict, "; ".join(notes))
    console.print(table)

    def span(level: str, kind: str) -> str:
        ts = t_info.get((level, kind), [])
        return "-" if not ts else f"{min(ts)}" if min(ts) == max(ts) else f"{min(ts)}-{max(ts)}"

    kinds = Table(title=f"{args.category}: per kind")
    kinds.add_column("level")
    kinds.add_column("kind")
    if args.category.upper() == "IPI":
        kinds.add_column("T_info", justify="right")
        for spec in budgets:
            kinds.add_column(f"{spec} adaptive: probes/pinned/solved", justify="right")
        for (level, kind), cells in sorted(per_kind.items()):
            row = [level, kind, span(level, kind)]
            for spec in budgets:
                r = cells.get(f"{spec}/adaptive")
                cell = "-"
                if r is not None:
                    cell = f"{_fmt(r.probes_mean, 1)}/{_fmt(r.pinned_mean, 1)}/"
                    cell += _fmt(r.score_mean, 2)
                row.append(cell)
            kinds.add_row(*row)
    else:
        kinds.add_column("T_info rounds", justify="right")
        kinds.add_column("secure/random", justify="right")
        for spec in budgets:
            kinds.add_column(f"{spec} r/f/a", justify="right")
        for (level, kind), cells in sorted(per_kind.items()):
            first = next(iter(cells.values()))
            refs = f"{_fmt(first.security_mean, 2)}/{_fmt(first.uniform_mean, 2)}"
            row = [level, kind, span(level, kind), refs]
            for spec in budgets:
                got = [cells.get(f"{spec}/{a}") for a in AGENTS]
                row.append("/".join(_fmt(r.score_mean if r else None, 2) for r in got))
            kinds.add_row(*row)
    console.print(kinds)


if __name__ == "__main__":
    main()
