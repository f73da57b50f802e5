"""``oracle-gen``: synthesise verified black boxes into a suite."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from blackboxes.families import LEVELS, family_names
from generator._designs import DESIGNS
from generator.backends import backend_names
from oracle_bench.cli import ArgumentParser, add_runtime_arguments, add_version, configure_logging
from oracle_bench.errors import OracleBenchError, UnknownNameError, UsageError

if TYPE_CHECKING:
    from rich.console import Console

    from generator.suite import GenerateConfig, GenerateResult, LlmModels, SuiteFolder
    from providers import RetryEvent

# Only what the parser needs is imported above, so that --help and a usage error come at
# once; the generator (langgraph, the LLM SDKs, rich) is imported once arguments parse.

__all__ = ["build_parser", "main"]

_EPILOG = """\
examples:
  oracle-gen --category CRI --level hard             20 hard circuit boxes into ./suites/
  oracle-gen --category CRI --level easy --output-mode gates   every gate answers (ORACLE)
  oracle-gen --category ERI --level hard             20 hard cipher boxes into ./suites/
  oracle-gen --category PSI --level hard             20 hard physics boxes into ./suites/
  oracle-gen --category PSI --level hard --answers code   answers are solution(t) programs
  oracle-gen --category ERI --level easy -n 30 --seed 7 --out my-suite
  oracle-gen --category ERI --level hard --query-length 16   longer queries: fewer turns needed
  oracle-gen --category DFA --states 4-5 -n 20        20 minimal DFAs with 4 or 5 states
  oracle-gen --category DFA --level hard             DFAs with 6 to 9 states
  oracle-gen --category ERI --level easy -n 2 --backend llm \
      --coder openai/gpt-5.4-mini --refiner anthropic/claude-sonnet-4-6 -M temperature=0

Every box is verified before it is written: its code runs in the sandbox and must
match the trusted reference rule on at least 200 inputs.

