"""Trusted reference ciphers on normalised plaintexts (uppercase letters and single spaces).

Space conventions, uniform across the family:
- letter-wise and position-dependent ciphers keep spaces in place; a position-dependent
  key advances only on letters (letter index i counts letters, not characters);
- transpositions permute the sequence of letters and put the spaces back at their
  original character positions;
- digraph ciphers (Playfair, Hill) drop spaces and return letters only.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from blackboxes.families.eri._alphabet import ALPHABET, dedupe, letters_of, respace

__all__ = [
    "affine_perm",
    "apply_perm",
    "caesar_perm",
    "columnar_order",
    "hill",
    "keyword_perm",
    "playfair",
    "playfair_square",
    "progressive",
    "railfence_order",
    "shift_letters",
    "substitute",
    "transpose",
    "vigenere",
]

_IDX = {ch: i for i, ch in enumerate(ALPHABET)}


# -- letter-wise substitutions (a 26-letter image string: perm[p] is the image of letter p)
def caesar_perm(shift: int) -> str:
    return ALPHABET[shift % 26 :] + ALPHABET[: shift % 26]


def affine_perm(a: int, b: int) -> str:
    return "".join(ALPHABET[(a * p + b) % 26] for p in range(26))


def keyword_perm(keyword: str) -> str:
    return dedupe(keyword + ALPHABET)


@cache
def _table(perm: str) -> dict[int, int]:
    return str.maketrans(ALPHABET, perm)


def substitute(perm: str, text: str) -> str:
    """Replace each letter p by ``perm[p]``; spaces stay."""
    return text.translate(_table(perm))


# -- position-dependent shifts (keys advance on letters only)
def shift_letters(shifts: Sequence[int], text: str) -> str:
    """Shift the i-th letter by ``shifts[i]``; spaces stay. ``shifts`` covers every letter."""
    out: list[str] = []
    i = 0
    for ch in text:
        if ch == " ":
            out.append(" ")
        else:
            out.append(ALPHABET[(_IDX[ch] + shifts[i]) % 26])
            i += 1
    return "".join(out)


def vigenere(key: Sequence[int], text: str) -> str:
    n = len(letters_of(text))
    return shift_letters([key[i % len(key)] for i in range(n)], text)


def progressive(a: int, b: int, text: str) -> str:
    n = len(letters_of(text))
    return shift_letters([(a + b * i) % 26 for i in range(n)], text)


# -- transpositions: an order o of length n means output letter j is input letter o[j]
@cache
def railfence_order(rails: int, offset: int, n: int) -> tuple[int, ...]:
    """Zigzag over ``rails`` rows starting ``offset`` steps into the cycle; rows read top-down."""
    cycle = 2 * (rails - 1)

    def row(i: int) -> int:
        phase = (i + offset) % cycle
        return phase if phase < rails else cycle - phase

    return tuple(sorted(range(n), key=lambda i: (row(i), i)))


@cache
def columnar_order(order: tuple[int, ...], n: int) -> tuple[int, ...]:
    """Letters written row-wise into ``len(order)`` columns; columns read in ``order``."""
    width = len(order)
    return tuple(i for col in order for i in range(col, n, width))


def transpose(order: Sequence[int], text: str) -> str:
    """Permute the letters of ``text`` by ``order``; spaces keep their positions."""
    letters = letters_of(text)
    return respace("".join(letters[j] for j in order), text)


def apply_perm(order: Sequence[int], letters: str) -> str:
    return "".join(letters[j] for j in order)


# -- digraph ciphers (letters only, spaces dropped)
def playfair_square(keyword: str) -> str:
    """The 25-letter square, row by row: the keyword (J as I) then the rest, J omitted."""
    return dedupe(keyword.replace("J", "I") + ALPHABET.replace("J", ""))


def _playfair_pairs(text: str) -> list[tuple[str, str]]:
    s = letters_of(text).replace("J", "I")
    pairs: list[tuple[str, str]] = []
    i = 0
    while i < len(s):
        a = s[i]
        filler = "Q" if a == "X" else "X"
        if i + 1 < len(s) and s[i + 1] != a:
            pairs.append((a, s[i + 1]))
            i += 2
        else:
            pairs.append((a, filler))
            i += 1
    return pairs


def playfair(square: str, text: str) -> str:
    pos = {ch: divmod(k, 5) for k, ch in enumerate(square)}
    out: list[str] = []
    for a, b in _playfair_pairs(text):
        ra, ca = pos[a]
        rb, cb = pos[b]
        if ra == rb:
            out += [square[ra * 5 + (ca + 1) % 5], square[rb * 5 + (cb + 1) % 5]]
        elif ca == cb:
            out += [square[((ra + 1) % 5) * 5 + ca], square[((rb + 1) % 5) * 5 + cb]]
        else:
            out += [square[ra * 5 + cb], square[rb * 5 + ca]]
    return "".join(out)


def hill(matrix: Sequence[int], text: str) -> str:
    """2x2 Hill cipher ``(a, b, c, d)`` on the letters, padded with X to even length."""
    a, b, c, d = matrix
    s = letters_of(text)
    if len(s) % 2:
        s += "X"
    out: list[str] = []
    for k in range(0, len(s), 2):
        p, q = _IDX[s[k]], _IDX[s[k + 1]]
        out += [ALPHABET[(a * p + b * q) % 26], ALPHABET[(c * p + d * q) % 26]]
    return "".join(out)
