"""The input domains of CII programs: what an argument may be, stated in the intro."""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from dataclasses import dataclass

from blackboxes.box import JSONValue
from oracle_bench.errors import FamilyError, InvalidQueryError

__all__ = [  # noqa: RUF022 (plain sorted order, tests/test_layout.py)
    "Domain",
    "IntDomain",
    "ListDomain",
    "NUMBER",
    "NUMBERS",
    "PAIRS",
    "TextDomain",
    "WORD",
    "domain_from_json",
    "domain_to_json",
]


class Domain(ABC):
    """The values one argument may take: checked strictly, sampled uniformly."""

    @abstractmethod
    def describe(self) -> str:
        """For the intro, e.g. ``an integer in 0..30``."""

    @abstractmethod
    def check(self, value: object, name: str) -> JSONValue:
        """``value`` if it is in the domain; raises ``InvalidQueryError`` naming ``name``."""

    @abstractmethod
    def sample(self, rng: random.Random) -> JSONValue:
        """A random value of the domain."""

    @abstractmethod
    def edges(self) -> list[JSONValue]:
        """A few boundary values (the fixed plan and the differential test start there)."""

    @property
    @abstractmethod
    def key(self) -> str:
        """Equal for equal domains (the agents' prior mixes kinds with equal signatures)."""


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True)
class IntDomain(Domain):
    lo: int
    hi: int

    def describe(self) -> str:
        return f"an integer in {self.lo}..{self.hi}"

    def check(self, value: object, name: str) -> JSONValue:
        if not _is_int(value) or not self.lo <= value <= self.hi:  # type: ignore[operator]
            raise InvalidQueryError(f"input {name} must be {self.describe()}, got {value!r}")
        return value

    def sample(self, rng: random.Random) -> JSONValue:
        return rng.randint(self.lo, self.hi)

    def edges(self) -> list[JSONValue]:
        mid = (self.lo + self.hi) // 2
        return list(dict.fromkeys([self.lo, self.hi, mid, min(self.hi, self.lo + 1)]))

    @property
    def key(self) -> str:
        return f"int[{self.lo},{self.hi}]"


