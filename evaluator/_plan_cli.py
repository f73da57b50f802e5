"""``oracle-eval plan PILOT_RUN``: how many boxes and repetitions a target needs, from the
variance of a pilot run's scores (:mod:`evaluator.analysis.stats`).

Exit codes: 0 done, 2 bad arguments (no target, an agent not in the run, a pilot with
fewer than two scored boxes), 1 an unreadable or corrupt run.
"""

from __future__ import annotations

import argparse
import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from oracle_bench.cli import (
    ArgumentParser,
    add_version,
    configure_logging,
    require_utf8_path,
    run_cli,
)
from oracle_bench.errors import UsageError

if TYPE_CHECKING:
    from rich.console import Console

    from evaluator.analysis.compare import RunScores
    from evaluator.analysis.stats import VarianceComponents

__all__ = ["PlanRow", "plan_difference", "plan_main", "plan_width"]

PROG = "oracle-eval plan"
DEFAULT_REPETITIONS = (1, 2, 4)

_EPILOG = """\
From a pilot run (a run folder or an Inspect log), per agent: the variance components of
its score under the one-way random-effects model (box effect of variance `between`,
repetition noise of variance `within`; method of moments: `within` is the pooled variance
across a box's repetitions, `between` the variance of the box means minus within x
mean(1/repetitions)); with one repetition per box they cannot be separated and the
pooled variance counts as `between` (repetitions then do not shrink it: a pilot with
--repeats 2 or more tells them apart). The mean over n boxes of r repetitions then has
variance (between + within / r) / n, and (normal approximation):

  --ci-width W     n = ceil((2 x 1.96 / W)^2 x (between + within / r)): the boxes for a
                   95% interval of an agent's mean score no wider than W;
  --difference D   n = ceil((z(1 - alpha/2) + z(power))^2 x (between_d + within_d / r) / D^2),
                   with the components of the per-box difference of two agents
                   (within_d = within_A + within_B), at least ceil(log2(2 / alpha)) boxes
                   (the exact sign-flip test of `oracle-eval compare --paired` cannot go
                   lower): the boxes to detect a mean paired difference D with that power.

Examples:
  oracle-eval plan runs/eri-easy-1a2b/10at1-instant-seed0 --ci-width 0.1
  oracle-eval plan runs/pilot --difference 0.05 --power 0.9 --agent adaptive --agent random
"""


def _repetitions(text: str) -> tuple[int, ...]:
    try:
        values = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected numbers like 1,2,4, got {text!r}") from None
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"repetitions must be >= 1, got {text!r}")
    return tuple(sorted(set(values)))


