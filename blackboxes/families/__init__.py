"""Family registry: each family module registers itself where it is defined."""

from __future__ import annotations

from typing import TypeVar

from blackboxes.families._base import LEVELS, Family, HypothesisSpace, Rule, t_info
from oracle_bench.errors import UnknownNameError

__all__ = [
    "LEVELS",
    "Family",
    "HypothesisSpace",
    "Rule",
    "family_names",
    "get_family",
    "register_family",
    "t_info",
]

_F = TypeVar("_F", bound=type[Family])
_REGISTRY: dict[str, Family] = {}


def register_family(cls: _F) -> _F:
    """Class decorator: register one instance of a family under ``cls.name``."""
    if cls.name in _REGISTRY:
        raise ValueError(f"family {cls.name!r} registered twice")
    _REGISTRY[cls.name] = cls()
    return cls


def get_family(name: str) -> Family:
    """The registered family called ``name`` (case-insensitive)."""
    _load_builtin()
    family = _REGISTRY.get(name.upper())
    if family is None:
        raise UnknownNameError("category", name, list(_REGISTRY))
    return family


def family_names() -> list[str]:
    _load_builtin()
    return sorted(_REGISTRY)


_loaded = False


def _load_builtin() -> None:
    # Imported lazily so that the registry module itself stays import-cycle free.
    global _loaded
    if not _loaded:
        _loaded = True
        from blackboxes.families import dfa, eri  # noqa: F401
