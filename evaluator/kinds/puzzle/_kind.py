"""The puzzle kind (IPI) as a plug-in: its options, settings, records, summary and play."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

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
from evaluator.spec import (
    CONTEXT_OPTION,
    FEEDBACK_OPTION,
    SPEC_OPTION,
    Context,
    FeedbackMode,
    TurnShot,
    parse_context,
    parse_feedback,
)
from oracle_bench.errors import UsageError

if TYPE_CHECKING:
    from rich.table import Table

    from blackboxes.box import BoxInfo, SuiteInfo
    from evaluator.analysis import EpisodeAnalysis
    from evaluator.kinds.puzzle.summary import PuzzleSummary
    from evaluator.kinds.puzzle.trajectory import PuzzleTrajectory

__all__ = ["PuzzleEpisodeKind", "PuzzleReport", "PuzzleSettings"]


@dataclass(frozen=True)
class PuzzleSettings:
    """A puzzle run's settings: T probes and ``shots`` answers per instance."""

    spec: TurnShot
    feedback: FeedbackMode = "instant"
    context: Context = "reset"


@dataclass(frozen=True)
class PuzzleReport:
    """A puzzle run's summary and its files."""

    summary: PuzzleSummary

    def write(self, out_dir: Path) -> list[Path]:
        from evaluator.kinds.puzzle.summary import write_puzzle_summary

        return write_puzzle_summary(self.summary, out_dir)


def _spec(value: Any) -> TurnShot:
    from evaluator.spec import parse_spec

    return value if isinstance(value, TurnShot) else parse_spec(str(value))


