"""Resource limits for one sandboxed box."""

from __future__ import annotations

from dataclasses import dataclass

from oracle_bench.errors import UsageError

__all__ = ["SandboxLimits"]


@dataclass(frozen=True)
class SandboxLimits:
    """Per-box limits; the defaults suit a cipher-like black box.

    ``cpu_seconds`` is a per-call CPU budget (ITIMER_PROF inside the worker, with
    RLIMIT_CPU a few seconds above it as a backstop); ``wall_seconds`` is enforced
    by the parent, which kills the worker's process group. ``cpu_lifetime_seconds``
    is the worker's hard RLIMIT_CPU: a worker close to it retires and is replaced
    transparently. ``max_recursion`` is the box's Python call depth.
    ``max_trace_visits`` caps the ``checkpoint`` calls of one call (all indices together).
    """

    cpu_seconds: int = 2
    wall_seconds: float = 5.0
    memory_mb: int = 512
    output_bytes: int = 1 << 20
    max_recursion: int = 200
    cpu_lifetime_seconds: int = 600
    max_trace_visits: int = 100_000

    def __post_init__(self) -> None:
        if self.cpu_seconds < 1:
            raise UsageError(f"cpu_seconds must be >= 1, got {self.cpu_seconds}")
        if not self.wall_seconds > 0:
            raise UsageError(f"wall_seconds must be > 0, got {self.wall_seconds}")
        if self.memory_mb < 64:
            raise UsageError(f"memory_mb must be >= 64, got {self.memory_mb}")
        if self.output_bytes < 16:
            raise UsageError(f"output_bytes must be >= 16, got {self.output_bytes}")
        if not 10 <= self.max_recursion <= 5000:
            raise UsageError(f"max_recursion must be in [10, 5000], got {self.max_recursion}")
        if self.cpu_lifetime_seconds < self.cpu_seconds + 10:
            raise UsageError("cpu_lifetime_seconds must exceed cpu_seconds by at least 10")
        if type(self.max_trace_visits) is not int or self.max_trace_visits < 1:
            raise UsageError(f"max_trace_visits must be an int >= 1, got {self.max_trace_visits!r}")

    def to_wire(self) -> dict[str, int | float]:
        return {
            "cpu_seconds": self.cpu_seconds,
            "wall_seconds": self.wall_seconds,
            "memory_mb": self.memory_mb,
            "output_bytes": self.output_bytes,
            "max_recursion": self.max_recursion,
            "cpu_lifetime_seconds": self.cpu_lifetime_seconds,
            "max_trace_visits": self.max_trace_visits,
        }
