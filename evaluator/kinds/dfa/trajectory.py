"""The record of one DFA episode (MQ/EQ until an EQ is accepted or the budget is spent).

A DFA trajectory is self-contained: it holds the target, the counterexample policy,
the baselines' costs and every call, so every DFA metric is a pure function of it
(``evaluator.kinds.dfa.metrics``). Like function-family trajectories, it has no wall-clock
field: the same seed gives byte-identical files.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from blackboxes.automata.dfa import DFA
from blackboxes.box import DfaBaselineCost
from evaluator.conversation import ConversationLog, check_conversation
from evaluator.failures import FailureCause, fill_failure
from evaluator.records import EpisodeStatus, read_record
from evaluator.usage import LlmCallRecord, UsageTotals
from oracle_bench.jsonio import atomic_write_text, canonical_json

__all__ = [
    "DFA_TRAJECTORY_SCHEMA_VERSION",
    "DfaCall",
    "DfaMeasured",
    "DfaTrajectory",
    "dfa_trajectory_text",
    "load_dfa_trajectory",
    "round_half_up",
    "save_dfa_trajectory",
]

DFA_TRAJECTORY_SCHEMA_VERSION = 1

CallTool = Literal["mq", "eq"]


def round_half_up(x: float) -> int:
    """Budgets round halves up (2.5 -> 3), as the DFA seed's code does, not to even."""
    # The small epsilon keeps 1.25 * 26 = 32.5 from landing at 32.49999... below.
    return int(x + 0.5 + 1e-9)


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class DfaCall(_Model):
    """One tool call. Invalid calls are recorded and free; valid ones consume budget."""

    index: int = Field(ge=1)
    """1-based position among all calls, invalid ones included."""
    text: str
    """The agent's raw call (for structured agents, the canonical JSON of the call)."""
    tool: CallTool | None = None
    """None when the call could not be parsed at all."""
    valid: bool
    step: int | None = None
    """1-based number among counted (budget-consuming) calls; None for invalid calls."""
    word: str | None = None
    """The MQ word."""
    hypothesis: dict[str, Any] | None = None
    """The EQ hypothesis as submitted, in ``DFA.to_table()`` form."""
    member: bool | None = None
    """The MQ answer."""
    accepted: bool | None = None
    """The EQ verdict."""
    counterexample: str | None = None
    """The EQ witness when the hypothesis was wrong."""
    shown: str
    """The exact text shown back to the agent."""
    error: str | None = None
    """``invalid_call`` for a call that did not parse or validate, else a box fault kind."""

    def hypothesis_dfa(self) -> DFA | None:
        """The submitted hypothesis as a DFA (None for MQs and unparsed calls)."""
        return None if self.hypothesis is None else DFA.from_table(self.hypothesis)


def _no_conversation(value: object) -> bool:
    return value is None


class DfaMeasured(_Model):
    """What the summary and the analysis need of a withheld target, measured by the
    server that withheld it (a served box never hands out its target)."""

    similarity_len: int
    metrics: dict[str, Any]
    """``DfaEpisodeMetrics`` with similarity over words of length <= ``similarity_len``."""
    information: float | None
    """``dfa_information`` (None for a record that is not scored)."""


def _not_measured(value: object) -> bool:
    return value is None


class DfaTrajectory(_Model):
    """One agent's episode on one DFA box."""

    schema_version: Literal[1] = 1
    kind: Literal["dfa"] = "dfa"
    box_id: str
    box_digest: str
    suite: str
    family: Literal["DFA"] = "DFA"
    suite_seed: int | Literal["secret"] | None = None
    """The suite's seed when public, ``"secret"`` for a secret one (None: not recorded)."""
    agent: str
    seed: int
    repetition: int = Field(ge=0)
    sandbox_layers: list[str]
    intro: str
    """The task intro the agent received."""
    states: int
    alphabet: list[str]
    target: dict[str, Any]
    """The minimal target in ``DFA.to_table()`` form (researcher-facing, never shown)."""
    counterexamples: Literal["short_random", "minimal"]
    baselines: dict[str, DfaBaselineCost]
    reference_cost: int
    """min(L* total, TTT total) on this box."""
    budget_factor: float
    budget: int
    """round_half_up(budget_factor * reference_cost): counted calls allowed."""
    calls: list[DfaCall]
    success: bool
    """An EQ was accepted within the budget."""
    cost: int | None
    """Counted calls up to and including the accepted EQ; None without success."""
    queries_used: int
    """Counted calls made (MQ + EQ)."""
    invalid_calls: int
    agent_notes: list[str] = Field(default_factory=list)
    llm_calls: list[LlmCallRecord] = Field(default_factory=list)
    """Every provider call of an LLM agent, re-asks included ([] for other agents)."""
    usage: UsageTotals | None = None
    """The sums of ``llm_calls``; None for agents that call no model."""
    conversation: ConversationLog | None = Field(default=None, exclude_if=_no_conversation)
    measured: DfaMeasured | None = Field(default=None, exclude_if=_not_measured)
    """Set when ``target`` is withheld (a served box's record): the target-based
    measures, taken before; absent from local records."""
    """What an LLM agent's model saw, each message once (see
    :mod:`evaluator.conversation`); absent for agents that call no model."""
    settings: dict[str, Any] = Field(default_factory=dict)
    """Run settings that shaped the episode beyond this header, by flag (e.g.
    ``--invalid-turns``; for LLM agents ``--protocol``, ``--history``, ``--model-option``):
    a resumed run reuses the episode only with the same settings."""
    status: EpisodeStatus
    error: str | None = None
    failure: FailureCause | None = None
    """Why a failed episode failed (see :mod:`evaluator.failures`); None when it completed."""

    _fill_failure = model_validator(mode="before")(fill_failure)

    @model_validator(mode="after")
    def _consistent(self) -> DfaTrajectory:
        """The scores are those of the record itself: counts, success and cost that its
        calls contradict make the file corrupt, not a result."""
        check_conversation(self.conversation, self.llm_calls)
        steps = [c.step for c in self.calls if c.step is not None]
        if steps != list(range(1, len(steps) + 1)) or self.queries_used != len(steps):
            raise ValueError(
                f"queries_used is {self.queries_used} but the calls count {len(steps)} steps"
            )
        invalid = sum(not c.valid for c in self.calls)
        if self.invalid_calls != invalid:
            raise ValueError(f"invalid_calls is {self.invalid_calls} but {invalid} calls are")
        accepted = any(c.tool == "eq" and c.accepted for c in self.calls if c.step is not None)
        if self.success != accepted:
            raise ValueError(f"success is {self.success} but no counted EQ says so")
        if self.cost != (self.queries_used if self.success else None):
            raise ValueError(f"cost is {self.cost} with {self.queries_used} calls used")
        return self

    def target_dfa(self) -> DFA:
        """The hidden target as a DFA."""
        return DFA.from_table(self.target)

    def counted(self) -> list[DfaCall]:
        """The budget-consuming calls, in order."""
        return [c for c in self.calls if c.step is not None]


def dfa_trajectory_text(traj: DfaTrajectory) -> str:
    """The canonical JSON text of a DFA trajectory (what is written to disk)."""
    return canonical_json(traj.model_dump(mode="json"))


def save_dfa_trajectory(traj: DfaTrajectory, path: Path) -> None:
    """Write ``traj`` atomically as canonical JSON."""
    atomic_write_text(Path(path), dfa_trajectory_text(traj))


def load_dfa_trajectory(path: Path) -> DfaTrajectory:
    """Load and validate; raises :class:`CorruptTrajectoryError` naming the file."""
    return read_record(path, DfaTrajectory)
