"""Game episodes (GSI: a known game, a hidden opponent strategy): ``protocol`` (K
settings, each explored by whole games then played for score against the exact optimum),
``trajectory`` (the record), ``summary`` (tables and files), ``baselines`` (random,
fixed, adaptive exploration), ``llm`` and ``human`` (an LLM and a person as agents)."""

from __future__ import annotations

from evaluator.kinds.game._kind import GameEpisodeKind, GameReport, GameSettings

__all__ = ["GameEpisodeKind", "GameReport", "GameSettings"]
