"""``oracle-eval report RUN_DIR``: recompute a run's results from its trajectories.

RUN_DIR may also be an Inspect log of the ``oracle_bench/oracle`` task (``.eval`` or
``.json``, read with the ``inspect`` extra): its samples' records are the trajectories.
Prints the same tables as a run and where the files were written. Exit codes: 0 done,
2 bad arguments (not a directory, no trajectories, an option that does not apply),
1 an unreadable or corrupt file, or files that do not make one run. Errors are one line.
"""

from __future__ import annotations

import argparse
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

    from evaluator.kinds import EpisodeKind, KindSummary
    from evaluator.report import RunRecords

# The report machinery (pydantic models, rich tables) is imported once the arguments
# parse, so that --help, --version and a usage error come at once.

__all__ = ["print_summary", "report_main"]

PROG = "oracle-eval report"

_EPILOG = """\
Reads RUN_DIR/trajectories/*.json (of any kind of episode) and the run manifest(s) run.json /
run.shard-<i>-of-<n>.json (shards sharing one directory are merged), recomputes every
metric from the trajectories alone (no suite, no agent) and rewrites summary.json,
summary.csv and boxes.csv (DFA runs: also metrics.json and metrics.csv), into RUN_DIR or,
with --out DIR, into DIR (the run's own files stay as they are). Without --seed and
options the files are byte-identical to the ones the run wrote.

RUN_DIR may be an Inspect log (LOG.eval or LOG.json) of `inspect eval oracle_bench/oracle`
instead (needs pip install 'oracle-bench[inspect]'): the episodes' records in its samples
are read and checked as a run folder's trajectories, and the summary files go to
LOG-report/ beside it (or --out DIR).

Examples:
  oracle-eval report runs/eri-easy/20at2-instant-seed0
  oracle-eval report runs/eri-easy/20at2-instant-seed0 --seed 8 --out reports/seed8
  oracle-eval report runs/DFA-states2-9-seed0-n80/dfa-x2-seed0 --buckets 2-5,6-9
  oracle-eval report logs/2025-01-01T12-00-00_oracle-ERI-easy_abc.eval
"""


def _parser() -> argparse.ArgumentParser:
    from evaluator._kind_cli import add_kind_arguments

    p = ArgumentParser(
        prog=PROG,
        description="Recompute a run's results (accuracy or success with bootstrap "
        "intervals, queries, invalid turns, tokens and cost) from its trajectories.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "run_dir",
        metavar="RUN_DIR",
        type=Path,
        help="a directory oracle-eval wrote, or an Inspect log of the oracle_bench/oracle task",
    )
    p.add_argument(
        "--seed",
        type=int,
        default=None,
        metavar="N",
        help="seed of the bootstrap intervals (default: the run's seed)",
    )
    p.add_argument(
        "--out",
        type=Path,
        default=None,
        metavar="DIR",
        help="write the summary files into DIR (default: RUN_DIR itself)",
    )
    p.add_argument("-v", "--verbose", action="count", default=0, help="more logging (-vv: debug)")
    add_kind_arguments(p, "report")
    add_version(p)
    return p


def _report(args: argparse.Namespace, out: Console, err: Console) -> int:
    from evaluator._kind_cli import given_options
    from evaluator.integrations.inspect._log import is_inspect_log
    from evaluator.report import load_run, summarise_run, write_run_summary

    require_utf8_path(args.run_dir, "RUN_DIR")
    if args.out is not None:
        require_utf8_path(args.out, "--out")
        if args.out.exists() and not args.out.is_dir():
            raise UsageError(f"--out {args.out} is a file, not a folder")
    configure_logging(args.verbose, err)
    inspect_log = is_inspect_log(args.run_dir)
    records = _inspect_log(args.run_dir) if inspect_log else load_run(args.run_dir)
    report = summarise_run(records, seed=args.seed, options=given_options(args, "report"))
    written = write_run_summary(records, report, args.out)
    print_summary(out, records.settings.kind, report.summary)
    if inspect_log:
        source = f"the Inspect log {args.run_dir.name}"
    elif records.manifests:
        source = ", ".join(p.name for p in records.manifests)
    else:
        source = "the trajectories (no run manifest)"
    if records.missing:
        out.print(
            f"[yellow]warning:[/] {records.missing} of {records.expected} episodes of the job "
            "list have no trajectory here (a shard not run or not copied, a stopped run, a "
            "deleted file); the results cover the rest"
        )
    ignored = f"; {len(records.ignored)} outside the job list left out" if records.ignored else ""
    where = args.out if args.out is not None else records.run_dir
    out.print(
        f"{len(records.trajectories)} trajectories (settings from {source}{ignored}). "
        f"Results in [bold]{where}[/] ({', '.join(p.name for p in written)})",
        soft_wrap=True,
    )
    return 0


def _inspect_log(path: Path) -> RunRecords:
    """The records of an Inspect log (a file given as RUN_DIR)."""
    import importlib.util

    from evaluator.integrations.inspect._log import load_inspect_log

    if importlib.util.find_spec("inspect_ai") is None:
        raise UsageError(
            f"{path}: reading an Inspect log needs inspect-ai: pip install 'oracle-bench[inspect]'"
        )
    return load_inspect_log(path)


def print_summary(out: Console, kind: EpisodeKind, summary: KindSummary) -> None:
    """The result tables of a run (``oracle-eval`` and ``oracle-eval report`` alike), the
    failure legend and warnings, and the LLM usage line."""
    from evaluator.reporting import FAILED_LEGEND, suite_seed_line, usage_line

    for table in kind.tables(summary):
        out.print(table)
    legend = kind.legend(summary)
    if legend is not None:
        out.print(legend, style="dim", highlight=False)
    if summary.failures:
        out.print(FAILED_LEGEND, style="dim", highlight=False)
    for line in kind.warnings(summary):
        style = "bold red" if line.startswith("SUITE ERROR") else "yellow"
        out.print(f"[{style}]warning:[/] ", end="")
        out.print(line, markup=False, highlight=False)
    seed_line = suite_seed_line(summary.suite_seed)
    if seed_line is not None:
        out.print(seed_line, style="dim", highlight=False)
    spent = usage_line(summary.usage)
    if spent is not None:
        out.print(spent, highlight=False)


def report_main(argv: list[str]) -> int:
    """Entry point of ``oracle-eval report``; returns the exit code."""

    def body() -> int:
        args = _parser().parse_args(list(argv))  # --help and --version exit here
        from rich.console import Console

        return _report(args, Console(), Console(stderr=True))

    return run_cli(PROG, body)
