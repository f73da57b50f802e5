"""oracle_bench.bounded: limits, bounded JSON, iterative value checks, recording stand-ins."""

from __future__ import annotations

import json
import math
import string
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from oracle_bench import canonical_json
from oracle_bench.bounded import (
    MAX_DEPTH,
    MAX_TEXT_CHARS,
    BoundsError,
    Limits,
    check_text,
    check_value,
    decode_json,
    json_nesting,
    load_json,
    preview,
    recordable,
    recordable_text,
)
from oracle_bench.errors import InvalidQueryError


def nested(depth: int, kind: str = "list") -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value] if kind == "list" else {"a": value}
    return value


def cyclic() -> dict[str, Any]:
    loop: dict[str, Any] = {}
    loop["self"] = loop
    return loop


def big_dfa(states: int = 1000, letters: str = string.ascii_lowercase) -> dict[str, Any]:
    names = [f"q{i}" for i in range(states)]
    return {
        "states": names,
        "alphabet": list(letters),
        "start": "q0",
        "accepting": names[::2],
        "transitions": [
            [s, a, names[(i * 7 + j) % states]]
            for i, s in enumerate(names)
            for j, a in enumerate(letters)
        ],
    }


# -- the three regressions of issue 9 ---------------------------------------------------


def test_a_4301_digit_number_is_one_line_not_a_value_error() -> None:
    text = '{"word": ' + "1" * 4301 + "}"
    with pytest.raises(BoundsError) as caught:
        load_json(text, what="the call")
    assert str(caught.value) == "the call holds a number with 4301 digits; at most 100 are allowed"
    with pytest.raises(BoundsError, match="a number with 4302 digits; at most 100"):
        check_value({"word": 10**4301}, "the call")
    assert recordable(10**4301).startswith("[not recorded as sent: the value holds a number")
    canonical_json({"x": recordable(10**4301)})


def test_1000_levels_of_nesting_are_one_line_not_a_recursion_error() -> None:
    text = "[" * 1000 + "]" * 1000
    with pytest.raises(BoundsError) as caught:
        load_json(text, what="the call")
    assert str(caught.value) == "the call nests 1000 levels deep; at most 32 are allowed"
    for kind in ("list", "dict"):
        with pytest.raises(BoundsError, match="nests 1000 levels deep; at most 32 are allowed"):
            check_value(nested(1000, kind), "the call")
    with pytest.raises(BoundsError, match="nests at least"):
        check_value(cyclic())
    canonical_json(recordable(nested(1000)))
    canonical_json(recordable(cyclic()))


def test_non_string_keys_are_refused_by_name() -> None:
    for key in (1, None, (1, 2), 2.5, True):
        with pytest.raises(BoundsError) as caught:
            check_value({"dfa": {key: "x"}}, "the hypothesis")
        message = str(caught.value)
        assert message.startswith("the hypothesis has an object key that is not a string (")
        assert message.endswith("); keys must be strings") and "\n" not in message
        canonical_json(recordable({key: "x"}))


# -- limits -------------------------------------------------------------------------------


def test_the_error_is_an_invalid_query_and_a_value_error() -> None:
    assert issubclass(BoundsError, InvalidQueryError) and issubclass(BoundsError, ValueError)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[NaN]", "the value holds NaN; only finite numbers are allowed"),
        ("[-Infinity]", "the value holds -Infinity; only finite numbers are allowed"),
        ("1e999", 'the value holds a number out of range ("1e999")'),
        ("1." + "0" * 200, "the value holds a number with 201 digits; at most 100 are allowed"),
        ('"\\ud800"', "the value holds an unpaired surrogate (U+D800); send valid UTF-8 text"),
    ],
)
def test_numbers_and_strings_json_cannot_hold(text: str, message: str) -> None:
    with pytest.raises(BoundsError) as caught:
        load_json(text)
    assert str(caught.value) == message


def test_text_limits() -> None:
    assert check_text("abc") == "abc"
    with pytest.raises(BoundsError, match=r"^the reply must be text, got int$"):
        check_text(3, "the reply")
    with pytest.raises(BoundsError, match=rf"has {MAX_TEXT_CHARS + 1} characters; at most"):
        check_text("x" * (MAX_TEXT_CHARS + 1))
    with pytest.raises(BoundsError, match="unpaired surrogate"):
        check_text("ok\udfffok")
    assert check_text("emoji \U0001f600 and accents é") == "emoji \U0001f600 and accents é"


def test_value_limits_with_small_limits() -> None:
    small = Limits(text_chars=10, depth=2, digits=3, items=3, nodes=8)
    assert check_value([[1, 2], "abc"], limits=small) == [[1, 2], "abc"]
    cases = [
        ([[[1]]], "nests 3 levels deep; at most 2"),
        ([1, 2, 3, 4], "an array of 4 items; at most 3"),
        ({"a": 1, "b": 2, "c": 3, "d": 4}, "an object of 4 members; at most 3"),
        ([1000], "a number with 4 digits; at most 3"),
        (["abcdef", "ghijk"], "more than 10 characters of text"),
        ([[1, 1, 1], [1, 1, 1]], "more than 8 values"),
        ({1, 2}, "a value of type set"),
        (b"bytes", "a value of type bytes"),
        (math.inf, "holds Infinity"),
    ]
    for value, message in cases:
        with pytest.raises(BoundsError, match=message):
            check_value(value, limits=small)


