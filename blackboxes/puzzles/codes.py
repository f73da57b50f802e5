"""Code breaking: Mastermind (coloured pegs) and Bulls and Cows (distinct digits)."""

from __future__ import annotations

import itertools
import json
import math
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import numpy.typing as npt

from blackboxes.puzzles._base import (
    MAX_ANSWERS,
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

__all__ = ["BullsAndCows", "Mastermind"]

_SEPARATORS = frozenset(",;[](){}'\"-/|.")
Table = npt.NDArray[np.int8]


def _symbols(text: str, letters: bool) -> list[str]:
    """The letters (or the digits) of ``text`` one by one, separators dropped; anything
    else is an error the caller reports."""
    out: list[str] = []
    for token in tokens(text):
        if token in _SEPARATORS:
            continue
        if token.isdigit() == letters or not token.isascii():
            raise ValueError(token)
        out.extend(token)
    return out


def _grid(count: int, width: int, base: int) -> Table:
    """Every tuple of ``width`` symbols below ``base``, in lexicographic order."""
    idx = np.arange(count, dtype=np.int64)
    cols = [(idx // base ** (width - 1 - j)) % base for j in range(width)]
    return np.stack(cols, axis=1).astype(np.int8)


# -- Mastermind -------------------------------------------------------------------------


@dataclass(frozen=True)
class _Code:
    pegs: int
    colours: int

    @property
    def alphabet(self) -> str:
        return "ABCDEFGHIJ"[: self.colours]

    @cached_property
    def table(self) -> Table:
        return _grid(self.colours**self.pegs, self.pegs, self.colours)

    @cached_property
    def counts(self) -> Table:
        t = self.table
        return np.stack([(t == c).sum(axis=1) for c in range(self.colours)], axis=1).astype(np.int8)

    @cached_property
    def answers(self) -> list[str]:
        return ["".join(c) for c in itertools.product(self.alphabet, repeat=self.pegs)]

    @cached_property
    def feedback_size(self) -> int:
        # The feedback of a probe depends only on how many pegs share each colour (relabel
        # colours, permute positions): one probe per partition of P into <= C parts.
        best = 0
        for parts in _partitions(self.pegs, self.colours):
            probe = "".join(self.alphabet[i] * k for i, k in enumerate(parts))
            best = max(best, len(np.unique(_mastermind_codes(self, probe, None))))
        return best


def _partitions(n: int, most: int, largest: int | None = None) -> list[tuple[int, ...]]:
    """Partitions of ``n`` into at most ``most`` parts, each at most ``largest``."""
    largest = n if largest is None else largest
    if n == 0:
        return [()]
    if most == 0:
        return []
    return [
        (k, *rest)
        for k in range(min(n, largest), 0, -1)
        for rest in _partitions(n - k, most - 1, k)
    ]


def _mastermind_codes(model: _Code, probe: str, index: Index | None) -> Codes:
    p = np.array([model.alphabet.index(c) for c in probe], dtype=np.int8)
    table = model.table if index is None else model.table[index]
    counts = model.counts if index is None else model.counts[index]
    probe_counts = np.bincount(p, minlength=model.colours).astype(np.int8)
    black = (table == p).sum(axis=1, dtype=np.int64)
    total = np.minimum(counts, probe_counts).sum(axis=1, dtype=np.int64)
    return black * (model.pegs + 1) + (total - black)


@register_puzzle
class Mastermind(DeterministicKind):
    """P pegs of C colours (repeats allowed); black = right colour, right place; white =
    right colour, wrong place (counted with multiplicity)."""

    name: ClassVar[str] = "mastermind"
    title: ClassVar[str] = "Mastermind"
    levels: ClassVar[tuple[Level, ...]] = ("easy", "hard")
    shares_format: ClassVar[bool] = True

    def sample_params(self, rng: random.Random, level: Level) -> dict[str, Any]:
        if self.require_level(level) == "easy":
            pegs, colours = rng.choice([(3, 6), (3, 8), (4, 4), (4, 5), (4, 6)])
        else:
            pegs, colours = rng.choice([(5, 6), (5, 7), (5, 8), (6, 5), (6, 6)])
        return {"pegs": pegs, "colours": colours}

    def _model(self, params: Params) -> _Code:
        return _build_code(self, params_key(params))

    def validate(self, params: Params) -> _Code:
        require_keys(self.name, params, ("colours", "pegs"))
        pegs = require_int(self.name, params, "pegs", 2, 8)
        colours = require_int(self.name, params, "colours", 2, 10)
        if colours**pegs > MAX_ANSWERS:
            raise PuzzleError(f"{self.name}: {colours}^{pegs} codes exceed {MAX_ANSWERS}")
        return _Code(pegs, colours)

    def check_params(self, params: Params) -> None:
        self._model(params)

    def answers(self, params: Params) -> Sequence[str]:
        return self._model(params).answers

    def answer_count(self, params: Params) -> int:
        m = self._model(params)
        return m.colours**m.pegs

    def answer_at(self, params: Params, index: int) -> str:
        m = self._model(params)
        return "".join(m.alphabet[int(c)] for c in m.table[index])

    def solved_feedback(self, params: Params) -> str:
        return f"B{self._model(params).pegs} W0"

    def feedback_size(self, params: Params) -> int:
        return self._model(params).feedback_size

    def feedback_values(self, params: Params, probe: str) -> list[str]:
        pegs = self._model(params).pegs
        self.parse_probe(params, probe)
        return [
            f"B{b} W{w}"
            for b in range(pegs + 1)
            for w in range(pegs + 1 - b)
            if (b, w) != (pegs - 1, 1)
        ]

    def _parse(self, params: Params, text: str, what: str) -> str:
        m = self._model(params)
        text = bounded(text, what)
        example = (m.alphabet * m.pegs)[1 : m.pegs + 1]
        expected = (
            f"{m.pegs} colour letters from {m.alphabet[0]}-{m.alphabet[-1]}"
            f" (repeats allowed), e.g. {example}"
        )
        try:
            letters = _symbols(text, letters=True)
        except ValueError:
            raise PuzzleError(f"expected {expected}; got {preview(text)}") from None
        code = "".join(letters).upper()
        if len(code) != m.pegs or any(c not in m.alphabet for c in code):
            raise PuzzleError(f"expected {expected}; got {preview(text)}")
        return code

    def parse_probe(self, params: Params, text: str) -> str:
        return self._parse(params, text, "a probe")

    def parse_answer(self, params: Params, text: str) -> str:
        return self._parse(params, text, "an answer")

    def feedback(self, params: Params, secret: str, probe: str, u: float) -> str:
        s, p = self.parse_answer(params, secret), self.parse_probe(params, probe)
        black = sum(a == b for a, b in zip(s, p, strict=True))
        common = sum((Counter(s) & Counter(p)).values())
        return f"B{black} W{common - black}"

    def feedback_all(self, params: Params, probe: str, index: Index | None = None) -> Codes:
        return _mastermind_codes(self._model(params), self.parse_probe(params, probe), index)

    def feedback_label(self, params: Params, probe: str, code: int) -> str:
        b, w = divmod(code, self._model(params).pegs + 1)
        return f"B{b} W{w}"

    def feedback_code(self, params: Params, probe: str, feedback: str) -> int | None:
        if feedback not in self.feedback_values(params, probe):
            return None
        b, w = (int(part[1:]) for part in feedback.split())
        return b * (self._model(params).pegs + 1) + w

    def rules_text(self, params: Params) -> str:
        m = self._model(params)
        letters = ", ".join(m.alphabet)
        example = (m.alphabet * m.pegs)[1 : m.pegs + 1]
        return (
            f"The hidden answer is a code of {m.pegs} pegs, each one of {m.colours} colours"
            f" ({letters}); colours may repeat, and each of the {m.colours}^{m.pegs} codes is"
            " equally likely.\n"
            f"Probe: a code of {m.pegs} colour letters, e.g. {example}.\n"
            "Feedback: `B<b> W<w>`, where b counts pegs of the right colour in the right"
            " place, and w counts further pegs of a colour the hidden code has but in the"
            " wrong place (each hidden peg is matched at most once); e.g. `B1 W2`."
            f" `B{m.pegs} W0` means your probe is the hidden code.\n"
            f"Answer: the hidden code, e.g. {example}."
        )

    def candidate_probes(
        self, params: Params, rng: random.Random, limit: int, plausible: Sequence[str] = ()
    ) -> list[str]:
        m = self._model(params)
        total = m.colours**m.pegs
        if total <= limit:
            return list(m.answers)
        chosen = dict.fromkeys(plausible[: limit // 2])
        while len(chosen) < limit:
            chosen[self.answer_at(params, rng.randrange(total))] = None
        return list(chosen)

    def canonical_formats(self, params: Params) -> tuple[str, str]:
        return "the colour letters, e.g. `ABCA`", "the colour letters, e.g. `BBCD`"

    def template_context(self, params: Params) -> dict[str, Any]:
        """The parameters and the colour letters (``alphabet``)."""
        return {**params, "alphabet": self._model(params).alphabet}


@lru_cache(maxsize=32)
def _build_code(kind: Mastermind, key: str) -> _Code:
    return kind.validate(json.loads(key))


# -- Bulls and Cows ---------------------------------------------------------------------


@dataclass(frozen=True)
class _Digits:
    length: int
    digits: int

    @cached_property
    def table(self) -> Table:
        rows = list(itertools.permutations(range(self.digits), self.length))
        return np.array(rows, dtype=np.int8).reshape(len(rows), self.length)

    @cached_property
    def present(self) -> npt.NDArray[np.bool_]:
        out = np.zeros((len(self.table), self.digits), dtype=bool)
        for j in range(self.length):
            out[np.arange(len(self.table)), self.table[:, j]] = True
        return out

    @cached_property
    def answers(self) -> list[str]:
        return ["".join(str(d) for d in row) for row in self.table.tolist()]

    @cached_property
    def feedback_size(self) -> int:
        # Every probe (distinct digits) is every other one up to relabelling digits and
        # permuting positions, so one probe shows them all.
        probe = "".join(str(d) for d in range(self.length))
        return len(np.unique(_bulls_codes(self, probe, None)))


def _bulls_codes(model: _Digits, probe: str, index: Index | None) -> Codes:
    p = np.array([int(c) for c in probe], dtype=np.int8)
    table = model.table if index is None else model.table[index]
    present = model.present if index is None else model.present[index]
    bulls = (table == p).sum(axis=1, dtype=np.int64)
    common = present[:, p].sum(axis=1, dtype=np.int64)
    return bulls * (model.length + 1) + (common - bulls)


@register_puzzle
class BullsAndCows(DeterministicKind):
    """A code of n distinct digits; bulls = right digit, right place; cows = right digit,
    wrong place. Probes have distinct digits too."""

    name: ClassVar[str] = "bulls_and_cows"
    title: ClassVar[str] = "Bulls and Cows"
    levels: ClassVar[tuple[Level, ...]] = ("easy", "hard")
    shares_format: ClassVar[bool] = True

    def sample_params(self, rng: random.Random, level: Level) -> dict[str, Any]:
        if self.require_level(level) == "easy":
            length, digits = rng.choice([(3, 8), (3, 10), (4, 7), (4, 8)])
        else:
            length, digits = rng.choice([(4, 10), (5, 9), (5, 10), (6, 8), (6, 9)])
        return {"length": length, "digits": digits}

    def _model(self, params: Params) -> _Digits:
        return _build_digits(self, params_key(params))

    def validate(self, params: Params) -> _Digits:
        require_keys(self.name, params, ("digits", "length"))
        length = require_int(self.name, params, "length", 2, 8)
        digits = require_int(self.name, params, "digits", length + 1, 10)
        if math.perm(digits, length) > MAX_ANSWERS:
            raise PuzzleError(
                f"{self.name}: {math.perm(digits, length)} codes exceed {MAX_ANSWERS}"
            )
        return _Digits(length, digits)

    def check_params(self, params: Params) -> None:
        self._model(params)

    def answers(self, params: Params) -> Sequence[str]:
        return self._model(params).answers

    def answer_count(self, params: Params) -> int:
        m = self._model(params)
        return math.perm(m.digits, m.length)

    def answer_at(self, params: Params, index: int) -> str:
        return "".join(str(int(d)) for d in self._model(params).table[index])

    def solved_feedback(self, params: Params) -> str:
        return f"{self._model(params).length}B0C"

    def feedback_size(self, params: Params) -> int:
        return self._model(params).feedback_size

    def feedback_values(self, params: Params, probe: str) -> list[str]:
        m = self._model(params)
        self.parse_probe(params, probe)
        least = max(0, 2 * m.length - m.digits)  # pigeonhole: digits both codes must share
        return [
            f"{b}B{c}C"
            for b in range(m.length + 1)
            for c in range(m.length + 1 - b)
            if b + c >= least and (b, c) != (m.length - 1, 1)
        ]

    def _parse(self, params: Params, text: str, what: str) -> str:
        m = self._model(params)
        text = bounded(text, what)
        top = m.digits - 1
        expected = f"{m.length} different digits from 0-{top}, e.g. " + "".join(
            str((d + 1) % m.digits) for d in range(m.length)
        )
        try:
            code = "".join(_symbols(text, letters=False))
        except ValueError:
            raise PuzzleError(f"expected {expected}; got {preview(text)}") from None
        if len(code) != m.length or any(int(c) > top for c in code):
            raise PuzzleError(f"expected {expected}; got {preview(text)}")
        if len(set(code)) != len(code):
            raise PuzzleError(f"expected {expected}; {code} repeats a digit")
        return code

    def parse_probe(self, params: Params, text: str) -> str:
        return self._parse(params, text, "a probe")

    def parse_answer(self, params: Params, text: str) -> str:
        return self._parse(params, text, "an answer")

    def feedback(self, params: Params, secret: str, probe: str, u: float) -> str:
        s, p = self.parse_answer(params, secret), self.parse_probe(params, probe)
        bulls = sum(a == b for a, b in zip(s, p, strict=True))
        cows = len(set(s) & set(p)) - bulls
        return f"{bulls}B{cows}C"

    def feedback_all(self, params: Params, probe: str, index: Index | None = None) -> Codes:
        return _bulls_codes(self._model(params), self.parse_probe(params, probe), index)

    def feedback_label(self, params: Params, probe: str, code: int) -> str:
        b, c = divmod(code, self._model(params).length + 1)
        return f"{b}B{c}C"

    def feedback_code(self, params: Params, probe: str, feedback: str) -> int | None:
        if feedback not in self.feedback_values(params, probe):
            return None
        b, c = feedback[:-1].split("B")
        return int(b) * (self._model(params).length + 1) + int(c)

    def rules_text(self, params: Params) -> str:
        m = self._model(params)
        example = "".join(str((d + 1) % m.digits) for d in range(m.length))
        return (
            f"The hidden answer is a code of {m.length} different digits from 0-{m.digits - 1}"
            f" (a leading 0 is allowed), each of the {math.perm(m.digits, m.length)} codes"
            " equally likely.\n"
            f"Probe: a code of {m.length} different digits from 0-{m.digits - 1},"
            f" e.g. {example}.\n"
            "Feedback: `<b>B<c>C`, where b (bulls) counts digits in the right place and c"
            " (cows) counts digits of the hidden code that are in your probe but in another"
            f" place; e.g. `1B2C`. `{m.length}B0C` means your probe is the hidden code.\n"
            f"Answer: the hidden code, e.g. {example}."
        )

    def candidate_probes(
        self, params: Params, rng: random.Random, limit: int, plausible: Sequence[str] = ()
    ) -> list[str]:
        m = self._model(params)
        total = math.perm(m.digits, m.length)
        if total <= limit:
            return list(m.answers)
        chosen = dict.fromkeys(plausible[: limit // 2])
        while len(chosen) < limit:
            chosen[self.answer_at(params, rng.randrange(total))] = None
        return list(chosen)

    def canonical_formats(self, params: Params) -> tuple[str, str]:
        return "the digits, e.g. `0123`", "the digits, e.g. `4567`"

    def template_context(self, params: Params) -> dict[str, Any]:
        """The parameters and the digits in play (``symbols``)."""
        return {**params, "symbols": "0123456789"[: self._model(params).digits]}


@lru_cache(maxsize=32)
def _build_digits(kind: BullsAndCows, key: str) -> _Digits:
    return kind.validate(json.loads(key))
