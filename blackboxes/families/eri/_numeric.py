"""Ciphers whose output is numbers: RSA on letter pairs and a Merkle-Hellman knapsack.

Both drop the plaintext's spaces and write one decimal number (no leading zeros) per
letter pair or per letter, separated by single spaces. Both are small explicit sets of
functions that are lookup tables (676 letter pairs, 26 letters), so their version space
is a :class:`TableSpace` over those tables.
"""

from __future__ import annotations

import math
from abc import abstractmethod
from collections.abc import Hashable, Iterable, Mapping
from functools import cached_property, lru_cache
from itertools import product
from typing import Any

from blackboxes.box import JSONValue
from blackboxes.families.eri._alphabet import ALPHABET, OutputFormat
from blackboxes.families.eri._kind import (
    PREAMBLE,
    Encrypt,
    EnumeratedKind,
    Params,
    require_int,
)
from blackboxes.families.eri._table_space import SymbolTable, TableSpace
from blackboxes.information import VersionSpace
from oracle_bench.errors import FamilyError

__all__ = [
    "KNAPSACK_LETTER_BITS",
    "RSA_E_RANGE",
    "RSA_N_RANGE",
    "KnapsackKind",
    "RsaPairsKind",
    "knapsack_keys",
    "rsa_keys",
]

_IDX = {ch: i for i, ch in enumerate(ALPHABET)}
_OUTPUT = "Output: the resulting string."
_NUMBERS = (
    "The output is these numbers in order, each written in decimal without leading zeros "
    "(zero is written 0), separated by single spaces."
)

RSA_N_RANGE = (677, 1500)
"""Moduli N = P * Q (odd primes 3 <= P < Q) in this range: above 675, the largest pair."""
RSA_E_RANGE = (3, 47)
"""Public exponents e in this range with gcd(e, (P - 1)(Q - 1)) = 1 (and e < phi)."""
_PAIRS = 26 * 26


def _is_prime(n: int) -> bool:
    return n >= 2 and all(n % d for d in range(2, math.isqrt(n) + 1))


def _factor(n: int) -> tuple[int, int] | None:
    """(P, Q) with odd primes P < Q and P * Q = n, else None."""
    for p in range(3, math.isqrt(n) + 1, 2):
        if n % p == 0:
            q = n // p
            return (p, q) if p < q and _is_prime(p) and _is_prime(q) else None
    return None


def _rsa_exponent_ok(n: int, e: int) -> bool:
    pq = _factor(n)
    if pq is None:
        return False
    phi = (pq[0] - 1) * (pq[1] - 1)
    return RSA_E_RANGE[0] <= e <= RSA_E_RANGE[1] and 1 < e < phi and math.gcd(e, phi) == 1


def rsa_keys() -> list[tuple[int, int]]:
    """Every (N, e) of the key space, N ascending then e ascending (duplicate functions kept)."""
    lo, hi = RSA_N_RANGE
    return [
        (n, e)
        for n in range(lo, hi + 1)
        if _factor(n) is not None
        for e in range(RSA_E_RANGE[0], RSA_E_RANGE[1] + 1)
        if _rsa_exponent_ok(n, e)
    ]


def _letter_pairs(text: str) -> list[int] | None:
    """m = 26 p + q per letter pair of ``text`` without spaces (an odd count padded with X)."""
    letters = [_IDX.get(ch) for ch in text if ch != " "]
    if not letters or any(v is None for v in letters):
        return None
    if len(letters) % 2:
        letters.append(_IDX["X"])
    return [26 * p + q for p, q in zip(letters[::2], letters[1::2], strict=True)]  # type: ignore[operator]


def _rsa(n: int, e: int, text: str) -> str:
    pairs = _letter_pairs(text)
    if pairs is None:
        raise FamilyError(f"RSA pairs needs letters A-Z and spaces, got {text!r}")
    return " ".join(str(pow(m, e, n)) for m in pairs)


class _TableKind(EnumeratedKind):
    """An enumerated kind whose functions are tables on symbols (see ``TableSpace``)."""

    output_format: OutputFormat = "digits"

    @abstractmethod
    def _row(self, params: Params) -> tuple[int, ...]:
        """The function's number for every symbol."""

    @abstractmethod
    def _symbols(self, text: str) -> list[int] | None:
        """The symbols of a query (None when it is not one)."""

    def signature(self, params: Params) -> Hashable:
        return self._row(params)

    @cached_property
    def _enumeration(self) -> tuple[tuple[Params, ...], tuple[tuple[int, ...], ...]]:
        """Canonical keys (the first of each function) and their rows, computed once."""
        seen: dict[tuple[int, ...], Params] = {}
        for params in self.all_params():
            seen.setdefault(self._row(params), params)
        return tuple(seen.values()), tuple(seen)

    @cached_property
    def distinct(self) -> tuple[Params, ...]:
        return self._enumeration[0]

    def _basis(self, symbols: list[int]) -> tuple[list[int], bool]:
        """See ``Basis``: by default every symbol, separating nothing."""
        return symbols, False

    @cached_property
    def _table_prior(self) -> TableSpace:
        return TableSpace(SymbolTable(self._enumeration[1], self._symbols, self._basis))

    def space(self) -> VersionSpace:
        return self._table_prior


