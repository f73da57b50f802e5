"""``oracle-play``: a person plays one box in the terminal (human baselines).

The person is an agent like any other: each kind of episode has a human agent
(``evaluator.kinds.<kind>.human``) that plays its protocol, so an episode runs through
the same protocol as oracle-eval's with the box's code in a sandbox worker, and the
trajectory is the same file oracle-eval writes (agent ``human:<name>``). The person sees
what an LLM agent sees: the intro, the banners, the box's answers and right/wrong
feedback; never hidden.json, the rule kind or an expected output.

Input lines that start with ``:`` are commands and cost nothing (``:help``, ``:history``,
``:intro``, ``:quit``); an empty line is ignored. Everything else is the reply. DFA
episodes also take ``? WORD`` (membership; ``?`` alone asks about the empty word),
``eq {...}`` / ``eq @file.json`` (equivalence) and a raw JSON tool call. A person's input
is held to the same limits as a model's (:mod:`oracle_bench.bounded`): JSON is read with
bounds, a file with at most :data:`~oracle_bench.bounded.MAX_TEXT_CHARS` characters, and
the episode refuses anything over them as an invalid turn or call, with the reason.

``:quit`` or end of input ends the episode early: it is recorded as failed with error
:data:`QUIT_ERROR` (the turns played so far are kept, no accuracy is given), so a
person's abandoned boxes stay visible in a human baseline. Ctrl-C at any point aborts
and records nothing.

All terminal I/O goes through :class:`PlayIO`, so tests drive a whole episode with
scripted lines; only :func:`main` prints to the real terminal.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console

from evaluator.human import QUIT_ERROR, PlayerQuit, PlayIO
from evaluator.spec import TurnShot, check_spec_tokens, parse_spec
from oracle_bench.cli import (
    ArgumentParser,
    add_runtime_arguments,
    add_version,
    check_suite_arg,
    configure_logging,
    require_utf8_path,
    run_cli,
)
from oracle_bench.errors import UsageError

if TYPE_CHECKING:
    from blackboxes.box import BoxInfo, SuiteInfo
    from blackboxes.store import Box
    from sandbox import SandboxLimits

# The suite, the protocols and the sandbox are imported where they are used, so that
# --help and a usage error about the arguments come at once.

__all__ = [
    "AGENT_PREFIX",
    "QUIT_ERROR",
    "PlayIO",
    "PlayResult",
    "PlayerQuit",
    "check_player_name",
    "default_player_name",
    "list_boxes",
    "main",
    "play_box",
]

log = logging.getLogger(__name__)

PROG = "oracle-play"
AGENT_PREFIX = "human:"

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


# -- the episode -----------------------------------------------------------------------


@dataclass(frozen=True)
class PlayResult:
    """A finished (or abandoned) episode and where its trajectory was written."""

    path: Path
    trajectory: Any
    """The kind's trajectory record."""
    quit: bool = False
    """The player ended it with ``:quit`` or end of input (``error`` is :data:`QUIT_ERROR`)."""
    outcome: str = ""
    """One line for the player about a completed episode (the kind's)."""


def check_player_name(name: str) -> str:
    """``name`` if it is a safe file-name part (letters, digits, ``._-``), else UsageError."""
    if not _NAME.match(name):
        raise UsageError(
            f"invalid --name {name!r}: use 1-64 letters, digits, '.', '_' or '-', "
            "starting with a letter or digit"
        )
    return name


def default_player_name() -> str:
    """``$USER`` made file-name safe, or ``human``."""
    user = _UNSAFE.sub("-", os.environ.get("USER", "")).strip("-._")[:64]
    return user if user and _NAME.match(user) else "human"


def _find_entry(suite_dir: Path, suite: SuiteInfo, box_id: str) -> Box:
    from blackboxes.store import load_box

    for entry in suite.boxes:
        if entry.id == box_id:
            return load_box(suite_dir, entry)
    raise UsageError(
        f"unknown box {box_id!r} in suite {suite.name}; "
        f"run '{PROG} --suite {suite_dir}' to list its boxes"
    )


