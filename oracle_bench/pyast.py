"""Python parsing that is safe from threads.

CPython before 3.12 keeps the AST constructor's recursion counter in one per-interpreter
state: two threads building syntax trees at once (``ast.parse``, ``ast.literal_eval``,
``compile`` of a tree) can interleave their counts, and the later one fails with
``SystemError: AST constructor recursion depth mismatch`` (CPython gh-106905). The
generator checks candidates in threads and starts sandbox workers from threads, and each
start parses the box's code, so every parse in this project goes through one lock.
"""

from __future__ import annotations

import ast
import threading
from typing import Any

__all__ = ["AST_LOCK", "literal_eval", "parse"]

AST_LOCK = threading.RLock()
"""Held while a syntax tree is built or compiled; take it around third-party code that
parses (RestrictedPython's compiler). Re-entrant, so a finalizer that parses while its
thread holds it cannot deadlock."""


def parse(source: str, filename: str = "<unknown>", mode: str = "exec") -> ast.AST:
    """``ast.parse`` under :data:`AST_LOCK`."""
    with AST_LOCK:
        return ast.parse(source, filename=filename, mode=mode)


def literal_eval(text: str) -> Any:
    """``ast.literal_eval`` under :data:`AST_LOCK`."""
    with AST_LOCK:
        return ast.literal_eval(text)
