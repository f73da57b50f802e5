"""Limits on everything an agent sends, checked before any parser sees it.

Every byte from a model, a person or an agent program is hostile: a 4301-digit number
makes ``int()`` and ``json.dumps`` raise (Python's int/str digit limit), a value nested
1000 levels deep makes ``json.loads``, ``repr`` and pydantic recurse until
``RecursionError``, a dict with a tuple key makes ``json.dumps`` raise ``TypeError``, a
lone surrogate makes the UTF-8 encoding of a trajectory raise. Entry points call
:func:`check_text` on text, :func:`load_json` / :func:`decode_json` instead of
``json.loads`` / ``raw_decode``, and :func:`check_value` on values already parsed; a
violation is one :class:`BoundsError` (an ``InvalidQueryError``, so also a ``ValueError``)
whose message is one line the agent can act on::

    the call nests 1000 levels deep; at most 32 are allowed
    the word holds a number with 4301 digits; at most 100 are allowed

Records (trajectories) go through :func:`recordable` / :func:`recordable_text`, which
return the value unchanged when it passes the limits and a clipped string stand-in
otherwise, so ``canonical_json`` of a record can never raise.

The limits (:class:`Limits`, defaults below) are generous for every legitimate use: a
DFA hypothesis of 1000 states over 26 letters (26,000 transitions: about 650 KB of
compact JSON, 105,000 values, depth 5 inside a tool call), long LLM reasoning before a
marker line, ERI queries of 32 letters.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from oracle_bench.errors import InvalidQueryError

__all__ = [
    "DEFAULT_LIMITS",
    "MAX_DEPTH",
    "MAX_ITEMS",
    "MAX_NODES",
    "MAX_NUMBER_DIGITS",
    "MAX_TEXT_CHARS",
    "BoundsError",
    "Limits",
    "check_text",
    "check_value",
    "decode_json",
    "json_nesting",
    "load_json",
    "preview",
    "recordable",
    "recordable_text",
]

MAX_TEXT_CHARS = 1 << 20
"""Characters of one text (a reply, a call, an answer, a file) and of all the strings of
one value together: 1 MiB, room for long reasoning and for a 1000-state hypothesis."""
MAX_DEPTH = 32
"""Nesting of arrays and objects; a tool call with a DFA in it needs 5."""
MAX_NUMBER_DIGITS = 100
"""Digits of one number; far below Python's 4300-digit int/str conversion limit."""
MAX_ITEMS = 100_000
"""Elements of one array or members of one object (a 1000x26 DFA has 26,000 transitions)."""
MAX_NODES = 500_000
"""Values in one structure, containers and scalars together (a 1000x26 DFA has ~105,000)."""

_STAND_IN_PREVIEW = 200
"""Characters of the value kept in a stand-in for a record."""


@dataclass(frozen=True)
class Limits:
    """One set of limits (the module defaults unless a caller needs others)."""

    text_chars: int = MAX_TEXT_CHARS
    depth: int = MAX_DEPTH
    digits: int = MAX_NUMBER_DIGITS
    items: int = MAX_ITEMS
    nodes: int = MAX_NODES


DEFAULT_LIMITS = Limits()


class BoundsError(InvalidQueryError):
    """Agent input over a limit or of a type no parser should see; the message is one
    line for the agent ("the call nests 1000 levels deep; at most 32 are allowed")."""


# -- text ------------------------------------------------------------------------------

_SURROGATE = re.compile("[\ud800-\udfff]")


def _surrogate_problem(text: str) -> str | None:
    if text.isascii():
        return None
    found = _SURROGATE.search(text)
    if found is None:
        return None
    return f"an unpaired surrogate (U+{ord(found.group()):04X}); send valid UTF-8 text"


def check_text(text: object, what: str = "the text", limits: Limits = DEFAULT_LIMITS) -> str:
    """``text`` if it is a ``str`` of at most ``limits.text_chars`` characters that UTF-8
    can encode (no lone surrogate), else :class:`BoundsError`."""
    if not isinstance(text, str):
        raise BoundsError(f"{what} must be text, got {type(text).__name__}")
    if len(text) > limits.text_chars:
        raise BoundsError(
            f"{what} has {len(text)} characters; at most {limits.text_chars} are allowed"
        )
    problem = _surrogate_problem(text)
    if problem is not None:
        raise BoundsError(f"{what} holds {problem}")
    return text


# -- JSON text -------------------------------------------------------------------------

# A JSON string (possessive: linear, never backtracks; an unterminated one has no closing
# quote) or a bracket. Everything else cannot change the nesting.
_TOKEN = re.compile(r'"(?:[^"\\]++|\\.)*+(?P<closed>")?|[\[\]{}]', re.DOTALL)
_OPEN = frozenset("[{")


