"""Run a CII kind's rendered template and collect its checkpoint trace, two ways."""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from typing import Any

from blackboxes.box import JSONValue
from blackboxes.families.cii._kind import Event, Params, ProgramKind
from sandbox import SandboxWorker, TraceRequest
from templates import render
from tests.blackboxes.restricted import restricted_blackbox


def box_code(kind: ProgramKind, params: Params) -> str:
    return render(f"code/cii/{kind.template}", **kind.context(params))


def _frozen(values: Mapping[str, Any]) -> dict[str, JSONValue]:
    # What the sandbox does at capture time: serialise at once (later mutation is unseen).
    return dict(json.loads(json.dumps(dict(values))))


class _Recorder:
    """The ``checkpoint`` builtin of a compiled template; ``events`` is swapped per run."""

    def __init__(self) -> None:
        self.events: list[Event] = []

    def __call__(self, index: int, **values: Any) -> None:
        self.events.append((index, _frozen(values)))


@functools.lru_cache(maxsize=256)
def _compiled(code: str) -> tuple[Any, _Recorder]:
    # Compiling is most of a template run's cost, and a kind's tests run one setting's
    # code on many inputs.
    recorder = _Recorder()
    return restricted_blackbox(code, checkpoint=recorder), recorder


def template_trace(kind: ProgramKind, params: Params, args: Mapping[str, JSONValue]) -> list[Event]:
    """Every checkpoint call of the rendered template on ``args`` under RestrictedPython."""
    fn, recorder = _compiled(box_code(kind, params))
    events: list[Event] = []
    recorder.events = events
    result = fn(*(json.loads(json.dumps(args[name])) for name, _ in kind.inputs))
    assert result is None, f"blackbox must return nothing, returned {result!r}"
    return events


def sandbox_trace(code: str, kind: ProgramKind, args: Mapping[str, JSONValue]) -> list[Event]:
    """The same trace read through a real sandbox worker, one traced call per visit."""
    positional = [args[name] for name, _ in kind.inputs]
    events: list[tuple[int, int, dict[str, JSONValue]]] = []
    with SandboxWorker(code) as worker:
        for index in range(1, kind.checkpoints + 1):
            visit = 1
            while True:
                value = worker.call(*positional, trace=TraceRequest(index, visit)).unwrap()
                assert isinstance(value, dict)
                if value["values"] is None:
                    break
                assert isinstance(value["values"], dict)
                events.append((index, visit, value["values"]))
                visit += 1
    # Per checkpoint, visits in order; the global interleaving is not observable this way.
    return [(k, v) for k, _, v in sorted(events, key=lambda e: (e[0], e[1]))]


def by_checkpoint(events: list[Event]) -> list[Event]:
    """``events`` grouped per checkpoint, visits in order (what ``sandbox_trace`` sees)."""
    return sorted(events, key=lambda e: e[0])
