"""The puzzle agents' registry: light, so that listing the agents (``--help``) imports
neither the baselines nor the puzzles behind them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from oracle_bench.errors import UnknownNameError

__all__ = [
    "BUILTIN_AGENTS",
    "check_puzzle_agent_name",
    "make_puzzle_agent",
    "puzzle_agent_names",
    "register_puzzle_agent",
]

BUILTIN_AGENTS = ("adaptive", "fixed", "random")
"""Registered by ``evaluator.kinds.puzzle.baselines`` when it is imported."""

PuzzleAgentFactory = Callable[[Any], Any]
_REGISTRY: dict[str, PuzzleAgentFactory] = {}


def register_puzzle_agent(name: str) -> Callable[[PuzzleAgentFactory], PuzzleAgentFactory]:
    """Decorator: register a puzzle agent factory (``PuzzleAgentContext -> PuzzleAgent``)."""

    def deco(factory: PuzzleAgentFactory) -> PuzzleAgentFactory:
        if name in _REGISTRY:
            raise ValueError(f"puzzle agent {name!r} registered twice")
        _REGISTRY[name] = factory
        return factory

    return deco


def puzzle_agent_names() -> list[str]:
    """The puzzle agents, sorted (the built-in ones without importing them)."""
    return sorted(set(BUILTIN_AGENTS) | set(_REGISTRY))


def check_puzzle_agent_name(name: str) -> str:
    """``name`` if it is a puzzle agent, else :class:`UnknownNameError` listing them."""
    if name not in puzzle_agent_names():
        raise UnknownNameError("puzzle agent", name, puzzle_agent_names())
    return name


def make_puzzle_agent(name: str, ctx: Any) -> Any:
    """Build the puzzle agent ``name`` for a ``PuzzleAgentContext``."""
    check_puzzle_agent_name(name)
    if name not in _REGISTRY:
        from evaluator.kinds.puzzle import baselines  # noqa: F401 (registers the built-ins)
    return _REGISTRY[name](ctx)
