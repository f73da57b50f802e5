"""HARD CII kinds B (manacher, lis, knapsack, bignum): templates against the references."""

from __future__ import annotations

import random
from itertools import product

import pytest

from blackboxes.box import JSONValue
from blackboxes.families.cii._hard_b import (
    HARD_B,
    BignumKind,
    KnapsackKind,
    LisKind,
    ManacherKind,
)
from blackboxes.families.cii._kind import MAX_EVENTS, Params, ProgramKind
from oracle_bench.errors import FamilyError
from tests.blackboxes.cii.harness import box_code, by_checkpoint, sandbox_trace, template_trace

KINDS = {kind.name: kind for kind in HARD_B}
COUNTS = {"manacher": 256, "lis": 128, "knapsack": 192, "bignum": 72}


def _settings(kind: ProgramKind, n: int = 24) -> list[Params]:
    every = list(kind.all_params())
    if len(every) <= n:
        return every
    return random.Random(kind.name).sample(every, n)


def _inputs(kind: ProgramKind, rng: random.Random, n: int = 40) -> list[dict[str, JSONValue]]:
    edges = [
        dict(zip([k for k, _ in kind.inputs], combo, strict=True))
        for combo in product(*(domain.edges() for _, domain in kind.inputs))
    ]
    drawn = [{k: domain.sample(rng) for k, domain in kind.inputs} for _ in range(n)]
    return edges + drawn


def _small_inputs(kind: ProgramKind) -> list[dict[str, JSONValue]]:
    """Exhaustive small cases (short words, short lists) where corner cases live."""
    name = kind.name
    if name == "manacher":
        words = ["".join(w) for n in range(1, 5) for w in product("abc", repeat=n)]
        return [{"a": w} for w in words]
    if name == "lis":
        return [{"a": list(x)} for n in range(1, 4) for x in product((0, 3, 5, 7, 14), repeat=n)]
    lists: list[JSONValue] = [[0], [9], [1, 0], [0, 0], [9, 9], [1, 0, 0], [5, 5, 5]]
    return [{"a": x, "b": y} for x in lists for y in lists]


def test_order_and_counts() -> None:
    assert [kind.name for kind in HARD_B] == ["manacher", "lis", "knapsack", "bignum"]
    for kind in HARD_B:
        assert kind.level == "hard"
        assert [name for name, _ in kind.inputs] == ["a", "b", "c"][: len(kind.inputs)]
        assert 2 <= kind.checkpoints <= 6
        settings = list(kind.all_params())
        assert len(settings) == COUNTS[kind.name]
        assert len({repr(sorted(s.items())) for s in settings}) == len(settings)


@pytest.mark.parametrize("name", list(KINDS))
def test_template_matches_reference(name: str) -> None:
    kind = KINDS[name]
    rng = random.Random(name)
    cases = _inputs(kind, rng) + _small_inputs(kind)
    for params in _settings(kind):
        for args in cases:
            expected = kind.trace(params, args)
            assert template_trace(kind, params, args) == expected, (params, args)


@pytest.mark.parametrize("name", list(KINDS))
def test_every_setting_on_a_few_inputs(name: str) -> None:
    kind = KINDS[name]
    cases = _inputs(kind, random.Random(name + "/all"), n=4)
    for params in kind.all_params():
        for args in cases:
            assert template_trace(kind, params, args) == kind.trace(params, args), (params, args)


@pytest.mark.parametrize("name", list(KINDS))
def test_sandbox_matches_reference(name: str) -> None:
    kind = KINDS[name]
    params = _settings(kind)[0]
    code = box_code(kind, params)
    rng = random.Random(name + "/sandbox")
    for args in [{k: d.sample(rng) for k, d in kind.inputs} for _ in range(2)]:
        assert sandbox_trace(code, kind, args) == by_checkpoint(kind.trace(params, args))


@pytest.mark.parametrize("name", list(KINDS))
def test_checkpoints_reached_and_event_bound(name: str) -> None:
    kind = KINDS[name]
    rng = random.Random(name + "/reach")
    cases = _inputs(kind, rng, n=30) + _small_inputs(kind)
    for params in kind.all_params():
        seen = {index for args in cases for index, _ in kind.trace(params, args)}
        assert seen == set(range(1, kind.checkpoints + 1)), params
    worst = max(len(kind.trace(params, args)) for params in kind.all_params() for args in cases)
    assert worst <= MAX_EVENTS


