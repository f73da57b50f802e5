"""Programs submitted as answers (``Family.answers_as_code``): reading and running them.

A submission is model-written code, so it runs only in the sandbox: each submission in a
fresh worker of its own, with the box's limits, never in the evaluator's process and never
in the box's worker. A program the compiler refuses, one that crashes, loops or floods on
an input, answers that input wrong; the episode and the run go on. After a call that
overran its time or memory limit (or crashed its worker) the submission's remaining
inputs are not run and are wrong: a hostile program cannot cost K times the limits.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from oracle_bench.errors import IsolationUnavailableError, SandboxError

__all__ = ["SandboxSolutions", "SolutionRun", "SolutionRunner", "program_text"]

log = logging.getLogger(__name__)

_FENCED = re.compile(r"^[ \t]*(```|~~~)[^\n]*\n(?P<body>.*?)^[ \t]*\1[ \t]*$", re.M | re.S)


def program_text(reply: str, entry: str = "solution") -> str | None:
    """The program in a reply: the last fenced block that defines ``entry``, else the last
    fenced block, else the whole reply when it defines ``entry``; None when there is none."""
    blocks = [m.group("body") for m in _FENCED.finditer(reply)]
    defines = re.compile(rf"^\s*def\s+{re.escape(entry)}\s*\(", re.M)
    for body in reversed(blocks):
        if defines.search(body):
            return body
    if blocks:
        return blocks[-1]
    return reply if defines.search(reply) else None


_EXHAUSTING = frozenset({"timeout", "memory", "crash"})
"""Call errors after which a submission's remaining inputs are not run: a program that
overran its limits (or killed its worker) once would cost up to K times the limits."""


@dataclass(frozen=True)
class _NotRun:
    """The error of an input a submission did not get to run."""

    kind: str = "not_run"

    def render(self) -> str:
        return "[not run: the program overran its limits on an earlier input]"


@dataclass(frozen=True)
class _Skipped:
    ok: bool = False
    value: Any = None
    error: _NotRun = _NotRun()


@dataclass(frozen=True)
class SolutionRun:
    """What one submission did: an error that kept it from running at all, or one call
    result per input."""

    error: str | None
    results: tuple[Any, ...] = ()


class SolutionRunner(Protocol):
    """Runs a submitted program's entry on inputs, isolated from everything else."""

    def run(self, source: str, entry: str, calls: Sequence[tuple[Any, ...]]) -> SolutionRun:
        """One result per argument tuple of ``calls`` (``sandbox.CallResult``-like), or
        an error; raises only when the sandbox itself is unavailable."""
        ...


def _kind(result: Any) -> str:
    error = result.error
    return str(getattr(error.kind, "value", error.kind)) if error is not None else ""


class SandboxSolutions:
    """The default runner: a fresh :class:`sandbox.SandboxWorker` per submission."""

    def __init__(self, limits: Any = None) -> None:
        self._limits = limits

    def run(self, source: str, entry: str, calls: Sequence[tuple[Any, ...]]) -> SolutionRun:
        from sandbox import SandboxLimits, SandboxWorker

        try:
            worker = SandboxWorker(
                source,
                entry=entry,
                limits=self._limits if self._limits is not None else SandboxLimits(),
            )
        except IsolationUnavailableError:
            raise  # the machine, not the program: the episode fails as infrastructure
        except SandboxError as exc:
            return SolutionRun(f"{type(exc).__name__}: {exc}")
        try:
            results: list[Any] = []
            stopped = False
            for args in calls:
                if stopped:
                    results.append(_Skipped())
                    continue
                result = worker.call(*args)
                results.append(result)
                stopped = not result.ok and _kind(result) in _EXHAUSTING
            return SolutionRun(None, tuple(results))
        finally:
            try:
                worker.close()
            except Exception as exc:  # closing must not end the episode
                log.warning("closing a solution's sandbox worker failed: %s", exc)
