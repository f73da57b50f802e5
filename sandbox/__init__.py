"""Running untrusted box code: restricted, in an isolated worker process, never in-process.

Layers (see ``SandboxWorker.layers``): a separate ``python`` process with an
empty environment in its own session and network namespace, rlimits, a dropped
uid (when started as root), no_new_privs and a seccomp deny-list, and inside it
RestrictedPython with curated builtins and curated stand-ins for a few stdlib
modules (``ALLOWED_MODULES``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from oracle_bench._lazy import lazy_exports

if TYPE_CHECKING:
    from sandbox.layers import ALL_LAYERS, IsolationPolicy, available_layers
    from sandbox.limits import SandboxLimits
    from sandbox.policy import ALLOWED_MODULES, HOOK_BUILTINS, allowed_builtins, compile_check
    from sandbox.pool import WorkerPool
    from sandbox.results import CallError, CallResult, ErrorKind, JSONValue
    from sandbox.trace import MAX_CHECKPOINT, TraceRequest, call_box
    from sandbox.worker import SandboxWorker, run_once
else:
    __getattr__, __dir__ = lazy_exports(
        __name__,
        {
            "sandbox.layers": ("ALL_LAYERS", "IsolationPolicy", "available_layers"),
            "sandbox.limits": ("SandboxLimits",),
            "sandbox.policy": (
                "ALLOWED_MODULES",
                "HOOK_BUILTINS",
                "allowed_builtins",
                "compile_check",
            ),
            "sandbox.pool": ("WorkerPool",),
            "sandbox.results": ("CallError", "CallResult", "ErrorKind", "JSONValue"),
            "sandbox.trace": ("MAX_CHECKPOINT", "TraceRequest", "call_box"),
            "sandbox.worker": ("SandboxWorker", "run_once"),
        },
    )

__all__ = [  # noqa: RUF022 - plain sorted(), as tests/test_layout.py checks
    "ALLOWED_MODULES",
    "ALL_LAYERS",
    "CallError",
    "CallResult",
    "ErrorKind",
    "HOOK_BUILTINS",
    "IsolationPolicy",
    "JSONValue",
    "MAX_CHECKPOINT",
    "SandboxLimits",
    "SandboxWorker",
    "TraceRequest",
    "WorkerPool",
    "allowed_builtins",
    "available_layers",
    "call_box",
    "compile_check",
    "run_once",
]
