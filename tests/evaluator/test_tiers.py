"""The tier classifier on constructed episodes: each rule of evaluator.analysis.tiers."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from evaluator.analysis import EpisodeAnalysis, StepView
from evaluator.analysis.tiers import (
    ADAPTIVE_SHARE,
    NEAR_GREEDY,
    SYSTEMATIC_SHARE,
    classify_tiers,
    diverges,
    efficiencies,
    information_area,
)

EXPECTED = {"random": 1, "fixed": 2, "adaptive": 3}
BITS = {"random": 4.0, "fixed": 6.0, "adaptive": 10.0}


def _episode(
    agent: str,
    box: int,
    bits: float,
    keys: list[str],
    *,
    feedback: str = "instant",
    status: str = "completed",
    rep: int = 0,
) -> EpisodeAnalysis:
    return EpisodeAnalysis(
        box_id=f"b{box:02d}",
        family="ERI",
        level="easy",
        rule_kind="caesar",
        agent=agent,
        repetition=rep,
        kind="turns",
        setting="10@1 " + feedback,
        budget=10,
        feedback=feedback,
        status=status,
        score=None if status != "completed" else 0.5,
        info_total=bits if status == "completed" else None,
        query_keys=keys,
    )


def _keys(agent: str, box: int, twin: bool, reseeded: bool) -> list[str]:
    # Random and fixed ask the same whatever the key; adaptive changes course at step 2
    # when the twin answers differently; random's queries follow its seed.
    if agent == "adaptive":
        return ["q0", f"q1-{'twin' if twin else 'orig'}-{box}", "q2"]
    if agent == "random":
        return [f"r{int(reseeded)}-{box}-{i}" for i in range(3)]
    return [f"{agent}-{i}" for i in range(3)]


def _run(
    twin: bool = False, boxes: int = 8, jitter: bool = True, reseeded: bool = False
) -> list[EpisodeAnalysis]:
    out = []
    for box in range(boxes):
        for agent, bits in BITS.items():
            extra = 0.1 * (box % 3) if jitter and agent != "adaptive" else 0.0
            out.append(_episode(agent, box, bits + extra, _keys(agent, box, twin, reseeded)))
    return out


def _full(main: list[EpisodeAnalysis] | None = None, **kw: object) -> object:
    return classify_tiers(
        _run() if main is None else main,
        reference_agent="adaptive",
        expected=EXPECTED,
        counterfactual=_run(twin=True),
        reseeded=_run(reseeded=True),
        **kw,  # type: ignore[arg-type]
    )


def _tiers(report: object) -> dict[str, int | None]:
    return {r.agent: r.tier for r in report.rows}  # type: ignore[attr-defined]


def test_baselines_get_tiers_1_2_3_with_a_counterfactual() -> None:
    report = _full()
    assert _tiers(report) == {"adaptive": 3, "fixed": 2, "random": 1}
    rows = {r.agent: r for r in report.rows}  # type: ignore[attr-defined]
    assert rows["adaptive"].adaptivity == 1.0 and rows["fixed"].adaptivity == 0.0
    assert rows["random"].seed_divergence == 1.0 and rows["random"].systematic is False
    assert rows["fixed"].seed_divergence == 0.0 and rows["fixed"].systematic is True
    assert rows["random"].above_random is False and rows["random"].random_gap == 0.0
    assert rows["fixed"].above_random is True and rows["fixed"].near_greedy is False
    assert rows["adaptive"].efficiency == 1.0 and rows["adaptive"].evidence == "counterfactual"
    assert report.confusion() == {(1, 1): 1, (2, 2): 1, (3, 3): 1}  # type: ignore[attr-defined]
    by_agent = {(e.agent, e.box_id): e.tier for e in report.episodes}  # type: ignore[attr-defined]
    assert {t for (a, _), t in by_agent.items() if a == "adaptive"} == {3}
    assert {t for (a, _), t in by_agent.items() if a == "random"} == {1}
    assert {t for (a, _), t in by_agent.items() if a == "fixed"} == {2}


def test_a_greedy_as_good_plan_that_ignores_feedback_is_tier_2() -> None:
    planner = [_episode("planner", b, 10.0, ["p"] * 3) for b in range(8)]
    report = classify_tiers(
        [*_run(), *planner],
        reference_agent="adaptive",
        expected=EXPECTED,
        counterfactual=[*_run(twin=True), *planner],
        reseeded=[*_run(reseeded=True), *planner],
    )
    row = next(r for r in report.rows if r.agent == "planner")
    assert (row.tier, row.near_greedy, row.adaptive, row.systematic) == (2, True, False, True)
    assert row.reason == "above random, queries do not respond to feedback (counterfactual)"


def test_a_plan_no_better_than_random_is_still_systematic() -> None:
    # CRI's fixed plan gathers no more than random queries do, but it is a plan.
    main = [e.model_copy(update={"info_total": 4.0}) if e.agent == "fixed" else e for e in _run()]
    report = _full(main)
    row = next(r for r in report.rows if r.agent == "fixed")  # type: ignore[attr-defined]
    assert (row.above_random, row.systematic, row.tier) == (False, True, 2)
    assert row.reason == (
        "a plan that does not change with its seed, queries do not respond to feedback "
        "(counterfactual)"
    )


def test_repetitions_stand_in_for_the_reseeded_replay() -> None:
    main = _run() + [e.model_copy(update={"repetition": 1}) for e in _run(reseeded=True)]
    report = classify_tiers(
        main,
        reference_agent="adaptive",
        expected=EXPECTED,
        counterfactual=_run(twin=True)
        + [e.model_copy(update={"repetition": 1}) for e in _run(twin=True, reseeded=True)],
    )
    rows = {r.agent: r for r in report.rows}
    assert (rows["random"].seed_divergence, rows["fixed"].seed_divergence) == (1.0, 0.0)
    assert _tiers(report) == {"adaptive": 3, "fixed": 2, "random": 1}


def test_where_even_greedy_ignores_feedback_adaptivity_is_not_asked_for() -> None:
    # Key-symmetric boxes: the reference agent's queries are the same for every key.
    main = [e.model_copy(update={"query_keys": ["same"]}) for e in _run()]
    twins = [e.model_copy(update={"query_keys": ["same"]}) for e in _run(twin=True)]
    report = classify_tiers(
        main, reference_agent="adaptive", expected=EXPECTED, counterfactual=twins
    )
    assert _tiers(report) == {"adaptive": 3, "fixed": 2, "random": 1}
    assert {r.evidence for r in report.rows} == {"not observable"}
    # Fixed is short of greedy (6 of 10 bits): tier 2 on efficiency alone.
    assert next(r for r in report.rows if r.agent == "fixed").near_greedy is False


def test_without_adaptivity_evidence_the_tier_is_provisional() -> None:
    report = classify_tiers(_run(), reference_agent="adaptive", expected=EXPECTED)
    assert _tiers(report) == {"adaptive": 3, "fixed": 2, "random": 1}
    assert {r.evidence for r in report.rows} == {"efficiency"}
    assert all("provisional" in r.reason for r in report.rows if r.tier != 1)


def test_a_deferred_run_stands_in_for_the_counterfactual() -> None:
    # Without feedback the adaptive agent loses efficiency; random and fixed do not.
    deferred = [
        e.model_copy(
            update={
                "feedback": "deferred",
                "info_total": 6.0 if e.agent == "adaptive" else e.info_total,
            }
        )
        for e in _run()
    ]
    report = classify_tiers(
        _run(), reference_agent="adaptive", expected=EXPECTED, deferred=deferred
    )
    rows = {r.agent: r for r in report.rows}
    assert _tiers(report) == {"adaptive": 3, "fixed": 2, "random": 1}
    assert rows["adaptive"].evidence == "deferred" and rows["adaptive"].adaptive is True
    assert rows["fixed"].adaptive is False and rows["fixed"].feedback_gain == 0.0
    # Both runs are measured against the instant run's reference: 10 bits, then 6.
    assert rows["adaptive"].feedback_gain == 0.4


def test_without_random_baseline_no_tier_is_given() -> None:
    main = [e for e in _run() if e.agent != "random"]
    report = classify_tiers(main, reference_agent="adaptive", expected=EXPECTED)
    assert {r.tier for r in report.rows} == {None}
    assert {r.reason for r in report.rows} == {
        "no random baseline on the same boxes to compare with"
    }


def test_failed_episodes_get_no_episode_tier_and_no_efficiency() -> None:
    main = [*_run(), _episode("fixed", 0, 0.0, [], status="failed", rep=1)]
    report = classify_tiers(main, reference_agent="adaptive", expected=EXPECTED)
    failed = next(e for e in report.episodes if e.repetition == 1)
    assert (failed.tier, failed.efficiency) == (None, None)


def test_efficiency_is_against_the_reference_on_the_same_box_and_repetition() -> None:
    eff = efficiencies(_run(jitter=False), "adaptive")
    assert eff[("b00", "random", 0)] == 0.4 and eff[("b03", "fixed", 0)] == 0.6


def test_information_area_sums_the_cumulative_bits_over_counted_steps() -> None:
    steps = [
        StepView(index=1, action="a", result="x", bits=2.0),
        StepView(index=2, action="b", result="?", valid=False, counted=False),
        StepView(index=2, action="c", result="y", bits=1.0),
        StepView(index=3, action="d", result="y", bits=None),
    ]
    early = _episode("x", 0, 3.0, []).model_copy(update={"steps": steps})
    assert information_area(early) == 2.0 + 3.0 + 3.0
    late = early.model_copy(update={"steps": list(reversed(steps[2:])) + steps[:1]})
    assert information_area(late) == 0.0 + 1.0 + 3.0
    assert information_area(_episode("x", 0, 3.0, [])) == 3.0  # no bits per step
    zero = [e.model_copy(update={"info_total": 0.0}) for e in _run() if e.agent == "adaptive"]
    assert set(efficiencies(zero, "adaptive").values()) == {None}


@given(st.lists(st.text(max_size=3), max_size=6), st.lists(st.text(max_size=3), max_size=6))
def test_divergence_is_symmetric_and_ignores_an_early_end(a: list[str], b: list[str]) -> None:
    assert diverges(a, b) == diverges(b, a)
    assert not diverges(a, a + b)
    assert diverges(a, b) == (a[: len(b)] != b[: len(a)])


def test_thresholds_are_the_documented_ones() -> None:
    assert (NEAR_GREEDY, ADAPTIVE_SHARE, SYSTEMATIC_SHARE) == (0.995, 0.5, 0.5)
