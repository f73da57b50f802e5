"""What box code may import, and the compile-time check (safe to run in-process)."""

from __future__ import annotations

from sandbox._compile import compile_box
from sandbox._curated import ALLOWED_MODULES

__all__ = ["ALLOWED_MODULES", "compile_check"]


def compile_check(code: str) -> list[str]:
    """RestrictedPython's refusals plus the import policy's; empty if the code compiles.

    Only compiles (never executes), so it is safe in the caller's process.
    """
    return list(compile_box(code).errors)
