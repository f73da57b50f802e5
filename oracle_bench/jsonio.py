"""Canonical JSON, digests and atomic writes: what makes suites byte-identical."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import threading
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

__all__ = [
    "atomic_write_bytes",
    "atomic_write_text",
    "canonical_json",
    "parse_model",
    "sha256_hex",
]

_M = TypeVar("_M", bound=BaseModel)


def canonical_json(obj: Any) -> str:
    """Sorted keys, two-space indent, UTF-8 text, trailing newline, no NaN.

    Text that cannot be UTF-8 (a lone surrogate, e.g. from a model's ``\\udc80`` escape or
    a non-UTF-8 file name) is written with ASCII escapes instead, so that every value that
    JSON can hold is written, and read back equal."""
    text = json.dumps(obj, sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(obj, sort_keys=True, indent=2, ensure_ascii=True, allow_nan=False) + "\n"
    return text


def sha256_hex(data: bytes | str) -> str:
    if isinstance(data, str):
        data = data.encode("utf-8")
    return hashlib.sha256(data).hexdigest()


def _umask() -> int:
    """The process's umask, read without changing it where Linux allows (``os.umask`` is
    set-and-return, which would race with other threads creating files)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    with _UMASK_LOCK:
        mask = os.umask(0o022)
        os.umask(mask)
    return mask


_UMASK_LOCK = threading.Lock()


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write through a temporary file in the same folder, fsync, then rename.

    A reader (or a resumed run) sees either the old file or the whole new one,
    never a half-written result. The file gets the mode a plain ``open`` would give it
    (0666 minus the umask), not the temporary file's private 0600.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, 0o666 & ~_umask())
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def parse_model(data: bytes | str, model: type[_M]) -> _M:
    """Parse JSON text into ``model``.

    Raises a plain ``ValueError`` with a one-line reason (bad JSON, or the first
    schema violation with its location) for callers to wrap in their typed error.
    """
    try:
        raw = json.loads(data.decode("utf-8") if isinstance(data, bytes) else data)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"not valid JSON ({exc})") from None
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "<root>"
        raise ValueError(
            f"invalid {model.__name__}: {where}: {first['msg']} ({exc.error_count()} error(s))"
        ) from None
