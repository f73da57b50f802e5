"""CRI version spaces against brute-force enumeration of every function of a small class."""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blackboxes.families.cri._circuit import bits_of
from blackboxes.families.cri._spaces import AffineSpace, AgnosticSpace, MintermSpace, TableSpace
from blackboxes.information import VersionSpace

Fn = Callable[[str], str]


def _affine_maps(n: int, m: int) -> list[Fn]:
    maps: list[Fn] = []
    for coeffs in itertools.product(range(2), repeat=m * (n + 1)):
        rows = [coeffs[j * (n + 1) : (j + 1) * (n + 1)] for j in range(m)]

        def fn(x: str, rows: list[tuple[int, ...]] = rows) -> str:
            return "".join(str((sum(r[i] * int(x[i]) for i in range(n)) + r[n]) % 2) for r in rows)

        maps.append(fn)
    return maps


def _minterm_sets(n: int, k: int) -> list[Fn]:
    out: list[Fn] = []
    for terms in itertools.combinations(range(1 << n), k):
        chosen = {bits_of(i, n) for i in terms}
        out.append(lambda x, chosen=chosen: "1" if x in chosen else "0")
    return out


def _all_functions(n: int, m: int) -> list[Fn]:
    inputs = [bits_of(i, n) for i in range(1 << n)]
    out: list[Fn] = []
    for values in itertools.product(range(1 << m), repeat=len(inputs)):
        table = {x: format(v, f"0{m}b")[::-1] for x, v in zip(inputs, values, strict=True)}
        out.append(lambda x, table=table: table[x])
    return out


def _check_against(space: VersionSpace, fns: list[Fn], n: int, history: list[str]) -> None:
    """After each observation of the true fns[0], count and predictive equal brute force."""
    truth = fns[0]
    alive = list(fns)
    for x in history:
        assert space.log2_count() == pytest.approx(math.log2(len(alive)))
        for probe in (bits_of(i, n) for i in range(1 << n)):
            counts = Counter(f(probe) for f in alive)
            pred = space.predictive(probe)
            for y, c in counts.items():
                assert pred.prob(y) == pytest.approx(c / len(alive))
            expected_h = -sum(c / len(alive) * math.log2(c / len(alive)) for c in counts.values())
            assert pred.entropy == pytest.approx(expected_h)
        y = truth(x)
        space = space.observe(x, y)
        alive = [f for f in alive if f(x) == y]
    assert space.log2_count() == pytest.approx(math.log2(len(alive)))


_HISTORY = st.lists(st.integers(0, 7).map(lambda i: bits_of(i, 3)), min_size=1, max_size=6)


@settings(max_examples=25, deadline=None)
@given(history=_HISTORY, seed=st.integers(0, 10**6))
def test_affine_space_equals_brute_force(history: list[str], seed: int) -> None:
    fns = _affine_maps(3, 2)
    random.Random(seed).shuffle(fns)
    _check_against(AffineSpace(3, 2), fns, 3, history)


@settings(max_examples=25, deadline=None)
@given(history=_HISTORY, seed=st.integers(0, 10**6))
def test_minterm_space_equals_brute_force(history: list[str], seed: int) -> None:
    fns = _minterm_sets(3, 3)
    random.Random(seed).shuffle(fns)
    _check_against(MintermSpace(3, 3), fns, 3, history)


@settings(max_examples=15, deadline=None)
@given(
    history=st.lists(st.integers(0, 3).map(lambda i: bits_of(i, 2)), min_size=1, max_size=5),
    seed=st.integers(0, 10**6),
)
def test_agnostic_space_equals_brute_force(history: list[str], seed: int) -> None:
    fns = _all_functions(2, 2)
    random.Random(seed).shuffle(fns)
    _check_against(AgnosticSpace(2, 2), fns, 2, history)


def test_table_space_filters_and_counts() -> None:
    # Two-output functions of 2 bits given by tables: bit idx of each int is the value there.
    functions = [(0b0110, 0b1000), (0b0110, 0b0001), (0b1001, 0b1000)]
    space = TableSpace(2, functions)
    assert space.log2_count() == pytest.approx(math.log2(3))
    # Input "10" is index 1: outputs are bit 1 of each table.
    pred = space.predictive("10")
    assert pred.prob("10") == pytest.approx(2 / 3) and pred.prob("00") == pytest.approx(1 / 3)
    narrowed = space.observe("10", "10")
    assert len(narrowed) == 2
    # Input "11" is index 3: the two left give 01 and 00 there.
    assert narrowed.observe("11", "01").log2_count() == 0.0
    assert narrowed.observe("11", "00").log2_count() == 0.0
    assert narrowed.observe("11", "11").log2_count() == -math.inf


def test_contradictions_and_malformed_observations_empty_a_space() -> None:
    affine = AffineSpace(3, 1).observe("000", "1")
    assert affine.observe("000", "0").log2_count() == -math.inf
    assert affine.observe("0000", "1").log2_count() == -math.inf
    minterm = MintermSpace(3, 1).observe("101", "1")
    assert minterm.observe("011", "1").log2_count() == -math.inf  # k = 1 already used
    assert AgnosticSpace(2, 1).observe("01", "11").log2_count() == -math.inf
    # The agnostic space marked as an estimate says so.
    assert AgnosticSpace(2, 1, exact=False).exact is False
