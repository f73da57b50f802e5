"""``oracle-play``: a person plays one box in the terminal (human baselines).

The person is an agent like any other: :class:`HumanAgent` implements the turn@shot
:class:`~evaluator.agents.Agent` protocol and :class:`HumanDfaAgent` the
:class:`~evaluator.dfa_protocol.DfaAgent` protocol, so an episode runs through the same
``run_episode`` / ``run_dfa_episode`` with the box's code in a sandbox worker, and the
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
import json
import logging
import os
import re
import sys
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from rich.console import Console

from evaluator._defaults import DEFAULT_BUDGET_FACTOR
from evaluator._solutions import SandboxSolutions
from evaluator.spec import (
    FEEDBACK_MODES,
    FeedbackMode,
    TurnShot,
    check_spec_tokens,
    parse_feedback,
    parse_spec,
)
from oracle_bench.bounded import MAX_TEXT_CHARS, BoundsError, load_json
from oracle_bench.cli import (
    ArgumentParser,
    add_version,
    check_suite_arg,
    configure_logging,
    require_utf8_path,
    run_cli,
)
from oracle_bench.errors import UsageError

if TYPE_CHECKING:
    from blackboxes.box import BoxInfo, SuiteInfo
    from blackboxes.families import Family
    from blackboxes.store import Box
    from evaluator.agents import Briefing, Observation, Question
    from evaluator.dfa_protocol import DfaEnvironment
    from evaluator.dfa_trajectory import DfaTrajectory
    from evaluator.trajectory import Trajectory

# The suite, the protocols and the sandbox are imported where they are used, so that
# --help and a usage error about the arguments come at once.

__all__ = [
    "AGENT_PREFIX",
    "QUIT_ERROR",
    "HumanAgent",
    "HumanDfaAgent",
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
QUIT_ERROR = "the player quit"
"""``error`` of the trajectory of an episode the player ended with ``:quit`` or end of input."""

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


class PlayerQuit(Exception):
    """The player typed ``:quit`` or closed the input; the episode ends as failed."""

    def __init__(self) -> None:
        super().__init__(QUIT_ERROR)


# -- terminal I/O ----------------------------------------------------------------------


@dataclass(frozen=True)
class PlayIO:
    """Where the player's lines come from and where the text for them goes.

    ``input_fn(prompt)`` returns one line without its newline and raises ``EOFError`` at
    the end of input (like :func:`input`); ``print_fn(text)`` shows one block of text.
    """

    input_fn: Callable[[str], str]
    print_fn: Callable[[str], None]

    @classmethod
    def from_streams(cls, stdin: TextIO, stdout: TextIO) -> PlayIO:
        """Lines from ``stdin``, text (and prompts) to ``stdout``."""

        def read(prompt: str) -> str:
            stdout.write(prompt)
            stdout.flush()
            line = stdin.readline()
            if not line:
                raise EOFError
            return line.rstrip("\r\n")

        def write(text: str) -> None:
            stdout.write(text + "\n")

        return cls(read, write)

    def say(self, text: str = "") -> None:
        self.print_fn(text)

    def ask(self, prompt: str) -> str:
        """The next line; :class:`PlayerQuit` at the end of input."""
        try:
            return self.input_fn(prompt)
        except EOFError:
            self.say("")
            raise PlayerQuit() from None


_COMMON_HELP = """\
Commands (free, they never cost a turn or a call):
  :help      this help
  :history   your queries and the box's answers so far
  :intro     the task intro again
  :quit      end the episode now (recorded as failed: "the player quit"); so does end of input