Without --seed a suite gets a secret random seed: it lives in <suite>/owner.json only
(with hidden.json, facts.json and provenance.json: the owner's files) and suite.json
records a commitment to it, so nothing an agent may see (suite.json, box.json) lets it
rebuild a key. --seed N makes a public suite: the same arguments give a byte-identical
suite, and anyone can regenerate it. Set ORACLE_BENCH_SUITES to change the default folder.
An interrupted run (Ctrl-C, a crash, even kill -9) finishes when the same command
is run again: written boxes, graph checkpoints and completed LLM calls are kept, and
a complete suite is left as it is. A folder holding a suite made with other arguments
is refused (exit 2) unless --overwrite replaces it.
"""


def build_parser() -> ArgumentParser:
    parser = ArgumentParser(
        prog="oracle-gen",
        description="Generate a suite of verified black boxes for one category and level.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    available = ", ".join(family_names())
    parser.add_argument(
        "--category", required=True, metavar="CAT", help=f"family code (available: {available})"
    )
    parser.add_argument(
        "--level",
        choices=LEVELS,
        default=None,
        help="difficulty level (required, except for DFA with --states)",
    )
    parser.add_argument(
        "-n", type=int, default=20, metavar="N", help="boxes to generate (default 20)"
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=None,
        metavar="N",
        help="a public suite seed: anyone can regenerate the suite (and its keys) from it "
        "(default: a secret random seed, kept in <suite>/owner.json only)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        metavar="DIR",
        help="suite folder (default: <suites>/<CAT>-<level>-n<N>, "
        "or <CAT>-<level>-seed<S>-n<N> with --seed)",
    )
    parser.add_argument(
        "--overwrite",
        action="store_true",
        help="replace what --out holds if it is not this command's suite (a suite made "
        "with other arguments, a damaged one, other files); without it that is refused",
    )
    parser.add_argument(
        "--backend",
        default="procedural",
        choices=backend_names(),
        help="who writes the code (default: procedural, offline)",
    )
    parser.add_argument(
        "--max-attempts",
        type=int,
        default=3,
        metavar="K",
        help="coder/tester/refiner rounds per box before rejecting it (default 3)",
    )
    dfa = parser.add_argument_group("DFA options")
    dfa.add_argument(
        "--states",
        type=_state_range,
        default=None,
        metavar="A-B",
        help="target state counts, cycled in order (default: easy 2-5, hard 6-9)",
    )
    dfa.add_argument(
        "--counterexamples",
        choices=("short_random", "minimal"),
        default=None,
        help="equivalence-query counterexamples: a hash-seeded pick among the shortest "
        "lengths kmin..kmin+3 (short_random, default) or the shortest word (minimal)",
    )
    dfa.add_argument(
        "--alphabet-size",
        type=int,
        default=None,
        metavar="K",
        help="letters a, b, ... (default 2)",
    )
    cri = parser.add_argument_group("CRI options")
    cri.add_argument(
        "--output-mode",
        choices=("outputs", "gates"),
        default=None,
        help="what a query answers: the circuit's output bits (default: a true black box) "
        "or every gate's value in order (ORACLE's mode: the wiring shows)",
    )
    psi = parser.add_argument_group("PSI options")
    psi.add_argument(
        "--answers",
        choices=("values", "code"),
        default=None,
        help="how agents answer: every object's coordinates per held-out time (default), or "
        "one program solution(t) run in the sandbox at every held-out time (ORACLE's "
        "simulation boxes)",
    )
    eri = parser.add_argument_group("ERI options")
    eri.add_argument(
        "--query-length",
        type=int,
        default=None,
        metavar="N",
        help="longest plaintext an agent may query and the longest held-out item, 8-32 "
        "characters (default: easy 32, hard 8); shorter queries carry fewer bits, so "
        "T_info grows",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=1,
        metavar="N",
        help="candidates generated at once (default 1; the suite is the same for any N)",
    )
    parser.add_argument(
        "--executor",
        default="local",
        metavar="NAME",
        help="where candidates run: local (threads, default) or ray (Ray tasks, procedural "
        "backend; pip install 'oracle-bench[ray]'); the suite is the same",
    )
    parser.add_argument(
        "--ray-address",
        default=None,
        metavar="ADDR",
        help="with --executor ray: local (start Ray here, default), auto or HOST:PORT",
    )
    box = parser.add_argument_group("sandbox")
    add_runtime_arguments(box, "candidate code under test")
    llm = parser.add_argument_group("LLM backend (--backend llm)")
    llm.add_argument(
        "--coder",
        metavar="MODEL",
        help="writes the code: openai/<model>, anthropic/<model>, scripted/<file.jsonl>",
    )
    llm.add_argument("--refiner", metavar="MODEL", help="judges the code (structured verdict)")
    llm.add_argument(
        "--tester", metavar="MODEL", help="optional test player: plays a short episode of the box"
    )
    llm.add_argument(
        "--design",
        choices=DESIGNS,
        default=None,
        help="reference (default): implement a sampled rule with a trusted reference; "
        "llm: the coder's model invents a rule (no reference, T_info unknown)",
    )
    llm.add_argument(
        "--base-url",
        action="append",
        default=[],
        metavar="[PROVIDER=]URL",
        help="server of every provider, or of one (openai=URL, anthropic=URL); "
        "repeatable; default: OPENAI_BASE_URL / ANTHROPIC_BASE_URL or the vendor's API",
    )
    llm.add_argument(
        "-M",
        "--model-option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="model option sent with every call, e.g. -M temperature=0 -M max_tokens=4096 "
        "-M reasoning_effort=medium -M thinking_budget=2048 (repeatable)",
    )
    llm.add_argument(
        "--max-per-provider",
        type=int,
        default=None,
        metavar="N",
        help="LLM calls in flight at once per provider (default 4)",
    )
    llm.add_argument(
        "--timeout",
        type=float,
        default=None,
        metavar="S",
        help="seconds per attempt of an LLM call; a retry gets as long again (default 600)",
    )
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more logging")
    add_version(parser)
    return parser


def _llm_models(args: argparse.Namespace) -> LlmModels | None:
    given = [
        flag
        for flag, value in (
            ("--coder", args.coder),
            ("--refiner", args.refiner),
            ("--tester", args.tester),
            ("--design", args.design),
            ("--base-url", args.base_url),
            ("-M", args.model_option),
            ("--max-per-provider", args.max_per_provider),
            ("--timeout", args.timeout),
        )
        if value is not None and value != []
    ]
    if args.backend != "llm":
        if given:
            raise UsageError(f"{', '.join(given)} need --backend llm")
        return None
    missing = [f for f, v in (("--coder", args.coder), ("--refiner", args.refiner)) if not v]
    if missing:
        raise UsageError(f"--backend llm needs {' and '.join(missing)} MODEL")
    from generator.suite import LlmModels
    from providers import parse_base_urls, parse_model_options

    options: dict[str, Any] = parse_model_options(args.model_option)
    return LlmModels(
        coder=args.coder,
        refiner=args.refiner,
        tester=args.tester,
        design=args.design or "reference",
        options=options,
        base_urls=parse_base_urls(args.base_url),
        max_per_provider=4 if args.max_per_provider is None else args.max_per_provider,
        timeout=600.0 if args.timeout is None else args.timeout,
    )


def _state_range(text: str) -> tuple[int, int]:
    lo, sep, hi = text.partition("-")
    try:
        return (int(lo), int(hi if sep else lo))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected A-B or A, got {text!r}") from None


def _config(args: argparse.Namespace) -> GenerateConfig:
    from generator.api import generation_config

    return generation_config(
        args.category,
        args.level,
        n=args.n,
        seed=args.seed,
        out=args.out,
        backend=args.backend,
        max_attempts=args.max_attempts,
        states=args.states,
        counterexamples=args.counterexamples,
        alphabet_size=args.alphabet_size,
        query_length=args.query_length,
        output_mode=args.output_mode,
        answers=args.answers,
        llm=_llm_models(args),
        jobs=args.jobs,
        overwrite=args.overwrite,
    )


def _usage_error(exc: UsageError) -> str:
    if isinstance(exc, UnknownNameError) and exc.what == "category":
        return (
            f"oracle-gen: error: category {exc.name!r} does not exist yet; "
            f"available: {', '.join(exc.available)}"
        )
    return f"oracle-gen: error: {exc}"


def _summary(result: GenerateResult) -> str:
    if result.unchanged:
        return (
            f"kept {len(result.accepted)} boxes in {result.path}: the suite was complete "
            "already, nothing was written"
        )
    notes = []
    if result.skipped:
        notes.append(f"kept {len(result.skipped)} from an earlier run")
    if result.rejected:
        notes.append(f"{len(result.rejected)} rejected")
    if result.failed:
        notes.append(f"{len(result.failed)} of them failed on provider errors")
    return (
        f"wrote {len(result.accepted)} verified boxes to {result.path}"
        + (f" ({'; '.join(notes)})" if notes else "")
        + _seed_note(result.path)
    )


def _seed_note(path: Path) -> str:
    """Whether the suite's seed is public (regenerable) or secret."""
    from blackboxes.store import load_suite

    try:
        seed = load_suite(path).seed
    except OracleBenchError:
        return ""
    if seed is None:
        return "; secret seed (in owner.json; suite.json holds a commitment)"
    return f"; public seed {seed}: anyone can regenerate these boxes"


def _error_console() -> Console:
    from rich.console import Console

    return Console(stderr=True, highlight=False, soft_wrap=True)


def main(argv: list[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)  # --help exits here, before rich is imported
        config = _config(args)
        if args.ray_address is not None and args.executor != "ray":
            raise UsageError("--ray-address applies to --executor ray only")
        from sandbox.docker.runtime import runtime_limits

        # None for the process runtime: the generator's default limits, as before.
        limits = runtime_limits(args.runtime, args.base_image)
    except UsageError as exc:
        _error_console().print(_usage_error(exc), markup=False)
        return 2
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TaskID,
        TextColumn,
        TimeElapsedColumn,
    )

    from generator.api import generate

    console = Console(stderr=True)
    err = _error_console()
    configure_logging(args.verbose, console)
    if args.verbose <= 0:
        # The progress bar and one line per wait (below) already show the retries.
        logging.getLogger("providers.retry").setLevel(logging.ERROR)
    bar = Progress(
        TextColumn("[bold]generating[/] {task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=False,
    )
    tasks: list[TaskID] = []

    def on_start(folder: SuiteFolder) -> None:
        # Only once the folder, its lock and the models have been checked: a refusal is
        # one line on stderr, with no progress bar around it.
        bar.start()
        tasks.append(
            bar.add_task(
                f"{config.category.upper()} {config.label()}",
                total=config.n,
                completed=len(folder.boxes),
            )
        )

    def progress(done: int, total: int, box_id: str, status: str) -> None:
        bar.update(tasks[0], completed=done, description=f"{box_id} {status}")

    def on_retry(event: RetryEvent) -> None:
        wait = f"{event.provider}: {event.reason}; retry {event.attempt} in {event.wait_s:.3g}s"
        if tasks:
            bar.update(tasks[0], description=f"waiting ({wait})")
        bar.console.print(f"oracle-gen: {wait}", markup=False, highlight=False, soft_wrap=True)

    try:
        try:
            result = generate(
                config,
                progress=progress,
                on_retry=on_retry,
                on_start=on_start,
                limits=limits,
                executor=args.executor,
                executor_options={} if args.ray_address is None else {"address": args.ray_address},
            )
        finally:
            if tasks:
                bar.stop()
    except UsageError as exc:  # the folder, its lock, the preflight: before any work
        err.print(_usage_error(exc), markup=False)
        return 2
    except OracleBenchError as exc:
        err.print(f"oracle-gen: error: {exc}", markup=False)
        return 1
    except KeyboardInterrupt:
        err.print("oracle-gen: interrupted; run the same command again to finish", markup=False)
        return 130
    except OSError as exc:
        err.print(f"oracle-gen: error: {exc}", markup=False)
        return 1
    except Exception as exc:  # a bug: still one line, never a traceback (-vv logs it)
        logging.getLogger(__name__).debug("internal error", exc_info=True)
        err.print(f"oracle-gen: internal error: {type(exc).__name__}: {exc}", markup=False)
        return 1
    Console(highlight=False, soft_wrap=True).print(_summary(result), markup=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
