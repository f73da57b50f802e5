"""The exploration tiers in the terminal: ``oracle-eval --counterfactual`` and
``oracle-eval report --tiers``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

    from evaluator.analysis.tiers import TierReport
    from evaluator.report import RunRecords

__all__ = ["print_tiers", "tiers_of_records", "tiers_of_run_dir"]


def tiers_of_records(records: RunRecords, *, seed: int | None = None) -> TierReport:
    """The tiers of a loaded run with its counterfactual companions, if any."""
    from evaluator.analysis.sections import analyse_runs
    from evaluator.analysis.tier_section import run_tiers

    runs = analyse_runs([records], seed=seed)
    return run_tiers(runs.runs[0], seed=seed)


def tiers_of_run_dir(run_dir: Path, *, seed: int | None = None) -> TierReport:
    """The tiers of the run at ``run_dir`` with its counterfactual companions, if any."""
    from evaluator.report import load_run

    return tiers_of_records(load_run(Path(run_dir)), seed=seed)


def _num(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _ci(low: float | None, high: float | None) -> str:
    return "" if low is None or high is None else f" [{low:.2f}, {high:.2f}]"


def print_tiers(out: Console, report: TierReport) -> None:
    """The tier of every (family, level, agent), the measurements behind it and the
    reasons, as one table plus a legend."""
    from evaluator.reporting import new_table

    table = new_table(f"Exploration tiers (efficiency against {report.reference_agent})")
    table.add_column("group", no_wrap=True)
    table.add_column("agent", overflow="fold")
    table.add_column("tier", justify="right", no_wrap=True)
    for name in ("efficiency", "vs random", "reseeds", "twins"):
        table.add_column(name, justify="right", no_wrap=True)
    for r in report.rows:
        table.add_row(
            f"{r.family} {r.level}",
            r.agent,
            "-" if r.tier is None else str(r.tier),
            _num(r.efficiency) + _ci(r.efficiency_ci_low, r.efficiency_ci_high),
            _num(r.random_gap) + _ci(r.random_gap_ci_low, r.random_gap_ci_high),
            _num(r.seed_divergence),
            _num(r.adaptivity),
        )
    out.print(table)
    for r in report.rows:
        tier = "no tier" if r.tier is None else f"tier {r.tier}"
        out.print(f"  {r.family} {r.level} {r.agent}: {tier}, {r.reason}", soft_wrap=True)
    out.print(
        "tier 1 random, 2 systematic, 3 adaptive; efficiency: information summed over the "
        "steps / the reference agent's on the same box; vs random: paired difference; "
        "reseeds / twins: share of replays (another agent seed / another key) whose "
        "queries changed",
        soft_wrap=True,
    )
