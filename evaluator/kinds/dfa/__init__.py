"""DFA episodes (the automata-learning seed): ``protocol`` (membership and equivalence
queries until an EQ is accepted or the budget is spent), ``trajectory`` (the record),
``metrics`` (the paper's and the world-model metrics), ``summary`` (tables and files),
``agents`` (L*, KV, TTT), ``llm`` and ``human`` (an LLM and a person as agents)."""

from __future__ import annotations

from evaluator.kinds.dfa._kind import DfaKind, DfaReport, DfaSettings

__all__ = ["DfaKind", "DfaReport", "DfaSettings"]
