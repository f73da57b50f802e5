"""The EASY CII kinds of part A: templates against the references, params, texts, hand traces."""

from __future__ import annotations

import random
from functools import cache
from itertools import product

import pytest

from blackboxes.box import JSONValue
from blackboxes.families.cii._easy_a import EASY_A, KEYS
from blackboxes.families.cii._kind import MAX_EVENTS, Params, ProgramKind
from oracle_bench.errors import FamilyError
from tests.blackboxes.cii.harness import box_code, by_checkpoint, sandbox_trace, template_trace

KINDS = {kind.name: kind for kind in EASY_A}
NAMES = tuple(KINDS)
Args = dict[str, JSONValue]


@cache
def settings(name: str) -> tuple[Params, ...]:
    return tuple(KINDS[name].all_params())


def inputs(kind: ProgramKind, count: int = 40) -> list[Args]:
    """Every combination of the domains' edges, then ``count`` random inputs."""
    names = [name for name, _ in kind.inputs]
    edges = [
        dict(zip(names, combo, strict=True))
        for combo in product(*(d.edges() for _, d in kind.inputs))
    ]
    rng = random.Random(f"{kind.name} inputs")
    samples = [{name: domain.sample(rng) for name, domain in kind.inputs} for _ in range(count)]
    return edges + samples


def test_order_levels_and_counts() -> None:
    assert NAMES == ("bubble_sort", "insertion_sort", "euclid", "factorial")
    assert all(kind.level == "easy" for kind in EASY_A)
    assert {name: len(settings(name)) for name in NAMES} == {
        "bubble_sort": 176,
        "insertion_sort": 176,
        "euclid": 384,
        "factorial": 192,
    }
    assert len(KEYS) == 11
    for name in NAMES:
        assert len({repr(sorted(p.items())) for p in settings(name)}) == len(settings(name))


@pytest.mark.parametrize("name", NAMES)
def test_template_matches_reference(name: str) -> None:
    kind = KINDS[name]
    chosen = random.Random(name).sample(settings(name), 24)
    cases = inputs(kind)
    for params in chosen:
        for args in cases:
            assert template_trace(kind, params, args) == kind.trace(params, args), (params, args)


@pytest.mark.parametrize("name", NAMES)
def test_template_code_shape(name: str) -> None:
    kind = KINDS[name]
    for params in settings(name)[::7]:
        code = box_code(kind, params)
        assert code.startswith('"""CII black box: ')
        assert "_" not in code.replace('"""', "")
        compile(code, name, "exec")


@pytest.mark.parametrize("name", NAMES)
def test_every_checkpoint_reached_and_events_bounded(name: str) -> None:
    kind = KINDS[name]
    reached: set[int] = set()
    worst = 0
    for params in settings(name):
        for args in inputs(kind, 10):
            events = kind.trace(params, args)
            reached |= {k for k, _ in events}
            worst = max(worst, len(events))
            assert all(1 <= k <= kind.checkpoints for k, _ in events)
    assert reached == set(range(1, kind.checkpoints + 1))
    assert worst <= MAX_EVENTS


def test_worst_case_event_counts() -> None:
    bubble, insertion, euclid, factorial = EASY_A
    longest = {"a": [20 - i for i in range(8)]}
    # No early exit, no shrinking: 7 passes of 7 comparisons, 7 pass ends, 1 end.
    assert max(len(bubble.trace(p, longest)) for p in settings("bubble_sort")) == 57
    # A reversed list from either side: 28 moves, 7 insertions, 1 end.
    assert max(len(insertion.trace(p, longest)) for p in settings("insertion_sort")) == 36
    assert len(factorial.trace(settings("factorial")[0], {"a": 40})) == 41
    # Subtraction from (3 * 40 + 3, 1) takes the most steps; check every input there.
    heavy = [p for p in settings("euclid") if p["k"] == 3 and p["c"] == 3 and not p["extended"]]
    worst = max(
        len(euclid.trace(p, {"a": a, "b": b}))
        for p in heavy
        if p["method"] == "subtract"
        for a in range(41)
        for b in range(41)
    )
    assert worst == 124
    assert worst <= MAX_EVENTS


