"""``TraceRequest``: which checkpoint visit a traced box call captures."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from oracle_bench.errors import UsageError
from sandbox import _protocol as proto

__all__ = ["MAX_CHECKPOINT", "TraceRequest"]

MAX_CHECKPOINT: Final = proto.MAX_CHECKPOINT
"""Checkpoint indices run from 1 to this."""


@dataclass(frozen=True)
class TraceRequest:
    """Capture the values of the ``visit``-th call of ``checkpoint(checkpoint, ...)``.

    ``checkpoint`` is in ``1..MAX_CHECKPOINT`` and ``visit`` is ``>= 1``; the call also
    refuses a ``visit`` above its worker's ``SandboxLimits.max_trace_visits``.
    """

    checkpoint: int
    visit: int

    def __post_init__(self) -> None:
        if type(self.checkpoint) is not int or not 1 <= self.checkpoint <= MAX_CHECKPOINT:
            raise UsageError(
                f"checkpoint must be an int in 1..{MAX_CHECKPOINT}, got {self.checkpoint!r}"
            )
        if type(self.visit) is not int or self.visit < 1:
            raise UsageError(f"visit must be an int >= 1, got {self.visit!r}")
