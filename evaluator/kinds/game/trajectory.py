"""The record of a game episode (GSI): for each of K game settings of one box, the
exploration games and the evaluation games against the hidden opponent strategy, with
the exact optimum and the references they are scored against.

Researcher-facing (it names the hidden strategy kind) and never shown to agents; no
wall-clock field.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from evaluator.conversation import ConversationLog, check_conversation
from evaluator.failures import FailureCause, fill_failure
from evaluator.records import EpisodeStatus, read_record
from evaluator.usage import LlmCallRecord, UsageTotals
from oracle_bench.jsonio import atomic_write_text, canonical_json

__all__ = [
    "GameRoundRecord",
    "GameTrajectory",
    "PlayedGame",
    "SettingRecord",
    "load_game_trajectory",
    "save_game_trajectory",
]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class GameRoundRecord(_Model):
    round: int = Field(ge=1)
    text: str
    """The agent's reply (its recording-safe stand-in when over the limits)."""
    action: str
    """The action played: the reply's, or the game's stand-in for an invalid reply."""
    opponent: str
    points: int
    """The player's points this round."""
    error: str | None = None
    """Why the reply was invalid (None: the agent's own action was played)."""


class PlayedGame(_Model):
    rounds: list[GameRoundRecord]
    score: int

    @model_validator(mode="after")
    def _consistent(self) -> PlayedGame:
        if self.score != sum(r.points for r in self.rounds):
            raise ValueError(f"score is {self.score}, not the sum of its rounds' points")
        return self


class SettingRecord(_Model):
    """One evaluation setting (game length, deck size...): its games and references."""

    index: int = Field(ge=0)
    settings: dict[str, int]
    optimum: float
    """The exact expected score of a best response to the true strategy (computed)."""
    security: float
    """The best score guaranteed without knowing the opponent (maximin, computed)."""
    uniform: float
    """The expected score of uniformly random play against the true strategy."""
    exploration: list[PlayedGame]
    evaluation: list[PlayedGame]
    best: int | None
    """The best evaluation score (None: no evaluation game finished)."""
    normalised: float | None
    """best / optimum, clipped to [0, 1] (a lucky game against a mixed opponent may beat
    the expected optimum); 1 when the optimum is 0."""

    @model_validator(mode="after")
    def _consistent(self) -> SettingRecord:
        best = max((g.score for g in self.evaluation), default=None)
        if self.best != best:
            raise ValueError(f"best is {self.best} but the evaluation games say {best}")
        return self


def _no_conversation(value: object) -> bool:
    return value is None


class GameTrajectory(_Model):
    """One game episode of one agent on one box."""

    schema_version: Literal[1] = 1
    kind: Literal["game"] = "game"
    box_id: str
    box_digest: str
    suite: str
    family: str
    level: Literal["easy", "hard"]
    rule_kind: str
    """The hidden strategy kind (researcher-facing)."""
    game: str
    log2_h: float | None
    """log2 of the strategy kind's parameter space."""
    suite_seed: int | Literal["secret"] | None = None
    agent: str
    turns: int = Field(ge=1)
    """Exploration games per setting (T of ``T@shot``)."""
    shots: int = Field(ge=1)
    """Evaluation games per setting; the best counts."""
    context: Literal["reset", "keep"]
    seed: int
    repetition: int = Field(ge=0)
    sandbox_layers: list[str]
    intro: str
    settings_played: list[SettingRecord]
    score: float | None
    """Mean normalised best evaluation score over the settings; None when failed."""
    invalid_rounds: int
    agent_notes: list[str] = Field(default_factory=list)
    llm_calls: list[LlmCallRecord] = Field(default_factory=list)
    usage: UsageTotals | None = None
    conversation: ConversationLog | None = Field(default=None, exclude_if=_no_conversation)
    """What an LLM agent's model saw, each message once (see
    :mod:`evaluator.conversation`); absent for agents that call no model."""
    settings: dict[str, Any] = Field(default_factory=dict)
    status: EpisodeStatus
    error: str | None = None
    failure: FailureCause | None = None

    _fill_failure = model_validator(mode="before")(fill_failure)

    @model_validator(mode="after")
    def _consistent(self) -> GameTrajectory:
        check_conversation(self.conversation, self.llm_calls)
        for s in self.settings_played:
            if len(s.exploration) > self.turns or len(s.evaluation) > self.shots:
                raise ValueError(f"setting {s.index} has more games than {self.turns}@{self.shots}")
        invalid = sum(
            r.error is not None
            for s in self.settings_played
            for g in (*s.exploration, *s.evaluation)
            for r in g.rounds
        )
        if self.invalid_rounds != invalid:
            raise ValueError(f"invalid_rounds is {self.invalid_rounds} but {invalid} were")
        if self.status == "completed":
            values = [s.normalised for s in self.settings_played]
            if not values or any(v is None for v in values):
                raise ValueError("a completed episode scores every setting")
            mean = sum(v for v in values if v is not None) / len(values)
            if self.score is None or abs(self.score - mean) > 1e-9:
                raise ValueError(f"score is {self.score} but the settings' mean is {mean}")
        elif self.score is not None:
            raise ValueError("a failed episode has no score")
        return self

    @property
    def queries_used(self) -> int:
        """Exploration games played, over every setting."""
        return sum(len(s.exploration) for s in self.settings_played)


def save_game_trajectory(traj: GameTrajectory, path: Path) -> None:
    """Write ``traj`` atomically as canonical JSON."""
    atomic_write_text(Path(path), canonical_json(traj.model_dump(mode="json")))


def load_game_trajectory(path: Path) -> GameTrajectory:
    """Load and validate; :class:`~evaluator.records.CorruptTrajectoryError` naming the file."""
    return read_record(path, GameTrajectory)
