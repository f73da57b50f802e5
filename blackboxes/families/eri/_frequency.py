"""The frequency-dependent shift: a substitution whose image moves on every repeat of a letter.

Letter i of the plaintext, p, becomes sigma(p) + b * r mod 26, where sigma is a
permutation of the alphabet, b in 1..25 a step and r the number of earlier occurrences
of p in the plaintext (spaces stay in place and are not letters).

H: 26! * 25 distinct functions, on plaintexts of any length >= 2: the step is read off
any repeated letter ("AA" gives sigma(A), sigma(A) + b), and sigma off first occurrences
(the one-letter plaintext "P" gives sigma(P)), so different keys differ on a plaintext of
at most 2 letters.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

from blackboxes.box import JSONValue
from blackboxes.families.eri._alphabet import ALPHABET
from blackboxes.families.eri._frequency_space import STEPS, FrequencyShiftSpace
from blackboxes.families.eri._kind import (
    PREAMBLE,
    CipherKind,
    Encrypt,
    Params,
    require_int,
    require_letters,
)
from blackboxes.information import VersionSpace
from oracle_bench.errors import FamilyError

__all__ = ["FrequencyShiftKind", "frequency_letters", "frequency_shift"]


def frequency_letters(
    perm: Sequence[int], step: int, plain: Sequence[int], q: int = 26
) -> list[int]:
    """The cipher on letter numbers over an alphabet of ``q`` letters (``perm`` of range(q))."""
    seen = [0] * q
    out = []
    for p in plain:
        out.append((perm[p] + step * seen[p]) % q)
        seen[p] += 1
    return out


def frequency_shift(alphabet: str, step: int, text: str) -> str:
    """The reference cipher on a normalised plaintext; spaces stay in place."""
    perm = [ALPHABET.index(c) for c in alphabet]
    letters = iter(frequency_letters(perm, step, [ALPHABET.index(c) for c in text if c != " "]))
    return "".join(" " if ch == " " else ALPHABET[next(letters)] for ch in text)


class FrequencyShiftKind(CipherKind):
    """H: every permutation sigma of A-Z and every step b in 1..25: 26! * 25 functions."""

    name = "frequency_shift"
    template_name = "code/eri/frequency_shift.py.j2"

    @property
    def log2_h(self) -> float:
        return math.log2(math.factorial(26)) + math.log2(len(STEPS))

    def sample_params(self, rng: random.Random) -> Params:
        letters = list(ALPHABET)
        rng.shuffle(letters)
        return {"alphabet": "".join(letters), "step": rng.choice(STEPS)}

    def check_params(self, params: Mapping[str, JSONValue]) -> Params:
        perm = require_letters(params, "alphabet", 26, 26)
        if sorted(perm) != list(ALPHABET):
            raise FamilyError(
                f"ERI frequency-shift alphabet must be a permutation of A-Z, got {perm!r}"
            )
        return {"alphabet": perm, "step": require_int(params, "step", 1, 25)}

    def encrypt(self, params: Params) -> Encrypt:
        return partial(frequency_shift, str(params["alphabet"]), int(params["step"]))

    def describe(self, params: Params) -> str:
        perm, b = params["alphabet"], params["step"]
        return (
            PREAMBLE
            + f"Frequency-dependent shift with cipher alphabet {perm} and step {b}. Let s(p) "
            "be the number of letter number p of the cipher alphabet (s(A) is the number of "
            "its first letter, and so on). Each letter p of the plaintext becomes the letter "
            f"numbered (s(p) + {b} * r) mod 26, where r is the number of times the same letter "
            "p occurs earlier in the plaintext (r = 0 at its first occurrence, 1 at the "
            f"second, ...; e.g. AAA becomes the letters numbered s(A), (s(A) + {b}) mod 26, "
            f"(s(A) + {2 * int(b)}) mod 26). Spaces are copied unchanged to the same positions "
            "of the output and do not count as letters. Output: the resulting string."
        )

    def context(self, params: Params) -> dict[str, Any]:
        return {"cipher_alphabet": params["alphabet"], "freq_step": params["step"]}

    def space(self) -> VersionSpace:
        return FrequencyShiftSpace()
