"""The marked kinds (a hidden mark per value): template vs reference, and an exact space
checked against brute force over the marks of a few values."""

from __future__ import annotations

import itertools
import math
import random
from typing import Any

import pytest

from blackboxes.families import get_family
from blackboxes.families.cii._marked import MARKED, VALUES, MarkedKind
from blackboxes.families.cii._trace import answer, group
from blackboxes.information import output_key
from oracle_bench.errors import FamilyError
from tests.blackboxes.cii.harness import box_code, by_checkpoint, sandbox_trace, template_trace

CII = get_family("CII")
SMALL = 5
"""Brute force runs over the marks of values 0..SMALL-1 (the rest never appear)."""


def _mark(rng: random.Random) -> dict[str, Any]:
    return {"mark": "".join(rng.choice("01") for _ in range(VALUES))}


def _small_query(rng: random.Random, kind: MarkedKind) -> dict[str, Any]:
    a = [rng.randrange(SMALL) for _ in range(rng.randint(1, 8))]
    k = rng.randint(1, kind.checkpoints)
    return {"inputs": {"a": a}, "checkpoint": k, "visit": rng.randint(1, 9)}


@pytest.mark.parametrize("kind", MARKED, ids=lambda k: k.name)
def test_template_matches_the_reference(kind: MarkedKind) -> None:
    rng = random.Random(kind.name)
    for _ in range(12):
        params = kind.check_params(_mark(rng))
        for a in ([0], list(range(8)), [20] * 8, [rng.randrange(21) for _ in range(8)]):
            assert template_trace(kind, params, {"a": a}) == kind.trace(params, {"a": a})
    params = kind.check_params(_mark(rng))
    code = box_code(kind, params)
    args = {"a": [3, 3, 9, 14, 0]}
    assert sandbox_trace(code, kind, args) == by_checkpoint(kind.trace(params, args))


def test_hand_traces() -> None:
    scan, runs, count, parity = MARKED
    mark = {"mark": "1" * 3 + "0" * 18}  # 0, 1, 2 are marked
    assert scan.trace(mark, {"a": [2, 5, 0]}) == [
        (1, {"w": 1, "s": 1}),
        (1, {"w": 0, "s": 1}),
        (1, {"w": 1, "s": 2}),
        (2, {"s": 2}),
    ]
    assert runs.trace(mark, {"a": [0, 1, 7, 2]}) == [
        (1, {"w": 1, "r": 1, "t": 1}),
        (1, {"w": 1, "r": 2, "t": 2}),
        (1, {"w": 0, "r": 0, "t": 2}),
        (1, {"w": 1, "r": 1, "t": 2}),
        (2, {"t": 2}),
    ]
    assert count.trace(mark, {"a": [2, 9]}) == [
        (1, {"s": 1}),
        (1, {"s": 1}),
        (2, {"s": 1}),
    ]
    assert parity.trace(mark, {"a": [2, 1, 9]}) == [
        (1, {"p": 1}),
        (1, {"p": 0}),
        (1, {"p": 0}),
        (2, {"p": 0}),
    ]


@pytest.mark.parametrize("bad", [{}, {"mark": "01"}, {"mark": "2" * 21}, {"mark": 5}])
def test_params_are_checked(bad: dict[str, Any]) -> None:
    with pytest.raises(FamilyError):
        MARKED[0].check_params(bad)


def test_sizes() -> None:
    for kind in MARKED:
        space = CII.hypothesis_space(kind.name, "hard")
        assert space.exact and space.log2_h == 21.0
        assert space.log2_y == pytest.approx(math.log2(kind.max_outputs))
    assert [CII.hypothesis_space(k.name, "hard").t_info for k in MARKED] == [6, 4, 7, 21]


@pytest.mark.parametrize("kind", MARKED, ids=lambda k: k.name)
@pytest.mark.parametrize("seed", range(4))
def test_space_equals_brute_force(kind: MarkedKind, seed: int) -> None:
    rng = random.Random(seed)
    truth = _mark(rng)
    tables = [
        "".join(bits) + "0" * (VALUES - SMALL) for bits in itertools.product("01", repeat=SMALL)
    ]
    alive = list(tables)
    space = CII.version_space("hard", kind.name)
    for _ in range(6):
        x = _small_query(rng, kind)
        y = answer(group(kind.trace(truth, x["inputs"])), x)
        # Predictive: the distribution of the answer over the alive tables.
        outputs = [answer(group(kind.trace({"mark": t}, x["inputs"])), x) for t in alive]
        pred = space.predictive(x)
        for out in {output_key(o): o for o in outputs}.values():
            share = sum(output_key(o) == output_key(out) for o in outputs) / len(alive)
            assert pred.prob(out) == pytest.approx(share)
        alive = [t for t, o in zip(alive, outputs, strict=True) if output_key(o) == output_key(y)]
        space = space.observe(x, y)
        # The count: the alive tables over the small values times the free others.
        assert space.log2_count() == pytest.approx(math.log2(len(alive)) + VALUES - SMALL)
    assert space.log2_count() > -math.inf
