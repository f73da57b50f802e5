"""The hard (n = 10) enumerated CRI kinds, in the family's order."""

from __future__ import annotations

from blackboxes.families.cri._hard_arith import AdderKind, ComparatorKind
from blackboxes.families.cri._hard_count import AtLeastKind, PopcountKind
from blackboxes.families.cri._hard_graph import ReachabilityKind
from blackboxes.families.cri._kind import EnumeratedKind

__all__ = [
    "HARD_ENUMERATED",
    "AdderKind",
    "AtLeastKind",
    "ComparatorKind",
    "PopcountKind",
    "ReachabilityKind",
]

HARD_ENUMERATED: tuple[EnumeratedKind, ...] = (
    AdderKind(),
    ComparatorKind(),
    PopcountKind(),
    AtLeastKind(),
    ReachabilityKind(),
)
