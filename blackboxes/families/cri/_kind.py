"""The contract of one circuit kind, and the base for kinds whose parameters can be listed."""

from __future__ import annotations

import math
import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping
from functools import cached_property
from typing import Literal

from blackboxes.box import JSONValue
from blackboxes.families import _params
from blackboxes.families._base import HypothesisSpace
from blackboxes.families.cri._circuit import Circuit
from blackboxes.families.cri._spaces import TableSpace
from blackboxes.information import VersionSpace
from oracle_bench.errors import FamilyError

__all__ = [
    "CircuitKind",
    "Direct",
    "EnumeratedKind",
    "Mode",
    "Params",
    "describe_inputs",
    "require_bits",
    "require_choice",
    "require_indices",
    "require_int",
]

Params = dict[str, JSONValue]
Mode = Literal["outputs", "gates"]
Direct = Callable[[str], str]


def describe_inputs(n: int) -> str:
    """The protocol part of every kind's description (the coder's spec)."""
    return (
        f"Input: a string of exactly {n} characters, each '0' or '1'; character i is input "
        f"bit xi (x0 is the first character, x{n - 1} the last). "
    )


class CircuitKind(ABC):
    """One circuit kind at one level: its rules, reference, circuit and version space.

    ``direct`` is the trusted functional reference (plain Python on the bits); ``circuit``
    is the gate-level implementation the box code is rendered from. Tests check that they
    agree on every input, so the generator's differential test compares two independent
    implementations. The circuit's gate count is the same for every parameter (a box in
    ``gates`` mode states it).
    """

    name: str
    n: int
    """Input bits."""
    m: int
    """Output bits in ``outputs`` mode."""
    modes: tuple[Mode, ...] = ("outputs", "gates")
    """The output modes this kind's version space supports."""
    exact: bool = True
    """False when log2|H| and the version space are documented estimates (upper bounds)."""

    @abstractmethod
    def sample_params(self, rng: random.Random, mode: Mode = "outputs") -> Params:
        """Uniform over the kind's distinct functions observable in ``mode`` (or, for an
        estimated kind, its documented generator)."""

    @abstractmethod
    def check_params(self, params: Mapping[str, JSONValue]) -> Params:
        """Validated, normalised params; raises ``FamilyError``."""

    @abstractmethod
    def direct(self, params: Params) -> Direct:
        """The functional reference: n-bit string -> m-bit string."""

    @abstractmethod
    def circuit(self, params: Params) -> Circuit:
        """The gate-level circuit (its outputs equal ``direct``'s)."""

    @abstractmethod
    def describe(self, params: Params) -> str:
        """Neutral functional spec with every parameter stated (starts with
        :func:`describe_inputs`), precise enough to implement."""

    @property
    @abstractmethod
    def gate_count(self) -> int:
        """Gates in every circuit of the kind (the m of ``gates`` mode)."""

    @abstractmethod
    def log2_h(self, mode: Mode) -> float:
        """log2 of the distinct functions (exact, or the estimate's point value)."""

    @abstractmethod
    def space(self, mode: Mode) -> VersionSpace:
        """The prior version space in ``mode``."""

    def hypothesis(self, mode: Mode) -> HypothesisSpace:
        """log2|H| and log2|Y| (one bit per observed wire)."""
        log2_y = float(self.m if mode == "outputs" else self.gate_count)
        return HypothesisSpace(log2_h=self.log2_h(mode), log2_y=log2_y)

    def observed_width(self, mode: Mode) -> int:
        return self.m if mode == "outputs" else self.gate_count


class EnumeratedKind(CircuitKind):
    """A kind whose parameters can all be listed: H is their distinct truth tables."""

    @abstractmethod
    def all_params(self) -> Iterable[Params]:
        """Every parameter setting, in a fixed order (functions may repeat)."""

    def _distinct(self, mode: Mode) -> tuple[tuple[Params, ...], tuple[tuple[int, ...], ...]]:
        seen: dict[tuple[int, ...], Params] = {}
        for params in self.all_params():
            seen.setdefault(self.circuit(params).tables(mode), params)
        return tuple(seen.values()), tuple(seen)

    @cached_property
    def _outputs(self) -> tuple[tuple[Params, ...], tuple[tuple[int, ...], ...]]:
        return self._distinct("outputs")

    @cached_property
    def _gates(self) -> tuple[tuple[Params, ...], tuple[tuple[int, ...], ...]]:
        return self._distinct("gates")

    def distinct(self, mode: Mode) -> tuple[Params, ...]:
        """The first parameters of each distinct function, in ``all_params`` order."""
        return (self._outputs if mode == "outputs" else self._gates)[0]

    def log2_h(self, mode: Mode) -> float:
        return math.log2(len(self.distinct(mode)))

    def sample_params(self, rng: random.Random, mode: Mode = "outputs") -> Params:
        return dict(rng.choice(self.distinct(mode)))

    @cached_property
    def _spaces(self) -> dict[str, TableSpace]:
        return {}

    def space(self, mode: Mode) -> VersionSpace:
        hit = self._spaces.get(mode)
        if hit is None:
            tables = (self._outputs if mode == "outputs" else self._gates)[1]
            hit = self._spaces[mode] = TableSpace(self.n, tables)
        return hit


def require_int(params: Mapping[str, JSONValue], key: str, lo: int, hi: int) -> int:
    """``params[key]`` as an int in ``[lo, hi]``; raises ``FamilyError``."""
    return _params.require_int("CRI", params, key, lo, hi)


def require_bits(params: Mapping[str, JSONValue], key: str, length: int) -> str:
    """``params[key]`` as a string of exactly ``length`` characters 0/1."""
    value = params.get(key)
    if not isinstance(value, str) or len(value) != length or set(value) - {"0", "1"}:
        raise FamilyError(f"CRI parameter {key!r} must be {length} characters 0/1, got {value!r}")
    return value


def require_choice(params: Mapping[str, JSONValue], key: str, choices: Iterable[object]) -> object:
    """``params[key]``, one of ``choices`` (of the same type); raises ``FamilyError``."""
    return _params.require_choice("CRI", params, key, choices)


def require_indices(
    params: Mapping[str, JSONValue], key: str, length: int, lo: int, hi: int
) -> list[int]:
    """``params[key]`` as a list of ``length`` distinct ints in ``[lo, hi]``."""
    value = params.get(key)
    if (
        not isinstance(value, list)
        or len(value) != length
        or any(not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi for v in value)
        or len(set(value)) != length
    ):
        raise FamilyError(
            f"CRI parameter {key!r} must be {length} distinct integers in [{lo}, {hi}], "
            f"got {value!r}"
        )
    return list(value)
