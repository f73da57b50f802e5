"""A compromised worker's bytes: whatever it writes on the reply pipe, the parent answers
with an exact, typed outcome and the next call gets a working worker.

The test-only ``unrestricted`` hook stands in for an escape: box code writes raw bytes on
the reply pipe ahead of the worker's own reply.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from sandbox import CallError, CallResult, ErrorKind, SandboxLimits, SandboxWorker, TraceRequest

HOSTILE = """
import os, stat

def reply_fd():
    for fd in range(3, 64):
        try:
            if stat.S_ISFIFO(os.fstat(fd).st_mode):
                os.write(fd, b"")
                return fd
        except OSError:
            pass

def blackbox(data):
    if data is None:
        return "normal"
    os.write(reply_fd(), bytes.fromhex(data))
    return "after"
"""
LIMITS = SandboxLimits(cpu_seconds=1, wall_seconds=3.0, output_bytes=1000)
LOOSE = frozenset({"process"})
NOT_JSON = CallResult(
    None, CallError(ErrorKind.INVALID_OUTPUT, "the black box reply was not valid JSON")
)
MALFORMED = CallResult(
    None, CallError(ErrorKind.INVALID_OUTPUT, "the black box reply was malformed")
)

CASES: list[tuple[bytes, CallResult]] = [
    (b"garbage\n", NOT_JSON),
    (b"\n", NOT_JSON),
    (b"  \n", NOT_JSON),
    (b"[1,2]\n", MALFORMED),
    (b'"v"\n', MALFORMED),
    (b'{"v":NaN}\n', NOT_JSON),
    (b'{"v":[-Infinity]}\n', NOT_JSON),
    (b'{"v":1} x\n', NOT_JSON),
    (b'{"v":1}{"v":2}\n', NOT_JSON),
    (b'{"v":"\xff"}\n', NOT_JSON),
    (b'{"v":' + b"[" * 5000 + b"\n", NOT_JSON),
    (b"[" * 2500 + b"]" * 2500 + b"\n", NOT_JSON),  # too deep to decode, within the cap
    (b'{"x":1}\n', MALFORMED),
    (b'{"e":"bogus","m":"x"}\n', MALFORMED),
    (b'{"e":"exception","m":5}\n', MALFORMED),
    (b'{"e":"exception"}\n', MALFORMED),
    (
        b'{"e":"memory","m":"anything"}\n',
        CallResult(None, CallError(ErrorKind.MEMORY, "memory limit exceeded")),
    ),
    (b'{"v":1,"r":1}\n', CallResult(1, None)),
    (b' {"v":[1]} \n', CallResult([1], None)),
    (b"\xef\xbb\xbf" + b'{"v":1}\n', CallResult(1, None)),
    ('{"v":"hi"}'.encode("utf-16-le") + b"\n", CallResult("hi", None)),
    (
        b"x" * 6000,
        CallResult(
            None,
            CallError(ErrorKind.INVALID_OUTPUT, "result exceeds the output limit of 1000 bytes"),
        ),
    ),
]


@pytest.mark.parametrize(("line", "expected"), CASES, ids=lambda x: repr(x)[:40])
def test_hostile_reply(
    line: bytes, expected: CallResult, hooked: Callable[..., type[SandboxWorker]]
) -> None:
    with hooked("unrestricted")(HOSTILE, limits=LIMITS, require=LOOSE) as worker:
        assert worker.call(line.hex()) == expected
        if (
            expected.error in (NOT_JSON.error, MALFORMED.error)
            or line[:1] == b"x"
            or b'"r"' in line
        ):
            # The worker was replaced (or retired): a fresh one answers the next call.
            assert worker.call(None).value == "normal"


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (b'{"v":{"values":null,"visits":-1}}\n', MALFORMED),
        (b'{"v":{"visits":1,"values":null}}\n', MALFORMED),
        (b'{"v":{"values":[1],"visits":1}}\n', MALFORMED),
        (b'{"v":{"values":null,"visits":true}}\n', MALFORMED),
        (
            b'{"v":{"values":{"a":1},"visits":1}}\n',
            CallResult({"values": {"a": 1}, "visits": 1}, None),
        ),
    ],
    ids=lambda x: repr(x)[:40],
)
def test_hostile_traced_reply(
    line: bytes, expected: CallResult, hooked: Callable[..., type[SandboxWorker]]
) -> None:
    with hooked("unrestricted")(HOSTILE, limits=LIMITS, require=LOOSE) as worker:
        assert worker.call(line.hex(), trace=TraceRequest(1, 1)) == expected
