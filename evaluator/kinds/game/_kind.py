"""The game kind (GSI) as a plug-in: its options, settings, records, summary and play."""

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
from evaluator.spec import CONTEXT_OPTION, SPEC_OPTION, Context, TurnShot, parse_context
from oracle_bench.errors import UsageError

if TYPE_CHECKING:
    from rich.table import Table

    from blackboxes.box import BoxInfo, SuiteInfo
    from evaluator.analysis import EpisodeAnalysis
    from evaluator.kinds.game.summary import GameSummary
    from evaluator.kinds.game.trajectory import GameTrajectory

__all__ = ["GameEpisodeKind", "GameReport", "GameSettings"]


@dataclass(frozen=True)
class GameSettings:
    """A game run's settings: T exploration and ``shots`` evaluation games per setting."""

    spec: TurnShot
    context: Context = "reset"


@dataclass(frozen=True)
class GameReport:
    summary: GameSummary

    def write(self, out_dir: Path) -> list[Path]:
        from evaluator.kinds.game.summary import write_game_summary

        return write_game_summary(self.summary, out_dir)


def _spec(value: Any) -> TurnShot:
    from evaluator.spec import parse_spec

    return value if isinstance(value, TurnShot) else parse_spec(str(value))


@register_kind
class GameEpisodeKind(EpisodeKind):
    """A known game against a hidden opponent strategy, scored against the exact optimum."""

    name: ClassVar[str] = "game"
    title: ClassVar[str] = "game"
    options: ClassVar[tuple[KindOption, ...]] = (SPEC_OPTION, CONTEXT_OPTION)
    default_agents: ClassVar[tuple[str, ...]] = ("random", "fixed", "adaptive")
    eval_help: ClassVar[str] = (
        "game suites (GSI) take SPEC = TURNS@SHOTS per game setting: TURNS exploration games "
        "against the hidden opponent, then SHOTS evaluation games, the best of which is "
        "scored against the exact optimum (ORACLE's 1@1 and 2@1). --context reset "
        "(default) gives an LLM agent a fresh conversation per setting. Results go to "
        "runs/<suite name>-<tag>/<TURNS>at<SHOTS>-games-<context>-seed<SEED>."
    )

    def agent_names(self) -> list[str]:
        from evaluator.kinds.game.protocol import game_agent_names

        return game_agent_names()

    def check_agent_name(self, name: str) -> str:
        from evaluator.kinds.game.protocol import check_game_agent_name

        return check_game_agent_name(name)

    def configure(
        self, suite: SuiteInfo, given: Mapping[str, Any], command: Command
    ) -> GameSettings:
        spec = given.get("spec")
        if spec is None:
            raise UsageError(
                "the following arguments are required: SPEC (TURNS@SHOTS: exploration and "
                f"evaluation games per setting, e.g. 2@1) for {suite.family} suite {suite.name}"
            )
        return GameSettings(spec=_spec(spec), context=parse_context(given.get("context", "reset")))

    def arguments(self, settings: GameSettings) -> dict[str, Any]:
        return {
            "spec": str(settings.spec),
            "feedback": None,
            "options": {"context": settings.context},
        }

    def definition(self, settings: GameSettings) -> dict[str, Any]:
        return {"spec": str(settings.spec), "options": {"context": settings.context}}

    def run_slug(self, settings: GameSettings, seed: int) -> str:
        return f"{self.play_slug(settings)}-seed{seed}"

    def play_slug(self, settings: GameSettings) -> str:
        return f"{settings.spec.slug}-games-{settings.context}"

    def label(self, settings: GameSettings) -> str:
        return str(settings.spec)

    def make_agent(
        self, info: BoxInfo, job: EpisodeJobLike, settings: GameSettings, run: RunContext
    ) -> Any:
        from evaluator.kinds.game._run import make_kind_agent

        return make_kind_agent(info, job, run)

    def start(self, run: RunContext, settings: GameSettings) -> KindRun:
        from evaluator.kinds.game._run import GameRun

        return GameRun(run, settings)

    def load_record(self, raw: Any, path: Path) -> GameTrajectory:
        from evaluator.kinds.game.trajectory import GameTrajectory
        from evaluator.records import validate_record

        return validate_record(raw, GameTrajectory, path)

    def read_record(self, path: Path) -> GameTrajectory:
        from evaluator.kinds.game.trajectory import load_game_trajectory

        return load_game_trajectory(path)

    def save_record(self, record: GameTrajectory, path: Path) -> None:
        from evaluator.kinds.game.trajectory import save_game_trajectory

        save_game_trajectory(record, path)

    def score(self, record: GameTrajectory) -> float | None:
        return record.score

    def settings_of_manifest(self, arguments: Mapping[str, Any], path: Path) -> GameSettings:
        from evaluator.records import CorruptTrajectoryError

        options = arguments.get("options") or {}
        if arguments.get("spec") is None or not isinstance(options, Mapping):
            raise CorruptTrajectoryError("a game run manifest without a spec", path)
        try:
            context = parse_context(str(options.get("context", "reset")))
            return GameSettings(spec=_spec(arguments["spec"]), context=context)
        except (UsageError, ValueError) as exc:
            raise CorruptTrajectoryError(str(exc), path) from None

    def settings_of_record(self, record: GameTrajectory) -> GameSettings:
        return GameSettings(spec=TurnShot(record.turns, record.shots), context=record.context)

    def identity(self, record: GameTrajectory) -> dict[str, Any]:
        return {"spec": f"{record.turns}@{record.shots}", "context": record.context}

    def settings_identity(self, settings: GameSettings) -> dict[str, Any]:
        return {"spec": str(settings.spec), "context": settings.context}

    def summarise(
        self,
        records: Sequence[Any],
        paths: Sequence[Path],
        *,
        suite: str,
        seed: int,
        repeats: int,
        settings: GameSettings,
        bootstrap_seed: int | None = None,
    ) -> GameReport:
        from evaluator.kinds.game.summary import summarise_games

        return GameReport(
            summarise_games(
                list(records),
                suite=suite,
                spec=str(settings.spec),
                context=settings.context,
                seed=seed,
                repeats=repeats,
                bootstrap_seed=bootstrap_seed,
            )
        )

    def tables(self, summary: Any) -> list[Table]:
        from evaluator.kinds.game.summary import game_summary_tables

        return game_summary_tables(summary)

    def legend(self, summary: Any) -> str | None:
        from evaluator.kinds.game.summary import GAME_LEGEND

        return GAME_LEGEND

    def warnings(self, summary: Any) -> list[str]:
        from evaluator.failures import failure_warnings

        return failure_warnings(summary.failures, summary.excluded_boxes)

    def analyse(self, record: GameTrajectory) -> EpisodeAnalysis:
        from evaluator.kinds.game.analysis import analyse_game

        return analyse_game(record, self.name)

    def play_human(self, play: HumanPlay, settings: GameSettings) -> PlayedEpisode:
        from blackboxes.families import family_for_box
        from evaluator.kinds.game.human import HumanGameAgent
        from evaluator.kinds.game.protocol import GameEpisodeContext, run_game_episode

        box = play.box
        family: Any = family_for_box(box.info)
        agent = HumanGameAgent(play.io)
        ctx = GameEpisodeContext(
            suite=play.suite,
            agent_name=play.agent_name,
            spec=settings.spec,
            context=settings.context,
            seed=play.seed,
            repetition=play.repetition,
        )
        record = run_game_episode(box, family, agent, play.worker, ctx)
        return PlayedEpisode(record, agent.quit and record.status == "failed")

    def outcome_line(self, record: GameTrajectory) -> str:
        parts = ", ".join(
            f"{s.best}/{s.optimum:g}" for s in record.settings_played if s.best is not None
        )
        return f"Score {record.score:.3f} (best evaluation game / optimum per setting: {parts})."
