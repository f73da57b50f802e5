"""Restricted compilation plus the static import policy.

Compiling is safe in any process (no box code runs); executing never is. Both
the parent (``compile_check``, to refuse early) and the worker use this.
"""

from __future__ import annotations

import ast
import warnings
from dataclasses import dataclass
from types import CodeType

from RestrictedPython import compile_restricted_exec

from oracle_bench.pyast import AST_LOCK
from sandbox._curated import ALLOWED_MODULES, MODULE_MEMBERS

BOX_FILENAME = "<blackbox>"
_ALLOWED_LISTING = ", ".join(sorted(ALLOWED_MODULES))
NESTED_TOO_DEEPLY = "code is nested too deeply"
NOT_UNICODE = "code is not valid Unicode (it contains a lone surrogate)"


@dataclass(frozen=True)
class CompiledBox:
    code: CodeType | None
    errors: tuple[str, ...]


def import_errors(tree: ast.AST) -> list[str]:
    """Every import that names a module or member outside the curated whitelist."""
    errors: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name not in ALLOWED_MODULES:
                    errors.append(
                        f"Line {node.lineno}: import of module {alias.name!r} is not allowed "
                        f"(allowed: {_ALLOWED_LISTING})"
                    )
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                errors.append(f"Line {node.lineno}: relative imports are not allowed")
                continue
            module = node.module or ""
            if module not in ALLOWED_MODULES:
                errors.append(
                    f"Line {node.lineno}: import of module {module!r} is not allowed "
                    f"(allowed: {_ALLOWED_LISTING})"
                )
                continue
            for alias in node.names:
                if alias.name != "*" and alias.name not in MODULE_MEMBERS[module]:
                    errors.append(
                        f"Line {node.lineno}: cannot import {alias.name!r} from {module!r} "
                        "in a black box"
                    )
    return errors


def compile_box(source: str) -> CompiledBox:
    """RestrictedPython's verdict first, then the import policy on the parsed tree.

    Never raises for hostile source: pathological nesting (RecursionError, or the
    parser's MemoryError) and strings with lone surrogates become refusals.
    """
    try:
        return _compile_box(source)
    except (RecursionError, MemoryError):
        return CompiledBox(code=None, errors=(NESTED_TOO_DEEPLY,))
    except UnicodeError:
        return CompiledBox(code=None, errors=(NOT_UNICODE,))


def _compile_box(source: str) -> CompiledBox:
    with AST_LOCK, warnings.catch_warnings():
        # RestrictedPython warns about e.g. unused print; those are not refusals.
        warnings.simplefilter("ignore")
        result = compile_restricted_exec(source, filename=BOX_FILENAME)
        tree = None if result.errors else ast.parse(source, filename=BOX_FILENAME)
    errors = list(result.errors)
    if tree is not None:
        errors.extend(import_errors(tree))
    if errors:
        return CompiledBox(code=None, errors=tuple(errors))
    return CompiledBox(code=result.code, errors=())
