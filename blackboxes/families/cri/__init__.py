"""CRI, circuit rule inference: infer a hidden boolean circuit from n-bit input queries.

Importing this package registers the family (``get_family("CRI")``).
"""

from blackboxes.families.cri._circuit import Circuit, Gate, bits_of, index_of
from blackboxes.families.cri._family import DEFAULT_MODE, MODES, CircuitRuleInference
from blackboxes.families.cri._kind import CircuitKind
from blackboxes.families.cri._kinds import KINDS, LEVEL_KINDS

__all__ = [
    "DEFAULT_MODE",
    "KINDS",
    "LEVEL_KINDS",
    "MODES",
    "Circuit",
    "CircuitKind",
    "CircuitRuleInference",
    "Gate",
    "bits_of",
    "index_of",
]
