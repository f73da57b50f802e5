"""Generation backends: who writes the code (coder) and who judges it (refiner).

Two backends exist: ``procedural`` (the coder renders the rule kind's jinja2
template, the refiner turns the tester's report into a verdict; offline and
deterministic) and ``llm`` (``generator.llm_backend``: LLMs write, play-test and
judge the code). Both speak the protocol below; the graph (``generator.graph``)
makes the acceptance decision, never the backend alone.

Optional parts of the protocol, looked up with ``getattr`` by the graph:

* ``play_test(rule, family, code) -> PlayLog | None``: a short test-player episode
  whose log goes to the refiner (the procedural backend has none);
* ``design: Literal["reference", "llm"]`` and ``design_rule(family, level) -> Design``:
  with ``design == "llm"`` the backend invents the rule itself. From prose alone the box
  has no trusted reference implementation; a family that asks for a formal design
  (``Family.design_schema``) builds the rule from it, with a reference when it can.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from oracle_bench.errors import UnknownNameError, UsageError
from templates import render

if TYPE_CHECKING:  # oracle-gen's parser lists the backends without importing these
    from blackboxes.box import CallRecord, Verdict
    from blackboxes.families import Family, Rule
    from generator.tester import CandidateReport

__all__ = [
    "Backend",
    "Design",
    "Draft",
    "Judgement",
    "PlayLog",
    "PlayTurn",
    "ProceduralBackend",
    "backend_names",
    "create_backend",
    "register_backend",
]


@dataclass(frozen=True)
class Draft:
    """What the coder wrote: the code, the template or prompt it came from, its LLM calls."""

    code: str
    template: str
    calls: tuple[CallRecord, ...] = ()


@dataclass(frozen=True)
class Judgement:
    """The refiner's structured verdict.

    As feedback to the coder (the graph builds it after each rejected attempt),
    ``evidence`` holds the tester's failing examples and errors.
    """

    verdict: Verdict
    reasons: tuple[str, ...]
    changes: tuple[str, ...] = ()
    """What the refiner asks the coder to change."""
    calls: tuple[CallRecord, ...] = ()
    evidence: tuple[str, ...] = ()


@dataclass(frozen=True)
class PlayTurn:
    """One query of a test-player episode and what the box answered."""

    query: str
    """The query as the player wrote it."""
    output: str | None = None
    """The box's rendered answer; None when the query or the call failed."""
    error: str | None = None


@dataclass(frozen=True)
class PlayLog:
    """A short test-player episode against a candidate box."""

    turns: tuple[PlayTurn, ...]
    notes: tuple[str, ...] = ()
    """Problems with the player's reply itself (unparseable, too few queries)."""
    calls: tuple[CallRecord, ...] = ()

    def render(self) -> str:
        """The log as the refiner reads it."""
        lines = list(self.notes)
        for i, turn in enumerate(self.turns, 1):
            if turn.error is not None:
                lines.append(f"{i}. query {turn.query!r} -> error: {turn.error}")
            else:
                lines.append(f"{i}. query {turn.query!r} -> {turn.output!r}")
        return "\n".join(lines) if lines else "(the test player made no queries)"


@dataclass(frozen=True)
class Design:
    """A rule the LLM designer invented: a neutral description and, for a family that asks
    for one (``Family.design_schema``), the formal part it builds the rule from."""

    description: str
    calls: tuple[CallRecord, ...] = ()
    fields: Mapping[str, Any] | None = None
    """The formal part, already accepted by ``Family.check_design``; None: prose only."""


class Backend(Protocol):
    """Writes candidate code and judges a tester report."""

    @property
    def name(self) -> str:
        """Recorded in provenance.json."""
        ...

    def write_code(self, rule: Rule, family: Family, feedback: Judgement | None) -> Draft:
        """Code for the rule, given the last rejected attempt's verdict and evidence if any."""
        ...

    def judge(
        self,
        rule: Rule,
        family: Family,
        code: str,
        report: CandidateReport,
        play_log: str | None,
    ) -> Judgement:
        """A structured verdict on the code from the tester's report and play log."""
        ...


_BACKENDS: dict[str, Callable[[], Backend]] = {}


def register_backend(name: str) -> Callable[[Callable[[], Backend]], Callable[[], Backend]]:
    def deco(factory: Callable[[], Backend]) -> Callable[[], Backend]:
        _BACKENDS[name] = factory
        return factory

    return deco


def create_backend(name: str) -> Backend:
    factory = _BACKENDS.get(name)
    if factory is None:
        raise UnknownNameError("backend", name, list(_BACKENDS))
    return factory()


def backend_names() -> list[str]:
    return sorted(_BACKENDS)


@register_backend("llm")
def _llm_needs_models() -> Backend:
    # The LLM backend is built with its providers by generator.llm_backend.create_llm_backend.
    raise UsageError("the llm backend needs models: pass --coder MODEL and --refiner MODEL")


def judge_report(report: CandidateReport) -> Judgement:
    """The verdict a tester report supports on its own (the procedural refiner).

    Its reasons are the tester's own messages (errors, failing examples, why it stopped),
    so a rejected attempt records what went wrong, not only which checks did not pass.
    """
    from generator.tester import describe_checks

    checks = report.checks
    evidence = tuple(report.examples) + tuple(report.errors)
    if report.passed:
        if "differential" not in checks:
            return Judgement("correct", (f"every property check holds on {report.inputs} inputs",))
        return Judgement(
            "correct", (f"matches the reference rule on all {report.inputs} differential inputs",)
        )
    summary = f"checks {describe_checks(checks)}"
    runs = checks.get("compiles") is True and checks.get("runs") is True
    if not runs or report.not_run():  # a check not run: the tester had to stop
        return Judgement(
            "execution_error",
            (*(report.errors or ("the code does not run",)), summary),
            evidence=evidence,
        )
    if checks.get("deterministic") is False:
        return Judgement(
            "execution_error",
            ("outputs differ between two runs of the same input", summary),
            evidence=evidence,
        )
    reasons = [summary, *report.examples, *report.errors]
    return Judgement("misalignment", tuple(reasons), evidence=evidence)


@register_backend("procedural")
@dataclass(frozen=True)
class ProceduralBackend:
    """Offline backend: templates in, tester-derived verdicts out."""

    name: str = "procedural"

    def write_code(self, rule: Rule, family: Family, feedback: Judgement | None) -> Draft:
        template, context = family.code_template(rule)
        return Draft(render(template, **context), template)

    def judge(
        self,
        rule: Rule,
        family: Family,
        code: str,
        report: CandidateReport,
        play_log: str | None = None,
    ) -> Judgement:
        return judge_report(report)
