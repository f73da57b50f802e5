"""What every kind's episodes look like to the analysis layer: steps, answers, information.

A kind turns each of its records into one :class:`EpisodeAnalysis`
(``EpisodeKind.analyse``); tiers, information curves, comparisons, the HTML report and
its trajectory viewer read only these, so a new kind plugs into all of them by
implementing that one method (and, for figures of its own, ``EpisodeKind.figures``).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "AnswerView",
    "ConversationMessage",
    "EpisodeAnalysis",
    "Figure",
    "Series",
    "StepView",
]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class StepView(_Model):
    """One exploration step as a reader sees it (a query, a probe, a game round, an MQ/EQ)."""

    index: int = Field(ge=1)
    """1-based step number in the order the agent took them."""
    action: str
    """What the agent did, as text: ``HELLO``, ``MQ abba``, ``EQ (4 states)``, ``play R``."""
    result: str
    """What the box answered, as shown to the agent (an error's text for a failed call)."""
    valid: bool = True
    """False for a reply that did not parse or a box call that failed."""
    counted: bool = True
    """False for a free re-asked reply (it cost no budget)."""
    bits: float | None = None
    """Realised information of this step (-log2 P(result)); None where not measurable."""
    expected_bits: float | None = None
    """Its expected information before the answer (entropy of the predicted result)."""
    log2_consistent: float | None = None
    """log2 of the hypotheses still consistent after this step (None: not measured)."""
    similarity: float | None = None
    """DFA: similarity of the hypothesis this step proposed to the target (None: none)."""
    note: str | None = None
    """Anything else a reader should see on this line (a kind's own remark)."""


class AnswerView(_Model):
    """One scored answer: a held-out item, a puzzle instance, a game setting, an EQ."""

    label: str
    """``item 3``, ``instance 2``, ``setting 1``."""
    given: str
    """The agent's (last) answer, as text."""
    expected: str | None = None
    """The right answer, for the reader (None where there is no single one)."""
    correct: bool | None = None
    """Whether it counted as right (None: scored on a scale, see ``score``)."""
    score: float | None = None
    attempts: int = 1


class ConversationMessage(_Model):
    """One message of the conversation an LLM agent had (what the model saw)."""

    role: Literal["system", "user", "assistant", "tool"]
    content: str
    tool_calls: list[dict[str, Any]] = Field(default_factory=list)
    call: int | None = None
    """For an assistant message: the index in ``llm_calls`` of the call that produced it."""


class EpisodeAnalysis(_Model):
    """One episode, kind-independent: identity, score, steps, answers, information."""

    box_id: str
    family: str
    level: str
    rule_kind: str
    bucket: str | None = None
    """A kind's finer group than the level (DFA: the state-count bucket ``2-5``)."""
    agent: str
    repetition: int = Field(ge=0)
    kind: str
    """The episode kind's registry name (``turns``, ``dfa``...)."""
    setting: str
    """The run's settings as a label: ``10@1 instant``, ``x2``."""
    budget: int | None = None
    """Exploration steps allowed (T of turn@shot; the DFA query budget)."""
    feedback: str | None = None
    """``instant`` or ``deferred`` where the kind has feedback modes."""
    status: str
    """``completed`` or ``failed``."""
    failure: str | None = None
    """``agent``, ``box`` or ``infrastructure`` for a failed episode."""
    error: str | None = None
    score: float | None = None
    """The kind's score in [0, 1] (accuracy, solved share, success, normalised game
    score); None when the episode was not scored."""
    log2_h: float | None = None
    t_info: int | None = None
    info_total: float | None = None
    """The information the agent gathered on the kind's own scale (bits for kinds with a
    version space); the basis of efficiency against the kind's reference agent."""
    info_exact: bool = True
    """False when ``info_total`` rests on a documented estimate."""
    query_keys: list[str] = Field(default_factory=list)
    """The agent's exploration choices, canonical and in order: two episodes chose alike
    exactly when these are equal (the counterfactual compares them). Feedback-derived
    content (a DFA hypothesis) is left out."""
    steps: list[StepView] = Field(default_factory=list)
    answers: list[AnswerView] = Field(default_factory=list)
    intro: str | None = None
    """The task intro the agent received."""
    conversation: list[ConversationMessage] | None = None
    """What an LLM agent's model saw and said, in order (None for other agents)."""
    metrics: dict[str, float | None] = Field(default_factory=dict)
    """A kind's own per-episode numbers for the viewer and its figures (DFA: ``cost``,
    ``best_similarity``...)."""


class Series(_Model):
    """One line (or bar group) of a figure."""

    label: str
    x: list[float | str]
    y: list[float | None]
    low: list[float | None] | None = None
    """The lower end of each point's 95% interval (None: no band)."""
    high: list[float | None] | None = None
    guide: bool = False
    """A guide line rather than data (a bound, a mean, a marker): drawn dashed and grey."""


class Figure(_Model):
    """A figure as data: rendered to SVG for the HTML report and to PNG/SVG/PDF files."""

    name: str
    """File stem: ``dfa-success-by-bucket``."""
    title: str
    x_label: str
    y_label: str
    chart: Literal["line", "bar", "step"] = "line"
    series: list[Series]
    y_range: tuple[float, float] | None = None
    log_x: bool = False
    caption: str | None = None
    """One or two sentences under the figure: what is plotted, what to look for."""
    section: str = "results"
    """Where the HTML report puts it: ``results``, ``information``, ``tiers``, ``dfa``..."""
