"""Letter-wise substitutions: Caesar, affine, keyword alphabet, random substitution.

Each maps every letter through one fixed permutation of the alphabet; spaces stay.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Mapping
from functools import partial
from typing import Any

from blackboxes.box import JSONValue
from blackboxes.families.eri._alphabet import ALPHABET, WORDS
from blackboxes.families.eri._ciphers import affine_perm, caesar_perm, keyword_perm, substitute
from blackboxes.families.eri._kind import (
    PREAMBLE,
    CipherKind,
    Encrypt,
    EnumeratedKind,
    Params,
    require_int,
    require_letters,
)
from blackboxes.families.eri._substitution_space import SubstitutionSpace
from blackboxes.information import VersionSpace
from oracle_bench.errors import FamilyError

__all__ = ["AffineKind", "CaesarKind", "KeywordKind", "SubstitutionKind"]

_UNITS = (1, 3, 5, 7, 9, 11, 15, 17, 19, 21, 23, 25)
_KEEP_SPACES = "Spaces are copied unchanged to the same positions of the output. "


class CaesarKind(EnumeratedKind):
    """H: shifts 1..25 (shift 0, the identity, excluded): 25 functions."""

    name = "caesar"
    template_name = "code/eri/caesar.py.j2"

    def all_params(self) -> Iterable[Params]:
        return ({"shift": s} for s in range(1, 26))

    def check_params(self, params: Mapping[str, JSONValue]) -> Params:
        return {"shift": require_int(params, "shift", 1, 25)}

    def encrypt(self, params: Params) -> Encrypt:
        return partial(substitute, caesar_perm(int(params["shift"])))

    def describe(self, params: Params) -> str:
        s = params["shift"]
        return (
            PREAMBLE
            + f"Caesar cipher with shift {s}: each letter p becomes the letter (p + {s}) mod 26 "
            "(e.g. with shift 3, A->D and Z->C). " + _KEEP_SPACES + "Output: the resulting string."
        )

    def context(self, params: Params) -> dict[str, Any]:
        return {"caesar_shift": params["shift"]}


class AffineKind(EnumeratedKind):
    """H: c = a*p + b mod 26, a a unit (12 values), b in 0..25, minus the identity (1, 0): 311."""

    name = "affine"
    template_name = "code/eri/affine.py.j2"

    def all_params(self) -> Iterable[Params]:
        return ({"a": a, "b": b} for a in _UNITS for b in range(26) if (a, b) != (1, 0))

    def check_params(self, params: Mapping[str, JSONValue]) -> Params:
        a, b = require_int(params, "a", 1, 25), require_int(params, "b", 0, 25)
        if a not in _UNITS or (a, b) == (1, 0):
            raise FamilyError(
                f"ERI affine key needs a coprime to 26 and (a, b) != (1, 0), got {(a, b)}"
            )
        return {"a": a, "b": b}

    def encrypt(self, params: Params) -> Encrypt:
        return partial(substitute, affine_perm(int(params["a"]), int(params["b"])))

    def describe(self, params: Params) -> str:
        a, b = params["a"], params["b"]
        return (
            PREAMBLE + f"Affine cipher with a = {a}, b = {b}: each letter p becomes the letter "
            f"({a} * p + {b}) mod 26. " + _KEEP_SPACES + "Output: the resulting string."
        )

    def context(self, params: Params) -> dict[str, Any]:
        return {"affine_a": params["a"], "affine_b": params["b"]}


class KeywordKind(EnumeratedKind):
    """H: keyword alphabets from the built-in word list, counted as distinct permutations."""

    name = "keyword"
    template_name = "code/eri/keyword.py.j2"

    def all_params(self) -> Iterable[Params]:
        return ({"keyword": w} for w in WORDS)

    def check_params(self, params: Mapping[str, JSONValue]) -> Params:
        keyword = require_letters(params, "keyword", 1, 26)
        if keyword_perm(keyword) == ALPHABET:
            raise FamilyError(f"ERI keyword {keyword!r} gives the identity alphabet")
        return {"keyword": keyword}

    def encrypt(self, params: Params) -> Encrypt:
        return partial(substitute, keyword_perm(str(params["keyword"])))

    def describe(self, params: Params) -> str:
        kw = params["keyword"]
        perm = keyword_perm(str(kw))
        return (
            PREAMBLE
            + f"Keyword substitution with keyword {kw}: the cipher alphabet is the letters of "
            f"{kw} in order with repeats removed, followed by the remaining letters of A-Z in "
            f"alphabetical order ({perm}). Letter number p of A-Z becomes letter number p of the "
            "cipher alphabet. " + _KEEP_SPACES + "Output: the resulting string."
        )

    def context(self, params: Params) -> dict[str, Any]:
        return {"keyword": params["keyword"]}


class SubstitutionKind(CipherKind):
    """H: all 26! permutations of the alphabet (the identity included: probability 1/26!)."""

    name = "substitution"
    template_name = "code/eri/substitution.py.j2"

    @property
    def log2_h(self) -> float:
        return math.log2(math.factorial(26))

    def sample_params(self, rng: random.Random) -> Params:
        letters = list(ALPHABET)
        rng.shuffle(letters)
        return {"alphabet": "".join(letters)}

    def check_params(self, params: Mapping[str, JSONValue]) -> Params:
        perm = require_letters(params, "alphabet", 26, 26)
        if sorted(perm) != list(ALPHABET):
            raise FamilyError(
                f"ERI substitution alphabet must be a permutation of A-Z, got {perm!r}"
            )
        return {"alphabet": perm}

    def encrypt(self, params: Params) -> Encrypt:
        return partial(substitute, str(params["alphabet"]))

    def describe(self, params: Params) -> str:
        perm = params["alphabet"]
        return (
            PREAMBLE
            + f"Monoalphabetic substitution with cipher alphabet {perm}: letter number p of "
            "A-Z becomes letter number p of the cipher alphabet (A becomes its first letter, "
            "and so "
            "on). " + _KEEP_SPACES + "Output: the resulting string."
        )

    def context(self, params: Params) -> dict[str, Any]:
        return {"cipher_alphabet": params["alphabet"]}

    def space(self) -> VersionSpace:
        return SubstitutionSpace()
