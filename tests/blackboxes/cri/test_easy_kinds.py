"""The EASY circuit kinds: circuits against the direct references, counts, params, texts."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator
from functools import cache
from itertools import product

import pytest

from blackboxes.families.cri._circuit import bits_of
from blackboxes.families.cri._easy import EASY_ENUMERATED
from blackboxes.families.cri._easy_patterns import perfect_matchings
from blackboxes.families.cri._easy_threshold import SORTING_NETWORK, ThresholdKind
from blackboxes.families.cri._kind import EnumeratedKind, Mode, Params, describe_inputs
from blackboxes.families.cri._spaces import code_of
from oracle_bench.errors import FamilyError

N = 8
INPUTS = tuple(bits_of(i, N) for i in range(1 << N))
KINDS = {kind.name: kind for kind in EASY_ENUMERATED}
NAMES = tuple(KINDS)


@cache
def settings(name: str) -> tuple[Params, ...]:
    return tuple(KINDS[name].all_params())


def direct_tables(f: Callable[[str], str], m: int) -> tuple[int, ...]:
    """Each output's truth table (bit idx = output on input idx), from the direct reference."""
    outs = [f(x) for x in reversed(INPUTS)]
    return tuple(int("".join(out[j] for out in outs), 2) for j in range(m))


def direct_key(f: Callable[[str], str]) -> str:
    """The whole function as one string: its outputs on every input in index order."""
    return "".join(map(f, INPUTS))


def sample(name: str, count: int, seed: int) -> list[Params]:
    return random.Random(seed).sample(settings(name), count)


def test_order_and_shape() -> None:
    assert NAMES == (
        "consecutive_ones",
        "palindrome",
        "select",
        "threshold",
        "multiplexer",
        "decoder",
    )
    assert {k.name: k.m for k in EASY_ENUMERATED} == {
        "consecutive_ones": 1,
        "palindrome": 1,
        "select": 4,
        "threshold": 1,
        "multiplexer": 1,
        "decoder": 4,
    }
    assert all(k.n == N for k in EASY_ENUMERATED)


@pytest.mark.parametrize("name", NAMES)
def test_circuit_equals_direct_on_every_input(name: str) -> None:
    kind = KINDS[name]
    for params in sample(name, 200, seed=len(name)):
        f, circuit = kind.direct(params), kind.circuit(params)
        outs = [f(x) for x in INPUTS]
        assert all(len(out) == kind.m and not set(out) - {"0", "1"} for out in outs)
        assert [circuit.evaluate(x) for x in INPUTS] == outs, params
        tables = circuit.tables("outputs")
        assert [code_of(tables, idx) for idx in range(len(INPUTS))] == outs, params


@pytest.mark.parametrize("name", NAMES)
def test_gate_count_is_constant(name: str) -> None:
    kind = KINDS[name]
    # A large sample for the kinds with over 20 000 settings keeps the file fast.
    chosen = settings(name) if len(settings(name)) < 3000 else sample(name, 3000, seed=3)
    assert {len(kind.circuit(p).gates) for p in chosen} == {kind.gate_count}
    assert (
        kind.gate_count
        == {
            "consecutive_ones": 17,
            "palindrome": 5,
            "select": 4,
            "threshold": 41,
            "multiplexer": 7,
            "decoder": 7,
        }[name]
    )


@pytest.mark.parametrize("name", NAMES)
def test_check_params_round_trips(name: str) -> None:
    kind = KINDS[name]
    for params in sample(name, 200, seed=11):
        assert kind.check_params(params) == params
        assert kind.check_params(dict(params)) is not params


