"""Package hygiene: sorted, importable ``__all__`` and the layer rule of DESIGN.md."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = [
    "oracle_bench",
    "blackboxes",
    "sandbox",
    "providers",
    "generator",
    "evaluator",
    "templates",
]
# Lower layers never import higher ones (DESIGN.md "Layout").
ALLOWED = {
    "oracle_bench": set(),
    "templates": set(),
    "blackboxes": {"oracle_bench"},
    "providers": {"oracle_bench"},
    "sandbox": {"oracle_bench", "blackboxes"},
    "generator": {"oracle_bench", "blackboxes", "sandbox", "providers", "templates"},
    "evaluator": {"oracle_bench", "blackboxes", "sandbox", "providers", "templates"},
}


@pytest.mark.parametrize("name", PACKAGES)
def test_all_is_sorted_and_importable(name: str) -> None:
    module = importlib.import_module(name)
    exported = list(getattr(module, "__all__", []))
    assert exported == sorted(exported)
    for attr in exported:
        assert hasattr(module, attr), f"{name}.{attr}"


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
    return found


@pytest.mark.parametrize("name", PACKAGES)
def test_layers(name: str) -> None:
    bad = []
    for path in sorted((ROOT / name).rglob("*.py")):
        for imported in _imports(path) & set(PACKAGES):
            if imported != name and imported not in ALLOWED[name]:
                bad.append(f"{path.relative_to(ROOT)} imports {imported}")
    assert bad == []


def test_only_generator_imports_langgraph() -> None:
    offenders = [
        str(path.relative_to(ROOT))
        for pkg in PACKAGES
        if pkg != "generator"
        for path in (ROOT / pkg).rglob("*.py")
        if "langgraph" in _imports(path)
    ]
    assert offenders == []
