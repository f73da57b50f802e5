"""oracle-eval's progress bar: it appears with the first event and shows provider backoffs.

Apart from the CLI module because it subclasses rich's classes: importing the CLI (to parse
arguments, to print --help) does not import rich.
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, Any

from rich.progress import Progress, ProgressColumn
from rich.text import Text

if TYPE_CHECKING:
    from evaluator.runner import RetryProgress

__all__ = ["Backoff", "LazyProgress"]


class Backoff(ProgressColumn):
    """The provider backoff in progress (until its wait is over), else nothing."""

    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.Lock()
        self._text = ""
        self._until = 0.0

    def set(self, event: RetryProgress) -> None:
        with self._lock:
            self._text = (
                f"backoff: {event.provider} {event.reason}, retrying in {event.wait_s:.0f}s"
            )
            self._until = time.monotonic() + event.wait_s

    def render(self, task: Any) -> Text:
        with self._lock:
            live = self._text if time.monotonic() < self._until else ""
        return Text(live, style="yellow")


class LazyProgress:
    """A progress bar that appears with the first event, so that an error before any
    episode (a refused folder, a held lock) is the only line on stderr."""

    def __init__(self, progress: Progress, description: str) -> None:
        self._progress = progress
        self._description = description
        self._task: Any = None
        self._lock = threading.Lock()

    def _started(self) -> Any:
        with self._lock:
            if self._task is None:
                self._progress.start()
                self._task = self._progress.add_task(self._description, total=None, usage="")
            return self._task

    def update(self, **fields: Any) -> None:
        self._progress.update(self._started(), **fields)

    def refresh(self) -> None:
        self._started()
        self._progress.refresh()

    def stop(self) -> None:
        with self._lock:
            if self._task is not None:
                self._progress.stop()
