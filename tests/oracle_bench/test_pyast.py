"""Parsing from threads: no ``SystemError: AST constructor recursion depth mismatch``.

The CPython 3.11 race needs a thread switch in the middle of building a tree; a
finalizer that sleeps, run by the garbage collector inside the constructor, gives one.
Threads parse at different Python stack depths, because the counter starts from the
parsing thread's depth and only differing starts show the mismatch.
"""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Callable, Iterator

import pytest

from oracle_bench.pyast import literal_eval, parse
from sandbox import compile_check

_SOURCE = "\n".join(
    f"def f{i}(x):\n    return [(a, {{b: (c, [d])}}) for a in x if a]" for i in range(40)
)


class _Yielder:
    """Garbage in a cycle whose finalizer gives up the GIL."""

    def __init__(self) -> None:
        self.me = self

    def __del__(self) -> None:
        time.sleep(0.0002)


@pytest.fixture
def eager_gc() -> Iterator[None]:
    old = gc.get_threshold()
    gc.set_threshold(40)
    try:
        yield
    finally:
        gc.set_threshold(*old)


def _hammer(work: Callable[[], object], threads: int = 6, rounds: int = 25) -> list[BaseException]:
    errors: list[BaseException] = []

    def run(depth: int) -> None:
        if depth:
            run(depth - 1)
            return
        try:
            for _ in range(rounds):
                for _ in range(15):
                    _Yielder()
                work()
        except BaseException as exc:  # collected for the assertion below
            errors.append(exc)

    pool = [threading.Thread(target=run, args=(7 * i,)) for i in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    return errors


@pytest.mark.usefixtures("eager_gc")
def test_parse_and_literal_eval_from_threads() -> None:
    def work() -> None:
        tree = parse(_SOURCE)
        if len(tree.body) != 40:  # type: ignore[attr-defined]
            raise AssertionError("wrong tree")
        if literal_eval("[(1, {'a': [2, 3]}), -4.5]") != [(1, {"a": [2, 3]}), -4.5]:
            raise AssertionError("wrong literal")

    assert _hammer(work) == []


@pytest.mark.usefixtures("eager_gc")
def test_box_compile_checks_from_threads() -> None:
    source = _SOURCE + "\n\ndef blackbox(x):\n    return f0(x)\n"

    def work() -> None:
        if compile_check(source) != []:
            raise AssertionError("a valid box refused")
        if not compile_check("import os\n"):
            raise AssertionError("an import of os accepted")

    assert _hammer(work, rounds=10) == []