SANDBOX_CASES: list[tuple[str, Params, list[Args]]] = [
    (
        "bubble_sort",
        {"order": "desc", "direction": "rise", "early": True, "shrink": True, "key": "mod5"},
        [{"a": [3, 9, 14, 0, 7]}, {"a": [4]}],
    ),
    (
        "insertion_sort",
        {"order": "asc", "move": "shift", "scan": "back", "ties": "pass", "key": "dist10"},
        [{"a": [12, 3, 8, 10, 17]}, {"a": [5, 5]}],
    ),
    (
        "euclid",
        {"method": "remainder", "extended": True, "k": 2, "c": 1, "d": 3, "swap": True},
        [{"a": 17, "b": 30}, {"a": 0, "b": 0}],
    ),
    (
        "factorial",
        {"start": 2, "step": 3, "m": 101, "order": "down"},
        [{"a": 6}, {"a": 0}],
    ),
]


@pytest.mark.parametrize(("name", "params", "cases"), SANDBOX_CASES)
def test_sandbox_matches_reference(name: str, params: Params, cases: list[Args]) -> None:
    kind = KINDS[name]
    code = box_code(kind, kind.check_params(params))
    for args in cases:
        assert sandbox_trace(code, kind, args) == by_checkpoint(kind.trace(params, args))


@pytest.mark.parametrize("name", NAMES)
def test_check_params_round_trips_and_rejects(name: str) -> None:
    kind = KINDS[name]
    for params in settings(name):
        assert kind.check_params(params) == params
        assert kind.check_params(params) is not params
    base = settings(name)[0]
    for key, value in base.items():
        missing = {k: v for k, v in base.items() if k != key}
        with pytest.raises(FamilyError):
            kind.check_params(missing)
        bad: list[JSONValue]
        if isinstance(value, bool):
            bad = [0, 1, "yes"]
        elif isinstance(value, int):
            bad = [True, str(value), -1, 10**6, 1.0 * value]
        else:
            bad = ["nope", 1, True]
        for wrong in bad:
            with pytest.raises(FamilyError):
                kind.check_params({**base, key: wrong})


@pytest.mark.parametrize("name", NAMES)
def test_descriptions_state_the_params(name: str) -> None:
    kind = KINDS[name]
    texts = [kind.describe(p) for p in settings(name)]
    assert len(set(texts)) == len(texts)
    for text in texts:
        assert "checkpoint 1" in text and f"checkpoint {kind.checkpoints}" in text


def test_hand_bubble_sort() -> None:
    kind = KINDS["bubble_sort"]
    params = {"order": "asc", "direction": "sink", "early": False, "shrink": False, "key": "value"}
    assert kind.trace(params, {"a": [3, 1, 2]}) == [
        (1, {"p": [1, 3, 2], "q": 0, "r": True}),
        (1, {"p": [1, 2, 3], "q": 1, "r": True}),
        (2, {"p": [1, 2, 3], "s": 0, "t": 2}),
        (1, {"p": [1, 2, 3], "q": 0, "r": False}),
        (1, {"p": [1, 2, 3], "q": 1, "r": False}),
        (2, {"p": [1, 2, 3], "s": 1, "t": 0}),
        (3, {"p": [1, 2, 3], "u": 2}),
    ]
    # Rising passes with early exit, descending by x mod 3: keys of [3, 4, 5] are 0, 1, 2.
    params = {"order": "desc", "direction": "rise", "early": True, "shrink": True, "key": "mod3"}
    assert kind.trace(params, {"a": [3, 4, 5]}) == [
        (1, {"p": [3, 5, 4], "q": 1, "r": True}),
        (1, {"p": [5, 3, 4], "q": 0, "r": True}),
        (2, {"p": [5, 3, 4], "s": 0, "t": 2}),
        (1, {"p": [5, 4, 3], "q": 1, "r": True}),
        (2, {"p": [5, 4, 3], "s": 1, "t": 1}),
        (3, {"p": [5, 4, 3], "u": 3}),
    ]


