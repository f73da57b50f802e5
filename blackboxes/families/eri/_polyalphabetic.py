"""Periodic polyalphabetic substitution: three independent random cipher alphabets.

The i-th LETTER of the plaintext (spaces are not counted) is replaced through alphabet
i mod 3; spaces stay in place, as in Vigenere.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

from blackboxes.box import JSONValue
from blackboxes.families.eri._alphabet import ALPHABET
from blackboxes.families.eri._kind import PREAMBLE, CipherKind, Encrypt, Params
from blackboxes.families.eri._polyalphabetic_space import PolyalphabeticSpace
from blackboxes.information import VersionSpace
from oracle_bench.errors import FamilyError

__all__ = ["POLY_PERIOD", "PolyalphabeticKind", "polyalphabetic"]

POLY_PERIOD = 3
_IDX = {ch: i for i, ch in enumerate(ALPHABET)}
_SORTED = sorted(ALPHABET)


def polyalphabetic(alphabets: Sequence[str], text: str) -> str:
    """Letter i (spaces not counted) becomes its image in ``alphabets[i % len(alphabets)]``."""
    out: list[str] = []
    i = 0
    for ch in text:
        if ch == " ":
            out.append(" ")
        else:
            out.append(alphabets[i % len(alphabets)][_IDX[ch]])
            i += 1
    return "".join(out)


class PolyalphabeticKind(CipherKind):
    """H: three independent permutations of A-Z, (26!)^3 keys.

    Keys are distinct functions on any plaintext of at least 3 letters: alphabet j is read
    off the outputs of the letters at positions j mod 3, so keys differing in any alphabet
    differ on some plaintext of at most n >= 8 characters (e.g. that letter repeated).
    """

    name = "polyalphabetic"
    template_name = "code/eri/polyalphabetic.py.j2"

    @property
    def log2_h(self) -> float:
        return POLY_PERIOD * math.log2(math.factorial(26))

    def sample_params(self, rng: random.Random) -> Params:
        alphabets: list[JSONValue] = []
        for _ in range(POLY_PERIOD):
            letters = list(ALPHABET)
            rng.shuffle(letters)
            alphabets.append("".join(letters))
        return {"alphabets": alphabets}

    def check_params(self, params: Mapping[str, JSONValue]) -> Params:
        value = params.get("alphabets")
        if not isinstance(value, list | tuple) or len(value) != POLY_PERIOD:
            raise FamilyError(
                f"ERI polyalphabetic 'alphabets' must be a list of {POLY_PERIOD} "
                f"cipher alphabets, got {value!r}"
            )
        for alphabet in value:
            if not isinstance(alphabet, str) or sorted(alphabet) != _SORTED:
                raise FamilyError(
                    "ERI polyalphabetic cipher alphabets must each be a permutation of the "
                    f"uppercase letters A-Z, got {alphabet!r}"
                )
        return {"alphabets": [str(a) for a in value]}

    def _alphabets(self, params: Params) -> list[str]:
        value = params["alphabets"]
        if not isinstance(value, list | tuple):
            raise FamilyError(f"ERI polyalphabetic 'alphabets' must be a list, got {value!r}")
        return [str(a) for a in value]

    def encrypt(self, params: Params) -> Encrypt:
        return partial(polyalphabetic, tuple(self._alphabets(params)))

    def describe(self, params: Params) -> str:
        listed = ", ".join(f"alphabet {j} = {a}" for j, a in enumerate(self._alphabets(params)))
        return (
            PREAMBLE + f"Periodic polyalphabetic substitution with {POLY_PERIOD} cipher alphabets "
            f"({listed}): the i-th letter of the plaintext, with number p, becomes letter "
            f"number p of cipher alphabet number i mod {POLY_PERIOD} (alphabet 0 enciphers "
            "letters 0, 3, 6, ..., alphabet 1 letters 1, 4, 7, ..., alphabet 2 letters 2, 5, "
            "8, ...; A becomes the alphabet's first letter, and so on). Spaces are copied "
            "unchanged to the same positions of the output and do not advance the letter "
            "index i (i counts letters only, starting at 0). Output: the resulting string."
        )

    def context(self, params: Params) -> dict[str, Any]:
        return {"poly_alphabets": self._alphabets(params)}

    def space(self) -> VersionSpace:
        return PolyalphabeticSpace.prior(POLY_PERIOD)
