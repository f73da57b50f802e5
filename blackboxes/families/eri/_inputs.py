"""Query generators: random queries, the fixed plan, the adaptive pool, held-out and edge inputs."""

from __future__ import annotations

import random
from collections.abc import Collection

from blackboxes.families.eri._alphabet import ALPHABET, MAX_LEN, SYLLABLES, normalise

__all__ = [
    "FIXED_PLAN",
    "differential_inputs",
    "exploration_plan",
    "query_pool",
    "random_query",
    "test_inputs",
]

_REVERSED = ALPHABET[::-1]

FIXED_PLAN: tuple[str, ...] = (
    # Every letter once (a letter-wise key, a transposition's shape), then a run of one
    # letter at positions 26-31: a position-dependent shift cannot pass for an affine map.
    ALPHABET + "A" * (MAX_LEN - 26),
    "A" * MAX_LEN,  # one repeated letter: position-dependent keys, period, digraph padding
    ALPHABET,
    "AB",
    "B" * MAX_LEN,
    "ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEF",
    "A",
    "HELLO WORLD",
    "AABBCCDDEEFFGGHHIIJJKKLLMMNNOOPP",
    _REVERSED,
    "BA",
    "THE QUICK BROWN FOX JUMPS",
    "Z",
    "AAB AAB",
    "ABC",
)
"""Probes that are informative against every kind without looking at answers."""


def _rotated(t: int) -> str:
    r = t % 26
    return ALPHABET[r:] + ALPHABET[:r]


def exploration_plan(turns: int) -> list[str]:
    """``turns`` fixed probes: the curated list, then rotated alphabets with a moving space."""
    plan = list(FIXED_PLAN[:turns])
    t = 1
    while len(plan) < turns:
        base = _rotated(t)
        cut = 1 + (t * 7) % 24
        plan.append(normalise(base[:cut] + " " + base[cut:]))
        t += 1
    return plan


def random_query(rng: random.Random) -> str:
    """Uniform length 1..32; each character a space with probability 0.15, else a uniform letter."""
    while True:
        length = rng.randint(1, MAX_LEN)
        raw = "".join(" " if rng.random() < 0.15 else rng.choice(ALPHABET) for _ in range(length))
        text = normalise(raw)
        if text:
            return text


def _pseudo_word(rng: random.Random) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(1, 3)))


def _phrase(rng: random.Random, lo: int, hi: int) -> str:
    target = rng.randint(lo, hi)
    words: list[str] = []
    while len(" ".join(words)) < target:
        words.append(_pseudo_word(rng))
    text = " ".join(words)[:hi].strip()
    return text if len(text) >= lo else (text + " " + _pseudo_word(rng))[:hi].strip()


def test_inputs(rng: random.Random, k: int, exclude: Collection[object]) -> list[str]:
    """``k`` distinct pseudo-word phrases of 5..24 characters, none in ``exclude``."""
    excluded = {normalise(e) for e in exclude if isinstance(e, str)}
    out: list[str] = []
    while len(out) < k:
        text = normalise(_phrase(rng, 5, 24))
        if len(text) >= 5 and text not in excluded and text not in out:
            out.append(text)
    return out


def _structured(rng: random.Random) -> list[str]:
    letter = rng.choice(ALPHABET)
    other = rng.choice(ALPHABET.replace(letter, ""))
    rot = _rotated(rng.randrange(26))
    n = rng.randint(2, MAX_LEN)
    return [
        rot,
        rot + rot[:6],
        letter * n,
        letter * MAX_LEN,
        letter + other,
        (letter + other) * (n // 2 or 1),
        "".join(c + c for c in rot[:16]),
        rot[: rng.randint(1, 26)],
        letter,
        _phrase(rng, 5, MAX_LEN),
    ]


def query_pool(rng: random.Random, n: int) -> list[str]:
    """``n`` distinct candidates: the fixed probes first, then structured and random ones."""
    out: list[str] = []
    seen: set[str] = set()

    def add(text: str) -> None:
        text = normalise(text)
        if text and len(text) <= MAX_LEN and text not in seen and len(out) < n:
            seen.add(text)
            out.append(text)

    for probe in FIXED_PLAN[:6]:
        add(probe)
    attempts = 0
    while len(out) < n and attempts < 50 * n:
        attempts += 1
        if rng.random() < 0.7:
            add(rng.choice(_structured(rng)))
        else:
            add(random_query(rng))
    return out


EDGE_CASES: tuple[str, ...] = (
    "A",
    "Z",
    "J",
    "X",
    "XX",
    "JJ",
    "AA",
    ALPHABET,
    _REVERSED,
    "A B",
    "A B C D E F G H I J K L M N O P",
    "ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEF",
    "ABCDEFGHIJKLMNOPQRSTUVWXYZABCDE",
    "A" * MAX_LEN,
    "X" * MAX_LEN,
    "AABBCCDDEEFFGGHHIIJJKKLLMMNNOOPP",
    "BALLOON",
    "XAXXQQ",
    "HELLO WORLD",
    "ATTACK AT DAWN",
    "THE QUICK BROWN FOX JUMPS OVER",
    "ZZ YY XX",
    "JXJQ",
)


def differential_inputs(rng: random.Random, n: int) -> list[str]:
    """Edge cases first (single letters, the alphabet, spaces, maximum length, doubled
    letters, X/J/Q padding cases), then random queries and phrases."""
    out = list(dict.fromkeys(EDGE_CASES))[:n]
    seen = set(out)
    while len(out) < n:
        text = random_query(rng) if rng.random() < 0.6 else normalise(_phrase(rng, 1, MAX_LEN))
        if text and text not in seen:
            seen.add(text)
            out.append(text)
    return out
