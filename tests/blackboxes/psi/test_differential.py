"""Acceptance: every kind's box code agrees with its trusted reference at 1,000 random
times per box over 100 boxes, within DIFF_TOL before rounding (``benchmarks/psi/
differential.py`` prints the largest deviation per kind)."""

from __future__ import annotations

import pytest

from blackboxes.families.psi._kinds import KINDS
from tests.blackboxes.psi._deviation import DIFF_TOL, box_deviation


@pytest.mark.parametrize("name", sorted(KINDS))
def test_box_code_agrees_with_reference_everywhere(name: str) -> None:
    worst, where = box_deviation(name, boxes=100, times=1000)
    assert worst <= DIFF_TOL, (name, worst, where)
