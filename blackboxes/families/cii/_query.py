"""CII query text: lenient reading (``a=[3, 1]; checkpoint=2; visit=1``), canonical writing,
and the answer normalisation."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence

from blackboxes.box import JSONValue
from blackboxes.families.cii._domains import Domain, TextDomain
from oracle_bench.errors import InvalidQueryError
from oracle_bench.pyast import literal_eval

__all__ = [
    "CHECKPOINT_KEYS",
    "MAX_VISIT",
    "VISIT_KEYS",
    "canonical",
    "format_query",
    "normalise_value",
    "parse_query",
    "render_value",
]

MAX_VISIT = 1000
"""The highest visit a query may ask for."""
CHECKPOINT_KEYS = ("checkpoint", "cp", "idx", "index")
VISIT_KEYS = ("visit", "iter", "iteration")
_MAX_VALUE_CHARS = 2000
_PAIR = re.compile(r"\(\s*(\d+)\s*,\s*(\d+)\s*\)\Z")
_KEY = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*[=:]\s*(.*)\Z", re.DOTALL)
_WORD = re.compile(r"[A-Za-z]+\Z")


_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
"""``json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)`` without
building an encoder per call (the analyses of the kinds call it ~10^5 times)."""


def canonical(value: JSONValue) -> str:
    """Compact, key-sorted JSON: the form two values are compared in."""
    return _CANONICAL.encode(value)


def render_value(value: JSONValue) -> str:
    """A value as an agent reads it: JSON with a space after each comma."""
    return json.dumps(value, separators=(", ", ": "), ensure_ascii=False)


def _split(text: str) -> list[str]:
    """Top-level items separated by ``;``, ``,`` or newlines (not inside brackets/quotes)."""
    items, depth, quote, start = [], 0, "", 0
    for i, c in enumerate(text):
        if quote:
            if c == quote:
                quote = ""
        elif c in "\"'":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c in ";,\n" and depth == 0:
            items.append(text[start:i])
            start = i + 1
    items.append(text[start:])
    return [item.strip() for item in items if item.strip()]


def _literal(text: str, name: str, domain: Domain | None) -> JSONValue:
    """A Python or JSON literal (``true``/``false`` too); a bare word for a text input."""
    if len(text) > _MAX_VALUE_CHARS:
        raise InvalidQueryError(f"the value of {name} is over {_MAX_VALUE_CHARS} characters")
    if isinstance(domain, TextDomain) and _WORD.fullmatch(text):
        return text
    swapped = re.sub(r"\btrue\b", "True", re.sub(r"\bfalse\b", "False", text))
    try:
        value = literal_eval(swapped)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError) as exc:
        raise InvalidQueryError(f"cannot read the value of {name}: {text[:60]!r}") from exc
    if isinstance(value, tuple):
        value = list(value)
    return value


def _index(text: str, what: str, hi: int) -> int:
    if not re.fullmatch(r"\+?\d{1,6}", text.strip()):
        raise InvalidQueryError(f"{what} must be a whole number in 1..{hi}, got {text[:30]!r}")
    value = int(text)
    if not 1 <= value <= hi:
        raise InvalidQueryError(f"{what} must be in 1..{hi}, got {value}")
    return value


def _json_items(text: str) -> list[tuple[str, str]] | None:
    """``{"inputs": {...}, "checkpoint": k, "visit": v}`` (or flat) as key/value texts."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict):
        return None
    inputs = data.pop("inputs", None)
    if inputs is not None:
        if not isinstance(inputs, dict):
            raise InvalidQueryError('"inputs" must be an object of input values')
        clash = set(inputs) & set(data)
        if clash:
            raise InvalidQueryError(f"{', '.join(sorted(clash))} given twice")
        data = {**inputs, **data}
    return [(str(k), json.dumps(v)) for k, v in data.items()]


