"""The Box format: the pydantic models behind suite.json and a box's four files.

A suite is a directory::

    <suite>/suite.json                  SuiteInfo
    <suite>/boxes/<id>/box.json         BoxInfo      public: what an agent may be told
    <suite>/boxes/<id>/blackbox.py      the code, only ever executed inside the sandbox
    <suite>/boxes/<id>/hidden.json      HiddenInfo   the rule; never shown to agents
    <suite>/boxes/<id>/provenance.json  Provenance   how the box was made

Everything here is deterministic: no wall-clock field is written unless the
caller supplies it, so the same seed gives byte-identical suites.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "BOX_FILES",
    "SCHEMA_VERSION",
    "Attempt",
    "BoxEntry",
    "BoxInfo",
    "CallRecord",
    "CallRole",
    "DfaBaselineCost",
    "DfaBoxInfo",
    "HiddenInfo",
    "JSONValue",
    "Level",
    "Provenance",
    "SuiteInfo",
    "Verdict",
]

SCHEMA_VERSION = 1
BOX_FILES = ("box.json", "blackbox.py", "hidden.json", "provenance.json")

JSONValue = Any
"""A JSON-compatible value (the sandbox and the models check it at the edges)."""

Level = Literal["easy", "hard"]
Verdict = Literal["correct", "execution_error", "misalignment"]
CallRole = Literal["designer", "coder", "tester", "refiner"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class DfaBaselineCost(_Model):
    """What a classic learner spent on a DFA box under the box's counterexample policy."""

    mq: int
    """Distinct membership queries."""
    eq: int
    """Equivalence queries, the accepted one included."""

    @property
    def total(self) -> int:
        return self.mq + self.eq


class DfaBoxInfo(_Model):
    """box.json facts of a DFA box: researcher-facing, except the budget and alphabet."""

    states: int
    """States of the minimal target DFA."""
    alphabet: list[str]
    counterexamples: Literal["short_random", "minimal"]
    baselines: dict[str, DfaBaselineCost]
    """``lstar``, ``kv`` and ``ttt`` run against the same oracle."""
    reference_cost: int
    """min(L* total, TTT total): the budget is a factor times this."""


class BoxInfo(_Model):
    """box.json: the public face of a box."""

    schema_version: Literal[1] = 1
    id: str
    family: str
    level: Level
    rule_kind: str
    """Public metadata for researchers; never shown to agents of hidden-rule families."""
    task_intro: str
    """The interface text an agent sees before exploring."""
    input_schema: str
    output_schema: str
    log2_h: float | None
    """Exact log2 of the hypothesis space of the box's rule kind; None when unknown."""
    log2_y: float
    """log2 of the number of possible answers to one query."""
    t_info: int | None
    """ceil(log2_h / log2_y): the information-theoretic lower bound on queries."""
    has_reference: bool = True
    """False for LLM-designed rules with no trusted reference implementation."""
    entry: str = "blackbox"
    """Name of the function blackbox.py defines."""
    dfa: DfaBoxInfo | None = None
    """Set for DFA boxes, whose episodes are MQ/EQ rather than turn@shot."""


class HiddenInfo(_Model):
    """hidden.json: the rule itself. Read by the evaluator, never by an agent."""

    schema_version: Literal[1] = 1
    rule_kind: str
    params: dict[str, JSONValue]
    description: str
    """The neutral description the coder implemented."""
    test_seed: int
    """Seeds the held-out items; drawn after exploration, excluding queried inputs."""


class CallRecord(_Model):
    """One LLM call made while generating a box: who, with what, at what price."""

    role: CallRole
    model: str
    """``provider/model`` as given on the command line."""
    params: dict[str, JSONValue] = Field(default_factory=dict)
    """The effective request parameters the provider reported."""
    usage: dict[str, int] = Field(default_factory=dict)
    """Normalised tokens: input, output, cache_read, cache_write, reasoning."""
    cost_usd: float | None = None
    """From the pricing table; None when the model has no price."""
    latency_s: float = 0.0
    retries: int = 0
    cached: bool = False
    """Replayed from a resumed run's cache: nothing was paid for it."""
    prompt_template: str | None = None
    """Template under templates/ the prompt was rendered from."""
    prompt_version: str | None = None


class Attempt(_Model):
    """One pass through coder -> tester -> refiner."""

    index: int
    code_sha256: str
    verdict: Verdict
    reasons: list[str] = Field(default_factory=list)
    differential_inputs: int = 0
    differential_mismatches: int = 0
    checks: dict[str, bool | None] = Field(default_factory=dict)
    """Named tester checks (compiles, runs, schema, differential, deterministic,
    non_degenerate): true passed, false failed, null not run (the tester stopped first)."""
    errors: list[str] = Field(default_factory=list)
    """The tester's error messages (a failing call, why it stopped), each clipped."""
    examples: list[str] = Field(default_factory=list)
    """The tester's failing examples (input, expected, got), each clipped."""
    template: str | None = None
    model: str | None = None
    """Model ids of the attempt's calls, comma-separated (None for the procedural backend)."""
    tokens: dict[str, int] = Field(default_factory=dict)
    """Sums over the attempt's calls."""
    cost_usd: float | None = None
    latency_s: float | None = None
    calls: list[CallRecord] = Field(default_factory=list)
    """Every LLM call of the attempt, in order (designer, coder, tester, refiner)."""
    prompt_version: str | None = None
    changes: list[str] = Field(default_factory=list)
    """What the refiner asked the coder to change."""
    overruled: bool = False
    """The refiner said ``correct`` but a check failed: the verdict was overruled."""


class Provenance(_Model):
    """provenance.json: how the box was made and every attempt's verdict."""

    schema_version: Literal[1] = 1
    backend: str
    tool_version: str
    accepted: bool
    attempts: list[Attempt]
    models: dict[str, str] = Field(default_factory=dict)
    sandbox_layers: list[str] = Field(default_factory=list)


class BoxEntry(_Model):
    """One box in suite.json with the sha256 of each of its files."""

    id: str
    digest: str
    """sha256 over the sorted ``name:sha256`` lines of the box's files."""
    files: dict[str, str]


class SuiteInfo(_Model):
    """suite.json."""

    schema_version: Literal[1] = 1
    name: str
    seed: int
    family: str
    level: Level
    created: str | None = None
    """Only set from SOURCE_DATE_EPOCH, so suites stay byte-identical by default."""
    tool_version: str
    backend: str
    options: dict[str, JSONValue] = Field(default_factory=dict)
    """Family options the suite was generated with (e.g. DFA state range)."""
    boxes: list[BoxEntry]
    rejected: list[str] = Field(default_factory=list)
    """Ids of candidates that never passed; their provenance is under rejected/."""
