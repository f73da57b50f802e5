"""Transcript of the sandbox's answers to the test corpora, to compare two checkouts byte for byte.

For every case (the attack corpus, the red-team cases, the traced corpus, the normal boxes
of tests/sandbox and a set of payload edge cases) it records two things:

* the worker's raw reply lines (the wire: init reply, then one line per request, or how
  the process ended), talking to a worker process directly;
* what ``SandboxWorker.call`` returns (value, error kind and message) or raises.

Usage:
  python benchmarks/sandbox/compare_replies.py --out new.jsonl
  python benchmarks/sandbox/compare_replies.py --code /path/to/old/checkout --out old.jsonl
  cmp old.jsonl new.jsonl

``--code`` picks the checkout whose sandbox answers (default: this script's own); the
cases always come from ``--corpus`` (default: this checkout's tests/sandbox).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
import select
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

_HERE = Path(__file__).resolve().parents[2]
Call = tuple[list[Any], tuple[int, int] | None]  # arguments, and the trace request if any
_RAW_GRACE = 10.0  # start-up and the box's own wall-clock budget come on top


def _load_module(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"_corpus_{path.stem}", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _request(args: list[Any], trace: tuple[int, int] | None) -> bytes:
    encoded = json.dumps(args, separators=(",", ":"), allow_nan=False).encode()
    if trace is None:
        return b'{"a":' + encoded + b"}\n"
    return b'{"a":' + encoded + b',"t":[%d,%d]}\n' % trace


class _RawWorker:
    """A worker process spoken to directly: what it writes, byte for byte."""

    def __init__(self, init_line: bytes, workdir: str) -> None:
        from sandbox._process import WORKER_ENV, worker_argv

        self._proc = subprocess.Popen(
            worker_argv(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=dict(WORKER_ENV),
            cwd=workdir,
            start_new_session=True,
            bufsize=0,
        )
        self._buffer = b""
        self.alive = True
        self.first = self.exchange(init_line, 60.0)

    def exchange(self, line: bytes, wall: float) -> str:
        """Send one line; the reply line, or how the worker ended."""
        proc = self._proc
        if proc.stdin is None or proc.stdout is None:
            raise SystemExit("worker pipes missing")
        try:
            proc.stdin.write(line)
        except BrokenPipeError:
            return self._end()
        deadline = time.monotonic() + wall + _RAW_GRACE
        while b"\n" not in self._buffer:
            remaining = deadline - time.monotonic()
            ready, _, _ = select.select([proc.stdout], [], [], max(remaining, 0))
            if not ready:
                self.kill()
                return "<wall-clock deadline>"
            chunk = os.read(proc.stdout.fileno(), 1 << 20)
            if not chunk:
                return self._end()
            self._buffer += chunk
        reply, self._buffer = self._buffer.split(b"\n", 1)
        return reply.decode("latin-1")

    def _end(self) -> str:
        self.alive = False
        code = self._proc.wait(30)
        return f"<exit {code}>"

    def kill(self) -> None:
        self.alive = False
        if self._proc.poll() is None:
            os.killpg(self._proc.pid, 9)
        self._proc.wait(30)
        for stream in (self._proc.stdin, self._proc.stdout):
            if stream is not None:
                stream.close()


def _outcome(result: Any) -> dict[str, Any]:
    if result.error is None:
        return {"value": json.dumps(result.value, sort_keys=False)}
    return {"kind": str(result.error.kind), "message": result.error.message}


def _session(
    code: str,
    calls: Sequence[Call],
    limits: Any = None,
) -> dict[str, Any]:
    """One box: its parent-side results and its raw wire replies for the same calls."""
    from sandbox import SandboxLimits, SandboxWorker, TraceRequest

    limits = limits or SandboxLimits()
    record: dict[str, Any] = {}
    try:
        worker = SandboxWorker(code, limits=limits)
    except Exception as exc:  # the refusal is the outcome being compared
        record["start"] = f"{type(exc).__name__}: {exc}"
        return record
    init_line: bytes = worker._init_line
    parent = []
    with worker:
        for args, trace in calls:
            request = None if trace is None else TraceRequest(*trace)
            parent.append(_outcome(worker.call(*args, trace=request)))
    record["parent"] = parent
    raw = []
    with tempfile.TemporaryDirectory(prefix="oracle-compare-") as workdir:
        process = _RawWorker(init_line, workdir)
        raw.append(process.first)
        for args, trace in calls:
            if not process.alive:
                process = _RawWorker(init_line, workdir)
                raw.append("<restart> " + process.first)
            raw.append(process.exchange(_request(args, trace), limits.wall_seconds))
        process.kill()
    record["raw"] = raw
    return record


_EDGE_ECHO = "def blackbox(*args):\n    return list(args)\n"
_EDGE_MAKE = """
def blackbox(kind, n):
    value = make(kind, n)
    checkpoint(1, v=value)
    return value

