"""The executors by name: each module registers its own, next to its definition.

Looking one up imports the built-in executor modules, which import nothing heavy: the
Ray executor imports ``ray`` only when it is made.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from evaluator.executors._base import Executor, ExecutorFactory
from oracle_bench.errors import UnknownNameError

__all__ = ["executor_names", "make_executor", "register_executor"]

_BUILTIN = ("evaluator.executors.local", "evaluator.executors.ray_executor")
_REGISTRY: dict[str, ExecutorFactory] = {}

_F = TypeVar("_F", bound=ExecutorFactory)


def register_executor(name: str) -> Callable[[_F], _F]:
    """Decorator: register a factory (a class taking its options) under ``name``."""

    def register(factory: _F) -> _F:
        if name in _REGISTRY:
            raise ValueError(f"executor {name!r} registered twice")
        _REGISTRY[name] = factory
        return factory

    return register


def _load() -> None:
    for module in _BUILTIN:
        importlib.import_module(module)


def executor_names() -> list[str]:
    """The registered executors, sorted."""
    _load()
    return sorted(_REGISTRY)


def make_executor(name: str, options: Mapping[str, Any] | None = None) -> Executor:
    """The executor ``name`` made with ``options``; ``UnknownNameError`` (a ``UsageError``)
    listing the executors for an unknown name."""
    _load()
    factory = _REGISTRY.get(name)
    if factory is None:
        raise UnknownNameError("executor", name, sorted(_REGISTRY))
    return factory(dict(options or {}))
