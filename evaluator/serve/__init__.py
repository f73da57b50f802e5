"""Served boxes: a suite over HTTP (``oracle-serve``, the entry of published images).

See :class:`BoxServer` for the routes. The transport and its limits are
``sandbox.serve``; the episodes are ``evaluator.serve._openenv``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from oracle_bench._lazy import lazy_exports

if TYPE_CHECKING:
    from evaluator.serve._app import BoxServer, EpisodeSessions
else:
    __getattr__, __dir__ = lazy_exports(
        __name__, {"evaluator.serve._app": ("BoxServer", "EpisodeSessions")}
    )

__all__ = ["BoxServer", "EpisodeSessions"]
