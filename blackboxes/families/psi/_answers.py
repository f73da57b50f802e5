"""Reading and checking PSI answers: every object's coordinates, within a tolerance."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence

from blackboxes.box import JSONValue
from blackboxes.families.psi._kind import DECIMALS, object_names

__all__ = [
    "ABS_TOL",
    "REL_TOL",
    "close",
    "parse_coordinates",
    "render_coordinates",
    "wrong_objects",
]

ABS_TOL = 0.02
"""Metres: an answer's coordinate c is right when |c - e| <= ABS_TOL + REL_TOL * |e|."""
REL_TOL = 0.002

_LABEL = re.compile(r"object\s*_?\s*(\d+)", re.IGNORECASE)
_NUMBER = re.compile(r"[-+\u2212]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?")


def close(answer: float, expected: float) -> bool:
    """The per-coordinate tolerance rule."""
    return abs(answer - expected) <= ABS_TOL + REL_TOL * abs(expected)


def render_coordinates(y: Mapping[str, Sequence[float]]) -> str:
    """``object1: (1.23, -4.50); object2: (0.00, 2.00)``."""
    parts = []
    for name in y:
        coords = ", ".join(f"{float(c):.{DECIMALS}f}" for c in y[name])
        parts.append(f"{name}: ({coords})")
    return "; ".join(parts)


def _numbers(text: str) -> list[float]:
    values = []
    for token in _NUMBER.findall(text):
        value = float(token.replace("\u2212", "-"))
        if math.isfinite(value):
            values.append(value)
    return values


def parse_coordinates(text: str, objects: int, dims: int) -> dict[str, list[float]] | None:
    """The coordinates an answer states, or None when it does not state them all.

    Labelled answers (``object2: (1, 2) object1: (3, 4)``, JSON objects) are read by
    label, each label followed by exactly ``dims`` numbers; unlabelled ones as
    ``objects * dims`` numbers in order.
    """
    names = object_names(objects)
    labels = list(_LABEL.finditer(text))
    if labels:
        found: dict[str, list[float]] = {}
        for i, m in enumerate(labels):
            end = labels[i + 1].start() if i + 1 < len(labels) else len(text)
            name = f"object{int(m.group(1))}"
            values = _numbers(text[m.end() : end])
            if name not in names or name in found or len(values) != dims:
                return None
            found[name] = values
        if set(found) != set(names):
            return None
        return {name: found[name] for name in names}
    values = _numbers(text)
    if len(values) != objects * dims:
        return None
    return {name: values[i * dims : (i + 1) * dims] for i, name in enumerate(names)}


def wrong_objects(expected: JSONValue, stated: Mapping[str, Sequence[float]] | None) -> list[str]:
    """The objects with at least one coordinate out of tolerance (all when unreadable)."""
    names = list(expected) if isinstance(expected, Mapping) else []
    if stated is None:
        return names
    return [
        name
        for name in names
        if len(stated.get(name, ())) != len(expected[name])
        or not all(close(a, e) for a, e in zip(stated[name], expected[name], strict=True))
    ]
