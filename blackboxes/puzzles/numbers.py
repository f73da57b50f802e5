"""Guess a hidden whole number: far/close feedback, or higher/lower feedback."""

from __future__ import annotations

import json
import random
from abc import abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from blackboxes.puzzles._base import (
    MAX_ANSWERS,
    Codes,
    DeterministicKind,
    Index,
    Params,
    params_key,
    register_puzzle,
)
from blackboxes.puzzles._params import require_int, require_keys
from blackboxes.puzzles._text import bounded, single_int, spread_order

if TYPE_CHECKING:
    from blackboxes.box import Level

__all__ = ["NumberFarClose", "NumberHigherLower"]

_FILLERS = frozenset({"guess", "probe", "answer", "number", "is", "it", "my", "the", "secret"})


@dataclass(frozen=True)
class _Model:
    top: int
    """The secret is in [0, top]."""
    close: int
    """far_close: |probe - secret| <= close is "close" (0 for higher_lower)."""

    @cached_property
    def answers(self) -> list[str]:
        return [str(i) for i in range(self.top + 1)]

    @cached_property
    def values(self) -> Codes:
        return np.arange(self.top + 1, dtype=np.int64)


class _NumberKind(DeterministicKind):
    """A secret integer in [0, N]; probes are integers in the same range."""

    shares_format: ClassVar[bool] = True
    labels: ClassVar[tuple[str, str, str]]
    keys: ClassVar[tuple[str, ...]]

    def _model(self, params: Params) -> _Model:
        return _build(self, params_key(params))

    def validate(self, params: Params) -> _Model:
        """The model of ``params``, or PuzzleError."""
        require_keys(self.name, params, self.keys)
        top = require_int(self.name, params, "n", 2, MAX_ANSWERS - 1)
        close = require_int(self.name, params, "close", 1, top - 1) if "close" in self.keys else 0
        return _Model(top, close)

    def check_params(self, params: Params) -> None:
        self._model(params)

    def answers(self, params: Params) -> Sequence[str]:
        return self._model(params).answers

    def answer_count(self, params: Params) -> int:
        return self._model(params).top + 1

    def answer_at(self, params: Params, index: int) -> str:
        return str(index)

    def solved_feedback(self, params: Params) -> str:
        return "correct"

    def feedback_size(self, params: Params) -> int:
        self._model(params)
        # Validation keeps N > d >= 1 (far_close), so probe 0 can get all three.
        return 3

    def feedback_values(self, params: Params, probe: str) -> list[str]:
        self.parse_probe(params, probe)
        return list(self.labels)

    def _expected(self, model: _Model) -> str:
        return f"a whole number from 0 to {model.top}, e.g. {model.top // 3}"

    def parse_probe(self, params: Params, text: str) -> str:
        model = self._model(params)
        text = bounded(text, "a probe")
        return str(single_int(text, 0, model.top, self._expected(model), _FILLERS))

    def parse_answer(self, params: Params, text: str) -> str:
        model = self._model(params)
        text = bounded(text, "an answer")
        return str(single_int(text, 0, model.top, self._expected(model), _FILLERS))

    @abstractmethod
    def _code(self, model: _Model, secret: int, probe: int) -> int:
        """The feedback code of ``probe`` when the secret is ``secret``."""

    def feedback(self, params: Params, secret: str, probe: str, u: float) -> str:
        model = self._model(params)
        s, p = int(self.parse_answer(params, secret)), int(self.parse_probe(params, probe))
        return self.labels[self._code(model, s, p)]

    def feedback_label(self, params: Params, probe: str, code: int) -> str:
        return self.labels[code]

    def feedback_code(self, params: Params, probe: str, feedback: str) -> int | None:
        return self.labels.index(feedback) if feedback in self.labels else None

    def candidate_probes(
        self, params: Params, rng: random.Random, limit: int, plausible: Sequence[str] = ()
    ) -> list[str]:
        model = self._model(params)
        n = model.top + 1
        if n <= limit:
            return model.answers[:]
        chosen: dict[int, None] = {}
        # Probes at quantiles of the plausible secrets split them; for far_close also the
        # probes d away, whose "close" window ends at a quantile.
        values = sorted(int(v) for v in plausible)
        for q in range(min(len(values), limit // 3)):
            v = values[(q * len(values)) // max(1, min(len(values), limit // 3))]
            for p in (v, v - model.close, v + model.close) if model.close else (v,):
                if 0 <= p <= model.top and len(chosen) < (2 * limit) // 3:
                    chosen[p] = None
        while len(chosen) < limit:
            chosen[rng.randrange(n)] = None
        return [str(p) for p in chosen]

    def canonical_formats(self, params: Params) -> tuple[str, str]:
        return "the number in decimal, e.g. `42`", "the number in decimal"

    def edge_probe_texts(self, params: Params, secret: str, rng: random.Random) -> list[str]:
        """Both ends of the range and, either side of ``secret``, the numbers 1, d and
        d + 1 away (d the close window; 1 for higher/lower, which has none)."""
        model = self._model(params)
        s, top, close = int(secret), model.top, model.close or 1
        texts = [str(v) for v in (0, top, s - 1, s + 1, s - close, s + close) if 0 <= v <= top]
        texts += [str(v) for v in (s - close - 1, s + close + 1) if 0 <= v <= top]
        return texts


@lru_cache(maxsize=64)
def _build(kind: _NumberKind, key: str) -> _Model:
    return kind.validate(json.loads(key))


@register_puzzle
class NumberFarClose(_NumberKind):
    """ORACLE's number guessing: only "far" or "close" (within d) until it is right."""

    name: ClassVar[str] = "number_far_close"
    title: ClassVar[str] = "Number guessing, far or close"
    levels: ClassVar[tuple[Level, ...]] = ("easy", "hard")
    labels: ClassVar[tuple[str, str, str]] = ("far", "close", "correct")
    keys: ClassVar[tuple[str, ...]] = ("close", "n")

    def sample_params(self, rng: random.Random, level: Level) -> dict[str, Any]:
        if self.require_level(level) == "easy":
            return {"n": rng.randrange(60, 161, 10), "close": rng.randint(5, 15)}
        # A narrow window on a wide range: most probes say only "far".
        return {"n": rng.randrange(300, 1001, 50), "close": rng.randint(8, 25)}

    def _code(self, model: _Model, secret: int, probe: int) -> int:
        diff = abs(secret - probe)
        return 2 if diff == 0 else 1 if diff <= model.close else 0

    def feedback_all(self, params: Params, probe: str, index: Index | None = None) -> Codes:
        model = self._model(params)
        values = model.values if index is None else model.values[index]
        diff = np.abs(values - int(self.parse_probe(params, probe)))
        return np.where(diff == 0, 2, np.where(diff <= model.close, 1, 0)).astype(np.int64)

    def rules_text(self, params: Params) -> str:
        model = self._model(params)
        return (
            f"The hidden answer is a whole number from 0 to {model.top}, each equally likely.\n"
            f"Probe: send one whole number from 0 to {model.top}, e.g. {model.top // 3}.\n"
            f"Feedback: one word, `correct` if your number is the hidden one, `close` if it"
            f" differs from it by at most {model.close}, `far` if it differs by more.\n"
            f"Answer: the hidden number, e.g. {model.top // 3}."
        )

    def fixed_plan(self, params: Params, turns: int) -> list[str]:
        """A covering grid first (windows of 2d+1 side by side), then the same grid shifted
        by spread fractions of a window, then every other number."""
        model = self._model(params)
        width = 2 * model.close + 1
        plan: dict[int, None] = {}
        for shift in [0, *(s - model.close for s in spread_order(width) if s != model.close)]:
            for p in range(model.close + shift, model.top + 1, width):
                if p >= 0 and len(plan) < turns:
                    plan[p] = None
        for p in range(model.top + 1):
            if len(plan) >= turns:
                break
            plan[p] = None
        probes = [str(p) for p in plan]
        return [probes[i % len(probes)] for i in range(turns)]


@register_puzzle
class NumberHigherLower(_NumberKind):
    """The classic: "higher" or "lower" than the probe, until it is right."""

    name: ClassVar[str] = "number_higher_lower"
    title: ClassVar[str] = "Number guessing, higher or lower"
    levels: ClassVar[tuple[Level, ...]] = ("easy",)
    labels: ClassVar[tuple[str, str, str]] = ("lower", "higher", "correct")
    keys: ClassVar[tuple[str, ...]] = ("n",)

    def sample_params(self, rng: random.Random, level: Level) -> dict[str, Any]:
        self.require_level(level)
        return {"n": rng.choice([100, 200, 500, 1000])}

    def _code(self, model: _Model, secret: int, probe: int) -> int:
        return 2 if secret == probe else 1 if secret > probe else 0

    def feedback_all(self, params: Params, probe: str, index: Index | None = None) -> Codes:
        model = self._model(params)
        values = model.values if index is None else model.values[index]
        p = int(self.parse_probe(params, probe))
        return np.where(values == p, 2, np.where(values > p, 1, 0)).astype(np.int64)

    def rules_text(self, params: Params) -> str:
        model = self._model(params)
        return (
            f"The hidden answer is a whole number from 0 to {model.top}, each equally likely.\n"
            f"Probe: send one whole number from 0 to {model.top}, e.g. {model.top // 3}.\n"
            f"Feedback: one word, `correct` if your number is the hidden one, `higher` if"
            f" the hidden number is higher than yours, `lower` if it is lower.\n"
            f"Answer: the hidden number, e.g. {model.top // 3}."
        )

    def fixed_plan(self, params: Params, turns: int) -> list[str]:
        """Bisection points of [0, N] in spread order (1/2, 1/4, 3/4, 1/8, ...)."""
        model = self._model(params)
        probes = [str(p) for p in spread_order(model.top + 1)]
        return [probes[i % len(probes)] for i in range(turns)]