def test_generous_enough_for_a_1000_state_hypothesis_over_26_letters() -> None:
    dfa = big_dfa()
    call = {"tool": "equivalence_query", "arguments": {"dfa": dfa}}
    text = json.dumps(call)
    assert len(text) < MAX_TEXT_CHARS
    assert load_json(text) == call
    assert check_value(call) is call
    assert json_nesting(text)[0] <= 5 < MAX_DEPTH
    assert recordable(call) is call


def test_json_nesting_ignores_brackets_in_strings() -> None:
    text = '{"a": ["]]", "\\"[[", {"b": []}]} tail [[['
    depth, end = json_nesting(text)
    assert (depth, text[end:]) == (4, " tail [[[")
    assert json_nesting('"[[[["') == (0, 0)
    assert json_nesting('{"open": "never closed [[[[') == (1, len('{"open": "never closed [[[['))


def test_decode_json_at_an_offset() -> None:
    text = 'prose {"tool": "mq", "word": "ab"} more'
    value, end = decode_json(text, 6)
    assert value == {"tool": "mq", "word": "ab"} and text[end:] == " more"
    with pytest.raises(json.JSONDecodeError):
        decode_json("{oops", 0)
    with pytest.raises(BoundsError, match="the call nests 40 levels"):
        decode_json("x" + "[" * 40, 1, what="the call")


def test_preview_never_raises_and_stays_short() -> None:
    assert preview({"a": [1, "b", None, True]}) == '{"a": [1, "b", null, true]}'
    assert preview(10**5000) == "<a number with 5001 digits>"
    assert preview({(1, 2): 3}) == "{<tuple>: 3}"
    for value in (nested(100_000), cyclic(), "x" * 10_000, list(range(10_000))):
        shown = preview(value, 50)
        assert len(shown) <= 50 and shown.endswith("...")


def test_recordable_text_escapes_and_clips() -> None:
    assert recordable_text("fine") == "fine"
    stand_in = recordable_text("ab\ud800cd")
    assert stand_in.startswith("[not recorded as sent: the text holds an unpaired surrogate")
    assert stand_in.endswith("ab\\ud800cd")
    stand_in = recordable_text("y" * (MAX_TEXT_CHARS + 5))
    assert "has 1048581 characters" in stand_in and len(stand_in) < 400
    assert (
        recordable_text(None) == "[not recorded as sent: the text must be text, got NoneType] null"
    )
    for text in (stand_in, recordable_text("ab\ud800cd")):
        canonical_json(text).encode("utf-8")


# -- properties ---------------------------------------------------------------------------

_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=80, max_value=5000).map(lambda k: 10**k)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=20)
    | st.sampled_from(["\ud800", "x\udc00y"])
)
_KEYS = st.text(max_size=8) | st.integers() | st.none() | st.tuples(st.integers())
HOSTILE_VALUES = st.recursive(
    _SCALARS,
    lambda children: (
        st.lists(children, max_size=5)
        | st.dictionaries(_KEYS, children, max_size=5)
        | st.integers(min_value=20, max_value=1200).map(nested)
    ),
    max_leaves=20,
)
_FRAGMENTS = st.sampled_from(
    [
        "{",
        "}",
        "[",
        "]",
        '"',
        "\\",
        ":",
        ",",
        " ",
        "\n",
        "```json\n",
        "```",
        "NaN",
        "-Infinity",
        "1e999",
        "1" * 4301,
        '"tool"',
        '"word"',
        '"dfa"',
        "[" * 1000,
        '{"a":' * 200,
        "\ud800",
    ]
)
HOSTILE_TEXT = (
    st.text(max_size=50)
    | st.lists(_FRAGMENTS | st.text(max_size=5), max_size=30).map("".join)
    | st.integers(0, 2).map(lambda k: "x" * (MAX_TEXT_CHARS + k))
)


def _one_line(exc: BoundsError) -> None:
    assert str(exc) and "\n" not in str(exc)


@settings(max_examples=150, deadline=None)
@given(HOSTILE_VALUES)
def test_check_value_and_recordable_never_fail_otherwise(value: Any) -> None:
    try:
        check_value(value)
    except BoundsError as exc:
        _one_line(exc)
    safe = recordable(value)
    canonical_json({"v": safe}).encode("utf-8")
    assert len(preview(value)) <= 80


@settings(max_examples=150, deadline=None)
@given(HOSTILE_TEXT)
def test_load_json_raises_only_its_two_errors(text: str) -> None:
    try:
        value = load_json(text)
    except BoundsError as exc:
        _one_line(exc)
    except json.JSONDecodeError:
        pass
    else:
        canonical_json({"v": value}).encode("utf-8")
    canonical_json(recordable_text(text)).encode("utf-8")
