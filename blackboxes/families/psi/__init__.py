"""PSI: physics system inference (a time t -> every object's coordinates)."""

from blackboxes.families.psi._answers import ABS_TOL, REL_TOL
from blackboxes.families.psi._family import ANSWER_MODES, PhysicsSystemInference
from blackboxes.families.psi._kind import DECIMALS, T_MAX, T_STEP, TIMES, Param, PhysicsKind

__all__ = [  # noqa: RUF022 (plain sorted order, tests/test_layout.py)
    "ABS_TOL",
    "ANSWER_MODES",
    "DECIMALS",
    "Param",
    "PhysicsKind",
    "PhysicsSystemInference",
    "REL_TOL",
    "T_MAX",
    "T_STEP",
    "TIMES",
]
