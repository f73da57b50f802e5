"""Nuts and bolts: find which bolt fits which nut by trying a few pairs at a time."""

from __future__ import annotations

import itertools
import json
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import numpy.typing as npt

from blackboxes.puzzles._base import (
    Codes,
    DeterministicKind,
    Index,
    Params,
    PuzzleError,
    params_key,
    register_puzzle,
)
from blackboxes.puzzles._params import require_int, require_keys
from blackboxes.puzzles._text import bounded, parse_int, preview, tokens

if TYPE_CHECKING:
    from blackboxes.box import Level

__all__ = ["NutsAndBolts"]

_WORDS = ("small", "fit", "large")
"""Per-pair feedback digit 0, 1, 2: the nut is smaller than the bolt, the same, larger."""
_FILLERS = frozenset(
    {"nut", "nuts", "bolt", "bolts", "and", "with", "pair", "pairs", "on", "try", "vs"}
)
_PUNCTUATION = frozenset("()[]{},;:-/=&+.")


def _pairs(text: str, size: int, expected: str) -> list[tuple[int, int]]:
    """(nut, bolt) pairs, 0-based, from ``1A 2B``, ``(1, A), (2, B)``, ``A1 B2``, ..."""
    parts = [t for t in tokens(text) if t not in _FILLERS and t not in _PUNCTUATION]
    if len(parts) % 2:
        raise PuzzleError(f"expected {expected}; got {preview(text)}")
    bolt_first = bool(parts) and parts[0].isalpha()
    out = []
    top = chr(ord("a") + size - 1)
    for a, b in zip(parts[::2], parts[1::2], strict=True):
        number, letter = (b, a) if bolt_first else (a, b)
        if not number.isdigit() or len(letter) != 1 or not "a" <= letter <= top:
            raise PuzzleError(f"expected {expected}; got {preview(text)}")
        out.append((parse_int(number, 1, size, expected, text) - 1, ord(letter) - ord("a")))
    return out


def _name(pairs: Sequence[tuple[int, int]]) -> str:
    return " ".join(f"{n + 1}{chr(ord('A') + b)}" for n, b in pairs)


@dataclass(frozen=True)
class _Model:
    size: int
    pairs: int
    """The most (nut, bolt) pairs one probe may try."""

    @property
    def bolts(self) -> str:
        return "ABCDEFGH"[: self.size]

    @cached_property
    def bolt_of(self) -> npt.NDArray[np.int8]:
        """Row h: the bolt that fits each nut under secret h (permutations in order)."""
        rows = list(itertools.permutations(range(self.size)))
        return np.array(rows, dtype=np.int8)

    @cached_property
    def answers(self) -> list[str]:
        return [_name(list(enumerate(row))) for row in self.bolt_of.tolist()]

    @cached_property
    def nut_of(self) -> npt.NDArray[np.int8]:
        """Row h: the nut (equally, the size rank) each bolt fits under secret h."""
        out = np.empty_like(self.bolt_of)
        rows = np.arange(len(out))[:, None]
        out[rows, self.bolt_of] = np.arange(self.size, dtype=np.int8)[None, :]
        return out


