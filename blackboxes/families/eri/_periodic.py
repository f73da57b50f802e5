"""Position-dependent shifts: Vigenere (periodic key) and the progressive shift.

The i-th LETTER of the plaintext (spaces are not counted) is shifted; spaces stay.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Mapping
from functools import cached_property, partial
from typing import Any

from blackboxes.box import JSONValue
from blackboxes.families.eri._alphabet import ALPHABET
from blackboxes.families.eri._ciphers import progressive, vigenere
from blackboxes.families.eri._kind import (
    PREAMBLE,
    CipherKind,
    Encrypt,
    EnumeratedKind,
    Params,
    require_int,
    require_letters,
)
from blackboxes.families.eri._spaces import UnionSpace
from blackboxes.families.eri._vigenere_space import VigenereLengthSpace, primitive_count
from blackboxes.information import VersionSpace
from oracle_bench.errors import FamilyError

__all__ = ["VIGENERE_LENGTHS", "ProgressiveKind", "VigenereKind", "is_primitive"]

VIGENERE_LENGTHS = (3, 4, 5)
_SPACES = (
    "Spaces are copied unchanged to the same positions of the output and do not advance the "
    "letter index i (i counts letters only, starting at 0). "
)


def is_primitive(key: str) -> bool:
    """True unless ``key`` is a shorter block repeated (then a shorter key is the same cipher)."""
    n = len(key)
    return all(key != key[:d] * (n // d) for d in range(1, n) if n % d == 0)


def _primitive_total(length: int) -> int:
    return primitive_count((-1,) * length)


class VigenereKind(CipherKind):
    """H: primitive keys of length 3, 4 or 5 (26^3-26 + 26^4-26^2 + 26^5-26 = 12,355,200).

    Primitive keys of different lengths are different functions (their shift sequences
    have different minimal periods), and a non-primitive key repeats a shorter key, which
    is why it is left out. Sampling is uniform over the keys, so over the functions.
    """

    name = "vigenere"
    template_name = "code/eri/vigenere.py.j2"

    @cached_property
    def _sizes(self) -> dict[int, int]:
        return {n: _primitive_total(n) for n in VIGENERE_LENGTHS}

    @property
    def log2_h(self) -> float:
        return math.log2(sum(self._sizes.values()))

    def sample_params(self, rng: random.Random) -> Params:
        r = rng.randrange(sum(self._sizes.values()))
        length = VIGENERE_LENGTHS[-1]
        for n, size in self._sizes.items():
            if r < size:
                length = n
                break
            r -= size
        while True:  # rejection keeps the draw uniform over primitive keys
            key = "".join(rng.choice(ALPHABET) for _ in range(length))
            if is_primitive(key):
                return {"key": key}

    def check_params(self, params: Mapping[str, JSONValue]) -> Params:
        key = require_letters(params, "key", min(VIGENERE_LENGTHS), max(VIGENERE_LENGTHS))
        if not is_primitive(key):
            raise FamilyError(f"ERI Vigenere key {key!r} repeats a shorter key")
        return {"key": key}

    def encrypt(self, params: Params) -> Encrypt:
        return partial(vigenere, [ALPHABET.index(c) for c in str(params["key"])])

    def describe(self, params: Params) -> str:
        key = str(params["key"])
        shifts = ", ".join(str(ALPHABET.index(c)) for c in key)
        return (
            PREAMBLE
            + f"Vigenere cipher with key {key} (shifts {shifts}, length {len(key)}): the i-th "
            f"letter p of the plaintext becomes (p + k) mod 26 where k is the value of key letter "
            f"number i mod {len(key)}. " + _SPACES + "Output: the resulting string."
        )

    def context(self, params: Params) -> dict[str, Any]:
        return {"vig_key": params["key"]}

    @cached_property
    def _prior(self) -> UnionSpace:
        return UnionSpace.build(
            [
                (f"length {n}", math.log2(self._sizes[n]), VigenereLengthSpace.prior(n))
                for n in VIGENERE_LENGTHS
            ],
            exact=True,
        )

    def space(self) -> VersionSpace:
        return self._prior

    def space_parts(self) -> list[VersionSpace]:
        return [VigenereLengthSpace.prior(n) for n in VIGENERE_LENGTHS]


class ProgressiveKind(EnumeratedKind):
    """H: shift of letter i = (a + b*i) mod 26, a in 0..25, b in 1..25 (b = 0 is Caesar): 650."""

    name = "progressive"
    template_name = "code/eri/progressive.py.j2"

    def all_params(self) -> Iterable[Params]:
        return ({"start": a, "step": b} for a in range(26) for b in range(1, 26))

    def check_params(self, params: Mapping[str, JSONValue]) -> Params:
        return {
            "start": require_int(params, "start", 0, 25),
            "step": require_int(params, "step", 1, 25),
        }

    def encrypt(self, params: Params) -> Encrypt:
        return partial(progressive, int(params["start"]), int(params["step"]))

    def describe(self, params: Params) -> str:
        a, b = params["start"], params["step"]
        return (
            PREAMBLE
            + f"Progressive shift cipher with start {a} and step {b}: the i-th letter p of the "
            f"plaintext becomes (p + {a} + {b} * i) mod 26. "
            + _SPACES
            + "Output: the resulting string."
        )

    def context(self, params: Params) -> dict[str, Any]:
        return {"prog_start": params["start"], "prog_step": params["step"]}
