"""DFA episode metrics on hand-built trajectories, cross-checked by brute force.

Trajectories are built call by call from a small target with the real oracle
(:func:`counterexample`), so every field has an exact expected value. Languages in the
references are compared by enumerating words, never by fingerprints.
"""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import evaluator.kinds.dfa.metrics as dm
from blackboxes.automata.dfa import DFA
from blackboxes.automata.oracle import counterexample
from blackboxes.automata.passive import PASSIVE_LEARNERS, recovers
from blackboxes.automata.sampling import sample_minimal_dfa
from blackboxes.box import DfaBaselineCost
from evaluator.kinds.dfa.metrics import (
    BUDGET_FACTORS,
    DIRECT_KINDS,
    NON_INFORMATIVE_KINDS,
    DfaEpisodeMetrics,
    aggregate_dfa_metrics,
    dfa_episode_metrics,
    non_informative_rate_by_step,
)
from evaluator.kinds.dfa.trajectory import DfaCall, DfaTrajectory
from oracle_bench.rng import rng_for

AB = ("a", "b")
HAS_B = DFA.build(AB, [[0, 1], [1, 1]], [1])
"""Words containing at least one b (2 states)."""
HAS_B_BIG = DFA.build(AB, [[0, 1], [2, 2], [1, 1]], [1, 2])
"""The same language with 3 states."""
EMPTY = DFA.universal(AB, accept=False)
EMPTY2 = DFA.build(AB, [[1, 0], [0, 1]], [])
ALL = DFA.universal(AB, accept=True)
ONLY_EPS = DFA.build(AB, [[1, 1], [1, 1]], [0])
ENDS_A_EVEN_B = DFA.build(AB, [[1, 2], [1, 2], [2, 0]], [1])
"""3 states, minimal: a target a tiny sample cannot pin down."""

Spec = tuple[Any, ...]


def episode(
    target: DFA,
    specs: Sequence[Spec],
    *,
    agent: str = "agent",
    reference_cost: int = 10,
    baselines: dict[str, DfaBaselineCost] | None = None,
    budget: int | None = None,
    status: str = "completed",
    failure: str | None = None,
) -> DfaTrajectory:
    """A trajectory from call specs, answered by ``target`` (minimal counterexamples).

    Specs: ("mq", word), ("eq", dfa), ("invalid",), ("fault_mq", word), ("fault_eq", dfa).
    An accepted EQ ends the episode, as in the protocol: later specs are not played.
    """
    calls: list[DfaCall] = []
    step = 0
    cost: int | None = None
    for index, spec in enumerate(specs, 1):
        if cost is not None:
            break
        kind = spec[0]
        if kind == "invalid":
            calls.append(
                DfaCall(
                    index=index,
                    text="nonsense",
                    valid=False,
                    shown="invalid call",
                    error="invalid_call",
                )
            )
            continue
        step += 1
        if kind in ("mq", "fault_mq"):
            word = spec[1]
            fault = kind == "fault_mq"
            member = None if fault else target.accepts(word)
            calls.append(
                DfaCall(
                    index=index,
                    text=json.dumps({"mq": word}),
                    tool="mq",
                    valid=True,
                    step=step,
                    word=word,
                    member=member,
                    shown="fault" if fault else str(member),
                    error="box_fault" if fault else None,
                )
            )
        else:
            hyp: DFA = spec[1]
            fault = kind == "fault_eq"
            cex = None if fault else counterexample(target, hyp, "minimal")
            accepted = None if fault else cex is None
            if accepted and cost is None:
                cost = step
            calls.append(
                DfaCall(
                    index=index,
                    text="eq",
                    tool="eq",
                    valid=True,
                    step=step,
                    hypothesis=hyp.to_table(),
                    accepted=accepted,
                    counterexample=cex,
                    shown="fault" if fault else str(cex),
                    error="box_fault" if fault else None,
                )
            )
    return DfaTrajectory(
        box_id="dfa-000",
        box_digest="0" * 64,
        suite="test",
        agent=agent,
        seed=0,
        repetition=0,
        sandbox_layers=[],
        intro="learn the DFA",
        states=target.minimise().n,
        alphabet=list(target.alphabet),
        target=target.minimise().to_table(),
        counterexamples="minimal",
        baselines=baselines
        if baselines is not None
        else {"lstar": DfaBaselineCost(mq=8, eq=2), "ttt": DfaBaselineCost(mq=7, eq=3)},
        reference_cost=reference_cost,
        budget_factor=2.0,
        budget=budget if budget is not None else max(step, 2 * reference_cost),
        calls=calls,
        success=cost is not None,
        cost=cost,
        queries_used=step,
        invalid_calls=sum(1 for c in calls if not c.valid),
        status=status,  # type: ignore[arg-type]
        failure=failure,  # type: ignore[arg-type]
    )


