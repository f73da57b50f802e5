"""GSI, game strategy inference: a known repeated game against a hidden fixed strategy.

Importing this package registers the family (``get_family("GSI")``).
"""

from blackboxes.families.gsi._family import ALMOST_ONE, MAX_QUERY_CHARS, GsiFamily
from blackboxes.families.gsi._name import kind_name, level_kinds, split_kind

__all__ = ["ALMOST_ONE", "MAX_QUERY_CHARS", "GsiFamily", "kind_name", "level_kinds", "split_kind"]
