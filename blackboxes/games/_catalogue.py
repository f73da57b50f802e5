"""Which (game, strategy kind) pairs a suite draws at each level.

Easy pairs: short cycles, copies and beats of the last move, small mixed subsets, the
classic prisoner's dilemma replies, and the small-memory kinds one exploration game
reveals to any player (win-stay lose-shift, frequency counting in the 2- and 3-action
games). Hard pairs: what one blind game does not reveal: reactive maps of the last
move and of the last two, wary cycles that change once beaten, triggers, patient
shooters and bullet maps, card piles and the median-first adaptive order (ORACLE's
hard GSI boxes are of these kinds).
"""

from __future__ import annotations

from collections.abc import Mapping

from blackboxes.games._base import GameError

__all__ = ["LEVEL_PAIRS", "pairs"]

LEVEL_PAIRS: Mapping[str, tuple[tuple[str, str], ...]] = {
    "easy": (
        ("rps", "cycle"),
        ("rps", "beat_last"),
        ("rps", "copy_last"),
        ("rps", "copy_two_back"),
        ("rps", "mixed_subset"),
        ("rps7", "tour"),
        ("rps7", "beat_last"),
        ("rps7", "copy_two_back"),
        ("rps7", "mixed_subset"),
        ("anti_rps", "mixed_subset"),
        ("anti_rps", "cycle"),
        ("anti_rps", "copy_last"),
        ("pennies", "cycle"),
        ("pennies", "copy_last"),
        ("pennies", "mixed_weights"),
        ("pd", "tit_for_tat"),
        ("pd", "grim"),
        ("pd", "cycle"),
        ("lsd", "cycle"),
        ("lsd_scout", "cycle"),
        ("cards", "cheap_beat"),
        ("cards", "copy_card"),
        ("rps", "pavlov"),
        ("rps", "frequency"),
        ("anti_rps", "frequency"),
        ("pennies", "frequency"),
        ("pennies", "pavlov"),
        ("pd", "pavlov"),
    ),
    "hard": (
        ("rps", "reactive"),
        ("rps", "reactive_pair"),
        ("rps", "wary"),
        ("rps", "trigger"),
        ("rps7", "reactive"),
        ("rps7", "frequency"),
        ("rps7", "pavlov"),
        ("rps7", "trigger"),
        ("rps7", "wary"),
        ("rps7", "mixed_weights"),
        ("rps7", "cycle"),
        ("anti_rps", "reactive"),
        ("anti_rps", "reactive_pair"),
        ("anti_rps", "wary"),
        ("pennies", "reactive"),
        ("pennies", "trigger"),
        ("pennies", "reactive_pair"),
        ("pennies", "wary"),
        ("pd", "reactive"),
        ("pd", "copy_two_back"),
        ("pd", "reactive_pair"),
        ("pd", "mixed_weights"),
        ("lsd", "patient"),
        ("lsd", "bullet_map"),
        ("lsd", "reactive"),
        ("lsd", "mixed_subset"),
        ("lsd_scout", "patient"),
        ("lsd_scout", "bullet_map"),
        ("lsd_scout", "mixed_subset"),
        ("cards", "piles"),
        ("cards", "median"),
    ),
}


def pairs(level: str) -> tuple[tuple[str, str], ...]:
    """The (game, strategy kind) pairs offered at ``level``, in a fixed order."""
    if level not in LEVEL_PAIRS:
        raise GameError(f"unknown level {level!r}; levels: {', '.join(LEVEL_PAIRS)}")
    return LEVEL_PAIRS[level]
