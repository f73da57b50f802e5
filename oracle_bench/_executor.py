"""Where episodes and candidates run: the ambient executor choice and the Ray session.

``oracle-eval`` and ``oracle-gen`` take ``--executor local|ray``; both the evaluator
(``evaluator.executors``) and the generator read the choice here, so a command line can
set it once around whatever API call it makes (:func:`use_executor`, in the manner of
``joblib.parallel_backend``) and an explicit ``executor=`` argument still wins.

Ray is an optional extra: nothing here imports it until a Ray session is asked for
(:func:`ray_session`), and its absence is a one-line :class:`ExecutorError`.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from oracle_bench.errors import ExecutorError

__all__ = [
    "LOCAL_RAY",
    "ExecutorChoice",
    "current_executor",
    "import_ray",
    "ray_session",
    "use_executor",
]

log = logging.getLogger(__name__)

LOCAL_RAY = "local"
"""``--ray-address`` value (and default) that starts a Ray instance on this machine."""

INSTALL_HINT = "pip install 'oracle-bench[ray]'"


@dataclass(frozen=True)
class ExecutorChoice:
    """An executor by name and its options (``address`` for Ray)."""

    name: str = "local"
    options: Mapping[str, Any] = field(default_factory=dict)


_CHOICE: ContextVar[ExecutorChoice | None] = ContextVar("oracle_bench_executor", default=None)


@contextmanager
def use_executor(name: str, **options: Any) -> Iterator[ExecutorChoice]:
    """Within this block, runs and generations that name no executor use ``name``."""
    choice = ExecutorChoice(name, dict(options))
    token = _CHOICE.set(choice)
    try:
        yield choice
    finally:
        _CHOICE.reset(token)


def current_executor() -> ExecutorChoice:
    """The executor set by the innermost :func:`use_executor` (default: ``local``)."""
    return _CHOICE.get() or ExecutorChoice()


def import_ray() -> ModuleType:
    """The ``ray`` module, or a one-line :class:`ExecutorError` saying how to install it."""
    try:
        import ray
    except ImportError:
        raise ExecutorError(
            f"the ray executor needs Ray, which is not installed: {INSTALL_HINT}"
        ) from None
    return ray


@contextmanager
def ray_session(address: str | None) -> Iterator[ModuleType]:
    """A connected Ray driver for the length of the block.

    ``address`` None or ``local``: start a Ray instance on this machine; ``auto`` or
    ``HOST:PORT``: join that cluster. A session the caller already opened
    (``ray.is_initialized()``) is used as it is and left open.
    """
    ray = import_ray()
    if ray.is_initialized():
        yield ray
        return
    target = address or LOCAL_RAY
    kwargs: dict[str, Any] = {"logging_level": logging.WARNING}
    if target == LOCAL_RAY:
        kwargs.update(address="local", include_dashboard=False)
    else:
        kwargs["address"] = target
    try:
        ray.init(**kwargs)
    except Exception as exc:  # ConnectionError, RuntimeError, ValueError: all one line
        where = "a local Ray instance" if target == LOCAL_RAY else f"the Ray cluster at {target}"
        message = " ".join(str(exc).split()) or type(exc).__name__
        raise ExecutorError(f"cannot start or join {where}: {message}") from None
    log.info("Ray session: %s", target)
    try:
        yield ray
    finally:
        ray.shutdown()
