"""Shared helpers for the sandbox tests: host-integrity checks and test-hook workers."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from sandbox import SandboxWorker


def child_pids() -> set[int]:
    """Live (non-zombie included) children of this test process, from /proc."""
    me = os.getpid()
    found: set[int] = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # Field 4 (ppid) follows the parenthesised command name.
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == me:
            found.add(int(entry.name))
    return found


def _env() -> dict[str, str]:
    # pytest rewrites PYTEST_CURRENT_TEST itself between phases.
    return {k: v for k, v in os.environ.items() if k != "PYTEST_CURRENT_TEST"}


@pytest.fixture
def host_guard(tmp_path: Path) -> Iterator[Path]:
    """Yields a sentinel path; afterwards asserts the host was left untouched."""
    sentinel = tmp_path / "sentinel"
    env_before = _env()
    cwd_before = os.getcwd()
    children_before = child_pids()
    yield sentinel
    assert not sentinel.exists()
    assert _env() == env_before
    assert os.getcwd() == cwd_before
    assert child_pids() <= children_before


def _hooked(*hooks: str) -> type[SandboxWorker]:
    return type("HookedWorker", (SandboxWorker,), {"_hooks": frozenset(hooks)})


@pytest.fixture
def hooked() -> Callable[..., type[SandboxWorker]]:
    """Factory of SandboxWorker subclasses whose workers run with test-only switches."""
    return _hooked
