"""Typed outcomes of one box call: a JSON value or a deterministic error."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TypeAlias

from oracle_bench.errors import (
    SandboxCallFailedError,
    SandboxMemoryError,
    SandboxTimeoutError,
    SandboxTraceLimitError,
)

__all__ = ["CallError", "CallResult", "ErrorKind", "JSONValue"]

JSONValue: TypeAlias = "bool | int | float | str | list[JSONValue] | dict[str, JSONValue] | None"


class ErrorKind(StrEnum):
    TIMEOUT = "timeout"
    MEMORY = "memory"
    CRASH = "crash"
    INVALID_OUTPUT = "invalid_output"
    POLICY = "policy"  # forbidden import / guarded access denied at run time
    EXCEPTION = "exception"  # the box raised an ordinary exception
    TRACE_LIMIT = "trace_limit"  # too many checkpoint visits, or traced values too big


# The fixed texts for faults whose details would not be deterministic.
TIMEOUT_MESSAGE = "time limit exceeded"
MEMORY_MESSAGE = "memory limit exceeded"
CRASH_MESSAGE = "the black box crashed"


@dataclass(frozen=True)
class CallError:
    """A box fault; ``message`` carries no addresses, pids, timings or paths."""

    kind: ErrorKind
    message: str

    def render(self) -> str:
        """The exact text an agent sees, e.g. ``[black box error: timeout]``."""
        if self.kind in (ErrorKind.TIMEOUT, ErrorKind.MEMORY, ErrorKind.CRASH):
            return f"[black box error: {self.kind}]"
        return f"[black box error: {self.kind}: {self.message}]"


@dataclass(frozen=True)
class CallResult:
    value: JSONValue | None
    error: CallError | None

    @property
    def ok(self) -> bool:
        return self.error is None

    def unwrap(self) -> JSONValue:
        """The value, or the matching ``SandboxCallFailedError`` subclass."""
        error = self.error
        if error is None:
            return self.value
        if error.kind is ErrorKind.TIMEOUT:
            raise SandboxTimeoutError(error.kind.value, error.message)
        if error.kind is ErrorKind.MEMORY:
            raise SandboxMemoryError(error.kind.value, error.message)
        if error.kind is ErrorKind.TRACE_LIMIT:
            raise SandboxTraceLimitError(error.kind.value, error.message)
        raise SandboxCallFailedError(error.kind.value, error.message)
