"""Validators for puzzle parameters (they may come back from a corrupt or hostile file)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from blackboxes.puzzles._base import PuzzleError

__all__ = ["require_int", "require_int_list", "require_keys"]


def require_keys(kind: str, params: Mapping[str, Any], keys: tuple[str, ...]) -> None:
    """Exactly ``keys``: a missing or an unknown key means the parameters are corrupt."""
    missing = [k for k in keys if k not in params]
    extra = sorted(str(k) for k in params if k not in keys)
    if missing or extra:
        raise PuzzleError(
            f"{kind} parameters must have exactly the keys {', '.join(keys)}"
            f" (missing: {', '.join(missing) or 'none'}; unknown: {', '.join(extra) or 'none'})"
        )


def require_int(kind: str, params: Mapping[str, Any], key: str, lo: int, hi: int) -> int:
    """``params[key]`` as an int (not a bool) in ``[lo, hi]``."""
    value = params.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise PuzzleError(f"{kind} parameter {key!r} must be an integer in [{lo}, {hi}]")
    return value


def require_int_list(
    kind: str, params: Mapping[str, Any], key: str, lo: int, hi: int, length: tuple[int, int]
) -> list[int]:
    """``params[key]`` as a list of ints in ``[lo, hi]`` whose length is within ``length``."""
    value = params.get(key)
    if (
        not isinstance(value, list)
        or not length[0] <= len(value) <= length[1]
        or not all(isinstance(v, int) and not isinstance(v, bool) and lo <= v <= hi for v in value)
    ):
        raise PuzzleError(
            f"{kind} parameter {key!r} must be a list of {length[0]}-{length[1]}"
            f" integers in [{lo}, {hi}]"
        )
    return list(value)