@register_puzzle
class NutsAndBolts(DeterministicKind):
    """n nuts of sizes 1..n (nut k is the k-th smallest) and n bolts A.. whose sizes are a
    hidden permutation; each bolt fits exactly one nut. A probe tries up to m pairs."""

    name: ClassVar[str] = "nuts_and_bolts"
    title: ClassVar[str] = "Nuts and bolts"
    levels: ClassVar[tuple[Level, ...]] = ("easy", "hard")

    def sample_params(self, rng: random.Random, level: Level) -> dict[str, Any]:
        if self.require_level(level) == "easy":
            size, pairs = rng.choice([(5, 2), (6, 2)])
        else:
            size, pairs = rng.choice([(7, 2), (7, 3), (8, 2), (8, 3)])
        return {"size": size, "pairs": pairs}

    def _model(self, params: Params) -> _Model:
        return _build(self, params_key(params))

    def validate(self, params: Params) -> _Model:
        require_keys(self.name, params, ("pairs", "size"))
        size = require_int(self.name, params, "size", 3, 8)
        # n >= 2m + 1 lets m distinct middle nuts see every small/fit/large combination,
        # so |Y| = 3^m exactly.
        pairs = require_int(self.name, params, "pairs", 1, (size - 1) // 2)
        return _Model(size, pairs)

    def check_params(self, params: Params) -> None:
        self._model(params)

    def answers(self, params: Params) -> Sequence[str]:
        return self._model(params).answers

    def answer_count(self, params: Params) -> int:
        return math.factorial(self._model(params).size)

    def answer_at(self, params: Params, index: int) -> str:
        row = self._model(params).bolt_of[index]
        return _name([(n, int(b)) for n, b in enumerate(row)])

    def feedback_size(self, params: Params) -> int:
        return 3 ** self._model(params).pairs

    def _expected(self, m: _Model) -> str:
        return (
            f"1-{m.pairs} pairs of a nut number 1-{m.size} and a bolt letter"
            f" A-{m.bolts[-1]}, e.g. 1A 3C"
        )

    def _probe(self, params: Params, text: str) -> list[tuple[int, int]]:
        m = self._model(params)
        text = bounded(text, "a probe")
        pairs = _pairs(text, m.size, self._expected(m))
        if not 1 <= len(pairs) <= m.pairs or len(set(pairs)) != len(pairs):
            raise PuzzleError(f"expected {self._expected(m)}, each pair once; got {preview(text)}")
        return sorted(pairs)

    def parse_probe(self, params: Params, text: str) -> str:
        return _name(self._probe(params, text))

    def parse_answer(self, params: Params, text: str) -> str:
        """``1C 2A 3B``; also ``(1,C) (2,A) (3,B)`` in any order, or the bolts in nut order
        ``CAB``."""
        m = self._model(params)
        text = bounded(text, "an answer")
        expected = (
            f"the bolt of every nut, e.g. {self.answer_at(params, 0)} (or the bolts in nut"
            f" order, e.g. {m.bolts})"
        )
        parts = [t for t in tokens(text) if t not in _FILLERS and t not in _PUNCTUATION]
        if parts and all(p.isalpha() for p in parts) and sum(map(len, parts)) == m.size:
            letters = "".join(parts)
            if any(c not in m.bolts.lower() for c in letters):
                raise PuzzleError(f"expected {expected}; got {preview(text)}")
            pairs = [(n, ord(c) - ord("a")) for n, c in enumerate(letters)]
        else:
            pairs = _pairs(text, m.size, expected)
        nuts, bolts = sorted(n for n, _ in pairs), sorted(b for _, b in pairs)
        if nuts != list(range(m.size)) or bolts != list(range(m.size)):
            raise PuzzleError(
                f"expected {expected}, each nut and each bolt once; got {preview(text)}"
            )
        return _name(sorted(pairs))

    def feedback_values(self, params: Params, probe: str) -> list[str]:
        pairs = self._probe(params, probe)
        return [self.feedback_label(params, probe, code) for code in range(3 ** len(pairs))]

    def feedback(self, params: Params, secret: str, probe: str, u: float) -> str:
        fits = {
            b: n for n, b in _pairs(self.parse_answer(params, secret), self._model(params).size, "")
        }
        words = []
        for nut, bolt in self._probe(params, probe):
            size = fits[bolt]  # the bolt's size rank: the nut it fits
            words.append(_WORDS[0] if nut < size else _WORDS[1] if nut == size else _WORDS[2])
        return self._label(self._probe(params, probe), words)

    def _label(self, pairs: Sequence[tuple[int, int]], words: Sequence[str]) -> str:
        return ", ".join(f"{_name([p])} {w}" for p, w in zip(pairs, words, strict=True))

    def feedback_all(self, params: Params, probe: str, index: Index | None = None) -> Codes:
        m = self._model(params)
        nut_of = m.nut_of if index is None else m.nut_of[index]
        code = np.zeros(len(nut_of), dtype=np.int64)
        for j, (nut, bolt) in enumerate(self._probe(params, probe)):
            size = nut_of[:, bolt].astype(np.int64)
            code += (np.sign(nut - size) + 1) * 3**j
        return code

    def feedback_label(self, params: Params, probe: str, code: int) -> str:
        pairs = self._probe(params, probe)
        words = []
        for _ in pairs:
            code, digit = divmod(code, 3)
            words.append(_WORDS[digit])
        return self._label(pairs, words)

    def feedback_code(self, params: Params, probe: str, feedback: str) -> int | None:
        pairs = self._probe(params, probe)
        items = feedback.split(", ")
        if len(items) != len(pairs):
            return None
        code = 0
        for j, (pair, item) in enumerate(zip(pairs, items, strict=True)):
            name, _, word = item.partition(" ")
            if name != _name([pair]) or word not in _WORDS:
                return None
            code += _WORDS.index(word) * 3**j
        return code

    def rules_text(self, params: Params) -> str:
        m = self._model(params)
        return (
            f"There are {m.size} nuts numbered 1-{m.size} by size (nut 1 is the smallest,"
            f" nut {m.size} the largest) and {m.size} bolts lettered A-{m.bolts[-1]}. Each"
            " bolt fits exactly one nut, the one of its size. The hidden answer is which bolt"
            f" fits which nut; each of the {math.factorial(m.size)} pairings is equally"
            " likely.\n"
            f"Probe: try 1 to {m.pairs} nut-bolt pairs at once, each a nut number then a"
            f" bolt letter, e.g. `1A 3C`. A nut or a bolt may be in several pairs.\n"
            "Feedback: one word per pair, the pairs sorted by nut then bolt, e.g."
            " `1A small, 3C fit`: `small` if the nut is too small for the bolt (the bolt fits"
            " a larger nut), `fit` if the bolt fits the nut, `large` if the nut is too large"
            " for the bolt (the bolt fits a smaller nut).\n"
            f"Answer: the bolt of every nut, e.g. `{self.answer_at(params, 0)}`."
        )

    def candidate_probes(
        self, params: Params, rng: random.Random, limit: int, plausible: Sequence[str] = ()
    ) -> list[str]:
        m = self._model(params)
        chosen: dict[str, None] = {}
        # Pairs of still-plausible pairings (a "fit" there is likely), then random ones.
        for secret in plausible[: limit // 3]:
            pairs = _pairs(secret, m.size, "")
            chosen[_name(sorted(rng.sample(pairs, m.pairs)))] = None
        for _ in range(20 * limit):
            if len(chosen) >= limit:
                break
            nuts = rng.sample(range(m.size), m.pairs)
            bolts = rng.sample(range(m.size), m.pairs)
            chosen[_name(sorted(zip(nuts, bolts, strict=True)))] = None
        return list(chosen)

    def canonical_formats(self, params: Params) -> tuple[str, str]:
        return (
            "every nut with its bolt, nut order, e.g. `1C 2A 3B`",
            "1 to m pairs sorted by nut then bolt, e.g. `1A 3C`",
        )

    def template_context(self, params: Params) -> dict[str, Any]:
        """The parameters and the bolt letters (``bolts``)."""
        return {**params, "bolts": self._model(params).bolts}

    def edge_probe_texts(self, params: Params, secret: str, rng: random.Random) -> list[str]:
        """As many of the secret's fitting pairs as a probe takes (every answer "fit"),
        and its first pair alone."""
        pairs = secret.split()
        return [" ".join(rng.sample(pairs, self._model(params).pairs)), pairs[0]]


@lru_cache(maxsize=32)
def _build(kind: NutsAndBolts, key: str) -> _Model:
    return kind.validate(json.loads(key))
