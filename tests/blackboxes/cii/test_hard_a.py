"""HARD CII kinds, set A: quicksort, merge sort, heap sort, sieve."""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator

import pytest

from blackboxes.box import JSONValue
from blackboxes.families.cii._domains import IntDomain
from blackboxes.families.cii._hard_a import HARD_A
from blackboxes.families.cii._kind import MAX_EVENTS, Params, ProgramKind
from oracle_bench.errors import FamilyError
from tests.blackboxes.cii.harness import box_code, by_checkpoint, sandbox_trace, template_trace

KINDS = {kind.name: kind for kind in HARD_A}
IDS = list(KINDS)


def _settings(kind: ProgramKind, count: int = 24) -> list[Params]:
    every = list(kind.all_params())
    rng = random.Random(kind.name)
    return every if len(every) <= count else rng.sample(every, count)


def _inputs(kind: ProgramKind, count: int = 40) -> Iterator[dict[str, JSONValue]]:
    names = [name for name, _ in kind.inputs]
    edges = [domain.edges() for _, domain in kind.inputs]
    for combo in itertools.product(*edges):
        yield dict(zip(names, combo, strict=True))
    rng = random.Random(f"{kind.name} inputs")
    for _ in range(count):
        yield {name: domain.sample(rng) for name, domain in kind.inputs}


def _all_inputs(kind: ProgramKind) -> Iterator[dict[str, JSONValue]]:
    """Every input of an integer domain, or edges plus many samples of a list domain."""
    (name, domain), *_ = kind.inputs
    if isinstance(domain, IntDomain):
        for value in range(domain.lo, domain.hi + 1):
            yield {name: value}
    else:
        yield from _inputs(kind, 300)


def test_exports() -> None:
    assert [kind.name for kind in HARD_A] == ["quicksort", "merge_sort", "heap_sort", "sieve"]
    assert all(kind.level == "hard" for kind in HARD_A)
    assert [name for kind in HARD_A for name, _ in kind.inputs] == ["a"] * 4


@pytest.mark.parametrize(
    ("name", "count"), [("quicksort", 192), ("merge_sort", 80), ("heap_sort", 96), ("sieve", 128)]
)
def test_params_count(name: str, count: int) -> None:
    every = list(KINDS[name].all_params())
    assert len(every) == count
    assert len({repr(sorted(p.items())) for p in every}) == count


@pytest.mark.parametrize("name", IDS)
def test_template_matches_reference(name: str) -> None:
    kind = KINDS[name]
    for params in _settings(kind):
        for args in _inputs(kind):
            assert template_trace(kind, params, args) == kind.trace(params, args), (params, args)


@pytest.mark.parametrize("name", IDS)
def test_checkpoints_reached_and_bounded(name: str) -> None:
    kind = KINDS[name]
    for params in _settings(kind, 12):
        reached: set[int] = set()
        worst = 0
        for args in _all_inputs(kind):
            events = kind.trace(params, args)
            reached |= {k for k, _ in events}
            worst = max(worst, len(events))
        assert reached == set(range(1, kind.checkpoints + 1)), params
        assert worst <= MAX_EVENTS


def test_worst_case_events() -> None:
    # The heaviest settings on the heaviest inputs stay far below the cap.
    quick = KINDS["quicksort"]
    lists = [list(range(8)), list(range(8, 0, -1)), [5] * 8, [0, 20] * 4]
    heaviest = max(len(quick.trace(p, {"a": a})) for p in quick.all_params() for a in lists)
    assert heaviest < 200
    sieve = KINDS["sieve"]
    assert max(len(sieve.trace(p, {"a": 40})) for p in sieve.all_params()) < 200


@pytest.mark.parametrize("name", IDS)
def test_distinct_behaviours(name: str) -> None:
    kind = KINDS[name]
    probes = list(_inputs(kind, 30))
    signatures = {
        repr([kind.trace(params, args) for args in probes]) for params in kind.all_params()
    }
    assert len(signatures) >= len(list(kind.all_params())) // 3


@pytest.mark.parametrize("name", IDS)
def test_sandbox_matches_reference(name: str) -> None:
    kind = KINDS[name]
    params = _settings(kind, 1)[0]
    code = box_code(kind, params)
    args = next(iter(_inputs(kind, 0)))
    assert sandbox_trace(code, kind, args) == by_checkpoint(kind.trace(params, args))


