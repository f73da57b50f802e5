"""The tier classifier is trusted because it labels the baselines: random 1, fixed 2,
adaptive 3 (DFA: the learners 3), on every family, from real runs with their
counterfactual (twin boxes) and reseeded replays."""

from __future__ import annotations

from pathlib import Path
from typing import cast

import pytest

from blackboxes.box import Level
from evaluator._tiers_cli import tiers_of_run_dir
from evaluator.api import evaluate, plan_run
from evaluator.counterfactual import counterfactual_plan, reseeded_plan
from tests.evaluator.conftest import build_suite

# (family, level, spec, boxes): levels and budgets at which exploration matters (at ERI
# easy one long query reveals any key, so every agent looks alike; at PSI hard 2@1 the
# adaptive baseline keeps to the fixed plan). Small suites keep this file under a
# minute; benchmarks/eval/tiers.py gives the confusion table on larger ones.
CASES = [
    ("ERI", "hard", "3@1", 6),
    ("CRI", "hard", "10@1", 5),
    ("CII", "hard", "2@1", 4),
    ("PSI", "easy", "5@1", 3),
    ("IPI", "hard", "5@1", 4),
    ("GSI", "easy", "1@1", 3),
    ("DFA", "easy", None, 6),
]


@pytest.mark.parametrize(("family", "level", "spec", "boxes"), CASES, ids=[c[0] for c in CASES])
def test_the_baselines_get_their_tiers(
    tmp_path: Path, family: str, level: str, spec: str | None, boxes: int
) -> None:
    suite = build_suite(tmp_path, n=boxes, family_name=family, level=cast(Level, level))
    plan = plan_run(suite, None, spec, out=tmp_path / "run", seed=0)
    evaluate(plan, concurrency=2)
    evaluate(counterfactual_plan(plan), concurrency=2)
    evaluate(reseeded_plan(plan), concurrency=2)
    report = tiers_of_run_dir(plan.out_dir)
    got = {r.agent: r.tier for r in report.rows}
    assert got == {agent: report.expected[agent] for agent in got}, [
        (r.agent, r.tier, r.reason) for r in report.rows
    ]
    assert set(got) == set(plan.agents)
    wanted = sorted(set(report.expected.values()))
    assert sorted(report.confusion()) == [(t, t) for t in wanted]
