"""How the evaluator sees a running box, whatever the kind of episode: a sandbox worker
(or, later, a served box over HTTP) and the results of its calls."""

from __future__ import annotations

from typing import Any, Protocol

__all__ = ["BoxEnvironment", "CallErrorLike", "CallResultLike"]

JSONValue = Any


class CallErrorLike(Protocol):
    """What the evaluator reads from ``sandbox.CallError``."""

    @property
    def kind(self) -> Any: ...

    def render(self) -> str: ...


class CallResultLike(Protocol):
    """What the evaluator reads from ``sandbox.CallResult``."""

    @property
    def ok(self) -> bool: ...

    @property
    def value(self) -> Any: ...

    @property
    def error(self) -> CallErrorLike | None: ...


class BoxEnvironment(Protocol):
    """A running box: ``sandbox.SandboxWorker`` (or, later, a served box over HTTP)."""

    @property
    def layers(self) -> frozenset[Any]: ...

    def call(self, *args: JSONValue, trace: Any = None) -> CallResultLike:
        """The box's entry on ``args``; with ``trace`` (a ``sandbox.TraceRequest``), the
        values of one checkpoint visit instead of its return value."""
        ...