def json_nesting(text: str, start: int = 0) -> tuple[int, int]:
    """``(depth, end)`` of the JSON value starting at ``text[start]``, by a linear scan of
    brackets outside strings: the deepest nesting reached and the index just after the
    value's closing bracket (``len(text)`` if it never closes). A value that does not start
    with ``[`` or ``{`` has depth 0 and ends at ``start``."""
    if start >= len(text) or text[start] not in _OPEN:
        return 0, start
    depth = deepest = 0
    for token in _TOKEN.finditer(text, start):
        kind = token.group()
        if kind in _OPEN:
            depth += 1
            deepest = max(deepest, depth)
        elif kind in ("]", "}"):
            depth -= 1
            if depth == 0:
                return deepest, token.end()
        elif token.group("closed") is None:
            return deepest, len(text)  # an unterminated string: the rest is inside it
    return deepest, len(text)


def _decoder(what: str, limits: Limits) -> json.JSONDecoder:
    def parse_int(literal: str) -> int:
        digits = len(literal) - literal.startswith("-")
        if digits > limits.digits:
            raise BoundsError(
                f"{what} holds a number with {digits} digits; at most {limits.digits} are allowed"
            )
        return int(literal)

    def parse_float(literal: str) -> float:
        mantissa = literal.lower().partition("e")[0]
        digits = sum(c.isdigit() for c in mantissa)
        if digits > limits.digits:
            raise BoundsError(
                f"{what} holds a number with {digits} digits; at most {limits.digits} are allowed"
            )
        value = float(literal)
        if not math.isfinite(value):
            raise BoundsError(f"{what} holds a number out of range ({preview(literal, 40)})")
        return value

    def parse_constant(name: str) -> Any:
        raise BoundsError(f"{what} holds {name}; only finite numbers are allowed")

    return json.JSONDecoder(
        parse_int=parse_int, parse_float=parse_float, parse_constant=parse_constant
    )


def _check_nesting(text: str, start: int, what: str, limits: Limits) -> None:
    depth, _ = json_nesting(text, start)
    if depth > limits.depth:
        raise BoundsError(f"{what} nests {depth} levels deep; at most {limits.depth} are allowed")


def decode_json(
    text: str, start: int = 0, *, what: str = "the value", limits: Limits = DEFAULT_LIMITS
) -> tuple[Any, int]:
    """``json.JSONDecoder.raw_decode`` within the limits: ``(value, end)`` of the JSON value
    at ``text[start]``. Raises :class:`BoundsError` for a limit, ``json.JSONDecodeError``
    for bad JSON. The nesting is scanned before decoding, so the decoder never recurses
    past ``limits.depth``."""
    _check_nesting(text, start, what, limits)
    value, end = _decoder(what, limits).raw_decode(text, start)
    check_value(value, what, limits)
    return value, end


def load_json(text: object, *, what: str = "the value", limits: Limits = DEFAULT_LIMITS) -> Any:
    """``json.loads`` within the limits (the text's size included). Raises
    :class:`BoundsError` for a limit, ``json.JSONDecodeError`` for bad JSON; NaN and
    Infinity are refused."""
    text = check_text(text, what, limits)
    stripped = len(text) - len(text.lstrip())
    _check_nesting(text, stripped, what, limits)
    value = _decoder(what, limits).decode(text)
    check_value(value, what, limits)
    return value


# -- parsed values ---------------------------------------------------------------------


def _int_digits(value: int) -> int:
    bits = abs(value).bit_length()
    if bits <= 3 * MAX_NUMBER_DIGITS:  # small enough to count exactly through str()
        return len(str(abs(value)))
    # digits = floor(log10|v|) + 1, from the bit length without any str() conversion.
    estimate = int((bits - 1) * math.log10(2)) + 1
    return estimate + (abs(value) >= 10**estimate) if bits < 100_000 else estimate


def _type_error(what: str, value: object) -> BoundsError:
    return BoundsError(
        f"{what} holds a value of type {type(value).__name__}; only JSON values are allowed "
        "(objects, arrays, strings, numbers, true, false, null)"
    )


