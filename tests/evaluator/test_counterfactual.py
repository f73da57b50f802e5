"""Counterfactual twins: the agent's view kept, the rule (or a puzzle's secrets) changed."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import cast

import pytest

from blackboxes.box import Level
from blackboxes.store import load_suite_boxes
from evaluator.counterfactual import (
    counterfactual_family,
    reseeded_seed,
    twin_box,
    write_twin_suite,
)
from oracle_bench.errors import UsageError
from tests.evaluator.conftest import build_suite


def _files(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


@pytest.mark.parametrize(("family", "level"), [("ERI", "hard"), ("IPI", "easy"), ("DFA", "easy")])
def test_a_twin_keeps_what_the_agent_sees_and_changes_the_rule(
    tmp_path: Path, family: str, level: str
) -> None:
    suite = build_suite(tmp_path, n=3, family_name=family, level=cast(Level, level))
    twin, left_out = write_twin_suite(suite, tmp_path / "twin", seed=0)
    assert left_out == []
    info, boxes = load_suite_boxes(suite)
    twin_info, twins = load_suite_boxes(twin)
    assert (twin_info.name, twin_info.seed, twin_info.backend) == (
        info.name,
        info.seed,
        "counterfactual",
    )
    for box, other in zip(boxes, twins, strict=True):
        assert other.info == box.info and other.facts == box.facts
        assert other.hidden.rule_kind == box.hidden.rule_kind
        assert other.hidden.test_seed != box.hidden.test_seed
        if family == "IPI":  # public rules: the same puzzle, other secrets
            assert other.hidden.params == box.hidden.params and other.code == box.code
        else:
            assert other.hidden.params != box.hidden.params and other.code != box.code
    again, _ = write_twin_suite(suite, tmp_path / "again", seed=0)
    assert _files(again) == _files(twin)
    third, _ = write_twin_suite(suite, tmp_path / "third", seed=1)
    assert _files(third) != _files(twin)


def test_boxes_without_a_reference_have_no_twin(tmp_path: Path) -> None:
    suite = build_suite(tmp_path, n=1, family_name="ERI")
    info, boxes = load_suite_boxes(suite)
    designed = replace(boxes[0], facts=boxes[0].facts.model_copy(update={"has_reference": False}))
    with pytest.raises(UsageError, match="has no reference rule"):
        twin_box(counterfactual_family(info), info, designed, 0)


def test_the_reseeded_replay_has_another_seed_in_range() -> None:
    seeds = {reseeded_seed(s) for s in range(50)}
    assert len(seeds) == 50 and all(0 <= s < 2**31 for s in seeds)
    assert reseeded_seed(0) == reseeded_seed(0)
