"""Isolation layers: what this machine offers, and what a worker must have."""

from __future__ import annotations

import functools
import logging
import tempfile
import time
from dataclasses import dataclass

from oracle_bench.errors import IsolationUnavailableError, UsageError
from sandbox import _protocol as proto
from sandbox._process import ReadStatus, WorkerProcess

__all__ = ["ALL_LAYERS", "LAYER_CONTAINER", "IsolationPolicy", "available_layers"]

logger = logging.getLogger(__name__)

LAYER_CONTAINER = "container"
"""The docker runtime's own layer, vouched for by the parent (the worker cannot see it): a
container with no network, a read-only root, no capabilities, no-new-privileges, memory and
pids cgroup limits and a non-root user (``sandbox.docker.runtime``)."""
ALL_LAYERS = proto.ALL_LAYERS | {LAYER_CONTAINER}
_BASE_LAYERS = frozenset({proto.LAYER_PROCESS, proto.LAYER_RESTRICTED, proto.LAYER_RLIMITS})
_PRIVILEGE_LAYERS = frozenset({proto.LAYER_UID_DROP, proto.LAYER_UNPRIVILEGED, proto.LAYER_SECCOMP})
_PROBE_SECONDS = 20.0


@dataclass(frozen=True)
class IsolationPolicy:
    """Layers that must all be active, plus groups of which one must be."""

    required: frozenset[str]
    required_any: tuple[frozenset[str], ...] = ()

    @classmethod
    def from_require(cls, require: frozenset[str] | None) -> IsolationPolicy:
        """``None`` is the default policy: process, restricted, rlimits and
        (privilege drop or seccomp); any other set is taken literally."""
        if require is None:
            return cls(_BASE_LAYERS, (_PRIVILEGE_LAYERS,))
        unknown = sorted(set(require) - ALL_LAYERS)
        if unknown:
            raise UsageError(
                f"unknown isolation layer(s) {', '.join(unknown)}; "
                f"known: {', '.join(sorted(ALL_LAYERS))}"
            )
        return cls(frozenset(require))

    def missing(self, layers: frozenset[str]) -> list[str]:
        gaps = sorted(self.required - layers)
        gaps += [" or ".join(sorted(g)) for g in self.required_any if not layers & g]
        return gaps

    def enforce(self, layers: frozenset[str]) -> None:
        gaps = self.missing(layers)
        if gaps:
            raise IsolationUnavailableError(
                f"required isolation layer(s) unavailable: {', '.join(gaps)}"
            )

    def without(self, provided: frozenset[str]) -> IsolationPolicy:
        """What is left for the worker to check once the parent provides ``provided``."""
        return IsolationPolicy(
            self.required - provided, tuple(g for g in self.required_any if not g & provided)
        )

    def to_wire(self) -> dict[str, list[str] | list[list[str]]]:
        return {
            "require": sorted(self.required),
            "require_any": [sorted(g) for g in self.required_any],
        }


@functools.cache
def available_layers() -> frozenset[str]:
    """Layers a process-runtime worker on this machine can activate (probed once by a real
    worker); the docker runtime's layers are known only once its container answers."""
    with tempfile.TemporaryDirectory(prefix="oracle-sbx-probe-") as cwd:
        try:
            process = WorkerProcess(cwd)
        except OSError as exc:
            logger.warning("sandbox probe could not start a worker: %s", exc)
            return frozenset()
        try:
            init = {
                "probe": True,
                "code": "",
                "entry": "",
                "limits": {
                    "cpu_seconds": 5,
                    "wall_seconds": _PROBE_SECONDS,
                    "memory_mb": 512,
                    "output_bytes": 4096,
                    "max_recursion": 200,
                    "cpu_lifetime_seconds": 60,
                    "max_trace_visits": 1,
                },
            }
            deadline = time.monotonic() + _PROBE_SECONDS
            if not process.send(proto.dumps(init) + b"\n", deadline):
                return frozenset()
            line = process.read_line(1 << 16, deadline)
            if isinstance(line, ReadStatus):
                logger.warning("sandbox probe failed: %s", line.value)
                return frozenset()
            reply = proto.loads(line)
            return frozenset(str(layer) for layer in reply.get("layers", ()))
        finally:
            process.kill()
