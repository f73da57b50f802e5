"""Wordle over a fixed list of frequent English words (from the ``wordfreq`` package).

The hidden word is always listed; a probe may be any string of L letters a-z (the agent
never sees the list, so it cannot be asked to keep to it), and its feedback is defined by
the same marking rule."""

from __future__ import annotations

import json
import random
import re
from collections import Counter
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
from blackboxes.puzzles._text import bounded, preview, tokens

if TYPE_CHECKING:
    from blackboxes.box import Level

__all__ = ["Wordle", "word_list"]

_WORD = re.compile(r"[a-z]+")
_MARKS = "-YG"
"""Feedback digit 0, 1, 2: letter absent, present elsewhere, in place."""
_LETTERS = "abcdefghijklmnopqrstuvwxyz"


@lru_cache(maxsize=16)
def word_list(length: int, count: int) -> tuple[str, ...]:
    """The ``count`` most frequent English words of ``length`` letters a-z, sorted.

    From wordfreq's "best" English list, in its frequency order: the same list for a given
    wordfreq data version (a pinned dependency)."""
    import wordfreq  # imported here: only Wordle needs its data files

    words: list[str] = []
    for word in wordfreq.iter_wordlist("en"):
        if len(word) == length and _WORD.fullmatch(word):
            words.append(word)
            if len(words) == count:
                return tuple(sorted(words))
    raise PuzzleError(f"wordfreq has only {len(words)} English words of {length} letters")


def wordle_marks(secret: str, probe: str) -> str:
    """The reference feedback: G in place; Y in the secret elsewhere, as many times as the
    secret has that letter left over after the greens, earlier probe letters first; - else."""
    marks = ["G" if p == s else "-" for p, s in zip(probe, secret, strict=True)]
    left = Counter(s for s, m in zip(secret, marks, strict=True) if m != "G")
    for i, p in enumerate(probe):
        if marks[i] != "G" and left[p] > 0:
            marks[i] = "Y"
            left[p] -= 1
    return "".join(marks)


@dataclass(frozen=True)
class _Words:
    length: int
    count: int

    @cached_property
    def words(self) -> tuple[str, ...]:
        return word_list(self.length, self.count)

    @cached_property
    def position(self) -> dict[str, int]:
        return {w: i for i, w in enumerate(self.words)}

    @cached_property
    def table(self) -> npt.NDArray[np.uint8]:
        raw = np.frombuffer("".join(self.words).encode("ascii"), dtype=np.uint8)
        return raw.reshape(len(self.words), self.length)

    @cached_property
    def powers(self) -> Codes:
        return 3 ** np.arange(self.length, dtype=np.int64)

    def codes(self, probe: str, index: Index | None) -> Codes:
        table = self.table if index is None else self.table[index]
        p = np.frombuffer(probe.encode("ascii"), dtype=np.uint8)
        green = table == p
        digits = green.astype(np.int64) * 2
        for letter in set(probe):
            code = ord(letter)
            # Copies of the letter the secret has outside its green positions, handed out
            # to the probe's non-green copies from left to right.
            left = ((table == code) & ~green).sum(axis=1)
            for i in (i for i, c in enumerate(probe) if c == letter):
                yellow = ~green[:, i] & (left > 0)
                digits[:, i] += yellow
                left -= yellow
        return digits @ self.powers

    @cached_property
    def feedback_size(self) -> int:
        best = 0
        for start in range(0, len(self.words), 100):
            codes = np.sort(self.codes_batch(np.arange(start, min(len(self.words), start + 100))))
            distinct = (np.diff(codes, axis=1) != 0).sum(axis=1) + 1
            best = max(best, int(distinct.max()))
        return best

    def codes_batch(self, probes: Index) -> Codes:
        """``codes`` of the listed words at ``probes`` against every word, shape (probes,
        words), in closed form: the k-th non-green copy of a letter in the probe is Y iff
        the secret has at least k copies of it outside its green places."""
        table, length = self.table, self.length
        p = table[probes]
        green = p[:, None, :] == table[None, :, :]
        same = p[:, :, None] == p[:, None, :]
        # float32 matrix products count exactly here (at most `length`), and fast.
        available = self.letter_counts[:, p - ord("a")].transpose(1, 0, 2) - np.matmul(
            green.astype(np.float32), same.astype(np.float32)
        )
        earlier = same & np.tril(np.ones((length, length), dtype=bool))[None]
        rank = np.matmul((~green).astype(np.float32), earlier.transpose(0, 2, 1).astype(np.float32))
        digits = 2 * green.astype(np.float32) + (~green & (rank <= available))
        return (digits @ self.powers.astype(np.float32)).astype(np.int64)

    @cached_property
    def letter_counts(self) -> npt.NDArray[np.float32]:
        """How many times each word has each letter a-z, shape (words, 26)."""
        counts = np.zeros((len(self.table), 26), dtype=np.float32)
        for j in range(self.length):
            np.add.at(counts, (np.arange(len(self.table)), self.table[:, j] - ord("a")), 1)
        return counts


