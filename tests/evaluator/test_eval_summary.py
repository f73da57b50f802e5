"""Aggregates: the seeded hierarchical bootstrap, usage columns, the CSV layout, tables."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from typing import Literal

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from rich.console import Console

from evaluator.kinds.turns.metrics import efficiency
from evaluator.kinds.turns.summary import (
    GroupRow,
    Summary,
    boxes_csv,
    summarise,
    summary_csv,
    summary_tables,
)
from evaluator.kinds.turns.trajectory import (
    AttemptRecord,
    ItemRecord,
    SpecRecord,
    Trajectory,
    TurnRecord,
)
from evaluator.reporting import bootstrap_ci, hierarchical_bootstrap_ci
from evaluator.usage import LlmCallRecord, UsageTotals, totals_of
from oracle_bench.rng import rng_for


def _plain_bootstrap(
    values: Sequence[float], seed: int, *parts: str | int, resamples: int = 2000
) -> tuple[float, float] | None:
    """The box-level bootstrap as it was before repetitions were resampled (reference)."""
    if not values:
        return None
    if len(values) == 1:
        return values[0], values[0]
    rng = rng_for(seed, "bootstrap", *parts)
    n = len(values)
    means = sorted(statistics.fmean(rng.choices(values, k=n)) for _ in range(resamples))
    return means[math.floor(0.025 * (resamples - 1))], means[math.ceil(0.975 * (resamples - 1))]


def test_bootstrap_is_seeded_and_brackets_the_mean() -> None:
    values = [0.0, 0.25, 0.5, 1.0, 1.0, 0.75]
    ci = bootstrap_ci(values, 3, "ERI", "easy", "random")
    # The value the box-level bootstrap always gave for these boxes.
    assert ci == (0.2916666666666667, 0.875) == _plain_bootstrap(values, 3, "ERI", "easy", "random")
    assert ci == bootstrap_ci(values, 3, "ERI", "easy", "random")
    assert ci != bootstrap_ci(values, 4, "ERI", "easy", "random")
    assert ci[0] <= sum(values) / len(values) <= ci[1]
    assert bootstrap_ci([0.5], 0) == (0.5, 0.5)
    assert bootstrap_ci([], 0) is None


def test_hierarchical_bootstrap_resamples_repetitions_inside_boxes() -> None:
    boxes = [[0.0, 0.5], [1.0], [0.25, 0.75, 1.0]]
    assert hierarchical_bootstrap_ci(boxes, 3, "ERI", "easy", "random") == (0.25, 1.0)
    # One box: only its repetitions vary (means 0, 0.5, 1 with chances 1/4, 1/2, 1/4).
    assert hierarchical_bootstrap_ci([[0.0, 1.0]], 0, "x") == (0.0, 1.0)
    assert hierarchical_bootstrap_ci([[0.4, 0.4, 0.4]], 0, "x") == (0.4, 0.4)
    # Boxes without a completed repetition are skipped.
    assert hierarchical_bootstrap_ci([[], [0.3]], 0) == (0.3, 0.3)
    assert hierarchical_bootstrap_ci([[], []], 0) is None
    with pytest.raises(ValueError, match="resamples"):
        hierarchical_bootstrap_ci([[0.1], [0.2]], 0, resamples=0)


_VALUE = st.floats(min_value=0.0, max_value=1.0, allow_nan=False) | st.sampled_from(
    [0.0, 0.1, 1 / 3, 0.5, 1.0]
)
_BOXES = st.lists(st.lists(_VALUE, min_size=1, max_size=5), min_size=1, max_size=8)


@settings(max_examples=80, deadline=None)
@given(boxes=_BOXES, seed=st.integers(min_value=0, max_value=2**32))
@example(boxes=[[0.4, 0.4, 0.4]], seed=0)
@example(boxes=[[0.1, 0.1, 0.1], [0.1]], seed=1)
def test_hierarchical_bootstrap_properties(boxes: list[list[float]], seed: int) -> None:
    ci = hierarchical_bootstrap_ci(boxes, seed, "prop", resamples=300)
    assert ci is not None
    low, high = ci
    values = [v for box in boxes for v in box]
    point = statistics.fmean(statistics.fmean(box) for box in boxes)
    assert min(values) <= low <= high <= max(values)
    assert low - 1e-12 <= point <= high + 1e-12
    assert hierarchical_bootstrap_ci(boxes, seed, "prop", resamples=300) == ci


@settings(max_examples=80, deadline=None)
@given(values=st.lists(_VALUE, min_size=1, max_size=12), seed=st.integers(0, 2**32))
def test_one_repetition_per_box_is_the_plain_box_bootstrap(values: list[float], seed: int) -> None:
    plain = _plain_bootstrap(values, seed, "ERI", "easy", "x", resamples=300)
    assert plain is not None
    # Clamped to the data's range: a mean of equal floats can round one ulp past it.
    lo, hi = min(values), max(values)
    expected = (min(max(plain[0], lo), hi), min(max(plain[1], lo), hi))
    boxes = [[v] for v in values]
    assert hierarchical_bootstrap_ci(boxes, seed, "ERI", "easy", "x", resamples=300) == expected


def test_efficiency_is_undefined_without_a_baseline() -> None:
    assert efficiency(5.0, 10.0) == pytest.approx(0.5)
    assert efficiency(5.0, 0.0) is None
    assert efficiency(float("inf"), 10.0) is None


def test_csv_has_one_row_per_group() -> None:
    row = GroupRow(
        family="ERI",
        level="easy",
        agent="random",
        boxes=2,
        episodes=2,
        failed=0,
        accuracy_mean=0.5,
        accuracy_ci_low=0.0,
        accuracy_ci_high=1.0,
        queries_used_mean=3.0,
        invalid_turns_mean=0.0,
        t_info_mean=1.0,
        info_gained_mean=None,
        efficiency_mean=None,
        bound_violations=0,
    )
    summary = Summary(
        suite="s", spec="3@1", feedback="instant", seed=0, repeats=1, groups=[row], boxes=[]
    )
    lines = summary_csv(summary).splitlines()
    assert lines[0].startswith(
        "suite,suite_seed,spec,feedback,seed,repeats,bootstrap_seed,family,level,agent,boxes,episodes,"
        "failed,failed_agent,failed_box,failed_infrastructure,boxes_excluded,accuracy_mean"
    )
    assert lines[0].endswith(
        "bound_violations,tokens_mean,cost_usd_mean,cost_usd_total,llm_calls_mean,retries_total"
    )
    assert lines[1].startswith("s,,3@1,instant,0,1,,ERI,easy,random,2,2,0,0,0,0,0,0.5,0.0,1.0,3.0")
    assert lines[1].endswith(",,,0,,,,,0")
    assert len(lines) == 2


Call = tuple[int, int, float | None, int]
"""input tokens, output tokens, cost, retries."""


def _traj(
    box: str,
    agent: str,
    rep: int,
    accuracy: float | None,
    calls: Sequence[Call] = (),
    *,
    level: Literal["easy", "hard"] = "easy",
) -> Trajectory:
    records = [
        LlmCallRecord(
            phase="explore",
            turn=1,
            text="q",
            input_tokens=i,
            output_tokens=o,
            cost_usd=c,
            retries=r,
        )
        for i, o, c, r in calls
    ]
    return Trajectory(
        box_id=box,
        box_digest="0" * 64,
        suite="synthetic",
        family="ERI",
        level=level,
        rule_kind="progressive",
        log2_h=None,
        log2_y=1.0,
        t_info=None,
        agent=agent,
        spec=SpecRecord(turns=2, shots=1),
        feedback="instant",
        seed=0,
        repetition=rep,
        sandbox_layers=[],
        intro="",
        turns=[
            TurnRecord(index=i, text="ab", query="ab", valid=True, shown="ba", output="ba")
            for i in (1, 2)
        ],
        items=_items(accuracy),
        accuracy=accuracy,
        queries_used=2,
        invalid_turns=0,
        llm_calls=records,
        usage=totals_of(records) if records else None,
        status="completed" if accuracy is not None else "failed",
        error=None if accuracy is not None else "ProviderError: gave up",
    )


def _items(accuracy: float | None) -> list[ItemRecord]:
    """Two held-out items, as many right as ``accuracy`` says (none for a failed episode)."""
    if accuracy is None:
        return []
    right = round(2 * accuracy)
    return [
        ItemRecord(
            index=i + 1,
            input="x",
            input_text="x",
            expected="y",
            attempts=[AttemptRecord(text="y" if i < right else "n", correct=i < right)],
            correct=i < right,
        )
        for i in range(2)
    ]


LLM = "openai/test-model"


def _llm_summary() -> Summary:
    trajs = [
        # Given out of order: the summary sorts by box, agent and repetition.
        _traj("b1", LLM, 1, 0.5, [(30, 10, 0.0003, 0)], level="hard"),
        _traj("b0", LLM, 0, 0.5, [(100, 20, 0.001, 1), (50, 10, 0.0005, 0)]),
        _traj("b0", LLM, 1, 1.0, [(200, 40, None, 2)]),
        _traj("b0", "random", 0, 0.0),
        _traj("b1", LLM, 0, None, [(10, 0, 0.0001, 0)], level="hard"),
    ]
    return summarise(trajs, suite="synthetic", spec="2@1", feedback="instant", seed=0, repeats=2)


def test_usage_columns_per_box_group_family_and_run() -> None:
    summary = _llm_summary()
    rows = {(b.box_id, b.agent): b for b in summary.boxes}
    b0 = rows[("b0", LLM)]
    assert (b0.episodes, b0.failed, b0.accuracy) == (2, 0, 0.75)
    assert (b0.tokens_mean, b0.cost_usd_mean, b0.cost_usd_total) == (210.0, 0.0015, 0.0015)
    assert (b0.llm_calls_mean, b0.retries_total) == (1.5, 3)
    b1 = rows[("b1", LLM)]  # the failed episode's calls were paid: they count
    assert (b1.episodes, b1.failed, b1.accuracy) == (2, 1, 0.5)
    assert (b1.tokens_mean, b1.cost_usd_mean, b1.cost_usd_total) == (25.0, 0.0002, 0.0004)
    assert (b1.llm_calls_mean, b1.retries_total) == (1.0, 0)
    baseline = rows[("b0", "random")]
    assert (baseline.tokens_mean, baseline.cost_usd_mean, baseline.cost_usd_total) == (
        None,
        None,
        None,
    )
    assert (baseline.llm_calls_mean, baseline.retries_total) == (None, 0)

    assert [(g.level, g.agent) for g in summary.groups] == [
        ("easy", LLM),
        ("easy", "random"),
        ("hard", LLM),
    ]
    easy = summary.groups[0]
    assert (easy.tokens_mean, easy.cost_usd_total, easy.retries_total) == (210.0, 0.0015, 3)
    [pooled, pooled_random] = summary.overall
    assert (pooled.family, pooled.level, pooled.agent) == ("ERI", "all", LLM)
    assert (pooled.boxes, pooled.episodes, pooled.failed, pooled.accuracy_mean) == (2, 4, 1, 0.625)
    assert (pooled.tokens_mean, pooled.cost_usd_mean, pooled.cost_usd_total) == (
        117.5,
        0.000633,
        0.0019,
    )
    assert (pooled.llm_calls_mean, pooled.retries_total) == (1.25, 3)
    ci = hierarchical_bootstrap_ci([[0.5, 1.0], [0.5]], 0, "ERI", "all", LLM)
    assert ci is not None
    assert (pooled.accuracy_ci_low, pooled.accuracy_ci_high) == (round(ci[0], 6), round(ci[1], 6))
    assert (pooled_random.agent, pooled_random.tokens_mean) == ("random", None)
    assert summary.usage == UsageTotals(
        calls=5,
        input_tokens=390,
        output_tokens=80,
        tokens=470,
        cost_usd=0.0019,
        retries=3,
    )
    # The input order does not matter.
    again = summarise(
        reversed([_traj("b0", "random", 0, 0.0), *_llm_trajs_sorted()]),
        suite="synthetic",
        spec="2@1",
        feedback="instant",
        seed=0,
        repeats=2,
    )
    assert again == summary

    lines = boxes_csv(summary).splitlines()
    assert len(lines) == 4
    lead = "synthetic,,2@1,instant,0,2,,"
    assert lines[1].startswith(
        lead + "b0,ERI,easy,progressive,openai/test-model,2,0,0,0,0,False,0.75,2.0,0.0,,,,,0,"
    )
    assert lines[1].endswith(",210.0,0.0015,0.0015,1.5,3")
    assert (
        lines[2] == lead + "b0,ERI,easy,progressive,random,1,0,0,0,0,False,0.0,2.0,0.0,,,,,0,,,,,,0"
    )
    assert lines[3].endswith(",ProviderError: gave up,25.0,0.0002,0.0004,1.0,0")


def _llm_trajs_sorted() -> list[Trajectory]:
    return [
        _traj("b0", LLM, 0, 0.5, [(100, 20, 0.001, 1), (50, 10, 0.0005, 0)]),
        _traj("b0", LLM, 1, 1.0, [(200, 40, None, 2)]),
        _traj("b1", LLM, 0, None, [(10, 0, 0.0001, 0)], level="hard"),
        _traj("b1", LLM, 1, 0.5, [(30, 10, 0.0003, 0)], level="hard"),
    ]


def _render(summary: Summary) -> str:
    console = Console(record=True, width=200)
    for table in summary_tables(summary):
        console.print(table)
    return console.export_text()


def test_tables_show_usage_only_with_an_llm_agent() -> None:
    text = _render(_llm_summary())
    assert "ERI easy · 2@1 · instant · seed 0" in text
    assert "ERI all levels · 2@1 · instant · seed 0" in text  # two levels: a pooled table
    assert "tokens/ep" in text and "$/ep" in text
    assert "210  0.0015" in text
    baseline_only = summarise(
        [_traj("b0", "random", 0, 0.0), _traj("b1", "random", 0, 1.0)],
        suite="synthetic",
        spec="2@1",
        feedback="instant",
        seed=0,
        repeats=1,
    )
    text = _render(baseline_only)
    assert "tokens/ep" not in text and "$/ep" not in text
    assert "all levels" not in text  # one level: the pooled rows add nothing
    assert "[0.00, 1.00]" in text