An empty line is ignored. Ctrl-C aborts without recording anything."""


class _Reader(ABC):
    """Reads the player's lines and handles the free ``:`` commands."""

    def __init__(self, io: PlayIO) -> None:
        self.io = io
        self.intro = ""
        self.quit = False

    @abstractmethod
    def help_text(self) -> str:
        """What ``:help`` shows."""

    @abstractmethod
    def history_lines(self) -> list[str]:
        """What ``:history`` shows, one line per entry."""

    def read(self, prompt: str) -> str:
        """The next reply (stripped); commands are handled here and never returned."""
        while True:
            try:
                line = self.io.ask(prompt).strip()
            except PlayerQuit:
                self.quit = True
                raise
            if not line:
                continue
            if not line.startswith(":"):
                return line
            command = line[1:].strip().lower()
            if command in ("help", "h", "?"):
                self.io.say(self.help_text())
            elif command in ("history", "hist"):
                lines = self.history_lines()
                self.io.say("\n".join(lines) if lines else "Nothing yet.")
            elif command == "intro":
                self.io.say(self.intro)
            elif command in ("quit", "q", "exit"):
                self.quit = True
                raise PlayerQuit()
            else:
                self.io.say(f"Unknown command {line!r}. Type :help for the commands.")


# -- turn@shot -------------------------------------------------------------------------


@dataclass
class _Turn:
    text: str
    response: str | None = None


class HumanAgent(_Reader):
    """A person playing a turn@shot episode through :class:`PlayIO`.

    ``input_schema``/``output_schema`` are the box's one-line formats (box.json), shown
    by ``:help``; nothing else about the box is given to the player.
    """

    def __init__(self, io: PlayIO, input_schema: str, output_schema: str) -> None:
        super().__init__(io)
        self.input_schema = input_schema
        self.output_schema = output_schema
        self.feedback_mode: FeedbackMode = "instant"
        self.turns: list[_Turn] = []
        self.answers: list[tuple[str, str, bool | None]] = []
        """(question input, answer, correct) of the evaluation phase."""
        self.evaluating = False

    def help_text(self) -> str:
        return (
            f"Exploration: type one query per turn.\n  Query format: {self.input_schema}\n"
            f"Evaluation: type the box's output for the input shown.\n"
            f"  Answer format: {self.output_schema}\n"
            "Lines that start with ':' are commands; an invalid query costs its turn.\n"
            f"{_COMMON_HELP}"
        )

    def history_lines(self) -> list[str]:
        lines = []
        for i, turn in enumerate(self.turns, start=1):
            answer = "(answer pending)" if turn.response is None else turn.response
            lines.append(f"Turn {i}: {turn.text} -> {answer}")
        for text, answer, correct in self.answers:
            verdict = "?" if correct is None else "right" if correct else "wrong"
            lines.append(f"Question {text}: you answered {answer!r} ({verdict})")
        return lines

    # -- the Agent protocol ----------------------------------------------------
    def start(self, briefing: Briefing) -> None:
        self.intro = briefing.intro
        self.feedback_mode = briefing.feedback
        self.io.say(briefing.intro)
        self.io.say("")
        if briefing.feedback == "deferred":
            self.io.say(
                f"Deferred feedback: the box answers your {briefing.turns} queries together, "
                "after the last one."
            )
        self.io.say("Type :help for the input format and the commands.")

    def query(self, banner: str) -> str:
        self.io.say("")
        self.io.say(banner)
        text = self.read("query> ")
        self.turns.append(_Turn(text))
        if self.feedback_mode == "deferred":
            self.io.say("(recorded; the answers come after the last turn)")
        return text

    def observe(self, observation: Observation) -> None:
        pending = [t for t in self.turns if t.response is None]
        if pending:
            pending[0].response = observation.response
        self.io.say(f"  {observation.query_text} -> {observation.response}")

    def begin_evaluation(self, message: str) -> None:
        self.evaluating = True
        self.io.say("")
        self.io.say(message)

    def answer(self, question: Question) -> str:
        self.io.say("")
        self.io.say(question.prompt)
        if question.program:
            return self._program(question)
        text = self.read("answer> ")
        self.answers.append((f"{question.item} ({question.input_text})", text, None))
        return text

    def _program(self, question: Question) -> str:
        """A program typed line by line and ended by a line ``END``, or read from a file
        named as ``@PATH``."""
        self.io.say("Type the program and end it with a line END, or give a file as @PATH.")
        first = self.read("program> ")
        if first.startswith("@"):
            path = Path(first[1:].strip()).expanduser()
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                self.io.say(f"cannot read {path}: {exc}")
                text = ""
        else:
            lines = [first]
            while lines[-1] != "END":
                lines.append(self.io.ask("... ").rstrip())
            text = "\n".join(lines[:-1]) + "\n"
        self.answers.append((f"submission {question.attempt + 1}", text[:60], None))
        return f"```python\n{text}```"

    def feedback(self, correct: bool, message: str) -> None:
        if self.answers:
            item, text, _ = self.answers[-1]
            self.answers[-1] = (item, text, correct)
        self.io.say(message)

    def notes(self) -> list[str]:
        return []