@register_puzzle
class Wordle(DeterministicKind):
    """Guess a word of L letters from a public list; per-letter G/Y/- feedback."""

    name: ClassVar[str] = "wordle"
    title: ClassVar[str] = "Wordle"
    levels: ClassVar[tuple[Level, ...]] = ("easy", "hard")
    shares_format: ClassVar[bool] = True

    def sample_params(self, rng: random.Random, level: Level) -> dict[str, Any]:
        if self.require_level(level) == "easy":
            return {"length": rng.choice([4, 5, 5]), "words": rng.choice([1500, 2000])}
        return {"length": rng.choice([6, 7, 8]), "words": rng.choice([3000, 4000])}

    def _model(self, params: Params) -> _Words:
        return _build(self, params_key(params))

    def validate(self, params: Params) -> _Words:
        require_keys(self.name, params, ("length", "words"))
        length = require_int(self.name, params, "length", 3, 10)
        count = require_int(self.name, params, "words", 10, 8000)
        return _Words(length, count)

    def check_params(self, params: Params) -> None:
        self._model(params)

    def answers(self, params: Params) -> Sequence[str]:
        return self._model(params).words

    def solved_feedback(self, params: Params) -> str:
        return "G" * self._model(params).length

    def feedback_size(self, params: Params) -> int:
        """|Y| for T_info, never under the truth, so that T_info is never over-stated.

        A probe may be any L letters. At L = 4 the most distinct mark strings one probe
        gets over H is exact: the listed maximum equals the maximum over all 26^4 strings
        (checked). Beyond, that search is out of reach and an unlisted string may split a
        list more finely, so the bound takes every mark string that can occur: 3^L less the
        L strings with L - 1 greens and one yellow (the yellow's letter has no other place
        to be), and at most |H| of them."""
        m = self._model(params)
        if m.length <= 4:
            return m.feedback_size
        return min(3**m.length - m.length, len(m.words))

    def feedback_values(self, params: Params, probe: str) -> list[str]:
        length = self._model(params).length
        self.parse_probe(params, probe)
        return [self.feedback_label(params, probe, code) for code in range(3**length)]

    def _word(self, params: Params, text: str, what: str) -> str:
        m = self._model(params)
        text = bounded(text, what)
        parts = [t for t in tokens(text) if t not in {".", "!", '"', "'", "`", "[", "]"}]
        word = "".join(parts)
        if not _WORD.fullmatch(word) or len(word) != m.length:
            expected = (
                f"{m.length} letters a-z"
                if what == "a probe"
                else f"one English word of {m.length} letters a-z"
            )
            raise PuzzleError(f"expected {expected}; got {preview(text)}")
        return word

    def parse_probe(self, params: Params, text: str) -> str:
        # Any L letters: the feedback is defined for every string, listed or not.
        return self._word(params, text, "a probe")

    def parse_answer(self, params: Params, text: str) -> str:
        return self._word(params, text, "an answer")

    def feedback(self, params: Params, secret: str, probe: str, u: float) -> str:
        return wordle_marks(self.parse_answer(params, secret), self.parse_probe(params, probe))

    def feedback_all(self, params: Params, probe: str, index: Index | None = None) -> Codes:
        return self._model(params).codes(self.parse_probe(params, probe), index)

    def feedback_label(self, params: Params, probe: str, code: int) -> str:
        marks = []
        for _ in range(self._model(params).length):
            code, digit = divmod(code, 3)
            marks.append(_MARKS[digit])
        return "".join(marks)

    def feedback_code(self, params: Params, probe: str, feedback: str) -> int | None:
        length = self._model(params).length
        if len(feedback) != length or any(c not in _MARKS for c in feedback):
            return None
        return sum(_MARKS.index(c) * 3**i for i, c in enumerate(feedback))

    def rules_text(self, params: Params) -> str:
        m = self._model(params)
        first = m.words[len(m.words) // 2]
        return (
            f"The hidden answer is an English word of {m.length} letters, one of a fixed list:"
            f" the {m.count} most frequent lowercase words of {m.length} letters a-z in the"
            " wordfreq English word list, each equally likely.\n"
            f"Probe: any {m.length} letters a-z, e.g. {first}; a probe need not be a word or"
            " listed (only the hidden word is).\n"
            f"Feedback: {m.length} marks, one per letter of your probe: `G` the letter is in"
            " that place in the hidden word, `Y` the hidden word has the letter in another"
            " place, `-` it has no (more) copies of it. A repeated letter is marked Y only as"
            " many times as the hidden word has it beyond its G places, leftmost first; e.g."
            f" hidden `abbey`, probe `babes` gives `YYGG-`. `{'G' * m.length}` means your"
            " probe is the hidden word.\n"
            f"Answer: the hidden word, e.g. {first}."
        )

    def candidate_probes(
        self, params: Params, rng: random.Random, limit: int, plausible: Sequence[str] = ()
    ) -> list[str]:
        words = self._model(params).words
        if len(words) <= limit:
            return list(words)
        chosen = dict.fromkeys(plausible[: limit // 2])
        for i in rng.sample(range(len(words)), limit):
            if len(chosen) >= limit:
                break
            chosen[words[i]] = None
        return list(chosen)

    def canonical_formats(self, params: Params) -> tuple[str, str]:
        return "the hidden word, lowercase", "any string of the word's length, letters a-z"

    def edge_probe_texts(self, params: Params, secret: str, rng: random.Random) -> list[str]:
        """``secret`` reversed, one letter repeated, rotated by one, and sorted."""
        # Repeated letters exercise the duplicate rule; a reversal moves every letter.
        texts = [secret[::-1], secret[0] * len(secret), secret[1:] + secret[0]]
        texts.append("".join(sorted(secret)))
        return texts

    def off_pool_probe(
        self, params: Params, rng: random.Random, secret: str | None = None
    ) -> str | None:
        """Two times in five, a string of letters that need not be a listed word."""
        if rng.random() >= 0.4:
            return None
        length = self._model(params).length
        # A small alphabet makes repeated letters, and letters the secret has, common.
        letters = rng.choice([_LETTERS, "aeinorst", (secret or "") + "etaoin"])
        return "".join(rng.choice(letters) for _ in range(length))


@lru_cache(maxsize=32)
def _build(kind: Wordle, key: str) -> _Words:
    return kind.validate(json.loads(key))
