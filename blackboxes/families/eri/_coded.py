"""Coded substitutions with digit outputs: Polybius squares, Bacon's 5-bit codes, 01248.

Each letter becomes one group of digits (its code) and the output is the groups in
plaintext order joined by single spaces; the plaintext's spaces are dropped.
"""

from __future__ import annotations

import math
import random
from abc import abstractmethod
from collections.abc import Iterable, Mapping
from functools import cached_property, partial
from typing import Any

from blackboxes.box import JSONValue
from blackboxes.families.eri._alphabet import ALPHABET, LOG2_26, WORDS, OutputFormat
from blackboxes.families.eri._ciphers import playfair_square
from blackboxes.families.eri._coded_space import CodeBook, CodedSpace, encode
from blackboxes.families.eri._kind import (
    PREAMBLE,
    CipherKind,
    Encrypt,
    EnumeratedKind,
    Params,
    require_letters,
)
from blackboxes.information import VersionSpace
from oracle_bench.errors import FamilyError

__all__ = [
    "GRID_LETTERS",
    "BaconKind",
    "Code01248Kind",
    "PolybiusKeywordKind",
    "PolybiusKind",
    "code01248",
    "polybius_table",
]

GRID_LETTERS = ALPHABET.replace("J", "")
_GRID_CODES = tuple(f"{r}{c}" for r in range(1, 6) for c in range(1, 6))
_BACON_CODES = tuple(format(v, "05b") for v in range(32))
_LOG2_25 = math.log2(25)
_DROP_SPACES = "The plaintext's spaces are dropped. "


def code01248(value: int) -> str:
    """``value`` (1..26) greedily as 8s, then at most one 4, 2 and 1: 26 -> ``8882``."""
    eights, rest = divmod(value, 8)
    return "8" * eights + "".join(d for d, bit in (("4", 4), ("2", 2), ("1", 1)) if rest & bit)


_CODES_01248 = tuple(code01248(v) for v in range(1, 27))


def polybius_table(grid: str) -> dict[str, str]:
    """Letter -> "rc" for a 25-letter grid read row by row; J takes I's code."""
    table = {ch: _GRID_CODES[k] for k, ch in enumerate(grid)}
    table["J"] = table["I"]
    return table


_GRID_BOOK = CodeBook(
    {ch: GRID_LETTERS.index("I" if ch == "J" else ch) for ch in ALPHABET}, _GRID_CODES
)


def _grid_rows(grid: str) -> str:
    return " / ".join(grid[i : i + 5] for i in range(0, 25, 5))


def _polybius_body(grid: str) -> str:
    example = "HELLO WORLD"
    return (
        f"The 5x5 grid, row by row from row 1 (top) to row 5, is {_grid_rows(grid)}; columns "
        "are numbered 1 to 5 from the left. Every J of the plaintext is treated as I. Each "
        "letter becomes two digits: its row number followed by its column number (the first "
        f"letter of the grid, {grid[0]}, becomes 11 and the last, {grid[24]}, becomes 55). "
        + _DROP_SPACES
        + "Output: the letters' two-digit codes in plaintext order separated by single "
        f"spaces, e.g. {example} becomes {encode(polybius_table(grid), example)}."
    )


class _CodedKind(CipherKind):
    """A coded substitution: a key is a letter -> code table; the space is a CodedSpace."""

    output_format: OutputFormat = "digits"
    book: CodeBook

    @abstractmethod
    def table(self, params: Params) -> dict[str, str]:
        """Letter -> code for validated params (every letter A-Z)."""

    @property
    def log2_h(self) -> float:
        return math.log2(math.perm(self.book.n_codes, self.book.n_classes))

    def encrypt(self, params: Params) -> Encrypt:
        return partial(encode, self.table(params))

    @cached_property
    def _prior(self) -> CodedSpace:
        return CodedSpace(self.book)

    def space(self) -> VersionSpace:
        return self._prior


class PolybiusKind(_CodedKind):
    """H: the 25! arrangements of the letters A-Z without J in a 5x5 grid (J as I)."""

    name = "polybius"
    template_name = "code/eri/polybius.py.j2"
    book = _GRID_BOOK

    def log2_y(self, query_length: int) -> float:
        return query_length * _LOG2_25

    def sample_params(self, rng: random.Random) -> Params:
        letters = list(GRID_LETTERS)
        rng.shuffle(letters)
        return {"grid": "".join(letters)}

    def check_params(self, params: Mapping[str, JSONValue]) -> Params:
        grid = require_letters(params, "grid", 25, 25)
        if sorted(grid) != list(GRID_LETTERS):
            raise FamilyError(
                f"ERI polybius 'grid' must hold each letter of A-Z except J once, got {grid!r}"
            )
        return {"grid": grid}

    def table(self, params: Params) -> dict[str, str]:
        return polybius_table(str(params["grid"]))

    def describe(self, params: Params) -> str:
        return PREAMBLE + "Polybius square cipher. " + _polybius_body(str(params["grid"]))

    def context(self, params: Params) -> dict[str, Any]:
        return {"polybius_grid": params["grid"]}


