"""A sandbox worker started in the background, to be used later in the same thread.

The tester's determinism check needs a second, fresh worker for the same code. Starting
a worker costs ~80 ms of CPU (a ``python`` process, its imports, the isolation set-up);
started beside the first one, on another core, it is ready when the first has answered
every input, instead of starting only then. It makes no call before it is asked to, so
it is as fresh as a worker started at that moment.
"""

from __future__ import annotations

import threading

from sandbox import SandboxLimits, SandboxWorker

__all__ = ["PrestartedWorker"]


class PrestartedWorker:
    """``SandboxWorker(code, entry=entry, limits=limits)``, built in a background thread."""

    def __init__(self, code: str, *, entry: str, limits: SandboxLimits) -> None:
        self._worker: SandboxWorker | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(
            target=self._start, args=(code, entry, limits), name="tester-prestart", daemon=True
        )
        self._thread.start()

    def _start(self, code: str, entry: str, limits: SandboxLimits) -> None:
        try:
            self._worker = SandboxWorker(code, entry=entry, limits=limits)
        except BaseException as exc:  # handed to the caller by worker()
            self._error = exc

    def worker(self) -> SandboxWorker:
        """The started worker (waiting for its start), or the error its start raised."""
        self._thread.join()
        if self._error is not None:
            raise self._error
        if self._worker is None:  # pragma: no cover - _start sets one of the two
            raise RuntimeError("the prestarted worker neither started nor failed")
        return self._worker

    def close(self) -> None:
        """Wait for the start to end and close the worker, if one started (idempotent)."""
        self._thread.join()
        if self._worker is not None:
            self._worker.close()
