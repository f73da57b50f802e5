"""Reading an LLM's reply: the text protocol's marker lines and tool-call arguments.

The text protocol (README "LLM agents"): an exploration reply ends with a line
``QUERY: <input>``, an answer with ``ANSWER: <output>``. The marker is case-insensitive,
may be decorated as Markdown does (``**QUERY:**``, ``> QUERY:``, inside a fenced block) and
the last such line of the reply wins, so reasoning before it is free.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from oracle_bench.errors import InvalidQueryError

__all__ = [
    "clip",
    "compact_json",
    "marker_value",
    "rejected_text",
    "string_argument",
]

_FENCE = re.compile(r"^\s*(```|~~~)")
# Leading Markdown decoration (quote, list, heading, emphasis, code), the marker, then any
# emphasis or code closing it before or after the colon.
_DECORATION = r"[\s>#*_`~-]*"


def _marker_pattern(marker: str) -> re.Pattern[str]:
    return re.compile(
        rf"^{_DECORATION}{re.escape(marker)}[*_`]*\s*:[*_`]*[ \t]?(?P<value>.*)$",
        re.IGNORECASE,
    )


_PATTERNS: dict[str, re.Pattern[str]] = {}


def _strip_code(value: str) -> str:
    """``\\`HELLO\\``` -> ``HELLO``: inline code or a fence closing on the same line."""
    text = value.strip()
    for fence in ("```", "`"):
        if text.startswith(fence) and text.endswith(fence) and len(text) >= 2 * len(fence):
            return text[len(fence) : -len(fence)].strip()
    if text.endswith("```"):
        return text[:-3].strip()
    return text


def marker_value(text: str, marker: str) -> str | None:
    """The value of the last ``MARKER: value`` line of ``text``, or None if there is none.

    An empty value takes the next line that is neither blank nor a fence (``QUERY:`` on
    one line and the input in a code block below it).
    """
    pattern = _PATTERNS.get(marker)
    if pattern is None:
        pattern = _PATTERNS[marker] = _marker_pattern(marker)
    lines = text.splitlines()
    for i in range(len(lines) - 1, -1, -1):
        found = pattern.match(lines[i])
        if found is None:
            continue
        value = _strip_code(found.group("value"))
        if value:
            return value
        for follow in lines[i + 1 :]:
            if follow.strip() and not _FENCE.match(follow):
                return _strip_code(follow)
        return ""
    return None


def string_argument(arguments: Mapping[str, Any], key: str) -> str | None:
    """``arguments[key]`` when the call's arguments are an object holding that string."""
    if not isinstance(arguments, Mapping):
        return None
    value = arguments.get(key)
    return value if isinstance(value, str) else None


def compact_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=repr)


def clip(text: str, limit: int = 200) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


# Texts no family parses as a query: no letters for ERI, letters outside any DFA alphabet.
_FALLBACKS = ("", "{}", "\x00")


def rejected_text(parse: Callable[[str], Any], candidates: Iterable[str]) -> str:
    """The first candidate ``parse`` rejects (then the fallbacks), so that a reply without a
    usable call is recorded as an invalid turn rather than read as a query by a lenient
    family (ERI drops every character but letters: ``{"inpt": "x"}`` would be ``INPT X``).
    If every text parses, the first candidate."""
    tried = [*candidates]
    for text in [*tried, *_FALLBACKS]:
        try:
            parse(text)
        except InvalidQueryError:
            return text
    return tried[0] if tried else ""
