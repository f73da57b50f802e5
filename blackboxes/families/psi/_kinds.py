"""The PSI kinds of each level, in a fixed order."""

from __future__ import annotations

from blackboxes.families.psi._easy import EASY_KINDS
from blackboxes.families.psi._hard import HARD_KINDS
from blackboxes.families.psi._kind import PhysicsKind

__all__ = ["KINDS", "LEVEL_KINDS"]

KINDS: dict[str, PhysicsKind] = {k.name: k for k in (*EASY_KINDS, *HARD_KINDS)}
LEVEL_KINDS: dict[str, tuple[str, ...]] = {
    "easy": tuple(k.name for k in EASY_KINDS),
    "hard": tuple(k.name for k in HARD_KINDS),
}