class RsaPairsKind(_TableKind):
    """H: m -> m^e mod N on letter pairs m = 26 p + q, N = P * Q in RSA_N_RANGE (odd primes
    P < Q), e in RSA_E_RANGE coprime to (P - 1)(Q - 1): 2,620 keys, 2,617 distinct functions
    on the 676 pairs (a few exponents agree modulo the Carmichael function of N)."""

    name = "rsa_pairs"
    template_name = "code/eri/rsa_pairs.py.j2"

    def log2_y(self, query_length: int) -> float:
        # ceil(n / 2) pairs, each a residue modulo some N <= N_max.
        return -(-query_length // 2) * math.log2(RSA_N_RANGE[1])

    def all_params(self) -> Iterable[Params]:
        return ({"n": n, "e": e} for n, e in rsa_keys())

    def _row(self, params: Params) -> tuple[int, ...]:
        n, e = int(params["n"]), int(params["e"])
        return tuple(pow(m, e, n) for m in range(_PAIRS))

    def _symbols(self, text: str) -> list[int] | None:
        return _letter_pairs(text)

    def check_params(self, params: Mapping[str, JSONValue]) -> Params:
        n = require_int(params, "n", *RSA_N_RANGE)
        e = require_int(params, "e", *RSA_E_RANGE)
        if _factor(n) is None:
            raise FamilyError(f"ERI RSA modulus {n} is not a product of two odd primes P < Q")
        if not _rsa_exponent_ok(n, e):
            raise FamilyError(f"ERI RSA exponent {e} is not coprime to phi({n})")
        return {"n": n, "e": e}

    def encrypt(self, params: Params) -> Encrypt:
        n, e = int(params["n"]), int(params["e"])
        return lambda text: _rsa(n, e, text)

    def describe(self, params: Params) -> str:
        n, e = params["n"], params["e"]
        return (
            PREAMBLE + f"RSA on letter pairs with public key N = {n}, e = {e}: remove the spaces; "
            "if the number of letters is odd, append one X. Split the letters into consecutive "
            "pairs (e.g. AB C becomes the pairs AB, CX). A pair of letters numbered p (first) "
            f"and q (second) becomes m = 26 * p + q (0 to 675), and m becomes c = m^{e} mod {n} "
            f"(modular exponentiation: the remainder of m to the power {e} divided by {n}). "
            + _NUMBERS
            + " "
            + _OUTPUT
        )

    def context(self, params: Params) -> dict[str, Any]:
        return {"rsa_n": params["n"], "rsa_e": params["e"]}


KNAPSACK_LETTER_BITS = 5
_KNAP_FIRST = (1, 2)
"""The first private weight s_1."""
_KNAP_GAPS = (1, 2)
"""s_j = s_1 + ... + s_{j-1} + gap: the private sequence is superincreasing."""
_KNAP_MARGINS = (1, 2, 3, 4)
"""q = s_1 + ... + s_5 + margin."""


def knapsack_keys() -> list[tuple[tuple[int, ...], int, int]]:
    """Every private key (s, q, r) in a fixed order (several may give the same public key)."""
    keys = []
    for first in _KNAP_FIRST:
        for gaps in product(_KNAP_GAPS, repeat=KNAPSACK_LETTER_BITS - 1):
            s = [first]
            for gap in gaps:
                s.append(sum(s) + gap)
            for margin in _KNAP_MARGINS:
                q = sum(s) + margin
                keys += [(tuple(s), q, r) for r in range(2, q) if math.gcd(r, q) == 1]
    return keys


def _knapsack_sums(weights: tuple[int, ...]) -> tuple[int, ...]:
    """The number of each letter: the sum of the weights of the set bits of p + 1."""
    bits = KNAPSACK_LETTER_BITS
    return tuple(
        sum(w for j, w in enumerate(weights) if (p + 1) >> (bits - 1 - j) & 1) for p in range(26)
    )


def _bit_vector(p: int) -> list[int]:
    return [(p + 1) >> (KNAPSACK_LETTER_BITS - 1 - j) & 1 for j in range(KNAPSACK_LETTER_BITS)]


@lru_cache(maxsize=4096)
def _independent(letters: tuple[int, ...]) -> tuple[int, ...]:
    """A maximal subset of ``letters`` whose bit vectors are linearly independent (over Q)."""
    rows: list[tuple[int, list[int]]] = []  # (pivot, row) in echelon form, integer entries
    chosen = []
    for p in letters:
        v = _bit_vector(p)
        for pivot, row in rows:
            if v[pivot]:
                v = [a * row[pivot] - b * v[pivot] for a, b in zip(v, row, strict=True)]
        pivot = next((j for j, a in enumerate(v) if a), -1)
        if pivot >= 0:
            rows.append((pivot, v))
            chosen.append(p)
    return tuple(chosen)


def _knapsack_basis(letters: list[int]) -> tuple[list[int], bool]:
    # Each letter's number is the weights' sum over its bits, linear in the weights: the
    # letters of an independent subset fix the others, and 5 of them fix all 5 weights,
    # which tells every two weight vectors apart.
    chosen = _independent(tuple(letters))
    return list(chosen), len(chosen) == KNAPSACK_LETTER_BITS


def _letters(text: str) -> list[int] | None:
    letters = [_IDX.get(ch) for ch in text if ch != " "]
    if not letters or any(v is None for v in letters):
        return None
    return letters  # type: ignore[return-value]


def _knapsack(sums: tuple[int, ...], text: str) -> str:
    letters = _letters(text)
    if letters is None:
        raise FamilyError(f"knapsack needs letters A-Z and spaces, got {text!r}")
    return " ".join(str(sums[p]) for p in letters)


class KnapsackKind(_TableKind):
    """H: Merkle-Hellman public keys w_j = r s_j mod q from the private keys of
    ``knapsack_keys`` (3,660 of them): 3,491 distinct weight vectors, each a distinct
    function (the letters B, D, H, P and A = 1, 2, 4, 8, 16 show the five weights)."""

    name = "knapsack"
    template_name = "code/eri/knapsack.py.j2"

    def log2_y(self, query_length: int) -> float:
        # One number per letter, between 0 and the largest letter sum over H.
        return query_length * math.log2(self._largest + 1)

    @cached_property
    def _largest(self) -> int:
        return max(max(row) for row in self._enumeration[1])

    @cached_property
    def _public(self) -> frozenset[tuple[int, ...]]:
        return frozenset(tuple(p["weights"]) for p in self.distinct)

    def all_params(self) -> Iterable[Params]:
        for s, q, r in knapsack_keys():
            yield {"weights": [r * v % q for v in s]}

    def _row(self, params: Params) -> tuple[int, ...]:
        return _knapsack_sums(tuple(params["weights"]))

    def _symbols(self, text: str) -> list[int] | None:
        return _letters(text)

    def _basis(self, symbols: list[int]) -> tuple[list[int], bool]:
        return _knapsack_basis(symbols)

    def check_params(self, params: Mapping[str, JSONValue]) -> Params:
        weights = params.get("weights")
        if (
            not isinstance(weights, list)
            or len(weights) != KNAPSACK_LETTER_BITS
            or not all(isinstance(w, int) and not isinstance(w, bool) for w in weights)
            or tuple(weights) not in self._public
        ):
            raise FamilyError(
                "ERI knapsack 'weights' must be 5 integers r * s_j mod q of a key of the "
                f"kind's range, got {weights!r}"
            )
        return {"weights": [int(w) for w in weights]}

    def encrypt(self, params: Params) -> Encrypt:
        sums = self._row(params)
        return lambda text: _knapsack(sums, text)

    def describe(self, params: Params) -> str:
        w = [int(v) for v in params["weights"]]
        names = ", ".join(f"w{j} = {v}" for j, v in enumerate(w, start=1))
        return (
            PREAMBLE + f"Knapsack (Merkle-Hellman) cipher with public weights {names}: remove the "
            "spaces. A letter numbered p gets the value v = p + 1 (A = 1, B = 2, ..., Z = 26), "
            "written as 5 binary digits b1 b2 b3 b4 b5, most significant first, so that "
            "v = 16*b1 + 8*b2 + 4*b3 + 2*b4 + b5 (e.g. C = 3 = 00011, Z = 26 = 11010). The "
            "letter becomes the number b1*w1 + b2*w2 + b3*w3 + b4*w4 + b5*w5 (the sum of the "
            f"weights of its 1 bits, an ordinary sum with no modulus: C becomes {w[3] + w[4]}). "
            + _NUMBERS
            + " "
            + _OUTPUT
        )

    def context(self, params: Params) -> dict[str, Any]:
        return {"knap_weights": list(params["weights"])}
