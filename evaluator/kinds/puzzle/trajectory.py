"""The record of a puzzle episode (IPI): K instances of one box's puzzle, each probed and
then answered; the only input of every puzzle metric.

Like every trajectory it is researcher-facing (it holds each instance's secret) and
never shown to agents, and it holds no wall-clock field.
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
    "PUZZLE_TRAJECTORY_SCHEMA_VERSION",
    "InstanceRecord",
    "ProbeRecord",
    "PuzzleAttempt",
    "PuzzleTrajectory",
    "load_puzzle_trajectory",
    "save_puzzle_trajectory",
]

PUZZLE_TRAJECTORY_SCHEMA_VERSION = 1


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ProbeRecord(_Model):
    """One exploration turn of an instance: a probe the box answered, or an invalid reply."""

    turn: int = Field(ge=1)
    text: str
    """The agent's reply (its recording-safe stand-in when over the limits)."""
    probe: str | None
    """The canonical probe; None for an invalid reply."""
    feedback: str | None
    """The box's feedback; None for an invalid reply."""
    error: str | None = None
    """Why the reply was invalid (shown to the agent)."""

    @property
    def answered(self) -> bool:
        return self.probe is not None and self.feedback is not None


class PuzzleAttempt(_Model):
    text: str
    answer: str | None
    """The canonical answer; None when it did not parse (judged wrong)."""
    correct: bool
    error: str | None = None


class InstanceRecord(_Model):
    """One puzzle instance: its secret, the probes, the answer attempts."""

    index: int = Field(ge=0)
    secret: str
    """The hidden secret (researcher-facing)."""
    solution: str
    """The answer that solves it (the secret itself, or what it implies: the best arm)."""
    probes: list[ProbeRecord]
    attempts: list[PuzzleAttempt]
    solved: bool
    probes_used: int
    """Probes the box answered before the first answer."""

    @model_validator(mode="after")
    def _consistent(self) -> InstanceRecord:
        answered = sum(p.answered for p in self.probes)
        if self.probes_used != answered:
            raise ValueError(f"probes_used is {self.probes_used} but {answered} were answered")
        if any(a.correct for a in self.attempts[:-1]):
            raise ValueError("an attempt follows a right one")
        if self.solved != (bool(self.attempts) and self.attempts[-1].correct):
            raise ValueError("solved disagrees with the last attempt")
        return self


def _no_conversation(value: object) -> bool:
    return value is None


class PuzzleTrajectory(_Model):
    """One puzzle episode of one agent on one box."""

    schema_version: Literal[1] = 1
    kind: Literal["puzzle"] = "puzzle"
    box_id: str
    box_digest: str
    suite: str
    family: str
    level: Literal["easy", "hard"]
    rule_kind: str
    """The puzzle (public for IPI: the rules are told)."""
    params: dict[str, Any]
    """The puzzle's parameters (public too): with the probes, every metric is recomputed
    from the record alone."""
    log2_h: float
    log2_y: float
    t_info: int
    suite_seed: int | Literal["secret"] | None = None
    agent: str
    turns: int = Field(ge=1)
    """Probes per instance (T of ``T@shot``)."""
    shots: int = Field(ge=1)
    """Answer attempts per instance."""
    feedback: Literal["instant", "deferred"]
    context: Literal["reset", "keep"]
    seed: int
    repetition: int = Field(ge=0)
    sandbox_layers: list[str]
    intro: str
    """The rules and protocol the agent was told."""
    instances: list[InstanceRecord]
    score: float | None
    """Solved instances / K; None when the episode failed."""
    invalid_turns: int
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
    def _consistent(self) -> PuzzleTrajectory:
        check_conversation(self.conversation, self.llm_calls)
        for inst in self.instances:
            if len(inst.attempts) > self.shots:
                raise ValueError(f"instance {inst.index} has more than {self.shots} attempt(s)")
            if len(inst.probes) > self.turns:
                raise ValueError(f"instance {inst.index} has more than {self.turns} probe turns")
        invalid = sum(not p.answered for inst in self.instances for p in inst.probes)
        if self.invalid_turns != invalid:
            raise ValueError(f"invalid_turns is {self.invalid_turns} but {invalid} were invalid")
        if self.status == "completed":
            solved = sum(inst.solved for inst in self.instances)
            if not self.instances or self.score != solved / len(self.instances):
                raise ValueError(
                    f"score is {self.score} but {solved} of {len(self.instances)} are solved"
                )
        elif self.score is not None:
            raise ValueError("a failed episode has no score")
        return self

    @property
    def queries_used(self) -> int:
        """Probes the box answered, over every instance."""
        return sum(inst.probes_used for inst in self.instances)


def save_puzzle_trajectory(traj: PuzzleTrajectory, path: Path) -> None:
    """Write ``traj`` atomically as canonical JSON."""
    atomic_write_text(Path(path), canonical_json(traj.model_dump(mode="json")))


def load_puzzle_trajectory(path: Path) -> PuzzleTrajectory:
    """Load and validate; :class:`~evaluator.records.CorruptTrajectoryError` naming the file."""
    return read_record(path, PuzzleTrajectory)
