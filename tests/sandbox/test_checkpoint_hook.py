"""The ``checkpoint`` hook (CII boxes): exact traced values, early stop, limits, and
traced attacks, each followed by a normal call on the same worker (or its restart).

Trace-less attacks on the hook are in the attack corpus (tests/sandbox/test_attack_corpus.py).
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from oracle_bench.errors import SandboxTraceLimitError, UsageError
from sandbox import (
    HOOK_BUILTINS,
    MAX_CHECKPOINT,
    CallError,
    CallResult,
    ErrorKind,
    JSONValue,
    SandboxLimits,
    SandboxWorker,
    TraceRequest,
    allowed_builtins,
    run_once,
)
from sandbox import _protocol as proto

FAST = SandboxLimits(cpu_seconds=1, wall_seconds=3.0)
NOT_JSON = "checkpoint values are not valid JSON: "

LOOP = """
def blackbox(n):
    s = 0
    for i in range(n):
        s += i
        checkpoint(1, i=i, s=s)
    checkpoint(2, total=s, pair=(s, n))
    return s
"""


def _traced(values: dict[str, JSONValue] | None, visits: int) -> CallResult:
    return CallResult(value={"values": values, "visits": visits}, error=None)


@pytest.fixture(scope="module")
def loop() -> Iterator[SandboxWorker]:
    with SandboxWorker(LOOP, limits=FAST) as worker:
        yield worker


def test_captured_values_are_exact_for_each_visit(loop: SandboxWorker) -> None:
    sums = [0, 1, 3, 6, 10]
    for visit in range(1, 6):
        assert loop.call(5, trace=TraceRequest(1, visit)) == _traced(
            {"i": visit - 1, "s": sums[visit - 1]}, visit
        )
    # Tuples become lists; the later checkpoint is reached once.
    assert loop.call(5, trace=TraceRequest(2, 1)) == _traced({"total": 10, "pair": [10, 5]}, 1)


def test_a_visit_not_reached_reports_the_visits_made(loop: SandboxWorker) -> None:
    assert loop.call(5, trace=TraceRequest(1, 6)) == _traced(None, 5)
    assert loop.call(0, trace=TraceRequest(1, 1)) == _traced(None, 0)
    assert loop.call(5, trace=TraceRequest(2, 2)) == _traced(None, 1)
    assert loop.call(5, trace=TraceRequest(MAX_CHECKPOINT, 1)) == _traced(None, 0)


def test_trace_less_calls_are_unchanged_before_and_after_traced_calls(loop: SandboxWorker) -> None:
    plain = SandboxWorker(LOOP.replace("checkpoint(", "(lambda *a, **k: None)("), limits=FAST)
    with plain:
        expected = [plain.call(n) for n in range(4)]
        assert [loop.call(n) for n in range(4)] == expected
        loop.call(5, trace=TraceRequest(1, 2))
        loop.call(5, trace=TraceRequest(1, 6))
        # A not-reached trace leaves nothing behind: n = 7 passes visit 6 untraced.
        assert loop.call(7) == CallResult(21, None)
        assert (
            [loop.call(n) for n in range(4)]
            == expected
            == [CallResult(v, None) for v in [0, 0, 1, 3]]
        )


@settings(max_examples=40, deadline=None)
@given(n=st.integers(0, 30), visit=st.integers(1, 40))
def test_traced_values_match_a_reference(loop: SandboxWorker, n: int, visit: int) -> None:
    result = loop.call(n, trace=TraceRequest(1, visit))
    if visit <= n:
        assert result == _traced({"i": visit - 1, "s": sum(range(visit))}, visit)
    else:
        assert result == _traced(None, n)


def test_keyword_order_is_preserved() -> None:
    code = (
        "def blackbox():\n"
        "    checkpoint(1, z=1, a=2, m=3)\n"
        "    checkpoint(2, **{'b': 1, 'index': 2, 'a': 3})\n"
        "    checkpoint(3)\n"
    )
    with SandboxWorker(code, limits=FAST) as worker:
        first = worker.call(trace=TraceRequest(1, 1)).unwrap()
        assert isinstance(first, dict) and isinstance(first["values"], dict)
        assert list(first["values"].items()) == [("z", 1), ("a", 2), ("m", 3)]
        second = worker.call(trace=TraceRequest(2, 1)).unwrap()
        assert isinstance(second, dict) and isinstance(second["values"], dict)
        assert list(second["values"].items()) == [("b", 1), ("index", 2), ("a", 3)]
        assert worker.call(trace=TraceRequest(3, 1)) == _traced({}, 1)


def test_the_program_stops_at_the_captured_visit() -> None:
    code = (
        "def blackbox(mode):\n"
        "    checkpoint(1, x=[1, 2])\n"
        "    if mode == 'raise':\n"
        "        raise ValueError('after the checkpoint')\n"
        "    if mode == 'zero':\n"
        "        return 1 / 0\n"
        "    while True:\n"
        "        pass\n"
    )
    with SandboxWorker(code, limits=FAST) as worker:
        for mode in ("raise", "zero", "loop"):
            assert worker.call(mode, trace=TraceRequest(1, 1)) == _traced({"x": [1, 2]}, 1)
        # Without a trace the same program fails (or runs) as it always did.
        assert worker.call("raise") == CallResult(
            None, CallError(ErrorKind.EXCEPTION, "ValueError: after the checkpoint")
        )
        assert worker.call("zero").error == CallError(
            ErrorKind.EXCEPTION, "ZeroDivisionError: division by zero"
        )


def test_exceptions_before_the_capture_are_ordinary_errors() -> None:
    code = "def blackbox(x):\n    y = 1 / x\n    checkpoint(1, y=y)\n    return y\n"
    with SandboxWorker(code, limits=FAST) as worker:
        assert worker.call(0, trace=TraceRequest(1, 1)) == CallResult(
            None, CallError(ErrorKind.EXCEPTION, "ZeroDivisionError: division by zero")
        )
        assert worker.call(4, trace=TraceRequest(1, 1)) == _traced({"y": 0.25}, 1)


def test_checkpoint_values_are_ignored_without_a_trace() -> None:
    code = "def blackbox():\n    checkpoint(1, f=blackbox, s={1}, n=float('nan'))\n    return 7\n"
    with SandboxWorker(code, limits=FAST) as worker:
        assert worker.call() == CallResult(7, None)
        assert worker.call(trace=TraceRequest(1, 1)).error == CallError(
            ErrorKind.INVALID_OUTPUT,
            NOT_JSON + "TypeError: Object of type function is not JSON serializable",
        )
        assert worker.call() == CallResult(7, None)


SWALLOW = """
log = []