def parse_query(
    text: str, inputs: Sequence[tuple[str, Domain]], checkpoints: int
) -> dict[str, JSONValue]:
    """Read ``a=[3, 1]; b=4; checkpoint=2; visit=1`` (also ``(2, 1)`` for the checkpoint
    and visit, ``cp``/``idx`` and ``iter`` as their names, JSON objects, ``:`` for ``=``).

    Every input exactly once, each in its domain; the checkpoint in 1..``checkpoints``;
    the visit (1 if left out) in 1..MAX_VISIT. Anything else is refused.
    """
    if not isinstance(text, str):
        raise InvalidQueryError(f"a query must be text, got {type(text).__name__}")
    domains = dict(inputs)
    stripped = text.strip().strip("`").strip()
    pairs = _json_items(stripped) if stripped.startswith("{") else None
    if pairs is None:
        pairs = []
        for item in _split(stripped):
            pair = _PAIR.fullmatch(item)
            if pair:
                pairs += [("checkpoint", pair.group(1)), ("visit", pair.group(2))]
                continue
            match = _KEY.fullmatch(item)
            if match is None:
                raise InvalidQueryError(
                    f"cannot read {item[:40]!r}: write name=value items separated by ';', "
                    f"e.g. {format_example(inputs)}"
                )
            pairs.append((match.group(1), match.group(2).strip()))
    values: dict[str, JSONValue] = {}
    checkpoint: int | None = None
    visit: int | None = None
    for key, raw in pairs:
        low = key.lower()
        if low in CHECKPOINT_KEYS:
            if checkpoint is not None:
                raise InvalidQueryError("the checkpoint is given twice")
            checkpoint = _index(raw, "the checkpoint", checkpoints)
        elif low in VISIT_KEYS:
            if visit is not None:
                raise InvalidQueryError("the visit is given twice")
            visit = _index(raw, "the visit", MAX_VISIT)
        elif key in domains:
            if key in values:
                raise InvalidQueryError(f"input {key} is given twice")
            values[key] = domains[key].check(_literal(raw, key, domains[key]), key)
        else:
            names = ", ".join(name for name, _ in inputs)
            raise InvalidQueryError(
                f"unknown name {key[:30]!r}: the inputs are {names}, then checkpoint and visit"
            )
    missing = [name for name, _ in inputs if name not in values]
    if missing:
        raise InvalidQueryError(f"missing input {', '.join(missing)}")
    if checkpoint is None:
        raise InvalidQueryError(f"say which checkpoint (1..{checkpoints}), e.g. checkpoint=1")
    return {
        "inputs": {name: values[name] for name, _ in inputs},
        "checkpoint": checkpoint,
        "visit": 1 if visit is None else visit,
    }


def format_query(x: Mapping[str, JSONValue]) -> str:
    """``a=[3, 1]; b=4; checkpoint=2; visit=1`` (and ``; variable=p`` for a held-out item)."""
    inputs = x["inputs"]
    if not isinstance(inputs, dict):
        raise InvalidQueryError(f"not a CII query: {x!r}")
    parts = [f"{name}={render_value(value)}" for name, value in inputs.items()]
    parts += [f"checkpoint={x['checkpoint']}", f"visit={x['visit']}"]
    if "variable" in x:
        parts.append(f"variable={x['variable']}")
    return "; ".join(parts)


def format_example(inputs: Sequence[tuple[str, Domain]]) -> str:
    """An example query for these inputs (their domains' first edges)."""
    example = {name: domain.edges()[-1] for name, domain in inputs}
    return format_query({"inputs": example, "checkpoint": 1, "visit": 1})


def normalise_value(text: str) -> str:
    """The answer normalisation: an optional ``name =`` prefix and backticks dropped, then
    the value read as a JSON or Python literal (``true``/``True``, ``'ab'``/``"ab"``, tuples
    as lists) and written as compact JSON; a bare word is a string; anything unreadable is
    compared with its whitespace removed."""
    stripped = text.strip().strip("`").strip()
    match = _KEY.fullmatch(stripped)
    if match is not None and "=" in stripped and not stripped.startswith(("[", "(", "{")):
        stripped = match.group(2).strip()
    if _WORD.fullmatch(stripped) and stripped not in ("true", "false", "True", "False"):
        return canonical(stripped)
    try:
        return canonical(_literal(stripped, "the answer", None))
    except InvalidQueryError:
        return re.sub(r"\s+", "", stripped)
    except (TypeError, ValueError):
        return re.sub(r"\s+", "", stripped)