def test_worst_case_event_counts() -> None:
    # The largest inputs of each domain under the most expensive settings.
    manacher = KINDS["manacher"]
    worst = max(len(manacher.trace(p, {"a": "a" * 10})) for p in manacher.all_params())
    assert worst <= 21 * 2 + 21 + 1 + 100
    lis = KINDS["lis"]
    assert max(len(lis.trace(p, {"a": list(range(8))})) for p in lis.all_params()) <= 8 * 7 // 2 + 9
    knap = KINDS["knapsack"]
    big = {"a": [0] * 6, "b": [9] * 6}
    assert max(len(knap.trace(p, big)) for p in knap.all_params()) == 6 * 16 + 6 + 1
    bignum = KINDS["bignum"]
    big = {"a": [9] * 6, "b": [9] * 6}
    assert max(len(bignum.trace(p, big)) for p in bignum.all_params()) == 36 + 6 + 1


@pytest.mark.parametrize("name", list(KINDS))
def test_check_params(name: str) -> None:
    kind = KINDS[name]
    settings = list(kind.all_params())
    for params in settings:
        assert kind.check_params(params) == params
        assert kind.check_params(params) is not params
        assert kind.describe(params)
    sample = settings[0]
    for key, value in sample.items():
        missing = {k: v for k, v in sample.items() if k != key}
        with pytest.raises(FamilyError):
            kind.check_params(missing)
        wrong: JSONValue = "x" if not isinstance(value, str) else 3
        with pytest.raises(FamilyError):
            kind.check_params({**sample, key: wrong})
        if isinstance(value, int) and not isinstance(value, bool):
            with pytest.raises(FamilyError):
                kind.check_params({**sample, key: True})
            with pytest.raises(FamilyError):
                kind.check_params({**sample, key: 99})
        if isinstance(value, bool):
            with pytest.raises(FamilyError):
                kind.check_params({**sample, key: int(value)})


def _by_index(
    events: list[tuple[int, dict[str, JSONValue]]], index: int
) -> list[dict[str, JSONValue]]:
    return [values for k, values in events if k == index]


def test_manacher_by_hand() -> None:
    kind = ManacherKind()
    params: Params = {"mode": "odd", "report": "length", "pair": "", "tie": "first", "least": 1}
    events = kind.trace(params, {"a": "aba"})
    assert events == [
        (2, {"q": 0, "p": [0, 0, 0], "s": 0, "u": 0, "y": 1}),
        (1, {"q": 1, "r": 1}),
        (2, {"q": 1, "p": [0, 1, 0], "s": 0, "u": 2, "y": 3}),
        (2, {"q": 2, "p": [0, 1, 0], "s": 0, "u": 2, "y": 3}),
        (3, {"p": [0, 1, 0], "y": 3}),
    ]
    # Separators: "ab" with a ~ b is |a|b|, radii 0 1 2 1 0; "ab" is a palindrome.
    params = {"mode": "sep", "report": "count", "pair": "ab", "tie": "first", "least": 1}
    events = kind.trace(params, {"a": "ab"})
    assert _by_index(events, 3) == [{"p": [0, 1, 2, 1, 0], "y": 3}]
    params = {**params, "report": "start", "tie": "last", "pair": ""}
    assert _by_index(kind.trace(params, {"a": "abc"}), 3)[0]["y"] == 2
    params = {**params, "tie": "first"}
    assert _by_index(kind.trace(params, {"a": "abc"}), 3)[0]["y"] == 0
    # "aba" and "bab" tie in "abab": the first ends at 2, the last at 3.
    params = {"mode": "odd", "report": "end", "pair": "", "tie": "first", "least": 1}
    assert _by_index(kind.trace(params, {"a": "abab"}), 3)[0]["y"] == 2
    params = {**params, "tie": "last"}
    assert _by_index(kind.trace(params, {"a": "abab"}), 3)[0]["y"] == 3
    # Lengths >= 4 in "aaaa" with separators: "aaaa" once.
    params = {"mode": "sep", "report": "count", "pair": "", "tie": "first", "least": 4}
    assert _by_index(kind.trace(params, {"a": "aaaa"}), 3)[0]["y"] == 1