@pytest.mark.parametrize("name", IDS)
def test_check_params(name: str) -> None:
    kind = KINDS[name]
    every = list(kind.all_params())
    for params in every:
        assert kind.check_params(params) == params
        assert kind.check_params(params) is not params
    sample = every[-1]
    for key, value in sample.items():
        missing = {k: v for k, v in sample.items() if k != key}
        with pytest.raises(FamilyError):
            kind.check_params(missing)
        wrong: list[JSONValue] = ["nope", 99, [value]]
        if isinstance(value, bool):
            wrong.append(int(value))
        elif isinstance(value, int):
            wrong += [True, str(value)]
        for bad in wrong:
            with pytest.raises(FamilyError):
                kind.check_params({**sample, key: bad})


def test_sieve_modulus_only_for_sum() -> None:
    sieve = KINDS["sieve"]
    params = next(p for p in sieve.all_params() if p["output"] == "count")
    with pytest.raises(FamilyError):
        sieve.check_params({**params, "modulus": 7})


@pytest.mark.parametrize("name", IDS)
def test_describe_states_every_checkpoint(name: str) -> None:
    kind = KINDS[name]
    for params in _settings(kind, 8):
        text = kind.describe(params)
        for k in range(1, kind.checkpoints + 1):
            assert f"checkpoint {k}" in text


def test_module_docstrings_neutral() -> None:
    for kind in HARD_A:
        first = box_code(kind, next(iter(kind.all_params()))).splitlines()[0]
        assert first.startswith('"""CII black box: ')
        assert kind.name.split("_")[0] not in first


# --- hand-computed traces ----------------------------------------------------------------


def test_quicksort_lomuto_by_hand() -> None:
    kind = KINDS["quicksort"]
    params = {
        "pivot": "last",
        "scheme": "lomuto",
        "order": "asc",
        "first": "left",
        "ties": "left",
        "modulus": 0,
    }
    # [3, 1, 2]: pivot 2 at index 2; 3 stays right, 1 swaps to index 0; pivot lands at 1.
    assert kind.trace(params, {"a": [3, 1, 2]}) == [
        (1, {"q": 0, "r": 2, "s": 2, "t": 2}),
        (2, {"p": [1, 3, 2], "u": 0, "v": 1}),
        (3, {"p": [1, 2, 3], "q": 0, "r": 2, "w": 1}),
        (4, {"p": [1, 2, 3]}),
    ]


def test_quicksort_hoare_by_hand() -> None:
    kind = KINDS["quicksort"]
    params = {
        "pivot": "first",
        "scheme": "hoare",
        "order": "desc",
        "first": "right",
        "ties": "left",
        "modulus": 0,
    }
    # Descending, pivot 1 at index 0: i stops at 0 (1 > 1 is false), j stops at 2 (value 3);
    # swap -> [3, 2, 1]; then i runs to 2, j to 1; split 1. Right part (2, 2) is a single
    # element, left part (0, 1): pivot 3, i = 0, j = 0 at once, split 0.
    assert kind.trace(params, {"a": [1, 2, 3]}) == [
        (1, {"q": 0, "r": 2, "s": 0, "t": 1}),
        (2, {"p": [3, 2, 1], "u": 0, "v": 2}),
        (3, {"p": [3, 2, 1], "q": 0, "r": 2, "w": 1}),
        (1, {"q": 0, "r": 1, "s": 0, "t": 3}),
        (3, {"p": [3, 2, 1], "q": 0, "r": 1, "w": 0}),
        (4, {"p": [3, 2, 1]}),
    ]


def test_merge_sort_top_down_by_hand() -> None:
    kind = KINDS["merge_sort"]
    params = {"shape": "topdown", "order": "asc", "lean": "left", "ties": "left", "modulus": 0}
    # [2, 1, 3] splits 2 + 1; the left pair [2, 1] merges first.
    assert kind.trace(params, {"a": [2, 1, 3]}) == [
        (2, {"q": [1], "u": 0, "v": 2}),
        (2, {"q": [1, 2], "u": 1, "v": 2}),
        (1, {"q": [1, 2], "r": 0, "s": 1, "t": 2}),
        (2, {"q": [1], "u": 1, "v": 2}),
        (2, {"q": [1, 2], "u": 2, "v": 2}),
        (2, {"q": [1, 2, 3], "u": 2, "v": 3}),
        (1, {"q": [1, 2, 3], "r": 0, "s": 2, "t": 3}),
        (3, {"p": [1, 2, 3]}),
    ]


