"""The call cache is a resume cache: identical prompts at different call sites are new calls."""

from __future__ import annotations

from pathlib import Path

import pytest

from blackboxes.store import load_suite_boxes
from generator.suite import GenerateConfig, LlmModels, generate_suite
from providers import CallCache, call_scope, create_provider
from providers.loopback import LoopbackServer, ScriptedReply
from providers.types import ChatMessage

REVERSE = (
    "def blackbox(x):\n    letters = [c for c in x if c != ' ']\n    out = ''\n"
    "    for c in x:\n        out = out + (' ' if c == ' ' else letters.pop())\n    return out\n"
)
SHIFT1 = (
    "def blackbox(x):\n    out = ''\n    for c in x:\n"
    "        out = out + (c if c == ' ' else chr((ord(c) - 65 + 1) % 26 + 65))\n    return out\n"
)


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test")


def _design(description: str) -> ScriptedReply:
    args = {"description": description}
    return ScriptedReply(
        tool_calls=[{"name": "submit_design", "arguments": args}], match="Design a new hidden rule"
    )


def _verdict() -> ScriptedReply:
    args = {"verdict": "correct", "reasons": ["ok"], "changes": []}
    return ScriptedReply(
        tool_calls=[{"name": "submit_verdict", "arguments": args}], match="Review a candidate"
    )


def _code(code: str) -> ScriptedReply:
    return ScriptedReply(text=f"```python\n{code}```", match="Write a Python black box")


def test_two_boxes_with_the_same_designer_brief_get_two_designs(tmp_path: Path) -> None:
    # The designer's brief is the same for every box of a level. Each box must still get
    # its own call (a sampling model would answer differently), not box 0's reply again.
    script = [_verdict(), _verdict(), _design("Reverse the letters; spaces stay.")]
    script += [_design("Shift every letter one place forward; spaces stay.")]
    script += [_code(REVERSE), _code(SHIFT1)]
    with LoopbackServer(script) as server:
        models = LlmModels(
            coder="openai/c",
            refiner="anthropic/r",
            design="llm",
            base_urls={"openai": server.openai_base_url, "anthropic": server.anthropic_base_url},
        )
        config = GenerateConfig(
            category="ERI",
            level="easy",
            n=2,
            seed=0,
            out=tmp_path / "s",
            backend="llm",
            llm=models,
        )
        generate_suite(config)
        assert len(server.requests) == 6 and server.remaining == 0
    _, boxes = load_suite_boxes(tmp_path / "s")
    assert [b.code for b in boxes] == [REVERSE, SHIFT1]
    assert boxes[0].hidden.description != boxes[1].hidden.description


def test_scopes_separate_cache_entries_and_a_resume_hits_them(tmp_path: Path) -> None:
    chat = [ChatMessage(role="user", content="same prompt")]
    with LoopbackServer(["one", "two"]) as server, CallCache(tmp_path / "c.sqlite") as cache:
        provider = create_provider("openai/m", base_url=server.openai_base_url, cache=cache)
        with call_scope("box-0/coder"):
            first = provider.complete(chat)
        with call_scope("box-1/coder"):
            second = provider.complete(chat)
        with call_scope("box-0/coder"):
            again = provider.complete(chat)
        assert (first.text, second.text, again.text) == ("one", "two", "one")
        assert again.cached and not first.cached and len(server.requests) == 2
