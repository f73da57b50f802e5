"""Resource limits for one sandboxed box."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final, Literal

from oracle_bench.errors import UsageError

__all__ = ["RUNTIMES", "Runtime", "SandboxLimits"]

Runtime = Literal["process", "docker"]
RUNTIMES: Final[tuple[Runtime, ...]] = ("process", "docker")
"""Where a worker runs: ``process`` (a child process of the caller, the default) or
``docker`` (the same worker inside a locked-down container; see ``sandbox.docker.runtime``)."""
# A Docker image reference: never an option (it is passed to the docker CLI), never blank.
_IMAGE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/:@+-]{0,254}")


@dataclass(frozen=True)
class SandboxLimits:
    """Per-box limits; the defaults suit a cipher-like black box.

    ``cpu_seconds`` is a per-call CPU budget (ITIMER_PROF inside the worker, with
    RLIMIT_CPU a few seconds above it as a backstop); ``wall_seconds`` is enforced
    by the parent, which kills the worker's process group. ``cpu_lifetime_seconds``
    is the worker's hard RLIMIT_CPU: a worker close to it retires and is replaced
    transparently. ``max_recursion`` is the box's Python call depth.
    ``max_trace_visits`` caps the ``checkpoint`` calls of one call (all indices together).

    ``runtime`` is where the worker runs (:data:`RUNTIMES`); ``image`` is the docker
    runtime's image (None: ``sandbox.docker.base_image()`` when the worker starts). Neither
    is sent to the worker, so the default runtime behaves exactly as before they existed.
    """

    cpu_seconds: int = 2
    wall_seconds: float = 5.0
    memory_mb: int = 512
    output_bytes: int = 1 << 20
    max_recursion: int = 200
    cpu_lifetime_seconds: int = 600
    max_trace_visits: int = 100_000
    runtime: Runtime = "process"
    image: str | None = None

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
        if self.runtime not in RUNTIMES:
            raise UsageError(f"runtime must be one of {', '.join(RUNTIMES)}, got {self.runtime!r}")
        if self.image is not None:
            if self.runtime != "docker":
                raise UsageError("an image applies to the docker runtime only")
            if not isinstance(self.image, str) or not _IMAGE.fullmatch(self.image):
                raise UsageError(f"not a Docker image name: {self.image!r}")

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
