"""The ``checkpoint`` builtin of every box and its per-call trace state (worker side).

``checkpoint(index, **values)`` counts visits; with a trace request ``(k, v)`` the
v-th visit of checkpoint k serialises its values at once (frozen bytes) and stops
the program by raising :class:`_CheckpointStop`, a ``BaseException`` box code cannot
name. Faults (a misuse, too many visits, unusable values) are sticky for the call:
the first one is what the call reports, whatever the box does afterwards, and every
later checkpoint call stops the program again. Imported only by the worker.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sandbox import _protocol as proto
from sandbox._curated import PolicyViolation

NOT_JSON = "checkpoint values are not valid JSON: "
_USAGE = (
    "checkpoint() takes one positional argument, the index; "
    "pass values by keyword, e.g. checkpoint(1, i=i)"
)


class CheckpointError(PolicyViolation):
    """``checkpoint`` called with a bad index or positional values."""


class _CheckpointStop(BaseException):
    """Ends the box program once its trace is captured or a checkpoint fault is recorded."""


class Tracer:
    """Per-call checkpoint counters, the trace target, and what the call captured."""

    __slots__ = (
        "captured",
        "exhausted",
        "fault",
        "max_visits",
        "output_bytes",
        "stopped",
        "target",
        "total",
        "visit",
        "visits",
    )

    def __init__(self, max_visits: int, output_bytes: int) -> None:
        self.max_visits = max_visits
        self.output_bytes = output_bytes
        self.total = 0  # checkpoint calls of this call, any index
        self.visits = 0  # calls of ``target``
        self.target = 0  # 0: no trace requested (no index matches)
        self.visit = 0
        self.captured: bytes | None = None
        self.fault: bytes | None = None  # the error reply the call must send
        self.stopped = False
        self.exhausted = False  # a MemoryError while capturing

    def reset(self, target: int = 0, visit: int = 0) -> None:
        self.total = 0
        self.visits = 0
        # A trace-less call after a trace-less call without a fault: nothing else to undo.
        if target or self.target or self.stopped:
            self.target = target
            self.visit = visit
            self.captured = None
            self.fault = None
            self.stopped = False

    def misuse(self, args: tuple[Any, ...]) -> CheckpointError:
        """The policy error for bad arguments; recorded as the call's fault."""
        error = CheckpointError(_misuse_message(args))
        self._fail(proto.KIND_POLICY, proto.exception_message(error))
        return error

    def over_limit(self) -> _CheckpointStop:
        self._fail(
            proto.KIND_TRACE_LIMIT, f"checkpoint visits exceed the limit of {self.max_visits}"
        )
        return _CheckpointStop()

    def capture(self, values: dict[str, Any]) -> _CheckpointStop:
        """Freeze ``values`` as strict JSON (or record why not); the caller raises the stop."""
        try:
            payload = proto.dumps(values)
        except MemoryError:
            self.exhausted = True
            self._fail(proto.KIND_MEMORY, "memory limit exceeded")
        except BaseException as exc:  # box code may run inside (a dict subclass's items)
            self._fail(proto.KIND_INVALID_OUTPUT, NOT_JSON + proto.exception_message(exc))
        else:
            if len(payload) > self.output_bytes:
                self._fail(
                    proto.KIND_TRACE_LIMIT,
                    f"checkpoint values exceed the output limit of {self.output_bytes} bytes",
                )
            else:
                problem = proto.result_problem(payload, "a value")
                if problem is not None:
                    self._fail(proto.KIND_INVALID_OUTPUT, NOT_JSON + problem)
                else:
                    self.captured = payload  # a fault recorded meanwhile still wins
        self.stopped = True
        return _CheckpointStop()

    def _fail(self, kind: str, message: str) -> None:
        # The first fault wins: a re-entrant checkpoint call (from box code run while
        # the values are encoded) must not replace it.
        if self.fault is None:
            self.fault = proto.dumps({"e": kind, "m": message})
        self.stopped = True


def _misuse_message(args: tuple[Any, ...]) -> str:
    if len(args) != 1:
        return _USAGE
    index = args[0]
    if type(index) is not int:
        shown = type(index).__name__
    elif -(10**9) < index < 10**9:
        shown = str(index)
    else:
        shown = f"an int of {index.bit_length()} bits"
    return f"checkpoint index must be an int in 1..{proto.MAX_CHECKPOINT}, got {shown}"


def make_hook(tracer: Tracer) -> Callable[..., None]:
    """The ``checkpoint`` builtin: a plain closure, so box code holds no handle on ``tracer``
    (its ``__closure__`` and every other underscore attribute are refused)."""
    limit = proto.MAX_CHECKPOINT

    def checkpoint(*args: Any, **values: Any) -> None:
        if tracer.stopped:
            raise _CheckpointStop
        if len(args) != 1 or type(args[0]) is not int or not 1 <= args[0] <= limit:
            raise tracer.misuse(args)
        tracer.total += 1
        if tracer.total > tracer.max_visits:
            raise tracer.over_limit()
        if args[0] == tracer.target:
            tracer.visits += 1
            if tracer.visits == tracer.visit:
                raise tracer.capture(values)

    return checkpoint
