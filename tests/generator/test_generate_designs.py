"""oracle-gen --design llm for the families that take formal designs (GSI, IPI): the real
SDKs against the loopback server, the real sandbox, then the suite evaluated."""

from __future__ import annotations

import itertools
import json
import math
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from blackboxes.families import get_family
from blackboxes.store import load_suite_boxes
from evaluator.runner import evaluate_suite
from evaluator.spec import TurnShot
from generator.suite import GenerateConfig, LlmModels, generate_suite
from providers.loopback import LoopbackServer, ScriptedReply
from templates import render
from tests.generator.test_generate_llm import CODER, REFINER, tree, verdict_reply

DESIGN = "Design a new hidden rule"
WRITE = "Write a Python black box"

GSI_STATES = [
    {"play": {"cooperate": 1}, "next": {"cooperate": 0, "defect": 1}},
    {"play": {"defect": 3, "cooperate": 1}, "next": {"cooperate": 0, "defect": 1}},
]
CONSTANT = [{"play": {"defect": 1}, "next": {"cooperate": 0, "defect": 0}}]


def design_reply(description: str, **fields: Any) -> ScriptedReply:
    arguments = {"description": description, **fields}
    return ScriptedReply(
        tool_calls=[{"name": "submit_design", "arguments": arguments}],
        match=DESIGN,
        usage={"input": 900, "output": 200},
    )


def code_reply(code: str) -> ScriptedReply:
    return ScriptedReply(
        text=f"```python\n{code}```", match=WRITE, usage={"input": 800, "output": 300}
    )


def _models(server: LoopbackServer) -> LlmModels:
    return LlmModels(
        coder=CODER,
        refiner=REFINER,
        base_urls={"openai": server.openai_base_url, "anthropic": server.anthropic_base_url},
        design="llm",
    )


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    with LoopbackServer() as s:
        yield s


def _machine_code(level: str, states: list[dict[str, Any]]) -> str:
    gsi = get_family("GSI")
    rule = gsi.rule_from_design(level, "d", {"game": "pd", "states": states}, random.Random(0))
    name, context = gsi.code_template(rule)
    return render(name, **context)


def _gsi_script(server: LoopbackServer) -> None:
    server.add(
        verdict_reply(),
        design_reply("Always defects.", game="pd", states=CONSTANT),
        design_reply(
            "Tit for tat that forgives a quarter of the time.", game="pd", states=GSI_STATES
        ),
        code_reply(_machine_code("hard", GSI_STATES)),
    )


def test_a_designed_opponent_is_refused_once_then_built_exact_and_played(
    server: LoopbackServer, tmp_path: Path
) -> None:
    _gsi_script(server)
    out = tmp_path / "gsi"
    generate_suite(
        GenerateConfig(
            category="GSI", level="hard", n=1, seed=2, out=out, backend="llm", llm=_models(server)
        )
    )
    designs = [r for r in server.requests if DESIGN in json.dumps(r.body)]
    assert len(designs) == 2
    # The second call says why the first machine was refused; both offer the machine fields.
    second = json.dumps(designs[1].body)
    assert "refused: the machine plays one action whatever happens" in second
    tool = designs[0].body["tools"][0]["function"]["parameters"]
    assert sorted(tool["required"]) == ["description", "game", "states"]
    _, [box] = load_suite_boxes(out)
    assert box.info.interface["game"] == "pd" and box.facts.rule_kind == "pd/machine"
    assert box.facts.has_reference is True and box.facts.t_info is None
    hidden = json.loads((box.path / "hidden.json").read_text())
    assert hidden["params"]["kind"] == "machine"
    assert hidden["params"]["design"] == "Tit for tat that forgives a quarter of the time."
    # Optimum per setting from the machine: cooperate throughout, defect in the last round.
    rounds = [s["rounds"] for s in hidden["params"]["settings"]]
    assert [v["optimum"] for v in hidden["params"]["values"]] == [str(3 * n + 2) for n in rounds]
    provenance = json.loads((box.path / "provenance.json").read_text())
    [attempt] = provenance["attempts"]
    assert attempt["checks"]["differential"] is True
    assert [c["role"] for c in attempt["calls"]] == ["designer", "designer", "coder", "refiner"]
    run = evaluate_suite(
        out, ["random", "fixed", "adaptive"], TurnShot(1, 1), None, 0, tmp_path / "r"
    )
    assert run.failed == 0 and run.executed == 3


def test_a_designed_suite_is_reproducible(server: LoopbackServer, tmp_path: Path) -> None:
    trees = []
    for name in ("a", "b"):
        _gsi_script(server)
        out = tmp_path / name
        generate_suite(
            GenerateConfig(
                category="GSI",
                level="hard",
                n=1,
                seed=2,
                out=out,
                backend="llm",
                llm=_models(server),
            )
        )
        trees.append(tree(out))
    assert trees[0] == trees[1]


IPI_ANSWERS = ["".join(p) for p in itertools.product("abc", repeat=3)]
IPI_RULES = (
    "A word of three letters from a, b, c is hidden. Probe with any such word; the feedback"
    " says how many letters are in the right place, e.g. `2 in place`."
)
IPI_CODE = """\
def blackbox(secret, probe, u):
    n = 0
    for i in range(3):
        if secret[i] == probe[i]:
            n = n + 1
    return str(n) + " in place"
"""
IPI_NOISY = IPI_CODE.replace("return", "if u > 0.5:\n        n = 0\n    return")


def test_a_designed_puzzle_is_measured_retried_and_played(
    server: LoopbackServer, tmp_path: Path
) -> None:
    server.add(
        verdict_reply(),
        verdict_reply(),
        design_reply(IPI_RULES, title="Three letters", answers=IPI_ANSWERS),
        code_reply(IPI_NOISY),
        code_reply(IPI_CODE),
    )
    out = tmp_path / "ipi"
    generate_suite(
        GenerateConfig(
            category="IPI", level="easy", n=1, seed=2, out=out, backend="llm", llm=_models(server)
        )
    )
    _, [box] = load_suite_boxes(out)
    provenance = json.loads((box.path / "provenance.json").read_text())
    first, second = provenance["attempts"]
    # The refiner said correct both times; the measurement overruled the code that used u.
    assert first["checks"]["measured"] is False and first["overruled"] is True
    assert "a designed puzzle ignores u" in first["errors"][0]
    assert second["checks"]["measured"] is True and "differential" not in second["checks"]
    # The coder that wrote again was told why.
    coders = [r for r in server.requests if WRITE in json.dumps(r.body)]
    assert "ignores u" in json.dumps(coders[1].body)
    assert box.info.interface["puzzle"] == "designed"
    assert box.facts.has_reference is False and box.facts.t_info == 3
    assert box.code == IPI_CODE
    run = evaluate_suite(
        out, ["random", "fixed", "adaptive"], TurnShot(5, 1), "instant", 0, tmp_path / "r"
    )
    assert run.failed == 0 and run.executed == 3
    summary = json.loads((tmp_path / "r" / "summary.json").read_text())
    groups = {row["agent"]: row for row in summary["groups"]}
    # The version space comes from the measured table: 27 answers, every bit realised.
    assert groups["adaptive"]["score_mean"] == 1.0 and groups["adaptive"]["t_info_mean"] == 3.0
    assert groups["adaptive"]["bits_mean"] == pytest.approx(math.log2(27))
    assert all(row["bound_violations"] == 0 for row in summary["groups"])
