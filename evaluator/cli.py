"""``oracle-eval``: run agents on a generated suite and report accuracy and information.

Each suite's kind of episode (:mod:`evaluator.kinds`) takes its own settings and agents:
turn@shot suites (ERI...) a ``TURNS@SHOTS`` spec, DFA suites none. A setting or an agent
the suite's kind does not take is refused with a one-line usage error, exit 2.

The only module of the evaluator that prints or configures logging.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evaluator._defaults import EXIT_FAILURES, PROTOCOLS
from evaluator.spec import check_spec_tokens, parse_spec
from oracle_bench.cli import (
    ArgumentParser,
    add_runtime_arguments,
    add_version,
    check_suite_arg,
    configure_logging,
    require_utf8_path,
    run_cli,
    suggest_subcommand,
)
from oracle_bench.errors import UsageError

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

    from evaluator.analysis.compare import TextTable
    from evaluator.api import RunPlan
    from evaluator.llm_agents import LlmAgentSettings
    from evaluator.runner import RunResult
    from oracle_bench._executor import ExecutorChoice

# The evaluator, the agents, the providers and rich are imported where they are used, so
# that --help, --version and a usage error about the arguments come at once; the parser
# imports only the agent registries.

__all__ = ["main"]

PROG = "oracle-eval"
EXIT_STOPPED = 3
"""A budget stopped the run before every episode was done (rerun with a larger cap)."""
SUITES_ENV = "ORACLE_BENCH_SUITES"

_EPILOG_HEAD = f"""\
Each suite's kind of episode takes its own settings (see "settings of a kind of episode"
above; one given to a suite of another kind is refused, exit 2):

{{kinds}}

