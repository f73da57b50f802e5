"""ORACLE's turn@shot episodes (CII, CRI, PSI, ERI): ``protocol`` (one episode),
``trajectory`` (its record), ``metrics`` (information per turn), ``summary`` (tables and
files), ``agents`` and ``baselines`` (the agents' context and the random, fixed and
adaptive baselines), ``llm`` and ``human`` (an LLM and a person as agents)."""

from __future__ import annotations

from evaluator.kinds.turns._kind import (
    INVALID_TURNS_MODES,
    InvalidTurns,
    TurnsKind,
    TurnsSettings,
)

__all__ = ["INVALID_TURNS_MODES", "InvalidTurns", "TurnsKind", "TurnsSettings"]
