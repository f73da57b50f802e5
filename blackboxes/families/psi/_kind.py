"""The contract of one PSI kind: a mechanical system whose parameters lie on a grid.

A kind's parameters are drawn from a grid of realistic values (``Param.values``), so
its hypothesis space is the grid itself: every admissible combination is one rule. The
kind gives the motion twice: :meth:`PhysicsKind.positions`, vectorised over many
parameter combinations and times (numpy; the agents' particle set and, unless the kind
overrides it, the trusted reference), and a Jinja template under ``templates/code/psi/``
rendering the box code (plain Python, no numpy). Kinds whose motion has no closed form
override :meth:`PhysicsKind.reference` with SciPy's high-accuracy integrator, so the
generator's differential test compares two independent computations.
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
"""Most admissible parameter combinations a kind may have (its particle set is all of them)."""

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
    """One parameter: its grid of values, unit and what it is (for the description)."""

    name: str
    values: tuple[float, ...]
    unit: str
    label: str


class PhysicsKind(ABC):
    """One mechanical system at one level."""

    name: ClassVar[str]
    level: ClassVar[Level]
    objects: ClassVar[int] = 1
    dims: ClassVar[int] = 2
    """2: (x, y) with y up; 3: (x, y, z) with z up."""
    params: ClassVar[tuple[Param, ...]]
    """The grid: every parameter that changes the motion."""
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

    def sample_params(self, rng: random.Random) -> dict[str, JSONValue]:
        """A uniform admissible grid point, then uniform nuisance values."""
        i = rng.randrange(self.size)
        params: dict[str, JSONValue] = {q.name: float(self.grid[q.name][i]) for q in self.params}
        for q in self.nuisance:
            params[q.name] = rng.choice(q.values)
        return params

    def index_of(self, params: Mapping[str, JSONValue]) -> int:
        """The grid index of hidden.json's parameters; raises ``FamilyError``."""
        mask = np.ones(self.size, dtype=bool)
        for q in self.params:
            mask &= self.grid[q.name] == _number(self.name, params, q)
        hits = np.flatnonzero(mask)
        if len(hits) != 1:
            raise FamilyError(f"PSI {self.name}: parameters {dict(params)!r} are not a grid point")
        return int(hits[0])

    def check_params(self, params: Mapping[str, JSONValue]) -> dict[str, float]:
        """Validated parameters (grid and nuisance), as floats; raises ``FamilyError``."""
        unknown = set(params) - {q.name for q in (*self.params, *self.nuisance)}
        if unknown:
            raise FamilyError(f"PSI {self.name}: unknown parameter(s) {sorted(unknown)}")
        self.index_of(params)
        checked = {q.name: _number(self.name, params, q) for q in self.params}
        for q in self.nuisance:
            value = _number(self.name, params, q)
            if value not in q.values:
                raise FamilyError(f"PSI {self.name}: {q.name} = {value!r} is not a grid value")
            checked[q.name] = value
        return checked


def _number(kind: str, params: Mapping[str, JSONValue], q: Param) -> float:
    value = params.get(q.name)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise FamilyError(f"PSI {kind}: parameter {q.name!r} must be a number, got {value!r}")
    return float(value)
