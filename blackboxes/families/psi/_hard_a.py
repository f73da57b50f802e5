"""Hard PSI kinds, group A: damped and driven oscillators, and a Kepler orbit."""

from __future__ import annotations

from blackboxes.families.psi._hard_orbit import KeplerOrbit
from blackboxes.families.psi._hard_oscillators import DampedOscillator, DrivenOscillator
from blackboxes.families.psi._kind import PhysicsKind

__all__ = ["HARD_A"]

HARD_A: tuple[PhysicsKind, ...] = (DampedOscillator(), DrivenOscillator(), KeplerOrbit())
