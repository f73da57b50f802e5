"""IPI, interactive puzzle inference: public rules, a hidden answer per puzzle instance.

Importing this package registers the family (``get_family("IPI")``).
"""

from blackboxes.families.ipi._family import IpiFamily

__all__ = ["IpiFamily"]
