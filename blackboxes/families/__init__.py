"""Family registry: each family module registers itself where it is defined.

The built-in families are the subpackages of this package, one per family code
(``dfa`` -> ``DFA``): :func:`family_names` lists them without importing any, and
:func:`get_family` imports the one it is asked for, which registers it.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache
from typing import TYPE_CHECKING, TypeVar

from oracle_bench._lazy import lazy_exports
from oracle_bench.errors import UnknownNameError

if TYPE_CHECKING:
    from blackboxes.box import BoxInfo, Level
    from blackboxes.families._base import BoxCall, Family, HypothesisSpace, Rule, t_info
else:
    __getattr__, __dir__ = lazy_exports(
        __name__,
        {"blackboxes.families._base": ("BoxCall", "Family", "HypothesisSpace", "Rule", "t_info")},
    )

__all__ = [  # noqa: RUF022 (plain sorted order, tests/test_layout.py)
    "BoxCall",
    "Family",
    "LEVELS",
    "HypothesisSpace",
    "Rule",
    "family_for_box",
    "family_names",
    "get_family",
    "register_family",
    "t_info",
]

LEVELS: tuple[Level, ...] = ("easy", "hard")
"""The difficulty levels every family offers."""

_F = TypeVar("_F", bound="type[Family]")
_REGISTRY: dict[str, Family] = {}


def register_family(cls: _F) -> _F:
    """Class decorator: register one instance of a family under ``cls.name``."""
    if cls.name in _REGISTRY:
        raise ValueError(f"family {cls.name!r} registered twice")
    _REGISTRY[cls.name] = cls()
    return cls


def get_family(name: str) -> Family:
    """The registered family called ``name`` (case-insensitive)."""
    code = name.upper()
    if code not in _REGISTRY and code in _builtin_codes():
        importlib.import_module(f"{__name__}.{code.lower()}")
    family = _REGISTRY.get(code)
    if family is None:
        raise UnknownNameError("category", name, family_names())
    return family


def family_for_box(info: BoxInfo) -> Family:
    """The family serving the box of box.json ``info``: its category, set to the box's
    public interface (ERI's query length and output format)."""
    return get_family(info.family).for_interface(info.interface)


def family_names() -> list[str]:
    """The family codes, sorted: the built-in ones (imported or not) and any registered."""
    return sorted(set(_builtin_codes()) | set(_REGISTRY))


@cache
def _builtin_codes() -> tuple[str, ...]:
    # The subpackages' names, read from the file system: listing the families (for
    # --help, say) must not import them and everything they depend on.
    return tuple(
        info.name.upper()
        for info in pkgutil.iter_modules(__path__)
        if info.ispkg and not info.name.startswith("_")
    )