def brute_similarity(h: DFA, t: DFA, k: int) -> float:
    words = list(t.words_up_to(k))
    return float(Fraction(sum(h.accepts(w) == t.accepts(w) for w in words), len(words)))


def same_language(x: DFA, y: DFA) -> bool:
    # Two DFAs with at most m states each agree everywhere iff they agree up to 2m - 1.
    bound = 2 * max(x.n, y.n)
    return all(x.accepts(w) == y.accepts(w) for w in x.words_up_to(bound))


def evidence_of(traj: DfaTrajectory, upto: int | None = None) -> dict[str, bool]:
    """Labelled words the agent saw in counted steps <= upto (brute force)."""
    out: dict[str, bool] = {}
    for c in traj.counted():
        assert c.step is not None
        if upto is not None and c.step > upto:
            break
        if c.error is not None:
            continue
        if c.tool == "mq" and c.word is not None and c.member is not None:
            out[c.word] = c.member
        if c.tool == "eq" and c.counterexample is not None:
            h = c.hypothesis_dfa()
            assert h is not None
            out[c.counterexample] = not h.accepts(c.counterexample)
    return out


# -- a crafted sequence: every non-informative kind, faults and an invalid call ----------

CRAFTED: list[Spec] = [
    ("mq", "a"),  # 1: informative
    ("mq", "a"),  # 2: duplicate
    ("invalid",),
    ("eq", EMPTY),  # 3: consistent with a=0; witness b (label 1)
    ("eq", ONLY_EPS),  # 4: mislabels the witness b; its witness "" (label 0)
    ("mq", "b"),  # 5: implied by the witness of step 3
    ("mq", ""),  # 6: implied by the witness of step 4
    ("eq", ALL),  # 7: mislabels MQ a (and "" by MQ and witness)
    ("fault_mq", "ab"),  # 8: a box fault: no answer
    ("mq", "ab"),  # 9: not a duplicate (8 was never answered)
    ("eq", EMPTY2),  # 10: the language of step 3 again, mislabels b
    ("fault_eq", HAS_B),  # 11: a box fault: no verdict, no hypothesis
    ("eq", HAS_B_BIG),  # 12: accepted; not a duplicate of 11
]


@pytest.fixture(scope="module")
def crafted() -> tuple[DfaTrajectory, DfaEpisodeMetrics]:
    traj = episode(HAS_B, CRAFTED, reference_cost=10)
    return traj, dfa_episode_metrics(traj, similarity_len=8)


def test_crafted_counts_and_cost(crafted: tuple[DfaTrajectory, DfaEpisodeMetrics]) -> None:
    traj, m = crafted
    assert (m.success, m.cost, m.mq, m.eq, m.invalid) == (True, 12, 6, 6, 1)
    assert (traj.success, traj.cost) == (True, 12)
    # TTT total 10, L* total 10: (12 - 10) / 10.
    assert m.delta_vs_ttt == pytest.approx(0.2)
    assert m.delta_vs_lstar == pytest.approx(0.2)
    # reference 10: budgets 10, 13 (12.5 rounds up), 15, 18 (17.5), 20.
    assert m.success_at == {"1.0": False, "1.25": True, "1.5": True, "1.75": True, "2.0": True}
    assert m.failure == "none"


