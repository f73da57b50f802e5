"""The input domains of CII programs: what an argument may be, stated in the intro."""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from dataclasses import dataclass

from blackboxes.box import JSONValue
from oracle_bench.errors import InvalidQueryError

__all__ = [  # noqa: RUF022 (plain sorted order, tests/test_layout.py)
    "Domain",
    "IntDomain",
    "ListDomain",
    "NUMBER",
    "NUMBERS",
    "PAIRS",
    "TextDomain",
    "WORD",
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
