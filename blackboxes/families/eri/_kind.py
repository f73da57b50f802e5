"""The contract of one cipher kind, and the base for kinds whose space is an explicit set."""

from __future__ import annotations

import math
import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Iterable, Mapping
from functools import cached_property
from typing import Any

from blackboxes.box import JSONValue
from blackboxes.families import _params
from blackboxes.families.eri._alphabet import LOG2_26, OutputFormat
from blackboxes.families.eri._spaces import ExactSetSpace
from blackboxes.information import VersionSpace
from oracle_bench.errors import FamilyError

__all__ = [
    "PREAMBLE",
    "CipherKind",
    "Encrypt",
    "EnumeratedKind",
    "Params",
    "describe_steps",
    "require_int",
    "require_letters",
]

Params = dict[str, JSONValue]
Encrypt = Callable[[str], str]

PREAMBLE = (
    "Input: a plaintext string of uppercase letters A-Z and single spaces, 1 to 32 characters, "
    "with no leading or trailing space. Letters are numbered A=0, B=1, ..., Z=25 and all "
    "arithmetic on letters is modulo 26. "
)
"""The protocol part of every kind's description (the coder's spec)."""

_OUTPUT = "Output: the resulting string."


def describe_steps(steps: list[str]) -> str:
    """The spec of a cipher applying ``steps`` (each one cipher's description body) in order."""
    if len(steps) == 1:
        return PREAMBLE + steps[0] + " " + _OUTPUT
    n = len(steps)
    chain = " ".join(f"Step {i}: {text}" for i, text in enumerate(steps, start=1))
    return (
        PREAMBLE
        + f"The cipher applies {n} steps in order; the output of each step is the input of "
        f"the next. {chain} Output: the result of step {n}."
    )


class CipherKind(ABC):
    """One cipher kind: its key space H, reference cipher, spec text, template and version space."""

    name: str
    template_name: str
    """Template under templates/code/, e.g. ``code/eri/caesar.py.j2``."""
    exact: bool = True
    """False when the version space's entropies are documented estimates."""
    output_format: OutputFormat = "letters"
    """The ciphertext's alphabet and answer normalisation (see ``OutputFormat``); ``cased``
    kinds also receive the plaintext with its case kept."""

    def log2_y(self, query_length: int) -> float:
        """log2 of the outputs one query of at most ``query_length`` characters can have
        (an upper bound is safe: T_info stays a lower bound). Default: 26 ** letters."""
        return query_length * LOG2_26

    @property
    @abstractmethod
    def log2_h(self) -> float:
        """Exact log2 of the number of distinct functions in H on plaintexts of at most n
        characters, the same for every n in [MIN_QUERY_LENGTH, MAX_LEN]."""

    @abstractmethod
    def sample_params(self, rng: random.Random) -> Params:
        """Uniform over the distinct functions of H."""

    @abstractmethod
    def check_params(self, params: Mapping[str, JSONValue]) -> Params:
        """Validated, normalised params; raises ``FamilyError``."""

    @abstractmethod
    def encrypt(self, params: Params) -> Encrypt:
        """The reference cipher for validated params."""

    @abstractmethod
    def describe(self, params: Params) -> str:
        """Neutral spec, precise enough to implement, stating the key."""

    @abstractmethod
    def context(self, params: Params) -> dict[str, Any]:
        """Template context for validated params."""

    @abstractmethod
    def space(self) -> VersionSpace:
        """The prior version space (all of H, uniform)."""

    def steps(self, params: Params) -> list[str]:
        """The description as steps: one for a single cipher, one per stage for a chain."""
        body = self.describe(params).removeprefix(PREAMBLE)
        return [body.removesuffix(_OUTPUT).strip()]

    def space_parts(self) -> list[VersionSpace]:
        """Prior spaces of disjoint parts of H whose union is H (compositions use them)."""
        return [self.space()]


class EnumeratedKind(CipherKind):
    """A kind with a small H listed explicitly, one canonical key per distinct function."""

    @abstractmethod
    def all_params(self) -> Iterable[Params]:
        """Every key, in a fixed order (duplicated functions allowed)."""

    def signature(self, params: Params) -> Hashable:
        """Equal for two keys exactly when they are the same function on every query."""
        return self.encrypt(params)("ABCDEFGHIJKLMNOPQRSTUVWXYZ")

    @cached_property
    def distinct(self) -> tuple[Params, ...]:
        """The first key of each distinct function, in ``all_params`` order."""
        seen: dict[Hashable, Params] = {}
        for params in self.all_params():
            seen.setdefault(self.signature(params), params)
        return tuple(seen.values())

    @property
    def log2_h(self) -> float:
        return math.log2(len(self.distinct))

    def sample_params(self, rng: random.Random) -> Params:
        return dict(rng.choice(self.distinct))

    @cached_property
    def _prior(self) -> ExactSetSpace:
        return ExactSetSpace([self.encrypt(p) for p in self.distinct])

    def space(self) -> VersionSpace:
        return self._prior


def require_int(params: Mapping[str, JSONValue], key: str, lo: int, hi: int) -> int:
    """``params[key]`` as an int in ``[lo, hi]``; raises ``FamilyError``."""
    return _params.require_int("ERI", params, key, lo, hi)


def require_letters(params: Mapping[str, JSONValue], key: str, lo: int, hi: int) -> str:
    """``params[key]`` as an uppercase A-Z string of length in ``[lo, hi]``."""
    value = params.get(key)
    if (
        not isinstance(value, str)
        or not lo <= len(value) <= hi
        or not value.isascii()
        or not value.isalpha()
    ):
        raise FamilyError(f"ERI parameter {key!r} must be {lo}-{hi} letters A-Z, got {value!r}")
    return value.upper()
