"""The contract of one PSI kind: a mechanical system with parameters in realistic ranges.

Each parameter has a range and, unless it is categorical (a planet's g), a step: the
resolution at which the answer tolerance can tell two values apart somewhere in the
time domain (``benchmarks/psi/fine_steps.py`` derives it). A box's parameters are a
uniform admissible point of that fine grid, so log2|H| counts fine points (about 20 to
60 bits per kind). ``Param.values`` is a coarse sub-grid of it, the agents' starting
particles and what the fixed plan is computed on. The kind gives the motion twice:
:meth:`PhysicsKind.positions`, vectorised over many parameter combinations and times
(numpy; the particles and, unless the kind overrides it, the trusted reference), and
a Jinja template under ``templates/code/psi/`` rendering the box code (plain Python,
no numpy). Kinds whose motion has no closed form override :meth:`PhysicsKind.reference`
with SciPy's high-accuracy integrator, so the generator's differential test compares two
independent computations.
"""

from __future__ import annotations

import itertools
import math
import random
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from blackboxes.box import JSONValue, Level
from oracle_bench.errors import FamilyError

__all__ = [
    "DECIMALS",
    "MAX_GRID",
    "TIMES",
    "T_MAX",
    "T_STEP",
    "FloatArray",
    "Param",
    "PhysicsKind",
    "Values",
    "object_names",
    "span",
]

T_MAX = 20.0
"""Seconds: queries and held-out times lie in [0, T_MAX]."""
T_STEP = 0.1
"""Query precision: t is a multiple of 0.1 s (ORACLE's one decimal)."""
TIMES: tuple[float, ...] = tuple(round(i * T_STEP, 1) for i in range(round(T_MAX / T_STEP) + 1))
"""Every valid query, in order."""
DECIMALS = 2
"""Coordinates are rounded to 2 decimals (metres)."""
MAX_GRID = 4096
"""Most admissible combinations a kind's coarse grid may have (its starting particles)."""

Values = Mapping[str, npt.NDArray[np.float64]]
"""Parameter name -> an array of values, one per particle (broadcastable)."""
FloatArray = npt.NDArray[np.float64]


def span(lo: float, hi: float, step: float, digits: int = 6) -> tuple[float, ...]:
    """``lo, lo + step, ..., hi`` rounded to ``digits`` (grid values read well in JSON)."""
    count = round((hi - lo) / step)
    return tuple(round(lo + i * step, digits) for i in range(count + 1))


def object_names(count: int) -> tuple[str, ...]:
    """``object1 .. objectN``: neutral names, so a name says nothing of the system."""
    return tuple(f"object{i}" for i in range(1, count + 1))


@dataclass(frozen=True)
class Param:
    """One parameter: its coarse values, unit, what it is (for the description) and its
    fine step (None: categorical, ``values`` are all it takes)."""

    name: str
    values: tuple[float, ...]
    unit: str
    label: str
    step: float | None = None

    def __post_init__(self) -> None:
        if self.step is None:
            return
        if not self.step > 0:
            raise FamilyError(f"PSI parameter {self.name}: step must be positive")
        for v in self.values:
            k = (v - self.values[0]) / self.step
            if abs(k - round(k)) > 1e-6:
                raise FamilyError(f"PSI parameter {self.name}: {v} is not on its fine grid")

    @property
    def lo(self) -> float:
        return self.values[0]

    @property
    def hi(self) -> float:
        return self.values[-1]

    @property
    def count(self) -> int:
        """How many fine values the parameter takes."""
        if self.step is None:
            return len(self.values)
        return round((self.hi - self.lo) / self.step) + 1

    def fine(self, k: int) -> float:
        """The ``k``-th fine value, rounded so it reads as written in JSON."""
        if self.step is None:
            return self.values[k]
        return round(self.lo + k * self.step, 9) + 0.0

    def fine_index(self, value: float) -> int | None:
        """``value``'s fine index, or None when it is not a fine value."""
        if self.step is None:
            return self.values.index(value) if value in self.values else None
        k = round((value - self.lo) / self.step)
        return k if 0 <= k < self.count and abs(self.fine(k) - value) <= 1e-9 else None


