"""The LangGraph state of one candidate box: JSON-like values only.

JSON-like so a checkpointer (SQLite, for resumable suites) stores it as is: LLM
call records are kept as ``CallRecord.model_dump(mode="json")`` dicts.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

__all__ = ["CandidateState"]


class CandidateState(TypedDict, total=False):
    box_id: str
    family: str
    level: str
    kind: str
    params: dict[str, Any]
    description: str
    """The neutral description the coder implements (the rule's, or the designer's)."""
    has_reference: bool
    """False when an LLM designed the rule: no trusted reference, no differential test."""
    formal: bool
    """True when the rule came from a family's formal design (``kind`` and ``params``)."""
    design_params: dict[str, Any]
    """A formal design's parameters before any measurement of a candidate's code."""
    design_calls: list[dict[str, Any]]
    """The designer's LLM calls; recorded with the first attempt."""
    code: str
    template: str
    attempt: int
    """Attempts made so far; the router stops at ``max_attempts``."""
    pending_calls: list[dict[str, Any]]
    """LLM calls of the current attempt so far (coder, tester), moved into its record."""
    report: dict[str, Any]
    """The tester's findings for the current code (see ``CandidateReport.to_json``)."""
    play_log: str | None
    """The test player's episode against the current code, rendered; None without one."""
    verdict: str
    reasons: list[str]
    changes: list[str]
    """What the refiner asked to change in the current code."""
    evidence: list[str]
    """The tester's failing examples and errors for the current code."""
    attempts: Annotated[list[dict[str, Any]], operator.add]
    """Every attempt's record, appended by the refiner."""
    status: str
    """``accepted`` or ``rejected`` once the graph ends."""
