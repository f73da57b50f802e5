"""Puzzle episodes (IPI: known rules, hidden answers): ``protocol`` (K instances, each
probed then answered), ``trajectory`` (the record), ``metrics`` (information per probe
over the exact version space), ``summary`` (tables and files), ``baselines`` (random,
fixed, adaptive), ``llm`` and ``human`` (an LLM and a person as agents)."""

from __future__ import annotations

from evaluator.kinds.puzzle._kind import (
    PuzzleEpisodeKind,
    PuzzleReport,
    PuzzleSettings,
)

__all__ = ["PuzzleEpisodeKind", "PuzzleReport", "PuzzleSettings"]
