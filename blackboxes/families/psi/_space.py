"""PSI's queries and outputs as the particle set reads them: time indices and output units.

An output is compared in integer units of the output precision (0.01 m); two outputs
agree when every coordinate is within ``SLACK`` units (a rounding tie either way).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import numpy.typing as npt

from blackboxes.box import JSONValue
from blackboxes.families.psi._kind import DECIMALS, T_STEP, TIMES, object_names
from blackboxes.families.psi._table import UNITS, to_units

__all__ = ["SLACK", "output_cells", "output_value", "time_index"]

IntArray = npt.NDArray[np.int64]

SLACK = 1
"""Output units two agreeing outputs may differ by, per coordinate."""


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