def test_crafted_non_informative_kinds(
    crafted: tuple[DfaTrajectory, DfaEpisodeMetrics],
) -> None:
    _, m = crafted
    assert m.non_informative_steps == [
        (1, []),
        (2, ["mq_duplicate"]),
        (3, []),
        (4, ["eq_contradicts_witness"]),
        (5, ["mq_implied_by_witness"]),
        (6, ["mq_implied_by_witness"]),
        (7, ["eq_contradicts_mq", "eq_contradicts_witness"]),
        (8, []),
        (9, []),
        (10, ["eq_duplicate", "eq_contradicts_mq", "eq_contradicts_witness"]),
        (11, []),
        (12, []),
    ]
    assert m.non_informative == {
        "mq_duplicate": 1,
        "mq_implied_by_witness": 2,
        "eq_duplicate": 1,
        "eq_contradicts_mq": 2,
        "eq_contradicts_witness": 3,
    }
    assert list(m.non_informative) == list(NON_INFORMATIVE_KINDS)


def test_crafted_hypotheses(crafted: tuple[DfaTrajectory, DfaEpisodeMetrics]) -> None:
    _, m = crafted
    # Minimal complete sizes: EMPTY 1, ONLY_EPS 2 (with its sink), ALL 1, EMPTY2 1, target 2.
    assert m.hypothesis_sizes == [1, 2, 1, 1, 2]
    assert m.sizes_monotone is False
    assert m.eq_count_exceeds_states is True  # 6 EQs (the faulted one too) > 2 states
    hyps = {3: EMPTY, 4: ONLY_EPS, 7: ALL, 10: EMPTY2, 12: HAS_B_BIG}
    assert [s for s, _ in m.similarity_curve] == sorted(hyps)
    for step, value in m.similarity_curve:
        assert value == brute_similarity(hyps[step], HAS_B, 8)
    # Exactly: EMPTY agrees only on the 9 words a^0..a^8 of the 511 words of length <= 8.
    assert m.similarity_curve[0] == (3, 9 / 511)
    assert (m.best_similarity, m.best_step) == (1.0, 12)
    assert m.myhill_nerode is not None
    assert m.myhill_nerode == dict.fromkeys(m.myhill_nerode, 1.0)
    assert len(m.myhill_nerode) == 4


def test_crafted_passive(crafted: tuple[DfaTrajectory, DfaEpisodeMetrics]) -> None:
    traj, m = crafted
    final = evidence_of(traj)
    assert final == {"a": False, "b": True, "": False, "ab": True}
    assert m.passive_recovered_by == sorted(recovers(final, HAS_B))
    expected_gold = next((s for s in range(1, 13) if recovers(evidence_of(traj, s), HAS_B)), None)
    assert m.gold_step == expected_gold


def test_json_round_trip(crafted: tuple[DfaTrajectory, DfaEpisodeMetrics]) -> None:
    _, m = crafted
    again = DfaEpisodeMetrics.model_validate_json(m.model_dump_json())
    assert again == m
    with pytest.raises(ValueError):
        DfaEpisodeMetrics.model_validate({**m.model_dump(), "extra": 1})


# -- cost, budget factors and deltas ---------------------------------------------------


def episode_with_cost(cost: int, reference_cost: int, **kw: Any) -> DfaTrajectory:
    words = itertools.islice(HAS_B.words_up_to(10), cost - 1)
    specs: list[Spec] = [("mq", w) for w in words]
    return episode(HAS_B, [*specs, ("eq", HAS_B)], reference_cost=reference_cost, **kw)


@pytest.mark.parametrize(
    ("cost", "expected"),
    [
        # reference 26: budgets 26, 33 (32.5 up), 39, 46 (45.5 up), 52
        (26, [True, True, True, True, True]),
        (27, [False, True, True, True, True]),
        (33, [False, True, True, True, True]),
        (34, [False, False, True, True, True]),
        (39, [False, False, True, True, True]),
        (46, [False, False, False, True, True]),
        (47, [False, False, False, False, True]),
        (52, [False, False, False, False, True]),
    ],
)
def test_success_at_factors_rounds_halves_up(cost: int, expected: list[bool]) -> None:
    traj = episode_with_cost(
        cost,
        26,
        baselines={"lstar": DfaBaselineCost(mq=26, eq=4), "ttt": DfaBaselineCost(mq=22, eq=4)},
        budget=52,
    )
    m = dfa_episode_metrics(traj, similarity_len=4)
    assert (m.success, m.cost, m.mq, m.eq) == (True, cost, cost - 1, 1)
    assert m.success_at == dict(zip(["1.0", "1.25", "1.5", "1.75", "2.0"], expected, strict=True))
    assert m.delta_vs_ttt == pytest.approx((cost - 26) / 26)
    assert m.delta_vs_lstar == pytest.approx((cost - 30) / 30)
    assert m.non_informative == dict.fromkeys(NON_INFORMATIVE_KINDS, 0)


