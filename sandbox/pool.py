"""A bounded pool of warm workers keyed by box id, closing the least recently used."""

from __future__ import annotations

from collections import OrderedDict

from oracle_bench.errors import UsageError
from sandbox.limits import SandboxLimits
from sandbox.worker import SandboxWorker

__all__ = ["WorkerPool"]


class WorkerPool:
    """At most ``max_workers`` live workers; ``get`` reuses or starts one (LRU eviction).

    A box id must always map to the same code: the pool does not compare code.
    """

    def __init__(self, max_workers: int = 8) -> None:
        if max_workers < 1:
            raise UsageError(f"max_workers must be >= 1, got {max_workers}")
        self._max = max_workers
        self._workers: OrderedDict[str, SandboxWorker] = OrderedDict()

    def get(
        self,
        box_id: str,
        code: str,
        *,
        entry: str = "blackbox",
        limits: SandboxLimits = SandboxLimits(),  # noqa: B008
        require: frozenset[str] | None = None,
    ) -> SandboxWorker:
        worker = self._workers.get(box_id)
        if worker is not None:
            self._workers.move_to_end(box_id)
            return worker
        worker = SandboxWorker(code, entry=entry, limits=limits, require=require)
        self._workers[box_id] = worker
        while len(self._workers) > self._max:
            _, oldest = self._workers.popitem(last=False)
            oldest.close()
        return worker

    def __len__(self) -> int:
        return len(self._workers)

    def __contains__(self, box_id: object) -> bool:
        return box_id in self._workers

    def close(self) -> None:
        while self._workers:
            _, worker = self._workers.popitem()
            worker.close()

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
