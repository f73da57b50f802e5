"""Query generators: random queries, the fixed plan, the adaptive pool, held-out and edge inputs."""

from __future__ import annotations

import random
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from blackboxes.families.eri._alphabet import (
    ALPHABET,
    MAX_LEN,
    SYLLABLES,
    normalise,
    normalise_cased,
)

__all__ = [
    "FIXED_PLAN",
    "InputShape",
    "differential_inputs",
    "exploration_plan",
    "query_pool",
    "random_query",
    "test_inputs",
]

_REVERSED = ALPHABET[::-1]


@dataclass(frozen=True)
class InputShape:
    """What a box's plaintexts look like: at most ``length`` characters, case kept or not."""

    length: int = MAX_LEN
    cased: bool = False

    def normalise(self, text: str) -> str:
        return normalise_cased(text) if self.cased else normalise(text)

    @property
    def letters(self) -> str:
        return ALPHABET + ALPHABET.lower() if self.cased else ALPHABET


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
"""The full-length plan (32 characters, uppercase): informative against every kind
without looking at answers."""


def _rotated(t: int, letters: str = ALPHABET) -> str:
    r = t % len(letters)
    return letters[r:] + letters[:r]


_ROUNDS = 12
"""Rounds of the short plan: each lists every letter once, in its own shuffled order."""


def _round_order(letters: str, r: int) -> str:
    # A fixed shuffle per round: letters that follow each other in the alphabet never
    # follow each other for long, so two rules told apart only by a difference between
    # letters (a Vigenere key against a column order, say) meet many differences.
    order = list(letters)
    random.Random(f"eri fixed plan round {r}").shuffle(order)
    return "".join(order)


