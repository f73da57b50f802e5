"""The Box format: the pydantic models behind a suite's files.

A suite is a directory; its files are for one of two audiences::

    <suite>/suite.json                  SuiteInfo      public: name, family, level, the seed
                                                       if it is public (else a commitment),
                                                       box ids and box digests
    <suite>/owner.json                  SuiteOwnerInfo owner: the seed, every file's sha256
    <suite>/boxes/<id>/box.json         BoxInfo        public: what an agent may be told
    <suite>/boxes/<id>/blackbox.py      the code: run only inside the sandbox, never shown
    <suite>/boxes/<id>/facts.json       BoxFacts       owner: rule kind, log2|H|, |Y|, T_info
    <suite>/boxes/<id>/hidden.json      HiddenInfo     owner: the rule, the held-out seed
    <suite>/boxes/<id>/provenance.json  Provenance     owner: how the box was made

What an agent, a server or a published image may hand out is :data:`PUBLIC_SUITE_FILES`
and :data:`PUBLIC_BOX_FILES`; nothing in them lets anyone rebuild a key (per-file digests
live owner-side, since the digest of a small key space's code could be matched by trying
every key).

Everything here is deterministic: no wall-clock field is written unless the
caller supplies it, so the same explicit seed gives byte-identical suites.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "BOX_FILES",
    "OWNER_BOX_FILES",
    "PUBLIC_BOX_FILES",
    "PUBLIC_SUITE_FILES",
    "SCHEMA_VERSION",
    "Attempt",
    "BoxEntry",
    "BoxFacts",
    "BoxInfo",
    "CallRecord",
    "CallRole",
    "DfaBaselineCost",
    "DfaBoxInfo",
    "DfaFacts",
    "HiddenInfo",
    "JSONValue",
    "Level",
    "Provenance",
    "SuiteInfo",
    "SuiteOwnerInfo",
    "Verdict",
]

SCHEMA_VERSION = 2
PUBLIC_BOX_FILES = ("box.json",)
"""A box's files an agent may see."""
OWNER_BOX_FILES = ("facts.json", "hidden.json", "provenance.json")
"""A box's files only the benchmark owner sees."""
BOX_FILES = ("box.json", "blackbox.py", "facts.json", "hidden.json", "provenance.json")
"""Every file of a box; blackbox.py is run in the sandbox and never shown."""
PUBLIC_SUITE_FILES = ("suite.json",)
"""A suite's top-level files an agent may see (owner.json is the owner's)."""

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
    """box.json's part of a DFA box: what its episodes tell the agent."""

    alphabet: list[str]
    reference_cost: int
    """min(L* total, TTT total): the budget is a factor times this."""


class DfaFacts(_Model):
    """facts.json's part of a DFA box (owner-side)."""

    states: int
    """States of the minimal target DFA."""
    counterexamples: Literal["short_random", "minimal"]
    baselines: dict[str, DfaBaselineCost]
    """``lstar``, ``kv`` and ``ttt`` run against the same oracle."""


class BoxInfo(_Model):
    """box.json: what an agent may see of a box (the interface, never the rule)."""

    schema_version: Literal[2] = 2
    id: str
    family: str
    level: Level
    task_intro: str
    """The interface text an agent sees before exploring."""
    input_schema: str
    output_schema: str
    entry: str = "blackbox"
    """Name of the function blackbox.py defines."""
    interface: dict[str, JSONValue] = Field(default_factory=dict)
    """Public settings the family serves the box with (ERI: ``query_length``, ``output``);
    empty for families without any and for boxes written before they existed."""
    dfa: DfaBoxInfo | None = None
    """Set for DFA boxes, whose episodes are MQ/EQ rather than turn@shot."""


class BoxFacts(_Model):
    """facts.json: what the benchmark owner knows of a box beyond its rule (hidden.json).

    ``log2_h`` is exact (``log2_h_exact``) or an estimate with a bound at a confidence;
    ``t_info`` then comes from the bound's low end, so the lower bound on queries is
    never over-stated.
    """

    schema_version: Literal[1] = 1
    rule_kind: str
    log2_h: float | None
    """log2 of the hypothesis space of the box's rule kind; None when unknown."""
    log2_h_exact: bool = True
    log2_h_low: float | None = None
    """With an estimate: the low end of its interval (None when exact or unknown)."""
    log2_h_high: float | None = None
    log2_h_confidence: float | None = None
    """With an estimate: the confidence of [low, high]."""
    log2_y: float
    """log2 of the number of possible answers to one query."""
    t_info: int | None
    """ceil(log2_h / log2_y) (from log2_h_low for an estimate): the information-theoretic
    lower bound on queries."""
    has_reference: bool = True
    """False for LLM-designed rules with no trusted reference implementation."""
    dfa: DfaFacts | None = None


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
    """One box in suite.json."""

    id: str
    digest: str
    """sha256 over the sorted ``name:sha256`` lines of the box's files (the lines
    themselves are in owner.json: hidden.json's secret held-out seed makes this one
    digest impossible to match by trying keys)."""


class SuiteInfo(_Model):
    """suite.json: the public manifest."""

    schema_version: Literal[2] = 2
    name: str
    seed: int | None
    """The suite seed when it is public (``oracle-gen --seed N``): anyone can regenerate
    every box. None for a secret seed (the default)."""
    seed_commitment: str | None = None
    """For a secret seed: sha256 commitment to it (``blackboxes.store.seed_commitment``),
    so the owner can later prove which seed made the suite."""
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

    @property
    def seed_public(self) -> bool:
        return self.seed is not None


class SuiteOwnerInfo(_Model):
    """owner.json: the seed (public or secret) and every box file's sha256."""

    schema_version: Literal[1] = 1
    seed: int
    public: bool
    files: dict[str, dict[str, str]] = Field(default_factory=dict)
    """Box id -> file name -> sha256."""
