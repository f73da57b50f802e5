"""What a published image must hold to serve a suite: the project's packages and the
third-party distributions the serve path imports, found by reading the source.

The third-party part is a static import scan (every ``import``, also those inside
functions, but not under ``if TYPE_CHECKING``) of the packages the server runs: the
serve modules, the sandbox, the box store, and the suite's own family and episode kind
(with every project module they reach). The imported top-level names are mapped to the
installed distributions and expanded over their requirements. A family that imports
SciPy on use gets SciPy; a family that does not, does not pay for it. The integrations
no served box needs (Ray, Inspect, gymnasium, the LLM SDKs, Docker) are left out.
"""

from __future__ import annotations

import ast
import importlib.metadata as md
import re
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from oracle_bench.errors import PublishError

__all__ = [
    "EXCLUDED_DISTRIBUTIONS",
    "PROJECT_PACKAGES",
    "SERVE_ROOTS",
    "Distribution",
    "serve_distributions",
    "third_party_imports",
]

PROJECT_PACKAGES = ("blackboxes", "evaluator", "oracle_bench", "providers", "sandbox", "templates")
"""The project's packages a published image holds (not the generator: the evaluator never
imports it)."""
SERVE_ROOTS = ("blackboxes.store", "evaluator.serve", "sandbox")
"""Packages and modules the server runs for any suite; the family and kind are added."""
CORE_DISTRIBUTIONS = ("RestrictedPython", "jinja2", "pydantic", "rich")
"""Imported on every serve path whatever the scan finds (the sandbox compiles with
RestrictedPython in the parent; the kinds' summaries import rich at module level)."""
EXCLUDED_DISTRIBUTIONS = frozenset(
    {
        "aalpy",
        "anthropic",
        "docker",
        "gymnasium",
        "inspect-ai",
        "langgraph",
        "langgraph-checkpoint-sqlite",
        "matplotlib",
        "openai",
        "oracle-bench",
        "ray",
    }
)
"""Normalised names of distributions no served box imports (integrations, LLM clients,
plotting), and the project itself (copied from its source): left out even when a scanned
module imports them on some other path."""

_SOURCE_ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Distribution:
    """One installed third-party distribution: its name, version and files."""

    name: str
    version: str
    root: Path
    """The folder its files are relative to (site-packages)."""
    files: tuple[str, ...]
    """Posix paths relative to ``root``, inside it, without bytecode caches."""


def _normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _module_file(name: str) -> tuple[Path | None, bool]:
    path = _SOURCE_ROOT.joinpath(*name.split("."))
    if (path / "__init__.py").is_file():
        return path / "__init__.py", True
    if path.with_suffix(".py").is_file():
        return path.with_suffix(".py"), False
    return None, False


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


class _Imports(ast.NodeVisitor):
    def __init__(self, package: str) -> None:
        self.package = package
        self.names: set[str] = set()

    def visit_If(self, node: ast.If) -> None:
        if _is_type_checking(node.test):
            for child in node.orelse:
                self.visit(child)
            return
        self.generic_visit(node)

    def visit_Import(self, node: ast.Import) -> None:
        self.names.update(alias.name for alias in node.names)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level:
            parts = self.package.split(".")
            parts = parts[: len(parts) - (node.level - 1)]
            module = ".".join([*parts, node.module] if node.module else parts)
        else:
            module = node.module or ""
        self.names.add(module)
        # ``from pkg import sub`` may name a submodule: followed if it is one.
        self.names.update(f"{module}.{alias.name}" for alias in node.names)


def _imports_of(name: str) -> set[str]:
    path, is_package = _module_file(name)
    if path is None:
        return set()
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except (OSError, SyntaxError, UnicodeDecodeError) as exc:
        raise PublishError(f"cannot read {path} to find what it imports: {exc}") from None
    visitor = _Imports(name if is_package else name.rpartition(".")[0])
    visitor.visit(tree)
    parts = name.split(".")
    visitor.names.update(".".join(parts[:i]) for i in range(1, len(parts)))
    return visitor.names


def _subtree(name: str) -> list[str]:
    """``name`` and, for a package, every module under it: registries import a
    family's or kind's modules by name, which no ``import`` statement shows."""
    path, is_package = _module_file(name)
    if path is None or not is_package:
        return [name]
    names = [name]
    for child in sorted(path.parent.iterdir()):
        if child.suffix == ".py" and child.stem != "__init__":
            names.append(f"{name}.{child.stem}")
        elif (child / "__init__.py").is_file():
            names.extend(_subtree(f"{name}.{child.name}"))
    return names


def third_party_imports(roots: tuple[str, ...]) -> frozenset[str]:
    """Top-level names outside the standard library and the project imported by the
    project modules reachable from ``roots`` (a package root with all its modules)."""
    seen: set[str] = set()
    found: set[str] = set()
    stack = [module for root in roots for module in _subtree(root)]
    while stack:
        name = stack.pop()
        if not name or name in seen:
            continue
        seen.add(name)
        top = name.partition(".")[0]
        if top in PROJECT_PACKAGES:
            stack.extend(_imports_of(name))
        elif top not in sys.stdlib_module_names and top not in ("__future__", "generator"):
            found.add(top)
    return frozenset(found)


@cache
def _top_level_map() -> dict[str, tuple[str, ...]]:
    return {top: tuple(names) for top, names in md.packages_distributions().items()}


def _requirements(dist: md.Distribution) -> list[str]:
    names = []
    for requirement in dist.requires or []:
        spec, _, marker = requirement.partition(";")
        if "extra" in marker:
            continue
        names.append(re.split(r"[\s<>=!~\[(;@]", spec.strip(), maxsplit=1)[0])
    return names


def _files(dist: md.Distribution) -> tuple[Path, tuple[str, ...]]:
    root = Path(str(dist.locate_file(""))).resolve()
    files = []
    for entry in dist.files or []:
        relative = Path(str(entry))
        if ".." in relative.parts or "__pycache__" in relative.parts:
            continue  # console scripts in bin/, and bytecode the build compiles afresh
        files.append(relative.as_posix())
    return root, tuple(sorted(files))


def serve_distributions(family_module: str, kind_module: str) -> tuple[Distribution, ...]:
    """The installed distributions a server of a suite needs, sorted by name: the core
    ones, what the serve roots plus ``family_module`` and ``kind_module`` (their packages)
    import, and everything those require. Raises ``PublishError`` when one is not
    installed here."""
    roots = (*SERVE_ROOTS, family_module.rpartition(".")[0], kind_module.rpartition(".")[0])
    wanted = list(CORE_DISTRIBUTIONS)
    tops = _top_level_map()
    for top in sorted(third_party_imports(roots)):
        wanted.extend(tops.get(top, ()))
    chosen: dict[str, Distribution] = {}
    while wanted:
        name = wanted.pop()
        key = _normalise(name)
        if key in chosen or key in EXCLUDED_DISTRIBUTIONS:
            continue
        try:
            dist = md.distribution(name)
        except md.PackageNotFoundError:
            if name in CORE_DISTRIBUTIONS:
                raise PublishError(f"{name} is not installed here: cannot publish") from None
            continue  # a requirement for another platform or Python (its marker said so)
        root, files = _files(dist)
        chosen[key] = Distribution(dist.metadata["Name"], dist.version, root, files)
        wanted.extend(_requirements(dist))
    return tuple(chosen[key] for key in sorted(chosen))
