"""Small pieces every kind's run shares: reading back a stored record, closing an agent,
telling an LLM agent's name."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from evaluator.records import CorruptTrajectoryError

__all__ = ["close_agent", "is_llm_name", "stored_record"]

log = logging.getLogger(__name__)

_T = TypeVar("_T")


def stored_record(path: Path, load: Callable[[Path], _T]) -> _T | None:
    """The record at ``path``, or None if there is none or it is corrupt (then rerun)."""
    if not path.exists():
        return None
    try:
        return load(path)
    except CorruptTrajectoryError as exc:
        log.warning("rerunning episode: %s", exc)
        return None


def close_agent(agent: object) -> None:
    """Close an agent that has a ``close`` (an LLM agent's provider); never raises."""
    close = getattr(agent, "close", None)
    if close is None:
        return
    try:
        close()
    except Exception as exc:  # closing must not turn a finished episode into a failure
        log.warning("closing agent failed: %s: %s", type(exc).__name__, exc)


def is_llm_name(name: str) -> bool:
    """True for ``provider/model`` agent names."""
    if "/" not in name:
        return False
    from evaluator.llm_agents import is_llm_agent

    return is_llm_agent(name)
