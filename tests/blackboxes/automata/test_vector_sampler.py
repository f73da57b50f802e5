"""The numpy path of the Boltzmann sampler against its pure-Python path: the same draws
from the generator, the same diagrams, structures, Nerode counts and DFAs."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import blackboxes.automata.sampling as sampling
from blackboxes.automata._diagram import diagram_columns, structure_array
from blackboxes.automata._refine import bfs_order, class_count
from blackboxes.automata.dfa import DFA
from oracle_bench.rng import rng_for
from tests.blackboxes.automata.test_counting import _dyck_diagrams

ABC = ("a", "b", "c")


def python_columns(sizes: list[int], elements: list[int], n: int, k: int) -> list[tuple[int, int]]:
    """Steps 4-5 as the pure-Python path reads a partition (without the Dyck test)."""
    block_of = [0] * (k * n)
    pos = 0
    for b, size in enumerate(sizes):
        for e in elements[pos : pos + size]:
            block_of[e] = b
        pos += size
    number: dict[int, int] = {}
    columns = []
    running_max = 0
    for e in range(k * n):
        r = number.get(block_of[e])
        if r is None:
            running_max = r = number[block_of[e]] = len(number) + 1
        else:
            columns.append((running_max, r))
    return columns


def dyck(columns: list[tuple[int, int]], k: int) -> bool:
    return all(x >= -(-i // (k - 1)) for i, (x, _) in enumerate(columns, start=1))


@given(st.integers(0, 10**6), st.integers(2, 60), st.integers(2, 4))
@settings(max_examples=150, deadline=None)
def test_diagram_columns_read_the_partition_as_the_loop_does(seed: int, n: int, k: int) -> None:
    rng = rng_for(seed, "partition")
    sizes = sampling._block_sizes(rng, n, k)
    elements = list(range(k * n))
    rng.shuffle(elements)
    expected = python_columns(sizes, elements, n, k)
    got = diagram_columns(sizes, elements, n, k)
    if not dyck(expected, k):
        assert got is None
        return
    assert got is not None
    assert list(zip(got[0].tolist(), got[1].tolist(), strict=True)) == expected


@pytest.mark.parametrize(("n", "k"), [(2, 2), (3, 2), (4, 2), (2, 3), (3, 3)])
def test_structure_array_on_every_diagram(n: int, k: int) -> None:
    _, diagrams = _dyck_diagrams(n, k)
    for columns in diagrams:
        for y in range(1, n + 1):
            full = [*columns, (n, y)]
            x_arr = np.array([c[0] for c in full], dtype=np.int64)
            y_arr = np.array([c[1] for c in full], dtype=np.int64)
            built = structure_array(x_arr, y_arr, n, k).tolist()
            assert built == sampling.structure_from_diagram(full, n, k)


def test_structure_array_refuses_what_the_walk_refuses() -> None:
    refused = [
        ([(2, 1)], 2, 2),  # too few columns
        ([(1, 1), (1, 1), (2, 1)], 2, 2),  # the walk ends with one state
        ([(2, 1), (2, 3), (2, 1)], 2, 2),  # y > x
        ([(2, 1), (3, 1), (2, 1)], 2, 2),  # x > n
        ([(2, 1), (2, 1), (2, 2), (2, 1)], 3, 2),  # never reaches 3 states
        ([(2, 1), (2, 1), (2, 1), (2, 1)], 3, 2),
    ]
    for columns, n, k in refused:
        with pytest.raises(ValueError):
            sampling.structure_from_diagram(columns, n, k)
        x_arr = np.array([c[0] for c in columns], dtype=np.int64)
        y_arr = np.array([c[1] for c in columns], dtype=np.int64)
        with pytest.raises(ValueError):
            structure_array(x_arr, y_arr, n, k)
    # Not k-Dyck, yet the walk completes: both accept them alike.
    odd = [
        ([(1, 1), (2, 1), (2, 1)], 2, 2, [[0, 1], [0, 0]]),
        ([(3, 1), (1, 1), (3, 1), (3, 1)], 3, 2, [[1, 0], [2, 0], [0, 0]]),
        ([(1, 1), (3, 1), (3, 1), (3, 1)], 3, 2, [[0, 1], [2, 0], [0, 0]]),
    ]
    for columns, n, k, expected in odd:
        assert sampling.structure_from_diagram(columns, n, k) == expected
        x_arr = np.array([c[0] for c in columns], dtype=np.int64)
        y_arr = np.array([c[1] for c in columns], dtype=np.int64)
        assert structure_array(x_arr, y_arr, n, k).tolist() == expected


def random_dfa(rng: random.Random, n: int, k: int) -> DFA:
    delta = [[rng.randrange(n) for _ in range(k)] for _ in range(n)]
    return DFA.build(ABC[:k], delta, [rng.random() < 0.5 for _ in range(n)], rng.randrange(n))


@given(st.integers(0, 10**6), st.integers(1, 40), st.integers(1, 3))
@settings(max_examples=150, deadline=None)
def test_refinement_and_order_match_the_dfa_methods(seed: int, n: int, k: int) -> None:
    dfa = random_dfa(rng_for(seed, "refine"), n, k)
    delta = np.array(dfa.delta, dtype=np.int64)
    order = bfs_order(delta, dfa.start)
    assert order.tolist() == dfa.reachable_states()
    part = dfa.canonical()  # only reachable states, as class_count assumes
    count = class_count(np.array(part.delta, dtype=np.int64), np.array(part.accepting))
    assert count == dfa.minimise().n
    assert (count == part.n) == part.is_minimal()


@pytest.mark.parametrize("k", [2, 3])
def test_both_paths_draw_the_same_dfas(k: int, monkeypatch: pytest.MonkeyPatch) -> None:
    alphabet = ABC[:k]
    for n in (1, 2, 3, 5, 9, 17, 40, 70, 300, 1000):
        for i in range(4):
            results = []
            for vector_from in (1, 10**9):
                monkeypatch.setattr(sampling, "VECTOR_FROM", vector_from)
                rng = rng_for(5, "paths", n, i)
                dfa = sampling.sample_minimal_dfa(rng, n, alphabet)
                structure = sampling.sample_accessible_structure(rng, n, k)
                results.append((dfa, structure, rng.getstate()))
            assert results[0] == results[1]


def test_the_vector_path_refuses_a_bad_alphabet(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sampling, "VECTOR_FROM", 1)
    for alphabet in (("a", "a"), ("ab", "c"), ()):
        with pytest.raises(ValueError):
            sampling.sample_minimal_dfa(random.Random(0), 5, alphabet)