BAD: dict[str, list[dict[str, object]]] = {
    "consecutive_ones": [
        {"c": "0101010", "k": 2, "ring": 0},
        {"c": "01010102", "k": 2, "ring": 0},
        {"c": 85, "k": 2, "ring": 0},
        {"c": "01010101", "k": 1, "ring": 0},
        {"c": "01010101", "k": 5, "ring": 0},
        {"c": "01010101", "k": True, "ring": 0},
        {"c": "01010101", "k": 3, "ring": 2},
        {"c": "01010101", "k": 3, "ring": True},
        {"c": "01010101", "k": 3},
    ],
    "palindrome": [
        {"pairs": [0, 1, 2, 3, 4, 5, 6, 6], "c": "0000"},
        {"pairs": [0, 1, 2, 3, 4, 5, 6], "c": "0000"},
        {"pairs": [0, 1, 2, 3, 4, 5, 6, 8], "c": "0000"},
        {"pairs": "01234567", "c": "0000"},
        {"pairs": [0, 1, 2, 3, 4, 5, 6, 7], "c": "00000"},
        {"pairs": [0, 1, 2, 3, 4, 5, 6, 7], "c": "0a00"},
    ],
    "select": [
        {"s": [0, 0, 1, 2], "c": "0000"},
        {"s": [0, 1, 2, 8], "c": "0000"},
        {"s": [0, 1, 2], "c": "0000"},
        {"s": [0, 1, 2, True], "c": "0000"},
        {"s": [0, 1, 2, 3], "c": "000"},
        {"s": [0, 1, 2, 3], "c": [0, 0, 0, 0]},
    ],
    "threshold": [
        {"lits": "--------", "t": 1},
        {"lits": "+-x-----", "t": 1},
        {"lits": "+------", "t": 1},
        {"lits": ["+"] * 8, "t": 1},
        {"lits": "++++----", "t": 0},
        {"lits": "++++++++", "t": 5},
        {"lits": "++------", "t": 3},
        {"lits": "++------", "t": "2"},
    ],
    "multiplexer": [
        {"sel": [1, 1], "data": [2, 3, 4, 5], "inv": 0},
        {"sel": [0, 8], "data": [2, 3, 4, 5], "inv": 0},
        {"sel": [0, 1], "data": [1, 3, 4, 5], "inv": 0},
        {"sel": [0, 1], "data": [2, 2, 4, 5], "inv": 0},
        {"sel": [0, 1], "data": [2, 3, 4], "inv": 0},
        {"sel": [0, 1], "data": [2, 3, 4, 5], "inv": 2},
        {"sel": [0, 1], "data": [2, 3, 4, 5], "inv": True},
    ],
    "decoder": [
        {"sel": [2, 5], "e": 5, "p": 1},
        {"sel": [2, 5], "e": 8, "p": 1},
        {"sel": [2, 2], "e": 0, "p": 1},
        {"sel": [3], "e": 0, "p": 1},
        {"sel": [2, 5], "e": 0, "p": 2},
        {"sel": [2, 5], "e": 0, "p": False},
    ],
}


@pytest.mark.parametrize(("name", "bad"), [(n, b) for n, bs in BAD.items() for b in bs])
def test_check_params_rejects(name: str, bad: Params) -> None:
    kind = KINDS[name]
    with pytest.raises(FamilyError):
        kind.check_params(bad)
    with pytest.raises(FamilyError):
        kind.circuit(bad)


def test_palindrome_canonicalises_pairs() -> None:
    kind = KINDS["palindrome"]
    raw = {"pairs": [7, 6, 1, 0, 3, 2, 5, 4], "c": "1000"}
    assert kind.check_params(raw) == {"pairs": [0, 1, 2, 3, 4, 5, 6, 7], "c": "1000"}
    # c_0 belongs to the smallest pair (0, 1), not to the first pair written.
    assert kind.direct(raw)("10000000") == "1"
    assert kind.direct(raw)("00000001") == "0"
    rng = random.Random(5)
    for params in sample("palindrome", 100, seed=6):
        pairs = [list(p) for p in zip(params["pairs"][0::2], params["pairs"][1::2], strict=True)]
        rng.shuffle(pairs)
        shuffled = [i for p in pairs for i in (p if rng.random() < 0.5 else p[::-1])]
        assert kind.check_params({"pairs": shuffled, "c": params["c"]}) == params


def test_perfect_matchings() -> None:
    matchings = list(perfect_matchings(tuple(range(8))))
    assert len(matchings) == len(set(matchings)) == 105
    for m in matchings:
        assert sorted(i for pair in m for i in pair) == list(range(8))
        assert list(m) == sorted(m) and all(a < b for a, b in m)


def test_sorting_network_sorts_every_bit_vector() -> None:
    for bits in product((0, 1), repeat=8):
        w = list(bits)
        for i, j in SORTING_NETWORK:
            w[i], w[j] = max(w[i], w[j]), min(w[i], w[j])
        assert w == sorted(bits, reverse=True)


# --- distinct counts, from the direct references -------------------------------------------


@pytest.mark.parametrize("name", ["consecutive_ones", "palindrome", "decoder"])
def test_distinct_count_by_brute_force(name: str) -> None:
    kind = KINDS[name]
    distinct = {direct_key(kind.direct(p)) for p in settings(name)}
    expected = {"consecutive_ones": 256 * 3 * 2, "palindrome": 105 * 16, "decoder": 56 * 6 * 2}
    assert len(distinct) == expected[name] == len(settings(name))
    assert kind.log2_h("outputs") == math.log2(len(distinct))


