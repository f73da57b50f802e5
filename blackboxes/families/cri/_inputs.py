"""CRI queries: n-bit vectors. Parsing, the fixed plan, pools, held-out and test inputs."""

from __future__ import annotations

import random
import re
from collections.abc import Collection, Sequence

from oracle_bench.errors import InvalidQueryError
from oracle_bench.rng import rng_for

__all__ = [
    "differential_inputs",
    "exploration_plan",
    "normalise_bits",
    "parse_bits",
    "query_pool",
    "random_bits",
    "test_inputs",
]

_ALLOWED = re.compile(r"[01\s,;\[\]()]*")
_TOKEN = re.compile(r"[01]+")


def parse_bits(text: str, n: int) -> str:
    """``[1,0,1]``, ``1 0 1``, ``1,0,1``, ``(1, 0, 1)`` or ``101`` -> ``"101"``.

    Only 0/1, spaces, commas, semicolons, brackets and parentheses may appear. With commas
    or semicolons each item must be a single bit (``[10, 1]`` is ambiguous and refused);
    otherwise space-separated groups are read in order. Exactly ``n`` bits.
    """
    if not isinstance(text, str):
        raise InvalidQueryError(f"a query must be text, got {type(text).__name__}")
    stripped = text.strip()
    if not _ALLOWED.fullmatch(stripped):
        bad = sorted({c for c in stripped if not _ALLOWED.fullmatch(c)})[:5]
        raise InvalidQueryError(
            f"a query is {n} bits 0/1, e.g. {'1' * (n // 2)}{'0' * (n - n // 2)} or "
            f"[1, 0, ...]; it contains {', '.join(repr(c) for c in bad)}"
        )
    tokens = _TOKEN.findall(stripped)
    if ("," in stripped or ";" in stripped) and any(len(t) > 1 for t in tokens):
        raise InvalidQueryError(
            "a list of bits must have one bit per item, e.g. [1, 0, 1]; got an item "
            f"{next(t for t in tokens if len(t) > 1)!r}"
        )
    bits = "".join(tokens)
    if len(bits) != n:
        raise InvalidQueryError(f"a query is exactly {n} bits, got {len(bits)}")
    return bits


def normalise_bits(text: str) -> str:
    """The answer normalisation: every character other than 0 and 1 is dropped."""
    return "".join(c for c in text if c in "01")


def random_bits(rng: random.Random, n: int) -> str:
    return "".join(rng.choice("01") for _ in range(n))


def _plan(n: int) -> list[str]:
    zeros, ones = "0" * n, "1" * n
    units = [zeros[:i] + "1" + zeros[i + 1 :] for i in range(n)]
    holes = [ones[:i] + "0" + ones[i + 1 :] for i in range(n)]
    plan = [zeros, ones, *units, *holes]
    # Then a fixed pseudo-random sequence (the same for every box of this width).
    rng = rng_for(0, "CRI plan", n)
    seen = set(plan)
    while len(plan) < min(1 << n, 4 * n + 64):
        x = random_bits(rng, n)
        if x not in seen:
            seen.add(x)
            plan.append(x)
    return plan


def exploration_plan(turns: int, n: int) -> list[str]:
    """All zeros, all ones, each unit vector, each unit hole, then fixed random vectors."""
    plan = _plan(n)
    return [plan[i % len(plan)] for i in range(turns)]


def query_pool(rng: random.Random, count: int, n: int, asked: Sequence[str] = ()) -> list[str]:
    """Candidates for the adaptive agent: one-bit changes of what was asked, the plan's
    vectors not yet asked, and random vectors; distinct and never already asked."""
    seen = set(asked)
    pool: list[str] = []

    def add(x: str) -> None:
        if x not in seen:
            seen.add(x)
            pool.append(x)

    for x in asked[-4:]:
        for i in rng.sample(range(n), min(n, 3)):
            add(x[:i] + ("1" if x[i] == "0" else "0") + x[i + 1 :])
    for x in _plan(n)[: 2 * n + 2]:
        if len(pool) >= count // 2:
            break
        add(x)
    tries = 0
    while len(pool) < count and tries < 50 * count:
        tries += 1
        add(random_bits(rng, n))
    return pool[:count]


def test_inputs(rng: random.Random, k: int, exclude: Collection[str], n: int) -> list[str]:
    """``k`` distinct uniform vectors, none in ``exclude``."""
    banned = set(exclude)
    if (1 << n) - len(banned) < k:
        raise InvalidQueryError(f"fewer than {k} unqueried {n}-bit inputs remain")
    out: list[str] = []
    while len(out) < k:
        x = random_bits(rng, n)
        if x not in banned:
            banned.add(x)
            out.append(x)
    return out


def differential_inputs(rng: random.Random, count: int, n: int) -> list[str]:
    """The plan's edge cases first, then distinct random vectors (all 2^n if count allows)."""
    if count >= 1 << n:
        return [format(i, f"0{n}b")[::-1] for i in range(1 << n)]
    edges = _plan(n)[: 2 * n + 2]
    out = edges[:count]
    seen = set(out)
    while len(out) < count:
        x = random_bits(rng, n)
        if x not in seen:
            seen.add(x)
            out.append(x)
    return out
