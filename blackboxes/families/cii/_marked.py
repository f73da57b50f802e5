"""HARD CII kinds with a hidden table: which input values are *marked* (21 hidden bits).

Every other kind hides a few hundred programs, which one good query tells apart. Here the
program reads a hidden 0/1 mark for each value 0..20 and one visit shows the mark of one
element and a summary of the marks before it, so a query yields a few bits of the 21 and
predicting a new input needs the marks of its values: T_info is 6, and a class-knowing
agent needs about as many queries. The version space (:mod:`._marked_space`) is exact.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Iterable, Mapping
from typing import Any

from blackboxes.box import JSONValue
from blackboxes.families.cii._domains import NUMBERS
from blackboxes.families.cii._kind import Event, Params, ProgramKind
from oracle_bench.errors import FamilyError

__all__ = [  # noqa: RUF022 (plain sorted order, tests/test_layout.py)
    "MARKED",
    "MarkedCountKind",
    "MarkedKind",
    "MarkedParityKind",
    "MarkedRunsKind",
    "MarkedScanKind",
    "VALUES",
]

VALUES = NUMBERS.hi - NUMBERS.lo + 1
"""The values a mark exists for (0..20)."""


class MarkedKind(ProgramKind):
    """A list program over a hidden mark per value; params ``{"mark": "0110..."}``."""

    level = "hard"
    inputs = (("a", NUMBERS),)
    checkpoints = 2
    max_outputs: int
    """The most distinct answers one query can have (|Y|)."""

    def custom_prior(self) -> Any:
        from blackboxes.families.cii._marked_space import MarkedPrior

        return MarkedPrior(self)

    def all_params(self) -> Iterable[Params]:
        raise FamilyError(f"CII kind {self.name} has 2^{VALUES} settings; they are not listed")

    def check_params(self, params: Mapping[str, JSONValue]) -> Params:
        mark = params.get("mark")
        if set(params) != {"mark"} or not isinstance(mark, str) or len(mark) != VALUES:
            raise FamilyError(f"CII {self.name} params are {{'mark': {VALUES} characters 0/1}}")
        if set(mark) - {"0", "1"}:
            raise FamilyError(f"CII {self.name} mark must be characters 0/1, got {mark!r}")
        return {"mark": mark}

    def context(self, params: Params) -> dict[str, Any]:
        return {"mark": [int(c) for c in str(params["mark"])]}

    def trace(self, params: Params, args: Mapping[str, JSONValue]) -> list[Event]:
        values = args["a"]
        if not isinstance(values, list):
            raise FamilyError(f"{self.name} takes a list")
        table = str(params["mark"])
        return self._events([int(table[int(v)]) for v in values])

    @abstractmethod
    def _events(self, marks: list[int]) -> list[Event]:
        """The checkpoint events for the marks of a's elements, in order."""

    def describe(self, params: Params) -> str:
        marked = [str(v) for v, c in enumerate(str(params["mark"])) if c == "1"]
        return (
            f"A value v in 0..20 is marked iff v is one of: {', '.join(marked) or 'none'} "
            "(keep this as a constant table M of 21 entries, M[v] = 1 if v is marked, else "
            "0). " + self._steps
        )

    _steps: str
    """The program after the table, for ``describe``."""


class MarkedScanKind(MarkedKind):
    """Scan a, counting marked elements."""

    name = "marked_scan"
    template = "marked_scan.py.j2"
    max_outputs = 2 * (NUMBERS.max_len + 1)
    """Visit i of checkpoint 1: w in {0, 1}, s in 0..i (i <= 8): at most 18."""

    _steps = (
        "Let s = 0. For each element x of a, in order: w = M[x]; s = s + w; then "
        "checkpoint(1, w=w, s=s). After the loop: checkpoint(2, s=s)."
    )

    def _events(self, marks: list[int]) -> list[Event]:
        count = 0
        events: list[Event] = []
        for mark in marks:
            count += mark
            events.append((1, {"w": mark, "s": count}))
        events.append((2, {"s": count}))
        return events


class MarkedRunsKind(MarkedKind):
    """Scan a, tracking runs of consecutive marked elements."""

    name = "marked_runs"
    template = "marked_runs.py.j2"
    max_outputs = NUMBERS.max_len + NUMBERS.max_len * (NUMBERS.max_len + 1) // 2
    """Visit i of checkpoint 1 (i <= 8): w = 0 gives r = 0 and t in 0..i-1; w = 1 gives r in
    1..i and t in r..i: at most 8 + 36 = 44."""

    _steps = (
        "Let r = 0 and t = 0. For each element x of a, in order: w = M[x]; r = r + 1 if w "
        "is 1, else r = 0; t = max(t, r); then checkpoint(1, w=w, r=r, t=t). After the "
        "loop: checkpoint(2, t=t)."
    )

    def _events(self, marks: list[int]) -> list[Event]:
        run = longest = 0
        events: list[Event] = []
        for mark in marks:
            run = run + 1 if mark else 0
            longest = max(longest, run)
            events.append((1, {"w": mark, "r": run, "t": longest}))
        events.append((2, {"t": longest}))
        return events


class MarkedCountKind(MarkedKind):
    """Scan a, counting marked elements without showing the current mark."""

    name = "marked_count"
    template = "marked_count.py.j2"
    max_outputs = NUMBERS.max_len + 1
    """Visit i of checkpoint 1: s in 0..i (i <= 8): at most 9."""

    _steps = (
        "Let s = 0. For each element x of a, in order: s = s + M[x]; then checkpoint(1, "
        "s=s). After the loop: checkpoint(2, s=s)."
    )

    def _events(self, marks: list[int]) -> list[Event]:
        count = 0
        events: list[Event] = []
        for mark in marks:
            count += mark
            events.append((1, {"s": count}))
        events.append((2, {"s": count}))
        return events


class MarkedParityKind(MarkedKind):
    """Scan a, keeping the parity of the marked elements seen."""

    name = "marked_parity"
    template = "marked_parity.py.j2"
    max_outputs = 2
    """One bit per visit."""

    _steps = (
        "Let p = 0. For each element x of a, in order: p = 1 - p if M[x] is 1 (else p "
        "stays); then checkpoint(1, p=p). After the loop: checkpoint(2, p=p)."
    )

    def _events(self, marks: list[int]) -> list[Event]:
        parity = 0
        events: list[Event] = []
        for mark in marks:
            parity ^= mark
            events.append((1, {"p": parity}))
        events.append((2, {"p": parity}))
        return events


MARKED: tuple[MarkedKind, ...] = (
    MarkedScanKind(),
    MarkedRunsKind(),
    MarkedCountKind(),
    MarkedParityKind(),
)
