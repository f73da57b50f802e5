"""Baselines on a budget ladder: ordering, T_info per kind, and adaptive vs fixed time.

    python benchmarks/eval/ladder.py [--category ERI] [--boxes 30] [--seed 0]
        [--budgets 1@1,2@1,5@1,10@1] [--levels easy,hard] [--concurrency 2]
        [--out runs/bench-ladder] [--no-timing]

For each level it generates (or reuses) the suite ``oracle-gen --category C --level L
-n BOXES --seed SEED`` writes, evaluates random, fixed and adaptive at every budget with
evaluate_suite, and prints:

1. accuracy per (level, budget, agent), with whether adaptive >= fixed >= random holds
   and is strict somewhere, and for a reversed pair whether the seeded 95% bootstrap CI of
   the per-box difference excludes 0 (beyond noise) or not;
2. per rule kind: log2|H| and T_info, the fixed plan's accuracy
   at the largest budget, the share of boxes the fixed plan and the adaptive agent solve
   (every held-out item right) with one query, and whether the kind needs adaptivity
   (adaptive beats fixed by 0.1 at some budget);
3. the time of one episode, fixed vs adaptive, on every box of the hard suite at the
   largest budget (the box in a real sandbox worker, both agents in the same run):
   medians and the median of the per-box ratios.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections import defaultdict
from pathlib import Path

from rich.console import Console
from rich.table import Table

from blackboxes.box import Level
from blackboxes.families import family_for_box
from blackboxes.store import load_suite_boxes
from evaluator import evaluate_suite, parse_spec
from evaluator.kinds.turns.agents import AgentContext, make_agent
from evaluator.kinds.turns.protocol import EpisodeContext, run_episode
from evaluator.kinds.turns.summary import BoxRow
from evaluator.reporting import bootstrap_ci
from evaluator.spec import TurnShot
from generator import GenerateConfig, generate_suite
from sandbox import SandboxWorker

AGENTS = ("random", "fixed", "adaptive")


def build_suite(root: Path, category: str, n: int, seed: int, level: Level) -> Path:
    """The suite ``oracle-gen --category C --level LEVEL -n N --seed SEED`` writes."""
    out = root / f"bench-{category.lower()}-{level}-n{n}-s{seed}"
    config = GenerateConfig(category=category, level=level, n=n, seed=seed, out=out)
    return generate_suite(config).path


def episode_times(suite_dir: Path, spec: TurnShot, seed: int) -> list[tuple[str, float, float]]:
    """(rule kind, fixed seconds, adaptive seconds) of one episode per box."""
    suite, boxes = load_suite_boxes(suite_dir)
    rows: list[tuple[str, float, float]] = []
    for box in boxes:
        family = family_for_box(box.info)
        seconds: dict[str, float] = {}
        with SandboxWorker(box.code, entry=box.info.entry) as worker:
            for name in ("fixed", "adaptive"):
                ctx = EpisodeContext(
                    suite=suite.name, agent_name=name, spec=spec, feedback="instant", seed=seed
                )
                agent = make_agent(
                    name,
                    AgentContext(family=family, level=box.info.level, rng=random.Random(seed)),
                )
                clock = time.perf_counter()
                run_episode(box, family, agent, worker, ctx)
                seconds[name] = time.perf_counter() - clock
        rows.append((box.facts.rule_kind, seconds["fixed"], seconds["adaptive"]))
    return rows


def _paired_reversals(boxes: list[BoxRow], seed: int, *parts: str) -> str:
    """Which reversed pairs are beyond the noise: the seeded 95% bootstrap CI of the
    per-box difference (the same held-out items for both agents when they ask alike)."""
    scores = {(r.agent, r.box_id): r.accuracy for r in boxes if r.accuracy is not None}
    ids = sorted({box for _, box in scores})
    notes = []
    for better, worse in (("adaptive", "fixed"), ("fixed", "random")):
        diffs = [
            scores[(better, b)] - scores[(worse, b)]
            for b in ids
            if (better, b) in scores and (worse, b) in scores
        ]
        if not diffs or sum(diffs) >= 0:
            continue
        ci = bootstrap_ci(diffs, seed, "ladder", better, worse, *parts)
        if ci is not None:
            beyond = "beyond noise" if ci[1] < 0 else "within noise"
            notes.append(f"{better}-{worse} CI [{ci[0]:+.3f}, {ci[1]:+.3f}] {beyond}")
    return ": " + "; ".join(notes) if notes else ""


def main() -> None:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--category", default="ERI")
    p.add_argument("--boxes", type=int, default=30)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--budgets", default="1@1,2@1,5@1,10@1")
    p.add_argument("--levels", default="easy,hard")
    p.add_argument("--concurrency", type=int, default=2)
    p.add_argument("--out", type=Path, default=Path("runs/bench-ladder"))
    p.add_argument("--no-timing", action="store_true", help="skip the episode-time comparison")
    args = p.parse_args()
    console = Console(width=150)
    budgets = [parse_spec(s) for s in args.budgets.split(",")]
    levels: list[Level] = [lv for lv in ("easy", "hard") if lv in args.levels.split(",")]

    category = args.category.upper()
    ladder = Table(title=f"{category} baselines, {args.boxes} boxes per level, seed {args.seed}")
    for col in ("level", "budget", *AGENTS, "ordering"):
        ladder.add_column(col, justify="left" if col in ("level", "ordering") else "right")
    kinds_tables: list[Table] = []
    suites: dict[Level, Path] = {}
    for level in levels:
        suite_dir = build_suite(args.out / "suites", category, args.boxes, args.seed, level)
        suites[level] = suite_dir
        facts = {box.info.id: box.facts for box in load_suite_boxes(suite_dir)[1]}
        # kind -> budget slug -> agent -> accuracies; kind -> T_info
        per_kind: dict[str, dict[str, dict[str, list[float]]]] = defaultdict(
            lambda: defaultdict(lambda: defaultdict(list))
        )
        t_info: dict[str, set[int | None]] = defaultdict(set)
        log2_h: dict[str, set[float]] = defaultdict(set)
        for spec in budgets:
            clock = time.monotonic()
            result = evaluate_suite(
                suite_dir,
                list(AGENTS),
                spec,
                "instant",
                args.seed,
                args.out / suite_dir.name / f"{spec.slug}-instant-seed{args.seed}",
                concurrency=args.concurrency,
            )
            elapsed = time.monotonic() - clock
            acc = {g.agent: g.accuracy_mean or 0.0 for g in result.summary.groups}
            ordered = acc["adaptive"] >= acc["fixed"] >= acc["random"]
            strict = acc["adaptive"] > acc["fixed"] or acc["fixed"] > acc["random"]
            verdict = "holds, strict" if ordered and strict else "holds" if ordered else "FAILS"
            if not ordered:
                verdict += _paired_reversals(result.summary.boxes, args.seed, level, spec.slug)
            ladder.add_row(
                level, str(spec), *(f"{acc[a]:.3f}" for a in AGENTS), f"{verdict} ({elapsed:.0f} s)"
            )
            for row in result.summary.boxes:
                if row.accuracy is not None:
                    per_kind[row.rule_kind][spec.slug][row.agent].append(row.accuracy)
                    t_info[row.rule_kind].add(row.t_info)
                    h = facts[row.box_id].log2_h
                    if h is not None:
                        log2_h[row.rule_kind].add(round(h, 1))
        first, last = budgets[0].slug, budgets[-1].slug
        table = Table(title=f"{category} {level}: per rule kind ({first} and {last})")
        for col in (
            "kind",
            "boxes",
            "log2|H|",
            "T_info",
            f"random {last}",
            f"fixed {last}",
            f"adaptive {last}",
            f"fixed solves at {first}",
            f"adaptive solves at {first}",
            "needs adaptivity",
        ):
            table.add_column(col, justify="left" if col == "kind" else "right")
        for kind, by_budget in sorted(per_kind.items()):

            def mean(values: list[float]) -> float:
                return sum(values) / len(values) if values else float("nan")

            def solved(values: list[float]) -> float:
                return sum(v == 1.0 for v in values) / len(values) if values else float("nan")

            needs = any(
                mean(by_budget[s.slug]["adaptive"]) > mean(by_budget[s.slug]["fixed"]) + 0.1
                for s in budgets
            )
            table.add_row(
                kind,
                str(len(by_budget[last]["fixed"])),
                ",".join(f"{h:.1f}" for h in sorted(log2_h[kind])),
                ",".join(str(t) for t in sorted(t for t in t_info[kind] if t is not None)),
                f"{mean(by_budget[last]['random']):.2f}",
                f"{mean(by_budget[last]['fixed']):.2f}",
                f"{mean(by_budget[last]['adaptive']):.2f}",
                f"{solved(by_budget[first]['fixed']):.2f}",
                f"{solved(by_budget[first]['adaptive']):.2f}",
                "yes" if needs else "no",
            )
        kinds_tables.append(table)
    console.print(ladder)
    for table in kinds_tables:
        console.print(table)

    if args.no_timing or "hard" not in suites:
        return
    spec = budgets[-1]
    rows = episode_times(suites["hard"], spec, args.seed)
    fixed = [f for _, f, _ in rows]
    adaptive = [a for _, _, a in rows]
    ratios = [a / f for _, f, a in rows if f > 0]
    timing = Table(title=f"one episode on each hard box at {spec} (seconds; sandboxed box)")
    for col in ("", "fixed", "adaptive", "adaptive / fixed"):
        timing.add_column(col, justify="left" if not col else "right")
    timing.add_row(
        "median",
        f"{statistics.median(fixed):.3f}",
        f"{statistics.median(adaptive):.3f}",
        f"{statistics.median(ratios):.2f}x (per-box ratios)",
    )
    timing.add_row("max", f"{max(fixed):.3f}", f"{max(adaptive):.3f}", f"{max(ratios):.2f}x")
    by_kind: dict[str, list[float]] = defaultdict(list)
    for kind, f, a in rows:
        by_kind[kind].append(a / f if f > 0 else float("nan"))
    console.print(timing)
    slowest = sorted(by_kind.items(), key=lambda kv: -statistics.median(kv[1]))[:5]
    console.print(
        "slowest kinds (median adaptive/fixed): "
        + ", ".join(f"{k} {statistics.median(v):.1f}x" for k, v in slowest)
    )


if __name__ == "__main__":
    main()
