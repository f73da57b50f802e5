"""Wire format shared by the parent and the worker (JSON lines over pipes).

Kept free of imports from the rest of the project so the worker can load it
without pulling in the parent side.
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

# Error kinds on the wire; the parent maps them onto ``ErrorKind``.
KIND_TIMEOUT: Final = "timeout"
KIND_MEMORY: Final = "memory"
KIND_CRASH: Final = "crash"
KIND_INVALID_OUTPUT: Final = "invalid_output"
KIND_POLICY: Final = "policy"
KIND_EXCEPTION: Final = "exception"
# Start-up only.
KIND_COMPILE: Final = "compile"
KIND_ISOLATION: Final = "isolation"

LAYER_PROCESS: Final = "process"
LAYER_RESTRICTED: Final = "restricted"
LAYER_RLIMITS: Final = "rlimits"
LAYER_NO_NEW_PRIVS: Final = "no_new_privs"
LAYER_SECCOMP: Final = "seccomp"
LAYER_UID_DROP: Final = "uid_drop"
LAYER_UNPRIVILEGED: Final = "unprivileged"
LAYER_NETNS: Final = "netns"
ALL_LAYERS: Final = frozenset(
    {
        LAYER_PROCESS,
        LAYER_RESTRICTED,
        LAYER_RLIMITS,
        LAYER_NO_NEW_PRIVS,
        LAYER_SECCOMP,
        LAYER_UID_DROP,
        LAYER_UNPRIVILEGED,
        LAYER_NETNS,
    }
)

MESSAGE_MAX_CHARS: Final = 200
_ADDRESS = re.compile(r"0x[0-9a-fA-F]{4,}")


def dumps(obj: Any) -> bytes:
    """Compact, strict (no NaN/inf), ASCII-only JSON: byte length == char length."""
    return json.dumps(obj, allow_nan=False, separators=(",", ":"), ensure_ascii=True).encode(
        "ascii"
    )


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"non-finite number {name} in JSON")


def loads(data: bytes | str) -> Any:
    """Strict JSON decoding: NaN/Infinity tokens are refused."""
    return json.loads(data, parse_constant=_refuse_constant)


def exception_message(exc: BaseException) -> str:
    """``"TypeName: text"``, deterministic: addresses scrubbed, truncated."""
    name = type(exc).__name__
    try:
        text = str(exc)
    except BaseException:  # a hostile __str__ must not break reporting
        text = ""
    message = f"{name}: {text}" if text else name
    message = _ADDRESS.sub("0x?", message)
    if len(message) > MESSAGE_MAX_CHARS:
        message = message[: MESSAGE_MAX_CHARS - 3] + "..."
    return message
