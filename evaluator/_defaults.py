"""Defaults and choices of the evaluator's options that the command lines show in --help.

Apart, importing nothing, so that a parser is built (and --help printed) without importing
the evaluator; the modules that use them import them from here and re-export them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

__all__ = [
    "DEFAULT_BUCKETS",
    "DEFAULT_BUDGET_FACTOR",
    "EXIT_FAILURES",
    "PAPER_BUCKETS",
    "PROTOCOLS",
    "Bucket",
    "PlayProtocol",
    "bucket_label",
    "format_buckets",
]

EXIT_FAILURES = 4
"""``oracle-eval``'s exit code when episodes failed (without ``--allow-failures``)."""

DEFAULT_BUDGET_FACTOR = 2.0
"""A DFA episode's budget: this many times the box's reference cost, min(L*, TTT)."""

PlayProtocol = Literal["tools", "text"]
PROTOCOLS: tuple[PlayProtocol, ...] = ("tools", "text")
"""How an LLM agent plays: native tool calls or the text protocol."""

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
    """Inverse of :func:`~evaluator.dfa_summary.parse_buckets`: ``"2-3,4-5,6-7,8-9"``."""
    return ",".join(bucket_label(b) for b in buckets)