# -- DFA -------------------------------------------------------------------------------


_DFA_HELP = """\
Calls (each valid one costs one call; invalid ones are free):
  ? WORD          membership query, e.g. "? {example}"; "?" alone (or ? "") asks about
                  the empty word; the answer is 1 (in the language) or 0
  eq {{...}}        equivalence query with a DFA as JSON on one line (format in :intro)
  eq @FILE.json   equivalence query with the DFA read from a file
  {{"tool": ...}}   a raw JSON tool call, exactly as in the intro"""


class HumanDfaAgent(_Reader):
    """A person playing a DFA episode through :class:`PlayIO`."""

    def __init__(self, io: PlayIO) -> None:
        super().__init__(io)
        self._env: DfaEnvironment | None = None

    def help_text(self) -> str:
        alphabet = self._env.alphabet if self._env is not None else ("a", "b")
        example = "".join(alphabet[:2]) or "a"
        return f"{_DFA_HELP.format(example=example)}\n{_COMMON_HELP}"

    def history_lines(self) -> list[str]:
        if self._env is None:
            return []
        lines = []
        for call in self._env.calls:
            if not call.valid:
                lines.append(f"{call.index}. (free) {call.shown}")
            elif call.tool == "mq":
                lines.append(f"{call.index}. ? {json.dumps(call.word)} -> {call.shown}")
            else:
                lines.append(f"{call.index}. eq -> {call.shown}")
        return lines

    def play(self, env: DfaEnvironment) -> None:
        from evaluator.dfa_protocol import EpisodeOver

        self._env = env
        self.intro = env.intro
        self.io.say(env.intro)
        self.io.say("")
        self.io.say('Shorthands: "? WORD" asks a membership query, "eq {...}" or "eq @FILE.json"')
        self.io.say("an equivalence query. Type :help for more.")
        while not env.over:
            self.io.say("")
            line = self.read(f"[{env.remaining} of {env.budget} calls left] > ")
            text = self._call_text(line)
            if text is None:
                continue
            try:
                self.io.say(env.call(text))
            except EpisodeOver:
                break
        self.io.say(f"The episode is over: {env.ended}.")

    def _call_text(self, line: str) -> str | None:
        """The JSON tool call for one input line, or None when it was answered locally."""
        if line.startswith("?"):
            word = line[1:].strip()
            if word.startswith('"'):
                try:
                    decoded = load_json(word, what="the word")
                except (BoundsError, json.JSONDecodeError):
                    decoded = None
                if isinstance(decoded, str):
                    word = decoded
            return json.dumps({"tool": "membership_query", "word": word}, ensure_ascii=False)
        head, _, rest = line.partition(" ")
        if head.lower() == "eq":
            return self._eq_text(rest.strip())
        if line.startswith("{"):
            return line
        self.io.say(
            f"Not a call: {line if len(line) <= 80 else line[:77] + '...'!r}. Use ? WORD, "
            "eq {...}, eq @FILE.json or a JSON tool call "
            "(:help)."
        )
        return None

    def _eq_text(self, rest: str) -> str | None:
        if not rest:
            self.io.say("eq needs a DFA: eq {...} (JSON on one line) or eq @FILE.json")
            return None
        if rest.startswith("@"):
            path = Path(rest[1:].strip()).expanduser()
            try:
                with path.open(encoding="utf-8") as fh:  # read no more than the limit
                    rest = fh.read(MAX_TEXT_CHARS + 1)
            except (OSError, UnicodeDecodeError) as exc:
                self.io.say(f"Cannot read {path}: {exc} (nothing was sent)")
                return None
            if len(rest) > MAX_TEXT_CHARS:
                self.io.say(
                    f"{path} has more than {MAX_TEXT_CHARS} characters; a hypothesis may have "
                    "at most that many (nothing was sent)"
                )
                return None
        try:
            dfa: object = load_json(rest, what="the hypothesis")
        except (BoundsError, json.JSONDecodeError):
            # Sent as text: the environment reports the JSON error or the limit as a free
            # invalid call.
            dfa = rest
        return json.dumps({"tool": "equivalence_query", "dfa": dfa}, ensure_ascii=False)

    def notes(self) -> list[str]:
        return []


