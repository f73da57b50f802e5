"""The LangGraph state of one candidate box: JSON-like values only."""

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
    code: str
    template: str
    attempt: int
    """Attempts made so far; the router stops at ``max_attempts``."""
    report: dict[str, Any]
    """The tester's findings for the current code (see ``CandidateReport.to_json``)."""
    verdict: str
    reasons: list[str]
    attempts: Annotated[list[dict[str, Any]], operator.add]
    """Every attempt's record, appended by the refiner."""
    status: str
    """``accepted`` or ``rejected`` once the graph ends."""