@dataclass(frozen=True)
class ListDomain(Domain):
    min_len: int
    max_len: int
    lo: int
    hi: int

    def describe(self) -> str:
        return f"a list of {self.min_len} to {self.max_len} integers, each in {self.lo}..{self.hi}"

    def check(self, value: object, name: str) -> JSONValue:
        if (
            not isinstance(value, list)
            or not self.min_len <= len(value) <= self.max_len
            or any(not _is_int(v) or not self.lo <= v <= self.hi for v in value)
        ):
            raise InvalidQueryError(f"input {name} must be {self.describe()}, got {value!r}")
        return list(value)

    def sample(self, rng: random.Random) -> JSONValue:
        n = rng.randint(self.min_len, self.max_len)
        return [rng.randint(self.lo, self.hi) for _ in range(n)]

    def edges(self) -> list[JSONValue]:
        n = self.max_len
        up = [self.lo + (i * (self.hi - self.lo)) // max(1, n - 1) for i in range(n)]
        return [up[::-1], up, [self.lo] * max(self.min_len, 1)][: 3 if self.min_len <= 1 else 2]

    @property
    def key(self) -> str:
        return f"list[{self.min_len},{self.max_len}][{self.lo},{self.hi}]"


@dataclass(frozen=True)
class TextDomain(Domain):
    alphabet: str
    min_len: int
    max_len: int

    def describe(self) -> str:
        letters = ", ".join(self.alphabet)
        return f"a string of {self.min_len} to {self.max_len} letters from {letters}"

    def check(self, value: object, name: str) -> JSONValue:
        if (
            not isinstance(value, str)
            or not self.min_len <= len(value) <= self.max_len
            or set(value) - set(self.alphabet)
        ):
            raise InvalidQueryError(f"input {name} must be {self.describe()}, got {value!r}")
        return value

    def sample(self, rng: random.Random) -> JSONValue:
        n = rng.randint(self.min_len, self.max_len)
        return "".join(rng.choice(self.alphabet) for _ in range(n))

    def edges(self) -> list[JSONValue]:
        a = self.alphabet
        n = self.max_len
        return [a[0] * n, "".join(a[i % len(a)] for i in range(n))]

    @property
    def key(self) -> str:
        return f"text[{self.alphabet}][{self.min_len},{self.max_len}]"


NUMBERS = ListDomain(1, 8, 0, 20)
"""The usual list input: 1 to 8 integers in 0..20."""
PAIRS = ListDomain(1, 6, 0, 9)
"""Shorter lists of small values (for kinds whose traces grow fast, or digit lists)."""
NUMBER = IntDomain(0, 40)
"""The usual integer input."""
WORD = TextDomain("abc", 1, 10)
"""The usual string input: 1 to 10 letters from a, b, c."""


def domain_to_json(domain: Domain) -> dict[str, JSONValue]:
    """The domain as box.json's ``interface`` states it."""
    if isinstance(domain, IntDomain):
        return {"type": "int", "lo": domain.lo, "hi": domain.hi}
    if isinstance(domain, ListDomain):
        return {
            "type": "list",
            "min_len": domain.min_len,
            "max_len": domain.max_len,
            "lo": domain.lo,
            "hi": domain.hi,
        }
    if isinstance(domain, TextDomain):
        return {
            "type": "text",
            "alphabet": domain.alphabet,
            "min_len": domain.min_len,
            "max_len": domain.max_len,
        }
    raise FamilyError(f"no JSON form for CII domain {domain!r}")


_LIMIT = 10_000


def _bounded(spec: dict[str, object], key: str, lo: int = -_LIMIT, hi: int = _LIMIT) -> int:
    value = spec.get(key)
    if not _is_int(value) or not lo <= value <= hi:  # type: ignore[operator]
        raise FamilyError(f"CII interface: {key} must be an integer in {lo}..{hi}, got {value!r}")
    return value  # type: ignore[return-value]


def domain_from_json(spec: object) -> Domain:
    """The domain of one box.json input; raises ``FamilyError`` for anything else."""
    if not isinstance(spec, dict):
        raise FamilyError(f"CII interface: an input domain is an object, got {spec!r}")
    kind = spec.get("type")
    fields = {
        "int": {"type", "lo", "hi"},
        "list": {"type", "min_len", "max_len", "lo", "hi"},
        "text": {"type", "alphabet", "min_len", "max_len"},
    }.get(kind if isinstance(kind, str) else "")
    if fields is None or set(spec) != fields:
        raise FamilyError(f"CII interface: not an input domain: {spec!r}")
    if kind == "int":
        lo, hi = _bounded(spec, "lo"), _bounded(spec, "hi")
        if lo > hi:
            raise FamilyError(f"CII interface: empty integer domain {spec!r}")
        return IntDomain(lo, hi)
    min_len, max_len = _bounded(spec, "min_len", 0, 64), _bounded(spec, "max_len", 0, 64)
    if min_len > max_len:
        raise FamilyError(f"CII interface: empty length range {spec!r}")
    if kind == "list":
        lo, hi = _bounded(spec, "lo"), _bounded(spec, "hi")
        if lo > hi:
            raise FamilyError(f"CII interface: empty value range {spec!r}")
        return ListDomain(min_len, max_len, lo, hi)
    alphabet = spec.get("alphabet")
    if (
        not isinstance(alphabet, str)
        or not 1 <= len(alphabet) <= 26
        or not alphabet.isalpha()
        or not alphabet.isascii()
        or len(set(alphabet)) != len(alphabet)
    ):
        raise FamilyError(f"CII interface: alphabet must be distinct ASCII letters: {spec!r}")
    return TextDomain(alphabet, min_len, max_len)
