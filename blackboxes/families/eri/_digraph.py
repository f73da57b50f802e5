"""Digraph ciphers: Playfair (keyword square) and 2x2 Hill. Both drop spaces."""

from __future__ import annotations

import math
import random
from collections.abc import Hashable, Iterable, Mapping
from functools import partial
from typing import Any

from blackboxes.box import JSONValue
from blackboxes.families.eri._alphabet import ALPHABET, LOG2_26, WORDS
from blackboxes.families.eri._ciphers import hill, playfair, playfair_square
from blackboxes.families.eri._hill_space import HillSpace
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

__all__ = ["HILL_COUNT", "HillKind", "PlayfairKind"]

_SQUARE_LETTERS = ALPHABET.replace("J", "")
HILL_COUNT = 6 * 168 * 156 - 1
"""|GL2(Z/26)| = |GL2(Z/2)| * |GL2(Z/13)| = 6 * (13^2 - 1)(13^2 - 13) = 157,248,
minus the identity."""


class PlayfairKind(EnumeratedKind):
    """H: Playfair squares from the built-in keywords, counted as distinct digraph maps.

    Two squares that differ by a cyclic shift of rows or columns encipher identically,
    so functions are compared by their table on every ordered pair of distinct letters
    (the only digraphs Playfair ever enciphers).
    """

    name = "playfair"
    template_name = "code/eri/playfair.py.j2"

    def log2_y(self, query_length: int) -> float:
        # Every letter can become its own digraph (AAAA -> AX AX ...): 2n letters, J never output.
        return 2 * query_length * math.log2(25)

    def all_params(self) -> Iterable[Params]:
        return ({"keyword": w} for w in WORDS)

    def signature(self, params: Params) -> Hashable:
        square = playfair_square(str(params["keyword"]))
        return "".join(
            playfair(square, a + b) for a in _SQUARE_LETTERS for b in _SQUARE_LETTERS if a != b
        )

    def check_params(self, params: Mapping[str, JSONValue]) -> Params:
        return {"keyword": require_letters(params, "keyword", 1, 25)}

    def encrypt(self, params: Params) -> Encrypt:
        return partial(playfair, playfair_square(str(params["keyword"])))

    def describe(self, params: Params) -> str:
        kw = str(params["keyword"])
        square = playfair_square(kw)
        rows = " / ".join(square[i : i + 5] for i in range(0, 25, 5))
        return (
            PREAMBLE
            + f"Playfair cipher with keyword {kw}. The 5x5 square, row by row, is {rows}: the "
            "keyword's letters (J written as I) without repeats, then the remaining letters of A-Z "
            "without J. Preparation: remove the spaces and replace every J by I. Split the letters "
            "into pairs from the left: if the two letters of a pair would be equal, or only one "
            "letter is left, the pair is that letter followed by a filler (X, or Q when the letter "
            "is X), and the next pair starts at the following letter. Each pair (a, b): in "
            "the same row, each letter is replaced by the letter to its right (wrapping "
            "around); in the same column, by the letter below it (wrapping around); otherwise "
            "a becomes the letter in a's row and b's column, and b the letter in b's row and "
            "a's column. Output: the enciphered "
            "pairs concatenated, uppercase letters only, no spaces."
        )

    def context(self, params: Params) -> dict[str, Any]:
        return {"square": playfair_square(str(params["keyword"]))}


def _det_unit(m: tuple[int, int, int, int]) -> bool:
    det = (m[0] * m[3] - m[1] * m[2]) % 26
    return det % 2 == 1 and det % 13 != 0


class HillKind(CipherKind):
    """H: invertible 2x2 matrices mod 26 minus the identity: 157,247 distinct functions."""

    name = "hill"
    template_name = "code/eri/hill.py.j2"

    @property
    def log2_h(self) -> float:
        return math.log2(HILL_COUNT)

    def log2_y(self, query_length: int) -> float:
        return (query_length + query_length % 2) * LOG2_26  # odd lengths are padded with X

    def sample_params(self, rng: random.Random) -> Params:
        while True:  # rejection keeps the draw uniform over H
            m = (rng.randrange(26), rng.randrange(26), rng.randrange(26), rng.randrange(26))
            if _det_unit(m) and m != (1, 0, 0, 1):
                return {"matrix": list(m)}

    def check_params(self, params: Mapping[str, JSONValue]) -> Params:
        m = params.get("matrix")
        if (
            not isinstance(m, list | tuple)
            or len(m) != 4
            or not all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 26 for v in m)
        ):
            raise FamilyError(f"ERI Hill 'matrix' must be 4 integers in 0..25, got {m!r}")
        key = (int(m[0]), int(m[1]), int(m[2]), int(m[3]))
        if not _det_unit(key) or key == (1, 0, 0, 1):
            raise FamilyError(
                f"ERI Hill matrix {list(key)} is not invertible mod 26 or is the identity"
            )
        return {"matrix": list(key)}

    def encrypt(self, params: Params) -> Encrypt:
        m = params["matrix"]
        if not isinstance(m, list):
            raise FamilyError("ERI Hill 'matrix' must be a list")
        return partial(hill, tuple(int(v) for v in m))

    def describe(self, params: Params) -> str:
        m = params["matrix"]
        if not isinstance(m, list):
            raise FamilyError("ERI Hill 'matrix' must be a list")
        a, b, c, d = m
        return (
            PREAMBLE
            + f"2x2 Hill cipher with matrix [[{a}, {b}], [{c}, {d}]]. Remove the spaces; if the "
            "number of letters is odd, append X. Take the letters in consecutive pairs (p, q) and "
            f"replace each pair by ({a}*p + {b}*q) mod 26 followed by ({c}*p + {d}*q) mod 26. "
            "Output: the enciphered letters concatenated, uppercase letters only, no spaces."
        )

    def context(self, params: Params) -> dict[str, Any]:
        return {"hill_matrix": params["matrix"]}

    def space(self) -> VersionSpace:
        return HillSpace()
