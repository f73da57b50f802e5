"""Per-call round trip: warm sandboxed worker vs a bare pipe round trip vs in-process vs spawn.

The floor is a plain child Python process (started like the worker, no isolation) that
echoes the sandbox's request line back over the same kind of pipes: no box can be
answered faster than that. Two warm boxes are timed: one that returns its arguments
(pure transport overhead) and a Caesar shift (real work). The warm modes and the floor
are measured in interleaved blocks, so load on a shared machine hits them alike.

Usage: python benchmarks/sandbox/bench_roundtrip.py [--calls N] [--spawn-calls M] [--code DIR]
       [--docker-image IMG]

``--docker-image`` also times a warm worker of the docker runtime (``SandboxLimits(runtime=
"docker")``: the same worker in a container, its pipes relayed by ``docker run -i``) on the
Caesar box, interleaved with the others, and prints its ratio to the process worker.

``--code`` names the checkout whose sandbox is measured (default: this script's own), so
one script measures an older checkout the same way.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

_HERE = Path(__file__).resolve().parents[2]
CODE = """
def blackbox(text, shift):
    return "".join(chr((ord(c) - 97 + shift) % 26 + 97) if c.isalpha() else c for c in text)
"""
ECHO_CODE = """
def blackbox(text, shift):
    return [text, shift]
