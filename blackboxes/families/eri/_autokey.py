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

The argument holds for any modulus q >= 2, so ``autokey52`` (the plaintext autokey over
the 52 letters A-Z a-z, mod 52, case kept) has |H| = 52^3 + ... + 52^8 distinct functions.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from functools import cached_property, lru_cache, partial
from typing import Any

from blackboxes.box import JSONValue
from blackboxes.families.eri._alphabet import ALPHABET, CASED_ALPHABET, OutputFormat
from blackboxes.families.eri._autokey_space import AutokeySpace
from blackboxes.families.eri._cased import CASED_PREAMBLE
from blackboxes.families.eri._kind import PREAMBLE, CipherKind, Encrypt, Params, require_letters
from blackboxes.information import VersionSpace
from oracle_bench.errors import FamilyError

__all__ = ["AUTOKEY_LENGTHS", "Autokey52Kind", "AutokeyKind", "CipherAutokeyKind", "autokey"]

AUTOKEY_LENGTHS = (3, 4, 5, 6, 7, 8)
_OUTPUT = "Output: the resulting string."


@lru_cache(maxsize=8)
def _index(alphabet: str) -> dict[str, int]:
    return {ch: i for i, ch in enumerate(alphabet)}


def autokey(primer: str, feedback: bool, text: str, alphabet: str = ALPHABET) -> str:
    """The reference cipher: plaintext autokey, or ciphertext autokey when ``feedback``,
    mod len(``alphabet``) (letters numbered by their place in it; spaces kept, not counted).
    Raises ``FamilyError`` on a character of ``primer`` or ``text`` outside the alphabet."""
    idx, m = _index(alphabet), len(alphabet)
    if not all(ch in idx for ch in primer) or not all(ch == " " or ch in idx for ch in text):
        raise FamilyError(f"autokey needs letters of {alphabet!r}, got {primer!r}, {text!r}")
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
            s = idx[primer[i]]
        p = idx[ch]
        c = (p + s) % m
        plain.append(p)
        cipher.append(c)
        out.append(alphabet[c])
    return "".join(out)


class _AutokeyBase(CipherKind):
    """H: primers of 3 to 8 letters, all distinct functions (see the module docstring)."""

    feedback: bool
    _SOURCE: str
    _ALPHABET: str = ALPHABET
    """The letters in number order; arithmetic is mod its length."""
    _PREAMBLE: str = PREAMBLE

    @property
    def _total(self) -> int:
        m = len(self._ALPHABET)
        return sum(m**n for n in AUTOKEY_LENGTHS)

    @property
    def log2_h(self) -> float:
        return math.log2(self._total)

    def sample_params(self, rng: random.Random) -> Params:
        m = len(self._ALPHABET)
        r = rng.randrange(self._total)
        for length in AUTOKEY_LENGTHS:  # a length with probability m^L / |H|
            if r < m**length:
                break
            r -= m**length
        return {"primer": "".join(rng.choice(self._ALPHABET) for _ in range(length))}

    def check_params(self, params: Mapping[str, JSONValue]) -> Params:
        primer = require_letters(params, "primer", min(AUTOKEY_LENGTHS), max(AUTOKEY_LENGTHS))
        return {"primer": primer}

    def encrypt(self, params: Params) -> Encrypt:
        return partial(autokey, str(params["primer"]), self.feedback, alphabet=self._ALPHABET)

    def describe(self, params: Params) -> str:
        primer = str(params["primer"])
        length = len(primer)
        idx = _index(self._ALPHABET)
        shifts = ", ".join(str(idx[c]) for c in primer)
        return (
            self._PREAMBLE + f"{self._TITLE} with primer key {primer} (shifts {shifts}, length "
            f"{length}). Number the letters of the plaintext p_0, p_1, ... and of the output "
            f"c_0, c_1, ... (i counts letters only, starting at 0). Letter i becomes "
            f"c_i = (p_i + s_i) mod {len(self._ALPHABET)}, where s_i is the value of primer "
            f"letter i for i < {length}, and s_i = {self._SOURCE}_(i-{length}) ({self._WHAT} "
            f"{length} letters earlier) for i >= {length}.{self._CASE} Spaces are copied "
            "unchanged to the same positions of the output and do not advance i. " + _OUTPUT
        )

    _CASE: str = ""

    _TITLE: str
    _WHAT: str

    def context(self, params: Params) -> dict[str, Any]:
        return {"autokey_primer": params["primer"]}

    @cached_property
    def _prior(self) -> AutokeySpace:
        return AutokeySpace.prior(AUTOKEY_LENGTHS, self.feedback, alphabet=self._ALPHABET)

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


class Autokey52Kind(_AutokeyBase):
    """Plaintext autokey mod 52 over A-Z a-z (case kept): primers of 3 to 8 of the 52
    letters, 52^3 + ... + 52^8 = 54,507,958,499,904 distinct functions."""

    name = "autokey52"
    template_name = "code/eri/autokey52.py.j2"
    output_format: OutputFormat = "cased"
    feedback = False
    _ALPHABET = CASED_ALPHABET
    _PREAMBLE = CASED_PREAMBLE
    _SOURCE = "p"
    _TITLE = "Autokey cipher mod 52 (plaintext autokey, case matters)"
    _WHAT = "the plaintext letter"
    _CASE = (
        " The output letter is the one numbered c_i (0-25 are A-Z, 26-51 are a-z), so its "
        "case can differ from the plaintext letter's; primer letters are numbered the same way."
    )

    def log2_y(self, query_length: int) -> float:
        return query_length * math.log2(len(CASED_ALPHABET))

    def check_params(self, params: Mapping[str, JSONValue]) -> Params:
        primer = params.get("primer")
        lo, hi = min(AUTOKEY_LENGTHS), max(AUTOKEY_LENGTHS)
        if (
            not isinstance(primer, str)
            or not lo <= len(primer) <= hi
            or not all(ch in _index(CASED_ALPHABET) for ch in primer)
        ):
            raise FamilyError(
                f"ERI autokey52 'primer' must be {lo}-{hi} letters A-Z a-z, got {primer!r}"
            )
        return {"primer": primer}

    def steps(self, params: Params) -> list[str]:
        body = self.describe(params).removeprefix(CASED_PREAMBLE)
        return [body.removesuffix(_OUTPUT).strip()]