@pytest.mark.parametrize(
    ("name", "probes", "expected"),
    [
        # On 0 the outputs are c; on the unit vector e_i, output j flips iff s_j = i.
        ("select", ["0" * 8, *("0" * i + "1" + "0" * (7 - i) for i in range(8))], 1680 * 16),
        # Every weight-3 input (found to separate all 20 160 listed settings).
        ("multiplexer", [x for x in INPUTS if x.count("1") == 3], 28 * 360 * 2),
    ],
)
def test_distinct_count_by_separating_inputs(name: str, probes: list[str], expected: int) -> None:
    # Distinct signatures on the probes <= distinct functions <= listed settings, so
    # signatures == settings proves the exact count without all 256 inputs per setting.
    kind = KINDS[name]
    signatures = {tuple(f(x) for x in probes) for f in map(kind.direct, settings(name))}
    assert len(signatures) == len(settings(name)) == expected
    assert kind.log2_h("outputs") == math.log2(expected)


def test_multiplexer_descending_selects_repeat_listed_functions() -> None:
    kind = KINDS["multiplexer"]
    listed = set(map(str, settings("multiplexer")))
    rng = random.Random(9)
    for params in sample("multiplexer", 150, seed=10):
        s0, s1 = params["sel"]
        d0, d1, d2, d3 = params["data"]
        swapped = {"sel": [s1, s0], "data": [d0, d2, d1, d3], "inv": params["inv"]}
        assert str(swapped) not in listed
        assert direct_tables(kind.direct(swapped), 1) == direct_tables(kind.direct(params), 1)
        x = rng.choice(INPUTS)
        assert kind.circuit(swapped).evaluate(x) == kind.direct(params)(x)


def _threshold_settings() -> int:
    return sum(math.comb(8, u) * 2**u * min(4, u) for u in range(1, 9))


class _SubThreshold(ThresholdKind):
    """threshold with x6 and x7 ignored (2 596 settings), small enough to brute-force."""

    def all_params(self) -> Iterator[Params]:
        return (p for p in super().all_params() if str(p["lits"]).endswith("--"))


def test_threshold_distinct_count() -> None:
    kind = KINDS["threshold"]
    assert _threshold_settings() == 25_520 == len(settings("threshold"))
    # Every listed setting is a distinct function (in gates mode too, as the output is a
    # gate: checked on the sub-family below, the full pass costs another second).
    assert kind.log2_h("outputs") == math.log2(25_520)
    sub = _SubThreshold()
    distinct = {direct_key(sub.direct(p)) for p in sub.all_params()}
    assert len(distinct) == 2596 == sum(math.comb(6, u) * 2**u * min(4, u) for u in range(1, 7))
    assert sub.log2_h("outputs") == math.log2(len(distinct))


@pytest.mark.parametrize("mode", ["outputs", "gates"])
def test_threshold_fast_enumeration_equals_generic(mode: Mode) -> None:
    sub = _SubThreshold()
    fast = sub._distinct(mode)
    assert fast == EnumeratedKind._distinct(sub, mode)
    assert len(fast[0]) == 2596


# --- descriptions ----------------------------------------------------------------------------


def _mentions(name: str, p: Params) -> list[str]:
    if name == "consecutive_ones":
        wrap = "wrap around from y7 to y0" if p["ring"] else "no wrap-around"
        return [f"c = {p['c']}", f"has {p['k']} ones in a row", wrap]
    if name == "palindrome":
        pairs = list(zip(p["pairs"][0::2], p["pairs"][1::2], strict=True))
        return [f"c = {p['c']}", *(f"pair {i} = (x{a}, x{b})" for i, (a, b) in enumerate(pairs))]
    if name == "select":
        lits = [
            f"output bit {j} is {'NOT ' if cj == '1' else ''}x{i}"
            for j, (i, cj) in enumerate(zip(p["s"], p["c"], strict=True))
        ]
        return [f"s = {p['s']}", f"c = {p['c']}", *lits]
    if name == "threshold":
        return [f"lits = {p['lits']}", f"at least t = {p['t']} of"]
    s0, s1 = p["sel"]
    if name == "multiplexer":
        cases = [
            f"when v = {v} it is {'NOT ' if p['inv'] else ''}x{d}" for v, d in enumerate(p["data"])
        ]
        return [f"v = x{s0} + 2*x{s1}", f"d = {p['data']}", f"inv = {p['inv']}", *cases]
    return [f"v = x{s0} + 2*x{s1}", f"x{p['e']} = {p['p']}", f"e = {p['e']}"]


