"""The wire's fast JSON is ``json.dumps``/``json.loads`` with the same options: the same
text, the same refusals, and a RecursionError at exactly the same nesting depth."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from sandbox import _jsonwire
from sandbox import _protocol as proto


def _refuse(name: str) -> Any:
    raise ValueError(f"non-finite number {name} in JSON")


def reference_dumps(obj: Any) -> bytes:
    """What proto.dumps has always been."""
    return json.dumps(obj, allow_nan=False, separators=(",", ":"), ensure_ascii=True).encode(
        "ascii"
    )


def reference_loads(data: bytes | str) -> Any:
    return json.loads(data, parse_constant=_refuse)


class Weird(dict):  # type: ignore[type-arg]
    def items(self) -> Any:
        return [("k", "from items()")]


VALUES: list[Any] = [
    None,
    True,
    0,
    -(2**100),
    1.5,
    -0.0,
    1e308,
    5e-324,
    "",
    "plain",
    "é 日本 😀 \x00\x1f\x7f \"' \\ \u2028",
    "\ud800 lone",
    [],
    {},
    [1, [2, [3, {"a": None}]]],
    {"b": 1, "a": 2, "": [], "é": "x"},
    {1: "int key", False: "bool key", None: "none key", 2.5: "float key"},
    (1, (2, 3)),
    Weird(a=1),
    list(range(100)),
]
BAD_VALUES: list[Any] = [
    float("nan"),
    [float("inf")],
    {"a": -float("inf")},
    {1j: 1},
    {(1, 2): 3},
    b"bytes",
    {1, 2},
    object(),
]


def _outcome(fn: Callable[[Any], Any], arg: Any) -> tuple[str, Any]:
    try:
        return ("ok", fn(arg))
    except Exception as exc:
        return (type(exc).__name__, str(exc))


def _id(value: Any) -> str:
    """A test id that is the same in every process (an object's repr holds its address,
    and pytest-xdist's workers must collect the same ids)."""
    text = repr(value)
    return "object()" if text.startswith("<object object at") else text


@pytest.mark.parametrize("value", VALUES + BAD_VALUES, ids=_id)
def test_dumps_value_is_json_dumps(value: Any) -> None:
    expected = _outcome(reference_dumps, value)
    assert _outcome(proto.dumps_value, value) == expected
    assert _outcome(proto.dumps, value) == expected


def test_circular_values_are_refused_as_before_and_leave_nothing_behind() -> None:
    loop: list[Any] = []
    loop.append(loop)
    expected = _outcome(reference_dumps, loop)
    assert expected[0] == "ValueError"
    assert _outcome(proto.dumps_value, loop) == expected
    # The markers of a failed encoding must not make the next value look circular.
    shared = [1]
    assert proto.dumps_value([shared, shared]) == b"[[1],[1]]"


DOCUMENTS: list[bytes | str] = [
    b'{"a":["hello",3]}',
    b'{"v":{"values":null,"visits":2}}',
    b'{"v":1,"r":1}',
    b"[1,2]",
    b'"text"',
    b'  {"a": 1}  \n',
    b'{"a":1} ',
    b'{"a":1} x',
    b'{"a":1}{"b":2}',
    b"",
    b"   ",
    b"garbage",
    b'{"v":NaN}',
    b'{"v":[Infinity]}',
    b'{"v":-Infinity}',
    b'{"v":"\\ud800"}',
    b'{"v":"\xed\xa0\x80"}',
    b'{"v":"\xff"}',
    b"\xef\xbb\xbf" + b'{"v":1}',
    '{"v":"hi"}'.encode("utf-16-le"),
    '{"v":"hi"}'.encode("utf-16"),
    '{"v":"hi"}'.encode("utf-32-be"),
    b"\x00\x00\x00",
    b'{"',
    b'{"a"',
    b'{"a":',
    b"1e400",
    b"-0",
    b'{"a":1,"a":2}',
    "\ufeff{}",
    '{"a": "str input"}',
    " [1] ",
]


@pytest.mark.parametrize("document", DOCUMENTS, ids=repr)
def test_loads_is_json_loads(document: bytes | str) -> None:
    assert _outcome(proto.loads, document) == _outcome(reference_loads, document)


@contextmanager
def _recursion_limit(limit: int) -> Iterator[None]:
    before = sys.getrecursionlimit()
    sys.setrecursionlimit(limit)
    try:
        yield
    finally:
        sys.setrecursionlimit(before)


def _first_failure(fn: Callable[[Any], Any], items: list[Any]) -> int | None:
    for depth, item in enumerate(items):
        try:
            fn(item)
        except RecursionError:
            return depth
    return None


def _nested_lists(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize("limit", [80, 300])
def test_dumps_value_meets_the_recursion_limit_where_json_dumps_did(limit: int) -> None:
    # Box results nested right at the limit are refused (or not) as they always were.
    values = [_nested_lists(d) for d in range(limit + 20)]
    values_in_dicts = [{"a": v} for v in values]
    with _recursion_limit(limit):
        for items in (values, values_in_dicts):
            expected = _first_failure(reference_dumps, items)
            assert expected is not None
            assert _first_failure(proto.dumps_value, items) == expected


@pytest.mark.parametrize("limit", [80, 300])
def test_loads_meets_the_recursion_limit_where_json_loads_did(limit: int) -> None:
    shapes: list[Callable[[int], bytes]] = [
        lambda d: b"[" * (d + 1) + b"]" * (d + 1),
        lambda d: b'{"k":' * d + b"{}" + b"}" * d,
        lambda d: b'{"a":' + b"[" * (d + 1) + b"]" * (d + 1) + b"}",
        lambda d: b"[" * (d + 1) + b"]" * (d + 1) + b" \n",  # the decoder's fallback
        lambda d: b" " + b"[" * (d + 1) + b"]" * (d + 1),
    ]
    for shape in shapes:
        documents = [shape(d) for d in range(limit + 20)]
        with _recursion_limit(limit):
            expected = _first_failure(reference_loads, documents)
            assert expected is not None
            assert _first_failure(proto.loads, documents) == expected


def test_a_c_encoder_that_disagrees_is_not_used(monkeypatch: pytest.MonkeyPatch) -> None:
    def wrong_encoder(*args: Any) -> Callable[[Any, int], list[str]]:
        return lambda obj, level: ["[]"]

    monkeypatch.setattr(_jsonwire._encoder, "c_make_encoder", wrong_encoder)
    assert _jsonwire._c_encoder() is None
    monkeypatch.setattr(_jsonwire._encoder, "c_make_encoder", None)
    assert _jsonwire._c_encoder() is None
