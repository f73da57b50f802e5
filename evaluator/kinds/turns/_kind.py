"""The turn@shot kind as a plug-in: its options, settings, records, summary and play."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal, cast

from evaluator.kinds import register_kind
from evaluator.kinds._base import (
    Command,
    EpisodeJobLike,
    EpisodeKind,
    HumanPlay,
    KindOption,
    KindRun,
    PlayedEpisode,
    RunContext,
)
from evaluator.spec import FEEDBACK_OPTION, SPEC_OPTION, FeedbackMode, TurnShot, parse_feedback
from oracle_bench.errors import UsageError

if TYPE_CHECKING:
    from rich.table import Table

    from blackboxes.box import BoxInfo, SuiteInfo
    from evaluator.analysis import EpisodeAnalysis
    from evaluator.kinds.turns.summary import Summary
    from evaluator.kinds.turns.trajectory import Trajectory

__all__ = [
    "INVALID_TURNS_MODES",
    "InvalidTurns",
    "TurnsKind",
    "TurnsReport",
    "TurnsSettings",
]

InvalidTurns = Literal["count", "free"]
INVALID_TURNS_MODES: tuple[InvalidTurns, ...] = ("count", "free")
DEFAULT_MAX_REASKS = 2
"""Re-asks per turn with free invalid replies (and the LLM agents' own re-asks)."""

INVALID_TURNS_OPTION = KindOption(
    name="invalid_turns",
    flag="--invalid-turns",
    metavar="MODE",
    help="count (default: an unparseable reply costs its turn, ORACLE's rule) or free "
    "(re-asked up to --max-reasks times, recorded, not counted)",
    commands=frozenset({"eval"}),
)
MAX_REASKS_OPTION = KindOption(
    name="max_reasks",
    flag="--max-reasks",
    metavar="N",
    help="re-asks after an unusable reply (default: 2)",
    # A flag of oracle-eval's own: the LLM agents of every kind read it too.
    commands=frozenset(),
    refused=False,
)


@dataclass(frozen=True)
class TurnsSettings:
    """A turn@shot run's settings."""

    spec: TurnShot
    feedback: FeedbackMode = "instant"
    invalid_turns: InvalidTurns = "count"
    max_reasks: int = DEFAULT_MAX_REASKS


@dataclass(frozen=True)
class TurnsReport:
    """A turn@shot run's summary and its files (summary.json, summary.csv, boxes.csv)."""

    summary: Summary

    def write(self, out_dir: Path) -> list[Path]:
        from evaluator.kinds.turns.summary import write_summary

        write_summary(self.summary, out_dir)
        return [out_dir / name for name in ("summary.json", "summary.csv", "boxes.csv")]


def _spec(value: Any) -> TurnShot:
    from evaluator.spec import parse_spec

    return value if isinstance(value, TurnShot) else parse_spec(str(value))


@register_kind
class TurnsKind(EpisodeKind):
    """ORACLE's turn@shot: T exploration turns, then K held-out items, ``shot`` attempts each."""

    name: ClassVar[str] = "turns"
    title: ClassVar[str] = "turn@shot"
    options: ClassVar[tuple[KindOption, ...]] = (
        SPEC_OPTION,
        FEEDBACK_OPTION,
        INVALID_TURNS_OPTION,
        MAX_REASKS_OPTION,
    )
    default_agents: ClassVar[tuple[str, ...]] = ("random", "fixed", "adaptive")
    unlabelled_records: ClassVar[bool] = True
    legacy_marker: ClassVar[str | None] = "spec"
    eval_help: ClassVar[str] = (
        "turn@shot suites (CII, CRI, PSI, ERI) take SPEC = TURNS@SHOTS: TURNS exploration "
        "turns (every answered query or invalid reply costs one), then each held-out item "
        "gets SHOTS attempts with right/wrong feedback. ORACLE's published settings are 10@1 "
        "and 20@2. --feedback instant (each query answered at once) or deferred (all TURNS "
        "queries submitted blind, answers revealed together: isolates adaptivity). Results "
        "go to runs/<suite name>-<tag>/<TURNS>at<SHOTS>-<feedback>-seed<SEED>."
    )

    # -- agents --------------------------------------------------------------
    def agent_names(self) -> list[str]:
        from evaluator.kinds.turns.agents import agent_names

        return agent_names()

    def check_agent_name(self, name: str) -> str:
        from evaluator.kinds.turns.agents import check_agent_name

        return check_agent_name(name)

    # -- settings ------------------------------------------------------------
    def configure(
        self, suite: SuiteInfo, given: Mapping[str, Any], command: Command
    ) -> TurnsSettings:
        spec = given.get("spec")
        if spec is None:
            raise UsageError(
                "the following arguments are required: SPEC (TURNS@SHOTS, e.g. 10@1) "
                f"for {suite.family} suite {suite.name}"
            )
        invalid = given.get("invalid_turns", "count")
        if invalid not in INVALID_TURNS_MODES:
            raise UsageError(
                f"invalid --invalid-turns {invalid!r}: use {' or '.join(INVALID_TURNS_MODES)}"
            )
        reasks = given.get("max_reasks", DEFAULT_MAX_REASKS)
        if isinstance(reasks, bool) or not isinstance(reasks, int) or reasks < 0:
            raise UsageError(f"invalid --max-reasks {reasks}: must be >= 0")
        return TurnsSettings(
            spec=_spec(spec),
            feedback=parse_feedback(given.get("feedback", "instant")),
            invalid_turns=cast(InvalidTurns, invalid),
            max_reasks=reasks,
        )

    def arguments(self, settings: TurnsSettings) -> dict[str, Any]:
        return {
            "spec": str(settings.spec),
            "feedback": settings.feedback,
            "invalid_turns": settings.invalid_turns,
            "max_reasks": settings.max_reasks,
        }

    def definition(self, settings: TurnsSettings) -> dict[str, Any]:
        return {"spec": str(settings.spec), "feedback": settings.feedback}

    def run_slug(self, settings: TurnsSettings, seed: int) -> str:
        return f"{settings.spec.slug}-{settings.feedback}-seed{seed}"

    def play_slug(self, settings: TurnsSettings) -> str:
        return f"{settings.spec.slug}-{settings.feedback}"

    def label(self, settings: TurnsSettings) -> str:
        return str(settings.spec)

    # -- running -------------------------------------------------------------
    def make_agent(
        self, info: BoxInfo, job: EpisodeJobLike, settings: TurnsSettings, run: RunContext
    ) -> Any:
        from evaluator.kinds.turns._run import make_turns_agent

        return make_turns_agent(info, job, run)

    def start(self, run: RunContext, settings: TurnsSettings) -> KindRun:
        from evaluator.kinds.turns._run import TurnsRun

        return TurnsRun(run, settings)

    def withhold(self, record: Trajectory, settings: TurnsSettings) -> Trajectory:
        """The held-out items' expected outputs (the agent's own answers and their
        verdicts stay)."""
        items = [item.model_copy(update={"expected": None}) for item in record.items]
        return record.model_copy(update={"items": items})

    # -- records -------------------------------------------------------------
    def load_record(self, raw: Any, path: Path) -> Trajectory:
        from evaluator.kinds.turns.trajectory import Trajectory
        from evaluator.records import validate_record

        return validate_record(raw, Trajectory, path)

    def read_record(self, path: Path) -> Trajectory:
        from evaluator.kinds.turns.trajectory import load_trajectory

        return load_trajectory(path)

    def save_record(self, record: Trajectory, path: Path) -> None:
        from evaluator.kinds.turns.trajectory import save_trajectory

        save_trajectory(record, path)

    def score(self, record: Trajectory) -> float | None:
        return record.accuracy

    # -- reports -------------------------------------------------------------
    def settings_of_manifest(self, arguments: Mapping[str, Any], path: Path) -> TurnsSettings:
        from evaluator.records import CorruptTrajectoryError

        if arguments.get("spec") is None:
            raise CorruptTrajectoryError("a turn@shot run manifest without a spec", path)
        try:
            return TurnsSettings(
                spec=_spec(arguments["spec"]),
                feedback=parse_feedback(arguments.get("feedback") or "instant"),
            )
        except UsageError as exc:
            raise CorruptTrajectoryError(str(exc), path) from None

    def settings_of_record(self, record: Trajectory) -> TurnsSettings:
        return TurnsSettings(
            spec=TurnShot(record.spec.turns, record.spec.shots), feedback=record.feedback
        )

    def identity(self, record: Trajectory) -> dict[str, Any]:
        return {"spec": f"{record.spec.turns}@{record.spec.shots}", "feedback": record.feedback}

    def settings_identity(self, settings: TurnsSettings) -> dict[str, Any]:
        return {"spec": str(settings.spec), "feedback": settings.feedback}

    def summarise(
        self,
        records: Sequence[Any],
        paths: Sequence[Path],
        *,
        suite: str,
        seed: int,
        repeats: int,
        settings: TurnsSettings,
        bootstrap_seed: int | None = None,
    ) -> TurnsReport:
        from evaluator.kinds.turns.summary import summarise

        return TurnsReport(
            summarise(
                list(records),
                suite=suite,
                spec=str(settings.spec),
                feedback=settings.feedback,
                seed=seed,
                repeats=repeats,
                bootstrap_seed=bootstrap_seed,
            )
        )

    def tables(self, summary: Any) -> list[Table]:
        from evaluator.kinds.turns.summary import summary_tables

        return summary_tables(summary)

    def legend(self, summary: Any) -> str | None:
        from evaluator.kinds.turns.summary import COLUMNS_LEGEND

        return COLUMNS_LEGEND

    def warnings(self, summary: Any) -> list[str]:
        from evaluator.kinds.turns.summary import summary_warnings

        return summary_warnings(summary)

    # -- analysis ------------------------------------------------------------
    def analyse(self, record: Trajectory) -> EpisodeAnalysis:
        from evaluator.kinds.turns.analysis import analyse_turns

        return analyse_turns(record, self.name)

    # -- people --------------------------------------------------------------
    def play_human(self, play: HumanPlay, settings: TurnsSettings) -> PlayedEpisode:
        from blackboxes.families import family_for_box
        from evaluator._solutions import SandboxSolutions
        from evaluator.kinds.turns.human import HumanAgent
        from evaluator.kinds.turns.protocol import EpisodeContext, run_episode

        box = play.box
        agent = HumanAgent(play.io, box.info.input_schema, box.info.output_schema)
        ctx = EpisodeContext(
            suite=play.suite,
            agent_name=play.agent_name,
            spec=settings.spec,
            feedback=settings.feedback,
            seed=play.seed,
            repetition=play.repetition,
        )
        solutions = SandboxSolutions(play.limits)
        record = run_episode(box, family_for_box(box.info), agent, play.worker, ctx, solutions)
        return PlayedEpisode(record, agent.quit and record.status == "failed")

    def outcome_line(self, record: Trajectory) -> str:
        right = sum(item.correct for item in record.items)
        return (
            f"Accuracy: {right}/{len(record.items)} = {record.accuracy:.3f} "
            f"({record.queries_used} queries answered, {record.invalid_turns} invalid)."
        )