@pytest.mark.parametrize("name", NAMES)
def test_describe_states_every_parameter(name: str) -> None:
    kind = KINDS[name]
    for params in sample(name, 200, seed=21):
        text = kind.describe(params)
        assert text.startswith(describe_inputs(N))
        for phrase in _mentions(name, params):
            assert phrase in text, (phrase, text)
        m = kind.m
        unit = "character" if m == 1 else "characters"
        assert f"Output: a string of {m} {unit} '0'/'1'; character" in text
        lowered = text.lower()
        assert "gate" not in lowered
        for other in NAMES:
            assert other not in lowered and other.replace("_", " ") not in lowered


def test_threshold_description_lists_the_literals() -> None:
    text = KINDS["threshold"].describe({"lits": "-+-~+---", "t": 2})
    assert "The used literals (3): x1, NOT x3, x4." in text


# --- hand-computed examples ------------------------------------------------------------------

EXAMPLES: list[tuple[str, Params, str, str]] = [
    ("consecutive_ones", {"c": "00000000", "k": 3, "ring": 0}, "11100000", "1"),
    ("consecutive_ones", {"c": "00000000", "k": 3, "ring": 0}, "11011011", "0"),
    ("consecutive_ones", {"c": "00000000", "k": 3, "ring": 0}, "10000011", "0"),
    ("consecutive_ones", {"c": "00000000", "k": 3, "ring": 1}, "10000011", "1"),
    ("consecutive_ones", {"c": "11111111", "k": 2, "ring": 0}, "00111111", "1"),
    ("consecutive_ones", {"c": "11000000", "k": 4, "ring": 1}, "11000000", "0"),
    ("palindrome", {"pairs": [0, 1, 2, 3, 4, 5, 6, 7], "c": "0000"}, "11001100", "1"),
    ("palindrome", {"pairs": [0, 1, 2, 3, 4, 5, 6, 7], "c": "0000"}, "10000000", "0"),
    ("palindrome", {"pairs": [0, 1, 2, 3, 4, 5, 6, 7], "c": "1111"}, "10101010", "1"),
    ("palindrome", {"pairs": [0, 7, 1, 6, 2, 5, 3, 4], "c": "0100"}, "01000001", "0"),
    ("palindrome", {"pairs": [0, 7, 1, 6, 2, 5, 3, 4], "c": "0100"}, "11000001", "1"),
    ("select", {"s": [3, 0, 6, 1], "c": "0110"}, "10010000", "1010"),
    ("select", {"s": [3, 0, 6, 1], "c": "0110"}, "00000000", "0110"),
    ("select", {"s": [7, 6, 5, 4], "c": "0000"}, "00001101", "1011"),
    ("threshold", {"lits": "+~------", "t": 2}, "10000000", "1"),
    ("threshold", {"lits": "+~------", "t": 2}, "11000000", "0"),
    ("threshold", {"lits": "++++----", "t": 4}, "11111111", "1"),
    ("threshold", {"lits": "++++----", "t": 4}, "11100111", "0"),
    ("threshold", {"lits": "~~~~~~~~", "t": 4}, "11110000", "1"),
    ("threshold", {"lits": "~~~~~~~~", "t": 4}, "11111000", "0"),
    ("multiplexer", {"sel": [2, 5], "data": [0, 1, 3, 4], "inv": 0}, "01100000", "1"),
    ("multiplexer", {"sel": [2, 5], "data": [0, 1, 3, 4], "inv": 0}, "10100000", "0"),
    ("multiplexer", {"sel": [2, 5], "data": [0, 1, 3, 4], "inv": 0}, "00101100", "1"),
    ("multiplexer", {"sel": [2, 5], "data": [0, 1, 3, 4], "inv": 1}, "00101100", "0"),
    ("multiplexer", {"sel": [5, 2], "data": [0, 1, 3, 4], "inv": 0}, "01000100", "1"),
    ("decoder", {"sel": [2, 5], "e": 0, "p": 1}, "10100000", "0100"),
    ("decoder", {"sel": [2, 5], "e": 0, "p": 1}, "00100000", "0000"),
    ("decoder", {"sel": [2, 5], "e": 0, "p": 1}, "10000100", "0010"),
    ("decoder", {"sel": [2, 5], "e": 0, "p": 0}, "00000000", "1000"),
    ("decoder", {"sel": [5, 2], "e": 7, "p": 0}, "00100100", "0001"),
]


@pytest.mark.parametrize(("name", "params", "x", "y"), EXAMPLES)
def test_hand_computed_examples(name: str, params: Params, x: str, y: str) -> None:
    kind = KINDS[name]
    assert kind.direct(params)(x) == y
    assert kind.circuit(params).evaluate(x) == y