def make(kind, n):
    if kind == "nest":
        x = []
        for i in range(n):
            x = [x]
        return x
    if kind == "dict-nest":
        x = {}
        for i in range(n):
            x = {"k": x}
        return x
    if kind == "surrogate":
        return ["ok", chr(n)]
    if kind == "pair":
        return chr(0xD83D) + chr(0xDE00)
    if kind == "big":
        return "x" * n
    if kind == "float":
        return [n / 7, n * 1e300, -0.0, 1e-320]
    if kind == "int":
        return 7 ** n
    if kind == "keys":
        return {1: "a", True: "b", None: "c", 2.5: "d"}
    if kind == "nan":
        return float("nan")
    if kind == "bytes":
        return b"x"
    if kind == "raise":
        raise ValueError("bad \\ud800 " + "y" * n)
    if kind == "tuple":
        return (1, (2, [3]))
    return None
"""
_EDGE_ARGS: list[list[Any]] = [
    [],
    [None, True, False, 0, -1, 2**70, 1.5, -0.0, 1e308, 5e-324],
    ["", "ascii", "é ü ß", "日本語", "😀 astral", "\x00\x1f\x7f", '"quoted" \\ back'],
    [[[[[]]]], {"a": {"b": [1, {"c": None}]}}, {"": 0, "k" * 100: "v" * 1000}],
    [list(range(1000))],
    ["a\u2028b\u2029c", "\ud7ff\ue000\uffff"],
]
_EDGE_MAKE_CALLS: list[list[Any]] = [
    ["nest", 99],
    ["nest", 100],
    ["nest", 101],
    ["dict-nest", 100],
    ["dict-nest", 101],
    ["surrogate", 0xD800],
    ["surrogate", 0xDFFF],
    ["surrogate", 0x1F600],
    ["pair", 0],
    ["big", 1000],
    ["big", 4000],
    ["float", 3],
    ["int", 500],
    ["keys", 0],
    ["nan", 0],
    ["bytes", 0],
    ["raise", 500],
    ["tuple", 0],
    ["other", 0],
]


# Nesting around the recursion limit: results, traced values (also from deep in the
# stack) and arguments fail with a RecursionError, or do not, at exact depths.
_EDGE_DEPTH = """
def nest(n):
    x = []
    for i in range(n):
        x = [x]
    return x

def down(k, v):
    if k == 0:
        checkpoint(1, v=v)
        return 0
    return down(k - 1, v)

def blackbox(kind, n, *rest):
    if kind == "result":
        return nest(n)
    if kind == "deep-checkpoint":
        return down(n, nest(rest[0]))
    checkpoint(1, v=nest(n))
    return len(rest)