@register_kind
class PuzzleEpisodeKind(EpisodeKind):
    """Known rules, hidden answers: K instances, each probed T times then answered."""

    name: ClassVar[str] = "puzzle"
    title: ClassVar[str] = "puzzle"
    options: ClassVar[tuple[KindOption, ...]] = (SPEC_OPTION, FEEDBACK_OPTION, CONTEXT_OPTION)
    default_agents: ClassVar[tuple[str, ...]] = ("random", "fixed", "adaptive")
    eval_help: ClassVar[str] = (
        "puzzle suites (IPI) take SPEC = TURNS@SHOTS per puzzle instance: an episode is K "
        "instances of the box's puzzle (known rules, each instance its own hidden answer); "
        "each gets up to TURNS probe turns (an invalid probe costs its turn; the agent may "
        "answer early), then SHOTS attempts to state the answer; the score is solved "
        "instances / K. --context reset (default, ORACLE's) gives an LLM agent a fresh "
        "conversation per instance, keep one conversation. Results go to "
        "runs/<suite name>-<tag>/<TURNS>at<SHOTS>-<feedback>-<context>-seed<SEED>."
    )

    # -- agents --------------------------------------------------------------
    def agent_names(self) -> list[str]:
        from evaluator.kinds.puzzle._agents import puzzle_agent_names

        return puzzle_agent_names()

    def check_agent_name(self, name: str) -> str:
        from evaluator.kinds.puzzle._agents import check_puzzle_agent_name

        return check_puzzle_agent_name(name)

    # -- settings ------------------------------------------------------------
    def configure(
        self, suite: SuiteInfo, given: Mapping[str, Any], command: Command
    ) -> PuzzleSettings:
        spec = given.get("spec")
        if spec is None:
            raise UsageError(
                "the following arguments are required: SPEC (TURNS@SHOTS per puzzle "
                f"instance, e.g. 10@1) for {suite.family} suite {suite.name}"
            )
        return PuzzleSettings(
            spec=_spec(spec),
            feedback=parse_feedback(given.get("feedback", "instant")),
            context=parse_context(given.get("context", "reset")),
        )

    def arguments(self, settings: PuzzleSettings) -> dict[str, Any]:
        return {
            "spec": str(settings.spec),
            "feedback": settings.feedback,
            "options": {"context": settings.context},
        }

    def definition(self, settings: PuzzleSettings) -> dict[str, Any]:
        return {
            "spec": str(settings.spec),
            "feedback": settings.feedback,
            "options": {"context": settings.context},
        }

    def run_slug(self, settings: PuzzleSettings, seed: int) -> str:
        return f"{self.play_slug(settings)}-seed{seed}"

    def play_slug(self, settings: PuzzleSettings) -> str:
        return f"{settings.spec.slug}-{settings.feedback}-{settings.context}"

    def label(self, settings: PuzzleSettings) -> str:
        return str(settings.spec)

    # -- running -------------------------------------------------------------
    def make_agent(
        self, info: BoxInfo, job: EpisodeJobLike, settings: PuzzleSettings, run: RunContext
    ) -> Any:
        from evaluator.kinds.puzzle._run import make_kind_agent

        return make_kind_agent(info, job, run)

    def start(self, run: RunContext, settings: PuzzleSettings) -> KindRun:
        from evaluator.kinds.puzzle._run import PuzzleRun

        return PuzzleRun(run, settings)

    def withhold(self, record: PuzzleTrajectory, settings: PuzzleSettings) -> PuzzleTrajectory:
        """Each instance's secret and solution (the probes, answers and verdicts stay)."""
        instances = [
            inst.model_copy(update={"secret": "", "solution": ""}) for inst in record.instances
        ]
        return record.model_copy(update={"instances": instances})

    # -- records -------------------------------------------------------------
    def load_record(self, raw: Any, path: Path) -> PuzzleTrajectory:
        from evaluator.kinds.puzzle.trajectory import PuzzleTrajectory
        from evaluator.records import validate_record

        return validate_record(raw, PuzzleTrajectory, path)

    def read_record(self, path: Path) -> PuzzleTrajectory:
        from evaluator.kinds.puzzle.trajectory import load_puzzle_trajectory

        return load_puzzle_trajectory(path)

    def save_record(self, record: PuzzleTrajectory, path: Path) -> None:
        from evaluator.kinds.puzzle.trajectory import save_puzzle_trajectory

        save_puzzle_trajectory(record, path)

    def score(self, record: PuzzleTrajectory) -> float | None:
        return record.score

    # -- reports -------------------------------------------------------------
    def settings_of_manifest(self, arguments: Mapping[str, Any], path: Path) -> PuzzleSettings:
        from evaluator.records import CorruptTrajectoryError

        options = arguments.get("options") or {}
        if arguments.get("spec") is None or not isinstance(options, Mapping):
            raise CorruptTrajectoryError("a puzzle run manifest without a spec", path)
        try:
            return PuzzleSettings(
                spec=_spec(arguments["spec"]),
                feedback=parse_feedback(arguments.get("feedback") or "instant"),
                context=parse_context(str(options.get("context", "reset"))),
            )
        except (UsageError, ValueError) as exc:
            raise CorruptTrajectoryError(str(exc), path) from None

    def settings_of_record(self, record: PuzzleTrajectory) -> PuzzleSettings:
        return PuzzleSettings(
            spec=TurnShot(record.turns, record.shots),
            feedback=record.feedback,
            context=record.context,
        )

    def identity(self, record: PuzzleTrajectory) -> dict[str, Any]:
        return {
            "spec": f"{record.turns}@{record.shots}",
            "feedback": record.feedback,
            "context": record.context,
        }

    def settings_identity(self, settings: PuzzleSettings) -> dict[str, Any]:
        return {
            "spec": str(settings.spec),
            "feedback": settings.feedback,
            "context": settings.context,
        }

    def summarise(
        self,
        records: Sequence[Any],
        paths: Sequence[Path],
        *,
        suite: str,
        seed: int,
        repeats: int,
        settings: PuzzleSettings,
        bootstrap_seed: int | None = None,
    ) -> PuzzleReport:
        from evaluator.kinds.puzzle.summary import summarise_puzzles

        return PuzzleReport(
            summarise_puzzles(
                list(records),
                suite=suite,
                spec=str(settings.spec),
                feedback=settings.feedback,
                context=settings.context,
                seed=seed,
                repeats=repeats,
                bootstrap_seed=bootstrap_seed,
            )
        )

    def tables(self, summary: Any) -> list[Table]:
        from evaluator.kinds.puzzle.summary import puzzle_summary_tables

        return puzzle_summary_tables(summary)

    def legend(self, summary: Any) -> str | None:
        from evaluator.kinds.puzzle.summary import PUZZLE_LEGEND

        return PUZZLE_LEGEND

    def warnings(self, summary: Any) -> list[str]:
        from evaluator.failures import failure_warnings

        lines = failure_warnings(summary.failures, summary.excluded_boxes)
        violations = sum(g.bound_violations for g in summary.groups)
        if violations:
            lines.append(
                f"{violations} instance(s) whose feedback fits no secret of the puzzle's "
                "rules; see bound_violations in summary.json"
            )
        return lines

    # -- analysis ------------------------------------------------------------
    def analyse(self, record: PuzzleTrajectory) -> EpisodeAnalysis:
        from evaluator.kinds.puzzle.analysis import analyse_puzzle

        return analyse_puzzle(record, self.name)

    # -- people --------------------------------------------------------------
    def play_human(self, play: HumanPlay, settings: PuzzleSettings) -> PlayedEpisode:
        from blackboxes.families import family_for_box
        from evaluator.kinds.puzzle.human import HumanPuzzleAgent
        from evaluator.kinds.puzzle.protocol import PuzzleEpisodeContext, run_puzzle_episode

        box = play.box
        family: Any = family_for_box(box.info)
        agent = HumanPuzzleAgent(play.io)
        ctx = PuzzleEpisodeContext(
            suite=play.suite,
            agent_name=play.agent_name,
            spec=settings.spec,
            feedback=settings.feedback,
            context=settings.context,
            seed=play.seed,
            repetition=play.repetition,
        )
        record = run_puzzle_episode(box, family, agent, play.worker, ctx)
        return PlayedEpisode(record, agent.quit and record.status == "failed")

    def outcome_line(self, record: PuzzleTrajectory) -> str:
        solved = sum(i.solved for i in record.instances)
        return (
            f"Solved {solved} of {len(record.instances)} instance(s) = {record.score:.3f} "
            f"({record.queries_used} probes answered, {record.invalid_turns} invalid)."
        )
