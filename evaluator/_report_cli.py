"""``oracle-eval report RUN_DIR [RUN_DIR ...]``: recompute a run's results from its trajectories,
or build the HTML report and figures of one or more runs.

RUN_DIR may also be an Inspect log of the ``oracle_bench/oracle`` task (``.eval`` or
``.json``, read with the ``inspect`` extra): its samples' records are the trajectories.
With one RUN_DIR and neither ``--html`` nor ``--figures``: prints the same tables as a run
and where the summary files were written. With ``--html OUT.html`` and/or ``--figures
DIR``: writes the report of every RUN_DIR (:mod:`evaluator.analysis.html_report`) and no
summary file. Exit codes: 0 done, 2 bad arguments (not a directory, no trajectories, an
option that does not apply), 1 an unreadable or corrupt file, or files that do not make
one run. Errors are one line.
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

_FORMATS = ("png", "svg", "pdf")

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

With --html OUT.html and/or --figures DIR, RUN_DIR may be given several times (folders and
logs mixed): OUT.html is one self-contained page (no network): the runs, the score per
family, level and agent with 95% intervals, information curves and efficiency against
the kind's reference agent, instant vs deferred feedback and score vs budget where the
runs allow, each kind's own figures, and a trajectory viewer of every episode (#episode=N
opens one). --figures DIR writes every figure as DIR/<name>.<format> (--figure-format
png,svg,pdf; default png). No summary file is written then.

Examples:
  oracle-eval report runs/eri-easy/20at2-instant-seed0
  oracle-eval report runs/eri-easy/20at2-instant-seed0 --seed 8 --out reports/seed8
  oracle-eval report runs/DFA-states2-9-seed0-n80/dfa-x2-seed0 --buckets 2-5,6-9
  oracle-eval report logs/2025-01-01T12-00-00_oracle-ERI-easy_abc.eval
  oracle-eval report runs/eri-easy/*-seed0 --html report.html --figures figures
  oracle-eval report runs/eri-easy/10at1-instant-seed0 --tiers
"""


def _parser() -> argparse.ArgumentParser:
    from evaluator._kind_cli import add_kind_arguments

    p = ArgumentParser(
        prog=PROG,
        description="Recompute a run's results (accuracy or success with bootstrap "
        "intervals, queries, invalid turns, tokens and cost) from its trajectories, or "
        "write the HTML report and figures of one or more runs.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "run_dir",
        metavar="RUN_DIR",
        type=Path,
        nargs="+",
        help="a directory oracle-eval wrote, or an Inspect log of the oracle_bench/oracle task "
        "(several: with --html or --figures only)",
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
    p.add_argument(
        "--html",
        type=Path,
        default=None,
        metavar="OUT.html",
        help="write the HTML report of every RUN_DIR (one self-contained file) instead of the "
        "summary files",
    )
    p.add_argument(
        "--figures",
        type=Path,
        default=None,
        metavar="DIR",
        help="write every figure of the report into DIR as <name>.<format>",
    )
    p.add_argument(
        "--figure-format",
        type=_formats,
        default=None,
        metavar="LIST",
        help=f"formats of --figures, a comma list of {', '.join(_FORMATS)} (default: png)",
    )
    p.add_argument(
        "--tiers",
        action="store_true",
        help="also print the exploration tiers (with the run's counterfactual replays, "
        "when oracle-eval --counterfactual made them)",
    )
    p.add_argument("-v", "--verbose", action="count", default=0, help="more logging (-vv: debug)")
    add_kind_arguments(p, "report")
    add_version(p)
    return p


def _formats(text: str) -> tuple[str, ...]:
    parts = tuple(dict.fromkeys(p.strip() for p in text.split(",") if p.strip()))
    bad = [p for p in parts if p not in _FORMATS]
    if bad or not parts:
        raise argparse.ArgumentTypeError(
            f"{bad[0] if bad else text!r} is not a figure format (a comma list of "
            f"{', '.join(_FORMATS)})"
        )
    return parts


def _report(args: argparse.Namespace, out: Console, err: Console) -> int:
    if args.html is not None or args.figures is not None:
        if args.tiers:
            raise UsageError("--tiers prints one run's tiers; the HTML report has a tiers section")
        return _html_report(args, out, err)
    if args.figure_format is not None:
        raise UsageError("--figure-format goes with --figures DIR")
    if len(args.run_dir) > 1:
        raise UsageError(
            f"{len(args.run_dir)} runs given: several runs make an --html OUT.html report "
            "or --figures DIR (the summary files are one run's)"
        )
    args.run_dir = args.run_dir[0]
    return _one_run(args, out, err)


def _one_run(args: argparse.Namespace, out: Console, err: Console) -> int:
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
    if args.tiers:
        from evaluator._tiers_cli import print_tiers, tiers_of_records

        print_tiers(out, tiers_of_records(records, seed=args.seed))
    return 0


def _html_report(args: argparse.Namespace, out: Console, err: Console) -> int:
    """``--html``/``--figures``: the report of every RUN, with a progress bar."""
    from evaluator._kind_cli import given_options
    from evaluator.kinds import command_options

    if args.out is not None:
        raise UsageError(
            "--out rewrites one run's summary files; it does not go with --html/--figures"
        )
    given = given_options(args, "report")
    for option in command_options("report"):
        if given.get(option.name) is not None:
            raise UsageError(
                f"{option.flag} applies to one run's summary files; it does not go with "
                "--html/--figures"
            )
    for path in args.run_dir:
        require_utf8_path(path, "RUN_DIR")
    if args.html is not None:
        require_utf8_path(args.html, "--html")
        if args.html.is_dir():
            raise UsageError(f"--html {args.html} is a folder: give the file to write")
    if args.figures is not None:
        require_utf8_path(args.figures, "--figures")
        if args.figures.exists() and not args.figures.is_dir():
            raise UsageError(f"--figures {args.figures} is a file, not a folder")
    configure_logging(args.verbose, err)

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from evaluator.analysis.html_report import write_report
    from evaluator.analysis.sections import ReportProgress
    from evaluator.report import load_runs

    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        console=err,
        transient=True,
    )
    tasks: dict[str, object] = {}

    def step(event: ReportProgress) -> None:
        task = tasks.get(event.stage)
        if task is None:
            task = tasks[event.stage] = progress.add_task(event.stage, total=event.total)
        progress.update(task, completed=event.done, total=event.total)  # type: ignore[arg-type]

    with progress:
        runs = load_runs(args.run_dir)
        files = write_report(
            runs,
            html_path=args.html,
            figures_dir=args.figures,
            formats=args.figure_format or ("png",),
            seed=args.seed,
            progress=step,
        )
    episodes = sum(len(r.analyses) for r in files.report.runs.runs)
    figures = len(files.report.figures)
    if files.html is not None:
        size = files.html.stat().st_size
        out.print(
            f"Report of {len(runs)} run(s), {episodes} episodes, {figures} figures: "
            f"[bold]{files.html}[/] ({size / 1024:.0f} KiB)",
            soft_wrap=True,
        )
    if args.figures is not None:
        out.print(f"{len(files.figures)} figure files in [bold]{args.figures}[/]", soft_wrap=True)
    for run in files.report.runs.runs:
        if not run.analysed:
            out.print(
                f"[yellow]warning:[/] {run.records.run_dir}: the {run.kind.title} kind does not "
                "analyse its episodes yet; listed without episodes or figures",
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
