"""Validators for rule parameters read back from hidden.json (every family's kinds)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from blackboxes.box import JSONValue
from oracle_bench.errors import FamilyError

__all__ = ["require_choice", "require_int"]


def require_int(family: str, params: Mapping[str, JSONValue], key: str, lo: int, hi: int) -> int:
    """``params[key]`` as an int (not a bool) in ``[lo, hi]``; raises ``FamilyError``."""
    value = params.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise FamilyError(
            f"{family} parameter {key!r} must be an integer in [{lo}, {hi}], got {value!r}"
        )
    return value


def require_choice(
    family: str, params: Mapping[str, JSONValue], key: str, choices: Iterable[object]
) -> Any:
    """``params[key]``, one of ``choices`` and of the same type (``True`` is not ``1``,
    ``7.0`` is not ``7``); raises ``FamilyError``."""
    options = list(choices)
    value = params.get(key)
    if not any(value == c and type(value) is type(c) for c in options):
        raise FamilyError(f"{family} parameter {key!r} must be one of {options!r}, got {value!r}")
    return value
