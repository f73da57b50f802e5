"""The LLM backend builds CRI boxes: real SDK clients, the loopback server, the real sandbox."""

from __future__ import annotations

from typing import Any

import pytest

from blackboxes.box import Attempt
from blackboxes.families import get_family
from generator.graph import GraphSettings, build_graph, recursion_limit
from providers.loopback import LoopbackServer
from templates import render
from tests.generator.test_llm_backend import (
    VENDORS,
    backend,
    code_reply,
    servers,  # noqa: F401 - the fixture
    verdict_reply,
)

FAMILY = get_family("CRI")
PARAMS = {"ia": "00000", "ib": "00000", "op": "add"}
WRONG = {"ia": "00000", "ib": "00000", "op": "sub"}


def _code(params: dict[str, Any]) -> str:
    rule = FAMILY.rule_from_params("adder", "hard", params)
    name, context = FAMILY.code_template(rule)
    return render(name, **context)


def _run(llm: Any) -> dict[str, Any]:
    settings = GraphSettings(seed=1, max_attempts=3, differential_inputs=200)
    app = build_graph(FAMILY, llm, settings)
    start = {
        "box_id": "CRI-hard-0000",
        "family": "CRI",
        "level": "hard",
        "kind": "adder",
        "params": PARAMS,
    }
    final: dict[str, Any] = app.invoke(start, {"recursion_limit": recursion_limit(3)})
    return final


@pytest.mark.parametrize("vendor", VENDORS)
def test_crash_then_misaligned_then_correct_circuit_is_accepted(
    vendor: str,
    servers: dict[str, LoopbackServer],  # noqa: F811
) -> None:
    crashing = "def blackbox(bits):\n    return bits[99]\n"
    servers["coder"].add(code_reply(crashing), code_reply(_code(WRONG)), code_reply(_code(PARAMS)))
    servers["refiner"].add(
        verdict_reply("execution_error", ["IndexError on every call"]),
        verdict_reply("misalignment", ["subtracts instead of adding"]),
        verdict_reply("correct", ["matches"]),
    )
    final = _run(backend(vendor, servers))
    assert final["status"] == "accepted"
    assert final["code"] == _code(PARAMS)
    attempts = [Attempt.model_validate(a) for a in final["attempts"]]
    assert [a.verdict for a in attempts] == ["execution_error", "misalignment", "correct"]
    assert [a.checks["differential"] for a in attempts] == [False, False, True]
    # The coder was given the adder's functional spec, not its gates.
    prompt = servers["coder"].requests[0].body["messages"][-1]["content"]
    text = prompt if isinstance(prompt, str) else "".join(b.get("text", "") for b in prompt)
    assert "exactly 10 characters" in text and "AND(" not in text


@pytest.mark.parametrize("vendor", VENDORS)
def test_a_refiner_approving_a_wrong_circuit_is_overruled(
    vendor: str,
    servers: dict[str, LoopbackServer],  # noqa: F811
) -> None:
    servers["coder"].add(*[code_reply(_code(WRONG))] * 3)
    servers["refiner"].add(*[verdict_reply("correct", ["looks right"])] * 3)
    final = _run(backend(vendor, servers))
    assert final["status"] == "rejected"
    attempts = [Attempt.model_validate(a) for a in final["attempts"]]
    assert [a.verdict for a in attempts] == ["misalignment"] * 3
    assert all(a.overruled for a in attempts)
