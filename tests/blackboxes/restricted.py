"""Run rendered box code under RestrictedPython in process, as the ERI template tests do."""

from __future__ import annotations

from typing import Any

from RestrictedPython import compile_restricted_exec, safe_globals
from RestrictedPython.Eval import default_guarded_getitem, default_guarded_getiter
from RestrictedPython.Guards import guarded_iter_unpack_sequence, safer_getattr


def restricted_blackbox(code: str, **builtins: Any) -> Any:
    """The ``blackbox`` function of ``code`` compiled and run under RestrictedPython's
    guards (the sandbox's policy layer; the process isolation is tested elsewhere), with
    ``builtins`` added (CII's ``checkpoint`` hook, say)."""
    result = compile_restricted_exec(code)
    assert not result.errors and result.code is not None, result.errors
    env: dict[str, Any] = dict(safe_globals)
    env.update(
        _getiter_=default_guarded_getiter,
        _getitem_=default_guarded_getitem,
        _getattr_=safer_getattr,
        _iter_unpack_sequence_=guarded_iter_unpack_sequence,
        __name__="blackbox",
    )
    env["__builtins__"] = dict(
        env["__builtins__"],
        sorted=sorted,
        reversed=reversed,
        enumerate=enumerate,
        **builtins,
    )
    exec(result.code, env)
    return env["blackbox"]