Without --suite, the most recent suite (newest suite.json) under ./suites is evaluated
(set {SUITES_ENV} to look elsewhere). Results go to runs/<suite name>-<tag>/<settings>
(the tag hashes the suite's folder and suite.json); rerunning the same command resumes,
skipping finished episodes. A folder holding another run (other suite, settings, seed or
episode settings) is refused, exit 2, naming the first difference; a folder another
oracle-eval is writing is refused, exit 2, naming its PID.

Sweeps: a comma list of a kind's budget runs one run per value, each in its own default
run folder (or OUT/<settings> with --out OUT), resumable like a single run, then prints one
table of the score per agent and setting: `oracle-eval 1,2,5,10,20@1` (TURNS before an
@ take its SHOTS; 10@1,20@2 lists specs), `oracle-eval --budget-factor 1,2,4` for DFA
suites. --max-cost/--max-tokens cap each run; the sweep stops at the first run a cap stops.

`oracle-eval compare RUN RUN...` puts runs in one table (--paired: paired comparisons of
their agents on the same boxes); `oracle-eval plan PILOT_RUN` advises boxes x
repetitions for a target interval width or difference. See their --help.

Failed episodes have a cause: agent (scored 0), box (a suite error: the box is left out
for every agent) or infrastructure (left out; the only ones a rerun plays again). Any
failure makes oracle-eval exit {EXIT_FAILURES} unless --allow-failures.

"""
_EPILOG_TAIL = f"""\
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
  oracle-eval 1,2,5,10,20@1 --suite suites/eri-easy --agent adaptive --agent random
  oracle-eval --suite suites/DFA-states2-9-seed0-n80 --budget-factor 1,2,4
  oracle-eval compare runs/eri-easy-1a2b/10at1-instant-seed0 runs/eri-easy-1a2b/10at1-deferred-seed0
  oracle-eval plan runs/eri-easy-1a2b/10at1-instant-seed0 --ci-width 0.1
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


def _epilog() -> str:
    from evaluator._kind_cli import kind_help

    return _EPILOG_HEAD.replace("{kinds}", kind_help()) + _EPILOG_TAIL


def _agent_help() -> str:
    from evaluator.kinds import all_kinds

    return "; ".join(
        f"{k.title} suites: {', '.join(k.agent_names())} (default: {', '.join(k.default_agents)})"
        for k in all_kinds()
    )


def _parser() -> argparse.ArgumentParser:
    from evaluator._kind_cli import add_kind_arguments

    p = ArgumentParser(
        prog=PROG,
        description="Evaluate agents on a suite of black boxes with the protocol of its kind "
        "of episode (ORACLE's turn@shot, or membership and equivalence queries for DFA suites).",
        epilog=_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--suite",
        type=Path,
        metavar="DIR",
        help=f"suite directory (default: the newest under ${SUITES_ENV} or ./suites)",
    )
    p.add_argument(
        "--env",
        metavar="URL",
        help="evaluate the suite served at URL (oracle-serve, a published image) instead of "
        "a folder: the protocol runs there, the agents here; same records, with the expected "
        "answers, secrets and targets withheld",
    )
    p.add_argument(
        "--token-file",
        type=Path,
        metavar="F",
        help="bearer token of the served suite (with --env)",
    )
    p.add_argument(
        "--agent",
        action="append",
        metavar="NAME",
        dest="agents",
        help=f"agent to run, repeatable, or provider/model for an LLM; {_agent_help()}",
    )
    p.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        help="output directory (default: runs/<suite>-<tag>/<settings>, e.g. "
        "10at1-instant-seed0 or dfa-x2-seed0)",
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
    run.add_argument(
        "--executor",
        default="local",
        metavar="NAME",
        help="where episodes run: local (threads of this process, default) or ray (Ray "
        "tasks on a cluster, pip install 'oracle-bench[ray]'); the results are the same",
    )
    run.add_argument(
        "--ray-address",
        default=None,
        metavar="ADDR",
        help="with --executor ray: local (start Ray on this machine, default), auto or "
        "HOST:PORT (join a running cluster)",
    )
    box = p.add_argument_group("sandbox")
    add_runtime_arguments(box)
    p.add_argument(
        "--counterfactual",
        action="store_true",
        help="after the run, replay every episode against a twin of its box (another key "
        "of the same rule kind) and with another agent seed, into RUN/counterfactual/, "
        "and print the exploration tiers (resumable like the run)",
    )
    p.add_argument(
        "--allow-failures",
        action="store_true",
        help=f"exit 0 even if episodes failed (default: exit {EXIT_FAILURES})",
    )
    p.add_argument("-v", "--verbose", action="count", default=0, help="more logging (-vv: debug)")
    add_kind_arguments(p, "eval", sweeps=True)
    add_version(p)
    return p


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
    from evaluator.runner import parse_shard
    from evaluator.usage import RunBudget

    if args.concurrency < 1:
        raise UsageError(f"invalid --concurrency {args.concurrency}: must be >= 1")
    if args.workers is not None and args.workers < 1:
        raise UsageError(f"invalid --workers {args.workers}: must be >= 1")
    if args.max_reasks is not None and args.max_reasks < 0:
        raise UsageError(f"invalid --max-reasks {args.max_reasks}: must be >= 0")
    RunBudget(max_cost=args.max_cost, max_tokens=args.max_tokens)  # validates both caps
    return parse_shard(args.shard) if args.shard is not None else None


def _executor_choice(args: argparse.Namespace) -> ExecutorChoice:
    """The --executor and its options, checked before any work (an unknown name, Ray
    not installed: one line)."""
    from evaluator.executors import make_executor
    from oracle_bench._executor import ExecutorChoice

    options = {}
    if args.ray_address is not None:
        if args.executor != "ray":
            raise UsageError("--ray-address applies to --executor ray only")
        options["address"] = args.ray_address
    make_executor(args.executor, options)
    return ExecutorChoice(args.executor, options)


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


def _progress(err: Console, suite: str, label: str, agents: Sequence[str]) -> tuple[Any, Any]:
    """A run's progress bar (appearing with its first event) and the runner's callback."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    from evaluator._progress import Backoff, LazyProgress
    from evaluator.runner import ProgressEvent, RetryProgress, RunEvent, UsageProgress

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
        f"{suite} {label}",
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
                description=f"{suite} {label} {job.box_id} {job.agent}",
                usage=_usage_text(event.tokens, event.cost_usd, priced),
            )

    return bar, on_progress


def _run(args: argparse.Namespace, out: Console, err: Console) -> int:
    from evaluator._kind_cli import given_options
    from evaluator.api import check_agent, plan_sweep
    from evaluator.llm_agents import is_llm_agent

    given = given_options(args, "eval")
    given["max_reasks"] = args.max_reasks
    if given.get("spec") is not None:
        # A bad spec fails before the suite is read; a list of them is a sweep.
        given["spec"] = tuple(parse_spec(text) for text in given["spec"])
    for name in args.agents or ():
        check_agent(name)
    if args.repeats < 1:
        raise UsageError(f"invalid --repeats {args.repeats}: must be >= 1")
    shard = _check_run_flags(args)
    executor = _executor_choice(args)
    configure_logging(args.verbose, err)
    llm = _llm_settings(args, [a for a in args.agents or () if is_llm_agent(a)])
    suite_arg = None if args.suite is None else check_suite_arg(args.suite)
    env_token = None
    if args.env is not None:
        from evaluator.serve.cli import read_token

        if args.suite is not None:
            raise UsageError("give --suite or --env, not both")
        if args.counterfactual:
            raise UsageError("--counterfactual needs the suite's owner files: not with --env")
        env_token = read_token(args.token_file)
    elif args.token_file is not None:
        raise UsageError("--token-file goes with --env")
    if args.out is not None:
        require_utf8_path(args.out, "--out")
    plans = plan_sweep(
        suite_arg,
        args.agents,
        seed=args.seed,
        out=args.out,
        repeats=args.repeats,
        shard=shard,
        llm=llm,
        env=args.env,
        env_token=env_token,
        **given,
    )
    from sandbox.docker.runtime import runtime_limits

    # None for the process runtime: exactly the limits (and records) of before --runtime.
    args.sandbox_limits = runtime_limits(args.runtime, args.base_image)
    if args.env is not None:
        out.print(f"Evaluating the suite served at [bold]{plans[0].env}[/]")
    elif args.suite is None:
        out.print(f"Evaluating the most recent suite: [bold]{plans[0].suite_dir}[/]")
    if len(plans) > 1:
        if args.counterfactual:
            raise UsageError("--counterfactual takes one run, not a sweep")
        return _run_sweep(args, plans, executor, out, err)
    code = _run_one(args, plans[0], executor, out, err)
    if args.counterfactual and code in (0, EXIT_FAILURES):
        code = max(code, _run_counterfactual(args, plans[0], executor, out, err))
    return code


def _run_counterfactual(
    args: argparse.Namespace, plan: RunPlan, executor: ExecutorChoice, out: Console, err: Console
) -> int:
    """The twin and reseeded replays of ``plan``, then the tiers."""
    from evaluator._tiers_cli import print_tiers, tiers_of_run_dir
    from evaluator.counterfactual import counterfactual_plan, reseeded_plan

    failed = 0
    for what, companion in (
        ("twins", counterfactual_plan(plan)),
        ("reseeded", reseeded_plan(plan)),
    ):
        label = f"{plan.label} counterfactual ({what})"
        result = _evaluate_with_bar(args, companion, label, executor, err)
        m = result.manifest
        failed += m.failed
        out.print(
            f"Counterfactual ({what}): {m.episodes} episode(s), {m.executed} run, "
            f"{m.skipped} already done, {m.failed} failed. In [bold]{companion.out_dir}[/]",
            soft_wrap=True,
        )
        if m.stopped is not None:
            out.print(f"[yellow]Stopped:[/] {m.stopped}; rerun the same command to finish.")
            return EXIT_STOPPED
    print_tiers(out, tiers_of_run_dir(plan.out_dir))
    return _failures_exit(args, failed, {}, err) if failed else 0


def _evaluate_with_bar(
    args: argparse.Namespace, plan: RunPlan, label: str, executor: ExecutorChoice, err: Console
) -> RunResult:
    """``plan`` evaluated with the command line's run flags, behind a progress bar."""
    from evaluator.api import evaluate

    bar, on_progress = _progress(err, plan.suite.name, label, plan.agents)
    try:
        return evaluate(
            plan,
            progress=on_progress,
            concurrency=args.concurrency,
            workers=args.workers,
            max_cost=args.max_cost,
            max_tokens=args.max_tokens,
            limits=args.sandbox_limits,
            executor=executor.name,
            executor_options=executor.options,
        )
    finally:
        bar.stop()


def _run_one(
    args: argparse.Namespace, plan: RunPlan, executor: ExecutorChoice, out: Console, err: Console
) -> int:
    from evaluator._report_cli import print_summary
    from evaluator.failures import failure_summary
    from evaluator.runner import shard_suffix

    result: RunResult = _evaluate_with_bar(args, plan, plan.label, executor, err)
    print_summary(out, plan.kind, result.summary)
    m = result.manifest
    failed = failure_summary({f"failed_{k}": v for k, v in m.failures.items()})
    out.print(
        f"{m.episodes} episode(s): {m.executed} run, {m.skipped} already done, "
        f"{m.failed} failed{f' ({failed})' if failed else ''}. Results in [bold]{plan.out_dir}[/] ("
        + ", ".join(f"{stem}{shard_suffix(plan.shard)}.{ext}" for stem, ext in _OUTPUTS)
        + ", trajectories/)",
        soft_wrap=True,
    )
    if m.stopped is not None:
        out.print(
            f"[yellow]Stopped:[/] {m.stopped}; {m.pending} episode(s) not run. "
            "Rerun the same command with a larger --max-cost/--max-tokens to finish."
        )
        return EXIT_STOPPED
    return _failures_exit(args, m.failed, m.failures, err)


def _failures_exit(
    args: argparse.Namespace, count: int, failures: Mapping[str, int], err: Console
) -> int:
    """The exit code of failed episodes (0 without any, or with --allow-failures)."""
    from evaluator.failures import failure_summary

    if not count or args.allow_failures:
        return 0
    failed = failure_summary({f"failed_{k}": v for k, v in failures.items()})
    retry = (
        " Rerun the same command to retry the infrastructure failures."
        if failures.get("infrastructure")
        else ""
    )
    err.print(
        f"{PROG}: {count} episode(s) failed ({failed}); exit code {EXIT_FAILURES} "
        f"(--allow-failures to accept them).{retry}",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )
    return EXIT_FAILURES


def _run_sweep(
    args: argparse.Namespace,
    plans: Sequence[RunPlan],
    executor: ExecutorChoice,
    out: Console,
    err: Console,
) -> int:
    """One run per value of the sweep, each with its bar, then one table of them all."""
    from evaluator.analysis.compare import load_run_scores, score_rows, sweep_table
    from evaluator.api import sweep
    from evaluator.failures import failure_summary
    from evaluator.runner import RunEvent

    out.print(
        f"Sweep of {len(plans)} runs on {plans[0].suite.name}: "
        + ", ".join(p.label for p in plans),
        highlight=False,
        soft_wrap=True,
    )
    bars: dict[Path, tuple[Any, Any]] = {}

    def bar_of(plan: RunPlan) -> tuple[Any, Any]:
        if plan.out_dir not in bars:
            bars[plan.out_dir] = _progress(err, plan.suite.name, plan.label, plan.agents)
        return bars[plan.out_dir]

    def on_progress(plan: RunPlan, event: RunEvent) -> None:
        bar_of(plan)[1](event)

    lines: list[str] = []

    def on_run(plan: RunPlan, result: RunResult) -> None:
        bar_of(plan)[0].stop()
        m = result.manifest
        failed = failure_summary({f"failed_{k}": v for k, v in m.failures.items()})
        lines.append(
            f"{plan.label}: {m.episodes} episode(s), {m.executed} run, {m.skipped} already "
            f"done, {m.failed} failed{f' ({failed})' if failed else ''}: {plan.out_dir}"
        )

    try:
        done = sweep(
            plans,
            progress=on_progress,
            on_run=on_run,
            concurrency=args.concurrency,
            workers=args.workers,
            max_cost=args.max_cost,
            max_tokens=args.max_tokens,
            limits=args.sandbox_limits,
            executor=executor.name,
            executor_options=executor.options,
        )
    finally:
        for bar, _ in bars.values():
            bar.stop()
    played = [p for p, r in zip(plans, done.results, strict=False) if r.trajectories]
    if played:
        runs = [load_run_scores(p.out_dir, p.label) for p in played]
        out.print(_rich_table(sweep_table(runs, score_rows(runs))))
    for line in lines:
        out.print(line, highlight=False, markup=False, soft_wrap=True)
    last = done.results[-1] if done.results else None
    if done.stopped and last is not None and last.manifest.stopped is not None:
        rest = len(plans) - len(done.results)
        out.print(
            f"[yellow]Stopped:[/] {last.manifest.stopped}; {last.manifest.pending} episode(s) "
            f"of {plans[len(done.results) - 1].label} not run"
            + (f", {rest} run(s) of the sweep not started" if rest else "")
            + ". Rerun the same command with a larger --max-cost/--max-tokens to finish."
        )
        return EXIT_STOPPED
    failures: dict[str, int] = {}
    for r in done.results:
        for cause, n in r.manifest.failures.items():
            failures[cause] = failures.get(cause, 0) + n
    return _failures_exit(args, sum(r.manifest.failed for r in done.results), failures, err)


def _rich_table(table: TextTable) -> Table:
    """A :class:`~evaluator.analysis.compare.TextTable` for the terminal."""
    from evaluator.reporting import new_table

    rich = new_table(table.title)
    for column in table.columns:
        numeric = column in table.numeric
        rich.add_column(
            column, justify="right" if numeric else "left", no_wrap=numeric, overflow="fold"
        )
    for row in table.rows:
        rich.add_row(
            *(
                "" if v is None else table.text.get(c, str)(v)
                for c, v in zip(table.columns, row, strict=True)
            )
        )
    return rich


_OUTPUTS = (("summary", "json"), ("summary", "csv"), ("index", "json"), ("run", "json"))


SUBCOMMANDS = ("compare", "plan", "report")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``oracle-eval``; returns the exit code."""
    tokens = list(sys.argv[1:] if argv is None else argv)
    if tokens[:1] == ["report"]:
        from evaluator._report_cli import report_main

        return report_main(tokens[1:])
    if tokens[:1] == ["compare"]:
        from evaluator._compare_cli import compare_main

        return compare_main(tokens[1:])
    if tokens[:1] == ["plan"]:
        from evaluator._plan_cli import plan_main

        return plan_main(tokens[1:])

    def body() -> int:
        suggest_subcommand(tokens, SUBCOMMANDS)
        check_spec_tokens(tokens)
        args = _parser().parse_args(tokens)  # --help and --version exit here
        from rich.console import Console

        return _run(args, Console(), Console(stderr=True))

    return run_cli(PROG, body, interrupted="interrupted; rerun the same command to resume")


if __name__ == "__main__":
    raise SystemExit(main())