# -- the episode -----------------------------------------------------------------------


@dataclass(frozen=True)
class PlayResult:
    """A finished (or abandoned) episode and where its trajectory was written."""

    path: Path
    trajectory: Trajectory | DfaTrajectory
    quit: bool = False
    """The player ended it with ``:quit`` or end of input (``error`` is :data:`QUIT_ERROR`)."""


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
    spec: TurnShot | None = None,
    feedback: FeedbackMode | None = None,
    name: str = "human",
    seed: int = 0,
    out_dir: Path | None = None,
    budget_factor: float | None = None,
) -> PlayResult:
    """Let a person play ``box_id`` of a suite and write the trajectory.

    Turn@shot suites need ``spec`` (``feedback`` defaults to instant); DFA suites refuse
    both and take ``budget_factor`` (default 2). The default ``out_dir`` is
    ``runs/<suite>-<tag>/play-<T>at<K>-<feedback>-<name>`` or ``.../play-dfa-x<F>-<name>``;
    the file is ``trajectories/<box>__human-<name>__r<k>.json`` with the first free ``k``.
    Raises :class:`UsageError` for bad arguments, ``BoxError`` for a bad suite and
    ``SandboxError`` if the box's worker cannot start (then nothing is written).
    """
    from blackboxes.families import family_for_box
    from blackboxes.store import load_suite
    from evaluator._run_folder import default_run_root
    from evaluator.dfa_protocol import check_budget_factor, run_dfa_episode
    from evaluator.dfa_trajectory import DfaTrajectory, save_dfa_trajectory
    from evaluator.protocol import EpisodeContext, run_episode
    from evaluator.runner import is_dfa_suite
    from evaluator.trajectory import save_trajectory
    from oracle_bench.jsonio import sha256_hex

    name = check_player_name(name)
    agent_name = f"{AGENT_PREFIX}{name}"
    if feedback is not None:
        feedback = parse_feedback(feedback)
    if budget_factor is not None:
        budget_factor = check_budget_factor(budget_factor)
    suite_dir = Path(suite_dir)
    suite = load_suite(suite_dir)
    dfa = is_dfa_suite(suite)
    if dfa:
        if spec is not None:
            raise UsageError(
                f"{suite.name} is a DFA suite: it takes no SPEC (its budget is "
                "--budget-factor x min(L*, TTT)); drop it"
            )
        if feedback is not None:
            raise UsageError(f"{suite.name} is a DFA suite: --feedback does not apply")
        factor = DEFAULT_BUDGET_FACTOR if budget_factor is None else budget_factor
        slug = f"dfa-x{factor:g}"
    else:
        if spec is None:
            raise UsageError(
                f"the following arguments are required: SPEC (TURNS@SHOTS, e.g. 10@1) "
                f"for {suite.family} suite {suite.name}"
            )
        if budget_factor is not None:
            raise UsageError(
                f"--budget-factor applies to DFA suites only; {suite.name} is a "
                f"{suite.family} suite"
            )
        turn_shot, mode = spec, feedback or "instant"
        slug = f"{spec.slug}-{mode}"
    box = _find_entry(suite_dir, suite, box_id)
    if out_dir is None:
        suite_sha = sha256_hex((Path(suite_dir) / "suite.json").read_bytes())
        out_dir = default_run_root(suite_dir, suite, suite_sha) / f"play-{slug}-{name}"
    path, repetition = _next_repetition(Path(out_dir), box.info.id, agent_name)

    try:
        from sandbox import SandboxLimits, SandboxWorker

        traj: Trajectory | DfaTrajectory
        with SandboxWorker(box.code, entry=box.info.entry, limits=SandboxLimits()) as worker:
            if dfa:
                dfa_agent = HumanDfaAgent(io)
                layers = sorted(str(getattr(layer, "value", layer)) for layer in worker.layers)
                traj = run_dfa_episode(
                    box,
                    agent_name,
                    dfa_agent,
                    worker.call,
                    suite=suite.name,
                    budget_factor=factor,
                    seed=seed,
                    repetition=repetition,
                    sandbox_layers=layers,
                )
                quit = dfa_agent.quit and traj.status == "failed"
            else:
                family: Family = family_for_box(box.info)
                agent = HumanAgent(io, box.info.input_schema, box.info.output_schema)
                ctx = EpisodeContext(
                    suite=suite.name,
                    agent_name=agent_name,
                    spec=turn_shot,
                    feedback=mode,
                    seed=seed,
                    repetition=repetition,
                )
                solutions = SandboxSolutions(SandboxLimits())
                traj = run_episode(box, family, agent, worker, ctx, solutions)
                quit = agent.quit and traj.status == "failed"
        if quit:
            traj = traj.model_copy(update={"error": QUIT_ERROR})
        if isinstance(traj, DfaTrajectory):
            save_dfa_trajectory(traj, path)
        else:
            save_trajectory(traj, path)
    finally:  # saved, quit, aborted or crashed: the repetition is no longer being played
        _reservation(path).unlink(missing_ok=True)
    return PlayResult(path=path, trajectory=traj, quit=quit)


