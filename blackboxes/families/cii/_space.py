"""The version space of one CII kind: its distinct parameterisations, run on each query."""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence

from blackboxes.box import JSONValue
from blackboxes.families.cii._kind import Params, ProgramKind
from blackboxes.families.cii._query import canonical
from blackboxes.families.cii._trace import Grouped, answer, group
from blackboxes.information import TablePredictive, VersionSpace, output_key

__all__ = ["ProgramSpace", "TraceMemo"]

_MEMO_INPUTS = 256
"""Input sets whose traces (under every hypothesis) a kind keeps: a few episodes' worth."""


class TraceMemo:
    """The reference traces of a kind's hypotheses, by input set (shared, thread-safe)."""

    def __init__(self, kind: ProgramKind, hypotheses: Sequence[Params]) -> None:
        self.kind = kind
        self.hypotheses = tuple(hypotheses)
        self._lock = threading.Lock()
        self._memo: OrderedDict[str, dict[int, Grouped]] = OrderedDict()

    def grouped(self, index: int, inputs: Mapping[str, JSONValue]) -> Grouped:
        key = canonical(inputs)
        with self._lock:
            row = self._memo.get(key)
            if row is None:
                row = self._memo[key] = {}
                if len(self._memo) > _MEMO_INPUTS:
                    self._memo.popitem(last=False)
            else:
                self._memo.move_to_end(key)
            hit = row.get(index)
        if hit is None:
            hit = group(self.kind.trace(self.hypotheses[index], inputs))
            with self._lock:
                row[index] = hit
        return hit


class ProgramSpace(VersionSpace):
    """The consistent subset of a kind's distinct parameterisations (exact)."""

    def __init__(self, memo: TraceMemo, alive: tuple[int, ...] | None = None) -> None:
        self._memo = memo
        self._alive = tuple(range(len(memo.hypotheses))) if alive is None else alive

    @property
    def alive(self) -> tuple[int, ...]:
        """Indices into the kind's hypotheses that are still consistent."""
        return self._alive

    def _output(self, index: int, x: JSONValue) -> JSONValue:
        if not isinstance(x, dict) or not isinstance(x.get("inputs"), dict):
            return None
        return answer(self._memo.grouped(index, x["inputs"]), x)

    def log2_count(self) -> float:
        return math.log2(len(self._alive)) if self._alive else -math.inf

    def observe(self, x: JSONValue, y: JSONValue) -> ProgramSpace:
        key = output_key(y)
        kept = tuple(i for i in self._alive if output_key(self._output(i, x)) == key)
        return ProgramSpace(self._memo, kept)

    def predictive(self, x: JSONValue) -> TablePredictive:
        weights: dict[str, tuple[JSONValue, float]] = {}
        for i in self._alive:
            y = self._output(i, x)
            key = output_key(y)
            prev = weights.get(key)
            weights[key] = (y, (prev[1] if prev else 0.0) + 1.0)
        return TablePredictive(weights)
