"""The DFA kind's defaults, shown in --help: apart and importing nothing, so that a parser
is built without importing the DFA machinery."""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence

from oracle_bench.errors import UsageError

__all__ = [
    "DEFAULT_BUCKETS",
    "DEFAULT_BUDGET_FACTOR",
    "DEFAULT_SIMILARITY_LEN",
    "MAX_SIMILARITY_LEN",
    "PAPER_BUCKETS",
    "Bucket",
    "bucket_label",
    "check_similarity_len",
    "format_buckets",
    "parse_buckets",
]

DEFAULT_BUDGET_FACTOR = 2.0
"""A DFA episode's budget: this many times the box's reference cost, min(L*, TTT)."""

Bucket = tuple[int, int]
"""An inclusive range of target state counts."""
PAPER_BUCKETS: tuple[Bucket, ...] = ((2, 3), (4, 5), (6, 7), (8, 9))
"""The paper's complexity levels: inclusive ranges of target state counts."""
DEFAULT_BUCKETS: tuple[Bucket, ...] = PAPER_BUCKETS
"""The DFA seed's complexity levels."""


def bucket_label(bucket: Bucket) -> str:
    """``"2-3"``, or ``"5"`` for a single state count."""
    lo, hi = bucket
    return str(lo) if lo == hi else f"{lo}-{hi}"


def format_buckets(buckets: Sequence[Bucket]) -> str:
    """Inverse of :func:`~evaluator.kinds.dfa.summary.parse_buckets`: ``"2-3,4-5,6-7,8-9"``."""
    return ",".join(bucket_label(b) for b in buckets)


DEFAULT_SIMILARITY_LEN = 200
"""K of Sim_{triangle,K}: the paper's text says 200 (its code uses 100)."""
MAX_SIMILARITY_LEN = 10_000
"""Beyond this K the big-integer counts only cost time: the score no longer moves."""


def check_similarity_len(k: int) -> int:
    """``k`` if it is a valid K of the best-hypothesis similarity, else :class:`UsageError`."""
    if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k <= MAX_SIMILARITY_LEN:
        raise UsageError(f"invalid --similarity-len {k}: must be in 0..{MAX_SIMILARITY_LEN}")
    return k


_RANGE = re.compile(r"\s*(\d+)\s*(?:-\s*(\d+)\s*)?")


def parse_buckets(text: str) -> tuple[Bucket, ...]:
    """``"2-3,4-5,6-7,8-9"`` (or ``"5"`` for one count); disjoint, sorted by their start."""
    buckets: list[Bucket] = []
    for part in str(text).split(","):
        match = _RANGE.fullmatch(part)
        if match is None:
            raise UsageError(f"invalid buckets {text!r}: expected ranges like 2-3,4-5,6-7,8-9")
        lo = int(match.group(1))
        hi = int(match.group(2)) if match.group(2) is not None else lo
        if not 1 <= lo <= hi:
            raise UsageError(f"invalid bucket {part.strip()!r} in {text!r}: need 1 <= A <= B")
        buckets.append((lo, hi))
    buckets.sort()
    for (_, hi), (lo, _) in itertools.pairwise(buckets):
        if lo <= hi:
            raise UsageError(f"invalid buckets {text!r}: ranges overlap")
    return tuple(buckets)
