"""The PSI family: physics system inference (a time t -> every object's coordinates)."""

from __future__ import annotations

import math
import random
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache
from typing import Any, ClassVar, Literal, cast, get_args

import numpy as np

from blackboxes.box import JSONValue, Level
from blackboxes.families import register_family
from blackboxes.families._base import Family, HypothesisSpace, Rule
from blackboxes.families.psi._answers import (
    ABS_TOL,
    REL_TOL,
    parse_coordinates,
    render_coordinates,
    wrong_objects,
)
from blackboxes.families.psi._kind import (
    DECIMALS,
    T_MAX,
    T_STEP,
    TIMES,
    PhysicsKind,
    object_names,
)
from blackboxes.families.psi._kinds import KINDS, LEVEL_KINDS
from blackboxes.families.psi._particles import ParticleSpace
from blackboxes.families.psi._plan import spread_times
from blackboxes.families.psi._space import SLACK, output_cells, time_index
from blackboxes.families.psi._table import table_of
from blackboxes.information import MixtureVersionSpace, VersionSpace
from oracle_bench.errors import FamilyError, InvalidQueryError, UnknownNameError, UsageError

__all__ = ["ANSWER_MODES", "PhysicsSystemInference"]

AnswerMode = Literal["values", "code"]
ANSWER_MODES: tuple[AnswerMode, ...] = get_args(AnswerMode)

DISTINCT_STEPS = 5
"""Fine steps after which two values of a parameter are observably distinct: one step
moves some coordinate by at least 0.002 m (tests/blackboxes/psi/test_kinds.py), so five
move it by an output unit, 0.01 m."""

_DESIGNED_SHAPE = (1, 2)
"""An LLM-designed system: one object in the plane, as its designer is told."""

_QUERY = re.compile(r"^\s*(?:t\s*[=:]?\s*)?([-+]?\d+(?:\.\d+)?)\s*(?:s|sec|seconds?)?\s*$", re.I)

_FRAME = {
    2: "(x, y) in metres in the plane of the motion, y up when that plane is vertical",
    3: "(x, y, z) in metres, x and y horizontal and z vertical (up)",
}

_INTRO = (
    "You are exploring a black box that simulates a hidden mechanical system of {objects} "
    "object(s). The system, its laws and its parameters are hidden; time starts at t = 0.",
    "Query: send one time t in seconds, 0 <= t <= {t_max:g}, a multiple of {step:g}, for "
    "example {example} or t = {example}. Anything else is rejected (and costs the turn).",
    "Answer: the position of every object at that time, {frame}, rounded to {decimals} "
    "decimals, as {shape}. The box is deterministic.",
)
_VALUES_EVAL = (
    "Evaluation: after exploring, you are given {items} new times (none of them one you "
    "queried) and must state every object's coordinates at each, in the same form. A "
    "coordinate c is right when |c - e| <= {abs_tol:g} + {rel_tol:g} * |e| for the true value "
    "e; an answer is right when every coordinate of every object is."
)
_CODE_EVAL = (
    "Evaluation: after exploring, you submit a Python program defining solution(t) that "
    "returns every object's coordinates at time t as a dict such as {dict_example}. It runs "
    "in a sandbox (plain Python; only the math module may be imported) at {items} held-out "
    "times in [0, {t_max:g}] unknown to you, and each time is right when every coordinate c "
    "of every object satisfies |c - e| <= {abs_tol:g} + {rel_tol:g} * |e|."
)

_CODER_NOTES = (
    "blackbox(t) takes a time t in seconds (a float, 0 <= t <= {t_max:g}; any value in the "
    "range, not only the query grid) and returns a dict mapping 'object1', 'object2', ... to "
    "a list of the object's coordinates, each rounded with round(value, {decimals}). Plain "
    "Python with the math module only: there is no numpy or scipy, so use closed forms, or "
    "for motion without one a fixed-step RK4 integrator from t = 0 (a step of at most 0.002 "
    "s, the last step shortened to land exactly on t, so the result depends on t alone)."
)


