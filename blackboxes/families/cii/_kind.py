"""The contract of one CII program kind: its inputs, reference trace, template and params."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from typing import Any

from blackboxes.box import JSONValue, Level
from blackboxes.families import _params
from blackboxes.families.cii._domains import Domain

__all__ = [  # noqa: RUF022 (plain sorted order, tests/test_layout.py)
    "Event",
    "MAX_EVENTS",
    "Params",
    "ProgramKind",
    "require_choice",
    "require_int",
]

Params = dict[str, JSONValue]
Event = tuple[int, dict[str, JSONValue]]
"""One checkpoint visit: (checkpoint index, its keyword values in call order)."""


class ProgramKind(ABC):
    """One CII program kind at one level.

    A box runs ``blackbox(a, b, ...)`` (the inputs in ``inputs`` order) which calls
    ``checkpoint(k, name=value, ...)`` at numbered points and returns nothing. ``trace``
    is the trusted reference: every checkpoint call the program makes, in order, with the
    same keyword names and values, written independently of the box template (meaningful
    names, straightforward Python). Tests run both and compare the traces.

    Rules for kinds:
    - every value is JSON without floats or dicts: int, bool, str, or lists of those
      (nested lists allowed); no None;
    - every input of the declared domains is valid (the box normalises, e.g. sorts, itself);
    - at most ``MAX_EVENTS`` checkpoint calls for any input of the domains;
    - every checkpoint 1..``checkpoints`` is reached by some input;
    - the variable names are meaningless (single letters, distinct from the inputs');
    - ``all_params`` lists every parameter setting (16..1500 of them); settings with the
      same behaviour are fine (the family keeps the first of each), but the more of them
      differ, the more there is to infer.
    """

    name: str
    level: Level
    inputs: tuple[tuple[str, Domain], ...]
    """(name, domain) of each argument of ``blackbox``, in order."""
    checkpoints: int
    """Checkpoint indices are 1..checkpoints."""
    template: str
    """Template file under templates/code/cii/, e.g. ``"bubble_sort.py.j2"``."""

    def custom_prior(self) -> Any:
        """None: the family enumerates ``all_params`` into behaviour classes (H). A kind
        whose settings are too many to list returns its own prior instead: an object with
        ``space()``, ``hypothesis()`` and ``sample(rng)`` (see ``_kinds.KindPrior``)."""
        return None

    @abstractmethod
    def all_params(self) -> Iterable[Params]:
        """Every parameter setting, in a fixed order."""

    @abstractmethod
    def check_params(self, params: Mapping[str, JSONValue]) -> Params:
        """Validated, normalised params (a copy); raises ``FamilyError``."""

    @abstractmethod
    def trace(self, params: Params, args: Mapping[str, JSONValue]) -> list[Event]:
        """The reference: every checkpoint event of the program on ``args``."""

    @abstractmethod
    def context(self, params: Params) -> dict[str, Any]:
        """The template's context for ``params``."""

    @abstractmethod
    def describe(self, params: Params) -> str:
        """Neutral spec for a coder: the algorithm with every parameter stated, the exact
        checkpoint placements and the values (names, order) each one records."""


MAX_EVENTS = 2000
"""The most checkpoint calls one box call may make over the kind's input domains."""


def require_int(params: Mapping[str, JSONValue], key: str, lo: int, hi: int) -> int:
    """``params[key]`` as an int in ``[lo, hi]``; raises ``FamilyError``."""
    return _params.require_int("CII", params, key, lo, hi)


def require_choice(params: Mapping[str, JSONValue], key: str, choices: Iterable[object]) -> Any:
    """``params[key]``, one of ``choices`` (of the same type); raises ``FamilyError``."""
    return _params.require_choice("CII", params, key, choices)