def test_lis_by_hand() -> None:
    kind = LisKind()
    params: Params = {
        "strict": True,
        "down": False,
        "method": "patience",
        "report": "tail",
        "key": "id",
    }
    events = kind.trace(params, {"a": [3, 1, 2]})
    assert events == [
        (1, {"q": 0, "r": 0, "t": [3]}),
        (2, {"q": 0, "p": [1], "y": 3}),
        (1, {"q": 1, "r": 0, "t": [1]}),
        (2, {"q": 1, "p": [1, 1], "y": 1}),
        (1, {"q": 2, "r": 1, "t": [1, 2]}),
        (2, {"q": 2, "p": [1, 1, 2], "y": 2}),
        (3, {"p": [1, 1, 2], "y": 2}),
    ]
    params = {**params, "method": "dp", "report": "last", "strict": False, "down": True}
    events = kind.trace(params, {"a": [5, 5, 2]})
    assert _by_index(events, 1) == [
        {"q": 1, "r": 0, "p": [1, 2]},
        {"q": 2, "r": 0, "p": [1, 2, 2]},
        {"q": 2, "r": 1, "p": [1, 2, 3]},
    ]
    assert _by_index(events, 3) == [{"p": [1, 2, 3], "y": 2}]


def test_knapsack_by_hand() -> None:
    kind = KnapsackKind()
    params: Params = {"cap": 5, "table": "1d", "unbounded": False, "weight": "w+1", "value": "v"}
    # Items (weight 2, value 3) and (weight 3, value 4); the extra weight 9 is unpaired.
    events = kind.trace(params, {"a": [1, 2, 9], "b": [3, 4]})
    assert _by_index(events, 2) == [
        {"q": 0, "p": [0, 0, 3, 3, 3, 3]},
        {"q": 1, "p": [0, 0, 3, 4, 4, 7]},
    ]
    assert _by_index(events, 1)[:4] == [
        {"q": 0, "r": 5, "s": 3},
        {"q": 0, "r": 4, "s": 3},
        {"q": 0, "r": 3, "s": 3},
        {"q": 0, "r": 2, "s": 3},
    ]
    assert _by_index(events, 3) == [{"y": 7}]
    params = {**params, "table": "2d", "unbounded": True}
    events = kind.trace(params, {"a": [1], "b": [3]})
    assert _by_index(events, 2) == [{"q": 0, "p": [0, 0, 3, 3, 6, 6]}]
    assert len(_by_index(events, 1)) == 6


def test_bignum_by_hand() -> None:
    kind = BignumKind()
    params: Params = {"op": "add", "base": 10, "msd": True, "trim": True}
    events = kind.trace(params, {"a": [9, 5], "b": [7]})
    assert events == [
        (1, {"q": 0, "r": 2, "s": 1}),
        (1, {"q": 1, "r": 0, "s": 1}),
        (2, {"p": [2, 0], "s": 1}),
        (3, {"p": [1, 0, 2]}),
    ]
    params = {"op": "sub", "base": 10, "msd": False, "trim": False}
    assert _by_index(kind.trace(params, {"a": [1], "b": [0, 1]}), 3) == [{"p": [9, 0]}]
    params = {"op": "mul", "base": 2, "msd": True, "trim": True}
    # Digits mod 2: 3 -> 1, so 11 * 11 (binary 3 * 3) = 1001.
    assert _by_index(kind.trace(params, {"a": [1, 3], "b": [3, 1]}), 3) == [{"p": [1, 0, 0, 1]}]


def _number(digits: list[int], base: int, msd: bool) -> int:
    total = 0
    for d in digits if msd else digits[::-1]:
        total = total * base + d % base
    return total


def test_bignum_results_are_the_arithmetic() -> None:
    kind = BignumKind()
    rng = random.Random("bignum/values")
    for params in kind.all_params():
        base = int(params["base"])
        for _ in range(10):
            a = [rng.randint(0, 9) for _ in range(rng.randint(1, 6))]
            b = [rng.randint(0, 9) for _ in range(rng.randint(1, 6))]

            x, y = _number(a, base, bool(params["msd"])), _number(b, base, bool(params["msd"]))
            want = {"add": x + y, "sub": abs(x - y), "mul": x * y}[str(params["op"])]
            result = kind.trace(params, {"a": a, "b": b})[-1][1]["p"]
            assert isinstance(result, list)
            assert _number([int(d) for d in result], base, bool(params["msd"])) == want
            if params["trim"]:
                top = result[0] if params["msd"] else result[-1]
                assert top != 0 or len(result) == 1