class PhysicsKind(ABC):
    """One mechanical system at one level."""

    name: ClassVar[str]
    level: ClassVar[Level]
    objects: ClassVar[int] = 1
    dims: ClassVar[int] = 2
    """2: (x, y) with y up; 3: (x, y, z) with z up."""
    params: ClassVar[tuple[Param, ...]]
    """The grid: every parameter that changes the motion."""
    particles: ClassVar[int] = 512
    """Particles the version space keeps after an answer. Kinds that integrate an ODE
    keep fewer: every move simulates all of them over the whole domain."""
    nuisance: ClassVar[tuple[Param, ...]] = ()
    """Drawn and described but without effect on the motion (a falling ball's mass)."""

    # -- what a kind defines ----------------------------------------------------
    @abstractmethod
    def positions(self, p: Values, t: FloatArray) -> FloatArray:
        """Coordinates, shape (particles, len(t), objects, dims), for parameter arrays
        ``p`` (shape (particles,)) at times ``t`` (shape (times,), in [0, T_MAX])."""

    @abstractmethod
    def describe(self, p: Mapping[str, float]) -> str:
        """The coder's spec of one rule: the system, every parameter with its unit, the
        coordinate frame and what each object's coordinates are."""

    def admissible(self, p: Values) -> npt.NDArray[np.bool_]:
        """Which grid combinations are kept (e.g. a collision that happens in time)."""
        return np.ones(np.broadcast(*p.values()).shape, dtype=bool)

    def reference(self, p: Mapping[str, float], t: FloatArray) -> FloatArray:
        """The trusted reference, shape (len(t), objects, dims): by default
        :meth:`positions` of one particle (closed forms); ODE kinds use SciPy."""
        one = {k: np.array([float(v)]) for k, v in p.items()}
        return self.positions(one, np.asarray(t, dtype=float))[0]

    def template_context(self, p: Mapping[str, float]) -> dict[str, Any]:
        """What the kind's template is rendered with (default: the parameters)."""
        return dict(p)

    @property
    def template(self) -> str:
        return f"code/psi/{self.name}.py.j2"

    # -- the grid -----------------------------------------------------------------
    @cached_property
    def grid(self) -> dict[str, FloatArray]:
        """Every admissible combination, one array per parameter, in product order."""
        names = [q.name for q in self.params]
        rows = np.array(list(itertools.product(*(q.values for q in self.params))), dtype=float)
        columns = {n: rows[:, i] for i, n in enumerate(names)}
        keep = self.admissible(columns)
        grid = {n: np.ascontiguousarray(c[keep]) for n, c in columns.items()}
        size = int(keep.sum())
        if not 1 <= size <= MAX_GRID:
            raise FamilyError(f"PSI kind {self.name}: {size} grid points (1..{MAX_GRID} allowed)")
        return grid

    @property
    def size(self) -> int:
        return len(next(iter(self.grid.values())))

    @cached_property
    def log2_size(self) -> float:
        """log2 of the admissible fine points: the product of the fine counts times the
        coarse grid's admissible fraction (an estimate when some are excluded)."""
        product = sum(math.log2(q.count) for q in self.params)
        full = math.prod(len(q.values) for q in self.params)
        return product + math.log2(self.size / full)

    def sample_params(self, rng: random.Random) -> dict[str, JSONValue]:
        """A uniform admissible fine point (by rejection), then uniform nuisance values."""
        for _ in range(_SAMPLE_TRIES):
            point = {q.name: q.fine(rng.randrange(q.count)) for q in self.params}
            if self.admissible({k: np.array([v]) for k, v in point.items()})[0]:
                break
        else:  # pragma: no cover - every kind keeps most of its range
            raise FamilyError(f"PSI {self.name}: no admissible point in {_SAMPLE_TRIES} draws")
        params: dict[str, JSONValue] = dict(point)
        for q in self.nuisance:
            params[q.name] = rng.choice(q.values)
        return params

    def check_params(self, params: Mapping[str, JSONValue]) -> dict[str, float]:
        """Validated parameters (fine grid, admissible, nuisance), as floats; raises
        ``FamilyError``."""
        unknown = set(params) - {q.name for q in (*self.params, *self.nuisance)}
        if unknown:
            raise FamilyError(f"PSI {self.name}: unknown parameter(s) {sorted(unknown)}")
        checked = {q.name: _number(self.name, params, q) for q in self.params}
        for q in self.params:
            if q.fine_index(checked[q.name]) is None:
                raise FamilyError(
                    f"PSI {self.name}: {q.name} = {checked[q.name]!r} is not one of its values "
                    f"({q.lo:g} to {q.hi:g}" + (f" in steps of {q.step:g})" if q.step else ")")
                )
        if not self.admissible({k: np.array([v]) for k, v in checked.items()})[0]:
            raise FamilyError(f"PSI {self.name}: parameters {checked!r} are not admissible")
        for q in self.nuisance:
            value = _number(self.name, params, q)
            if value not in q.values:
                raise FamilyError(f"PSI {self.name}: {q.name} = {value!r} is not a grid value")
            checked[q.name] = value
        return checked


_SAMPLE_TRIES = 10_000


def _number(kind: str, params: Mapping[str, JSONValue], q: Param) -> float:
    value = params.get(q.name)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise FamilyError(f"PSI {kind}: parameter {q.name!r} must be a number, got {value!r}")
    return float(value)
