"""Which (game, strategy kind) pairs a suite draws at each level.

Easy pairs: what one exploration game reveals to a systematic player (measured with the
baselines: the fixed sweep reaches the optimum or close to it): short cycles, copies and
beats of the last move, small mixed subsets, the classic prisoner's dilemma replies,
win-stay lose-shift, frequency counting, triggers, reactive maps of the last move and, in
the two-action games, of the last two, wary RPS cycles, patient scout shooters and the
median-first card order. Hard pairs: what one game does not reveal, blind or systematic:
reactive maps of the last two moves (three actions) and of long memories (the last four
moves in two-action games, three in three-action ones: 16 and 27 contexts, more than a
game has rounds), wary cycles that change once beaten, RPS-7 maps of the last move,
narrowly mixed strategies, patient shooters and card piles (ORACLE's hard GSI boxes are of
these kinds: slice, the RPS-7 mapping).
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
        ("rps", "trigger"),
        ("rps7", "frequency"),
        ("rps7", "pavlov"),
        ("rps7", "cycle"),
        ("anti_rps", "reactive"),
        ("pennies", "reactive"),
        ("pennies", "trigger"),
        ("pd", "reactive"),
        ("pd", "copy_two_back"),
        ("lsd", "reactive"),
        ("lsd", "bullet_map"),
        ("lsd_scout", "bullet_map"),
        ("rps", "reactive"),
        ("rps", "wary"),
        ("rps7", "trigger"),
        ("pennies", "reactive_pair"),
        ("pd", "reactive_pair"),
        ("lsd_scout", "patient"),
        ("cards", "median"),
    ),
    "hard": (
        ("rps", "reactive_pair"),
        ("rps7", "reactive"),
        ("rps7", "wary"),
        ("rps7", "mixed_weights"),
        ("anti_rps", "reactive_pair"),
        ("anti_rps", "wary"),
        ("pennies", "wary"),
        ("pd", "mixed_weights"),
        ("lsd", "patient"),
        ("lsd", "mixed_subset"),
        ("lsd_scout", "mixed_subset"),
        ("cards", "piles"),
        ("rps", "reactive_memory"),
        ("anti_rps", "reactive_memory"),
        ("pennies", "reactive_memory"),
        ("pd", "reactive_memory"),
    ),
}


def pairs(level: str) -> tuple[tuple[str, str], ...]:
    """The (game, strategy kind) pairs offered at ``level``, in a fixed order."""
    if level not in LEVEL_PAIRS:
        raise GameError(f"unknown level {level!r}; levels: {', '.join(LEVEL_PAIRS)}")
    return LEVEL_PAIRS[level]