def test_custom_factors_and_missing_baseline() -> None:
    traj = episode_with_cost(5, 4, baselines={"lstar": DfaBaselineCost(mq=3, eq=1)})
    m = dfa_episode_metrics(traj, similarity_len=4, factors=(1, 1.125, 1.5))
    # 4, round_half_up(4.5) = 5, 6
    assert m.success_at == {"1.0": False, "1.125": True, "1.5": True}
    assert m.delta_vs_ttt is None
    assert m.delta_vs_lstar == pytest.approx(0.25)


def test_failure_has_no_cost_or_factor_success() -> None:
    traj = episode(ENDS_A_EVEN_B, [("mq", "a"), ("eq", EMPTY)])
    m = dfa_episode_metrics(traj, similarity_len=6)
    assert (m.success, m.cost, m.delta_vs_ttt, m.delta_vs_lstar) == (False, None, None, None)
    assert m.success_at == dict.fromkeys(["1.0", "1.25", "1.5", "1.75", "2.0"], False)


def test_accepted_beyond_budget_is_not_success() -> None:
    traj = episode_with_cost(5, 2, budget=4)
    m = dfa_episode_metrics(traj, similarity_len=4)
    assert (m.success, m.cost, m.delta_vs_ttt) == (False, None, None)
    assert m.failure in ("planning", "reasoning")
    assert not any(m.success_at.values())


# -- planning vs reasoning and the gold step --------------------------------------------


def test_characteristic_sample_is_a_reasoning_failure() -> None:
    target = ENDS_A_EVEN_B
    specs: list[Spec] = [("mq", w) for w in target.words_up_to(6)]
    traj = episode(target, [*specs, ("eq", EMPTY)])
    m = dfa_episode_metrics(traj, similarity_len=6)
    assert m.success is False
    assert m.failure == "reasoning"
    assert m.passive_recovered_by
    assert set(m.passive_recovered_by) <= set(PASSIVE_LEARNERS)
    assert m.passive_recovered_by == sorted(recovers(evidence_of(traj), target))
    # Brute force: evaluate every prefix of the evidence.
    expected = next(s for s in range(1, 129) if recovers(evidence_of(traj, s), target))
    assert m.gold_step == expected
    assert m.gold_step is not None and m.gold_step <= 127


def test_characteristic_sample_matches_aalpy_rpni() -> None:
    pytest.importorskip("aalpy")
    from aalpy.learning_algs import run_RPNI

    target = ENDS_A_EVEN_B
    sample = {w: target.accepts(w) for w in target.words_up_to(6)}
    data = [(tuple(w), label) for w, label in sample.items()]
    learned = run_RPNI(data, automaton_type="dfa", print_info=False)
    assert learned is not None
    # The independent reference recovers the target, so "reasoning" is right.
    assert all(
        learned.execute_sequence(learned.initial_state, tuple(w))[-1] == target.accepts(w)
        for w in target.words_up_to(8)
        if w
    )
    m = dfa_episode_metrics(episode(target, [("mq", w) for w in sample]), similarity_len=4)
    assert m.failure == "reasoning"


def test_tiny_sample_is_a_planning_failure() -> None:
    traj = episode(ENDS_A_EVEN_B, [("mq", "a"), ("mq", "b"), ("eq", ALL)])
    m = dfa_episode_metrics(traj, similarity_len=6)
    assert (m.success, m.failure, m.gold_step, m.passive_recovered_by) == (
        False,
        "planning",
        None,
        [],
    )


