"""Case-sensitive position-dependent shifts over the 52 letters A-Z a-z (mod 52).

The plaintext keeps its case; letters are numbered A=0 .. Z=25, a=26 .. z=51. The i-th
LETTER (spaces are not counted) is shifted; spaces stay in place.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Mapping
from functools import cached_property
from typing import Any

from blackboxes.box import JSONValue
from blackboxes.families.eri._alphabet import CASED_ALPHABET, OutputFormat
from blackboxes.families.eri._index_shift_space import IndexShiftSpace, index_shift
from blackboxes.families.eri._kind import CipherKind, Encrypt, Params, require_int
from blackboxes.families.eri._periodic import is_primitive
from blackboxes.families.eri._spaces import UnionSpace
from blackboxes.families.eri._vigenere_space import VigenereLengthSpace, primitive_count
from blackboxes.information import VersionSpace
from oracle_bench.errors import FamilyError

__all__ = [
    "CASED_PREAMBLE",
    "VIGENERE52_LENGTHS",
    "Shift52Kind",
    "Vigenere52Kind",
]

_M = len(CASED_ALPHABET)
_IDX = {ch: i for i, ch in enumerate(CASED_ALPHABET)}

CASED_PREAMBLE = (
    "Input: a plaintext string of letters A-Z and a-z and single spaces, 1 to 32 characters, "
    "with no leading or trailing space; the case of every letter matters and is kept. Letters "
    "are numbered A=0, B=1, ..., Z=25, a=26, b=27, ..., z=51 and all arithmetic on letters is "
    "modulo 52 (so the number 26 is the letter a, and z shifted by 1 is A). "
)
"""The protocol part of the cased kinds' descriptions (their own input and numbering)."""

_OUTPUT = "Output: the resulting string."
_SPACES = (
    "Spaces are copied unchanged to the same positions of the output and do not advance the "
    "letter index i (i counts letters only, starting at 0). "
)

VIGENERE52_LENGTHS = (3, 4, 5)
"""Key lengths. Not 6: a 5-key (a, a, a, d, e) and the 6-key (a, a, a, d, e, a) give the
same first 8 shifts (Fine and Wilf needs 5 + 6 - 1 = 10 letters to tell periods 5 and 6
apart), so with 6 the count would depend on the query length between 8 and 10."""


class _CasedKind(CipherKind):
    output_format: OutputFormat = "cased"

    def log2_y(self, query_length: int) -> float:
        return query_length * math.log2(_M)

    def steps(self, params: Params) -> list[str]:
        body = self.describe(params).removeprefix(CASED_PREAMBLE)
        return [body.removesuffix(_OUTPUT).strip()]


def _shift_numbers(key: str) -> list[int]:
    return [_IDX[ch] for ch in key]


def _vigenere52(shifts: list[int], text: str) -> str:
    out = []
    i = 0
    for ch in text:
        if ch == " ":
            out.append(" ")
        else:
            out.append(CASED_ALPHABET[(_IDX[ch] + shifts[i % len(shifts)]) % _M])
            i += 1
    return "".join(out)


def _require_cased(text: str) -> None:
    if not all(ch == " " or ch in _IDX for ch in text):
        raise FamilyError(f"a cased ERI kind needs letters A-Z a-z and spaces, got {text!r}")


class Shift52Kind(_CasedKind):
    """H: letter i shifted by (a + b*i) mod 52, a in 0..51, b in 1..51: 52 * 51 = 2,652
    functions (b = 0, a plain shift, is left out as in ``progressive``). Two keys give
    different shifts on letter 0 or 1, so they differ on a two-letter plaintext."""

    name = "shift52"
    template_name = "code/eri/shift52.py.j2"

    @property
    def log2_h(self) -> float:
        return math.log2(_M * (_M - 1))

    def all_params(self) -> Iterable[Params]:
        """Every key, a then b ascending (each a distinct function)."""
        return ({"start": a, "step": b} for a in range(_M) for b in range(1, _M))

    def sample_params(self, rng: random.Random) -> Params:
        return {"start": rng.randrange(_M), "step": rng.randrange(1, _M)}

    def check_params(self, params: Mapping[str, JSONValue]) -> Params:
        return {
            "start": require_int(params, "start", 0, _M - 1),
            "step": require_int(params, "step", 1, _M - 1),
        }

    def encrypt(self, params: Params) -> Encrypt:
        a, b = int(params["start"]), int(params["step"])

        def run(text: str) -> str:
            _require_cased(text)
            return index_shift(CASED_ALPHABET, a, b, text)

        return run

    def describe(self, params: Params) -> str:
        a, b = params["start"], params["step"]
        return (
            CASED_PREAMBLE
            + f"Index shift mod 52 with start {a} and step {b}: the i-th letter, numbered p, "
            f"becomes the letter numbered (p + {a} + {b} * i) mod 52 (upper or lower case as "
            "that number says: 0-25 are A-Z, 26-51 are a-z). " + _SPACES + _OUTPUT
        )

    def context(self, params: Params) -> dict[str, Any]:
        return {"shift52_start": params["start"], "shift52_step": params["step"]}

    @cached_property
    def _prior(self) -> IndexShiftSpace:
        return IndexShiftSpace.prior(CASED_ALPHABET)

    def space(self) -> VersionSpace:
        return self._prior


