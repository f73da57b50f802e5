"""The three-agent generation graph.

``spec | designer -> coder -> tester -> refiner -> accept | coder | reject``

This is the only module that imports LangGraph. The loop is bounded twice: by
the ``attempt`` counter in the state and by an explicit recursion limit, so a
backend that never converges ends in ``reject``, never in an accepted box.

Acceptance is decided here, not by the backend: a candidate is accepted only when
the refiner says ``correct`` AND every tester check passes (the differential test
against the trusted reference included, when there is one). A refiner that says
``correct`` while a check fails is overruled; the attempt records it
(``overruled: true`` and the reason) and the loop goes on.

With ``design == "llm"`` the backend's designer invents the rule: the state then
carries ``has_reference: False`` and the designed ``description``, the tester
skips the differential test (there is nothing trusted to compare with) and the
verdict rests on the refiner plus every property check. A family that takes formal
designs (``Family.design_schema``) builds the rule itself (``formal: True``, its
``kind`` and ``params``): with a reference the differential test runs as usual;
without one, code that passes every check is then measured (``Family.design_measurements``,
the ``measured`` check), and the measured parameters are what the box is written with.

Errors: a ``ProviderError`` raised by an LLM call inside a node (after the
provider's own retries) is NOT caught here; it propagates out of ``invoke`` so the
caller (``generator.suite``) can record the box as failed with the reason and go
on. With a checkpointer, the state up to the last completed node is saved, so a
resumed run does not repeat finished nodes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from langgraph.graph import END, START, StateGraph

from blackboxes.box import CallRecord, Level
from blackboxes.families import Family, Rule
from generator._state import CandidateState
from generator.backends import Backend, Judgement
from generator.tester import (
    DEFAULT_TESTER_BUDGET_S,
    CandidateReport,
    check_candidate,
    describe_checks,
    measure_design,
)
from oracle_bench.errors import FamilyError, GenerationError, ProviderResponseError
from oracle_bench.jsonio import sha256_hex
from oracle_bench.rng import rng_for
from providers import call_scope
from sandbox import SandboxLimits

__all__ = [
    "DESIGNED_KIND",
    "GraphSettings",
    "attempt_summary",
    "build_graph",
    "designed_rule",
    "recursion_limit",
]

DESIGNED_KIND = "llm_designed"
"""``Rule.kind`` of a rule an LLM designed (it has no reference implementation)."""


@dataclass(frozen=True)
class GraphSettings:
    seed: int
    max_attempts: int = 3
    differential_inputs: int = 256
    limits: SandboxLimits | None = None
    tester_budget_s: float | None = DEFAULT_TESTER_BUDGET_S
    """Wall-clock seconds per tester run (see ``generator.tester``); None: unbounded."""


_RECORDED_MESSAGES = 8
"""Tester errors (and, separately, failing examples) an attempt record keeps."""
_RECORDED_CHARS = 400


def _clip_messages(items: Iterable[str]) -> list[str]:
    out = []
    for item in list(items)[:_RECORDED_MESSAGES]:
        out.append(item if len(item) <= _RECORDED_CHARS else item[: _RECORDED_CHARS - 3] + "...")
    return out


def recursion_limit(max_attempts: int) -> int:
    """Steps one candidate may take: spec or designer, three per attempt, and the final node."""
    return 3 * max_attempts + 3


def attempt_summary(calls: Iterable[CallRecord]) -> dict[str, Any]:
    """An attempt's ``model``, ``tokens``, ``cost_usd``, ``latency_s``, ``prompt_version``.

    Sums over its calls. The cost is None when any paid call has no price (the
    total would be wrong); cached calls cost nothing. No calls: no model, no cost.
    """
    calls = list(calls)
    if not calls:
        return {
            "model": None,
            "tokens": {},
            "cost_usd": None,
            "latency_s": None,
            "prompt_version": None,
        }
    tokens: dict[str, int] = {}
    for call in calls:
        for key, value in call.usage.items():
            tokens[key] = tokens.get(key, 0) + value
    costs = [0.0 if c.cached else c.cost_usd for c in calls]
    models = list(dict.fromkeys(c.model for c in calls))
    versions = [c.prompt_version for c in calls if c.prompt_version is not None]
    return {
        "model": ",".join(models),
        "tokens": dict(sorted(tokens.items())),
        "cost_usd": None if any(c is None for c in costs) else sum(c for c in costs if c),
        "latency_s": sum(c.latency_s for c in calls),
        "prompt_version": versions[0] if versions else None,
    }


def _no_reference(x: Any) -> Any:
    raise GenerationError("an LLM-designed rule has no reference implementation")


def designed_rule(family: Family, level: Level, description: str) -> Rule:
    """The Rule handed to the coder and refiner for an LLM-designed box."""
    return Rule(
        family=family.name,
        kind=DESIGNED_KIND,
        level=level,
        params={},
        description=description,
        fn=_no_reference,
        reference=False,
    )


def _dump(calls: Iterable[CallRecord]) -> list[dict[str, Any]]:
    return [c.model_dump(mode="json") for c in calls]


def build_graph(
    family: Family, backend: Backend, settings: GraphSettings, *, checkpointer: Any = None
) -> Any:
    """Compile the graph for one family and backend.

    ``checkpointer`` (e.g. a LangGraph ``SqliteSaver``) is passed to
    ``compile(checkpointer=...)``; invoke with ``{"configurable": {"thread_id": box_id}}``
    then. ``ProviderError`` from a backend propagates out of ``invoke`` (see the
    module docstring).
    """
    design_mode: str = getattr(backend, "design", "reference")
    play_test = getattr(backend, "play_test", None)

    def rule_of(state: CandidateState) -> Rule:
        level: Level = state["level"]  # type: ignore[assignment]
        if not state.get("formal", False) and not state.get("has_reference", True):
            return designed_rule(family, level, state["description"])
        return family.rule_from_params(state["kind"], level, state["params"])

    def spec(state: CandidateState) -> dict[str, Any]:
        rule = rule_of(state)
        return {
            "description": rule.description,
            "has_reference": True,
            "attempt": 0,
            "design_calls": [],
        }

    def designer(state: CandidateState) -> dict[str, Any]:
        level: Level = state["level"]  # type: ignore[assignment]
        with call_scope(f"{state['box_id']}/design"):
            design = backend.design_rule(family, level)  # type: ignore[attr-defined]
        update: dict[str, Any] = {
            "description": design.description,
            "has_reference": False,
            "attempt": 0,
            "design_calls": _dump(design.calls),
        }
        if design.fields is not None:
            # A formal design: the family builds the rule (and draws its public settings).
            rng = rng_for(settings.seed, state["box_id"], "design")
            try:
                rule = family.rule_from_design(level, design.description, design.fields, rng)
            except FamilyError as exc:
                raise ProviderResponseError(f"the design was refused: {exc}") from None
            update.update(
                formal=True,
                kind=rule.kind,
                params=dict(rule.params),
                design_params=dict(rule.params),
                description=rule.description,
                has_reference=rule.reference,
            )
        return update

    def coder(state: CandidateState) -> dict[str, Any]:
        feedback = None
        if state.get("verdict") and state.get("verdict") != "correct":
            feedback = Judgement(
                state["verdict"],  # type: ignore[arg-type]
                tuple(state.get("reasons", [])),
                changes=tuple(state.get("changes", [])),
                evidence=tuple(state.get("evidence", [])),
            )
        attempt = state.get("attempt", 0) + 1
        if state.get("formal", False):
            # New code: what the last attempt's code measured no longer holds.
            state = {**state, "params": state["design_params"]}
        with call_scope(f"{state['box_id']}/attempt-{attempt}/coder"):
            draft = backend.write_code(rule_of(state), family, feedback)
        update: dict[str, Any] = {
            "code": draft.code,
            "template": draft.template,
            "attempt": state.get("attempt", 0) + 1,
            "pending_calls": _dump(draft.calls),
            "play_log": None,
        }
        if state.get("formal", False):
            update["params"] = state["design_params"]
        return update

    def tester(state: CandidateState) -> dict[str, Any]:
        rng = rng_for(settings.seed, state["box_id"], "differential", state["attempt"])
        rule = rule_of(state)
        report = check_candidate(
            state["code"],
            rule if state.get("has_reference", True) else None,
            # Differential inputs and the output check follow the box's interface.
            family.for_rule(rule),
            rng,
            n_inputs=settings.differential_inputs,
            limits=settings.limits,
            budget_s=settings.tester_budget_s,
        )
        measured: dict[str, Any] = {}
        if report.passed and state.get("formal", False) and not rule.reference:
            # A designed rule only its code defines: its public records come from the code.
            done, problem = measure_design(
                state["code"],
                rule,
                family.for_rule(rule),
                limits=settings.limits,
                budget_s=settings.tester_budget_s,
            )
            checks = {**report.checks, "measured": problem is None}
            errors = report.errors if problem is None else [*report.errors, problem]
            report = dataclasses.replace(report, checks=checks, errors=errors)
            if problem is None and done is not rule:
                measured = {"params": dict(done.params)}
        pending = list(state.get("pending_calls", []))
        play_log = None
        if play_test is not None and report.checks.get("compiles") is True:
            with call_scope(f"{state['box_id']}/attempt-{state['attempt']}/tester"):
                log = play_test(rule, family, state["code"])
            if log is not None:
                play_log = log.render()
                pending += _dump(log.calls)
        return {
            "report": report.to_json(),
            "play_log": play_log,
            "pending_calls": pending,
            **measured,
        }

    def refiner(state: CandidateState) -> dict[str, Any]:
        report = CandidateReport.from_json(state["report"])
        rule = rule_of(state)
        with call_scope(f"{state['box_id']}/attempt-{state['attempt']}/refiner"):
            judgement = backend.judge(rule, family, state["code"], report, state.get("play_log"))
        reasons = list(judgement.reasons)
        verdict = judgement.verdict
        overruled = False
        if verdict == "correct" and not report.passed:
            # The refiner never gets the last word against a check that did not pass.
            evidence = (report.errors or report.examples)[:1]
            reasons.append(
                f"overruled: refiner said correct but checks {describe_checks(report.checks)}"
                + "".join(f" ({e})" for e in evidence)
            )
            runs = report.checks.get("compiles") is True and report.checks.get("runs") is True
            verdict = "misalignment" if runs else "execution_error"
            overruled = True
        calls = [CallRecord.model_validate(c) for c in state.get("pending_calls", [])]
        if state["attempt"] == 1:
            designed = [CallRecord.model_validate(c) for c in state.get("design_calls", [])]
            calls = designed + calls
        calls += judgement.calls
        summary = attempt_summary(calls)
        record = {
            "index": state["attempt"],
            "code_sha256": sha256_hex(state["code"]),
            "verdict": verdict,
            "reasons": reasons,
            "differential_inputs": report.inputs,
            "differential_mismatches": report.mismatches,
            "checks": dict(sorted(report.checks.items())),
            "errors": _clip_messages(report.errors),
            "examples": _clip_messages(report.examples),
            "template": state.get("template"),
            **summary,
            "calls": _dump(calls),
            "changes": list(judgement.changes),
            "overruled": overruled,
        }
        return {
            "verdict": verdict,
            "reasons": reasons,
            "changes": list(judgement.changes),
            "evidence": list(report.examples) + list(report.errors),
            "attempts": [record],
            "pending_calls": [],
        }

    def route(state: CandidateState) -> Literal["accept", "coder", "reject"]:
        if state["verdict"] == "correct" and CandidateReport.from_json(state["report"]).passed:
            return "accept"
        return "coder" if state["attempt"] < settings.max_attempts else "reject"

    def accept(state: CandidateState) -> dict[str, Any]:
        return {"status": "accepted"}

    def reject(state: CandidateState) -> dict[str, Any]:
        return {"status": "rejected"}

    graph = StateGraph(CandidateState)
    first = "designer" if design_mode == "llm" else "spec"
    graph.add_node(first, designer if design_mode == "llm" else spec)
    graph.add_node("coder", coder)
    graph.add_node("tester", tester)
    graph.add_node("refiner", refiner)
    graph.add_node("accept", accept)
    graph.add_node("reject", reject)
    graph.add_edge(START, first)
    graph.add_edge(first, "coder")
    graph.add_edge("coder", "tester")
    graph.add_edge("tester", "refiner")
    graph.add_conditional_edges(
        "refiner", route, {"accept": "accept", "coder": "coder", "reject": "reject"}
    )
    graph.add_edge("accept", END)
    graph.add_edge("reject", END)
    return graph.compile(checkpointer=checkpointer)
