"""The EASY circuit kinds (8 inputs), in registration order."""

from __future__ import annotations

from blackboxes.families.cri._easy_patterns import ConsecutiveOnesKind, PalindromeKind
from blackboxes.families.cri._easy_routing import DecoderKind, MultiplexerKind, SelectKind
from blackboxes.families.cri._easy_threshold import ThresholdKind
from blackboxes.families.cri._kind import EnumeratedKind

__all__ = [
    "EASY_ENUMERATED",
    "ConsecutiveOnesKind",
    "DecoderKind",
    "MultiplexerKind",
    "PalindromeKind",
    "SelectKind",
    "ThresholdKind",
]

EASY_ENUMERATED: tuple[EnumeratedKind, ...] = (
    ConsecutiveOnesKind(),
    PalindromeKind(),
    SelectKind(),
    ThresholdKind(),
    MultiplexerKind(),
    DecoderKind(),
)
"""consecutive_ones, palindrome, select, threshold, multiplexer, decoder."""
