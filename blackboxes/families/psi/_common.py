"""Values several PSI kinds share: surface gravities and how a description states them."""

from __future__ import annotations

from blackboxes.families.psi._kind import Param

__all__ = ["GRAVITY", "PLACES", "gravity_param", "place_of"]

PLACES: dict[float, str] = {
    1.62: "the Moon",
    3.71: "Mars",
    8.87: "Venus",
    9.81: "Earth",
    11.15: "Neptune",
    24.79: "Jupiter",
}
"""Surface gravity (m/s^2) -> where it holds: a kind's g is one of these."""
GRAVITY: tuple[float, ...] = tuple(sorted(PLACES))


def gravity_param() -> Param:
    return Param("g", GRAVITY, "m/s^2", "gravitational acceleration")


def place_of(g: float) -> str:
    """``on Mars (g = 3.71 m/s^2)``."""
    return f"on {PLACES.get(g, 'a planet')} (g = {g:g} m/s^2)"
