"""The EASY_B CII kinds: fibonacci, digits, prefix_function, most_frequent."""

from __future__ import annotations

import json
import random

import pytest

from blackboxes.box import JSONValue
from blackboxes.families.cii._easy_b import (
    EASY_B,
    DigitsKind,
    FibonacciKind,
    MostFrequentKind,
    PrefixFunctionKind,
)
from blackboxes.families.cii._kind import MAX_EVENTS, Params, ProgramKind
from oracle_bench.errors import FamilyError
from tests.blackboxes.cii.harness import box_code, by_checkpoint, sandbox_trace, template_trace

Args = dict[str, JSONValue]


def inputs_for(kind: ProgramKind, rng: random.Random, count: int = 40) -> list[Args]:
    """Every combination of domain edges, then ``count`` random inputs."""
    combos: list[Args] = [{}]
    for name, domain in kind.inputs:
        combos = [{**c, name: e} for c in combos for e in domain.edges()]
    for _ in range(count):
        combos.append({name: domain.sample(rng) for name, domain in kind.inputs})
    return combos


def sampled_params(kind: ProgramKind, n: int = 24) -> list[Params]:
    settings = list(kind.all_params())
    if len(settings) <= n:
        return settings
    return random.Random(kind.name).sample(settings, n)


def test_export_order() -> None:
    assert [k.name for k in EASY_B] == ["fibonacci", "digits", "prefix_function", "most_frequent"]
    assert all(k.level == "easy" for k in EASY_B)
    assert all([name for name, _ in k.inputs] == ["a"] for k in EASY_B)


@pytest.mark.parametrize(
    ("kind", "count"), [(EASY_B[0], 648), (EASY_B[1], 108), (EASY_B[2], 48), (EASY_B[3], 80)]
)
def test_params_count(kind: ProgramKind, count: int) -> None:
    settings = list(kind.all_params())
    assert len(settings) == count
    assert len({json.dumps(p, sort_keys=True) for p in settings}) == count


@pytest.mark.parametrize("kind", EASY_B, ids=lambda k: k.name)
def test_template_matches_reference(kind: ProgramKind) -> None:
    rng = random.Random(kind.name)
    for params in sampled_params(kind):
        for args in inputs_for(kind, rng):
            assert template_trace(kind, params, args) == kind.trace(params, args), (params, args)


@pytest.mark.parametrize("kind", EASY_B, ids=lambda k: k.name)
def test_sandbox_matches_reference(kind: ProgramKind) -> None:
    params = next(iter(kind.all_params()))
    rng = random.Random(kind.name)
    code = box_code(kind, params)
    for args in [{"a": kind.inputs[0][1].edges()[0]}, *inputs_for(kind, rng, 1)[-1:]]:
        if kind.name == "fibonacci":
            args = {"a": 6}  # keep the sandbox calls few (one per visit)
        assert sandbox_trace(code, kind, args) == by_checkpoint(kind.trace(params, args))


@pytest.mark.parametrize("kind", EASY_B, ids=lambda k: k.name)
def test_every_checkpoint_reached(kind: ProgramKind) -> None:
    rng = random.Random(kind.name)
    inputs = inputs_for(kind, rng, 200)
    for params in kind.all_params():
        reached = {k for args in inputs for k, _ in kind.trace(params, args)}
        assert reached == set(range(1, kind.checkpoints + 1)), params


def test_worst_case_events() -> None:
    fib, digits, prefix, freq = EASY_B
    # fibonacci: one event per step 2..a plus the end; a <= 40.
    assert max(len(fib.trace(p, {"a": 40})) for p in fib.all_params()) == 40
    # digits: one event per digit plus the end; base 2 has the most digits.
    worst = max(len(digits.trace({"base": 2, "op": "sum", "t": 0}, {"a": a})) for a in range(10000))
    assert worst == 15
    # prefix: the fallback loop runs at most len - 1 times in all (q rises by at most 1 per
    # position), so at most 3 * 10 events; check the bound on many inputs.
    rng = random.Random("prefix worst")
    words = [str(w) for w in prefix.inputs[0][1].edges()]
    words += ["".join(rng.choice("abc") for _ in range(10)) for _ in range(300)]
    seen = max(len(prefix.trace(p, {"a": w})) for p in prefix.all_params() for w in words)
    assert seen <= 3 * 10 <= MAX_EVENTS
    # most_frequent: at most two events per element plus the end.
    ones = [0] * 8
    assert max(len(freq.trace(p, {"a": ones})) for p in freq.all_params()) == 17 <= MAX_EVENTS


@pytest.mark.parametrize("kind", EASY_B, ids=lambda k: k.name)
def test_check_params(kind: ProgramKind) -> None:
    for params in kind.all_params():
        assert kind.check_params(params) == params
    base = next(iter(kind.all_params()))
    for key, value in base.items():
        missing = {k: v for k, v in base.items() if k != key}
        with pytest.raises(FamilyError):
            kind.check_params(missing)
        for bad in (True, "x", 999, -1, None, [value]):
            if bad == value:
                continue
            with pytest.raises(FamilyError):
                kind.check_params({**base, key: bad})