"""


def _nested(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


def _depth_calls(depths: range) -> list[Call]:
    calls: list[Call] = []
    for n in depths:
        calls += [(["result", n], None), (["traced", n], (1, 1)), (["args", 0, _nested(n)], None)]
        calls += [(["deep-checkpoint", n, 5], (1, 1)), (["deep-checkpoint", 5, n], (1, 1))]
    return calls


# A compromised worker's raw bytes on the reply pipe (the box is tests/sandbox's HOSTILE).
_HOSTILE_LINES: list[bytes] = [
    b"garbage\n",
    b"\n",
    b"[1,2]\n",
    b'{"v":NaN}\n',
    b'{"v":-Infinity}\n',
    b'{"v":1} x\n',
    b'{"v":1,"r":1}\n',
    b'{"v":{"values":null,"visits":-1}}\n',
    b'{"e":"memory","m":"anything"}\n',
    b'{"e":"timeout","m":"x"}\n',
    b'{"e":"bogus","m":"x"}\n',
    b'{"e":"exception","m":5}\n',
    b'{"e":"exception"}\n',
    b'{"x":1}\n',
    b'{"v":"\\ud800"}\n',
    b'{"v":"\xed\xa0\x80"}\n',
    b'{"v":"\xff"}\n',
    b"\xef\xbb\xbf" + b'{"v":1}\n',
    '{"v":"hi"}'.encode("utf-16-le") + b"\n",
    '{"v":"hi"}'.encode("utf-32-be") + b"\n",
    b"\x00\x00\x00\n",
    b"[" * 5000 + b"\n",
    b"[" * 100_000 + b"\n",
    b'{"v":1}\n{"v":2}\n',
    b'{"v":',
    b"x" * 5000,
    b"x" * 6000,
]


def _hostile(source: str, limits: Any, line: bytes) -> dict[str, Any]:
    from sandbox import SandboxWorker

    worker_cls = type("HostileWorker", (SandboxWorker,), {"_hooks": frozenset({"unrestricted"})})
    outcomes = []
    with worker_cls(source, limits=limits, require=frozenset({"process"})) as worker:
        for args in ([line.hex()], [None], [None]):
            outcomes.append(_outcome(worker.call(*args)))
        outcomes.append(_outcome(worker.call(line.hex(), trace=_trace(1, 1))))
    return {"parent": outcomes}


def _trace(checkpoint: int, visit: int) -> Any:
    from sandbox import TraceRequest

    return TraceRequest(checkpoint, visit)


def _cases(corpus: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    from sandbox import SandboxLimits

    attack = _load_module(corpus / "test_attack_corpus.py")
    sentinel = Path(tempfile.gettempdir()) / "oracle-compare-sentinel"
    for case in attack.CORPUS:
        calls: list[Call] = [
            (["attack"], None),
            ([21], None),
            ([5], None),
        ]
        yield f"attack/{case.id}", _session(attack._source(case, sentinel), calls, case.limits)

    redteam = _load_module(corpus / "test_redteam.py")
    calls = []
    for case in redteam.CASES:
        calls += [([case.id], None), ([21], None)]
    yield "redteam/runtime", _session(redteam._box_source(), calls, redteam.FAST)
    for name, source, _message in redteam.COMPILE_CASES:
        yield f"redteam/compile-{name}", _session(source, [([1], None)], redteam.FAST)

    hook = _load_module(corpus / "test_checkpoint_hook.py")
    for traced in hook.TRACED_CORPUS:
        calls = [(["attack"], (1, 1)), ([21], (1, 1)), ([21], None)]
        yield f"traced/{traced.id}", _session(hook._traced_source(traced), calls, hook.FAST)
    calls = [([5], (1, v)) for v in range(1, 8)] + [([5], (2, 1)), ([5], None), ([3], (3, 1))]
    yield "traced/loop", _session(hook.LOOP, calls, hook.FAST)

    normal = _load_module(corpus / "test_normal_use.py")
    yield "normal/cipher", _session(normal.CIPHER, [(["hello world"], None)] * 2, normal.FAST)
    random_calls: list[Call] = [([n], None) for _ in range(2) for n in (0, 1, 5, 50)]
    yield "normal/random", _session(normal.RANDOM_BOX, random_calls, normal.FAST)

    yield "edge/echo", _session(_EDGE_ECHO, [(args, None) for args in _EDGE_ARGS])
    small = SandboxLimits(output_bytes=4000)
    calls = [(args, None) for args in _EDGE_MAKE_CALLS]
    yield "edge/make", _session(_EDGE_MAKE, calls, small)
    yield "edge/make-traced", _session(_EDGE_MAKE, [(a, (1, 1)) for a in _EDGE_MAKE_CALLS], small)
    yield "edge/depth", _session(_EDGE_DEPTH, _depth_calls(range(232, 252)))
    shallow = SandboxLimits(max_recursion=10)
    yield "edge/depth-shallow", _session(_EDGE_DEPTH, _depth_calls(range(32, 62)), shallow)
    hostile = _load_module(corpus / "test_hostile_worker.py")
    for line in _HOSTILE_LINES:
        yield f"hostile/{line[:40]!r}", _hostile(hostile.HOSTILE, hostile.LIMITS, line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--code", type=Path, default=_HERE, help="checkout whose sandbox runs")
    parser.add_argument("--corpus", type=Path, default=_HERE / "tests" / "sandbox")
    parser.add_argument("--out", type=Path, required=True, help="transcript (JSON lines)")
    args = parser.parse_args()
    sys.path.insert(0, str(args.code.resolve()))
    digest = hashlib.sha256()
    count = 0
    with args.out.open("w", encoding="utf-8") as out:
        for name, record in _cases(args.corpus.resolve()):
            line = json.dumps({"case": name, **record}, ensure_ascii=True) + "\n"
            out.write(line)
            digest.update(line.encode())
            count += 1
    print(f"{count} cases from {args.code}: sha256 {digest.hexdigest()}")


if __name__ == "__main__":
    main()