def blackbox(mode):
    if mode == 'log':
        return log
    xs = [1, 2]
    try:
        checkpoint(1, xs=xs, n=len(xs))
    except BaseException:
        log.append('stopped')
    xs.append(3)
    try:
        checkpoint(2, xs=xs)
        log.append('not stopped')
    except BaseException:
        log.append('stopped again')
    if mode == 'raise':
        raise KeyError('after')
    if mode == 'forever':
        while True:
            try:
                checkpoint(1)
            except BaseException:
                pass
    return xs
"""


def test_mutation_after_capture_does_not_change_the_captured_values() -> None:
    with SandboxWorker(SWALLOW, limits=FAST) as worker:
        assert worker.call("return", trace=TraceRequest(1, 1)) == _traced({"xs": [1, 2], "n": 2}, 1)
        assert worker.call("raise", trace=TraceRequest(1, 1)) == _traced({"xs": [1, 2], "n": 2}, 1)
        assert worker.call("log").value == ["stopped", "stopped again"] * 2
        # Trace-less, the same program runs through both checkpoints.
        assert worker.call("return") == CallResult([1, 2, 3], None)


def test_swallowing_the_stop_and_looping_forever_times_out_and_the_worker_recovers() -> None:
    with SandboxWorker(SWALLOW, limits=FAST) as worker:
        assert worker.call("forever", trace=TraceRequest(1, 1)) == CallResult(
            None, CallError(ErrorKind.TIMEOUT, "time limit exceeded")
        )
        assert worker.call("return", trace=TraceRequest(2, 1)) == _traced({"xs": [1, 2, 3]}, 1)
        # A fresh process after the timeout: its log holds this call's entry only.
        assert worker.call("log").value == ["stopped again"]


@dataclass(frozen=True)
class TracedAttack:
    id: str
    value: str  # expression recorded as checkpoint(1, v=<value>)
    error: CallError
    prelude: str = ""


def _not_json(message: str) -> CallError:
    return CallError(ErrorKind.INVALID_OUTPUT, NOT_JSON + message)


def _type_error(name: str) -> CallError:
    return _not_json(f"TypeError: Object of type {name} is not JSON serializable")


OUT_OF_RANGE = _not_json("ValueError: Out of range float values are not JSON compliant")

TRACED_CORPUS = [
    TracedAttack("function", "blackbox", _type_error("function")),
    TracedAttack("lambda", "lambda: 1", _type_error("function")),
    TracedAttack("checkpoint-itself", "checkpoint", _type_error("function")),
    TracedAttack("module", "math", _type_error("CuratedModule"), prelude="import math\n"),
    TracedAttack("instance", "A()", _type_error("A"), prelude="class A:\n    pass\n"),
    TracedAttack("class", "A", _type_error("type"), prelude="class A:\n    pass\n"),
    TracedAttack("generator", "(x for x in [1])", _type_error("generator")),
    TracedAttack("set", "{1, 2}", _type_error("set")),
    TracedAttack("bytes", "b'x'", _type_error("bytes")),
    TracedAttack("builtin-proxy", "list", _type_error("_TypeProxy")),
    TracedAttack("nan", "float('nan')", OUT_OF_RANGE),
    TracedAttack("inf-nested", "[1, {'a': float('-inf')}]", OUT_OF_RANGE),
    TracedAttack(
        "tuple-keys",
        "{(1, 2): 3}",
        _not_json("TypeError: keys must be str, int, float, bool or None, not tuple"),
    ),
    TracedAttack(
        "lone-surrogate",
        "'\\ud800'",
        _not_json("a value contains a string that is not valid Unicode (a lone surrogate)"),
    ),
    TracedAttack(
        "too-deep",
        "deep(proto_depth)",
        _not_json(f"a value is nested more than {proto.MAX_RESULT_DEPTH} levels deep"),
        prelude=(
            f"proto_depth = {proto.MAX_RESULT_DEPTH}\n"
            "def deep(n):\n    x = []\n    for _ in range(n):\n        x = [x]\n    return x\n"
        ),
    ),
    TracedAttack(
        "recursion-deep",
        "deep(100000)",
        _not_json("RecursionError: maximum recursion depth exceeded while encoding a JSON object"),
        prelude="def deep(n):\n    x = []\n    for _ in range(n):\n        x = [x]\n    return x\n",
    ),
    TracedAttack(
        "circular",
        "loop()",
        _not_json("ValueError: Circular reference detected"),
        prelude="def loop():\n    a = []\n    a.append(a)\n    return a\n",
    ),
    TracedAttack(
        "huge-int",
        "10**5000",
        _not_json(
            "ValueError: Exceeds the limit (4300 digits) for integer string conversion; "
            "use sys.set_int_max_str_digits() to increase the limit"
        ),
    ),
    TracedAttack(
        "huge-string",
        "'x' * (2 << 20)",
        CallError(
            ErrorKind.TRACE_LIMIT, "checkpoint values exceed the output limit of 1048576 bytes"
        ),
    ),
    TracedAttack(
        "many-small-values",
        "[0] * 600000",
        CallError(
            ErrorKind.TRACE_LIMIT, "checkpoint values exceed the output limit of 1048576 bytes"
        ),
    ),
    TracedAttack(
        "reentrant-misuse-while-encoding",
        "D(a=1)",
        CallError(
            ErrorKind.POLICY,
            "CheckpointError: checkpoint index must be an int in 1..64, got str",
        ),
        prelude=(
            "class D(dict):\n    def items(self):\n        checkpoint('x')\n        return []\n"
        ),
    ),
    TracedAttack(
        "raising-while-encoding",
        "D(a=1)",
        _not_json("SystemExit: 3"),
        prelude="class D(dict):\n    def items(self):\n        raise SystemExit(3)\n",
    ),
]


def _traced_source(attack: TracedAttack) -> str:
    return (
        f"{attack.prelude}"
        "def blackbox(x):\n"
        "    if x == 'attack':\n"
        f"        checkpoint(1, v={attack.value})\n"
        "        return 'unreachable'\n"
        "    checkpoint(1, x=x)\n"
        "    return x * 2\n"
    )


def test_traced_corpus_ids_are_unique() -> None:
    ids = [a.id for a in TRACED_CORPUS]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("attack", TRACED_CORPUS, ids=lambda a: a.id)
def test_traced_attack(attack: TracedAttack) -> None:
    with SandboxWorker(_traced_source(attack), limits=FAST) as worker:
        assert worker.call("attack", trace=TraceRequest(1, 1)) == CallResult(None, attack.error)
        # The same worker still answers traced and trace-less calls.
        assert worker.call(21, trace=TraceRequest(1, 1)) == _traced({"x": 21}, 1)
        assert worker.call(21) == CallResult(42, None)


def test_nesting_at_the_depth_limit_is_captured() -> None:
    # The values object is the first level: MAX_RESULT_DEPTH - 1 more are allowed.
    depth = proto.MAX_RESULT_DEPTH - 1
    code = (
        "def blackbox(n):\n    x = []\n    for _ in range(n):\n        x = [x]\n"
        "    checkpoint(1, x=x)\n"
    )
    expected: JSONValue = []
    for _ in range(depth - 1):
        expected = [expected]
    with SandboxWorker(code, limits=FAST) as worker:
        assert worker.call(depth - 1, trace=TraceRequest(1, 1)) == _traced({"x": expected}, 1)
        assert worker.call(depth, trace=TraceRequest(1, 1)).error == _not_json(
            f"a value is nested more than {proto.MAX_RESULT_DEPTH} levels deep"
        )


def test_values_just_within_the_output_limit_are_captured() -> None:
    limits = SandboxLimits(cpu_seconds=1, wall_seconds=3.0, output_bytes=64)
    code = "def blackbox(n):\n    checkpoint(1, s='x' * n)\n"
    overhead = len(b'{"s":""}')
    with SandboxWorker(code, limits=limits) as worker:
        assert worker.call(64 - overhead, trace=TraceRequest(1, 1)) == _traced(
            {"s": "x" * (64 - overhead)}, 1
        )
        assert worker.call(65 - overhead, trace=TraceRequest(1, 1)).error == CallError(
            ErrorKind.TRACE_LIMIT, "checkpoint values exceed the output limit of 64 bytes"
        )


def test_int_keys_become_strings_as_in_ordinary_results() -> None:
    code = (
        "def blackbox():\n    d = {1: 'a', None: 'b', 2.5: 'c'}\n"
        "    checkpoint(1, d=d)\n    return d\n"
    )
    with SandboxWorker(code, limits=FAST) as worker:
        assert worker.call(trace=TraceRequest(1, 1)) == _traced(
            {"d": {"1": "a", "null": "b", "2.5": "c"}}, 1
        )
        assert worker.call() == CallResult({"1": "a", "null": "b", "2.5": "c"}, None)


def test_the_visit_cap_counts_every_checkpoint_of_one_call() -> None:
    limits = SandboxLimits(cpu_seconds=1, wall_seconds=3.0, max_trace_visits=10)
    code = (
        "def blackbox(n):\n"
        "    for i in range(n):\n"
        "        checkpoint(i % 2 + 1, i=i)\n"
        "    return n\n"
    )
    over = CallError(ErrorKind.TRACE_LIMIT, "checkpoint visits exceed the limit of 10")
    with SandboxWorker(code, limits=limits) as worker:
        assert worker.call(10) == CallResult(10, None)
        assert worker.call(10, trace=TraceRequest(2, 5)) == _traced({"i": 9}, 5)
        assert worker.call(11) == CallResult(None, over)
        # The capture comes first when the visit is reached before the cap...
        assert worker.call(11, trace=TraceRequest(1, 5)) == _traced({"i": 8}, 5)
        # ...and the cap wins when it is not.
        assert worker.call(12, trace=TraceRequest(2, 6)) == CallResult(None, over)
        assert worker.call(10) == CallResult(10, None)  # counters are per call
        with pytest.raises(UsageError, match="visit must be <= max_trace_visits"):
            worker.call(1, trace=TraceRequest(1, 11))
        assert worker.call(1, trace=TraceRequest(1, 10)) == _traced(None, 1)


def test_trace_limit_error_unwraps_and_renders() -> None:
    result = CallResult(
        None, CallError(ErrorKind.TRACE_LIMIT, "checkpoint visits exceed the limit of 3")
    )
    assert result.error is not None
    assert result.error.render() == (
        "[black box error: trace_limit: checkpoint visits exceed the limit of 3]"
    )
    with pytest.raises(SandboxTraceLimitError, match=r"^trace_limit: checkpoint visits"):
        result.unwrap()


@pytest.mark.parametrize(
    ("checkpoint", "visit"),
    [(0, 1), (65, 1), (True, 1), ("1", 1), (1.0, 1), (1, 0), (1, -1), (1, True), (1, 1.5)],
)
def test_trace_request_is_validated(checkpoint: object, visit: object) -> None:
    with pytest.raises(UsageError):
        TraceRequest(checkpoint, visit)  # type: ignore[arg-type]


def test_invalid_trace_arguments_are_refused_before_anything_is_sent(loop: SandboxWorker) -> None:
    with pytest.raises(UsageError, match="trace must be a TraceRequest"):
        loop.call(3, trace=(1, 1))  # type: ignore[arg-type]
    assert loop.call(3) == CallResult(3, None)


def test_limits_validate_and_send_max_trace_visits() -> None:
    for bad in (0, -1, True, 1.5):
        with pytest.raises(UsageError, match="max_trace_visits"):
            SandboxLimits(max_trace_visits=bad)  # type: ignore[arg-type]
    assert SandboxLimits().to_wire()["max_trace_visits"] == 100_000
    assert SandboxLimits(max_trace_visits=7).to_wire()["max_trace_visits"] == 7


def test_checkpoint_is_a_hook_builtin_not_an_allowed_builtin() -> None:
    assert HOOK_BUILTINS == ("checkpoint",)
    assert "checkpoint" not in allowed_builtins()


def test_run_once_traces() -> None:
    assert run_once(LOOP, 4, limits=FAST, trace=TraceRequest(1, 3)) == _traced({"i": 2, "s": 3}, 3)
    assert run_once(LOOP, 4, limits=FAST) == CallResult(6, None)


def test_checkpoints_at_module_level_count_for_nothing() -> None:
    code = "for i in range(5):\n    checkpoint(1, i=i)\ndef blackbox():\n    checkpoint(1, i=9)\n"
    with SandboxWorker(code, limits=FAST) as worker:
        assert worker.call(trace=TraceRequest(1, 1)) == _traced({"i": 9}, 1)
        assert worker.call(trace=TraceRequest(1, 2)) == _traced(None, 1)


def test_a_stashed_stop_raised_later_is_an_ordinary_exception() -> None:
    code = textwrap.dedent(
        """
        stash = []
        def blackbox(mode):
            if mode == 'raise':
                raise stash[0]
            try:
                checkpoint(1)
            except BaseException as e:
                stash.append(e)
        """
    )
    with SandboxWorker(code, limits=FAST) as worker:
        assert worker.call("catch", trace=TraceRequest(1, 1)) == _traced({}, 1)
        assert worker.call("raise") == CallResult(
            None, CallError(ErrorKind.EXCEPTION, "_CheckpointStop")
        )
        assert worker.call("raise", trace=TraceRequest(1, 1)) == CallResult(
            None, CallError(ErrorKind.EXCEPTION, "_CheckpointStop")
        )
        assert worker.call("catch") == CallResult(None, None)
