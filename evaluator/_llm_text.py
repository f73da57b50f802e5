"""Reading an LLM's reply: the text protocol's marker lines and tool-call arguments.

The text protocol (README "LLM agents"): an exploration reply ends with a line
``QUERY: <input>``, an answer with ``ANSWER: <output>``. The marker may be decorated as
Markdown does (``**QUERY:**``, ``> QUERY:``, inside a fenced block) and the last such line
of the reply wins, so reasoning before it is free. An upper-case marker line is preferred
to a lower-case one (``Query: does that cover the vowels?`` in prose after the real
``QUERY:`` line does not win); an empty marker counts as none; ``\boxed{...}`` and
``$...$`` around the value (a habit of reasoning models) are removed.
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


def _marker_pattern(marker: str, flags: int) -> re.Pattern[str]:
    return re.compile(
        rf"^{_DECORATION}{re.escape(marker)}[*_`]*\s*:[*_`]*[ \t]?(?P<value>.*)$", flags
    )


_PATTERNS: dict[tuple[str, int], re.Pattern[str]] = {}
_BOXED = re.compile(r"^\$*\s*\\boxed\{(?P<inner>.*)\}\s*\$*$")
_MATH = re.compile(r"^\$+(?P<inner>[^$]*)\$+$")


def _strip_code(value: str) -> str:
    """``\\`HELLO\\``` -> ``HELLO``: inline code or a fence closing on the same line."""
    text = value.strip()
    for fence in ("```", "`"):
        if text.startswith(fence) and text.endswith(fence) and len(text) >= 2 * len(fence):
            return text[len(fence) : -len(fence)].strip()
    if text.endswith("```"):
        return text[:-3].strip()
    for wrapper in (_BOXED, _MATH):
        found = wrapper.match(text)
        if found is not None:
            return found.group("inner").strip()
    return text


def marker_value(text: str, marker: str) -> str | None:
    """The value of the last ``MARKER: value`` line of ``text``, or None if there is none.

    Upper-case marker lines are searched first, then any case. An empty value takes the
    next line that is neither blank nor a fence (``QUERY:`` on one line and the input in a
    code block below it); a marker with no value at all counts as none.
    """
    for flags in (0, re.IGNORECASE):
        key = (marker, flags)
        pattern = _PATTERNS.get(key)
        if pattern is None:
            pattern = _PATTERNS[key] = _marker_pattern(marker, flags)
        value = _last_value(text.splitlines(), pattern)
        if value:
            return value
    return None


def _last_value(lines: list[str], pattern: re.Pattern[str]) -> str | None:
    for i in range(len(lines) - 1, -1, -1):
        found = pattern.match(lines[i])
        if found is None:
            continue
        value = _strip_code(found.group("value"))
        if value:
            return value
        for follow in lines[i + 1 :]:
            if follow.strip() and not _FENCE.match(follow):
                return _strip_code(follow) or None
        return None
    return None


def string_argument(arguments: Mapping[str, Any], key: str) -> tuple[str, str] | None:
    """``(value, key used)`` for a call's text argument: ``arguments[key]`` when it is a
    string, else the only argument if there is exactly one and it is a string (models
    rename keys: ``{"plaintext": ...}`` for ``{"input": ...}``); None otherwise."""
    if not isinstance(arguments, Mapping):
        return None
    value = arguments.get(key)
    if isinstance(value, str):
        return value, key
    if len(arguments) == 1:
        ((only, value),) = arguments.items()
        if isinstance(value, str) and only != "_raw":
            return value, str(only)
    return None


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
