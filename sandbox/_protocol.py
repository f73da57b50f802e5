"""Wire format shared by the parent and the worker (JSON lines over pipes).

Kept free of imports from the rest of the project (but ``sandbox._jsonwire``, standard
library only) so the worker can load it without pulling in the parent side.
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

from sandbox._jsonwire import dumps_str
from sandbox._jsonwire import loads as loads  # strict decoding, for both sides

# Error kinds on the wire; the parent maps them onto ``ErrorKind``.
KIND_TIMEOUT: Final = "timeout"
KIND_MEMORY: Final = "memory"
KIND_CRASH: Final = "crash"
KIND_INVALID_OUTPUT: Final = "invalid_output"
KIND_POLICY: Final = "policy"
KIND_EXCEPTION: Final = "exception"
KIND_TRACE_LIMIT: Final = "trace_limit"
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
# Checkpoint indices a box may pass to ``checkpoint``: 1..MAX_CHECKPOINT.
MAX_CHECKPOINT: Final = 64
# Deepest array/object nesting a result may have: the parent (and pydantic, whose
# serializer stops near 255 levels) must be able to handle whatever arrives,
# whatever recursion limit the box was given.
MAX_RESULT_DEPTH: Final = 100
_ADDRESS = re.compile(r"0x[0-9a-fA-F]{4,}")
# One escape in ASCII-only JSON: a surrogate pair (an astral character), a lone
# surrogate (group 1: not valid Unicode), or any other escape such as ``\\``.
_ESCAPE = re.compile(
    rb"\\(?:u(?:d[89ab][0-9a-f]{2}\\ud[c-f][0-9a-f]{2}|(d[89a-f][0-9a-f]{2}))|.)",
    re.IGNORECASE,
)
_JSON_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_BRACKETS_AS_SQUARE = bytes.maketrans(b"{}", b"[]")


def dumps(obj: Any) -> bytes:
    """Compact, strict (no NaN/inf), ASCII-only JSON: byte length == char length."""
    return json.dumps(obj, allow_nan=False, separators=(",", ":"), ensure_ascii=True).encode(
        "ascii"
    )


def dumps_value(obj: Any) -> bytes:
    """``dumps(obj)``, the same bytes or the same error, without ``json.dumps``'s set-up.

    For the hot paths, which run at a shallow, fixed stack depth: the call loop of the
    worker and the parent. Where box code may have filled the stack first (its
    ``checkpoint`` calls), use ``dumps``: at the recursion limit itself the two fail in
    different frames, with different messages.
    """
    return dumps_str(obj).encode("ascii")


def result_problem(payload: bytes, subject: str = "result") -> str | None:
    """Why the encoded result must not reach the parent, or None if it may.

    Checks what the parent will decode: strings must be valid Unicode (no lone
    surrogates, which would break UTF-8 writers downstream) and nesting must stay
    within ``MAX_RESULT_DEPTH``. ``subject`` opens the message (singular noun).
    """
    if b"\\u" in payload and any(m.group(1) for m in _ESCAPE.finditer(payload)):
        return f"{subject} contains a string that is not valid Unicode (a lone surrogate)"
    if payload.count(b"[") + payload.count(b"{") > MAX_RESULT_DEPTH:
        skeleton = _JSON_STRING.sub(b"", payload).translate(_BRACKETS_AS_SQUARE, _NOT_BRACKETS)
        # Each pass removes exactly the innermost level.
        for _ in range(MAX_RESULT_DEPTH):
            skeleton = skeleton.replace(b"[]", b"")
            if not skeleton:
                return None
        return f"{subject} is nested more than {MAX_RESULT_DEPTH} levels deep"
    return None


def exception_message(exc: BaseException) -> str:
    """``"TypeName: text"``, deterministic: addresses scrubbed, truncated."""
    name = type(exc).__name__
    try:
        text = str(exc)
    except BaseException:  # a hostile __str__ must not break reporting
        text = ""
    message = f"{name}: {text}" if text else name
    message = _ADDRESS.sub("0x?", message)
    # Lone surrogates (e.g. ``ValueError("\\ud800")``) as visible escapes: valid UTF-8.
    message = message.encode("utf-8", "backslashreplace").decode("utf-8")
    if len(message) > MESSAGE_MAX_CHARS:
        message = message[: MESSAGE_MAX_CHARS - 3] + "..."
    return message
