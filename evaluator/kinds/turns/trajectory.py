"""The episode record: one JSON trajectory per episode, the only input of every metric.

Trajectories are researcher-facing (they name the box's rule kind) and never shown to
agents. They hold no wall-clock field, so the same seed gives byte-identical files;
run timing lives in the run manifest.
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
    "TRAJECTORY_SCHEMA_VERSION",
    "AttemptRecord",
    "ItemRecord",
    "SpecRecord",
    "SubmissionRecord",
    "Trajectory",
    "TurnRecord",
    "load_trajectory",
    "save_trajectory",
    "trajectory_text",
]

TRAJECTORY_SCHEMA_VERSION = 1

JSONValue = Any


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SpecRecord(_Model):
    turns: int = Field(ge=1)
    shots: int = Field(ge=1)


class TurnRecord(_Model):
    """One exploration reply. Every turn costs budget, valid or not, except the invalid
    replies re-asked under ``--invalid-turns free`` (``counted=False``)."""

    index: int = Field(ge=1)
    """1-based turn number."""
    text: str
    """The agent's raw reply."""
    query: JSONValue = None
    """The parsed query, or None when the reply did not parse (``valid`` is authoritative)."""
    valid: bool
    shown: str
    """The exact text shown back to the agent for this turn."""
    output: JSONValue = None
    """The box's output value when the call succeeded."""
    error_kind: str | None = None
    """``invalid_query`` for an unparsable reply, else the sandbox ErrorKind of a failed call."""
    counted: bool = True
    """False for a free invalid reply that was asked again (same ``index``)."""

    @property
    def answered(self) -> bool:
        """A valid query the box answered: what counts as a query used."""
        return self.valid and self.error_kind is None


def _absent(value: object) -> bool:
    return value is None


class AttemptRecord(_Model):
    text: str
    """The answer as given; for a code answer, the program's output rendered (or its error)."""
    correct: bool
    wrong: list[str] | None = Field(default=None, exclude_if=_absent)
    """The parts a wrong answer got wrong, for families that break answers down (PSI's
    objects); absent otherwise."""


class SubmissionRecord(_Model):
    """One program submitted as the answer to every held-out item (``answers_as_code``)."""

    attempt: int = Field(ge=0)
    source: str
    """The program as run (extracted from the agent's reply)."""
    reply: str
    """The agent's whole reply."""
    error: str | None = None
    """Why the program could not run at all (refused by the compiler, a worker that would
    not start); every item it was asked is then wrong."""
    correct: int = Field(ge=0)
    """Items this submission answered right (of those still open when it was run)."""
    asked: int = Field(ge=0)


class ItemRecord(_Model):
    """One held-out item of the evaluation phase."""

    index: int = Field(ge=1)
    input: JSONValue
    input_text: str
    expected: JSONValue
    """The box's own output for ``input`` (computed in the sandbox), never shown to the agent."""
    attempts: list[AttemptRecord]
    correct: bool

    @model_validator(mode="after")
    def _consistent(self) -> ItemRecord:
        """Attempts stop at the first right one, and the item is right when its last is."""
        verdicts = [a.correct for a in self.attempts]
        if any(verdicts[:-1]) or self.correct != (bool(verdicts) and verdicts[-1]):
            raise ValueError(
                f"item {self.index}: correct is {self.correct} but its attempts say {verdicts}"
            )
        return self


def _no_conversation(value: object) -> bool:
    return value is None


class Trajectory(_Model):
    """One episode of one agent on one box (DESIGN.md "Evaluation protocol")."""

    schema_version: Literal[1] = 1
    box_id: str
    box_digest: str
    suite: str
    family: str
    level: Literal["easy", "hard"]
    rule_kind: str
    """Researcher-facing metadata from box.json; never given to the agent."""
    log2_h: float | None
    log2_y: float
    t_info: int | None
    suite_seed: int | Literal["secret"] | None = None
    """The suite's seed when public, ``"secret"`` for a secret one (None: not recorded)."""
    agent: str
    spec: SpecRecord
    feedback: Literal["instant", "deferred"]
    seed: int
    repetition: int = Field(ge=0)
    sandbox_layers: list[str]
    intro: str
    """The task intro the agent received."""
    turns: list[TurnRecord]
    items: list[ItemRecord]
    accuracy: float | None
    """Correct items / K; None when the episode failed before scoring."""
    submissions: list[SubmissionRecord] | None = Field(default=None, exclude_if=_absent)
    """The programs of a code-answer episode, in order (absent for answers per item)."""
    queries_used: int
    """Valid queries the box answered."""
    invalid_turns: int
    """Replies that did not parse (counted or, re-asked, free)."""
    agent_notes: list[str] = Field(default_factory=list)
    """What the agent chose to report (e.g. a fallback it took)."""
    llm_calls: list[LlmCallRecord] = Field(default_factory=list)
    """Every provider call of an LLM agent, re-asks included ([] for other agents)."""
    usage: UsageTotals | None = None
    """The sums of ``llm_calls``; None for agents that call no model."""
    conversation: ConversationLog | None = Field(default=None, exclude_if=_no_conversation)
    """What an LLM agent's model saw, each message once (see
    :mod:`evaluator.conversation`); absent for agents that call no model."""
    settings: dict[str, Any] = Field(default_factory=dict)
    """Run settings that shaped the episode beyond this header, by flag (e.g.
    ``--invalid-turns``; for LLM agents ``--protocol``, ``--history``, ``--model-option``):
    a resumed run reuses the episode only with the same settings."""
    status: EpisodeStatus
    error: str | None = None
    failure: FailureCause | None = None
    """Why a failed episode failed (``agent``, ``box``, ``infrastructure``; see
    :mod:`evaluator.failures`); None when it completed."""

    _fill_failure = model_validator(mode="before")(fill_failure)

    @model_validator(mode="after")
    def _consistent(self) -> Trajectory:
        """The scores are those of the record itself: a file whose accuracy or query count
        disagrees with its items or turns is corrupt, not a result."""
        check_conversation(self.conversation, self.llm_calls)
        answered = sum(t.answered for t in self.turns)
        if self.queries_used != answered:
            raise ValueError(
                f"queries_used is {self.queries_used} but {answered} turns were answered"
            )
        if any(len(item.attempts) > self.spec.shots for item in self.items):
            raise ValueError(f"an item has more attempts than the {self.spec.shots} shot(s)")
        if self.status == "completed":
            right = sum(item.correct for item in self.items)
            if not self.items or self.accuracy != right / len(self.items):
                raise ValueError(
                    f"accuracy is {self.accuracy} but {right} of {len(self.items)} items are right"
                )
        elif self.accuracy is not None:
            raise ValueError("a failed episode has no accuracy")
        return self

    def queried_inputs(self) -> list[JSONValue]:
        """Every valid parsed query, in order (answered or not)."""
        return [t.query for t in self.turns if t.valid]

    def history(self) -> list[tuple[JSONValue, JSONValue]]:
        """The (input, output) pairs the box answered, in order."""
        return [(t.query, t.output) for t in self.turns if t.answered]


def trajectory_text(traj: Trajectory) -> str:
    """The canonical JSON text of a trajectory (what is written to disk)."""
    return canonical_json(traj.model_dump(mode="json"))


def save_trajectory(traj: Trajectory, path: Path) -> None:
    """Write ``traj`` atomically as canonical JSON."""
    atomic_write_text(Path(path), trajectory_text(traj))


def load_trajectory(path: Path) -> Trajectory:
    """Load and validate a trajectory; raises :class:`CorruptTrajectoryError` naming the file."""
    return read_record(path, Trajectory)