def _max_depth(value: object, node_cap: int) -> tuple[int, bool]:
    """(deepest nesting, complete) of ``value``, walking at most ``node_cap`` values (a
    cyclic structure never ends)."""
    deepest, seen = 0, 0
    stack: list[tuple[object, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        seen += 1
        if seen > node_cap:
            return deepest, False
        if isinstance(item, Mapping):
            children: Any = item.values()
        elif isinstance(item, list | tuple):
            children = item
        else:
            continue
        deepest = max(deepest, depth + 1)
        stack.extend((child, depth + 1) for child in children)
    return deepest, True


def check_value(value: Any, what: str = "the value", limits: Limits = DEFAULT_LIMITS) -> Any:
    """``value`` if it is a JSON value within the limits, else :class:`BoundsError`.

    JSON values: ``dict`` (any ``Mapping``) with ``str`` keys, ``list``/``tuple``, ``str``,
    ``int``, finite ``float``, ``bool``, ``None``. Checked iteratively (a cyclic or
    deeply nested value cannot overflow the stack): depth, items per container, total
    values, digits per integer, characters of all strings together, no lone surrogates.
    """
    nodes = chars = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        nodes += 1
        if nodes > limits.nodes:
            raise BoundsError(
                f"{what} holds more than {limits.nodes} values; at most {limits.nodes} are allowed"
            )
        if item is None or isinstance(item, bool):
            continue
        if isinstance(item, str):
            chars += len(item)
            if chars > limits.text_chars:
                raise BoundsError(
                    f"{what} holds more than {limits.text_chars} characters of text; at most "
                    f"{limits.text_chars} are allowed"
                )
            problem = _surrogate_problem(item)
            if problem is not None:
                raise BoundsError(f"{what} holds {problem}")
            continue
        if isinstance(item, int):
            digits = _int_digits(item)
            if digits > limits.digits:
                raise BoundsError(
                    f"{what} holds a number with {digits} digits; at most {limits.digits} "
                    "are allowed"
                )
            continue
        if isinstance(item, float):
            if not math.isfinite(item):
                name = "NaN" if math.isnan(item) else "Infinity" if item > 0 else "-Infinity"
                raise BoundsError(f"{what} holds {name}; only finite numbers are allowed")
            continue
        is_mapping = isinstance(item, Mapping)
        if not is_mapping and not isinstance(item, list | tuple):
            raise _type_error(what, item)
        if depth + 1 > limits.depth:
            deepest, complete = _max_depth(value, limits.nodes)
            levels = f"{deepest}" if complete else f"at least {deepest}"
            raise BoundsError(
                f"{what} nests {levels} levels deep; at most {limits.depth} are allowed"
            )
        if len(item) > limits.items:
            kind = "an object of" if is_mapping else "an array of"
            unit = "members" if is_mapping else "items"
            raise BoundsError(
                f"{what} holds {kind} {len(item)} {unit}; at most {limits.items} are allowed"
            )
        if is_mapping:
            for key, child in item.items():
                if not isinstance(key, str):
                    raise BoundsError(
                        f"{what} has an object key that is not a string "
                        f"({type(key).__name__} {preview(key, 40)}); keys must be strings"
                    )
                stack.append((key, depth + 1))
                stack.append((child, depth + 1))
        else:
            stack.extend((child, depth + 1) for child in item)
    return value


# -- records ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Raw:
    text: str


def _scalar(item: object, limit: int) -> str:
    if item is None:
        return "null"
    if isinstance(item, bool):
        return "true" if item else "false"
    if isinstance(item, str):
        clipped = item[:limit]
        return json.dumps(clipped, ensure_ascii=True) + ("..." if len(item) > limit else "")
    if isinstance(item, int):
        digits = _int_digits(item)
        return str(item) if digits <= MAX_NUMBER_DIGITS else f"<a number with {digits} digits>"
    if isinstance(item, float):
        return repr(item)
    return f"<{type(item).__name__}>"


def _members(item: Mapping[Any, Any], limit: int) -> Iterator[Any]:
    for i, (key, child) in enumerate(item.items()):
        if i:
            yield _Raw(", ")
        yield _Raw(_scalar(key, limit) + ": ")
        yield child
    yield _Raw("}")


def _elements(item: list[Any] | tuple[Any, ...]) -> Iterator[Any]:
    for i, child in enumerate(item):
        if i:
            yield _Raw(", ")
        yield child
    yield _Raw("]")


def preview(value: object, limit: int = 80) -> str:
    """A JSON-like rendering of ``value`` clipped to about ``limit`` characters, for
    messages and stand-ins. Never raises and never recurses: huge numbers, deep or cyclic
    structures, non-string keys and foreign types are all shown, only shortened."""
    out: list[str] = []
    size = 0
    stack: list[Iterator[Any]] = [iter((value,))]
    while stack and size < limit:
        try:
            item = next(stack[-1])
        except StopIteration:
            stack.pop()
            continue
        if isinstance(item, _Raw):
            piece = item.text
        elif isinstance(item, Mapping):
            piece = "{"
            stack.append(_members(item, limit))
        elif isinstance(item, list | tuple):
            piece = "["
            stack.append(_elements(item))
        else:
            piece = _scalar(item, limit)
        out.append(piece)
        size += len(piece)
    text = "".join(out)
    if stack or len(text) > limit:
        return text[: max(limit - 3, 0)] + "..."
    return text


def _stand_in(reason: str, shown: str) -> str:
    return f"[not recorded as sent: {reason}] {shown}"


def recordable(value: Any, limits: Limits = DEFAULT_LIMITS) -> Any:
    """``value`` if :func:`check_value` accepts it, else a string stand-in naming the
    violation with a clipped preview: safe for ``canonical_json`` either way."""
    try:
        return check_value(value, "the value", limits)
    except BoundsError as exc:
        return _stand_in(str(exc), preview(value, _STAND_IN_PREVIEW))


def recordable_text(text: object, limits: Limits = DEFAULT_LIMITS) -> str:
    """``text`` if :func:`check_text` accepts it, else a stand-in naming the violation
    with the start of the text (lone surrogates escaped)."""
    try:
        return check_text(text, "the text", limits)
    except BoundsError as exc:
        if isinstance(text, str):
            start = text[:_STAND_IN_PREVIEW].encode("utf-8", "backslashreplace").decode("utf-8")
            shown = start + ("..." if len(text) > _STAND_IN_PREVIEW else "")
        else:
            shown = preview(text, _STAND_IN_PREVIEW)
        return _stand_in(str(exc), shown)
