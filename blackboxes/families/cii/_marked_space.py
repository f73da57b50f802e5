"""The exact version space of a marked kind: every hidden 21-bit mark table still possible.

The marks of the values no query has constrained are free, so the space is a list of
assignments to the *touched* values (bitmasks) times 2 per free value. A query's answer
depends only on the marks of its input's values (at most 8 of them), so a predictive or an
observation runs the reference on at most 2^8 mark patterns, never on 2^21 tables. A value
becomes touched only when an observation depends on its mark, which keeps the list small.
"""

from __future__ import annotations

import math
import random
import threading
from collections import Counter, OrderedDict
from collections.abc import Sequence

from blackboxes.box import JSONValue
from blackboxes.families._base import HypothesisSpace
from blackboxes.families.cii._kind import Params
from blackboxes.families.cii._marked import VALUES, MarkedKind
from blackboxes.families.cii._query import canonical
from blackboxes.families.cii._trace import answer, group
from blackboxes.information import TablePredictive, VersionSpace, output_key

__all__ = ["MarkedPrior", "MarkedSpace"]

_MEMO = 65536


class _Outputs:
    """The reference's output for (query, marks of the query's values), memoised."""

    def __init__(self, kind: MarkedKind) -> None:
        self.kind = kind
        self._lock = threading.Lock()
        self._memo: OrderedDict[tuple[str, int], JSONValue] = OrderedDict()

    def output(self, x: dict[str, JSONValue], mask: int) -> JSONValue:
        key = (canonical(x), mask)
        with self._lock:
            if key in self._memo:
                return self._memo[key]
        mark = "".join("1" if mask >> v & 1 else "0" for v in range(VALUES))
        inputs = x["inputs"]
        if not isinstance(inputs, dict):
            return None
        y = answer(group(self.kind.trace({"mark": mark}, inputs)), x)
        with self._lock:
            self._memo[key] = y
            if len(self._memo) > _MEMO:
                self._memo.popitem(last=False)
        return y


def _read(x: JSONValue) -> tuple[dict[str, JSONValue], list[int]] | None:
    """(the query, the distinct values of its list), or None for anything else."""
    if not isinstance(x, dict) or not isinstance(x.get("inputs"), dict):
        return None
    a = x["inputs"].get("a")
    if not isinstance(a, list) or any(
        not isinstance(v, int) or isinstance(v, bool) or not 0 <= v < VALUES for v in a
    ):
        return None
    return x, sorted(set(a))


def _spread(bits: int, values: Sequence[int]) -> int:
    """Bit i of ``bits`` placed at bit ``values[i]``."""
    out = 0
    for i, v in enumerate(values):
        if bits >> i & 1:
            out |= 1 << v
    return out


class MarkedSpace(VersionSpace):
    """Mark tables consistent with a history: assignments to touched values x free ones."""

    def __init__(
        self,
        kind: MarkedKind,
        touched: int = 0,
        assignments: tuple[int, ...] = (0,),
        outputs: _Outputs | None = None,
    ) -> None:
        self.kind = kind
        self._touched = touched
        """Bitmask of the values whose marks some observation depended on."""
        self._assignments = assignments
        self._outputs = outputs or _Outputs(kind)

    def log2_count(self) -> float:
        if not self._assignments:
            return -math.inf
        free = VALUES - bin(self._touched).count("1")
        return math.log2(len(self._assignments)) + free

    def _split(self, values: list[int]) -> tuple[list[int], list[int], Counter[int]]:
        """(known values, new values, how many assignments show each mark pattern of the
        known values)."""
        known = [v for v in values if self._touched >> v & 1]
        new = [v for v in values if not self._touched >> v & 1]
        known_mask = _spread((1 << len(known)) - 1, known)
        patterns = Counter(b & known_mask for b in self._assignments)
        return known, new, patterns

    def predictive(self, x: JSONValue) -> TablePredictive:
        read = _read(x)
        if read is None:
            return TablePredictive({output_key(None): (None, 1.0)})
        x, values = read
        _, new, patterns = self._split(values)
        weights: dict[str, tuple[JSONValue, float]] = {}
        for pattern, count in patterns.items():
            for combo in range(1 << len(new)):
                y = self._outputs.output(x, pattern | _spread(combo, new))
                key = output_key(y)
                prev = weights.get(key)
                weights[key] = (y, (prev[1] if prev else 0.0) + count)
        return TablePredictive(weights)

    def observe(self, x: JSONValue, y: JSONValue) -> MarkedSpace:
        read = _read(x)
        if read is None:
            return MarkedSpace(self.kind, self._touched, (), self._outputs)
        x, values = read
        _, new, patterns = self._split(values)
        want = output_key(y)
        consistent: dict[int, set[int]] = {
            pattern: {
                combo
                for combo in range(1 << len(new))
                if output_key(self._outputs.output(x, pattern | _spread(combo, new))) == want
            }
            for pattern in patterns
        }
        # A new value stays free when flipping its mark never changes consistency.
        needed = [
            i
            for i in range(len(new))
            if any(c ^ (1 << i) not in combos for combos in consistent.values() for c in combos)
        ]
        kept_new = [new[i] for i in needed]
        reduced: dict[int, set[int]] = {
            pattern: {
                _spread(sum(1 << j for j, i in enumerate(needed) if c >> i & 1), kept_new)
                for c in combos
            }
            for pattern, combos in consistent.items()
        }
        known_mask = _spread((1 << len(values)) - 1, values) & self._touched
        out = tuple(
            b | extra for b in self._assignments for extra in sorted(reduced[b & known_mask])
        )
        touched = self._touched | _spread((1 << len(kept_new)) - 1, kept_new)
        return MarkedSpace(self.kind, touched, out, self._outputs)


class MarkedPrior:
    """What the family needs of a marked kind: its space, sizes and uniform draws."""

    def __init__(self, kind: MarkedKind) -> None:
        self.kind = kind
        self._outputs = _Outputs(kind)

    def space(self) -> MarkedSpace:
        return MarkedSpace(self.kind, outputs=self._outputs)

    def hypothesis(self) -> HypothesisSpace:
        # Every table is a different program (a one-element query shows a mark), so
        # log2|H| is the 21 bits, exactly.
        return HypothesisSpace(log2_h=float(VALUES), log2_y=math.log2(self.kind.max_outputs))

    def sample(self, rng: random.Random) -> Params:
        return {"mark": "".join(rng.choice("01") for _ in range(VALUES))}
