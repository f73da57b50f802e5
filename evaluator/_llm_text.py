"""Reading an LLM's reply: the text protocol's marker lines and tool-call arguments.

The text protocol (README "LLM agents"): an exploration reply ends with a line
``QUERY: <input>``, an answer with ``ANSWER: <output>``. The marker may be decorated as
Markdown does (``**QUERY:**``, ``> QUERY:``, inside a fenced block) and the last such line
of the reply wins, so reasoning before it is free. An upper-case marker line is preferred
to a lower-case one (``Query: does that cover the vowels?`` in prose after the real
``QUERY:`` line does not win); an empty marker counts as none; ``\boxed{...}`` and
``$...$`` around the value (a habit of reasoning models) are removed.

Tool-call arguments are the model's and hostile: :func:`unusable_arguments` says in one
line why they cannot be used (not an object, not JSON, over the limits of
:mod:`oracle_bench.bounded`), never naming the providers' internal stand-in key, and
:func:`arguments_text` / :func:`compact_json` render them without ever raising.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from oracle_bench.bounded import BoundsError, check_value, load_json, preview, recordable
from oracle_bench.errors import InvalidQueryError

__all__ = [
    "arguments_text",
    "clip",
    "compact_json",
    "marker_value",
    "rejected_text",
    "string_argument",
    "unusable_arguments",
]

_RAW = "_raw"
"""``providers._base.RAW_ARGUMENTS_KEY``: the stand-in key of arguments a provider could
not read (``{"_raw": <what the model sent>}``); internal, never shown to a model."""

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
    if not isinstance(arguments, Mapping) or _stand_in(arguments):
        return None
    value = arguments.get(key)
    if isinstance(value, str):
        return value, key
    if len(arguments) == 1:
        ((only, value),) = arguments.items()
        if isinstance(value, str):
            return value, str(only)
    return None


def _stand_in(arguments: Mapping[Any, Any]) -> bool:
    return len(arguments) == 1 and _RAW in arguments


def _json_kind(value: object) -> str:
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, list | tuple):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    return "null" if value is None else type(value).__name__


def unusable_arguments(arguments: object) -> str | None:
    """Why a tool call's arguments cannot be used, as one line for the model (not an
    object, not valid JSON, over the limits of :mod:`oracle_bench.bounded`), or None
    when they are a JSON object within the limits. Never names the internal key."""
    if not isinstance(arguments, Mapping):
        return f"the tool call's arguments must be a JSON object, got {_json_kind(arguments)}"
    if _stand_in(arguments):
        raw = arguments[_RAW]
        if not isinstance(raw, str):
            return f"the tool call's arguments must be a JSON object, got {_json_kind(raw)}"
        try:
            value = load_json(raw, what="the tool call")
        except BoundsError as exc:
            return str(exc)
        except json.JSONDecodeError as exc:
            return (
                f"the tool call's arguments are not valid JSON: {exc.msg} "
                f"(line {exc.lineno}, column {exc.colno})"
            )
        return f"the tool call's arguments must be a JSON object, got {_json_kind(value)}"
    try:
        check_value(arguments, "the tool call")
    except BoundsError as exc:
        return str(exc)
    return None


def arguments_text(arguments: object) -> str:
    """The arguments as the model sent them, as text: the raw text a provider could not
    read, else their compact JSON (for messages and notes; never raises)."""
    if isinstance(arguments, Mapping) and _stand_in(arguments):
        raw = arguments[_RAW]
        return raw if isinstance(raw, str) else compact_json(raw)
    return compact_json(arguments)


def compact_json(value: Any) -> str:
    """Sorted-key JSON of ``value``, or of its stand-in when it is over the limits of
    :mod:`oracle_bench.bounded` (never raises)."""
    return json.dumps(recordable(value), ensure_ascii=False, sort_keys=True, default=repr)


def clip(text: str, limit: int = 200) -> str:
    """``text`` on one line, at most ``limit`` characters, lone surrogates escaped (clips
    go into messages and notes, which are recorded)."""
    if not isinstance(text, str):
        text = preview(text, limit)
    flat = " ".join(text.split())
    if not flat.isascii():
        flat = flat.encode("utf-8", "backslashreplace").decode("utf-8")
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
