"""CII, code intent inference: infer what a hidden program does from its checkpoints.

Importing this package registers the family (``get_family("CII")``).
"""

from blackboxes.families.cii._domains import Domain, IntDomain, ListDomain, TextDomain
from blackboxes.families.cii._family import CodeIntentInference
from blackboxes.families.cii._kind import ProgramKind
from blackboxes.families.cii._kinds import KINDS, LEVEL_KINDS, analysis

__all__ = [  # noqa: RUF022 (plain sorted order, tests/test_layout.py)
    "CodeIntentInference",
    "Domain",
    "IntDomain",
    "KINDS",
    "LEVEL_KINDS",
    "ListDomain",
    "ProgramKind",
    "TextDomain",
    "analysis",
]
