"""The scripted replies both runners replay in the Inspect adapter's tests: our runner
through a ``scripted/`` file, Inspect's ``mockllm/model`` through :class:`Replayer`,
which serves the lines as the scripted provider does (the first unserved line whose
``match`` is absent or occurs in the last user/tool message; every episode from the first
line). Every mock output carries its usage: without one, mockllm counts tokens with
tiktoken, which downloads its encoding (no network here).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.model import ModelOutput, ModelUsage

INSPECT_WARNINGS = [
    # tenacity (Inspect's retries) warns at every model call in this version.
    pytest.mark.filterwarnings("ignore:The 'initial' parameter is deprecated:DeprecationWarning"),
    # Inspect's own machinery leaves one anyio memory stream per sample unclosed (a bare
    # Task with mockllm does too): a ResourceWarning at garbage collection, not ours.
    pytest.mark.filterwarnings("ignore:Unclosed <MemoryObjectReceiveStream:ResourceWarning"),
    pytest.mark.filterwarnings(
        "ignore:Exception ignored in.*MemoryObjectReceiveStream"
        ":pytest.PytestUnraisableExceptionWarning"
    ),
]

SPEC = "20@2"
WRONG = "#"
"""An answer no ERI ciphertext equals."""


def script_line(
    i: int, tool: str | None = None, text: str = "", **arguments: Any
) -> dict[str, Any]:
    line: dict[str, Any] = {"text": text, "usage": {"input": 100 + i, "output": 7 + i % 3}}
    if tool is not None:
        line["tool_calls"] = [{"id": f"call-{i}", "name": tool, "arguments": arguments}]
    return line


def write(path: Path, lines: Sequence[dict[str, Any]]) -> str:
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return f"scripted/{path}"


def output(line: dict[str, Any]) -> ModelOutput:
    calls = line.get("tool_calls") or []
    if calls:
        call = calls[0]
        out = ModelOutput.for_tool_call(
            "mockllm/model",
            call["name"],
            call["arguments"],
            tool_call_id=call["id"],
            content=line["text"],
        )
    else:
        out = ModelOutput.from_content("mockllm/model", line["text"])
    usage = line["usage"]
    out.usage = ModelUsage(
        input_tokens=usage["input"],
        output_tokens=usage["output"],
        total_tokens=usage["input"] + usage["output"],
    )
    return out


class Replayer:
    """mockllm's ``custom_outputs``: the scripted provider's rule over Inspect messages
    (samples run one at a time: an episode starts with a call without any reply)."""

    def __init__(self, lines: Sequence[dict[str, Any]], fail_at: int | None = None) -> None:
        self.lines = list(lines)
        self.served = [False] * len(self.lines)
        self.fail_at = fail_at
        self.calls = 0

    def __call__(self, input: list[Any], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
        if not any(m.role == "assistant" for m in input):
            self.served = [False] * len(self.lines)
        self.calls += 1
        if self.fail_at is not None and sum(m.role == "assistant" for m in input) == self.fail_at:
            raise RuntimeError("the model API broke")
        last = next((m.text for m in reversed(input) if m.role in ("user", "tool")), "")
        for i, line in enumerate(self.lines):
            if not self.served[i] and (line.get("match") is None or line["match"] in last):
                self.served[i] = True
                return output(line)
        raise ValueError("script exhausted")


def explore() -> list[dict[str, Any]]:
    """20 queries, with a reply without a call (re-asked) after the second."""
    lines = [script_line(0, "query", input="HELLO WORLD"), script_line(1, "query", input="ABC")]
    lines.append(script_line(2, text="Let me think about the cipher first."))
    words = ["THE", "QUICK", "BROWN", "FOX", "JUMPS", "OVER", "LAZY", "DOG", "A", "B", "Z"]
    words += ["AA", "ZZ", "MM", "NOPQ", "XYZ", "KEY", "SPACE BAR"]
    lines += [script_line(3 + n, "query", input=w) for n, w in enumerate(words)]
    return lines


def eri_script(items: dict[str, list[tuple[str, Any]]]) -> list[dict[str, Any]]:
    """Exploration, then the first two items of every box right (matched on their
    plaintext), every other attempt wrong."""
    lines = explore()
    for box_items in items.values():
        for text, expected in box_items[:2]:
            line = script_line(len(lines), "answer", output=expected)
            lines.append({**line, "match": text})
    lines += [script_line(len(lines) + n, "answer", output=WRONG) for n in range(16)]
    return lines


def dfa_script() -> list[dict[str, Any]]:
    """Membership queries, two wrong-or-right equivalence queries, more queries."""
    every = {"states": ["q0"], "alphabet": ["a", "b"], "start": "q0", "accepting": ["q0"]}
    every["transitions"] = [["q0", "a", "q0"], ["q0", "b", "q0"]]
    parity = {
        "states": ["e", "o"],
        "alphabet": ["a", "b"],
        "start": "e",
        "accepting": ["o"],
        "transitions": [["e", "a", "e"], ["e", "b", "o"], ["o", "a", "o"], ["o", "b", "e"]],
    }
    words = ["", "a", "b", "ab", "ba", "bb"]
    lines = [script_line(i, "membership_query", word=w) for i, w in enumerate(words)]
    lines.append(script_line(len(lines), "equivalence_query", dfa=every))
    lines.append(script_line(len(lines), "equivalence_query", dfa=parity))
    more = ["aab", "abb", "bab", "bbb", "aaa", "abab", "baba", "bbbb"] * 6
    lines += [script_line(len(lines) + n, "membership_query", word=w) for n, w in enumerate(more)]
    return lines
