"""What box code may import, and the compile-time check (safe to run in-process)."""

from __future__ import annotations

from typing import Final

from sandbox._compile import compile_box
from sandbox._curated import ALLOWED_MODULES
from sandbox._guards import _FORBIDDEN_BUILTINS, WriteGuard, make_builtins

__all__ = ["ALLOWED_MODULES", "HOOK_BUILTINS", "allowed_builtins", "compile_check"]

HOOK_BUILTINS: Final = ("checkpoint",)
"""Builtins every box has on top of :func:`allowed_builtins`, for families that ask for
them (``checkpoint(index, **values)``: see ``SandboxWorker.call``'s ``trace``); left out
of ``allowed_builtins`` so that prompts of other families do not mention them."""


def compile_check(code: str) -> list[str]:
    """RestrictedPython's refusals plus the import policy's; empty if the code compiles.

    Only compiles (never executes), so it is safe in the caller's process.
    """
    return list(compile_box(code).errors)


def allowed_builtins() -> list[str]:
    """The builtin functions and types box code may call (exception classes left out),
    exactly as the worker builds them; for prompts that must tell a coder the rules."""
    names = make_builtins(WriteGuard(), {})
    usable = []
    for name, value in names.items():
        if name.startswith("_") or name in _FORBIDDEN_BUILTINS or not callable(value):
            continue
        if isinstance(value, type) and issubclass(value, BaseException):
            continue
        usable.append(name)
    return sorted(usable)
