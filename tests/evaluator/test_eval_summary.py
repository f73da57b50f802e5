"""Aggregates: the seeded bootstrap and the CSV layout."""

from __future__ import annotations

import pytest

from evaluator.metrics import efficiency
from evaluator.summary import GroupRow, Summary, bootstrap_ci, summary_csv


def test_bootstrap_is_seeded_and_brackets_the_mean() -> None:
    values = [0.0, 0.25, 0.5, 1.0, 1.0, 0.75]
    ci = bootstrap_ci(values, 3, "ERI", "easy", "random")
    assert ci == bootstrap_ci(values, 3, "ERI", "easy", "random")
    assert ci != bootstrap_ci(values, 4, "ERI", "easy", "random")
    assert ci is not None and ci[0] <= sum(values) / len(values) <= ci[1]
    assert bootstrap_ci([0.5], 0) == (0.5, 0.5)
    assert bootstrap_ci([], 0) is None


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
    assert lines[0].startswith("family,level,agent,boxes,episodes,failed,accuracy_mean")
    assert lines[1].startswith("ERI,easy,random,2,2,0,0.5,0.0,1.0,3.0")
    assert lines[1].endswith(",,,0")