@dataclass(frozen=True)
class _Settings:
    answers: AnswerMode = "values"
    objects: int | None = None
    """Set when serving one box: its objects and dimensions."""
    dims: int | None = None


@register_family
class PhysicsSystemInference(Family):
    """PSI: a hidden mechanical system maps a time t to every object's coordinates.

    Protocol. X: t in [0, 20] s, a multiple of 0.1 (201 queries). Y: each object's
    coordinates in metres rounded to 2 decimals, ``{"object1": [x, y], ...}``. Held-out
    times are uniform over the times not queried. An answer is right when every
    coordinate c satisfies |c - e| <= 0.02 + 0.002 |e|; the trajectory records which
    objects were wrong. With ``answers="code"`` the agent instead submits a program
    ``solution(t)``, run only in the sandbox and scored at every held-out time.
    Parameters are points of a fine grid over realistic ranges (the resolution the
    tolerance distinguishes), and log2|H| counts them (an estimate); the version space
    is a particle set refined by least squares (``_particles``).
    """

    name: ClassVar[str] = "PSI"
    title: ClassVar[str] = "Physics system inference"
    test_items: ClassVar[int] = 10
    entry_signature: ClassVar[str] = "t"
    # Before the first answer the prior's entropy is saturated (the coarse grids answer
    # differently at almost every time) and ranks times by noise, about a bit apart:
    # within this margin adaptive keeps to the spread plan (its first query, at least).
    plan_margin: ClassVar[float | None] = 1.5
    coder_notes: ClassVar[str] = _CODER_NOTES.format(t_max=T_MAX, decimals=DECIMALS)
    question_text: ClassVar[str] = "What are the coordinates of every object at this time?"

    def __init__(self, settings: _Settings | None = None) -> None:
        self.settings = settings or _Settings()

    @property
    def answers_as_code(self) -> bool:
        return self.settings.answers == "code"

    def configure(self, **options: Any) -> PhysicsSystemInference:
        """Options: ``answers`` (``values``, the default, or ``code``)."""
        unknown = set(options) - {"answers"}
        if unknown:
            raise UsageError(f"category PSI takes no option {', '.join(sorted(unknown))}")
        mode = options.get("answers")
        if mode is None:
            return self
        if mode not in ANSWER_MODES:
            raise UsageError(f"--answers must be one of {', '.join(ANSWER_MODES)}, not {mode!r}")
        return PhysicsSystemInference(replace(self.settings, answers=cast(AnswerMode, mode)))

    # -- interface -----------------------------------------------------------
    def _shape(self) -> tuple[int, int]:
        s = self.settings
        return (s.objects, s.dims) if s.objects is not None and s.dims is not None else (1, 2)

    def interface_of(self, rule: Rule) -> dict[str, JSONValue]:
        kind = KINDS.get(rule.kind)
        objects, dims = _DESIGNED_SHAPE if kind is None else (kind.objects, kind.dims)
        return {"objects": objects, "dims": dims, "answers": self.settings.answers}

    def for_interface(self, interface: Mapping[str, JSONValue]) -> PhysicsSystemInference:
        """A box's family: its objects, dimensions and answer mode from box.json."""
        unknown = set(interface) - {"objects", "dims", "answers"}
        if unknown:
            raise FamilyError(f"unknown PSI interface setting {', '.join(sorted(unknown))}")
        objects, dims, answers = (interface.get(k) for k in ("objects", "dims", "answers"))
        if not isinstance(objects, int) or isinstance(objects, bool) or not 1 <= objects <= 8:
            raise FamilyError(f"PSI box interface: objects must be 1..8, got {objects!r}")
        if dims not in (2, 3) or isinstance(dims, bool):
            raise FamilyError(f"PSI box interface: dims must be 2 or 3, got {dims!r}")
        if answers not in ANSWER_MODES:
            raise FamilyError(f"PSI box interface: unknown answer mode {answers!r}")
        return PhysicsSystemInference(
            _Settings(cast(AnswerMode, answers), objects, cast(int, dims))
        )

    def prior_key(self, level: Level) -> tuple[str | int, ...]:
        return (self.name, level, *self._shape())

    # -- rules ---------------------------------------------------------------
    def kinds(self, level: Level) -> tuple[str, ...]:
        if level not in LEVEL_KINDS:
            raise UnknownNameError("level", str(level), list(LEVEL_KINDS))
        return LEVEL_KINDS[level]

    def _kind(self, kind: str, level: Level) -> PhysicsKind:
        if kind not in self.kinds(level):
            raise UnknownNameError(f"PSI {level} rule kind", kind, list(self.kinds(level)))
        return KINDS[kind]

    def _rule(self, kind: PhysicsKind, level: Level, params: Mapping[str, JSONValue]) -> Rule:
        checked = kind.check_params(params)
        names = object_names(kind.objects)

        def fn(t: JSONValue) -> JSONValue:
            if isinstance(t, bool) or not isinstance(t, int | float) or not 0 <= t <= T_MAX:
                raise InvalidQueryError(f"a PSI query is a time in [0, {T_MAX:g}], got {t!r}")
            pos = kind.reference(checked, np.array([float(t)]))[0]
            return {n: [round(float(c), DECIMALS) for c in pos[i]] for i, n in enumerate(names)}

        return Rule(
            family=self.name,
            kind=kind.name,
            level=level,
            params=cast(dict[str, JSONValue], checked),
            description=kind.describe(checked) + "\n" + _output_spec(kind.objects, kind.dims),
            fn=fn,
        )

    def sample_rule(self, rng: random.Random, level: Level, kind: str | None = None) -> Rule:
        """Uniform kind unless given, then a uniform grid point of it."""
        name = rng.choice(self.kinds(level)) if kind is None else kind
        spec = self._kind(name, level)
        return self._rule(spec, level, spec.sample_params(rng))

    def rule_from_params(self, kind: str, level: Level, params: Mapping[str, JSONValue]) -> Rule:
        return self._rule(self._kind(kind, level), level, params)

    def hypothesis_space(self, kind: str, level: Level) -> HypothesisSpace:
        """log2|H| = log2 of the kind's admissible fine points (the resolution the answer
        tolerance distinguishes; an estimate); ``low`` counts them DISTINCT_STEPS steps
        apart, where points are observably distinct (and at least the coarse grid's
        distinct points); log2|Y| from the range the coarse grid reaches."""
        spec = self._kind(kind, level)
        table = table_of(spec)
        stepped = sum(q.step is not None for q in spec.params)
        spread = spec.log2_size - stepped * math.log2(DISTINCT_STEPS)
        return HypothesisSpace(
            log2_h=spec.log2_size,
            log2_y=table.log2_y,
            exact=False,
            low=max(math.log2(table.distinct), spread),
            high=spec.log2_size,
        )

    def _prior_names(self, level: Level) -> tuple[str, ...]:
        """The level's kinds with this box's objects and dimensions: the agents' prior."""
        shape = self._shape()
        names = tuple(k for k in self.kinds(level) if (KINDS[k].objects, KINDS[k].dims) == shape)
        if not names:
            raise FamilyError(f"no PSI {level} kind has {shape[0]} object(s) in {shape[1]}-D")
        return names

    def version_space(self, level: Level, kind: str | None = None) -> VersionSpace:
        if kind is not None:
            # Measuring an episode on the box's own kind: an answer the particle search
            # cannot place counts no information rather than being called impossible.
            return _prior_space(self._kind(kind, level).name, strict=False)
        names = self._prior_names(level)
        parts = []
        for k in names:
            parts.append((k, 1.0 / len(names), KINDS[k].log2_size, _prior_space(k, strict=True)))
        return MixtureVersionSpace(parts)

    # -- code ----------------------------------------------------------------
    def code_template(self, rule: Rule) -> tuple[str, dict[str, Any]]:
        kind = KINDS[rule.kind]
        context = kind.template_context({k: float(cast(float, v)) for k, v in rule.params.items()})
        return kind.template, {**context, "objects": list(object_names(kind.objects))}

    # -- protocol ------------------------------------------------------------
    def task_intro(self, level: Level) -> str:
        objects, dims = self._shape()
        lines = [
            line.format(
                objects=objects,
                t_max=T_MAX,
                step=T_STEP,
                example="3.4",
                frame=_FRAME[dims],
                decimals=DECIMALS,
                shape=self._shape_example(),
            )
            for line in _INTRO
        ]
        template = _CODE_EVAL if self.answers_as_code else _VALUES_EVAL
        lines.append(
            template.format(
                items=self.test_items,
                abs_tol=ABS_TOL,
                rel_tol=REL_TOL,
                t_max=T_MAX,
                dict_example=self._dict_example(),
            )
        )
        return "\n\n".join(lines)

    def _example_output(self) -> dict[str, list[float]]:
        objects, dims = self._shape()
        sample = [1.25, -0.5, 3.0]
        return {
            n: [sample[(i + d) % 3] for d in range(dims)]
            for i, n in enumerate(object_names(objects))
        }

    def _shape_example(self) -> str:
        return render_coordinates(self._example_output())

    def _dict_example(self) -> str:
        return repr(self._example_output())

    @property
    def input_schema(self) -> str:
        return f"a time t in seconds, 0 <= t <= {T_MAX:g}, a multiple of {T_STEP:g}"

    @property
    def output_schema(self) -> str:
        objects, dims = self._shape()
        return (
            f"each of {objects} object(s)' {dims}-D coordinates in metres rounded to "
            f"{DECIMALS} decimals"
        )

    def parse_query(self, text: str) -> JSONValue:
        m = _QUERY.match(text)
        if m is None:
            raise InvalidQueryError(
                f"send one time in seconds, such as 3.4 (0 <= t <= {T_MAX:g}), got {text!r}"[:300]
            )
        value = float(m.group(1))
        t = round(value, 1)
        if abs(t - value) > 1e-9 or time_index(t) is None:
            raise InvalidQueryError(
                f"t must be a multiple of {T_STEP:g} in [0, {T_MAX:g}], got {m.group(1)}"
            )
        return t + 0.0  # -0.0 -> 0.0

    def format_query(self, x: JSONValue) -> str:
        return f"{float(x):.1f}"

    def render_output(self, y: JSONValue) -> str:
        if not isinstance(y, Mapping) or not y:
            raise ValueError(f"a PSI output is a dict of coordinates, got {y!r}"[:200])
        for coords in y.values():
            if not isinstance(coords, list | tuple) or not all(
                isinstance(c, int | float) and not isinstance(c, bool) and math.isfinite(c)
                for c in coords
            ):
                raise ValueError(f"not a list of coordinates: {coords!r}"[:200])
        return render_coordinates(y)

    def output_fits(self, y: JSONValue) -> bool:
        """The interface's objects and dimensions, finite values already rounded."""
        objects, dims = self._shape()
        cells = output_cells(y, objects, dims)
        if cells is None:
            return False
        values = [c for name in object_names(objects) for c in cast(Mapping[str, Any], y)[name]]
        return all(round(float(c), DECIMALS) == c for c in values)

    def outputs_agree(self, got: JSONValue, expected: JSONValue) -> bool:
        """Within one output unit per coordinate (a rounding tie either way), far inside
        the answer tolerance."""
        if not isinstance(expected, Mapping):
            return got == expected
        objects, dims = len(expected), len(next(iter(expected.values()), []))
        a, b = output_cells(got, objects, dims), output_cells(expected, objects, dims)
        return a is not None and b is not None and bool(np.all(np.abs(a - b) <= SLACK))

    def normalise_answer(self, text: str) -> str:
        objects, dims = self._shape()
        stated = parse_coordinates(text, objects, dims)
        return text.strip() if stated is None else render_coordinates(stated)

    def check_answer(self, expected: JSONValue, answer: str) -> bool:
        return not self.wrong_parts(expected, answer) and isinstance(expected, Mapping)

    def wrong_parts(self, expected: JSONValue, answer: str) -> list[str]:
        """The objects the answer got wrong (every object when it is unreadable)."""
        if not isinstance(expected, Mapping) or not expected:
            return ["answer"]
        dims = len(next(iter(expected.values())))
        return wrong_objects(expected, parse_coordinates(answer, len(expected), dims))

    # -- answers as code -----------------------------------------------------
    def solution_source(self, predictions: Sequence[tuple[JSONValue, JSONValue]]) -> str:
        """A ``solution(t)`` program answering ``predictions`` (query time, output) at the
        nearest listed time: how a baseline states its model as code."""
        rows = {round(float(t) / T_STEP): y for t, y in predictions}
        body = ",\n".join(f"    {i}: {y!r}" for i, y in sorted(rows.items()))
        return (
            "TABLE = {\n" + body + ",\n}\n\n\n"
            "def solution(t):\n"
            f"    i = int(round(t / {T_STEP!r}))\n"
            "    keys = sorted(TABLE)\n"
            "    best = min(keys, key=lambda k: abs(k - i))\n"
            "    return TABLE[best]\n"
        )

    def domain(self) -> list[JSONValue]:
        """Every valid query (a baseline's program tabulates its model on them)."""
        return list(TIMES)

    # -- inputs --------------------------------------------------------------
    def random_query(self, rng: random.Random) -> JSONValue:
        return rng.choice(TIMES)

    def exploration_plan(self, level: Level, turns: int) -> list[JSONValue]:
        """Times spread by the golden ratio (10.0, 2.4, 14.7, 7.1, ... s): each prefix
        nearly even and never in step with a period (see ``_plan``)."""
        return list(spread_times(turns))

    def query_pool(
        self,
        rng: random.Random,
        level: Level,
        n: int,
        asked: Sequence[JSONValue] = (),
    ) -> list[JSONValue]:
        """Every time not asked yet (``n`` is a floor, not a cap): 201 candidates at most,
        and scoring one is a count over the consistent particles, few after one answer."""
        taken = {time_index(t) for t in asked}
        free = [t for i, t in enumerate(TIMES) if i not in taken]
        rng.shuffle(free)
        return free

    def test_inputs(
        self, rng: random.Random, k: int, exclude: Collection[JSONValue]
    ) -> list[JSONValue]:
        taken = {time_index(t) for t in exclude}
        free = [t for i, t in enumerate(TIMES) if i not in taken]
        return sorted(rng.sample(free, min(k, len(free))))

    def differential_inputs(self, rng: random.Random, n: int) -> list[JSONValue]:
        """The ends, then query times, then times off the query grid (the box's function
        is defined on the whole interval)."""
        edges: list[JSONValue] = [0.0, T_MAX]
        grid = rng.sample(TIMES[1:-1], min(len(TIMES) - 2, max(0, (n - 2) // 2)))
        off = [round(rng.uniform(0.0, T_MAX), 4) for _ in range(max(0, n - 2 - len(grid)))]
        return (edges + grid + off)[:n]


@cache
def _prior_space(kind: str, strict: bool) -> ParticleSpace:
    """One prior space per kind and mode, shared: spaces are immutable, and an answer
    seen before (the same first query on the same box at every budget) is not refitted."""
    return ParticleSpace(table_of(KINDS[kind]), strict=strict)


def _output_spec(objects: int, dims: int) -> str:
    names = ", ".join(repr(n) for n in object_names(objects))
    coords = "[x, y]" if dims == 2 else "[x, y, z]"
    return (
        f"Output: a dict with keys {names}; each value is the object's position: "
        f"{_FRAME[dims]}, as a list {coords}, every coordinate rounded to {DECIMALS} decimals."
    )
