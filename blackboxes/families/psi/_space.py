"""The particle set of one PSI kind: the grid points consistent with what was observed.

A grid point is consistent with an observation when each of its rounded coordinates is
within one output unit (0.01 m) of the observed one: the box and the particle model
compute the same motion to far better than 0.005 m (the generator's differential test
holds the box to one unit), so the true grid point is never dropped by a rounding tie.
``prob(y)`` uses the same rule, so the realised information of an answer is exactly the
drop in log2 of the consistent count. The entropy of a query is that of the particles'
exact rounded outputs. Counts are over grid points (``exact`` is False: the grid is a
documented discretisation of each parameter's realistic range).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import numpy.typing as npt

from blackboxes.box import JSONValue
from blackboxes.families.psi._kind import DECIMALS, T_STEP, TIMES, object_names
from blackboxes.families.psi._table import UNITS, KindTable, to_units
from blackboxes.information import Predictive, VersionSpace, entropy_bits

__all__ = ["GridSpace", "output_cells", "output_value", "time_index"]

IntArray = npt.NDArray[np.int64]

SLACK = 1
"""Output units a consistent particle may differ by, per coordinate."""


def time_index(t: JSONValue) -> int | None:
    """The index of query time ``t`` in TIMES, or None when it is not one."""
    if isinstance(t, bool) or not isinstance(t, int | float) or not math.isfinite(t):
        return None
    i = round(t / T_STEP)
    return i if 0 <= i < len(TIMES) and abs(TIMES[i] - t) < 1e-9 else None


def output_cells(y: JSONValue, objects: int, dims: int) -> IntArray | None:
    """An output ``{"object1": [x, y], ...}`` as integer output units, flattened; None
    when it does not have the kind's objects and dimensions or a value is not finite."""
    if not isinstance(y, Mapping) or set(y) != set(object_names(objects)):
        return None
    flat: list[float] = []
    for name in object_names(objects):
        coords = y[name]
        if not isinstance(coords, list | tuple) or len(coords) != dims:
            return None
        for c in coords:
            if isinstance(c, bool) or not isinstance(c, int | float) or not math.isfinite(c):
                return None
            flat.append(float(c))
    return to_units(flat)


def output_value(cells: IntArray, objects: int, dims: int) -> dict[str, list[float]]:
    """The output whose coordinates are ``cells`` (output units)."""
    values = [round(int(c) / UNITS, DECIMALS) for c in cells]
    return {name: values[i * dims : (i + 1) * dims] for i, name in enumerate(object_names(objects))}


class _GridPredictive(Predictive):
    def __init__(self, rows: IntArray, objects: int, dims: int) -> None:
        self._rows = rows
        self._objects, self._dims = objects, dims
        if len(rows):
            self._unique, self._counts = np.unique(rows, axis=0, return_counts=True)
        else:
            self._unique = rows
            self._counts = np.zeros(0, dtype=np.int64)

    @property
    def entropy(self) -> float:
        n = int(self._counts.sum())
        return entropy_bits(int(c) / n for c in self._counts) if n else 0.0

    def prob(self, y: JSONValue) -> float:
        cells = output_cells(y, self._objects, self._dims)
        if cells is None or not len(self._rows):
            return 0.0
        near = np.all(np.abs(self._rows - cells) <= SLACK, axis=1)
        return float(near.sum()) / len(self._rows)

    def top(self, k: int) -> list[JSONValue]:
        # np.unique sorts rows lexicographically, and a stable sort keeps that order
        # among equal counts: ties are broken deterministically.
        order = np.argsort(-self._counts, kind="stable")[:k]
        return [output_value(self._unique[i], self._objects, self._dims) for i in order]


class GridSpace(VersionSpace):
    """The consistent grid points of one kind (indices into its table)."""

    exact = False

    def __init__(self, table: KindTable, alive: IntArray | None = None) -> None:
        self._table = table
        self._alive = np.arange(table.cells.shape[0]) if alive is None else alive

    @property
    def alive(self) -> IntArray:
        """Grid indices of the consistent particles."""
        return self._alive

    def log2_count(self) -> float:
        n = len(self._alive)
        return math.log2(n) if n else -math.inf

    def _rows(self, x: JSONValue) -> IntArray | None:
        j = time_index(x)
        return None if j is None else self._table.cells[self._alive, j, :]

    def observe(self, x: JSONValue, y: JSONValue) -> GridSpace:
        kind = self._table.kind
        rows = self._rows(x)
        cells = output_cells(y, kind.objects, kind.dims)
        if rows is None or cells is None:
            return GridSpace(self._table, self._alive[:0])
        near = np.all(np.abs(rows - cells) <= SLACK, axis=1)
        return GridSpace(self._table, self._alive[near])

    def predictive(self, x: JSONValue) -> Predictive:
        kind = self._table.kind
        rows = self._rows(x)
        empty = np.zeros((0, kind.objects * kind.dims), dtype=np.int64)
        return _GridPredictive(empty if rows is None else rows, kind.objects, kind.dims)
