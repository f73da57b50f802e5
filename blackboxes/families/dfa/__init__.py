"""DFA, automaton learning: a hidden minimal DFA explored by membership and equivalence queries.

Importing this package registers the family (``get_family("DFA")``).
"""

from blackboxes.families.dfa._family import (
    BASELINE_LEARNERS,
    DEFAULT_STATES,
    AutomatonFamily,
    kind_for,
    level_of,
    states_of,
)

__all__ = [
    "BASELINE_LEARNERS",
    "DEFAULT_STATES",
    "AutomatonFamily",
    "kind_for",
    "level_of",
    "states_of",
]
