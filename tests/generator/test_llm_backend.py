"""The LLM backend of the generation graph, through the real SDKs and the loopback server.

Coder and refiner (and tester) each get their own loopback server, so the order of the
scripted replies is deterministic. The graph is built directly (build_graph + invoke).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from blackboxes.box import Attempt
from blackboxes.families import get_family
from generator import LlmBackend, create_backend, create_llm_backend
from generator.graph import GraphSettings, build_graph, recursion_limit
from generator.llm_backend import PROMPT_VERSION, extract_code, parse_verdict
from oracle_bench.errors import ProviderError, UsageError
from providers.loopback import LoopbackServer
from providers.pricing import ModelPrice, PricingTable
from providers.registry import create_provider
from providers.retry import RetryPolicy
from providers.types import Provider, Reply, ToolCall
from templates import render

FAMILY = get_family("ERI")
RULE = FAMILY.rule_from_params("caesar", "easy", {"shift": 3})
WRONG_SHIFT = FAMILY.rule_from_params("caesar", "easy", {"shift": 4})
CORRECT = render(FAMILY.code_template(RULE)[0], **FAMILY.code_template(RULE)[1])
MISALIGNED = render(FAMILY.code_template(WRONG_SHIFT)[0], **FAMILY.code_template(WRONG_SHIFT)[1])
CRASHING = "def blackbox(plaintext):\n    return 1 // 0\n"
IDENTITY = "def blackbox(plaintext):\n    return plaintext\n"

VENDORS = ("openai", "anthropic")
# USD per million tokens; every scripted reply below says how many tokens it used.
PRICING = PricingTable(
    {
        "openai/coder-model": ModelPrice(input=2.0, output=8.0),
        "openai/refiner-model": ModelPrice(input=1.0, output=4.0),
        "openai/tester-model": ModelPrice(input=1.0, output=1.0),
        "anthropic/coder-model": ModelPrice(input=2.0, output=8.0),
        "anthropic/refiner-model": ModelPrice(input=1.0, output=4.0),
        "anthropic/tester-model": ModelPrice(input=1.0, output=1.0),
    }
)
CODER_USAGE = {"input": 1000, "output": 200}  # 0.002 + 0.0016 = 0.0036 USD
REFINER_USAGE = {"input": 2000, "output": 50}  # 0.002 + 0.0002 = 0.0022 USD
SETTINGS = GraphSettings(seed=1, max_attempts=3, differential_inputs=200)


def fenced(code: str) -> str:
    return f"Here is the program.\n\n```python\n{code}```\n"


def code_reply(code: str) -> dict[str, Any]:
    return {"text": fenced(code), "usage": CODER_USAGE}


def verdict_reply(verdict: str, reasons: Sequence[str], changes: Sequence[str] = ()) -> dict:
    arguments = {"verdict": verdict, "reasons": list(reasons), "changes": list(changes)}
    return {
        "tool_calls": [{"name": "submit_verdict", "arguments": arguments}],
        "usage": REFINER_USAGE,
    }


@pytest.fixture
def servers() -> Iterator[dict[str, LoopbackServer]]:
    made = {role: LoopbackServer() for role in ("coder", "refiner", "tester")}
    try:
        yield made
    finally:
        # Close the SDK clients too: one collected later, with a socket still open, warns
        # in whatever test is running then.
        while _PROVIDERS:
            _PROVIDERS.pop().close()
        for server in made.values():
            server.close()


_PROVIDERS: list[Provider] = []


def provider(vendor: str, role: str, server: LoopbackServer) -> Provider:
    url = server.openai_base_url if vendor == "openai" else server.anthropic_base_url
    made = create_provider(
        f"{vendor}/{role}-model",
        base_url=url,
        pricing=PRICING,
        retry=RetryPolicy(max_attempts=1),
        timeout=30.0,
    )
    _PROVIDERS.append(made)
    return made


def backend(
    vendor: str, servers: dict[str, LoopbackServer], *, tester: bool = False, design: str = ""
) -> LlmBackend:
    return create_llm_backend(
        coder=provider(vendor, "coder", servers["coder"]),
        refiner=provider(vendor, "refiner", servers["refiner"]),
        tester=provider(vendor, "tester", servers["tester"]) if tester else None,
        design="llm" if design == "llm" else "reference",
    )


def start(box_id: str = "ERI-easy-0000") -> dict[str, Any]:
    return {
        "box_id": box_id,
        "family": "ERI",
        "level": "easy",
        "kind": RULE.kind,
        "params": dict(RULE.params),
    }


def run(llm: LlmBackend, max_attempts: int = 3) -> dict[str, Any]:
    settings = GraphSettings(seed=1, max_attempts=max_attempts, differential_inputs=200)
    app = build_graph(FAMILY, llm, settings)
    final: dict[str, Any] = app.invoke(start(), {"recursion_limit": recursion_limit(3)})
    return final


def last_user_text(body: dict[str, Any]) -> str:
    message = [m for m in body["messages"] if m["role"] == "user"][-1]
    content = message["content"]
    if isinstance(content, str):
        return content
    return "".join(block.get("text", "") for block in content)


# -- the three-attempt loop ------------------------------------------------------------


@pytest.mark.parametrize("vendor", VENDORS)
def test_crash_then_misaligned_then_correct_is_accepted_on_the_third_attempt(
    vendor: str, servers: dict[str, LoopbackServer]
) -> None:
    servers["coder"].add(code_reply(CRASHING), code_reply(MISALIGNED), code_reply(CORRECT))
    servers["refiner"].add(
        verdict_reply(
            "execution_error", ["every call raises ZeroDivisionError"], ["do not divide"]
        ),
        verdict_reply("misalignment", ["HELLO gives LIPPS"], ["shift by 3, not 4"]),
        verdict_reply("correct", ["matches the description"]),
    )
    final = run(backend(vendor, servers))

    assert final["status"] == "accepted"
    assert final["code"] == CORRECT
    assert final["has_reference"] is True
    attempts = [Attempt.model_validate(a) for a in final["attempts"]]
    assert [a.verdict for a in attempts] == ["execution_error", "misalignment", "correct"]
    assert [a.overruled for a in attempts] == [False, False, False]
    assert [a.changes for a in attempts] == [["do not divide"], ["shift by 3, not 4"], []]
    assert [a.checks["differential"] for a in attempts] == [False, False, True]
    assert attempts[1].differential_mismatches == 200
    for attempt in attempts:
        assert [c.role for c in attempt.calls] == ["coder", "refiner"]
        assert [c.model for c in attempt.calls] == [
            f"{vendor}/coder-model",
            f"{vendor}/refiner-model",
        ]
        assert attempt.model == f"{vendor}/coder-model,{vendor}/refiner-model"
        assert [c.prompt_template for c in attempt.calls] == [
            "prompts/coder.j2",
            "prompts/refiner.j2",
        ]
        assert attempt.prompt_version == PROMPT_VERSION
        assert attempt.tokens == {
            "cache_read": 0,
            "cache_write": 0,
            "input": 3000,
            "output": 250,
            "reasoning": 0,
        }
        assert attempt.cost_usd == pytest.approx(0.0058)
        assert attempt.calls[0].cost_usd == pytest.approx(0.0036)
        assert attempt.latency_s is not None and attempt.latency_s > 0
        assert attempt.latency_s == pytest.approx(sum(c.latency_s for c in attempt.calls))
        assert attempt.calls[1].params["tool_choice"] == "submit_verdict"
        assert attempt.calls[0].retries == 0 and not attempt.calls[0].cached
    assert len({a.code_sha256 for a in attempts}) == 3

    # The coder saw each verdict with its reasons, the changes and the tester's evidence.
    coder_prompts = [last_user_text(r.body) for r in servers["coder"].requests]
    assert len(coder_prompts) == 3
    assert RULE.description in coder_prompts[0]
    assert "previous attempt was rejected" not in coder_prompts[0]
    assert "Verdict: execution_error" in coder_prompts[1]
    assert "every call raises ZeroDivisionError" in coder_prompts[1]
    assert "- do not divide" in coder_prompts[1]
    assert "ZeroDivisionError" in coder_prompts[1].split("Failing examples from the tester:")[1]
    assert "Verdict: misalignment" in coder_prompts[2]
    assert "- shift by 3, not 4" in coder_prompts[2]
    assert "expected " in coder_prompts[2].split("Failing examples from the tester:")[1]
    # The refiner was forced to call submit_verdict, in the vendor's wire format.
    first = servers["refiner"].requests[0].body
    if vendor == "openai":
        assert first["tool_choice"] == {"type": "function", "function": {"name": "submit_verdict"}}
        assert [t["function"]["name"] for t in first["tools"]] == ["submit_verdict"]
    else:
        assert first["tool_choice"] == {"type": "tool", "name": "submit_verdict"}
        assert [t["name"] for t in first["tools"]] == ["submit_verdict"]
    refiner_prompt = last_user_text(servers["refiner"].requests[1].body)
    assert "- differential: FAIL" in refiner_prompt
    assert MISALIGNED.strip() in refiner_prompt


@pytest.mark.parametrize("vendor", VENDORS)
def test_a_refiner_calling_wrong_code_correct_is_overruled(
    vendor: str, servers: dict[str, LoopbackServer]
) -> None:
    servers["coder"].add(*[code_reply(MISALIGNED)] * 3)
    servers["refiner"].add(*[verdict_reply("correct", ["looks right"])] * 3)
    final = run(backend(vendor, servers))

    assert final["status"] == "rejected"
    attempts = [Attempt.model_validate(a) for a in final["attempts"]]
    assert [a.verdict for a in attempts] == ["misalignment"] * 3
    assert [a.overruled for a in attempts] == [True] * 3
    for attempt in attempts:
        assert attempt.reasons == [
            "looks right",
            "overruled: refiner said correct but checks failed: differential "
            f"({attempt.examples[0]})",
        ]
        assert attempt.examples[0].startswith('input "') and "expected" in attempt.examples[0]
    # The overrule reaches the coder as feedback.
    assert "overruled: refiner said correct" in last_user_text(servers["coder"].requests[1].body)


# -- the refiner's reply ---------------------------------------------------------------


def test_an_unusable_refiner_reply_is_an_execution_error(
    servers: dict[str, LoopbackServer],
) -> None:
    servers["coder"].add(code_reply(CORRECT))
    # Prose that contains "correct" is no verdict.
    servers["refiner"].add({"text": "This looks correct to me.", "usage": REFINER_USAGE})
    final = run(backend("openai", servers), max_attempts=1)

    assert final["status"] == "rejected"
    [attempt] = [Attempt.model_validate(a) for a in final["attempts"]]
    assert attempt.verdict == "execution_error"
    assert attempt.reasons == ["refiner reply unusable"]
    assert attempt.overruled is False
    assert all(attempt.checks.values())
    assert [c.role for c in attempt.calls] == ["coder", "refiner"]


def test_a_json_verdict_in_text_is_accepted(servers: dict[str, LoopbackServer]) -> None:
    servers["coder"].add(code_reply(CORRECT))
    text = 'Verdict:\n```json\n{"verdict": "correct", "reasons": ["fine"], "changes": []}\n```'
    servers["refiner"].add({"text": text})
    final = run(backend("anthropic", servers), max_attempts=1)
    assert final["status"] == "accepted"
    assert final["attempts"][0]["reasons"] == ["fine"]


def _reply(text: str = "", calls: Sequence[tuple[str, dict[str, Any]]] = ()) -> Reply:
    tool_calls = [ToolCall(id=f"c{i}", name=n, arguments=a) for i, (n, a) in enumerate(calls)]
    return Reply(text=text, tool_calls=tool_calls, model="scripted/x")


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        (
            _reply(calls=[("submit_verdict", {"verdict": "misalignment", "reasons": ["r"]})]),
            ("misalignment", ("r",), ()),
        ),
        # A malformed tool call is not rescued from JSON quoted in prose.
        (
            _reply(
                'ok {"verdict": "correct", "reasons": ["r"], "changes": ["c"]}',
                [("submit_verdict", {"verdict": "great"})],
            ),
            None,
        ),
        # The whole reply as JSON counts; so does one fenced JSON object.
        (
            _reply('{"verdict": "execution_error", "reasons": ["boom"]}'),
            ("execution_error", ("boom",), ()),
        ),
        (
            _reply('Here:\n```json\n{"verdict": "misalignment", "reasons": ["x"]}\n```\n'),
            ("misalignment", ("x",), ()),
        ),
        # Gaming: objects quoted in prose, two fenced objects, a verdict with no reasons,
        # a second call of the tool after an invalid first one.
        (
            _reply(
                'The options are {"verdict": "correct", "reasons": ["a"]} and '
                '{"verdict": "misalignment", "reasons": ["b"]}; my verdict is misalignment.'
            ),
            None,
        ),
        (
            _reply(
                '```json\n{"verdict": "correct", "reasons": ["a"]}\n```\n'
                '```json\n{"verdict": "misalignment", "reasons": ["b"]}\n```'
            ),
            None,
        ),
        (_reply('{"verdict": "correct"}'), None),
        (
            _reply(
                calls=[
                    ("submit_verdict", {"verdict": "great", "reasons": ["r"]}),
                    ("submit_verdict", {"verdict": "correct", "reasons": ["r"]}),
                ]
            ),
            None,
        ),
        (_reply("correct"), None),
        (_reply('{"verdict": "Correct"}'), None),
        (_reply(calls=[("other_tool", {"verdict": "correct"})]), None),
        (_reply(""), None),
    ],
)
def test_parse_verdict(reply: Reply, expected: tuple[str, tuple, tuple] | None) -> None:
    judgement = parse_verdict(reply)
    if expected is None:
        assert judgement is None
    else:
        assert judgement is not None
        assert (judgement.verdict, judgement.reasons, judgement.changes) == expected


# -- code extraction -------------------------------------------------------------------

PROGRAM = "def blackbox(x):\n    return x\n"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"```python\n{PROGRAM}```", PROGRAM),
        # The last python block wins over earlier ones and over other languages.
        (f"```python\nold = 1\n```\ntext\n```python\n{PROGRAM}```\n```json\n{{}}\n```", PROGRAM),
        (f"```py\n{PROGRAM}```", PROGRAM),
        # No python block: the last fenced block of any language.
        (f"```text\nnotes\n```\n```\n{PROGRAM}```", PROGRAM),
        # A reply cut off before its closing fence still gives its code.
        (f"Sure:\n```python\n{PROGRAM}", PROGRAM),
        # No fence: the whole reply if it parses.
        (f"\n{PROGRAM}\n", PROGRAM),
        ("I am sorry, I cannot write that program.", ""),
        ("", ""),
        ("```python\n```", ""),
        # A usage example after the code is not the box: the block defining it wins.
        (f"```python\n{PROGRAM}```\nUse it:\n```python\nprint(blackbox('AB'))\n```", PROGRAM),
    ],
)
def test_extract_code(text: str, expected: str) -> None:
    assert extract_code(text) == expected


def test_code_that_cannot_be_extracted_fails_as_not_compiling(
    servers: dict[str, LoopbackServer],
) -> None:
    servers["coder"].add({"text": "I cannot help with that."})
    servers["refiner"].add(verdict_reply("execution_error", ["no code"], ["write the code"]))
    final = run(backend("openai", servers), max_attempts=1)
    assert final["status"] == "rejected"
    assert final["code"] == ""
    # Only compiles was run: the others are recorded as not run, never as failed.
    assert final["attempts"][0]["checks"] == {
        "compiles": False,
        "deterministic": None,
        "differential": None,
        "non_degenerate": None,
        "runs": None,
        "schema": None,
    }
    assert final["attempts"][0]["errors"] == ["the code defines no callable 'blackbox'"]
    assert "no code could be extracted" in last_user_text(servers["refiner"].requests[0].body)


# -- the test player -------------------------------------------------------------------


def test_the_test_players_log_reaches_the_refiner(servers: dict[str, LoopbackServer]) -> None:
    servers["coder"].add(code_reply(CORRECT))
    queries = ["hello world", "123", "ABC", "XYZ", "A B", "extra"]
    servers["tester"].add(
        {
            "tool_calls": [{"name": "submit_queries", "arguments": {"queries": queries}}],
            "usage": {"input": 300, "output": 20},
        }
    )
    servers["refiner"].add(verdict_reply("correct", ["ok"]))
    final = run(backend("openai", servers, tester=True), max_attempts=1)

    assert final["status"] == "accepted"
    assert final["play_log"].splitlines() == [
        "the test player sent 6 queries; only the first 5 were run",
        "1. query 'hello world' -> 'KHOOR ZRUOG'",
        "2. query '123' -> error: invalid query: empty plaintext: send 1 to 32 letters A-Z "
        "and spaces (other characters are dropped)",
        "3. query 'ABC' -> 'DEF'",
        "4. query 'XYZ' -> 'ABC'",
        "5. query 'A B' -> 'D E'",
    ]
    assert final["play_log"] in last_user_text(servers["refiner"].requests[0].body)
    assert FAMILY.task_intro("easy") in last_user_text(servers["tester"].requests[0].body)
    attempt = Attempt.model_validate(final["attempts"][0])
    assert [c.role for c in attempt.calls] == ["coder", "tester", "refiner"]
    assert attempt.tokens["input"] == 1000 + 300 + 2000
    assert attempt.cost_usd == pytest.approx(0.0036 + 0.00032 + 0.0022)


def test_an_unparseable_test_player_reply_is_logged(servers: dict[str, LoopbackServer]) -> None:
    servers["coder"].add(code_reply(CRASHING))
    servers["tester"].add({"text": "1. HELLO\n2) 'abc'\n\n- !!!"})
    servers["refiner"].add(verdict_reply("execution_error", ["crash"]))
    final = run(backend("anthropic", servers, tester=True), max_attempts=1)
    assert final["status"] == "rejected"
    crash = "error: [black box error: exception: ZeroDivisionError: integer division or modulo"
    crash += " by zero]"
    assert final["play_log"].splitlines() == [
        "the test player did not call submit_queries; read its lines as queries",
        f"1. query 'HELLO' -> {crash}",
        f"2. query 'abc' -> {crash}",
        "3. query '!!!' -> error: invalid query: empty plaintext: send 1 to 32 letters A-Z "
        "and spaces (other characters are dropped)",
    ]


# -- --design llm ----------------------------------------------------------------------

DESIGNED = (
    "Input: uppercase letters and single spaces. Replace each letter by the letter three "
    "places later in the alphabet, wrapping Z to C; keep spaces. Output: the result."
)


@pytest.mark.parametrize("vendor", VENDORS)
def test_an_llm_designed_rule_is_accepted_on_property_checks(
    vendor: str, servers: dict[str, LoopbackServer]
) -> None:
    servers["coder"].add(
        {
            "tool_calls": [{"name": "submit_design", "arguments": {"description": DESIGNED}}],
            "usage": {"input": 500, "output": 100},
        },
        code_reply(IDENTITY),
        code_reply(CORRECT),
    )
    # The refiner calls the identity "correct": the property checks overrule it.
    servers["refiner"].add(
        verdict_reply("correct", ["fine"]), verdict_reply("correct", ["implements it"])
    )
    final = run(backend(vendor, servers, design="llm"))

    assert final["status"] == "accepted"
    assert final["has_reference"] is False
    assert final["description"] == DESIGNED
    attempts = [Attempt.model_validate(a) for a in final["attempts"]]
    assert [a.verdict for a in attempts] == ["misalignment", "correct"]
    assert [a.overruled for a in attempts] == [True, False]
    assert attempts[0].reasons[-1] == (
        "overruled: refiner said correct but checks failed: non_degenerate "
        "(outputs are degenerate (identity, constant or nearly so))"
    )
    assert attempts[0].errors == ["outputs are degenerate (identity, constant or nearly so)"]
    for attempt in attempts:
        assert "differential" not in attempt.checks
        assert set(attempt.checks) == {"compiles", "runs", "schema", "deterministic"} | {
            "non_degenerate"
        }
    assert [c.role for c in attempts[0].calls] == ["designer", "coder", "refiner"]
    assert [c.role for c in attempts[1].calls] == ["coder", "refiner"]
    assert attempts[0].calls[0].prompt_template == "prompts/designer.j2"
    assert attempts[0].tokens["input"] == 500 + 1000 + 2000
    designer_prompt = last_user_text(servers["coder"].requests[0].body)
    assert FAMILY.task_intro("easy") in designer_prompt
    assert DESIGNED in last_user_text(servers["coder"].requests[1].body)
    assert "no reference implementation" in last_user_text(servers["refiner"].requests[0].body)


def test_a_designer_without_a_description_raises_a_provider_error(
    servers: dict[str, LoopbackServer],
) -> None:
    servers["coder"].add({"text": "How about a nice cipher?"})
    with pytest.raises(ProviderError, match="coder-model: the designer's reply holds no rule"):
        run(backend("openai", servers, design="llm"))


# -- errors, resumption, construction --------------------------------------------------


def test_provider_errors_propagate_and_a_checkpointed_run_resumes(
    servers: dict[str, LoopbackServer],
) -> None:
    servers["coder"].add(code_reply(CORRECT))
    # The refiner's script is empty: the server answers 500 and the call fails.
    app = build_graph(FAMILY, backend("openai", servers), SETTINGS, checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "ERI-easy-0000"}, "recursion_limit": 12}
    with pytest.raises(ProviderError):
        app.invoke(start(), config)
    assert app.get_state(config).next == ("refiner",)
    servers["refiner"].add(verdict_reply("correct", ["ok"]))
    final = app.invoke(None, config)
    assert final["status"] == "accepted"
    # Resuming did not call the coder again.
    assert len(servers["coder"].requests) == 1
    assert len(final["attempts"]) == 1
    json.dumps(app.get_state(config).values)  # the checkpointed state is JSON-like


def test_create_backend_llm_needs_models() -> None:
    with pytest.raises(UsageError, match="pass --coder MODEL and --refiner MODEL"):
        create_backend("llm")


def test_create_llm_backend_checks_design(servers: dict[str, LoopbackServer]) -> None:
    coder = provider("openai", "coder", servers["coder"])
    with pytest.raises(UsageError, match="--design must be 'reference' or 'llm', not 'both'"):
        create_llm_backend(coder=coder, refiner=coder, design="both")  # type: ignore[arg-type]
    llm = create_llm_backend(coder=coder, refiner=coder, design="llm")
    assert llm.name == "llm"
    assert llm.models == {
        "coder": "openai/coder-model",
        "designer": "openai/coder-model",
        "refiner": "openai/coder-model",
    }


def test_the_scripted_provider_drives_the_backend_in_process(tmp_path: Path) -> None:
    # One script for both roles: ``match`` picks the refiner's line by its prompt.
    script = tmp_path / "replies.jsonl"
    lines = [
        {"match": "Call the tool `submit_verdict`", **verdict_reply("correct", ["ok"])},
        code_reply(CORRECT),
    ]
    script.write_text("".join(json.dumps(line) + "\n" for line in lines))
    coder = create_provider(f"scripted/{script}", pricing=PRICING)
    refiner = create_provider(f"scripted/{script}", pricing=PRICING)
    final = run(create_llm_backend(coder=coder, refiner=refiner), max_attempts=1)
    assert final["status"] == "accepted"
    attempt = Attempt.model_validate(final["attempts"][0])
    assert attempt.model == f"scripted/{script}"
    assert attempt.tokens["input"] == 3000
