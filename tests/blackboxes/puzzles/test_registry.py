"""The puzzle registry, the kinds' levels and parameters (sampling, determinism, hostility)."""

from __future__ import annotations

import json
import math
import random
from typing import Any

import pytest

import blackboxes.puzzles as puzzles
from blackboxes.puzzles import (
    MAX_ANSWERS,
    PuzzleError,
    PuzzleKind,
    get_puzzle,
    puzzle_names,
    register_puzzle,
)
from oracle_bench.errors import FamilyError, UnknownNameError
from tests.blackboxes.puzzles._cases import SMALL

NAMES = puzzle_names()


def test_the_thirteen_kinds_and_their_levels() -> None:
    assert sorted(SMALL) == NAMES
    assert puzzle_names("easy") == [n for n in NAMES if n != "battleship_fleet"]
    assert puzzle_names("hard") == [
        n for n in NAMES if n not in ("coin_heavy", "number_higher_lower")
    ]
    assert len(puzzle_names("easy")) >= 8 and len(puzzle_names("hard")) >= 8
    for name in NAMES:
        kind = get_puzzle(name)
        assert kind.name == name and kind.title and set(kind.levels) <= {"easy", "hard"}
        assert kind.noisy == (name in ("bandit", "coin_lying"))


def test_all_is_sorted_and_exported() -> None:
    assert puzzles.__all__ == sorted(puzzles.__all__)
    for attr in puzzles.__all__:
        assert hasattr(puzzles, attr)


def test_lookup_is_lenient_about_case_and_dashes_and_names_the_choices() -> None:
    assert get_puzzle(" Coin-Heavy ") is get_puzzle("coin_heavy")
    with pytest.raises(UnknownNameError) as caught:
        get_puzzle("sudoku")
    assert str(caught.value).startswith("unknown puzzle kind 'sudoku'; available: bandit, ")


def test_a_name_registers_once() -> None:
    with pytest.raises(ValueError, match="registered twice"):
        register_puzzle(type(get_puzzle("wordle")))


def test_puzzle_error_is_a_family_error_and_a_value_error() -> None:
    assert issubclass(PuzzleError, FamilyError) and issubclass(PuzzleError, ValueError)


@pytest.mark.parametrize("name", NAMES)
def test_sampled_params_are_json_valid_varied_and_deterministic(name: str) -> None:
    kind = get_puzzle(name)
    for level in kind.levels:
        drawn = [kind.sample_params(random.Random(seed), level) for seed in range(12)]
        assert drawn == [kind.sample_params(random.Random(seed), level) for seed in range(12)]
        for params in drawn:
            assert json.loads(json.dumps(params)) == params
            kind.check_params(params)
            assert 2 <= kind.answer_count(params) <= MAX_ANSWERS
        # A suite of one kind is varied (bandit's rates, a fleet's grid, a word length...).
        assert len({json.dumps(p, sort_keys=True) for p in drawn}) >= 2, (name, level)


@pytest.mark.parametrize("name", NAMES)
def test_each_kind_states_its_box_code_formats_noise_and_context(name: str) -> None:
    kind, params = get_puzzle(name), SMALL[name]
    secret, probe = kind.canonical_formats(params)
    assert secret.strip() and probe.strip()
    cuts = kind.noise_cuts(params)
    assert bool(cuts) == kind.noisy and all(0.0 < u < 1.0 for u in cuts)
    deterministic = kind.noise_spec(params) == "The puzzle is deterministic: ignore u."
    assert deterministic != kind.noisy
    context = kind.template_context(params)
    assert all(context[key] == value for key, value in params.items())


@pytest.mark.parametrize("name", NAMES)
def test_a_level_the_kind_does_not_offer_is_refused(name: str) -> None:
    kind = get_puzzle(name)
    for level in {"easy", "hard", "medium"} - set(kind.levels):
        with pytest.raises(PuzzleError, match=f"{name} has no level '{level}'"):
            kind.sample_params(random.Random(0), level)  # type: ignore[arg-type]


