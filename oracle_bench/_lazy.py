"""Lazy package exports (PEP 562): a package's public names, imported on first use.

A package ``__init__`` imports its names for type checkers only and hands the runtime a
map from submodule to names, so that importing the package (or one light submodule of
it, such as a CLI parser) does not import every heavy dependency behind it::

    if TYPE_CHECKING:
        from evaluator.runner import evaluate_suite
    else:
        __getattr__, __dir__ = lazy_exports(__name__, {"evaluator.runner": ("evaluate_suite",)})

mypy sees only the imports (a module ``__getattr__`` would turn every misspelt name into
``Any``); ``from evaluator import evaluate_suite`` imports ``evaluator.runner`` then.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, exports: Mapping[str, Iterable[str]]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package`` exporting, from each submodule of
    ``exports``, the names listed for it. A name is imported once, then cached on the package."""
    where = {name: module for module, names in exports.items() for name in names}

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(where))

    return __getattr__, __dir__