def test_check_params_specific() -> None:
    digits, freq = DigitsKind(), MostFrequentKind()
    with pytest.raises(FamilyError):
        digits.check_params({"base": 10, "op": "sum", "t": 3})  # t only for count
    with pytest.raises(FamilyError):
        digits.check_params({"base": 1, "op": "sum", "t": 0})
    with pytest.raises(FamilyError):
        freq.check_params({"key": "div", "k": 6, "tie": "first", "order": "forward"})
    with pytest.raises(FamilyError):
        freq.check_params({"key": "value", "k": 2, "tie": "first", "order": "forward"})
    assert freq.check_params({"key": "mod", "k": 6, "tie": "last", "order": "reverse"})


def test_fibonacci_by_hand() -> None:
    kind = FibonacciKind()
    plain = {"p": 1, "q": 1, "r": 0, "f0": 0, "f1": 1, "m": 10}
    assert kind.trace(plain, {"a": 5}) == [
        (1, {"r": 2, "p": 1, "q": 1}),
        (1, {"r": 3, "p": 1, "q": 2}),
        (1, {"r": 4, "p": 2, "q": 3}),
        (1, {"r": 5, "p": 3, "q": 5}),
        (2, {"t": 5}),
    ]
    other = {"p": 2, "q": 3, "r": 1, "f0": 2, "f1": 3, "m": 7}
    # f2 = (2*3 + 3*2 + 1) % 7 = 6, f3 = (2*6 + 3*3 + 1) % 7 = 1
    expected = [(1, {"r": 2, "p": 3, "q": 6}), (1, {"r": 3, "p": 6, "q": 1}), (2, {"t": 1})]
    assert kind.trace(other, {"a": 3}) == expected
    assert template_trace(kind, other, {"a": 3}) == expected
    assert kind.trace(other, {"a": 0}) == [(2, {"t": 2})]


def test_digits_by_hand() -> None:
    kind = DigitsKind()
    rev = {"base": 2, "op": "reverse", "t": 0}
    assert kind.trace(rev, {"a": 6}) == [
        (1, {"s": 0, "p": 3, "q": 0}),
        (1, {"s": 1, "p": 1, "q": 1}),
        (1, {"s": 1, "p": 0, "q": 3}),
        (2, {"q": 3, "r": 3}),
    ]
    alt = {"base": 10, "op": "alternating", "t": 0}
    expected = [
        (1, {"s": 4, "p": 123, "q": 4}),
        (1, {"s": 3, "p": 12, "q": 1}),
        (1, {"s": 2, "p": 1, "q": 3}),
        (1, {"s": 1, "p": 0, "q": 2}),
        (2, {"q": 2, "r": 4}),
    ]
    assert kind.trace(alt, {"a": 1234}) == expected
    assert template_trace(kind, alt, {"a": 1234}) == expected
    product = {"base": 10, "op": "product", "t": 0}
    assert kind.trace(product, {"a": 0}) == [(2, {"q": 1, "r": 0})]


def test_prefix_function_by_hand() -> None:
    kind = PrefixFunctionKind()
    plain = {"equal": "same", "order": "forward", "record": "border", "final": "last"}
    assert kind.trace(plain, {"a": "aabaa"}) == [
        (2, {"r": 1, "q": 1, "p": [0, 1]}),
        (1, {"r": 2, "q": 0}),
        (2, {"r": 2, "q": 0, "p": [0, 1, 0]}),
        (2, {"r": 3, "q": 1, "p": [0, 1, 0, 1]}),
        (2, {"r": 4, "q": 2, "p": [0, 1, 0, 1, 2]}),
        (3, {"p": [0, 1, 0, 1, 2], "t": 2}),
    ]
    # s = "bac"; a ~ b, so position 1 matches position 0; c then falls back to 0.
    odd = {"equal": "ab", "order": "reverse", "record": "complement", "final": "max"}
    expected = [
        (2, {"r": 1, "q": 1, "p": [1, 1]}),
        (1, {"r": 2, "q": 0}),
        (2, {"r": 2, "q": 0, "p": [1, 1, 3]}),
        (3, {"p": [1, 1, 3], "t": 3}),
    ]
    assert kind.trace(odd, {"a": "cab"}) == expected
    assert template_trace(kind, odd, {"a": "cab"}) == expected


def test_most_frequent_by_hand() -> None:
    kind = MostFrequentKind()
    smallest = {"key": "mod", "k": 3, "tie": "smallest", "order": "forward"}
    expected = [
        (1, {"s": 5, "u": 2, "t": [0, 0, 1]}),
        (2, {"p": 2, "q": 1}),
        (1, {"s": 1, "u": 1, "t": [0, 1, 1]}),
        (2, {"p": 1, "q": 1}),
        (1, {"s": 4, "u": 1, "t": [0, 2, 1]}),
        (2, {"p": 1, "q": 2}),
        (1, {"s": 2, "u": 2, "t": [0, 2, 2]}),
        (3, {"p": 1, "q": 2}),
    ]
    assert kind.trace(smallest, {"a": [5, 1, 4, 2]}) == expected
    assert template_trace(kind, smallest, {"a": [5, 1, 4, 2]}) == expected
    last = {**smallest, "tie": "last"}
    assert kind.trace(last, {"a": [5, 1, 4, 2]})[-2:] == [
        (2, {"p": 2, "q": 2}),
        (3, {"p": 2, "q": 2}),
    ]


@pytest.mark.parametrize("kind", EASY_B, ids=lambda k: k.name)
def test_describe_states_params(kind: ProgramKind) -> None:
    for params in sampled_params(kind, 8):
        text = kind.describe(params)
        assert "checkpoint 1" in text and f"checkpoint {kind.checkpoints}" in text
