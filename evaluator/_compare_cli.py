"""``oracle-eval compare RUN [RUN ...]``: several runs in one long table, or their paired
comparisons (:mod:`evaluator.analysis.compare`).

Exit codes: 0 done, 2 bad arguments (runs over different suites without
``--allow-different-suites``, a RUN that is not a run), 1 an unreadable or corrupt run.
"""

from __future__ import annotations

import argparse
import sys
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
    from evaluator.analysis.compare import RunScores
    from evaluator.report import RunRecords

__all__ = ["compare_main", "load_runs"]

PROG = "oracle-eval compare"

_EPILOG = """\
Reads each RUN (a run folder oracle-eval wrote, or an Inspect log of the oracle_bench/oracle
task) from its trajectories alone, and prints one long table: a row per run x family x
level x agent with the run's suite, kind, settings, feedback, seed and repeats, the boxes
with a score, the episodes and failed episodes, and the score (mean of box means, a box's
score being the mean over its repetitions) with its 95% bootstrap interval, the same as
the run's own summary. Rows of level `all` pool a family's levels.

--paired prints the paired comparisons instead: every two agents of a run, the same
agent in every two runs (e.g. instant vs deferred), and the agents of two one-agent runs
(two models run apart), each on the boxes both were evaluated on: mean_a, mean_b, diff =
mean of the per-box differences A - B, its 95% paired bootstrap interval (2000 resamples
over boxes), p = two-sided sign-flip permutation test over boxes (exact up to 30 boxes,
the smallest p of n boxes being 2/2^n; above, a seeded Monte Carlo test with 20000 sign
vectors), p_holm = Holm-adjusted over the table, d_z = mean / sd of the differences
(Cohen's d_z), a_better / b_better = share of boxes where A (B) scores higher.

Runs over different suites (name, or box digests) are refused unless
--allow-different-suites; boxes are then paired by id where their digests agree.

Examples:
  oracle-eval compare runs/eri-easy-1a2b/10at1-instant-seed0 runs/eri-easy-1a2b/10at1-deferred-seed0
  oracle-eval compare runs/eri-easy-1a2b/*/ --paired --format latex --out paired.tex
  oracle-eval compare runs/a runs/b --format csv --out scores.csv
"""


def _parser() -> argparse.ArgumentParser:
    from evaluator.analysis.compare import FORMATS

    p = ArgumentParser(
        prog=PROG,
        description="Several runs in one table of scores with 95% intervals, or the paired "
        "comparisons of their agents on the same boxes.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("runs", metavar="RUN", type=Path, nargs="+", help="run folders or Inspect logs")
    p.add_argument(
        "--format",
        choices=FORMATS,
        default="md",
        help="csv, md (Markdown, default) or latex (booktabs tabular)",
    )
    p.add_argument("--out", type=Path, metavar="FILE", help="write to FILE (default: stdout)")
    p.add_argument(
        "--paired",
        action="store_true",
        help="the paired comparisons of agents on the same boxes instead of the scores",
    )
    p.add_argument(
        "--allow-different-suites",
        action="store_true",
        help="compare runs over different suites (boxes paired by id and digest)",
    )
    p.add_argument(
        "--seed",
        type=int,
        default=None,
        metavar="N",
        help="seed of the intervals and tests (default: each run's own seed for its "
        "scores, 0 for the paired comparisons)",
    )
    p.add_argument("-v", "--verbose", action="count", default=0, help="more logging (-vv: debug)")
    add_version(p)
    return p


def _records(path: Path) -> RunRecords:
    from evaluator.integrations.inspect._log import is_inspect_log
    from evaluator.report import load_run

    if not is_inspect_log(path):
        return load_run(path)
    import importlib.util

    from evaluator.integrations.inspect._log import load_inspect_log

    if importlib.util.find_spec("inspect_ai") is None:
        raise UsageError(
            f"{path}: reading an Inspect log needs inspect-ai: pip install 'oracle-bench[inspect]'"
        )
    return load_inspect_log(path)


def load_runs(paths: list[Path]) -> list[RunScores]:
    """Each path's run, labelled by its folder's name (a log's stem), or by the path as
    given where two runs share a name."""
    from evaluator.analysis.compare import run_scores

    names = [p.stem if p.is_file() else p.name for p in paths]
    labels = [str(p) if names.count(n) > 1 else n for p, n in zip(paths, names, strict=True)]
    if len(set(labels)) < len(labels):
        raise UsageError("a run is given twice: " + ", ".join(sorted({str(p) for p in paths})))
    return [run_scores(_records(p), label) for p, label in zip(paths, labels, strict=True)]


def _compare(args: argparse.Namespace) -> int:
    from rich.console import Console

    from evaluator.analysis.compare import (
        check_same_suite,
        paired_rows,
        paired_table,
        render,
        score_rows,
        score_table,
    )
    from oracle_bench.jsonio import atomic_write_text

    err = Console(stderr=True)
    for path in args.runs:
        require_utf8_path(path, "RUN")
    if args.out is not None:
        require_utf8_path(args.out, "--out")
        if args.out.is_dir():
            raise UsageError(f"--out {args.out} is a folder, not a file")
    configure_logging(args.verbose, err)
    runs = load_runs(list(args.runs))
    if not args.allow_different_suites:
        check_same_suite(runs)
    if args.paired:
        rows = paired_rows(runs, seed=0 if args.seed is None else args.seed)
        if not rows:
            err.print(
                "no paired comparison: no two agents share boxes in these runs",
                style="yellow",
                highlight=False,
            )
        text = render(paired_table(rows), args.format)
    else:
        text = render(score_table(score_rows(runs, seed=args.seed)), args.format)
    if args.out is None:
        sys.stdout.write(text)
    else:
        atomic_write_text(args.out, text)
        err.print(f"Wrote {args.out}", highlight=False, markup=False, soft_wrap=True)
    return 0


def compare_main(argv: list[str]) -> int:
    """Entry point of ``oracle-eval compare``; returns the exit code."""

    def body() -> int:
        return _compare(_parser().parse_args(list(argv)))  # --help and --version exit here

    return run_cli(PROG, body)
