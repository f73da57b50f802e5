"""Small parameters of every puzzle kind, for exhaustive checks."""

from __future__ import annotations

from typing import Any

SMALL: dict[str, dict[str, Any]] = {
    "bandit": {"percents": [70, 20, 20]},
    "battleship_fleet": {"rows": 3, "cols": 4, "ships": [3, 2], "bombs": 1},
    "battleship_one": {"rows": 4, "cols": 5, "ship": 3},
    "bulls_and_cows": {"length": 3, "digits": 5},
    "coin_heavy": {"coins": 5},
    "coin_heavy_light": {"coins": 4},
    "coin_lying": {"coins": 5, "lie_percent": 20},
    "mastermind": {"pegs": 3, "colours": 3},
    "number_far_close": {"n": 20, "close": 3},
    "number_higher_lower": {"n": 20},
    "nuts_and_bolts": {"size": 5, "pairs": 2},
    "twenty_questions": {"n": 12, "forms": ["compare", "parity", "divisible", "set"], "set_max": 3},
    "wordle": {"length": 5, "words": 40},
}
"""Exactly one entry per registered kind (test_registry checks)."""

MEDIUM: dict[str, dict[str, Any]] = {
    "bandit": {"percents": [60, 50, 30, 30]},
    "battleship_fleet": {"rows": 5, "cols": 5, "ships": [3, 2], "bombs": 1},
    "battleship_one": {"rows": 8, "cols": 8, "ship": 3},
    "bulls_and_cows": {"length": 4, "digits": 8},
    "coin_heavy": {"coins": 30},
    "coin_heavy_light": {"coins": 12},
    "coin_lying": {"coins": 20, "lie_percent": 10},
    "mastermind": {"pegs": 4, "colours": 5},
    "number_far_close": {"n": 100, "close": 10},
    "number_higher_lower": {"n": 300},
    "nuts_and_bolts": {"size": 6, "pairs": 2},
    "twenty_questions": {"n": 120, "forms": ["divisible", "set"], "set_max": 5},
    "wordle": {"length": 5, "words": 500},
}