def _short_plan(shape: InputShape) -> list[str]:
    """Probes of exactly ``shape.length`` characters that each bring new evidence.

    Round r lists the letters in a fixed shuffled order (so neighbours, pairs,
    differences and positions change from probe to probe) and cuts it into windows of
    fresh letters, each closed by a repeat of one of them: a repeat shows a frequency
    step, a period, an autokey's feedback and digraph padding. Every other probe has a
    space at a moving position instead of one letter: ciphers keep, move or drop
    spaces, and a transposition of n - 1 letters is not the one of n letters.
    """
    n, letters = shape.length, shape.letters
    probes: list[str] = []
    k = 0
    for r in range(_ROUNDS):
        order = _round_order(letters, r)
        start = 0
        while start < len(order):
            spaced = k % 2 == 1
            width = n - 2 if spaced else n - 1
            window = (order + order)[start : start + width]
            # The repeated letter moves too: a fixed pair of equal positions would hide
            # any two rules that differ only by exchanging them.
            repeat = window[(k // 2) % len(window)]
            if spaced:
                cut = 1 + (k // 2) % (width - 1)
                probes.append(window[:cut] + " " + window[cut:] + repeat)
            else:
                probes.append(window + repeat)
            start += width
            k += 1
    return list(dict.fromkeys(probes))


def exploration_plan(turns: int, shape: InputShape | None = None) -> list[str]:
    """``turns`` fixed probes for boxes of ``shape``: the curated full-length list for
    32-character uppercase queries, otherwise windows of fresh letters; then rotated
    alphabets with a moving space."""
    shape = shape or InputShape()
    full = shape == InputShape()
    plan = list(FIXED_PLAN[:turns]) if full else _short_plan(shape)[:turns]
    t = 1
    seen = set(plan)
    while len(plan) < turns:
        base = _rotated(t, shape.letters)[: shape.length]
        cut = 1 + (t * 7) % max(1, min(24, shape.length - 2))
        probe = shape.normalise(base[:cut] + " " + base[cut:])[: shape.length].strip()
        if probe and probe not in seen:
            seen.add(probe)
            plan.append(probe)
        t += 1
    return plan


def random_query(rng: random.Random, shape: InputShape | None = None) -> str:
    """Uniform length 1..n; each character a space with probability 0.15, else a uniform letter."""
    shape = shape or InputShape()
    while True:
        length = rng.randint(1, shape.length)
        raw = "".join(
            " " if rng.random() < 0.15 else rng.choice(shape.letters) for _ in range(length)
        )
        text = shape.normalise(raw)
        if text:
            return text


def _pseudo_word(rng: random.Random, cased: bool = False) -> str:
    word = "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(1, 3)))
    if not cased:
        return word
    style = rng.randrange(3)  # as people write: UPPER, lower, Capitalised
    return word if style == 0 else word.lower() if style == 1 else word.capitalize()


def _phrase(rng: random.Random, lo: int, hi: int, cased: bool = False) -> str:
    target = rng.randint(lo, hi)
    words: list[str] = []
    while len(" ".join(words)) < target:
        words.append(_pseudo_word(rng, cased))
    text = " ".join(words)[:hi].strip()
    return text if len(text) >= lo else (text + " " + _pseudo_word(rng, cased))[:hi].strip()


TEST_LENGTHS = (5, 24)
"""Held-out plaintexts have 5 to 24 characters (at most the query length)."""


def test_inputs(
    rng: random.Random, k: int, exclude: Collection[object], shape: InputShape | None = None
) -> list[str]:
    """``k`` distinct pseudo-word phrases of 5..min(24, n) characters, none in ``exclude``.

    Held-out items are never longer than a query may be, so that everything a held-out
    answer depends on can be observed.
    """
    shape = shape or InputShape()
    lo, hi = min(TEST_LENGTHS[0], shape.length), min(TEST_LENGTHS[1], shape.length)
    excluded = {shape.normalise(e) for e in exclude if isinstance(e, str)}
    out: list[str] = []
    while len(out) < k:
        text = shape.normalise(_phrase(rng, lo, hi, shape.cased))
        if lo <= len(text) <= hi and text not in excluded and text not in out:
            out.append(text)
    return out


def _structured(rng: random.Random, shape: InputShape) -> list[str]:
    letters, n_max = shape.letters, shape.length
    letter = rng.choice(letters)
    other = rng.choice(letters.replace(letter, ""))
    rot = _rotated(rng.randrange(len(letters)), letters)
    n = rng.randint(2, n_max)
    return [
        rot[:n_max],
        (rot + rot[:6])[:n_max],
        letter * n,
        letter * n_max,
        letter + other,
        ((letter + other) * (n // 2 or 1))[:n_max],
        "".join(c + c for c in rot[:16])[:n_max],
        rot[: rng.randint(1, min(len(letters), n_max))],
        letter,
        _phrase(rng, min(5, n_max), n_max, shape.cased),
        (rot[: n_max - 1] + rot[0])[:n_max],
    ]


def _fresh(shape: InputShape, asked: Sequence[str]) -> list[str]:
    """Probes of the letters no query has had yet (in the alphabet's order, then the
    reverse), padded with letters already seen: with short queries, covering every letter
    is most of what a substitution-like key needs."""
    used = set("".join(asked))
    unseen = [c for c in shape.letters if c not in used]
    if not unseen or not asked:
        return []
    pad = [c for c in shape.letters if c in used]
    out = []
    for letters in (unseen, unseen[::-1]):
        probe = "".join(letters[: shape.length])
        out.append(probe + "".join(pad[: shape.length - len(probe)]))
    return out


def query_pool(
    rng: random.Random,
    n: int,
    shape: InputShape | None = None,
    asked: Sequence[str] = (),
) -> list[str]:
    """``n`` distinct candidates: probes of the letters ``asked`` has not covered, the
    fixed probes, then structured and random ones."""
    shape = shape or InputShape()
    out: list[str] = []
    seen: set[str] = set()

    def add(text: str) -> None:
        text = shape.normalise(text)
        if text and len(text) <= shape.length and text not in seen and len(out) < n:
            seen.add(text)
            out.append(text)

    for probe in _fresh(shape, asked):
        add(probe)
    for probe in exploration_plan(6, shape):
        add(probe)
    attempts = 0
    while len(out) < n and attempts < 50 * n:
        attempts += 1
        if rng.random() < 0.7:
            add(rng.choice(_structured(rng, shape)))
        else:
            add(random_query(rng, shape))
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

CASED_EDGE_CASES: tuple[str, ...] = (
    "a",
    "z",
    "Aa",
    "zZ",
    ALPHABET.lower(),
    ALPHABET.lower()[::-1],
    "Hello World",
    "aBcDeFgHiJkLmNoPqRsTuVwXyZ",
    "a" * MAX_LEN,
    "z" * MAX_LEN,
    "Zz Yy Xx",
    "abcdefghijklmnopqrstuvwxyzABCDEF",
)


def differential_inputs(rng: random.Random, n: int, shape: InputShape | None = None) -> list[str]:
    """Edge cases first (single letters, the alphabet, spaces, maximum length, doubled
    letters, X/J/Q padding cases, lower and mixed case for cased boxes), then random
    queries and phrases, up to the 32 characters a box accepts whatever the query length."""
    shape = shape or InputShape()
    box = InputShape(MAX_LEN, shape.cased)
    edges = EDGE_CASES + CASED_EDGE_CASES if shape.cased else EDGE_CASES
    out = list(dict.fromkeys(edges))[:n]
    seen = set(out)
    while len(out) < n:
        text = (
            random_query(rng, box)
            if rng.random() < 0.6
            else box.normalise(_phrase(rng, 1, MAX_LEN, shape.cased))
        )
        if text and text not in seen:
            seen.add(text)
            out.append(text)
    return out