class Vigenere52Kind(_CasedKind):
    """H: primitive keys of length 3, 4 or 5 over the 52 shifts:
    (52^3 - 52) + (52^4 - 52^2) + (52^5 - 52) = 387,653,448 functions.

    A primitive key repeats no shorter block; keys of two different lengths L1 < L2 <= 5
    differ within the first L1 + L2 - gcd(L1, L2) <= 8 letters (Fine and Wilf: otherwise
    the shift sequence would have period gcd(L1, L2), making one key non-primitive), so
    every key is a distinct function on plaintexts of 8 letters or more.

    The space is the union of the three lengths' factorised spaces (as for ``vigenere``):
    counts and probabilities are exact; entropies are exact for queries of 1-2 or 8+
    letters, but with 3-7 letters two lengths can share outputs, and a length whose
    support is too large to list is counted as disjoint: an upper bound, by at most the
    entropy of the length posterior (e.g. 17.24 instead of about 17.10 bits for a
    3-letter query on the prior).
    """

    name = "vigenere52"
    template_name = "code/eri/vigenere52.py.j2"

    @cached_property
    def _sizes(self) -> dict[int, int]:
        return {n: primitive_count((-1,) * n, _M) for n in VIGENERE52_LENGTHS}

    @property
    def log2_h(self) -> float:
        return math.log2(sum(self._sizes.values()))

    def sample_params(self, rng: random.Random) -> Params:
        r = rng.randrange(sum(self._sizes.values()))
        length = VIGENERE52_LENGTHS[-1]
        for n, size in self._sizes.items():
            if r < size:
                length = n
                break
            r -= size
        while True:  # rejection keeps the draw uniform over primitive keys
            key = "".join(rng.choice(CASED_ALPHABET) for _ in range(length))
            if is_primitive(key):
                return {"key": key}

    def check_params(self, params: Mapping[str, JSONValue]) -> Params:
        key = params.get("key")
        lo, hi = min(VIGENERE52_LENGTHS), max(VIGENERE52_LENGTHS)
        if (
            not isinstance(key, str)
            or not lo <= len(key) <= hi
            or not all(ch in _IDX for ch in key)
        ):
            raise FamilyError(
                f"ERI vigenere52 'key' must be {lo}-{hi} letters A-Z a-z, got {key!r}"
            )
        if not is_primitive(key):
            raise FamilyError(f"ERI vigenere52 key {key!r} repeats a shorter key")
        return {"key": key}

    def encrypt(self, params: Params) -> Encrypt:
        shifts = _shift_numbers(str(params["key"]))

        def run(text: str) -> str:
            _require_cased(text)
            return _vigenere52(shifts, text)

        return run

    def describe(self, params: Params) -> str:
        key = str(params["key"])
        shifts = ", ".join(str(v) for v in _shift_numbers(key))
        return (
            CASED_PREAMBLE
            + f"Positional keyword cipher mod 52 with key {key} (case matters: shifts "
            f"{shifts}, length {len(key)}): the i-th letter, numbered p, becomes the letter "
            f"numbered (p + k) mod 52 where k is the number of key letter number i mod "
            f"{len(key)} (counting from 0). " + _SPACES + _OUTPUT
        )

    def context(self, params: Params) -> dict[str, Any]:
        return {"vig52_key": params["key"]}

    @cached_property
    def _prior(self) -> UnionSpace:
        return UnionSpace.build(
            [
                (
                    f"length {n}",
                    math.log2(self._sizes[n]),
                    VigenereLengthSpace.prior(n, CASED_ALPHABET),
                )
                for n in VIGENERE52_LENGTHS
            ],
            exact=True,
        )

    def space(self) -> VersionSpace:
        return self._prior

    def space_parts(self) -> list[VersionSpace]:
        return [VigenereLengthSpace.prior(n, CASED_ALPHABET) for n in VIGENERE52_LENGTHS]