def test_hand_insertion_sort() -> None:
    kind = KINDS["insertion_sort"]
    shift = {"order": "asc", "move": "shift", "scan": "front", "ties": "stay", "key": "mod3"}
    assert kind.trace(shift, {"a": [4, 3, 5]}) == [
        (1, {"p": [4, 4, 5], "q": 0, "t": 3}),
        (2, {"p": [3, 4, 5], "s": 1, "u": 0}),
        (2, {"p": [3, 4, 5], "s": 2, "u": 2}),
        (3, {"p": [3, 4, 5], "v": 1}),
    ]
    swap = {"order": "asc", "move": "swap", "scan": "back", "ties": "pass", "key": "value"}
    assert kind.trace(swap, {"a": [2, 2, 1]}) == [
        (1, {"p": [2, 1, 2], "q": 2, "t": 2}),
        (2, {"p": [2, 1, 2], "s": 1, "u": 2}),
        (1, {"p": [1, 2, 2], "q": 1, "t": 2}),
        (1, {"p": [1, 2, 2], "q": 2, "t": 2}),
        (2, {"p": [1, 2, 2], "s": 0, "u": 2}),
        (3, {"p": [1, 2, 2], "v": 3}),
    ]


def test_hand_euclid() -> None:
    kind = KINDS["euclid"]
    ext = {"method": "remainder", "extended": True, "k": 1, "c": 0, "d": 0, "swap": False}
    assert kind.trace(ext, {"a": 12, "b": 8}) == [
        (1, {"p": 8, "q": 4, "r": 0, "s": 1, "t": 1, "u": -1, "v": 1}),
        (1, {"p": 4, "q": 0, "r": 1, "s": -1, "t": -2, "u": 3, "v": 2}),
        (2, {"w": 4, "x": 1, "y": -1, "v": 2}),
    ]
    sub = {"method": "subtract", "extended": False, "k": 2, "c": 1, "d": 0, "swap": False}
    assert kind.trace(sub, {"a": 2, "b": 3}) == [
        (1, {"p": 2, "q": 3, "v": 1}),
        (1, {"p": 2, "q": 1, "v": 2}),
        (1, {"p": 1, "q": 1, "v": 3}),
        (1, {"p": 0, "q": 1, "v": 4}),
        (2, {"w": 1, "v": 4}),
    ]


def test_hand_factorial() -> None:
    kind = KINDS["factorial"]
    params = {"start": 1, "step": 1, "m": 7, "order": "down"}
    assert kind.trace(params, {"a": 4}) == [
        (1, {"p": 4, "q": 4, "r": 3}),
        (1, {"p": 5, "q": 3, "r": 2}),
        (1, {"p": 3, "q": 2, "r": 1}),
        (1, {"p": 3, "q": 1, "r": 0}),
        (2, {"p": 3, "q": 1}),
    ]
    assert kind.trace(params, {"a": 0}) == [(2, {"p": 1, "q": 0})]


def test_bezout_and_gcd_on_every_input() -> None:
    kind = KINDS["euclid"]
    import math

    for params in settings("euclid"):
        if not params["extended"] or params["c"] != 1:
            continue
        for a, b in product(range(0, 41, 3), range(0, 41, 4)):
            x = a * params["k"] + params["c"]
            y = b + params["d"]
            first, second = (y, x) if params["swap"] else (x, y)
            _, end = kind.trace(params, {"a": a, "b": b})[-1]
            assert end["w"] == math.gcd(x, y)
            assert end["x"] * first + end["y"] * second == end["w"]
