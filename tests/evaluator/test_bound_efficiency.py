"""Efficiency against the bound: T_info / the turn an episode pinned its rule down."""

from __future__ import annotations

import math
import random

from blackboxes.families import get_family
from evaluator.kinds.turns.metrics import EpisodeInformation, QueryInformation, bound_efficiency


def _info(cumulative: list[float], log2_h: float) -> EpisodeInformation:
    rows, before = [], log2_h
    for turn, total in enumerate(cumulative, start=1):
        gained = total - (log2_h - before)
        rows.append(QueryInformation(turn, before, gained, gained, total))
        before = log2_h - total
    return EpisodeInformation(queries=tuple(rows), log2_h=log2_h, exact=True)


def test_identified_at_is_the_first_turn_that_leaves_one_rule() -> None:
    assert _info([3.0, 7.0, 10.0, 10.0], 10.0).identified_at == 3
    assert _info([3.0, 9.9999999], 10.0).identified_at == 2  # within the tolerance
    assert _info([3.0, 9.9], 10.0).identified_at is None
    assert _info([], 10.0).identified_at is None
    assert _info([math.inf], 10.0).identified_at is None  # an impossible answer


def test_bound_efficiency() -> None:
    assert bound_efficiency(2, 2) == 1.0
    assert bound_efficiency(2, 4) == 0.5
    assert bound_efficiency(3, 1) == 1.0  # a lucky answer cannot beat the bound
    assert bound_efficiency(2, None) == 0.0  # never pinned down
    assert bound_efficiency(None, 3) is None


def test_fixed_plan_pins_a_hard_substitution_down_after_t_info_or_more() -> None:
    eri = get_family("ERI")
    rule = eri.sample_rule(random.Random(3), "hard", "frequency_shift")
    served = eri.for_rule(rule)
    space = served.version_space("hard", "frequency_shift")
    t_info = served.hypothesis_space("frequency_shift", "hard").t_info
    assert t_info == 3
    cumulative, total = [], 0.0
    for x in served.exploration_plan("hard", 8):
        before = space.log2_count()
        space = space.observe(x, rule(x))
        total += before - space.log2_count()
        cumulative.append(total)
    info = _info(cumulative, served.version_space("hard", "frequency_shift").log2_count())
    assert info.identified_at is not None and info.identified_at >= t_info
    eff = bound_efficiency(t_info, info.identified_at)
    assert eff is not None and 0.0 < eff <= 1.0