class PolybiusKeywordKind(EnumeratedKind):
    """H: Polybius grids filled from the built-in keywords, counted as distinct grids."""

    name = "polybius_keyword"
    template_name = "code/eri/polybius_keyword.py.j2"
    output_format: OutputFormat = "digits"

    def log2_y(self, query_length: int) -> float:
        return query_length * _LOG2_25

    def all_params(self) -> Iterable[Params]:
        return ({"keyword": w} for w in WORDS)

    @cached_property
    def _grids(self) -> frozenset[str]:
        return frozenset(playfair_square(str(p["keyword"])) for p in self.all_params())

    def check_params(self, params: Mapping[str, JSONValue]) -> Params:
        keyword = require_letters(params, "keyword", 1, 25)
        # Only grids of H: a box outside it would empty the version space.
        if playfair_square(keyword) not in self._grids:
            raise FamilyError(
                f"ERI polybius_keyword keyword {keyword!r} does not give the grid of a "
                "built-in keyword"
            )
        return {"keyword": keyword}

    def encrypt(self, params: Params) -> Encrypt:
        return partial(encode, polybius_table(playfair_square(str(params["keyword"]))))

    def describe(self, params: Params) -> str:
        kw = str(params["keyword"])
        return (
            PREAMBLE + f"Polybius square cipher with keyword {kw}: the grid holds the keyword's "
            "letters (J written as I) in order without repeats, then the remaining letters of "
            "A-Z without J in alphabetical order. " + _polybius_body(playfair_square(kw))
        )

    def context(self, params: Params) -> dict[str, Any]:
        return {"polybius_grid": playfair_square(str(params["keyword"]))}


def _strs(params: Mapping[str, JSONValue], key: str) -> list[str]:
    value = params.get(key)
    if (
        not isinstance(value, list)
        or len(value) != 26
        or not all(isinstance(v, str) for v in value)
    ):
        raise FamilyError(f"ERI parameter {key!r} must be a list of 26 strings, got {value!r}")
    return [str(v) for v in value]


def _ints(params: Mapping[str, JSONValue], key: str) -> list[int]:
    value = params.get(key)
    if (
        not isinstance(value, list)
        or len(value) != 26
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        raise FamilyError(f"ERI parameter {key!r} must be a list of 26 integers, got {value!r}")
    return [int(v) for v in value if isinstance(v, int)]


class BaconKind(_CodedKind):
    """H: the 32!/6! injections of the 26 letters into the 32 five-bit codes."""

    name = "bacon"
    template_name = "code/eri/bacon.py.j2"
    book = CodeBook({ch: i for i, ch in enumerate(ALPHABET)}, _BACON_CODES)

    def log2_y(self, query_length: int) -> float:
        return query_length * 5.0

    def sample_params(self, rng: random.Random) -> Params:
        return {"codes": [_BACON_CODES[v] for v in rng.sample(range(32), 26)]}

    def check_params(self, params: Mapping[str, JSONValue]) -> Params:
        codes = _strs(params, "codes")
        if not set(codes) <= set(_BACON_CODES) or len(set(codes)) != len(codes):
            raise FamilyError(
                f"ERI bacon 'codes' must be 26 distinct strings of five digits 0/1, got {codes!r}"
            )
        return {"codes": list(codes)}

    def table(self, params: Params) -> dict[str, str]:
        return dict(zip(ALPHABET, _strs(params, "codes"), strict=True))

    def describe(self, params: Params) -> str:
        table = self.table(params)
        listing = ", ".join(f"{ch}={code}" for ch, code in table.items())
        example = "HELLO WORLD"
        return (
            PREAMBLE + "Binary letter code (Bacon style): each letter becomes its own five-digit "
            "group of 0s and 1s; the 26 groups are all different (6 of the 32 possible groups "
            f"are unused). The code table is {listing}. " + _DROP_SPACES + "Output: the letters' "
            "five-digit groups in plaintext order separated by single spaces (keep leading "
            f"zeros), e.g. {example} becomes {encode(table, example)}."
        )

    def context(self, params: Params) -> dict[str, Any]:
        return {"bacon_codes": " ".join(self.table(params).values())}


class Code01248Kind(_CodedKind):
    """H: the 26! bijections of the letters onto the values 1..26, written in the 01248 code."""

    name = "code01248"
    template_name = "code/eri/code01248.py.j2"
    book = CodeBook({ch: i for i, ch in enumerate(ALPHABET)}, _CODES_01248)

    def log2_y(self, query_length: int) -> float:
        return query_length * LOG2_26

    def sample_params(self, rng: random.Random) -> Params:
        values = list(range(1, 27))
        rng.shuffle(values)
        return {"values": list(values)}

    def check_params(self, params: Mapping[str, JSONValue]) -> Params:
        values = _ints(params, "values")
        if sorted(values) != list(range(1, 27)):
            raise FamilyError(
                f"ERI code01248 'values' must be the integers 1..26 in some order, got {values!r}"
            )
        return {"values": list(values)}

    def _values(self, params: Params) -> list[int]:
        return _ints(params, "values")

    def table(self, params: Params) -> dict[str, str]:
        return {ch: code01248(v) for ch, v in zip(ALPHABET, self._values(params), strict=True)}

    def describe(self, params: Params) -> str:
        values = self._values(params)
        table = self.table(params)
        listing = ", ".join(
            f"{ch}={v} ({table[ch]})" for ch, v in zip(ALPHABET, values, strict=True)
        )
        example = "HELLO WORLD"
        return (
            PREAMBLE + "01248 code: each letter has its own value from 1 to 26 (all different); "
            f"the values, with their codes in brackets, are {listing}. A value is written as a "
            "sum: as many 8s as fit, then at most one 4, one 2 and one 1, largest first; its "
            "code is the digits of that sum in that order (26 = 8+8+8+2 is 8882, 7 = 4+2+1 is "
            "421, 8 is 8, 1 is 1). " + _DROP_SPACES + "Output: the letters' codes in plaintext "
            "order separated by single spaces; the digit 0 that traditionally separates 01248 "
            f"codes is not used and never appears. E.g. {example} becomes "
            f"{encode(table, example)}."
        )

    def context(self, params: Params) -> dict[str, Any]:
        return {"code01248_values": self._values(params)}