"""
# The floor's child: the worker's interpreter flags, a buffered readline like the
# worker's, one write per line.
_ECHO_CHILD = (
    "import os, sys\n"
    "read = sys.stdin.buffer.readline\n"
    "while line := read():\n"
    "    os.write(1, line)\n"
)
TARGET_VS_PIPE = 3.0
TARGET_VS_SPAWN = 300.0
_BLOCK = 100
DOCKER_MODE = "warm docker container, Caesar"


def trusted(text: str, shift: int) -> str:
    """The same function, as plain trusted Python (the in-process baseline)."""
    return "".join(chr((ord(c) - 97 + shift) % 26 + 97) if c.isalpha() else c for c in text)


class PipeEcho:
    """A child that echoes lines: one bare round trip per call, read blocking to the newline."""

    def __init__(self) -> None:
        self._proc = subprocess.Popen(
            [sys.executable, "-s", "-P", "-B", "-c", _ECHO_CHILD],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env={"PYTHONHASHSEED": "0"},
            bufsize=0,
        )
        if self._proc.stdin is None or self._proc.stdout is None:
            raise SystemExit("the echo child has no pipes")
        self._wfd = self._proc.stdin.fileno()
        self._rfd = self._proc.stdout.fileno()

    def round_trip(self, line: bytes) -> bytes:
        os.write(self._wfd, line)
        reply = os.read(self._rfd, 1 << 16)
        while not reply.endswith(b"\n"):
            chunk = os.read(self._rfd, 1 << 16)
            if not chunk:
                raise SystemExit("the echo child died")
            reply += chunk
        return reply

    def close(self) -> None:
        if self._proc.stdin is not None:
            self._proc.stdin.close()
        self._proc.wait(5)
        if self._proc.stdout is not None:
            self._proc.stdout.close()


def _time_block(fn: Callable[[], object], calls: int, samples: list[float]) -> None:
    clock = time.perf_counter
    for _ in range(calls):
        start = clock()
        fn()
        samples.append(clock() - start)


def _interleaved(modes: dict[str, Callable[[], object]], calls: int) -> dict[str, float]:
    """Median seconds per call of each mode, timed in alternating blocks of calls."""
    samples: dict[str, list[float]] = {name: [] for name in modes}
    done = 0
    while done < calls:
        block = min(_BLOCK, calls - done)
        for name, fn in modes.items():
            _time_block(fn, block, samples[name])
        done += block
    return {name: statistics.median(values) for name, values in samples.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--code", type=Path, default=_HERE, help="checkout to measure")
    parser.add_argument("--calls", type=int, default=3000, help="calls per warm mode (>= 2000)")
    parser.add_argument("--spawn-calls", type=int, default=50, help="calls for spawn-per-call")
    parser.add_argument(
        "--docker-image", default=None, help="also time the docker runtime in this image"
    )
    args = parser.parse_args()
    if args.calls < 2000:
        parser.error("--calls must be >= 2000")
    sys.path.insert(0, str(args.code.resolve()))
    from sandbox import SandboxLimits, SandboxWorker, run_once

    text, shift = "hello world, the quick brown fox", 3
    # The request line exactly as the sandbox frames it.
    request = b'{"a":' + json.dumps([text, shift], separators=(",", ":")).encode() + b"}\n"

    echo = PipeEcho()
    caesar = SandboxWorker(CODE)
    identity = SandboxWorker(ECHO_CODE)
    boxed = None
    if args.docker_image is not None:
        boxed = SandboxWorker(CODE, limits=SandboxLimits(runtime="docker", image=args.docker_image))
    try:
        if echo.round_trip(request) != request:
            raise SystemExit("the echo child changed the payload")
        if caesar.call(text, shift).value != trusted(text, shift):
            raise SystemExit("sandboxed result differs from the trusted one")
        if identity.call(text, shift).value != [text, shift]:
            raise SystemExit("the identity box changed its arguments")
        layers = sorted(caesar.layers)
        modes: dict[str, Callable[[], object]] = {
            "bare pipe round trip (floor)": lambda: echo.round_trip(request),
            "warm sandboxed, identity box": lambda: identity.call(text, shift),
            "warm sandboxed, Caesar box": lambda: caesar.call(text, shift),
            "in-process (trusted Caesar)": lambda: trusted(text, shift),
        }
        if boxed is not None:
            if boxed.call(text, shift).value != trusted(text, shift):
                raise SystemExit("the container's result differs from the trusted one")
            docker_layers = sorted(boxed.layers)
            modes[DOCKER_MODE] = lambda: boxed.call(text, shift)
        for fn in modes.values():  # warm-up
            for _ in range(200):
                fn()
        medians = _interleaved(modes, args.calls)
    finally:
        if boxed is not None:
            boxed.close()
        identity.close()
        caesar.close()
        echo.close()
    spawn_samples: list[float] = []
    _time_block(lambda: run_once(CODE, text, shift), args.spawn_calls, spawn_samples)
    spawn = statistics.median(spawn_samples)

    floor = medians["bare pipe round trip (floor)"]
    rows = [(name, args.calls, median) for name, median in medians.items()]
    rows.append(("spawn per call (run_once)", args.spawn_calls, spawn))
    print(f"code: {args.code.resolve()}")
    print(f"layers: {', '.join(layers)}")
    if boxed is not None:
        print(f"docker runtime: {args.docker_image}, layers: {', '.join(docker_layers)}")
    print(f"request: {len(request)} bytes")
    print(f"{'mode':<32}{'calls':>7}{'median':>13}{'vs pipe':>10}")
    for name, calls, median in rows:
        print(f"{name:<32}{calls:>7}{median * 1e6:>10.1f} us{median / floor:>9.2f}x")
    for name in ("warm sandboxed, identity box", "warm sandboxed, Caesar box"):
        ratio = medians[name] / floor
        verdict = "meets" if ratio <= TARGET_VS_PIPE else "MISSES"
        print(f"{name}: {ratio:.2f}x the pipe floor ({verdict} the {TARGET_VS_PIPE:.0f}x target)")
    if boxed is not None:
        ratio = medians[DOCKER_MODE] / medians["warm sandboxed, Caesar box"]
        print(f"docker runtime: {ratio:.2f}x the warm process worker per query (Caesar box)")
    ratio = spawn / medians["warm sandboxed, Caesar box"]
    verdict = "meets" if ratio >= TARGET_VS_SPAWN else "MISSES"
    print(
        f"warm worker is {ratio:.0f}x faster than spawn-per-call "
        f"({verdict} the {TARGET_VS_SPAWN:.0f}x target)"
    )


if __name__ == "__main__":
    main()
