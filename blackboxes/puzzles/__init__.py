"""Interactive puzzles (ORACLE's IPI): public rules, a hidden answer, probes and feedback.

A pure, trusted domain layer: each kind gives its answer set, reference feedback and its
likelihood, lenient parsing, the rules text, and a version space for the baselines.
Importing the package registers every kind.
"""

from __future__ import annotations

# Each kind module registers its kinds when imported.
from blackboxes.puzzles import (  # noqa: F401
    bandit,
    battleship,
    codes,
    coins,
    designed,
    numbers,
    nuts_bolts,
    twenty_questions,
    wordle,
)
from blackboxes.puzzles._base import (
    MAX_ANSWERS,
    DeterministicKind,
    NoisyKind,
    PuzzleError,
    PuzzleKind,
    PuzzleSpace,
    get_puzzle,
    puzzle_names,
    register_puzzle,
)

__all__ = [  # noqa: RUF022 (plain sorted order, tests/test_layout.py)
    "DeterministicKind",
    "MAX_ANSWERS",
    "NoisyKind",
    "PuzzleError",
    "PuzzleKind",
    "PuzzleSpace",
    "get_puzzle",
    "puzzle_names",
    "register_puzzle",
]