def _reservation(path: Path) -> Path:
    return path.with_name(f".{path.name}.playing")


def _next_repetition(out_dir: Path, box_id: str, agent: str) -> tuple[Path, int]:
    """The path and number of the first repetition not taken yet (a person may replay),
    reserved with an exclusive marker file so two sessions never write the same file.
    The folder is created here, before anything is played: a bad ``--out`` fails now."""
    from evaluator.runner import EpisodeJob, trajectory_path

    (out_dir / "trajectories").mkdir(parents=True, exist_ok=True)
    k = 0
    while True:
        path = trajectory_path(out_dir, EpisodeJob(box_id, agent, k))
        if not path.exists():
            try:
                os.close(os.open(_reservation(path), os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            except FileExistsError:
                pass  # another session plays this repetition now
            else:
                return path, k
        k += 1


def play_box(
    suite_dir: Path,
    box_id: str,
    io: PlayIO,
    *,
    spec: TurnShot | str | None = None,
    feedback: str | None = None,
    name: str = "human",
    seed: int = 0,
    out_dir: Path | None = None,
    budget_factor: float | None = None,
    options: Mapping[str, Any] | None = None,
    limits: SandboxLimits | None = None,
) -> PlayResult:
    """Let a person play ``box_id`` of a suite and write the trajectory.

    The suite's kind of episode takes its own settings, as in ``evaluate_suite``:
    turn@shot suites need ``spec`` (``feedback`` defaults to instant); DFA suites refuse
    both and take ``budget_factor`` (default 2); other settings by name in ``options``.
    The default ``out_dir`` is ``runs/<suite>-<tag>/play-<settings>-<name>``
    (``play-10at1-instant-alice``, ``play-dfa-x2-alice``); the file is
    ``trajectories/<box>__human-<name>__r<k>.json`` with the first free ``k``. ``limits``
    are the box worker's (default ``SandboxLimits()``; ``runtime="docker"``: a container).
    Raises :class:`UsageError` for bad arguments, ``BoxError`` for a bad suite and
    ``SandboxError`` if the box's worker cannot start (then nothing is written).
    """
    from blackboxes.store import load_suite
    from evaluator._run_folder import default_run_root
    from evaluator.kinds import HumanPlay, check_options, kind_for_suite, suite_subject
    from oracle_bench.jsonio import sha256_hex

    name = check_player_name(name)
    agent_name = f"{AGENT_PREFIX}{name}"
    suite_dir = Path(suite_dir)
    suite = load_suite(suite_dir)
    kind = kind_for_suite(suite)
    given = {"spec": spec, "feedback": feedback, "budget_factor": budget_factor, **(options or {})}
    mine = check_options(kind, given, subject=suite_subject(kind, suite.family, suite.name))
    settings = kind.configure(suite, mine, "play")
    box = _find_entry(suite_dir, suite, box_id)
    if out_dir is None:
        suite_sha = sha256_hex((Path(suite_dir) / "suite.json").read_bytes())
        slug = kind.play_slug(settings)
        out_dir = default_run_root(suite_dir, suite, suite_sha) / f"play-{slug}-{name}"
    path, repetition = _next_repetition(Path(out_dir), box.info.id, agent_name)

    try:
        from sandbox import SandboxLimits, SandboxWorker

        limits = limits if limits is not None else SandboxLimits()
        with SandboxWorker(box.code, entry=box.info.entry, limits=limits) as worker:
            play = HumanPlay(
                box=box,
                io=io,
                agent_name=agent_name,
                suite=suite.name,
                seed=seed,
                repetition=repetition,
                worker=worker,
                limits=limits,
            )
            played = kind.play_human(play, settings)
        traj = played.record
        if played.quit:
            traj = traj.model_copy(update={"error": QUIT_ERROR})
        kind.save_record(traj, path)
    finally:  # saved, quit, aborted or crashed: the repetition is no longer being played
        _reservation(path).unlink(missing_ok=True)
    outcome = kind.outcome_line(traj) if traj.status == "completed" else ""
    return PlayResult(path=path, trajectory=traj, quit=played.quit, outcome=outcome)


def list_boxes(suite_dir: Path) -> tuple[SuiteInfo, list[BoxInfo]]:
    """The suite and its boxes' public facts (digests checked)."""
    from blackboxes.store import load_suite_boxes

    suite, boxes = load_suite_boxes(Path(suite_dir))
    return suite, [b.info for b in boxes]


# -- CLI -------------------------------------------------------------------------------

_EPILOG = """\
Without --box, the suite's boxes are listed (id, family, level). Each suite's kind of
episode takes its own settings, as in oracle-eval: turn@shot suites (ERI...) need SPEC =
TURNS@SHOTS; DFA suites take none (their budget is --budget-factor x the box's reference
cost).

At the prompt, lines starting with ':' are free commands: :help, :history, :intro, :quit.
DFA episodes also take "? WORD", "eq {...}", "eq @FILE.json" and raw JSON tool calls.
:quit (or end of input) records the episode as failed ("the player quit"); Ctrl-C aborts
and records nothing.

The trajectory (same format as oracle-eval, agent human:NAME) goes to
runs/<suite>-<tag>/play-<settings>-<NAME>/trajectories/<box>__human-<NAME>__r<k>.json
(play-10at1-instant-alice, play-dfa-x2-alice), k = the next free repetition. It holds the
expected outputs: do not open it before replaying the box.

Examples:
  oracle-play --suite suites/eri-easy
  oracle-play 10@1 --suite suites/eri-easy --box eri-easy-000 --name alice
  oracle-play --suite suites/DFA-states2-9-seed0-n80 --box dfa-easy-003
"""


def _parser() -> argparse.ArgumentParser:
    from evaluator._kind_cli import add_kind_arguments

    p = ArgumentParser(
        prog=PROG,
        description="Play one black box yourself in the terminal, with the protocol and the "
        "trajectory format of oracle-eval (human baselines).",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--suite", type=Path, metavar="DIR", help="suite directory")
    p.add_argument(
        "--env",
        metavar="URL",
        help="play a served box instead (oracle-serve, a published image): http://HOST:PORT; "
        "the server's settings apply and it keeps the record",
    )
    p.add_argument(
        "--token-file",
        type=Path,
        metavar="F",
        help="bearer token of the served suite (with --env)",
    )
    p.add_argument("--box", metavar="ID", help="box to play (omit to list the boxes)")
    p.add_argument(
        "--name",
        default=None,
        metavar="NAME",
        help="player name, recorded as agent human:NAME (default: $USER or 'human')",
    )
    p.add_argument("--seed", type=int, default=0, metavar="N", help="run seed (default: 0)")
    p.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        help="output directory (default: runs/<suite>-<tag>/play-<settings>-<NAME>; the tag "
        "hashes the suite's folder and suite.json)",
    )
    add_runtime_arguments(p, "the box's code")
    p.add_argument("-v", "--verbose", action="count", default=0, help="more logging (-vv: debug)")
    add_kind_arguments(p, "play")
    add_version(p)
    return p


def _console_io(out: Console) -> PlayIO:
    # Line editing and recall at the prompt, where the platform has readline.
    with contextlib.suppress(ImportError):
        import readline  # noqa: F401

    def show(text: str) -> None:
        # Box answers may hold "[...]": never read them as rich markup.
        out.print(text, markup=False, highlight=False, soft_wrap=True)

    return PlayIO(input, show)


def _list(out: Console, suite_dir: Path) -> None:
    from rich.table import Table

    from evaluator.kinds import kind_for_suite

    suite, infos = list_boxes(suite_dir)
    table = Table(title=f"{suite.name}: {len(infos)} box(es)", title_justify="left")
    for column in ("box", "family", "level"):
        table.add_column(column, no_wrap=True)
    for info in infos:  # never the rule kind
        table.add_row(info.id, info.family, info.level)
    out.print(table)
    takes_spec = any(o.positional for o in kind_for_suite(suite).options)
    spec = "TURNS@SHOTS " if takes_spec else ""
    out.print(
        f"Pick one with --box ID, e.g. {PROG} {spec}--suite {suite_dir} --box {infos[0].id}"
        if infos
        else "The suite has no box.",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )


def _report(out: Console, result: PlayResult) -> None:
    traj = result.trajectory
    show: list[str] = [""]
    if result.quit:
        show.append("You quit: the episode is recorded as failed (no score).")
    elif traj.status == "failed":
        show.append(f"The episode failed: {traj.error}")
    else:
        show.append(result.outcome)
    show.append(f"Trajectory: {result.path}")
    for line in show:
        out.print(line, markup=False, highlight=False, soft_wrap=True)


def _play_env(args: argparse.Namespace, io: PlayIO, out: Console) -> int:
    from evaluator.serve._play import list_served_boxes, play_served
    from evaluator.serve.cli import read_token
    from evaluator.serve.client import ServedSuite

    def say(text: str) -> None:
        out.print(text, markup=False, highlight=False, soft_wrap=True)

    with ServedSuite(args.env, token=read_token(args.token_file)) as env:
        if args.box is None:
            name, boxes = list_served_boxes(env)
            say(f"{name}: {len(boxes)} box(es) served at {env.url}")
            for row in boxes:
                say(f"  {row['id']}  {row['family']}  {row['level']}")
            say(
                f"Pick one with --box ID, e.g. {PROG} --env {env.url} --box "
                f"{boxes[0]['id'] if boxes else 'ID'}"
            )
            return 0
        played = play_served(env, args.box, io, seed=args.seed)
    if played.quit:
        say("You quit: the server records the episode as failed (no score).")
    else:
        shown = "none (the episode failed)" if played.score is None else f"{played.score:.3f}"
        say(f"Score: {shown}. The server keeps the record (episode {played.episode_id}).")
    return 0


def main(argv: Sequence[str] | None = None, *, io: PlayIO | None = None) -> int:
    """Entry point of ``oracle-play``; returns the exit code. ``io`` replaces the terminal."""
    out, err = Console(), Console(stderr=True)

    def body() -> int:
        try:
            return _main(argv, io, out, err)
        except KeyboardInterrupt:
            print(file=sys.stderr)  # off the line of the prompt the person was typing at
            raise

    return run_cli(PROG, body, interrupted="interrupted; nothing was recorded")


def _main(argv: Sequence[str] | None, io: PlayIO | None, out: Console, err: Console) -> int:
    tokens = list(sys.argv[1:] if argv is None else argv)
    check_spec_tokens(tokens)
    args = _parser().parse_args(tokens)
    from evaluator._kind_cli import given_options

    given = given_options(args, "play")
    if given.get("spec") is not None:
        given["spec"] = parse_spec(given["spec"])  # a bad spec fails before the suite is read
    name = check_player_name(args.name) if args.name is not None else default_player_name()
    if args.env is not None:
        if (
            args.suite is not None
            or args.out is not None
            or any(v is not None for v in given.values())
        ):
            raise UsageError(
                "--env plays the served box with the server's settings: "
                "give no --suite, --out or settings"
            )
        configure_logging(args.verbose, err)
        return _play_env(args, io if io is not None else _console_io(out), out)
    if args.suite is None:
        raise UsageError("give --suite DIR (or --env URL for a served box)")
    args.suite = check_suite_arg(args.suite)
    if args.out is not None:
        require_utf8_path(args.out, "--out")
    configure_logging(args.verbose, err)
    if args.verbose <= 0:
        # The CLI reports a quit or a failure itself; the protocol's warning repeats it.
        logging.getLogger("evaluator").setLevel(logging.ERROR)
    if args.box is None:
        _list(out, args.suite)
        return 0
    from sandbox.docker.runtime import runtime_limits

    limits = runtime_limits(args.runtime, args.base_image)
    result = play_box(
        args.suite,
        args.box,
        io if io is not None else _console_io(out),
        name=name,
        seed=args.seed,
        out_dir=args.out,
        options=given,
        limits=limits,
    )
    _report(out, result)
    return 0
