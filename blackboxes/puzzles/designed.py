"""A puzzle an LLM designed (``oracle-gen --category IPI --design llm``).

The designer writes the public rules and lists the possible hidden answers; a probe is a
guess, one of those answers. Only the box's code defines the feedback, so the generator
measures it once the code passed every check: the feedback of every probe for every
secret, kept in the parameters as a table (``feedback``: the distinct feedback strings,
``labels``, and one row per probe of one code character per secret). The table is as
public as the rules it tabulates, and with it the kind is as exact as a drawn one: the
version space, |Y| and T_info follow from it, and the box's replies must match it.

A designed puzzle is never drawn (``drawn = False``): it exists only as the rule of a
designed box.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Mapping, Sequence
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

if TYPE_CHECKING:
    from blackboxes.box import Level

__all__ = [  # noqa: RUF022 (plain sorted order, tests/test_layout.py)
    "CODE_CHARS",
    "DesignedPuzzle",
    "MAX_ANSWER_CHARS",
    "MAX_DESIGNED_ANSWERS",
    "MAX_FEEDBACK_CHARS",
    "MAX_LABELS",
    "MAX_RULES_CHARS",
    "MAX_TITLE_CHARS",
    "feedback_table",
]

MAX_DESIGNED_ANSWERS = 256
"""Most answers a designed puzzle may list: its table has one entry per (probe, secret)."""
MAX_ANSWER_CHARS = 40
MAX_FEEDBACK_CHARS = 60
MAX_RULES_CHARS = 4000
MAX_TITLE_CHARS = 60
CODE_CHARS = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ+/"
"""One character per feedback code in a row of the table."""
MAX_LABELS = len(CODE_CHARS)
"""Most distinct feedback strings a designed puzzle may give (over all probes)."""

U_CHECKS = 64
"""(probe, secret) pairs measured again near u = 1, to catch a designed box using u."""
U_TOP = math.nextafter(1.0, 0.0)

_KEYS = frozenset({"title", "rules", "answers", "feedback"})
_WRAPPING = " \t\r\n`'\"."


def _fold(text: str) -> str:
    """The lenient form probes and answers are matched in: case and spacing never
    matter, nor wrapping quotes or a final full stop."""
    return " ".join(text.strip(_WRAPPING).casefold().split())


def _printable(text: str) -> bool:
    return text.isprintable() and text == text.strip() and bool(text)


@dataclass(frozen=True)
class _Model:
    title: str
    answers: tuple[str, ...]
    labels: tuple[str, ...] | None
    rows: tuple[str, ...] | None

    @cached_property
    def index(self) -> dict[str, int]:
        return {_fold(a): i for i, a in enumerate(self.answers)}

    @cached_property
    def codes(self) -> np.ndarray[Any, np.dtype[np.int64]]:
        """codes[p, s]: the feedback code of probe ``p`` for secret ``s``."""
        if self.rows is None:
            raise PuzzleError("this designed puzzle's feedback has not been measured")
        lookup = {c: i for i, c in enumerate(CODE_CHARS)}
        return np.array([[lookup[c] for c in row] for row in self.rows], dtype=np.int64)


def _check(params: Params) -> _Model:
    if not isinstance(params, Mapping):
        raise PuzzleError("designed puzzle parameters are an object")
    keys = set(params)
    if not {"title", "rules", "answers"} <= keys <= _KEYS:
        raise PuzzleError(
            "designed puzzle parameters are title, rules, answers and (measured) feedback"
        )
    title, rules, answers = params["title"], params["rules"], params["answers"]
    if not isinstance(title, str) or not _printable(title) or len(title) > MAX_TITLE_CHARS:
        raise PuzzleError(f"the title is one line of 1 to {MAX_TITLE_CHARS} characters")
    if not isinstance(rules, str) or not rules.strip() or len(rules) > MAX_RULES_CHARS:
        raise PuzzleError(f"the rules are text of 1 to {MAX_RULES_CHARS} characters")
    if not isinstance(answers, list) or not 2 <= len(answers) <= MAX_DESIGNED_ANSWERS:
        raise PuzzleError(f"the answers are a list of 2 to {MAX_DESIGNED_ANSWERS} strings")
    folded: set[str] = set()
    for answer in answers:
        if not isinstance(answer, str) or not _printable(answer):
            raise PuzzleError(f"answer {str(answer)[:40]!r} is not one line of printable text")
        if len(answer) > MAX_ANSWER_CHARS or _fold(answer) != " ".join(answer.casefold().split()):
            raise PuzzleError(
                f"answer {answer[:40]!r}: at most {MAX_ANSWER_CHARS} characters, single spaces,"
                " no wrapping quotes or final full stop"
            )
        if _fold(answer) in folded:
            raise PuzzleError(f"answer {answer!r} is listed twice (case and spacing aside)")
        folded.add(_fold(answer))
    labels: tuple[str, ...] | None = None
    rows: tuple[str, ...] | None = None
    if "feedback" in params:
        labels, rows = _check_table(params["feedback"], len(answers))
    return _Model(title, tuple(answers), labels, rows)


def _check_table(table: object, n: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
    if not isinstance(table, Mapping) or set(table) != {"labels", "rows"}:
        raise PuzzleError("a designed puzzle's feedback is an object of labels and rows")
    labels, rows = table["labels"], table["rows"]
    if not isinstance(labels, list) or not 1 <= len(labels) <= MAX_LABELS:
        raise PuzzleError(f"a designed puzzle gives 1 to {MAX_LABELS} distinct feedbacks")
    for label in labels:
        if not isinstance(label, str) or not _printable(label) or len(label) > MAX_FEEDBACK_CHARS:
            raise PuzzleError(
                f"feedback {str(label)[:40]!r} is not one line of 1 to {MAX_FEEDBACK_CHARS}"
                " printable characters"
            )
    if len(set(labels)) != len(labels):
        raise PuzzleError("a designed puzzle's feedback labels are distinct")
    allowed = set(CODE_CHARS[: len(labels)])
    if not isinstance(rows, list) or len(rows) != n:
        raise PuzzleError(f"a designed puzzle's feedback has one row per probe ({n})")
    for row in rows:
        if not isinstance(row, str) or len(row) != n or not set(row) <= allowed:
            raise PuzzleError(f"a feedback row is {n} codes of the {len(labels)} labels")
    return tuple(labels), tuple(rows)


@lru_cache(maxsize=64)
def _model(key: str) -> _Model:
    return _check(json.loads(key))


def feedback_table(
    answers: Sequence[str], outputs: Sequence[Sequence[str]]
) -> dict[str, list[str]]:
    """The ``feedback`` parameter from measured outputs: ``outputs[p][s]`` is the
    feedback of probe ``answers[p]`` for secret ``answers[s]``. Labels are numbered in
    the order they first appear (probe by probe, secret by secret)."""
    labels: dict[str, int] = {}
    rows = []
    for row in outputs:
        chars = []
        for value in row:
            code = labels.setdefault(value, len(labels))
            if code >= MAX_LABELS:
                raise PuzzleError(
                    f"the puzzle gives more than {MAX_LABELS} distinct feedbacks; a designed"
                    " puzzle gives at most that many"
                )
            chars.append(CODE_CHARS[code])
        rows.append("".join(chars))
    if len(rows) != len(answers):
        raise PuzzleError(f"the table has {len(rows)} rows for {len(answers)} answers")
    return {"labels": list(labels), "rows": rows}


@register_puzzle
class DesignedPuzzle(DeterministicKind):
    """A designed puzzle: public rules, listed answers, guesses as probes, measured feedback."""

    name: ClassVar[str] = "designed"
    title: ClassVar[str] = "a designed puzzle"
    levels: ClassVar[tuple[Level, ...]] = ("easy", "hard")
    shares_format: ClassVar[bool] = True
    drawn: ClassVar[bool] = False

    def _model(self, params: Params) -> _Model:
        return _model(params_key(params))

    def _measured(self, params: Params) -> _Model:
        model = self._model(params)
        if model.rows is None:
            raise PuzzleError("this designed puzzle's feedback has not been measured")
        return model

    def sample_params(self, rng: random.Random, level: Level) -> dict[str, Any]:
        raise PuzzleError("a designed puzzle comes from oracle-gen --design llm, never a draw")

    def check_params(self, params: Params) -> None:
        self._model(params)

    def display_title(self, params: Params) -> str:
        return self._model(params).title

    def spec_params(self, params: Params) -> dict[str, Any]:
        return {k: v for k, v in params.items() if k != "feedback"}

    def canonical_formats(self, params: Params) -> tuple[str, str]:
        example = self._example(self._model(params))
        listed = f"one of the listed answers, exactly as listed, e.g. `{example}`"
        return listed, listed

    # -- measured from the box's code ----------------------------------------
    def measurement_triples(self, params: Params) -> list[tuple[str, str, float]]:
        """Every probe against every secret at u = 0, then a sample of them again just
        below u = 1: the feedback table, and the check that it does not depend on u."""
        answers = self._model(params).answers
        table = [(s, p, 0.0) for p in answers for s in answers]
        step = max(1, len(table) // U_CHECKS)
        return table + [(s, p, U_TOP) for s, p, _ in table[::step]]

    def with_measurements(self, params: Params, replies: Sequence[object]) -> dict[str, Any]:
        """The parameters with the feedback table; PuzzleError when a reply is not short
        text, the feedback depends on u, takes too many values or tells nothing."""
        answers = self._model(params).answers
        n = len(answers)
        step = max(1, (n * n) // U_CHECKS)
        checks = range(0, n * n, step)
        if len(replies) != n * n + len(checks):
            raise PuzzleError(
                f"the measurement has {len(replies)} replies, not {n * n + len(checks)}"
            )
        texts: list[str] = []
        for value in replies:
            if (
                not isinstance(value, str)
                or not _printable(value)
                or len(value) > MAX_FEEDBACK_CHARS
                or value != " ".join(value.split())
            ):
                raise PuzzleError(
                    f"feedback {str(value)[:40]!r} is not one line of 1 to {MAX_FEEDBACK_CHARS}"
                    " printable characters with single spaces"
                )
            texts.append(value)
        for i, again in zip(checks, texts[n * n :], strict=True):
            if again != texts[i]:
                probe, secret = answers[i // n], answers[i % n]
                raise PuzzleError(
                    f"the feedback for probe {probe!r} and secret {secret!r} is {texts[i]!r} at"
                    f" u = 0 but {again!r} near u = 1: a designed puzzle ignores u"
                )
        rows = [texts[p * n : (p + 1) * n] for p in range(n)]
        if all(len(set(row)) == 1 for row in rows):
            raise PuzzleError("every probe gets one feedback whatever the secret: nothing to learn")
        return {**self.spec_params(params), "feedback": feedback_table(answers, rows)}

    # -- secrets -------------------------------------------------------------
    def answers(self, params: Params) -> Sequence[str]:
        return self._model(params).answers

    def solved_feedback(self, params: Params) -> str | None:
        model = self._measured(params)
        diagonal = {int(model.codes[i, i]) for i in range(len(model.answers))}
        if len(diagonal) != 1:
            return None
        code = diagonal.pop()
        # Only when guessing right says something no wrong guess ever does.
        off = model.codes[~np.eye(len(model.answers), dtype=bool)]
        return None if bool((off == code).any()) else self._label(model, code)

    # -- feedback ------------------------------------------------------------
    def _label(self, model: _Model, code: int) -> str:
        if model.labels is None or not 0 <= code < len(model.labels):
            raise PuzzleError(f"no feedback code {code}")
        return model.labels[code]

    def _row(self, params: Params, probe: str) -> tuple[_Model, int]:
        model = self._measured(params)
        return model, model.index[_fold(self.parse_probe(params, probe))]

    def feedback_size(self, params: Params) -> int:
        codes = self._measured(params).codes
        return max(len(np.unique(row)) for row in codes)

    def feedback_values(self, params: Params, probe: str) -> list[str]:
        model, p = self._row(params, probe)
        return [self._label(model, int(c)) for c in np.unique(model.codes[p])]

    def feedback(self, params: Params, secret: str, probe: str, u: float) -> str:
        model, p = self._row(params, probe)
        s = model.index.get(_fold(secret))
        if s is None or model.answers[s] != secret:
            raise PuzzleError(f"{secret[:40]!r} is no secret of this puzzle")
        return self._label(model, int(model.codes[p, s]))

    def feedback_all(self, params: Params, probe: str, index: Index | None = None) -> Codes:
        model, p = self._row(params, probe)
        row = model.codes[p]
        return row.copy() if index is None else row[index]

    def feedback_label(self, params: Params, probe: str, code: int) -> str:
        return self._label(self._measured(params), code)

    def feedback_code(self, params: Params, probe: str, feedback: str) -> int | None:
        model, p = self._row(params, probe)
        if model.labels is None or feedback not in model.labels:
            return None
        code = model.labels.index(feedback)
        return code if bool((model.codes[p] == code).any()) else None

    # -- text ----------------------------------------------------------------
    def _example(self, model: _Model) -> str:
        return model.answers[len(model.answers) // 3]

    def parse_probe(self, params: Params, text: str) -> str:
        model = self._model(params)
        if not isinstance(text, str) or len(text) > 4 * MAX_ANSWER_CHARS:
            raise PuzzleError(f"a probe is one of the answers, e.g. {self._example(model)}")
        found = model.index.get(_fold(text))
        if found is None:
            raise PuzzleError(
                f"a probe is one of the {len(model.answers)} possible answers, e.g."
                f" {self._example(model)}"
            )
        return model.answers[found]

    def parse_answer(self, params: Params, text: str) -> str:
        model = self._model(params)
        if not isinstance(text, str) or not text.strip() or len(text) > 4 * MAX_ANSWER_CHARS:
            raise PuzzleError(f"an answer is one of the answers, e.g. {self._example(model)}")
        found = model.index.get(_fold(text))
        # An answer that is not listed is well formed, and wrong.
        return model.answers[found] if found is not None else " ".join(text.split())

    def rules_text(self, params: Params) -> str:
        model = self._model(params)
        rules = params["rules"].strip()
        listing = ", ".join(model.answers)
        return (
            f"{rules}\n"
            f"The hidden answer is one of these {len(model.answers)}, each equally likely:"
            f" {listing}.\n"
            "Probe: any one of them (a guess). Answer: one of them, written as listed."
        )

    # -- baselines -----------------------------------------------------------
    def candidate_probes(
        self,
        params: Params,
        rng: random.Random,
        limit: int,
        plausible: Sequence[str] = (),
    ) -> list[str]:
        answers = list(self._model(params).answers)
        if len(answers) <= limit:
            return answers
        listed = set(answers)
        out = dict.fromkeys(p for p in plausible[: limit // 2] if p in listed)
        for probe in rng.sample(answers, limit):
            if len(out) >= limit:
                break
            out.setdefault(probe, None)
        return list(out)