def list_boxes(suite_dir: Path) -> tuple[SuiteInfo, list[BoxInfo]]:
    """The suite and its boxes' public facts (digests checked)."""
    from blackboxes.store import load_suite_boxes

    suite, boxes = load_suite_boxes(Path(suite_dir))
    return suite, [b.info for b in boxes]


# -- CLI -------------------------------------------------------------------------------

_EPILOG = """\
Without --box, the suite's boxes are listed (id, family, level). Turn@shot suites (ERI...)
need SPEC = TURNS@SHOTS, as oracle-eval; DFA suites take none (their budget is
--budget-factor x the box's reference cost).

At the prompt, lines starting with ':' are free commands: :help, :history, :intro, :quit.
DFA episodes also take "? WORD", "eq {...}", "eq @FILE.json" and raw JSON tool calls.
:quit (or end of input) records the episode as failed ("the player quit"); Ctrl-C aborts
and records nothing.

The trajectory (same format as oracle-eval, agent human:NAME) goes to
runs/<suite>-<tag>/play-<T>at<K>-<feedback>-<NAME>/trajectories/<box>__human-<NAME>__r<k>.json
(DFA: play-dfa-x<F>-<NAME>), k = the next free repetition. It holds the expected
outputs: do not open it before replaying the box.

Examples:
  oracle-play --suite suites/eri-easy
  oracle-play 10@1 --suite suites/eri-easy --box eri-easy-000 --name alice
  oracle-play --suite suites/DFA-states2-9-seed0-n80 --box dfa-easy-003
"""


