"""Run rendered box code in process under the sandbox's own policy layer (template tests)."""

from __future__ import annotations

import random
from typing import Any

from sandbox._compile import compile_box
from sandbox._curated import build_modules, make_import_guard
from sandbox._guards import WriteGuard, make_builtins, make_globals


def restricted_blackbox(code: str, **builtins: Any) -> Any:
    """The ``blackbox`` function of ``code`` compiled and run with the worker's policy
    layer (RestrictedPython, its guards, curated builtins and modules) but not its process
    isolation, which is tested elsewhere; ``builtins`` are added (CII's ``checkpoint``)."""
    compiled = compile_box(code)
    assert not compiled.errors and compiled.code is not None, compiled.errors
    modules = build_modules(random.Random(0))
    write_guard = WriteGuard()
    names = make_builtins(write_guard, modules)
    names["__import__"] = make_import_guard(modules)
    names.update(builtins)
    env = make_globals(names, write_guard)
    exec(compiled.code, env)
    return env["blackbox"]
