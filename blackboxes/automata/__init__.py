"""Automata machinery: DFAs on plain arrays, the MQ/EQ oracle, uniform sampling, exact
counting, active and passive learners, and exact language metrics. Pure, trusted Python."""

from __future__ import annotations

from typing import TYPE_CHECKING

from oracle_bench._lazy import lazy_exports

if TYPE_CHECKING:
    from blackboxes.automata.counting import (
        MinimalDfaCount,
        accessible_dfas,
        accessible_structures,
        log2_minimal_dfas,
        minimal_dfa_count,
        minimal_dfa_log2_count,
    )
    from blackboxes.automata.dfa import DFA
    from blackboxes.automata.learners import LEARNERS, LearnResult, kv, learn, lstar, ttt
    from blackboxes.automata.metrics import (
        MyhillNerodeScores,
        disagreement_counts,
        myhill_nerode_scores,
        similarity,
    )
    from blackboxes.automata.oracle import (
        COUNTEREXAMPLE_MODES,
        CountedOracle,
        CounterexampleMode,
        Oracle,
        TargetOracle,
        counterexample,
    )
    from blackboxes.automata.passive import PASSIVE_LEARNERS, blue_fringe, edsm, recovers, rpni
    from blackboxes.automata.sampling import sample_accessible_structure, sample_minimal_dfa
    from blackboxes.automata.submission import InvalidDfaError, parse_submission
else:
    __getattr__, __dir__ = lazy_exports(
        __name__,
        {
            "blackboxes.automata.counting": (
                "MinimalDfaCount",
                "accessible_dfas",
                "accessible_structures",
                "log2_minimal_dfas",
                "minimal_dfa_count",
                "minimal_dfa_log2_count",
            ),
            "blackboxes.automata.dfa": ("DFA",),
            "blackboxes.automata.learners": (
                "LEARNERS",
                "LearnResult",
                "kv",
                "learn",
                "lstar",
                "ttt",
            ),
            "blackboxes.automata.metrics": (
                "MyhillNerodeScores",
                "disagreement_counts",
                "myhill_nerode_scores",
                "similarity",
            ),
            "blackboxes.automata.oracle": (
                "COUNTEREXAMPLE_MODES",
                "CountedOracle",
                "CounterexampleMode",
                "Oracle",
                "TargetOracle",
                "counterexample",
            ),
            "blackboxes.automata.passive": (
                "PASSIVE_LEARNERS",
                "blue_fringe",
                "edsm",
                "recovers",
                "rpni",
            ),
            "blackboxes.automata.sampling": ("sample_accessible_structure", "sample_minimal_dfa"),
            "blackboxes.automata.submission": ("InvalidDfaError", "parse_submission"),
        },
    )

__all__ = [
    "COUNTEREXAMPLE_MODES",
    "DFA",
    "LEARNERS",
    "PASSIVE_LEARNERS",
    "CountedOracle",
    "CounterexampleMode",
    "InvalidDfaError",
    "LearnResult",
    "MinimalDfaCount",
    "MyhillNerodeScores",
    "Oracle",
    "TargetOracle",
    "accessible_dfas",
    "accessible_structures",
    "blue_fringe",
    "counterexample",
    "disagreement_counts",
    "edsm",
    "kv",
    "learn",
    "log2_minimal_dfas",
    "lstar",
    "minimal_dfa_count",
    "minimal_dfa_log2_count",
    "myhill_nerode_scores",
    "parse_submission",
    "recovers",
    "rpni",
    "sample_accessible_structure",
    "sample_minimal_dfa",
    "similarity",
    "ttt",
]
