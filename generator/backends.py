"""Generation backends: who writes the code (coder) and who judges it (refiner).

Only the ``procedural`` backend exists in this release: the coder renders the
rule kind's jinja2 template and the refiner turns the tester's report into a
structured verdict. LLM backends plug in through the same protocol.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from blackboxes.box import Verdict
from blackboxes.families import Family, Rule
from generator.tester import CandidateReport
from oracle_bench.errors import UnknownNameError
from templates import render

__all__ = [
    "Backend",
    "Judgement",
    "ProceduralBackend",
    "backend_names",
    "create_backend",
    "register_backend",
]


@dataclass(frozen=True)
class Judgement:
    """The refiner's structured verdict."""

    verdict: Verdict
    reasons: tuple[str, ...]


class Backend(Protocol):
    """Writes candidate code and judges a tester report."""

    @property
    def name(self) -> str:
        """Recorded in provenance.json."""
        ...

    def write_code(self, rule: Rule, family: Family, feedback: Judgement | None) -> tuple[str, str]:
        """Return (code, template or prompt id) for the rule, given the last verdict if any."""
        ...

    def judge(self, rule: Rule, family: Family, code: str, report: CandidateReport) -> Judgement:
        """A structured verdict on the code from the tester's report."""
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


def judge_report(report: CandidateReport) -> Judgement:
    """The verdict a tester report supports on its own (the procedural refiner)."""
    checks = report.checks
    if not checks.get("compiles", False) or not checks.get("runs", False):
        return Judgement("execution_error", tuple(report.errors) or ("the code does not run",))
    if not checks.get("deterministic", False):
        return Judgement("execution_error", ("outputs differ between two runs of the same input",))
    failed = sorted(name for name, ok in checks.items() if not ok)
    if failed:
        reasons = [f"failed checks: {', '.join(failed)}"]
        reasons += list(report.examples) + list(report.errors)
        return Judgement("misalignment", tuple(reasons))
    return Judgement(
        "correct", (f"matches the reference rule on all {report.inputs} differential inputs",)
    )


@register_backend("procedural")
@dataclass(frozen=True)
class ProceduralBackend:
    """Offline backend: templates in, tester-derived verdicts out."""

    name: str = "procedural"

    def write_code(self, rule: Rule, family: Family, feedback: Judgement | None) -> tuple[str, str]:
        template, context = family.code_template(rule)
        return render(template, **context), template

    def judge(self, rule: Rule, family: Family, code: str, report: CandidateReport) -> Judgement:
        return judge_report(report)