def _parser() -> argparse.ArgumentParser:
    p = ArgumentParser(
        prog=PROG,
        description="Play one black box yourself in the terminal, with the protocol and the "
        "trajectory format of oracle-eval (human baselines).",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "spec", metavar="SPEC", nargs="?", help="TURNS@SHOTS, e.g. 10@1 (none for a DFA suite)"
    )
    p.add_argument("--suite", type=Path, metavar="DIR", required=True, help="suite directory")
    p.add_argument("--box", metavar="ID", help="box to play (omit to list the boxes)")
    p.add_argument(
        "--feedback",
        default=None,
        metavar="MODE",
        help=f"{' or '.join(FEEDBACK_MODES)} (default: instant; not for DFA suites)",
    )
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
        help="output directory (default: runs/<suite>-<tag>/play-<T>at<K>-<feedback>-<NAME> "
        "or runs/<suite>-<tag>/play-dfa-x<F>-<NAME>; the tag hashes the suite's folder "
        "and suite.json)",
    )
    p.add_argument(
        "--budget-factor",
        type=float,
        default=None,
        metavar="F",
        help=f"DFA suites: budget = F x min(L*, TTT) calls (default: {DEFAULT_BUDGET_FACTOR:g})",
    )
    p.add_argument("-v", "--verbose", action="count", default=0, help="more logging (-vv: debug)")
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

    from evaluator.runner import is_dfa_suite

    suite, infos = list_boxes(suite_dir)
    table = Table(title=f"{suite.name}: {len(infos)} box(es)", title_justify="left")
    for column in ("box", "family", "level"):
        table.add_column(column, no_wrap=True)
    for info in infos:  # never the rule kind
        table.add_row(info.id, info.family, info.level)
    out.print(table)
    spec = "" if is_dfa_suite(suite) else "TURNS@SHOTS "
    out.print(
        f"Pick one with --box ID, e.g. {PROG} {spec}--suite {suite_dir} --box {infos[0].id}"
        if infos
        else "The suite has no box.",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )


def _report(out: Console, result: PlayResult) -> None:
    from evaluator.dfa_trajectory import DfaTrajectory

    traj = result.trajectory
    show: list[str] = [""]
    if result.quit:
        show.append("You quit: the episode is recorded as failed (no score).")
    elif traj.status == "failed":
        show.append(f"The episode failed: {traj.error}")
    elif isinstance(traj, DfaTrajectory):
        if traj.success:
            show.append(f"Success: your DFA was accepted; cost {traj.cost} of {traj.budget} calls.")
        else:
            show.append(
                f"No success: {traj.queries_used} of {traj.budget} calls used, "
                f"{traj.invalid_calls} invalid (free)."
            )
    else:
        right = sum(item.correct for item in traj.items)
        show.append(
            f"Accuracy: {right}/{len(traj.items)} = {traj.accuracy:.3f} "
            f"({traj.queries_used} queries answered, {traj.invalid_turns} invalid)."
        )
    show.append(f"Trajectory: {result.path}")
    for line in show:
        out.print(line, markup=False, highlight=False, soft_wrap=True)


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
    spec = parse_spec(args.spec) if args.spec is not None else None
    feedback = parse_feedback(args.feedback) if args.feedback is not None else None
    if args.budget_factor is not None:
        from evaluator.dfa_protocol import check_budget_factor

        check_budget_factor(args.budget_factor)
    name = check_player_name(args.name) if args.name is not None else default_player_name()
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
    result = play_box(
        args.suite,
        args.box,
        io if io is not None else _console_io(out),
        spec=spec,
        feedback=feedback,
        name=name,
        seed=args.seed,
        out_dir=args.out,
        budget_factor=args.budget_factor,
    )
    _report(out, result)
    return 0
