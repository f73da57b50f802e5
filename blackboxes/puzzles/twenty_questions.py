"""Twenty questions about a hidden whole number, in a small grammar of yes/no questions."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

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
from blackboxes.puzzles._text import bounded, preview, single_int, spread_order

if TYPE_CHECKING:
    from blackboxes.box import Level

__all__ = ["TwentyQuestions"]

FORMS = ("compare", "parity", "divisible", "set")
"""Question forms, in canonical order: `<= k`, `>= k`, `between a and b`; `even`, `odd`;
`divisible by k`; `= k`, `in {a,b,...}`."""
_LABELS = ("no", "yes")
_NUMBER = r"([0-9]{1,9})"
_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), canonical)
    for pattern, canonical in (
        (r"(?:<=|=<|≤|at most|no more than|not more than|less than or equal to) ?" + _NUMBER, "le"),
        (r"(?:<|less than|smaller than|fewer than|below|under) ?" + _NUMBER, "lt"),
        (
            r"(?:>=|=>|≥|at least|no less than|not less than|greater than or equal to"
            r"|more than or equal to) ?" + _NUMBER,
            "ge",
        ),
        (r"(?:>|greater than|more than|bigger than|larger than|above|over) ?" + _NUMBER, "gt"),
        (r"(?:between|from|in) ?" + _NUMBER + r" ?(?:and|to|-|–|\.\.) ?" + _NUMBER, "between"),
        (r"(?:an? )?(even|odd)(?: number)?", "parity"),
        (r"(?:divisible by|a multiple of|multiple of) ?" + _NUMBER, "divisible"),
        (r"(?:=|==|equal to|equals|exactly)? ?" + _NUMBER, "eq"),
        (r"(?:in|one of|among|in the set) ?[\[{(]? ?([0-9][0-9, or]*?) ?[\]})]?", "set"),
        (r"([0-9]{1,9}(?: ?, ?[0-9]{1,9})* ?,? or [0-9]{1,9})", "set"),
    )
)
_LEAD = re.compile(
    r"^(?:is (?:it|the number|the hidden number|n|x)|does it|it is|it's|x|n|the number)\b ?"
)
_FILLERS = frozenset({"it", "is", "the", "number", "answer", "my", "guess"})


@dataclass(frozen=True)
class _Model:
    top: int
    """The secret is in [1, top]."""
    forms: tuple[str, ...]
    set_max: int

    @cached_property
    def answers(self) -> list[str]:
        return [str(i) for i in range(1, self.top + 1)]


@dataclass(frozen=True)
class _Question:
    form: str
    """One of le, ge, between, even, odd, divisible, set (set covers `= k`)."""
    values: tuple[int, ...]

    def name(self) -> str:
        if self.form == "le":
            return f"<= {self.values[0]}"
        if self.form == "ge":
            return f">= {self.values[0]}"
        if self.form == "between":
            return f"between {self.values[0]} and {self.values[1]}"
        if self.form in ("even", "odd"):
            return self.form
        if self.form == "divisible":
            return f"divisible by {self.values[0]}"
        if len(self.values) == 1:
            return f"= {self.values[0]}"
        return "in {" + ",".join(map(str, self.values)) + "}"

    def holds(self, x: int) -> bool:
        """The reference answer for secret ``x``."""
        v = self.values
        return {
            "le": lambda: x <= v[0],
            "ge": lambda: x >= v[0],
            "between": lambda: v[0] <= x <= v[1],
            "even": lambda: x % 2 == 0,
            "odd": lambda: x % 2 == 1,
            "divisible": lambda: x % v[0] == 0,
            "set": lambda: x in v,
        }[self.form]()


_FORM_OF = {
    "le": "compare",
    "ge": "compare",
    "between": "compare",
    "even": "parity",
    "odd": "parity",
    "divisible": "divisible",
    "set": "set",
}


@register_puzzle
class TwentyQuestions(DeterministicKind):
    """A hidden number in 1..N; yes/no questions from the allowed forms."""

    name: ClassVar[str] = "twenty_questions"
    title: ClassVar[str] = "Twenty questions"
    levels: ClassVar[tuple[Level, ...]] = ("easy", "hard")

    def sample_params(self, rng: random.Random, level: Level) -> dict[str, Any]:
        if self.require_level(level) == "easy":
            return {"n": rng.randrange(50, 501, 10), "forms": list(FORMS), "set_max": 20}
        # No order questions: only divisibility and small sets, so most questions split
        # the candidates unevenly (fewer bits per probe).
        return {
            "n": rng.randrange(100, 401, 10),
            "forms": ["divisible", "set"],
            "set_max": rng.randint(3, 8),
        }

    def _model(self, params: Params) -> _Model:
        return _build(self, params_key(params))

    def validate(self, params: Params) -> _Model:
        require_keys(self.name, params, ("forms", "n", "set_max"))
        top = require_int(self.name, params, "n", 2, 100_000)
        forms = params["forms"]
        if (
            not isinstance(forms, list)
            or not forms
            or not all(isinstance(f, str) and f in FORMS for f in forms)
            or forms != sorted(set(forms), key=FORMS.index)
        ):
            raise PuzzleError(
                f"{self.name} parameter 'forms' must list some of {', '.join(FORMS)} in that order"
            )
        set_max = require_int(self.name, params, "set_max", 1, 100)
        if "set" not in forms and "compare" not in forms:
            # Parity and divisibility alone cannot tell 1 from primes beyond the last divisor.
            raise PuzzleError(f"{self.name} parameter 'forms' must include compare or set")
        return _Model(top, tuple(forms), set_max)

    def check_params(self, params: Params) -> None:
        self._model(params)

    def answers(self, params: Params) -> Sequence[str]:
        return self._model(params).answers

    def answer_count(self, params: Params) -> int:
        return self._model(params).top

    def answer_at(self, params: Params, index: int) -> str:
        return str(index + 1)

    def feedback_size(self, params: Params) -> int:
        self._model(params)
        return 2  # `= 1` (or `<= 1`) is answered yes by 1 and no by 2

    def feedback_values(self, params: Params, probe: str) -> list[str]:
        self.parse_probe(params, probe)
        return list(_LABELS)

    def _examples(self, m: _Model) -> list[str]:
        k = max(1, m.top // 3)
        out = []
        if "compare" in m.forms:
            out += [f"<= {k}", f">= {k}", f"between {k} and {min(m.top, 2 * k)}"]
        if "parity" in m.forms:
            out += ["even", "odd"]
        if "divisible" in m.forms:
            out += ["divisible by 3"]
        if "set" in m.forms:
            out += [f"= {k}", "in {" + ",".join(str(k + i) for i in range(min(3, m.set_max))) + "}"]
        return out

    def _question(self, params: Params, text: str) -> _Question:
        m = self._model(params)
        raw = bounded(text, "a probe")
        low = re.sub(r"\s+", " ", raw.strip().lower()).rstrip("?. ").strip()
        low = _LEAD.sub("", low).strip()
        expected = "a question of the form " + ", ".join(f"`{e}`" for e in self._examples(m))
        for pattern, kind in _PATTERNS:
            found = pattern.fullmatch(low)
            if found is None:
                continue
            question = self._canonical(m, kind, found.groups(), raw, expected)
            if _FORM_OF[question.form] not in m.forms:
                raise PuzzleError(f"that form of question is not allowed here; expected {expected}")
            return question
        raise PuzzleError(f"expected {expected}; got {preview(raw)}")

    def _canonical(
        self, m: _Model, kind: str, groups: tuple[str, ...], raw: str, expected: str
    ) -> _Question:
        def number(s: str, lo: int = 1) -> int:
            value = int(s)
            if not lo <= value <= m.top:
                raise PuzzleError(
                    f"expected numbers from {lo} to {m.top} in {expected}; got {preview(raw)}"
                )
            return value

        if kind == "parity":
            return _Question(groups[0], ())
        if kind == "le":
            return _Question("le", (number(groups[0]),))
        if kind == "lt":
            return _Question("le", (number(str(int(groups[0]) - 1)),))
        if kind == "ge":
            return _Question("ge", (number(groups[0]),))
        if kind == "gt":
            return _Question("ge", (number(str(int(groups[0]) + 1)),))
        if kind == "between":
            a, b = sorted((number(groups[0]), number(groups[1])))
            return _Question("set", (a,)) if a == b else _Question("between", (a, b))
        if kind == "divisible":
            return _Question("divisible", (number(groups[0], lo=2),))
        if kind == "eq":
            return _Question("set", (number(groups[0]),))
        items = [s for s in re.split(r"\s*(?:,|\bor\b|\s)\s*", groups[0]) if s]
        if not all(s.isdigit() for s in items):
            raise PuzzleError(f"expected {expected}; got {preview(raw)}")
        values = sorted({number(s) for s in items})  # a repeated number counts once
        if not values or len(values) > m.set_max:
            raise PuzzleError(
                f"a set question lists 1 to {m.set_max} numbers;"
                f" got {len(values)} in {preview(raw)}"
            )
        return _Question("set", tuple(values))

    def parse_probe(self, params: Params, text: str) -> str:
        return self._question(params, text).name()

    def parse_answer(self, params: Params, text: str) -> str:
        top = self._model(params).top
        text = bounded(text, "an answer")
        expected = f"a whole number from 1 to {top}, e.g. {max(1, top // 3)}"
        return str(single_int(text, 1, top, expected, _FILLERS))

    def feedback(self, params: Params, secret: str, probe: str, u: float) -> str:
        x = int(self.parse_answer(params, secret))
        return _LABELS[self._question(params, probe).holds(x)]

    def feedback_all(self, params: Params, probe: str, index: Index | None = None) -> Codes:
        q = self._question(params, probe)
        x = np.arange(1, self._model(params).top + 1, dtype=np.int64)
        x = x if index is None else x[index]
        v = q.values
        if q.form == "le":
            yes = x <= v[0]
        elif q.form == "ge":
            yes = x >= v[0]
        elif q.form == "between":
            yes = (v[0] <= x) & (x <= v[1])
        elif q.form in ("even", "odd"):
            yes = x % 2 == (0 if q.form == "even" else 1)
        elif q.form == "divisible":
            yes = x % v[0] == 0
        else:
            yes = np.isin(x, np.array(v, dtype=np.int64))
        return yes.astype(np.int64)

    def feedback_label(self, params: Params, probe: str, code: int) -> str:
        return _LABELS[code]

    def feedback_code(self, params: Params, probe: str, feedback: str) -> int | None:
        return _LABELS.index(feedback) if feedback in _LABELS else None

    def rules_text(self, params: Params) -> str:
        m = self._model(params)
        lines = []
        if "compare" in m.forms:
            lines.append(
                "`<= k` (is it at most k?), `>= k` (at least k?), `between a and b` (from a"
                " to b, both included?)"
            )
        if "parity" in m.forms:
            lines.append("`even`, `odd`")
        if "divisible" in m.forms:
            lines.append(f"`divisible by k` for k from 2 to {m.top}")
        if "set" in m.forms:
            lines.append(f"`= k`, and `in {{a,b,c}}` listing 1 to {m.set_max} numbers")
        return (
            f"The hidden answer is a whole number from 1 to {m.top}, each equally likely.\n"
            "Probe: one yes/no question about it, in one of these forms (numbers from 1 to"
            f" {m.top}): " + "; ".join(lines) + f". E.g. `{self._examples(m)[0]}`.\n"
            "Feedback: `yes` or `no`, the true answer to your question.\n"
            f"Answer: the hidden number, e.g. {max(1, m.top // 3)}."
        )

    def candidate_probes(
        self, params: Params, rng: random.Random, limit: int, plausible: Sequence[str] = ()
    ) -> list[str]:
        m = self._model(params)
        values = sorted(int(v) for v in plausible) or list(range(1, m.top + 1))
        chosen: dict[str, None] = {}

        def add(q: _Question) -> None:
            if len(chosen) < limit:
                chosen[q.name()] = None

        if "compare" in m.forms:
            # Thresholds at quantiles of the plausible numbers: the bisections.
            steps = min(len(values), limit // 4)
            for i in range(1, steps + 1):
                add(
                    _Question("le", (values[min(len(values) - 1, i * len(values) // (steps + 1))],))
                )
        if "parity" in m.forms:
            add(_Question("even", ()))
        if "divisible" in m.forms:
            for k in range(2, min(m.top, 60) + 1):
                add(_Question("divisible", (k,)))
        if "set" in m.forms:
            shuffled = rng.sample(values, len(values))
            for i in range(0, len(shuffled), m.set_max):
                add(_Question("set", tuple(sorted(shuffled[i : i + m.set_max]))))
            for v in shuffled:
                add(_Question("set", (v,)))
        return list(chosen)

    def fixed_plan(self, params: Params, turns: int) -> list[str]:
        """With order questions: bisection thresholds in spread order. Without: divisibility
        by the prime powers q <= N / set_max (each says more than a set can), then sets
        covering 1..N in blocks."""
        m = self._model(params)
        plan: list[str] = []
        if "compare" in m.forms:
            plan = [f"<= {v + 1}" for v in spread_order(m.top) if v + 1 < m.top]
        else:
            if "divisible" in m.forms:
                plan += [f"divisible by {q}" for q in _prime_powers(m.top // m.set_max)]
            plan += [
                _Question("set", tuple(range(s, min(m.top, s + m.set_max - 1) + 1))).name()
                for s in range(1, m.top + 1, m.set_max)
            ]
        plan = plan or [f"= {v}" for v in range(1, m.top + 1)]
        return [plan[i % len(plan)] for i in range(turns)]

    def canonical_formats(self, params: Params) -> tuple[str, str]:
        return (
            "the number in decimal, e.g. `42`",
            "one question: `<= k`, `>= k`, `between a and b` (a < b), `even`, `odd`,"
            " `divisible by k`, `= k` or `in {a,b,c}` (2 or more numbers, rising)",
        )

    def edge_probe_texts(self, params: Params, secret: str, rng: random.Random) -> list[str]:
        """Every form of question with ``secret`` at, just inside and just outside its
        bounds (the forms the box does not allow are dropped)."""
        s = int(secret)
        texts = [f"= {s}", f"<= {s}", f"<= {s - 1}", f">= {s}", f">= {s + 1}", "even", "odd"]
        texts += [f"between {s} and {s + 1}", f"between {s - 1} and {s}", f"divisible by {s}"]
        texts += ["in {" + f"{s - 1},{s + 1}" + "}", "in {" + f"{s},{s + 1}" + "}"]
        return texts


def _prime_powers(top: int) -> list[int]:
    """2, 3, 4, 5, 7, 8, 9, 11, ...: the prime powers up to ``top``, rising."""
    out = []
    for q in range(2, top + 1):
        p = next(d for d in range(2, q + 1) if q % d == 0)  # the smallest prime factor
        rest = q
        while rest % p == 0:
            rest //= p
        if rest == 1:
            out.append(q)
    return out


@lru_cache(maxsize=32)
def _build(kind: TwentyQuestions, key: str) -> _Model:
    return kind.validate(json.loads(key))