def test_last_observation_counts_for_planning_vs_reasoning(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A fake learner that recovers exactly when it has seen "bb": the last call's witness.
    def fake(sample: dict[str, bool], target: DFA) -> list[str]:
        return ["rpni"] if "bb" in sample else []

    monkeypatch.setattr(dm, "recovers", fake)
    target = DFA.build(AB, [[0, 1], [0, 2], [2, 2]], [2])  # contains bb
    traj = episode(target, [("mq", "a"), ("eq", EMPTY)])
    assert traj.calls[-1].counterexample == "bb"
    m = dfa_episode_metrics(traj, similarity_len=4)
    assert (m.failure, m.gold_step, m.passive_recovered_by) == ("reasoning", 2, ["rpni"])


def test_gold_step_reruns_only_on_new_evidence(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[dict[str, bool]] = []

    def fake(sample: dict[str, bool], target: DFA) -> list[str]:
        seen.append(dict(sample))
        return ["edsm"] if len(sample) >= 3 else []

    monkeypatch.setattr(dm, "recovers", fake)
    specs: list[Spec] = [
        ("mq", "a"),  # 1: new -> run (1 word)
        ("mq", "a"),  # 2: duplicate -> no run
        ("invalid",),
        ("fault_mq", "b"),  # 3: fault -> no run
        ("eq", EMPTY),  # 4: witness "b" -> run (2 words)
        ("mq", "b"),  # 5: implied -> no run
        ("mq", "ab"),  # 6: new -> run (3 words): recovered, stop
        ("mq", "ba"),  # 7: never evaluated
    ]
    traj = episode(HAS_B, specs)
    m = dfa_episode_metrics(traj, similarity_len=4)
    # The incremental runs, then one run on all the evidence for the failure class.
    assert seen[:-1] == [
        {"a": False},
        {"a": False, "b": True},
        {"a": False, "b": True, "ab": True},
    ]
    assert seen[-1] == {"a": False, "b": True, "ab": True, "ba": True}
    assert m.gold_step == 6
    assert m.passive_recovered_by == ["edsm"]
    assert m.failure == "reasoning"


def test_first_step_is_always_evaluated(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []

    def fake(sample: dict[str, bool], target: DFA) -> list[str]:
        calls.append(dict(sample))
        return ["rpni"]

    monkeypatch.setattr(dm, "recovers", fake)
    m = dfa_episode_metrics(episode(HAS_B, [("fault_mq", "a"), ("mq", "b")]), similarity_len=4)
    assert calls[0] == {}
    assert m.gold_step == 1
    m = dfa_episode_metrics(episode(HAS_B, []), similarity_len=4)
    assert (m.gold_step, m.best_similarity, m.best_step, m.myhill_nerode) == (
        None,
        None,
        None,
        None,
    )


# -- monotonicity -----------------------------------------------------------------------


def chain(n: int) -> DFA:
    """a^{n-2} a* over {a, b} with b to a sink: n minimal states for n >= 2."""
    delta = [[min(i + 1, n - 2), n - 1] for i in range(n - 1)] + [[n - 1, n - 1]]
    return DFA.build(AB, delta, [n - 2])


@pytest.mark.parametrize(
    ("sizes", "monotone"),
    [([2, 3, 4], True), ([2, 2, 3], False), ([3, 2], False), ([2, 4, 3, 5], False), ([4], True)],
)
def test_sizes_monotone(sizes: list[int], monotone: bool) -> None:
    target = chain(6)
    traj = episode(target, [("eq", chain(n)) for n in sizes])
    m = dfa_episode_metrics(traj, similarity_len=6)
    assert [chain(n).minimise().n for n in sizes] == sizes
    assert m.hypothesis_sizes == sizes
    assert m.sizes_monotone is monotone
    assert m.eq_count_exceeds_states is False


# -- properties over random episodes ----------------------------------------------------


def random_dfa(rng: random.Random, n: int) -> DFA:
    delta = [[rng.randrange(n) for _ in AB] for _ in range(n)]
    return DFA.build(AB, delta, [rng.random() < 0.5 for _ in range(n)])


def random_specs(rng: random.Random, target: DFA, length: int) -> list[Spec]:
    words = list(target.words_up_to(3))
    hyps = [random_dfa(rng, rng.randint(1, 4)) for _ in range(3)] + [target]
    specs: list[Spec] = []
    for _ in range(length):
        r = rng.random()
        if r < 0.5:
            specs.append(("mq", rng.choice(words)))
        elif r < 0.8:
            specs.append(("eq", rng.choice(hyps[:3])))
        elif r < 0.9:
            specs.append(("invalid",))
        else:
            specs.append(("fault_mq", rng.choice(words)))
    if rng.random() < 0.5:
        specs.append(("eq", hyps[3]))
    return specs


def reference_kinds(traj: DfaTrajectory) -> list[tuple[int, list[str]]]:
    """Quadratic reference: each call against every earlier answered call."""
    out: list[tuple[int, list[str]]] = []
    counted = traj.counted()
    for i, c in enumerate(counted):
        assert c.step is not None
        kinds: list[str] = []
        earlier = [e for e in counted[:i] if e.error is None]
        mqs = [(e.word, e.member) for e in earlier if e.tool == "mq" and e.member is not None]
        wits = []
        for e in earlier:
            if e.tool == "eq" and e.counterexample is not None:
                h = e.hypothesis_dfa()
                assert h is not None
                wits.append((e.counterexample, not h.accepts(e.counterexample)))
        if c.error is None and c.tool == "mq":
            if any(w == c.word for w, _ in mqs):
                kinds.append("mq_duplicate")
            if any(w == c.word for w, _ in wits):
                kinds.append("mq_implied_by_witness")
        elif c.error is None and c.tool == "eq":
            h = c.hypothesis_dfa()
            assert h is not None
            prev = [e.hypothesis_dfa() for e in earlier if e.tool == "eq"]
            if any(p is not None and same_language(p, h) for p in prev):
                kinds.append("eq_duplicate")
            if any(h.accepts(w) != label for w, label in mqs):  # type: ignore[arg-type]
                kinds.append("eq_contradicts_mq")
            if any(h.accepts(w) != label for w, label in wits):
                kinds.append("eq_contradicts_witness")
        out.append((c.step, kinds))
    return out


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), n=st.integers(1, 4), length=st.integers(0, 14))
def test_random_episodes_match_references(seed: int, n: int, length: int) -> None:
    rng = rng_for(seed, "dfa-metrics", n, length)
    target = sample_minimal_dfa(rng, n)
    traj = episode(target, random_specs(rng, target, length))
    m = dfa_episode_metrics(traj, similarity_len=7)
    counted = traj.counted()
    assert m.mq + m.eq == len(counted) == len(m.non_informative_steps)
    assert m.invalid == traj.invalid_calls
    assert (m.success, m.cost) == (traj.success, traj.cost)
    assert m.non_informative_steps == reference_kinds(traj)
    assert m.non_informative == {
        k: sum(k in ks for _, ks in m.non_informative_steps) for k in NON_INFORMATIVE_KINDS
    }
    hyps = [(c.step, c.hypothesis_dfa()) for c in counted if c.tool == "eq" and c.error is None]
    assert [s for s, _ in m.similarity_curve] == [s for s, _ in hyps]
    for (_, value), (_, h) in zip(m.similarity_curve, hyps, strict=True):
        assert h is not None
        assert 0.0 <= value <= 1.0
        assert value == brute_similarity(h, target, 7)
        assert value == 1.0 or not same_language(h, target)
    assert m.hypothesis_sizes == [h.minimise().n for _, h in hyps if h is not None]
    sizes = m.hypothesis_sizes
    assert m.sizes_monotone == all(a < b for a, b in itertools.pairwise(sizes))
    assert m.eq_count_exceeds_states == (m.eq > target.n)
    if m.similarity_curve:
        assert m.best_similarity == max(v for _, v in m.similarity_curve)
        assert m.best_step == next(s for s, v in m.similarity_curve if v == m.best_similarity)
        assert m.myhill_nerode is not None
        assert all(0.0 <= v <= 1.0 for v in m.myhill_nerode.values())
    else:
        assert (m.best_similarity, m.best_step, m.myhill_nerode) == (None, None, None)
    if m.success:
        assert m.best_similarity == 1.0
        assert m.failure == "none"
    else:
        assert m.failure == ("reasoning" if recovers(evidence_of(traj), target) else "planning")


def test_similarity_of_target_is_one_at_default_length() -> None:
    rng = rng_for(7, "dfa-metrics-default-k")
    for n in (3, 5):
        target = sample_minimal_dfa(rng, n)
        other = sample_minimal_dfa(rng, n)
        m = dfa_episode_metrics(episode(target, [("eq", other), ("eq", target)]))
        assert m.similarity_curve[-1] == (2, 1.0)
        assert 0.0 <= m.similarity_curve[0][1] < 1.0
        assert (m.best_similarity, m.best_step) == (1.0, 2)


# -- rates and aggregation --------------------------------------------------------------


def test_non_informative_rate_by_step() -> None:
    t1 = episode(HAS_B, [("mq", "a"), ("mq", "a"), ("mq", "b"), ("eq", ALL)])
    t2 = episode(HAS_B, [("mq", "a"), ("eq", EMPTY), ("mq", "b")])
    # t1: [], dup, [], contradicts mq a -> direct at 2, 4
    # t2: [], [], implied by witness (not direct) -> none direct
    assert non_informative_rate_by_step([t1, t2]) == [
        (1, 0.0, 2),
        (2, 0.5, 2),
        (3, 0.0, 2),
        (4, 1.0, 1),
    ]
    every = non_informative_rate_by_step([t1, t2], kinds=NON_INFORMATIVE_KINDS)
    assert every == [(1, 0.0, 2), (2, 0.5, 2), (3, 0.5, 2), (4, 1.0, 1)]
    metrics = [dfa_episode_metrics(t, similarity_len=4) for t in (t1, t2)]
    assert non_informative_rate_by_step(metrics) == non_informative_rate_by_step([t1, t2])
    assert non_informative_rate_by_step([]) == []
    with pytest.raises(ValueError, match="unknown"):
        non_informative_rate_by_step([t1], kinds=("nope",))
    assert set(DIRECT_KINDS) < set(NON_INFORMATIVE_KINDS)


def test_aggregate_rows() -> None:
    ttt = {"lstar": DfaBaselineCost(mq=4, eq=1), "ttt": DfaBaselineCost(mq=3, eq=1)}
    a_win = episode(
        HAS_B, [("mq", "a"), ("mq", "a"), ("eq", HAS_B)], baselines=ttt, reference_cost=4, agent="A"
    )  # cost 3, one duplicate
    a_lose = episode(
        ENDS_A_EVEN_B,
        [("mq", "a"), ("eq", ALL), ("eq", EMPTY)],
        baselines=ttt,
        reference_cost=4,
        agent="A",
    )
    a_broken = episode(HAS_B, [("mq", "a")], agent="A", status="failed", failure="infrastructure")
    b_win = episode(
        HAS_B,
        [("mq", "b"), ("mq", "a"), ("mq", "ab"), ("mq", "ba"), ("mq", "bb"), ("eq", HAS_B)],
        baselines=ttt,
        reference_cost=4,
        agent="B",
    )  # cost 6
    b_big = episode(chain(12), [("eq", chain(3))], agent="B")  # outside every bucket
    trajs = [a_win, a_lose, a_broken, b_win, b_big]
    rows = aggregate_dfa_metrics(trajs, ((1, 2), (3, 4)), similarity_len=6)
    assert [(r.agent, r.bucket, r.episodes, r.failed) for r in rows] == [
        ("A", "1-2", 1, 1),
        ("A", "3-4", 1, 0),
        ("B", "1-2", 1, 0),
    ]
    a12, a34, b12 = rows
    assert (a12.successes, a12.success_rate, a12.cost_mean) == (1, 1.0, 3.0)
    # An agent that crashed is scored, as an unsuccessful episode (infrastructure is not).
    crashed = episode(HAS_B, [("mq", "a")], agent="A", status="failed", failure="agent")
    (row,) = aggregate_dfa_metrics([a_win, crashed, a_broken], ((1, 2),), similarity_len=6)
    assert (row.episodes, row.failed, row.successes, row.success_rate) == (2, 1, 1, 0.5)
    # Budgets at reference 4: 4, 5, 6, 7, 8.
    assert a12.success_at == dict.fromkeys(["1.0", "1.25", "1.5", "1.75", "2.0"], 1.0)
    assert b12.success_at == {"1.0": 0.0, "1.25": 0.0, "1.5": 1.0, "1.75": 1.0, "2.0": 1.0}
    assert a12.delta_vs_ttt_mean == pytest.approx(-0.25)
    assert a12.delta_vs_lstar_mean == pytest.approx(-0.4)
    assert b12.delta_vs_ttt_mean == pytest.approx(0.5)
    assert a12.non_informative_rate == pytest.approx(1 / 3)
    assert b12.non_informative_rate == 0.0
    assert (a34.success_rate, a34.cost_mean, a34.delta_vs_ttt_mean) == (0.0, None, None)
    # ALL contradicts MQ a; EMPTY is consistent with a=0 and ALL's witness "" (label 0).
    assert a34.non_informative_rate == pytest.approx(1 / 3)
    m_lose = dfa_episode_metrics(a_lose, similarity_len=6)
    assert (a34.planning_failures, a34.reasoning_failures) == (
        int(m_lose.failure == "planning"),
        int(m_lose.failure == "reasoning"),
    )
    assert a34.best_similarity_mean == m_lose.best_similarity
    assert a34.monotone_share == 0.0  # sizes [1, 1]: a repeated size is not progress
    assert a12.monotone_share is None  # one hypothesis only
    assert (a12.eq_exceeds_states_share, a34.eq_exceeds_states_share) == (0.0, 0.0)
    assert a12.myhill_nerode_mean == dict.fromkeys(a12.myhill_nerode_mean or {}, 1.0)
    assert a34.myhill_nerode_mean == m_lose.myhill_nerode
    assert (a12.mq_mean, a12.eq_mean) == (2.0, 1.0)

    # Precomputed metrics give the same rows; None buckets = one per state count.
    metrics = [dfa_episode_metrics(t, similarity_len=6) for t in trajs]
    assert aggregate_dfa_metrics(trajs, ((1, 2), (3, 4)), metrics=metrics) == rows
    per_n = aggregate_dfa_metrics(trajs, None, metrics=metrics)
    assert [(r.agent, r.bucket) for r in per_n] == [("A", "2"), ("A", "3"), ("B", "2"), ("B", "12")]
    with pytest.raises(ValueError):
        aggregate_dfa_metrics(trajs, ((1, 2),), metrics=metrics[:2])
    with pytest.raises(ValueError):
        aggregate_dfa_metrics(trajs, ((3, 2),), metrics=metrics)


def test_default_factors_are_the_papers() -> None:
    assert BUDGET_FACTORS == (1.0, 1.25, 1.5, 1.75, 2.0)


def test_best_hypothesis_is_chosen_exactly_not_by_rounded_floats() -> None:
    # Wrong only on the empty word: 1 - 1/(2^201 - 1) is 1.0 as a float at K = 200.
    # A fresh start state that copies HAS_B's start but flips its acceptance.
    flipped_empty = DFA.build(
        AB,
        [list(row) for row in HAS_B.delta] + [list(HAS_B.delta[HAS_B.start])],
        [*HAS_B.accepting, not HAS_B.accepting[HAS_B.start]],
        HAS_B.n,
    )
    assert not flipped_empty.equivalent(HAS_B)
    assert flipped_empty.distinguishing_word(HAS_B) == ""
    traj = episode(HAS_B, [("eq", flipped_empty), ("eq", HAS_B)])
    m = dfa_episode_metrics(traj)
    assert m.similarity_curve[0][1] == 1.0  # rounded as a float
    assert m.best_step == 2 and m.best_similarity == 1.0
    assert m.myhill_nerode is not None and set(m.myhill_nerode.values()) == {1.0}


def test_huge_best_hypothesis_gets_no_myhill_nerode_scores() -> None:
    big = chain(dm.MAX_MYHILL_NERODE_STATES + 1)
    m = dfa_episode_metrics(episode(HAS_B, [("eq", big)]), similarity_len=20)
    assert m.hypothesis_sizes == [dm.MAX_MYHILL_NERODE_STATES + 1]
    assert m.best_similarity is not None and m.myhill_nerode is None
    small = dfa_episode_metrics(episode(HAS_B, [("eq", chain(5))]), similarity_len=20)
    assert small.myhill_nerode is not None
