"""Lazy package exports: the helper, and every package's map against its typed imports."""

from __future__ import annotations

import ast
import importlib
import sys
import types
from pathlib import Path

import pytest

from oracle_bench._lazy import lazy_exports

ROOT = Path(__file__).resolve().parents[2]
LAZY_PACKAGES = [
    "oracle_bench",
    "blackboxes",
    "blackboxes.automata",
    "blackboxes.families",
    "sandbox",
    "providers",
    "generator",
    "evaluator",
]


def _typed_imports(package: str) -> dict[str, str]:
    """name -> module of the ``from M import name`` lines under ``if TYPE_CHECKING:``."""
    path = ROOT / package.replace(".", "/") / "__init__.py"
    found: dict[str, str] = {}
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for stmt in node.body:
                assert isinstance(stmt, ast.ImportFrom) and stmt.module, ast.unparse(stmt)
                found.update((alias.name, stmt.module) for alias in stmt.names)
    return found


@pytest.mark.parametrize("package", LAZY_PACKAGES)
def test_every_typed_name_is_exported_and_resolves_to_its_module(package: str) -> None:
    module = importlib.import_module(package)
    # Typed imports outside __all__ are only there for annotations.
    typed = {k: v for k, v in _typed_imports(package).items() if k in module.__all__}
    assert typed, "no lazy names"
    for name, source in typed.items():
        assert getattr(module, name) is getattr(importlib.import_module(source), name), name
    # What is not lazy is defined by the package itself, before any name is asked for.
    assert set(module.__all__) - set(typed) <= set(vars(module))


@pytest.mark.parametrize("package", LAZY_PACKAGES)
def test_dir_lists_the_names_before_they_are_imported(package: str) -> None:
    assert set(importlib.import_module(package).__all__) <= set(dir(sys.modules[package]))


@pytest.fixture
def package(monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    """A throwaway package exporting ``dumps`` from json and ``sqrt`` from math."""
    module = types.ModuleType("lazy_probe")
    monkeypatch.setitem(sys.modules, "lazy_probe", module)
    module.__getattr__, module.__dir__ = lazy_exports(  # type: ignore[method-assign]
        "lazy_probe", {"json": ("dumps",), "math": ("sqrt",)}
    )
    return module


def test_a_name_is_imported_on_first_use_then_cached(package: types.ModuleType) -> None:
    import json

    assert "dumps" not in vars(package)
    assert package.dumps is json.dumps
    assert vars(package)["dumps"] is json.dumps
    assert "sqrt" not in vars(package)


def test_an_unknown_name_is_an_attribute_error(package: types.ModuleType) -> None:
    with pytest.raises(AttributeError, match="module 'lazy_probe' has no attribute 'loads'"):
        _ = package.loads
    assert not hasattr(package, "loads")


def test_from_import_goes_through_the_map(package: types.ModuleType) -> None:
    from lazy_probe import sqrt  # type: ignore[import-not-found]

    assert sqrt(9.0) == 3.0
    with pytest.raises(ImportError, match="cannot import name 'loads'"):
        from lazy_probe import loads  # noqa: F401


def test_dir_is_sorted_and_holds_lazy_and_defined_names(package: types.ModuleType) -> None:
    listed = dir(package)
    assert listed == sorted(listed)
    assert {"dumps", "sqrt", "__name__"} <= set(listed)
