"""PuzzleSpace: posteriors against brute force, information identities, the greedy probe."""

from __future__ import annotations

import math
import random
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blackboxes.puzzles import PuzzleError, PuzzleSpace, get_puzzle, puzzle_names
from tests.blackboxes.puzzles._cases import MEDIUM, SMALL

NAMES = puzzle_names()
DETERMINISTIC = [n for n in NAMES if not get_puzzle(n).noisy]
NOISY = [n for n in NAMES if get_puzzle(n).noisy]


def _history(
    name: str, params: dict[str, Any], seed: int, turns: int
) -> tuple[str, list[tuple[str, str]]]:
    """A random secret and ``turns`` random candidate probes with their true feedback."""
    kind = get_puzzle(name)
    rng = random.Random(seed)
    secret = kind.sample_answer(params, rng)
    pool = kind.candidate_probes(params, rng, 40) + kind.fixed_plan(params, 5)
    history = []
    for _ in range(turns):
        probe = rng.choice(pool)
        history.append((probe, kind.feedback(params, secret, probe, rng.random())))
    return secret, history


@settings(max_examples=60, deadline=None)
@given(
    name=st.sampled_from(NAMES),
    size=st.sampled_from(["small", "medium"]),
    seed=st.integers(0, 10**6),
    turns=st.integers(0, 8),
)
def test_the_true_secret_keeps_weight_and_information_adds_up(
    name: str, size: str, seed: int, turns: int
) -> None:
    kind = get_puzzle(name)
    params = (SMALL if size == "small" else MEDIUM)[name]
    secret, history = _history(name, params, seed, turns)
    space = PuzzleSpace(kind, params)
    prior_count = space.log2_count()
    assert prior_count == pytest.approx(math.log2(kind.answer_count(params)))
    realised = 0.0
    for probe, feedback in history:
        before = space
        assert before.predictive(probe).get(feedback, 0.0) > 0
        realised += space.realised_information(probe, feedback)
        space = space.observe(probe, feedback)
        assert before is not space
    position = (
        list(kind.answers(params)).index(secret) if kind.answer_count(params) < 5000 else None
    )
    if position is not None:
        assert space.posterior()[position] > 0
    assert secret in space.consistent() or space.size() > 2000
    assert kind.solution(params, secret) in space.solution_posterior()
    if not kind.noisy:
        # Deterministic: realised information telescopes to the drop in log2 count.
        assert realised == pytest.approx(prior_count - space.log2_count(), abs=1e-9)
        assert space.entropy() == pytest.approx(space.log2_count(), abs=1e-9)
    else:
        assert realised == pytest.approx(PuzzleSpace(kind, params).entropy() - space.entropy())


@pytest.mark.parametrize("name", NAMES)
def test_the_posterior_is_bayes_by_brute_force(name: str) -> None:
    kind = get_puzzle(name)
    params = SMALL[name]
    secrets = list(kind.answers(params))

    def lik(secret: str, probe: str, y: str) -> float:
        if kind.noisy:
            return kind.likelihood(params, secret, probe, y)
        return float(kind.feedback(params, secret, probe, 0.0) == y)

    for seed in range(3 if len(secrets) <= 500 else 1):
        _, history = _history(name, params, seed, 4)
        space = PuzzleSpace(kind, params)
        for probe, feedback in history:
            space = space.observe(probe, feedback)
        weights = np.array([math.prod(lik(s, p, y) for p, y in history) for s in secrets])
        np.testing.assert_allclose(space.posterior(), weights / weights.sum(), atol=1e-12)
        assert space.consistent() == [s for s, w in zip(secrets, weights, strict=True) if w > 0]
        # The predictive and the expected information of a next probe, by brute force.
        post = weights / weights.sum()
        for probe in kind.candidate_probes(params, random.Random(seed), 6):
            if kind.noisy:
                values = kind.feedback_values(params, probe)
            else:
                values = sorted({kind.feedback(params, s, probe, 0.0) for s in secrets})
            table = np.array([[lik(s, probe, y) for s in secrets] for y in values])
            pred = table @ post
            expected = {y: p for y, p in zip(values, pred, strict=True) if p > 0}
            got = space.predictive(probe)
            assert set(got) == set(expected)
            assert all(got[y] == pytest.approx(p, abs=1e-12) for y, p in expected.items())

            def h(p: np.ndarray) -> float:
                p = p[p > 0]
                return float(-(p * np.log2(p)).sum())

            mutual = h(pred) - sum(w * h(table[:, i]) for i, w in enumerate(post))
            assert space.expected_information(probe) == pytest.approx(mutual, abs=1e-9)
            if not kind.noisy:
                assert space.expected_information(probe) == pytest.approx(h(pred), abs=1e-9)


@pytest.mark.parametrize("name", NAMES)
def test_map_answers_and_solution_posteriors(name: str) -> None:
    kind = get_puzzle(name)
    params = SMALL[name]
    space = PuzzleSpace(kind, params)
    # A uniform prior: ties go to the first secret in answer order.
    assert space.map_answer() == kind.answer_at(params, 0)
    posterior = space.solution_posterior()
    assert sum(posterior.values()) == pytest.approx(1.0)
    names = kind.solution_classes(params)[0]
    assert space.map_solution() == max(
        names, key=lambda s: (posterior.get(s, 0.0), -list(names).index(s))
    )
    if name == "bandit":
        # 70, 20, 20: each arm is the best under one of the three assignments.
        assert posterior == pytest.approx({"arm 1": 1 / 3, "arm 2": 1 / 3, "arm 3": 1 / 3})


