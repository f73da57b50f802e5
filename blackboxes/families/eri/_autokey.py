"""Autokey ciphers: a primer key, then the text itself as the key (plaintext or ciphertext).

The i-th LETTER of the plaintext (spaces are not counted and stay in place) is shifted by
s_i: the primer's letter i while i < L (the primer length), afterwards the plaintext
letter (autokey) or the ciphertext letter (cipher autokey) L letters earlier.

Every key (L, primer) is a different function on plaintexts of 8 letters, so
|H| = 26^3 + ... + 26^8. Proof: two primers of the same length L differ at some i < L,
and any plaintext of L <= 8 letters shows it (c_i = p_i + k_i). For lengths L < L' <= 8,
letter L of a plaintext of L + 1 <= 8 letters is shifted by p_0 (or c_0 = p_0 + k_0) under
the first key and by the constant k'_L under the second: choosing p_0 with
p_0 != k'_L (or p_0 + k_0 != k'_L) makes them differ. A query of at least 8 characters can
hold 8 letters, which is why the count is exact from MIN_QUERY_LENGTH on.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from functools import cached_property, partial
from typing import Any

from blackboxes.box import JSONValue
from blackboxes.families.eri._alphabet import ALPHABET
from blackboxes.families.eri._autokey_space import AutokeySpace
from blackboxes.families.eri._kind import PREAMBLE, CipherKind, Encrypt, Params, require_letters
from blackboxes.information import VersionSpace

__all__ = ["AUTOKEY_LENGTHS", "AutokeyKind", "CipherAutokeyKind", "autokey"]

AUTOKEY_LENGTHS = (3, 4, 5, 6, 7, 8)
_IDX = {ch: i for i, ch in enumerate(ALPHABET)}


def autokey(primer: str, feedback: bool, text: str) -> str:
    """The reference cipher: plaintext autokey, or ciphertext autokey when ``feedback``."""
    length = len(primer)
    plain: list[int] = []
    cipher: list[int] = []
    out: list[str] = []
    for ch in text:
        if ch == " ":
            out.append(" ")
            continue
        i = len(plain)
        if i >= length:
            s = cipher[i - length] if feedback else plain[i - length]
        else:
            s = _IDX[primer[i]]
        p = _IDX[ch]
        c = (p + s) % 26
        plain.append(p)
        cipher.append(c)
        out.append(ALPHABET[c])
    return "".join(out)


class _AutokeyBase(CipherKind):
    """H: primers of 3 to 8 letters, all distinct functions (see the module docstring)."""

    feedback: bool
    _SOURCE: str

    @property
    def log2_h(self) -> float:
        return math.log2(sum(26**n for n in AUTOKEY_LENGTHS))

    def sample_params(self, rng: random.Random) -> Params:
        r = rng.randrange(sum(26**n for n in AUTOKEY_LENGTHS))
        for length in AUTOKEY_LENGTHS:  # a length with probability 26^L / |H|
            if r < 26**length:
                break
            r -= 26**length
        return {"primer": "".join(rng.choice(ALPHABET) for _ in range(length))}

    def check_params(self, params: Mapping[str, JSONValue]) -> Params:
        primer = require_letters(params, "primer", min(AUTOKEY_LENGTHS), max(AUTOKEY_LENGTHS))
        return {"primer": primer}

    def encrypt(self, params: Params) -> Encrypt:
        return partial(autokey, str(params["primer"]), self.feedback)

    def describe(self, params: Params) -> str:
        primer = str(params["primer"])
        length = len(primer)
        shifts = ", ".join(str(_IDX[c]) for c in primer)
        return (
            PREAMBLE + f"{self._TITLE} with primer key {primer} (shifts {shifts}, length "
            f"{length}). Number the letters of the plaintext p_0, p_1, ... and of the output "
            f"c_0, c_1, ... (i counts letters only, starting at 0). Letter i becomes "
            f"c_i = (p_i + s_i) mod 26, where s_i is the value of primer letter i for "
            f"i < {length}, and s_i = {self._SOURCE}_(i-{length}) ({self._WHAT} {length} "
            f"letters earlier) for i >= {length}. Spaces are copied unchanged to the same "
            "positions of the output and do not advance i. Output: the resulting string."
        )

    _TITLE: str
    _WHAT: str

    def context(self, params: Params) -> dict[str, Any]:
        return {"autokey_primer": params["primer"]}

    @cached_property
    def _prior(self) -> AutokeySpace:
        return AutokeySpace.prior(AUTOKEY_LENGTHS, self.feedback)

    def space(self) -> VersionSpace:
        return self._prior


class AutokeyKind(_AutokeyBase):
    """Plaintext autokey: after the primer, letter i is shifted by plaintext letter i - L."""

    name = "autokey"
    template_name = "code/eri/autokey.py.j2"
    feedback = False
    _SOURCE = "p"
    _TITLE = "Autokey cipher (plaintext autokey)"
    _WHAT = "the plaintext letter"


class CipherAutokeyKind(_AutokeyBase):
    """Ciphertext autokey: after the primer, letter i is shifted by output letter i - L."""

    name = "cipher_autokey"
    template_name = "code/eri/cipher_autokey.py.j2"
    feedback = True
    _SOURCE = "c"
    _TITLE = "Ciphertext autokey cipher (the key continues with the output)"
    _WHAT = "the output letter"