def _parser() -> argparse.ArgumentParser:
    p = ArgumentParser(
        prog=PROG,
        description="Boxes x repetitions that reach a target 95% interval width or detect a "
        "paired difference with a given power, from a pilot run's variance.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("pilot", metavar="PILOT_RUN", type=Path, help="a run folder or Inspect log")
    target = p.add_mutually_exclusive_group(required=True)
    target.add_argument(
        "--ci-width", type=float, metavar="W", help="target width of the 95%% interval"
    )
    target.add_argument(
        "--difference", type=float, metavar="D", help="paired mean difference to detect"
    )
    p.add_argument("--power", type=float, default=0.8, help="with --difference (default: 0.8)")
    p.add_argument("--alpha", type=float, default=0.05, help="with --difference (default: 0.05)")
    p.add_argument(
        "--agent",
        action="append",
        dest="agents",
        metavar="NAME",
        help="plan for this agent (repeatable; default: every agent of the pilot)",
    )
    p.add_argument(
        "--repetitions",
        type=_repetitions,
        default=DEFAULT_REPETITIONS,
        metavar="R,R",
        help="repetitions per box to plan for (default: 1,2,4)",
    )
    p.add_argument("-v", "--verbose", action="count", default=0, help="more logging (-vv: debug)")
    add_version(p)
    return p


@dataclass(frozen=True)
class PlanRow:
    """One agent (or pair of agents) of a plan: the pilot's components and the boxes
    needed per repetition count."""

    subject: str
    components: VarianceComponents
    boxes: tuple[tuple[int, int], ...]
    """(repetitions, boxes needed), in the order of the repetitions."""


def _agent_boxes(run: RunScores, agent: str) -> dict[str, list[float]]:
    """Box (with its family: a box id is unique only within one) -> repetition scores."""
    from evaluator.reporting import ALL_LEVELS

    out: dict[str, list[float]] = {}
    for family in sorted({e.family for e in run.episodes}):
        for box, values in run.box_scores(agent, family, ALL_LEVELS).items():
            out[f"{family}/{box}"] = values
    return out


def _check_agents(run: RunScores, agents: Sequence[str] | None) -> list[str]:
    chosen = list(agents or run.agents)
    unknown = [a for a in chosen if a not in run.agents]
    if unknown:
        raise UsageError(
            f"agent {unknown[0]!r} is not in the pilot run (its agents: {', '.join(run.agents)})"
        )
    return chosen


def _components(boxes: dict[str, list[float]], what: str) -> VarianceComponents:
    from evaluator.analysis.stats import variance_components

    scored = [v for v in boxes.values() if v]
    if len(scored) < 2:
        raise UsageError(f"{what}: the pilot has {len(scored)} scored box(es); a plan needs 2+")
    return variance_components(scored)


def plan_width(
    run: RunScores,
    width: float,
    *,
    agents: Sequence[str] | None = None,
    repetitions: Sequence[int] = DEFAULT_REPETITIONS,
) -> list[PlanRow]:
    """Per agent, the boxes for a 95% interval of its mean score no wider than ``width``."""
    from evaluator.analysis.stats import boxes_for_ci_width

    if not width > 0:
        raise UsageError(f"invalid --ci-width {width:g}: must be > 0")
    rows = []
    for agent in _check_agents(run, agents):
        comp = _components(_agent_boxes(run, agent), agent)
        need = tuple((r, boxes_for_ci_width(comp, width, r)) for r in repetitions)
        rows.append(PlanRow(agent, comp, need))
    return rows


def plan_difference(
    run: RunScores,
    difference: float,
    *,
    power: float = 0.8,
    alpha: float = 0.05,
    agents: Sequence[str] | None = None,
    repetitions: Sequence[int] = DEFAULT_REPETITIONS,
) -> list[PlanRow]:
    """Per pair of agents, the boxes to detect a paired mean difference ``difference``."""
    from evaluator.analysis.stats import boxes_for_difference, difference_components

    if difference == 0:
        raise UsageError("invalid --difference 0: must be non-zero")
    if not 0 < power < 1:
        raise UsageError(f"invalid --power {power:g}: must be in (0, 1)")
    if not 0 < alpha < 1:
        raise UsageError(f"invalid --alpha {alpha:g}: must be in (0, 1)")
    chosen = _check_agents(run, agents)
    if len(chosen) < 2:
        raise UsageError("--difference compares agents: give two or more (--agent A --agent B)")
    rows = []
    for a, b in itertools.combinations(chosen, 2):
        sa, sb = _agent_boxes(run, a), _agent_boxes(run, b)
        common = [k for k in sa if k in sb and sa[k] and sb[k]]
        if len(common) < 2:
            raise UsageError(f"{a} vs {b}: {len(common)} common scored box(es); a plan needs 2+")
        comp = difference_components(sa, sb)
        need = tuple(
            (r, boxes_for_difference(comp, abs(difference), r, power=power, alpha=alpha))
            for r in repetitions
        )
        rows.append(PlanRow(f"{a} - {b}", comp, need))
    return rows


def _print(out: Console, run: RunScores, rows: list[PlanRow], args: argparse.Namespace) -> None:
    from evaluator.reporting import new_table

    # Titles apart: rich wraps a title to its table's width.
    out.print(
        f"Pilot {run.label}: {run.suite}, {run.settings}, {run.repeats} repetition(s) per box",
        style="bold",
        highlight=False,
        soft_wrap=True,
    )
    pilot = new_table("")
    for name in ("agent" if args.ci_width is not None else "A - B", "boxes", "reps/box", "mean"):
        pilot.add_column(name, justify="left" if name in ("agent", "A - B") else "right")
    pilot.add_column("between var", justify="right")
    pilot.add_column("within var", justify="right")
    for row in rows:
        c = row.components
        pilot.add_row(
            row.subject,
            str(c.boxes),
            f"{c.repetitions:.1f}",
            f"{c.mean:.3f}",
            f"{c.between:.4f}",
            "pooled" if c.within is None else f"{c.within:.4f}",
        )
    out.print(pilot)
    if args.ci_width is not None:
        title = f"Boxes for a 95% interval of the mean score no wider than {args.ci_width:g}"
    else:
        title = (
            f"Boxes to detect a paired difference of {args.difference:g} "
            f"(power {args.power:g}, two-sided alpha {args.alpha:g})"
        )
    out.print(title, style="bold", highlight=False, soft_wrap=True)
    need = new_table("")
    need.add_column("agent" if args.ci_width is not None else "A - B")
    for r in args.repetitions:
        need.add_column(f"{r} rep.", justify="right")
    for row in rows:
        need.add_row(row.subject, *(f"{n} ({n * r} ep.)" for r, n in row.boxes))
    out.print(need)
    out.print("cells: boxes needed (episodes per agent)", style="dim", highlight=False)
    if any(row.components.within is None for row in rows):
        out.print(
            "[yellow]note:[/] one repetition per box: the within-box variance cannot be "
            "separated from the between-box one; it is treated as pooled, so more "
            "repetitions do not reduce the boxes here (a pilot with --repeats 2 or more "
            "separates them)",
            highlight=False,
        )


def _plan(args: argparse.Namespace) -> int:
    from rich.console import Console

    from evaluator._compare_cli import load_runs

    out, err = Console(), Console(stderr=True)
    require_utf8_path(args.pilot, "PILOT_RUN")
    configure_logging(args.verbose, err)
    if args.ci_width is not None and (args.power != 0.8 or args.alpha != 0.05):
        raise UsageError("--power and --alpha apply to --difference only")
    (run,) = load_runs([args.pilot])
    if args.ci_width is not None:
        rows = plan_width(run, args.ci_width, agents=args.agents, repetitions=args.repetitions)
    else:
        rows = plan_difference(
            run,
            args.difference,
            power=args.power,
            alpha=args.alpha,
            agents=args.agents,
            repetitions=args.repetitions,
        )
    _print(out, run, rows, args)
    return 0


def plan_main(argv: list[str]) -> int:
    """Entry point of ``oracle-eval plan``; returns the exit code."""

    def body() -> int:
        return _plan(_parser().parse_args(list(argv)))  # --help and --version exit here

    return run_cli(PROG, body)