def _hostile(params: dict[str, Any]) -> list[Any]:
    out: list[Any] = [None, [], "params", {}, {**params, "extra": 1}]
    for key, value in params.items():
        out += [
            {k: v for k, v in params.items() if k != key},
            {**params, key: True},
            {**params, key: "7"},
            {**params, key: 10**12},
            {**params, key: -1},
            {**params, key: [value]},
            {**params, key: math.nan},
        ]
    return out


@pytest.mark.parametrize("name", NAMES)
def test_hostile_params_are_refused_in_one_line(name: str) -> None:
    kind = get_puzzle(name)
    for bad in _hostile(SMALL[name]):
        with pytest.raises(PuzzleError) as caught:
            kind.check_params(bad)
        assert "\n" not in str(caught.value)


def test_params_too_big_to_enumerate_are_refused() -> None:
    too_big: list[tuple[str, dict[str, Any]]] = [
        ("mastermind", {"pegs": 7, "colours": 7}),
        ("bulls_and_cows", {"length": 7, "digits": 10}),
        ("battleship_fleet", {"rows": 8, "cols": 8, "ships": [5, 4, 3], "bombs": 2}),
        ("number_higher_lower", {"n": MAX_ANSWERS}),
        ("nuts_and_bolts", {"size": 9, "pairs": 2}),
    ]
    for name, params in too_big:
        with pytest.raises(PuzzleError):
            get_puzzle(name).check_params(params)
    # Some rules of consistency beyond ranges.
    refused: list[tuple[str, dict[str, Any]]] = [
        ("bandit", {"percents": [50, 50, 10]}),  # no single best arm
        ("bandit", {"percents": [10, 50]}),  # not highest first
        ("battleship_fleet", {"rows": 4, "cols": 4, "ships": [2, 3], "bombs": 1}),
        ("nuts_and_bolts", {"size": 6, "pairs": 3}),  # n < 2m + 1
        ("number_far_close", {"n": 10, "close": 10}),  # never far
        ("twenty_questions", {"n": 10, "forms": ["parity"], "set_max": 3}),
        ("twenty_questions", {"n": 10, "forms": ["set", "compare"], "set_max": 3}),
    ]
    for name, params in refused:
        with pytest.raises(PuzzleError):
            get_puzzle(name).check_params(params)


@pytest.mark.parametrize("name", NAMES)
def test_same_seed_same_answers_and_plan(name: str) -> None:
    kind: PuzzleKind = get_puzzle(name)
    params = SMALL[name]
    secrets = [kind.sample_answer(params, random.Random(5)) for _ in range(3)]
    assert len(set(secrets)) == 1
    answers = kind.answers(params)
    assert list(answers) == list(kind.answers(json.loads(json.dumps(params))))
    assert len(set(answers)) == len(answers) == kind.answer_count(params)
    assert [kind.answer_at(params, i) for i in range(len(answers))] == list(answers)
    pools = [kind.candidate_probes(params, random.Random(9), 30) for _ in range(2)]
    assert pools[0] == pools[1] and len(set(pools[0])) == len(pools[0]) <= 30
    assert kind.fixed_plan(params, 12) == kind.fixed_plan(dict(params), 12)


@pytest.mark.parametrize("name", NAMES)
def test_sample_answer_is_uniform_over_h(name: str) -> None:
    kind = get_puzzle(name)
    params = SMALL[name]
    n = kind.answer_count(params)
    rng = random.Random(1)
    draws = 100 * n
    counts: dict[str, int] = {}
    for _ in range(draws):
        secret = kind.sample_answer(params, rng)
        counts[secret] = counts.get(secret, 0) + 1
    assert set(counts) == set(kind.answers(params))
    # Each count is Binomial(draws, 1/n): 6 standard deviations is a generous band.
    sd = math.sqrt(draws * (1 / n) * (1 - 1 / n))
    assert all(abs(c - 100) < 6 * sd for c in counts.values())
