"""Each kind's particle table: every grid point's rounded coordinates at every query time.

The table is what the agents' particle set predicts from and what information is
measured on, so it is computed once per process and kind (lazily: a few MB, and an ODE
kind integrates its whole grid once) and shared by every version space.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import numpy.typing as npt

from blackboxes.families.psi._kind import DECIMALS, TIMES, PhysicsKind
from oracle_bench.errors import FamilyError

__all__ = ["UNITS", "KindTable", "round_units", "table_of", "to_units"]

UNITS = 10**DECIMALS
"""Coordinates are stored as integers in units of the output precision (0.01 m)."""

IntArray = npt.NDArray[np.int64]


def to_units(values: npt.ArrayLike) -> IntArray:
    """Coordinates (metres) as integers in output units, rounded half away from zero
    as Python's ``round`` does for the box's two-decimal outputs (ties are not exact in
    binary anyway: the version space allows one unit either way)."""
    return round_units(np.asarray(values, dtype=float) * UNITS)


def round_units(scaled: npt.ArrayLike) -> IntArray:
    """Unrounded output units as integers, rounded as :func:`to_units` rounds."""
    scaled = np.asarray(scaled, dtype=float)
    return (np.sign(scaled) * np.floor(np.abs(scaled) + 0.5)).astype(np.int64)


@dataclass(frozen=True)
class KindTable:
    """``cells[i, j, c]``: grid point i's coordinate c (flattened objects x dims) at TIMES[j]."""

    kind: PhysicsKind
    cells: IntArray

    @cached_property
    def log2_y(self) -> float:
        """log2 of the outputs one query can have: per coordinate, the values at the
        output precision over the range the grid reaches anywhere in the domain."""
        lo = self.cells.min(axis=(0, 1))
        hi = self.cells.max(axis=(0, 1))
        return float(sum(math.log2(int(h) - int(low) + 1) for low, h in zip(lo, hi, strict=True)))

    @cached_property
    def distinct(self) -> int:
        """Grid points with different outputs at some query time (distinct observable rules)."""
        flat = self.cells.reshape(self.cells.shape[0], -1)
        return int(np.unique(flat, axis=0).shape[0])


_TABLES: dict[str, KindTable] = {}
_LOCK = threading.Lock()
_BUILDING: dict[str, threading.Lock] = {}


def table_of(kind: PhysicsKind) -> KindTable:
    """The kind's table, built on first use (one build per process, even under threads)."""
    cached = _TABLES.get(kind.name)
    if cached is not None:
        return cached
    with _LOCK:
        lock = _BUILDING.setdefault(kind.name, threading.Lock())
    with lock:
        cached = _TABLES.get(kind.name)
        if cached is None:
            cached = KindTable(kind, _build(kind))
            _TABLES[kind.name] = cached
    return cached


def _build(kind: PhysicsKind) -> IntArray:
    times = np.array(TIMES, dtype=float)
    pos = kind.positions(kind.grid, times)
    expected = (kind.size, len(TIMES), kind.objects, kind.dims)
    if pos.shape != expected:
        raise FamilyError(f"PSI {kind.name}: positions have shape {pos.shape}, not {expected}")
    if not np.isfinite(pos).all():
        raise FamilyError(f"PSI {kind.name}: positions are not all finite on the grid")
    return to_units(pos.reshape(kind.size, len(TIMES), kind.objects * kind.dims))
