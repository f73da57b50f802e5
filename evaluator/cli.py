"""``oracle-eval``: run agents on a generated suite and report accuracy and information.

Turn@shot suites (ERI...) take a ``TURNS@SHOTS`` spec; DFA suites take none (a spec,
``--feedback``, or a non-DFA agent given for a DFA suite is refused with a one-line
usage error, exit 2, and so are ``--budget-factor``/``--buckets`` for other suites).

The only module of the evaluator that prints or configures logging.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from evaluator._defaults import (
    DEFAULT_BUCKETS,
    DEFAULT_BUDGET_FACTOR,
    EXIT_FAILURES,
    PROTOCOLS,
    format_buckets,
)
from evaluator.spec import (
    FEEDBACK_MODES,
    FeedbackMode,
    TurnShot,
    check_spec_tokens,
    parse_feedback,
    parse_spec,
)
from oracle_bench.cli import (
    ArgumentParser,
    add_version,
    check_suite_arg,
    configure_logging,
    require_utf8_path,
    run_cli,
    suggest_subcommand,
    suites_root,
)
from oracle_bench.errors import BoxError, UnknownNameError, UsageError

if TYPE_CHECKING:
    from rich.console import Console

    from evaluator.llm_agents import LlmAgentSettings

# The evaluator, the agents, the providers and rich are imported where they are used, so
# that --help, --version and a usage error about the arguments come at once; the parser
# imports only the agent registries.

__all__ = ["main"]

PROG = "oracle-eval"
EXIT_STOPPED = 3
"""A budget stopped the run before every episode was done (rerun with a larger cap)."""
DEFAULT_AGENTS = ("random", "fixed", "adaptive")
DEFAULT_DFA_AGENTS = ("lstar", "kv", "ttt")
SUITES_ENV = "ORACLE_BENCH_SUITES"

_EPILOG = f"""\
The spec TURNS@SHOTS sets the budget: TURNS exploration turns (every answered query or
invalid reply costs one), then each held-out item gets SHOTS attempts with right/wrong
feedback. ORACLE's published settings are 10@1 and 20@2.

Feedback modes: instant (each query answered at once) or deferred (all TURNS queries
submitted blind, answers revealed together: isolates adaptivity).

