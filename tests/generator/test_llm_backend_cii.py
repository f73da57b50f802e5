"""The LLM backend builds CII boxes: real SDK clients, the loopback server, the real sandbox."""

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

FAMILY = get_family("CII")
PARAMS = {"order": "asc", "direction": "sink", "early": False, "shrink": False, "key": "value"}
WRONG = {"order": "desc", "direction": "sink", "early": False, "shrink": False, "key": "value"}


def _code(params: dict[str, Any]) -> str:
    rule = FAMILY.rule_from_params("bubble_sort", "easy", params)
    name, context = FAMILY.code_template(rule)
    return render(name, **context)


def _run(llm: Any) -> dict[str, Any]:
    settings = GraphSettings(seed=1, max_attempts=3, differential_inputs=120)
    app = build_graph(FAMILY, llm, settings)
    start = {
        "box_id": "CII-easy-0000",
        "family": "CII",
        "level": "easy",
        "kind": "bubble_sort",
        "params": PARAMS,
    }
    final: dict[str, Any] = app.invoke(start, {"recursion_limit": recursion_limit(3)})
    return final


def _text(request: Any) -> str:
    content = request.body["messages"][-1]["content"]
    return content if isinstance(content, str) else "".join(b.get("text", "") for b in content)


@pytest.mark.parametrize("vendor", VENDORS)
def test_crash_then_misaligned_then_correct_program_is_accepted(
    vendor: str,
    servers: dict[str, LoopbackServer],  # noqa: F811
) -> None:
    crashing = "def blackbox(a):\n    checkpoint(1, p=a[99])\n"
    servers["coder"].add(code_reply(crashing), code_reply(_code(WRONG)), code_reply(_code(PARAMS)))
    servers["refiner"].add(
        verdict_reply("execution_error", ["IndexError on every call"]),
        verdict_reply("misalignment", ["sorts in descending order"]),
        verdict_reply("correct", ["matches"]),
    )
    final = _run(backend(vendor, servers))
    assert final["status"] == "accepted"
    assert final["code"] == _code(PARAMS)
    attempts = [Attempt.model_validate(a) for a in final["attempts"]]
    assert [a.verdict for a in attempts] == ["execution_error", "misalignment", "correct"]
    assert [a.checks["differential"] for a in attempts] == [False, False, True]
    # The coder is told the entry's real signature and the checkpoint hook.
    prompt = _text(servers["coder"].requests[0])
    assert "def blackbox(a):" in prompt and "def blackbox(x):" not in prompt
    assert "checkpoint(index, name=value, ...)" in prompt
    assert "a list of 1 to 8 integers, each in 0..20" in prompt


@pytest.mark.parametrize("vendor", VENDORS)
def test_a_refiner_approving_a_wrong_program_is_overruled(
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