def test_bandit_posterior_finds_the_best_arm() -> None:
    kind = get_puzzle("bandit")
    params = {"percents": [80, 30, 10]}
    rng = random.Random(0)
    secret = "30,10,80"
    space = PuzzleSpace(kind, params)
    for t in range(60):
        probe = f"arm {t % 3 + 1}"
        space = space.observe(probe, kind.feedback(params, secret, probe, rng.random()))
    assert space.map_solution() == kind.solution(params, secret) == "arm 3"
    assert space.solution_posterior()["arm 3"] > 0.99
    assert space.size() == 6  # noise never rules an assignment out


def test_an_impossible_feedback_empties_the_space_and_a_bad_one_is_refused() -> None:
    kind = get_puzzle("number_higher_lower")
    params = {"n": 10}
    space = PuzzleSpace(kind, params).observe("0", "lower")  # nothing is below 0
    assert space.size() == 0 and space.log2_count() == -math.inf
    assert space.predictive("3") == {} and space.expected_information("3") == 0.0
    assert space.solution_posterior() == {} and space.consistent() == []
    with pytest.raises(PuzzleError, match="the version space is empty"):
        space.map_answer()
    with pytest.raises(PuzzleError, match="is no feedback of probe"):
        PuzzleSpace(kind, params).observe("3", "warmer")
    with pytest.raises(PuzzleError, match="is no feedback of probe"):
        PuzzleSpace(get_puzzle("coin_lying"), {"coins": 5, "lie_percent": 10}).observe(
            "1 vs 2", "tilted"
        )


def test_log_weights_are_checked_and_read_only() -> None:
    kind = get_puzzle("coin_heavy")
    params = {"coins": 5}
    with pytest.raises(PuzzleError, match="log-weights must be 5 numbers"):
        PuzzleSpace(kind, params, [0.0, 0.0])
    with pytest.raises(PuzzleError):
        PuzzleSpace(kind, params, [0.0, math.nan, 0.0, 0.0, 0.0])
    space = PuzzleSpace(kind, params, [0.0, -math.inf, 0.0, math.log(2), 0.0])
    assert space.size() == 4 and space.map_answer() == "coin 4"
    assert space.posterior().tolist() == pytest.approx([0.2, 0.0, 0.2, 0.4, 0.2])
    with pytest.raises(ValueError):
        space.log_weights[0] = 1.0
    with pytest.raises(PuzzleError):
        PuzzleSpace(kind, {"coins": 1})


def _random_probe(name: str, params: dict[str, Any], rng: random.Random) -> str:
    """A probe drawn without looking at the space (coins: random pans of a random size)."""
    if name.startswith("coin"):
        coins = rng.sample(range(1, params["coins"] + 1), 2 * rng.randint(1, params["coins"] // 2))
        half = len(coins) // 2
        return f"{coins[:half]} vs {coins[half:]}"
    return rng.choice(get_puzzle(name).candidate_probes(params, rng, 40))


@pytest.mark.parametrize(
    "name",
    [
        "mastermind",
        "bulls_and_cows",
        "coin_heavy_light",
        "coin_lying",
        "nuts_and_bolts",
        "number_far_close",
        "twenty_questions",
        "wordle",
        "battleship_fleet",
    ],
)
def test_the_greedy_probe_beats_a_random_probe_on_average(name: str) -> None:
    kind = get_puzzle(name)
    params = MEDIUM[name]
    expected = {"greedy": 0.0, "random": 0.0}
    realised = {"greedy": 0.0, "random": 0.0}
    for seed in range(30):
        rng = random.Random(seed)
        secret = kind.sample_answer(params, rng)
        space = PuzzleSpace(kind, params)
        for _ in range(seed % 3):  # from the prior, and after one or two random probes
            probe = kind.parse_probe(params, _random_probe(name, params, rng))
            space = space.observe(probe, kind.feedback(params, secret, probe, rng.random()))
        u = rng.random()
        for who in ("greedy", "random"):
            if who == "greedy":
                probe = space.greedy_probe(space.candidates(rng, 40))
            else:
                probe = kind.parse_probe(params, _random_probe(name, params, rng))
            expected[who] += space.expected_information(probe) / 30
            feedback = kind.feedback(params, secret, probe, u)
            realised[who] += space.realised_information(probe, feedback) / 30
    assert expected["greedy"] > expected["random"] + 0.05, expected
    assert realised["greedy"] > realised["random"], realised


def test_a_greedy_step_over_200_probes_on_ten_thousand_secrets_picks_a_candidate() -> None:
    # Its speed is measured in benchmarks/eval/bench_spaces.py, not here.
    for name, params in [
        ("mastermind", {"pegs": 5, "colours": 6}),
        ("bulls_and_cows", {"length": 5, "digits": 8}),
        ("nuts_and_bolts", {"size": 7, "pairs": 3}),
    ]:
        kind = get_puzzle(name)
        space = PuzzleSpace(kind, params)
        candidates = space.candidates(random.Random(0), 200)
        space.expected_information(candidates[0])  # builds the kind's tables
        best = space.greedy_probe(candidates)
        assert 5000 <= kind.answer_count(params) <= 20000 and len(candidates) == 200
        assert best in candidates, name
