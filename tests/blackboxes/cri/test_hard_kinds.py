"""CRI hard kinds (n = 10): circuit against the functional reference on every input,
constant gate counts, params, descriptions, hand-computed values, and the distinct-function
counts recomputed from the references alone.

Counting: every kind's parameters are a mask (XORed into the input) and a small "base"
choice (op, bit order, threshold, source). The reference on (base, mask) is the reference on
(base, zero mask) read at index ``i ^ mask`` -- checked on sampled params and every input --
so each function's table is built from the few base tables without calling the circuit.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from functools import cache
from operator import itemgetter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blackboxes.families.cri._circuit import bits_of, index_of
from blackboxes.families.cri._hard import HARD_ENUMERATED
from blackboxes.families.cri._kind import EnumeratedKind, describe_inputs
from oracle_bench.errors import FamilyError

KINDS = {kind.name: kind for kind in HARD_ENUMERATED}
IDS = [kind.name for kind in HARD_ENUMERATED]
MASK_KEYS = {
    "adder": ("ia", "ib"),
    "comparator": ("ia", "ib"),
    "popcount": ("c",),
    "at_least": ("c",),
    "reachability": ("c",),
}
EXPECTED_DISTINCT = {
    "adder": 2048,
    "comparator": 2048,
    "popcount": 1024,
    "at_least": 5120,
    "reachability": 5120,
}
INPUTS = [bits_of(i, 10) for i in range(1024)]


@cache
def _params(name: str) -> tuple[dict[str, Any], ...]:
    return tuple(KINDS[name].all_params())


def _sample(name: str, count: int, seed: int) -> list[dict[str, Any]]:
    return random.Random(f"{name} {seed}").sample(list(_params(name)), count)


def _split(name: str, params: dict[str, Any]) -> tuple[tuple[tuple[str, Any], ...], int]:
    """(the base params with zero masks, as a key; the mask as a truth-table index)."""
    keys = MASK_KEYS[name]
    base = {k: ("0" * len(v) if k in keys else v) for k, v in params.items()}
    return tuple(sorted(base.items())), index_of("".join(params[k] for k in keys))


def _read(table: tuple[int, ...], index: int) -> str:
    return "".join("1" if t >> index & 1 else "0" for t in table)


def _tables(outs: list[str]) -> tuple[int, ...]:
    """Output strings on every input (in index order) as one truth table per output."""
    return tuple(int("".join(o[j] for o in reversed(outs)), 2) for j in range(len(outs[0])))


@cache
def _xor_reader(mask: int) -> Callable[[Sequence[str]], tuple[str, ...]]:
    return itemgetter(*(i ^ mask for i in range(1024)))


def test_order_and_shape() -> None:
    assert IDS == ["adder", "comparator", "popcount", "at_least", "reachability"]
    assert [(k.n, k.m) for k in HARD_ENUMERATED] == [(10, 6), (10, 3), (10, 4), (10, 1), (10, 4)]
    assert [k.gate_count for k in HARD_ENUMERATED] == [37, 35, 44, 48, 58]


@pytest.mark.parametrize("name", IDS)
def test_circuit_tables_match_direct_on_every_input(name: str) -> None:
    kind = KINDS[name]
    for params in _sample(name, 200, 1):
        circuit = kind.circuit(params)
        fn = kind.direct(params)
        assert circuit.tables("outputs") == _tables([fn(x) for x in INPUTS]), params
        # Inputs go through a BUF/NOT layer first, each input once.
        first = circuit.gates[:10]
        assert {g.op for g in first} <= {"BUF", "NOT"}
        assert sorted(g.inputs[0] for g in first) == list(range(10))
        # Every output is a gate, so the gates mode shows everything the outputs mode does.
        assert all(w >= 10 for w in circuit.outputs)


@pytest.mark.parametrize("name", IDS)
def test_circuit_evaluate_matches_direct(name: str) -> None:
    kind = KINDS[name]
    every = _params(name)
    # Every input for the last params; 12 random inputs for 200 others.
    circuit, fn = kind.circuit(every[-1]), kind.direct(every[-1])
    assert all(circuit.evaluate(x) == fn(x) for x in INPUTS)
    rng = random.Random(f"{name} evaluate")
    for params in _sample(name, 200, 2):
        circuit, fn = kind.circuit(params), kind.direct(params)
        for x in rng.sample(INPUTS, 12):
            assert circuit.evaluate(x) == fn(x), (params, x)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(IDS), st.integers(0, 5119), st.integers(0, 1023))
def test_evaluate_property(name: str, which: int, index: int) -> None:
    kind = KINDS[name]
    params = _params(name)[which % len(_params(name))]
    x = bits_of(index, 10)
    assert kind.circuit(params).evaluate(x) == kind.direct(params)(x)
    assert _read(kind.circuit(params).tables(), index) == kind.direct(params)(x)


@pytest.mark.parametrize("name", IDS)
def test_gate_count_is_constant(name: str) -> None:
    kind = KINDS[name]
    assert {len(kind.circuit(p).gates) for p in _params(name)} == {kind.gate_count}


@pytest.mark.parametrize("name", IDS)
def test_mask_reduction_holds(name: str) -> None:
    kind = KINDS[name]
    for params in _sample(name, 30, 3):
        base, mask = _split(name, params)
        fn, base_fn = kind.direct(params), kind.direct(dict(base))
        assert all(fn(bits_of(i, 10)) == base_fn(bits_of(i ^ mask, 10)) for i in range(1024))


@pytest.mark.parametrize("name", IDS)
def test_distinct_count_from_direct(name: str) -> None:
    kind = KINDS[name]
    bases: dict[tuple[tuple[str, Any], ...], list[str]] = {}
    functions = set()
    for params in _params(name):
        base, mask = _split(name, params)
        if base not in bases:
            base_fn = kind.direct(dict(base))
            bases[base] = [base_fn(x) for x in INPUTS]
        outs = bases[base]
        functions.add(_xor_reader(mask)(outs))
    assert len(functions) == EXPECTED_DISTINCT[name]
    assert len(kind.distinct("outputs")) == len(functions)
    assert 2 ** kind.log2_h("outputs") == pytest.approx(len(functions))


@pytest.mark.parametrize("name", IDS)
def test_sample_params_is_valid(name: str) -> None:
    kind = KINDS[name]
    rng = random.Random(5)
    for _ in range(20):
        params = kind.sample_params(rng)
        assert kind.check_params(params) == params
        assert params in _params(name)


@pytest.mark.parametrize("name", IDS)
def test_check_params_round_trips(name: str) -> None:
    kind = KINDS[name]
    for params in _sample(name, 50, 4):
        checked = kind.check_params(params)
        assert checked == params
        assert checked is not params


BAD: dict[str, list[dict[str, Any]]] = {
    "adder": [
        {"ia": "0000", "ib": "00000", "op": "add"},
        {"ia": "00000", "ib": "000002", "op": "add"},
        {"ia": 0, "ib": "00000", "op": "add"},
        {"ia": "00000", "ib": "00000", "op": "mul"},
        {"ia": "00000", "ib": "00000", "op": 1},
        {"ia": "00000", "ib": "00000"},
    ],
    "comparator": [
        {"ia": "00000", "ib": "00000", "msb_first": 2},
        {"ia": "00000", "ib": "00000", "msb_first": True},
        {"ia": "00000", "ib": "00000", "msb_first": "1"},
        {"ia": "000000", "ib": "00000", "msb_first": 0},
        {"ib": "00000", "msb_first": 0},
    ],
    "popcount": [{"c": "000000000"}, {"c": "00000000000"}, {"c": 5}, {"c": "0000a00000"}, {}],
    "at_least": [
        {"c": "0000000000", "t": 2},
        {"c": "0000000000", "t": 8},
        {"c": "0000000000", "t": 5.0},
        {"c": "0000000000", "t": True},
        {"c": "000000000", "t": 5},
    ],
    "reachability": [
        {"c": "0000000000", "s": 5},
        {"c": "0000000000", "s": -1},
        {"c": "0000000000", "s": "0"},
        {"c": "00000", "s": 0},
        {"s": 0},
    ],
}


@pytest.mark.parametrize("name", IDS)
def test_check_params_rejects(name: str) -> None:
    kind = KINDS[name]
    for params in BAD[name]:
        with pytest.raises(FamilyError):
            kind.check_params(params)
        with pytest.raises(FamilyError):
            kind.circuit(params)


@pytest.mark.parametrize("name", IDS)
def test_direct_rejects_bad_inputs(name: str) -> None:
    fn = KINDS[name].direct(_params(name)[0])
    for x in ("", "000000000", "00000000000", "000000000a", "0000 00000"):
        with pytest.raises(FamilyError):
            fn(x)


def _phrases(name: str, params: dict[str, Any]) -> list[str]:
    """What the description must say about each parameter."""
    masks = [f"= {params[k]}" for k in MASK_KEYS[name]]
    if name == "adder":
        return [*masks, "(a + b) mod 64" if params["op"] == "add" else "(a - b) mod 64"]
    if name == "comparator":
        which = "most" if params["msb_first"] else "least"
        return [*masks, f"a_0 is the {which} significant bit"]
    if name == "at_least":
        return [*masks, f"k >= {params['t']}"]
    if name == "reachability":
        return [*masks, f"s = {params['s']}", f"from node {params['s']}"]
    return masks


@pytest.mark.parametrize("name", IDS)
def test_describe_states_every_parameter(name: str) -> None:
    kind = KINDS[name]
    for params in _sample(name, 40, 6):
        text = kind.describe(params)
        assert text.startswith(describe_inputs(10))
        for phrase in _phrases(name, params):
            assert phrase in text, (phrase, text)
        assert f"Output: a string of {kind.m} character" in text
        lowered = text.lower()
        assert name.replace("_", " ") not in lowered and name not in lowered
        assert "gate" not in lowered and "circuit" not in lowered


def test_describe_reachability_lists_the_other_nodes() -> None:
    text = KINDS["reachability"].describe({"c": "0000000000", "s": 2})
    assert "o_0, o_1, o_2, o_3 = 0, 1, 3, 4" in text
    assert "5: (1,3)" in text


HAND: list[tuple[str, dict[str, Any], str, str]] = [
    ("adder", {"ia": "00000", "ib": "00000", "op": "add"}, "1000000000", "100000"),
    ("adder", {"ia": "00000", "ib": "00000", "op": "add"}, "1111111111", "011111"),
    ("adder", {"ia": "11000", "ib": "00001", "op": "add"}, "0010010000", "000110"),
    ("adder", {"ia": "10000", "ib": "00000", "op": "sub"}, "0000000000", "100000"),
    ("adder", {"ia": "10000", "ib": "00000", "op": "sub"}, "0000001000", "111111"),
    ("comparator", {"ia": "00000", "ib": "00000", "msb_first": 0}, "1000001000", "100"),
    ("comparator", {"ia": "00000", "ib": "00000", "msb_first": 1}, "1000001000", "001"),
    ("comparator", {"ia": "11111", "ib": "00000", "msb_first": 1}, "0000011111", "010"),
    ("comparator", {"ia": "10101", "ib": "00000", "msb_first": 0}, "1010110101", "100"),
    ("popcount", {"c": "0000000000"}, "1111111111", "0101"),
    ("popcount", {"c": "1111111111"}, "1111111111", "0000"),
    ("popcount", {"c": "1010101010"}, "0000000001", "0110"),
    ("at_least", {"c": "0000000000", "t": 3}, "1110000000", "1"),
    ("at_least", {"c": "0000000000", "t": 3}, "1100000000", "0"),
    ("at_least", {"c": "1111100000", "t": 7}, "0000011111", "1"),
    ("at_least", {"c": "1111100000", "t": 7}, "1100000000", "0"),
    ("reachability", {"c": "0000000000", "s": 0}, "1000100000", "1100"),
    ("reachability", {"c": "0000000000", "s": 3}, "1000100000", "0000"),
    ("reachability", {"c": "0000000000", "s": 0}, "1000100101", "1111"),
    ("reachability", {"c": "0000000000", "s": 4}, "1000100101", "1111"),
    ("reachability", {"c": "1111111111", "s": 0}, "0111011111", "1100"),
    ("reachability", {"c": "0000000000", "s": 2}, "0000100000", "0100"),
]


@pytest.mark.parametrize(("name", "params", "x", "expected"), HAND)
def test_hand_computed(name: str, params: dict[str, Any], x: str, expected: str) -> None:
    kind = KINDS[name]
    assert kind.direct(params)(x) == expected
    assert kind.circuit(params).evaluate(x) == expected


def test_kinds_are_enumerated() -> None:
    assert all(isinstance(k, EnumeratedKind) for k in HARD_ENUMERATED)
