"""The three-agent generation graph: spec -> coder -> tester -> refiner -> accept | coder | reject.

This is the only module that imports LangGraph. The loop is bounded twice: by
the ``attempt`` counter in the state and by an explicit recursion limit, so a
backend that never converges ends in ``reject``, never in an accepted box.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from langgraph.graph import END, START, StateGraph

from blackboxes.families import Family
from generator._state import CandidateState
from generator.backends import Backend, Judgement
from generator.tester import CandidateReport, check_candidate
from oracle_bench.jsonio import sha256_hex
from oracle_bench.rng import rng_for
from sandbox import SandboxLimits

__all__ = ["GraphSettings", "build_graph", "recursion_limit"]


@dataclass(frozen=True)
class GraphSettings:
    seed: int
    max_attempts: int = 3
    differential_inputs: int = 256
    limits: SandboxLimits | None = None


def recursion_limit(max_attempts: int) -> int:
    """Steps one candidate may take: spec, three per attempt, and the final node."""
    return 3 * max_attempts + 3


def build_graph(family: Family, backend: Backend, settings: GraphSettings) -> Any:
    """Compile the graph for one family and backend."""

    def rule_of(state: CandidateState) -> Any:
        return family.rule_from_params(state["kind"], state["level"], state["params"])  # type: ignore[arg-type]

    def spec(state: CandidateState) -> dict[str, Any]:
        rule = rule_of(state)
        return {"description": rule.description, "attempt": 0}

    def coder(state: CandidateState) -> dict[str, Any]:
        feedback = None
        if state.get("verdict") and state.get("verdict") != "correct":
            feedback = Judgement(state["verdict"], tuple(state.get("reasons", [])))  # type: ignore[arg-type]
        code, template = backend.write_code(rule_of(state), family, feedback)
        return {"code": code, "template": template, "attempt": state.get("attempt", 0) + 1}

    def tester(state: CandidateState) -> dict[str, Any]:
        rng = rng_for(settings.seed, state["box_id"], "differential", state["attempt"])
        report = check_candidate(
            state["code"],
            rule_of(state),
            family,
            rng,
            n_inputs=settings.differential_inputs,
            limits=settings.limits,
        )
        return {"report": report.to_json()}

    def refiner(state: CandidateState) -> dict[str, Any]:
        report = CandidateReport(
            checks=state["report"]["checks"],
            inputs=state["report"]["inputs"],
            mismatches=state["report"]["mismatches"],
            errors=state["report"]["errors"],
            examples=state["report"]["examples"],
            layers=tuple(state["report"]["layers"]),
        )
        judgement = backend.judge(rule_of(state), family, state["code"], report)
        reasons = list(judgement.reasons)
        verdict = judgement.verdict
        if verdict == "correct" and not report.passed:
            # The refiner never gets the last word against a failing check.
            failed = sorted(k for k, ok in report.checks.items() if not ok)
            reasons.append(
                f"overruled: refiner said correct but checks failed: {', '.join(failed)}"
            )
            verdict = "execution_error" if not report.checks.get("runs", False) else "misalignment"
        record = {
            "index": state["attempt"],
            "code_sha256": sha256_hex(state["code"]),
            "verdict": verdict,
            "reasons": reasons,
            "differential_inputs": report.inputs,
            "differential_mismatches": report.mismatches,
            "checks": dict(sorted(report.checks.items())),
            "template": state.get("template"),
        }
        return {"verdict": verdict, "reasons": reasons, "attempts": [record]}

    def route(state: CandidateState) -> Literal["accept", "coder", "reject"]:
        if state["verdict"] == "correct":
            return "accept"
        return "coder" if state["attempt"] < settings.max_attempts else "reject"

    def accept(state: CandidateState) -> dict[str, Any]:
        return {"status": "accepted"}

    def reject(state: CandidateState) -> dict[str, Any]:
        return {"status": "rejected"}

    graph = StateGraph(CandidateState)
    graph.add_node("spec", spec)
    graph.add_node("coder", coder)
    graph.add_node("tester", tester)
    graph.add_node("refiner", refiner)
    graph.add_node("accept", accept)
    graph.add_node("reject", reject)
    graph.add_edge(START, "spec")
    graph.add_edge("spec", "coder")
    graph.add_edge("coder", "tester")
    graph.add_edge("tester", "refiner")
    graph.add_conditional_edges(
        "refiner", route, {"accept": "accept", "coder": "coder", "reject": "reject"}
    )
    graph.add_edge("accept", END)
    graph.add_edge("reject", END)
    return graph.compile()