def test_merge_sort_bottom_up_by_hand() -> None:
    kind = KINDS["merge_sort"]
    params = {"shape": "bottomup", "order": "asc", "lean": "right", "ties": "right", "modulus": 3}
    # Keys mod 3 of [3, 6, 1] are 0, 0, 1; runs aligned to the end: (1, 2, 3) merges at
    # width 1, then (0, 1, 3); 3 and 6 tie, and ties take from the right run.
    assert kind.trace(params, {"a": [3, 6, 1]}) == [
        (2, {"q": [6], "u": 2, "v": 2}),
        (2, {"q": [6, 1], "u": 2, "v": 3}),
        (1, {"q": [6, 1], "r": 1, "s": 2, "t": 3}),
        (2, {"q": [6], "u": 0, "v": 2}),
        (2, {"q": [6, 3], "u": 1, "v": 2}),
        (2, {"q": [6, 3, 1], "u": 1, "v": 3}),
        (1, {"q": [6, 3, 1], "r": 0, "s": 1, "t": 3}),
        (3, {"p": [6, 3, 1]}),
    ]


def test_heap_sort_by_hand() -> None:
    kind = KINDS["heap_sort"]
    params = {"arity": 2, "heap": "max", "build": "siftdown", "child": "first", "modulus": 0}
    assert kind.trace(params, {"a": [1, 3, 2]}) == [
        (1, {"p": [3, 1, 2], "q": 0, "r": 1}),
        (2, {"p": [3, 1, 2]}),
        (3, {"p": [2, 1, 3], "s": 2, "t": 3}),
        (3, {"p": [1, 2, 3], "s": 1, "t": 2}),
        (4, {"p": [1, 2, 3]}),
    ]
    # Equal children: the first or the last one moves up.
    first = kind.trace(params, {"a": [1, 5, 5]})[0]
    last = kind.trace({**params, "child": "last"}, {"a": [1, 5, 5]})[0]
    assert first == (1, {"p": [5, 1, 5], "q": 0, "r": 1})
    assert last == (1, {"p": [5, 5, 1], "q": 0, "r": 2})


def test_sieve_by_hand() -> None:
    kind = KINDS["sieve"]
    params = {
        "start": "double",
        "bound": "sqrt",
        "odd": False,
        "inclusive": True,
        "output": "list",
        "modulus": 0,
    }
    assert kind.trace(params, {"a": 10}) == [
        (2, {"r": 2, "u": [2]}),
        (1, {"r": 2, "s": 4, "t": 1}),
        (1, {"r": 2, "s": 6, "t": 2}),
        (1, {"r": 2, "s": 8, "t": 3}),
        (1, {"r": 2, "s": 10, "t": 4}),
        (2, {"r": 3, "u": [2, 3]}),
        (1, {"r": 3, "s": 6, "t": 5}),
        (1, {"r": 3, "s": 9, "t": 6}),
        (2, {"r": 5, "u": [2, 3, 5]}),
        (2, {"r": 7, "u": [2, 3, 5, 7]}),
        (3, {"u": [2, 3, 5, 7], "t": 6}),
    ]
    odd = {**params, "start": "square", "odd": True, "inclusive": False}
    odd.update(output="sum", modulus=7)
    # n = 9: 2, 3, 5, 7 are found (sums mod 7: 2, 5, 3, 3); only 3 marks (9).
    assert kind.trace(odd, {"a": 10}) == [
        (2, {"r": 2, "u": 2}),
        (2, {"r": 3, "u": 5}),
        (1, {"r": 3, "s": 9, "t": 1}),
        (2, {"r": 5, "u": 3}),
        (2, {"r": 7, "u": 3}),
        (3, {"u": 3, "t": 1}),
    ]
    assert kind.trace(params, {"a": 1}) == [(3, {"u": [], "t": 0})]


def test_distinct_counts() -> None:
    # Hoare ignores ``ties`` (quicksort); marking from p*p ignores ``bound`` (sieve).
    rng = random.Random("distinct")
    expected = {"quicksort": 144, "merge_sort": 80, "heap_sort": 96, "sieve": 96}
    for kind in HARD_A:
        (_, domain), *_ = kind.inputs
        probes = domain.edges() + [domain.sample(rng) for _ in range(150)]
        signatures = {repr([kind.trace(p, {"a": a}) for a in probes]) for p in kind.all_params()}
        assert len(signatures) == expected[kind.name], kind.name