Without --suite, the most recent suite (newest suite.json) under ./suites is evaluated
(set {SUITES_ENV} to look elsewhere). Results go to
runs/<suite name>-<tag>/<TURNS>at<SHOTS>-<feedback>-seed<SEED> (the tag hashes the
suite's folder and suite.json); rerunning the same command resumes, skipping finished
episodes. A folder holding another run (other suite, spec, feedback, seed, budget factor
or episode settings) is refused, exit 2, naming the first difference; a folder another
oracle-eval is writing is refused, exit 2, naming its PID.

Failed episodes have a cause: agent (scored 0), box (a suite error: the box is left out
for every agent) or infrastructure (left out; the only ones a rerun plays again). Any
failure makes oracle-eval exit {EXIT_FAILURES} unless --allow-failures.

DFA suites (oracle-gen --category DFA) take no SPEC and no --feedback (either is refused,
exit 2, as are --budget-factor and --buckets for other suites): each episode is membership and
equivalence queries until an equivalence query is accepted or the budget is spent. The
budget is --budget-factor (default {DEFAULT_BUDGET_FACTOR:g}) times the box's reference cost,
min(L*, TTT), rounded half up. DFA agents: {", ".join(DEFAULT_DFA_AGENTS)} (the default).
Results go to runs/<suite name>-<tag>/dfa-x<F>-seed<SEED>; the summary groups boxes by state
count with --buckets (default {format_buckets(DEFAULT_BUCKETS)}).

LLM agents: --agent provider/model (openai/<model>, anthropic/<model>, or
scripted/<replies.jsonl>), repeatable and mixable with baselines, on any suite. --base-url
points at any OpenAI-compatible server (vLLM, Ollama, llama.cpp); -M KEY=VALUE passes model
options (temperature, reasoning_effort...). Every LLM agent is checked before any work
(unknown provider, missing key, unreachable --base-url: one line, exit 2). --invalid-turns
count (ORACLE's rule: an unparseable reply costs its turn) or free (re-asked up to
--max-reasks times, recorded, not counted); --max-reasks also bounds the agent's own
re-asks after a reply with no usable call.

Concurrency: --concurrency N episodes at once (default 1), at most --max-per-provider
calls in flight per provider, on at most --workers sandbox workers (default N). Results
do not depend on N. --shard i/n runs every n-th episode of the job list (boxes x agents x
repeats), so n machines can share one job list; shards may write into one --out (run,
index and summary files get a .shard-i-of-n suffix) and `oracle-eval report DIR`
merges all trajectories.

Resume: rerunning the same command skips finished episodes (infrastructure failures
rerun); LLM calls
are cached in OUT/.cache/calls.sqlite, so an episode cut off (kill, budget) replays its
finished calls for free. A directory made with other --invalid-turns, --max-reasks,
--protocol, --history or -M settings is refused (exit 2).

Budgets: --max-cost USD and --max-tokens N cap the LLM usage of the output directory's
finished episodes of this job list plus this run's calls. When one is reached no episode
starts, episodes in flight stop at their next call (not recorded), the summary covers
what finished, and oracle-eval exits 3 saying so; rerun with a larger cap to go on.

Output: trajectories/*.json (one per episode), summary.json, summary.csv, index.json
(one row per episode: file, status, score, tokens, $), run.json (arguments, config
digest, usage, stopped reason), definition.json (what defines the run). Exit codes: 0 done,
1 error, 2 bad usage, 3 stopped by a budget, {EXIT_FAILURES} episodes failed, 130
interrupted (rerun to resume).

Examples:
  oracle-eval 10@1
  oracle-eval 20@2 --suite suites/eri-easy --agent adaptive --agent random
  oracle-eval 10@1 --feedback deferred --seed 7 --repeats 3 --out runs/deferred
  oracle-eval --suite suites/DFA-states2-9-seed0-n80 --agent ttt --budget-factor 1.5
  oracle-eval 20@2 --agent openai/gpt-5-mini --agent adaptive --repeats 3 \\
      --concurrency 16 --max-cost 5
  oracle-eval 10@1 --agent openai/qwen3 --base-url http://localhost:8000/v1 -M temperature=0
  oracle-eval 20@2 --agent openai/gpt-5-mini --shard 2/4 --out runs/shared
  oracle-eval report runs/shared
"""


def _int_arg(text: str) -> int:
    """An argparse type: an int (argparse names the flag in the one-line error)."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None


def _float_arg(text: str) -> float:
    """An argparse type: a finite number."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return value


def _parser() -> argparse.ArgumentParser:
    from evaluator.agents import agent_names
    from evaluator.dfa_protocol import dfa_agent_names

    p = ArgumentParser(
        prog=PROG,
        description="Evaluate agents on a suite of black boxes with ORACLE's turn@shot protocol "
        "(or, for DFA suites, membership and equivalence queries).",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "spec",
        metavar="SPEC",
        nargs="?",
        help="budget TURNS@SHOTS, e.g. 10@1 or 20@2 (none for a DFA suite)",
    )
    p.add_argument(
        "--suite",
        type=Path,
        metavar="DIR",
        help=f"suite directory (default: the newest under ${SUITES_ENV} or ./suites)",
    )
    p.add_argument(
        "--agent",
        action="append",
        metavar="NAME",
        dest="agents",
        help=f"agent to run, repeatable: {', '.join(agent_names())} "
        f"(default: {', '.join(DEFAULT_AGENTS)}); for DFA suites "
        f"{', '.join(dfa_agent_names())} (default: {', '.join(DEFAULT_DFA_AGENTS)})",
    )
    p.add_argument(
        "--feedback",
        default=None,
        metavar="MODE",
        help=f"{' or '.join(FEEDBACK_MODES)} (default: instant; not for DFA suites)",
    )
    p.add_argument(
        "--budget-factor",
        type=float,
        default=None,
        metavar="F",
        help=f"DFA suites: budget = F x min(L*, TTT) calls (default: {DEFAULT_BUDGET_FACTOR:g})",
    )
    p.add_argument(
        "--buckets",
        default=None,
        metavar="RANGES",
        help="DFA suites: state-count buckets of the summary "
        f"(default: {format_buckets(DEFAULT_BUCKETS)})",
    )
    p.add_argument(
        "--similarity-len",
        type=int,
        default=None,
        metavar="K",
        help="DFA suites: best-hypothesis similarity over words of length <= K (default: 200)",
    )
    p.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        help="output directory (default: runs/<suite>-<tag>/<T>at<K>-<feedback>-seed<N>, "
        "or runs/<suite>-<tag>/dfa-x<F>-seed<N>)",
    )
    p.add_argument("--seed", type=int, default=0, metavar="N", help="run seed (default: 0)")
    p.add_argument(
        "--repeats",
        type=int,
        default=1,
        metavar="R",
        help="repetitions per box and agent (default: 1)",
    )
    llm = p.add_argument_group("LLM agents")
    llm.add_argument(
        "--base-url",
        action="append",
        default=[],
        metavar="[PROVIDER=]URL",
        help="server of every LLM agent, or of one provider (openai=URL, anthropic=URL); "
        "repeatable; any OpenAI-compatible server (vLLM, Ollama, llama.cpp)",
    )
    llm.add_argument(
        "-M",
        "--model-option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        dest="model_options",
        help="model option passed through, repeatable (e.g. -M temperature=0)",
    )
    llm.add_argument(
        "--protocol",
        default=None,
        metavar="P",
        help=f"{' or '.join(PROTOCOLS)}: native tool calls or a text protocol (default: tools)",
    )
    llm.add_argument(
        "--invalid-turns",
        default=None,
        metavar="MODE",
        help="count (default: an unparseable reply costs its turn) or free (turn@shot suites)",
    )
    llm.add_argument(
        "--max-reasks",
        type=_int_arg,
        default=None,
        metavar="N",
        help="re-asks after an unusable reply (default: 2)",
    )
    llm.add_argument(
        "--history",
        default=None,
        metavar="full|N",
        help="context: the full history (default) or the last N exchanges",
    )
    llm.add_argument(
        "--timeout",
        type=_float_arg,
        default=None,
        metavar="S",
        help="seconds per provider call attempt (default: 600)",
    )
    run = p.add_argument_group("concurrency, sharding and budgets")
    run.add_argument(
        "--concurrency",
        type=_int_arg,
        default=1,
        metavar="N",
        help="episodes in flight (default: 1)",
    )
    run.add_argument(
        "--max-per-provider",
        type=_int_arg,
        default=None,
        metavar="N",
        help="LLM calls in flight per provider (default: no bound beyond --concurrency)",
    )
    run.add_argument(
        "--workers",
        type=_int_arg,
        default=None,
        metavar="N",
        help="sandbox workers at most (default: --concurrency)",
    )
    run.add_argument(
        "--shard",
        default=None,
        metavar="i/n",
        help="run only every n-th episode of the job list, starting at the i-th",
    )
    run.add_argument(
        "--max-cost",
        type=_float_arg,
        default=None,
        metavar="USD",
        help="stop cleanly once this many dollars are spent (resumable)",
    )
    run.add_argument(
        "--max-tokens",
        type=_int_arg,
        default=None,
        metavar="N",
        help="stop cleanly once this many tokens are used (resumable)",
    )
    p.add_argument(
        "--allow-failures",
        action="store_true",
        help=f"exit 0 even if episodes failed (default: exit {EXIT_FAILURES})",
    )
    p.add_argument("-v", "--verbose", action="count", default=0, help="more logging (-vv: debug)")
    add_version(p)
    return p


def _latest_suite() -> Path:
    root = suites_root()
    if not root.is_dir():
        raise BoxError("no suite given and the suites folder does not exist (use --suite)", root)
    candidates = [p for p in root.glob("*/suite.json") if p.is_file()]
    if not candidates:
        raise BoxError("no suite given and no suite (*/suite.json) found here", root)
    newest = max(candidates, key=lambda p: (p.stat().st_mtime_ns, str(p)))
    return newest.parent


def _check_any_agent(name: str) -> None:
    """Fail fast (before any suite is read) on a name no family knows."""
    from evaluator.agents import agent_names
    from evaluator.dfa_protocol import dfa_agent_names
    from evaluator.llm_agents import is_llm_agent

    if is_llm_agent(name):
        return  # provider/model: preflighted with the LLM settings
    known = set(agent_names()) | set(dfa_agent_names())
    if name not in known:
        raise UnknownNameError("agent", name, [*sorted(known), "provider/model"])


def _history(text: str | None) -> int | None:
    if text is None or text.strip().lower() == "full":
        return None
    try:
        value = int(text)
    except ValueError:
        raise UsageError(f"invalid --history {text!r}: use full or a number >= 1") from None
    if value < 1:
        raise UsageError(f"invalid --history {text!r}: use full or a number >= 1")
    return value


_LLM_FLAGS = (
    ("base_url", "--base-url"),
    ("model_options", "-M/--model-option"),
    ("protocol", "--protocol"),
    ("history", "--history"),
    ("timeout", "--timeout"),
    ("max_per_provider", "--max-per-provider"),
)


def _llm_settings(args: argparse.Namespace, llm_agents: list[str]) -> LlmAgentSettings | None:
    """The LLM agents' settings from the flags (None without LLM agents), preflighted."""
    from evaluator.llm_agents import LlmAgentSettings, check_llm_agent
    from evaluator.usage import check_priced
    from providers import parse_base_urls, parse_model_options

    if not llm_agents:
        for attr, flag in _LLM_FLAGS:
            if getattr(args, attr):
                raise UsageError(f"{flag} applies to LLM agents only (--agent provider/model)")
        return None
    if args.protocol is not None and args.protocol not in PROTOCOLS:
        raise UsageError(f"invalid --protocol {args.protocol!r}: use {' or '.join(PROTOCOLS)}")
    if args.max_per_provider is not None and args.max_per_provider < 1:
        raise UsageError(f"invalid --max-per-provider {args.max_per_provider}: must be >= 1")
    if args.timeout is not None and not args.timeout > 0:
        raise UsageError(f"invalid --timeout {args.timeout:g}: must be > 0 seconds")
    settings = LlmAgentSettings(
        options=parse_model_options(args.model_options),
        base_urls=parse_base_urls(args.base_url),
        protocol=args.protocol or "tools",
        max_reasks=2 if args.max_reasks is None else args.max_reasks,
        history=_history(args.history),
        timeout=600.0 if args.timeout is None else args.timeout,
        max_per_provider=args.max_per_provider,
    )
    for name in llm_agents:
        check_llm_agent(name, settings)
    if args.max_cost is not None:
        check_priced(llm_agents)
    return settings


def _check_run_flags(args: argparse.Namespace) -> tuple[int, int] | None:
    """Validate the concurrency and budget flags; the parsed --shard."""
    from evaluator.runner import INVALID_TURNS_MODES, parse_shard
    from evaluator.usage import RunBudget

    if args.concurrency < 1:
        raise UsageError(f"invalid --concurrency {args.concurrency}: must be >= 1")
    if args.workers is not None and args.workers < 1:
        raise UsageError(f"invalid --workers {args.workers}: must be >= 1")
    if args.max_reasks is not None and args.max_reasks < 0:
        raise UsageError(f"invalid --max-reasks {args.max_reasks}: must be >= 0")
    if args.invalid_turns is not None and args.invalid_turns not in INVALID_TURNS_MODES:
        raise UsageError(
            f"invalid --invalid-turns {args.invalid_turns!r}: use "
            f"{' or '.join(INVALID_TURNS_MODES)}"
        )
    RunBudget(max_cost=args.max_cost, max_tokens=args.max_tokens)  # validates both caps
    return parse_shard(args.shard) if args.shard is not None else None


def _usage_text(tokens: int, cost: float, priced: str) -> str:
    """``1,234 tok $0.0123``; ``priced`` is ``all``, ``some`` (a lower bound: ``>=$``) or
    ``none`` (``$-``: no LLM agent has a price)."""
    if not tokens:
        return ""
    if priced == "none":
        return f"{tokens:,} tok $-"
    return f"{tokens:,} tok {'>=' if priced == 'some' else ''}${cost:.4f}"


def _priced(agents: Sequence[str]) -> str:
    """Whether the LLM agents among ``agents`` have prices: ``all``, ``some`` or ``none``."""
    from evaluator.llm_agents import is_llm_agent
    from providers import load_pricing

    llm = [a for a in agents if is_llm_agent(a)]
    if not llm:
        return "all"
    pricing = load_pricing()
    found = sum(pricing.lookup(a) is not None for a in llm)
    return "all" if found == len(llm) else "some" if found else "none"


def _run(args: argparse.Namespace, out: Console, err: Console) -> int:
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    from blackboxes.store import load_suite_boxes
    from evaluator._progress import Backoff, LazyProgress
    from evaluator._report_cli import print_summary
    from evaluator._run_folder import default_run_root
    from evaluator.agents import check_agent_name
    from evaluator.dfa_metrics import check_similarity_len
    from evaluator.dfa_protocol import check_budget_factor, check_dfa_agent_name
    from evaluator.dfa_summary import parse_buckets
    from evaluator.failures import failure_summary
    from evaluator.llm_agents import is_llm_agent
    from evaluator.runner import (
        ProgressEvent,
        RetryProgress,
        RunEvent,
        RunResult,
        UsageProgress,
        evaluate_suite,
        is_dfa_suite,
        shard_suffix,
    )
    from oracle_bench.jsonio import sha256_hex

    spec: TurnShot | None = parse_spec(args.spec) if args.spec is not None else None
    feedback: FeedbackMode | None = (
        parse_feedback(args.feedback) if args.feedback is not None else None
    )
    for name in args.agents or ():
        _check_any_agent(name)
    if args.repeats < 1:
        raise UsageError(f"invalid --repeats {args.repeats}: must be >= 1")
    buckets = parse_buckets(args.buckets) if args.buckets is not None else None
    if args.budget_factor is not None:
        check_budget_factor(args.budget_factor)
    if args.similarity_len is not None:
        check_similarity_len(args.similarity_len)
    shard = _check_run_flags(args)
    configure_logging(args.verbose, err)
    llm = _llm_settings(args, [a for a in args.agents or () if is_llm_agent(a)])

    if args.suite is None:
        try:
            suite_dir = _latest_suite()
        except BoxError:
            if spec is None:  # nothing says what to run: the usage error says more
                raise UsageError(
                    "the following arguments are required: SPEC (TURNS@SHOTS; "
                    "only DFA suites take none, and no suite was found)"
                ) from None
            raise
        out.print(f"Evaluating the most recent suite: [bold]{suite_dir}[/]")
    else:
        suite_dir = check_suite_arg(args.suite)
    if args.out is not None:
        require_utf8_path(args.out, "--out")
    suite, _ = load_suite_boxes(suite_dir)  # verify every digest before anything starts
    dfa = is_dfa_suite(suite)
    if dfa:
        if spec is not None:
            raise UsageError(
                f"{suite.name} is a DFA suite: it takes no SPEC (its budget is "
                f"--budget-factor x min(L*, TTT)); drop {args.spec!r}"
            )
        if feedback is not None:
            raise UsageError(f"{suite.name} is a DFA suite: --feedback does not apply")
        if args.invalid_turns is not None:
            raise UsageError(
                f"{suite.name} is a DFA suite: --invalid-turns does not apply "
                "(invalid DFA calls are always free)"
            )
        agents = [
            a if is_llm_agent(a) else check_dfa_agent_name(a)
            for a in (args.agents or DEFAULT_DFA_AGENTS)
        ]
        factor = DEFAULT_BUDGET_FACTOR if args.budget_factor is None else args.budget_factor
        slug = f"dfa-x{factor:g}-seed{args.seed}"
        label = f"x{factor:g}"
    else:
        if spec is None:
            raise UsageError(
                f"the following arguments are required: SPEC (TURNS@SHOTS, e.g. 10@1) "
                f"for {suite.family} suite {suite.name}"
            )
        if args.budget_factor is not None or buckets is not None or args.similarity_len is not None:
            raise UsageError(
                f"--budget-factor, --buckets and --similarity-len apply to DFA suites only; "
                f"{suite.name} is a {suite.family} suite"
            )
        agents = [
            a if is_llm_agent(a) else check_agent_name(a) for a in (args.agents or DEFAULT_AGENTS)
        ]
        feedback = feedback or "instant"
        slug = f"{spec.slug}-{feedback}-seed{args.seed}"
        label = str(spec)
    suite_sha = sha256_hex((Path(suite_dir) / "suite.json").read_bytes())
    out_dir = args.out or default_run_root(suite_dir, suite, suite_sha) / slug
    if shard is not None:
        label += f" shard {shard[0]}/{shard[1]}"
    # Checked before the progress bar starts, so that the error is the only line.
    names = list(args.agents or ())
    twice = sorted({a for a in names if names.count(a) > 1})
    if twice:
        raise UsageError(f"agent listed twice: {', '.join(twice)}")
    if out_dir.exists() and not out_dir.is_dir():
        raise UsageError(f"--out {out_dir} is a file, not a directory")

    backoff = Backoff()
    bar = LazyProgress(
        Progress(
            TextColumn("[progress.description]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[usage]}"),
            TimeElapsedColumn(),
            backoff,
            console=err,
            transient=False,
        ),
        f"{suite.name} {label}",
    )
    priced = _priced(agents)

    def on_progress(event: RunEvent) -> None:
        # Called from episode threads too; Progress.update takes its own lock.
        if isinstance(event, RetryProgress):
            backoff.set(event)
            bar.refresh()
        elif isinstance(event, UsageProgress):
            bar.update(usage=_usage_text(event.tokens, event.cost_usd, priced))
        elif isinstance(event, ProgressEvent):
            job = event.job
            bar.update(
                completed=event.done,
                total=event.total,
                description=f"{suite.name} {label} {job.box_id} {job.agent}",
                usage=_usage_text(event.tokens, event.cost_usd, priced),
            )

    try:
        result: RunResult = evaluate_suite(
            suite_dir,
            agents,
            spec,
            None if dfa else feedback,
            args.seed,
            out_dir,
            repeats=args.repeats,
            progress=on_progress,
            budget_factor=args.budget_factor if dfa else None,
            buckets=buckets if dfa else None,
            similarity_len=args.similarity_len if dfa else None,
            concurrency=args.concurrency,
            workers=args.workers,
            shard=shard,
            llm=llm,
            invalid_turns=args.invalid_turns,
            max_reasks=None if dfa else args.max_reasks,
            max_cost=args.max_cost,
            max_tokens=args.max_tokens,
        )
    finally:
        bar.stop()
    print_summary(out, result.summary)
    m = result.manifest
    failed = failure_summary({f"failed_{k}": v for k, v in m.failures.items()})
    out.print(
        f"{m.episodes} episode(s): {m.executed} run, {m.skipped} already done, "
        f"{m.failed} failed{f' ({failed})' if failed else ''}. Results in [bold]{out_dir}[/] ("
        + ", ".join(f"{stem}{shard_suffix(shard)}.{ext}" for stem, ext in _OUTPUTS)
        + ", trajectories/)",
        soft_wrap=True,
    )
    if m.stopped is not None:
        out.print(
            f"[yellow]Stopped:[/] {m.stopped}; {m.pending} episode(s) not run. "
            "Rerun the same command with a larger --max-cost/--max-tokens to finish."
        )
        return EXIT_STOPPED
    if m.failed and not args.allow_failures:
        retry = (
            " Rerun the same command to retry the infrastructure failures."
            if m.failures.get("infrastructure")
            else ""
        )
        err.print(
            f"{PROG}: {m.failed} episode(s) failed ({failed}); exit code {EXIT_FAILURES} "
            f"(--allow-failures to accept them).{retry}",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
        return EXIT_FAILURES
    return 0


_OUTPUTS = (("summary", "json"), ("summary", "csv"), ("index", "json"), ("run", "json"))


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``oracle-eval``; returns the exit code."""
    tokens = list(sys.argv[1:] if argv is None else argv)
    if tokens[:1] == ["report"]:
        from evaluator._report_cli import report_main

        return report_main(tokens[1:])

    def body() -> int:
        suggest_subcommand(tokens, ("report",))
        check_spec_tokens(tokens)
        args = _parser().parse_args(tokens)  # --help and --version exit here
        from rich.console import Console

        return _run(args, Console(), Console(stderr=True))

    return run_cli(PROG, body, interrupted="interrupted; rerun the same command to resume")


if __name__ == "__main__":
    raise SystemExit(main())
