"""``TraceRequest``: which checkpoint visit a traced box call captures; ``call_box``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Protocol, TypeVar

from oracle_bench.errors import UsageError
from sandbox import _protocol as proto

if TYPE_CHECKING:
    from blackboxes.families import BoxCall

__all__ = ["MAX_CHECKPOINT", "TraceRequest", "call_box"]

_R_co = TypeVar("_R_co", covariant=True)


class _Callable(Protocol[_R_co]):
    def __call__(self, *args: Any, trace: TraceRequest | None = ...) -> _R_co: ...


class _HasCall(Protocol[_R_co]):
    @property
    def call(self) -> _Callable[_R_co]: ...


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


def call_box(env: _HasCall[_R_co], call: BoxCall) -> _R_co:
    """Put ``call`` (``family.box_call(x)``) to a worker-like ``env``: its arguments, and a
    :class:`TraceRequest` when it names a checkpoint visit."""
    if call.checkpoint is None:
        return env.call(*call.args)
    return env.call(*call.args, trace=TraceRequest(call.checkpoint, call.visit or 1))
