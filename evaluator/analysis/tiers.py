"""Exploration tiers, computed from trajectories (ORACLE defines them only in prose).

ORACLE reads histories by hand and files an agent's exploration under one of three tiers:
1 random, 2 systematic but not adaptive, 3 adaptive. Here the tier comes from four
measurements, per episode and per (agent, family, level), of the kind-independent
:class:`~evaluator.analysis.EpisodeAnalysis` values:

(a) **Above random.** An episode's information *area* is the information it gathered,
    summed over its steps (:func:`information_area`: so that a budget in which every
    agent ends up knowing the rule still tells a fast learner from a slow one). A group
    is above random when the paired differences of its per-box area and the random
    baseline's, each box in units of the largest area any agent reached on it (so a box
    weighs as much as another and no ratio can blow up), have a seeded 95% bootstrap
    interval that does not reach below 0 around a positive mean (never worse, sometimes
    better); an episode, when its area beats random's on its box and repetition.
    A group's *efficiency* is its areas summed over boxes over the kind's reference
    agent's (``EpisodeKind.reference_agent``: the greedy/adaptive baseline) on the same
    boxes, with a bootstrap interval over boxes; an episode's, its area over the
    reference's on the same box and repetition.
(b) **Systematic.** Whether the queries follow a plan rather than chance: the same
    jobs replayed on the same boxes with another run seed (``oracle-eval
    --counterfactual`` writes this *reseeded* replay; a run with repetitions gives the
    same pairs) ask the same queries in at least :data:`SYSTEMATIC_SHARE` of the pairs.
(c) **Adaptive.** Whether the queries respond to feedback, from a counterfactual: every
    episode replayed, same seed, against a twin of its box with another key of the same
    rule kind (:mod:`evaluator.counterfactual`); a pair *diverges* when the two query
    sequences differ within their common length. A group is adaptive when its share of
    diverging pairs is at least :data:`ADAPTIVE_SHARE` of the reference agent's share.
    Feedback can only show where it could change the best plan: on boxes whose version
    spaces are symmetric under a change of key (ciphers) the greedy reference's own
    queries are the same for every key, and adaptivity is *not observable* there (it is
    then not asked for). Without a counterfactual, a deferred-feedback run of the same
    boxes and budget serves instead (ORACLE's setting (i)): adaptive when the efficiency
    lost without feedback has a 95% interval above 0 (observable where the reference
    loses some).
(d) **Near greedy.** The upper end of the 95% interval of the efficiency reaches
    :data:`NEAR_GREEDY`: not measurably less efficient than the reference.

Tier: 1 when neither above random nor systematic nor adaptive; otherwise 3 when near
greedy and adaptive (or adaptivity is not observable on these boxes); otherwise 2 (systematic: a
plan, or better than random, whose queries do not respond to feedback or that stays
short of greedy). Without adaptivity evidence the tier is *provisional* (``evidence =
"efficiency"``): 3 when near greedy, else 2. The classifier is trusted only because it
labels the baselines (``EpisodeKind.baseline_tiers``: random 1, fixed 2, adaptive 3) on
every family; the tests check it.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict

from evaluator.analysis._model import EpisodeAnalysis
from evaluator.reporting import BOOTSTRAP_RESAMPLES, bootstrap_ci, rnd
from oracle_bench.rng import rng_for

__all__ = [
    "ADAPTIVE_SHARE",
    "NEAR_GREEDY",
    "RANDOM_AGENT",
    "SYSTEMATIC_SHARE",
    "EpisodeTier",
    "Evidence",
    "TierReport",
    "TierRow",
    "classify_tiers",
    "diverges",
    "efficiencies",
    "information_area",
]

ADAPTIVE_SHARE = 0.5
"""A group is adaptive when its share of diverging counterfactual pairs is at least this
fraction of the reference agent's share on the same family and level."""
SYSTEMATIC_SHARE = 0.5
"""A group follows a plan when at least this share of its same-box pairs under another
agent seed ask the same queries."""
NEAR_GREEDY = 0.995
"""A group is near greedy when the upper end of the 95% interval of its mean efficiency
reaches this: not measurably less efficient than the reference (within half a percent)."""
RANDOM_AGENT = "random"
"""The baseline whose efficiency marks tier 1."""

Evidence = Literal["counterfactual", "deferred", "not observable", "efficiency"]
"""What decided adaptivity: the twin runs, a deferred run, neither because feedback
cannot change the greedy plan on these boxes, or nothing (a provisional tier)."""

_Key = tuple[str, str, int]
"""(box, agent, repetition)."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class TierRow(_Model):
    """The tier of one (agent, family, level) and the measurements behind it."""

    family: str
    level: str
    agent: str
    boxes: int
    episodes: int
    efficiency: float | None
    """Information area summed over the boxes over the reference agent's."""
    efficiency_ci_low: float | None = None
    efficiency_ci_high: float | None = None
    random_gap: float | None
    """Mean per-box area minus the random baseline's, in units of the box's largest area."""
    random_gap_ci_low: float | None = None
    random_gap_ci_high: float | None = None
    above_random: bool | None
    seed_divergence: float | None = None
    """Share of same-box pairs with another agent seed (the reseeded replay, or
    repetitions) whose queries diverge (None: no such pairs)."""
    systematic: bool | None = None
    """The agent follows a plan: its queries rarely change with its own seed."""
    adaptivity: float | None = None
    """Share of counterfactual pairs whose queries diverge (None: no counterfactual)."""
    feedback_gain: float | None = None
    """Efficiency with instant feedback minus with deferred (None: no deferred run)."""
    feedback_gain_ci_low: float | None = None
    feedback_gain_ci_high: float | None = None
    adaptive: bool | None
    evidence: Evidence
    near_greedy: bool | None
    tier: int | None
    reason: str


class EpisodeTier(_Model):
    """The tier of one episode."""

    box_id: str
    agent: str
    repetition: int
    family: str
    level: str
    efficiency: float | None
    above_random: bool | None
    diverges: bool | None
    tier: int | None


class TierReport(_Model):
    """Tiers of one run (with its counterfactual and deferred companions, if any)."""

    reference_agent: str
    near_greedy: float = NEAR_GREEDY
    adaptive_share: float = ADAPTIVE_SHARE
    rows: list[TierRow]
    episodes: list[EpisodeTier]
    expected: dict[str, int]
    """The tier each baseline agent must get (``EpisodeKind.baseline_tiers``)."""

    def confusion(self) -> dict[tuple[int, int | None], int]:
        """(expected tier, computed tier) -> number of baseline groups."""
        table: dict[tuple[int, int | None], int] = defaultdict(int)
        for row in self.rows:
            if row.agent in self.expected:
                table[(self.expected[row.agent], row.tier)] += 1
        return dict(table)


def diverges(a: Sequence[str], b: Sequence[str]) -> bool:
    """Whether two query sequences differ within their common length (an episode that
    ends early, e.g. on a right equivalence query, is not a divergence by itself)."""
    return any(x != y for x, y in zip(a, b, strict=False))


def _key(e: EpisodeAnalysis) -> _Key:
    return (e.box_id, e.agent, e.repetition)


def information_area(e: EpisodeAnalysis) -> float | None:
    """The information an episode gathered, summed over its budget: sum over steps t of
    the bits gathered by step t (counted steps; a step with unmeasured bits adds none).
    Divided by the reference's on the same box and budget, this is the efficiency at
    every budget up to T, averaged: gathering all of log2|H| at step 2 beats gathering it
    at step 9, though both end with log2|H|. Kinds that measure no bits per step fall
    back to ``info_total``."""
    if not any(s.bits is not None for s in e.steps):
        return e.info_total
    total = cumulative = 0.0
    for step in e.steps:
        if not step.counted:
            continue
        if step.bits is not None and math.isfinite(step.bits):
            cumulative += step.bits
        total += cumulative
    return total


def efficiencies(
    analyses: Iterable[EpisodeAnalysis],
    reference_agent: str,
    reference: Iterable[EpisodeAnalysis] | None = None,
) -> dict[_Key, float | None]:
    """Each completed episode's :func:`information_area` over the reference agent's on the
    same box and repetition (None when either is missing or the reference gathered nothing).

    The reference episodes come from ``reference`` when given (a deferred run is measured
    against the instant run's reference), else from ``analyses`` themselves."""
    done = [e for e in analyses if e.status == "completed"]
    source = done if reference is None else [e for e in reference if e.status == "completed"]
    ref = {
        (e.box_id, e.repetition): information_area(e) for e in source if e.agent == reference_agent
    }
    out: dict[_Key, float | None] = {}
    for e in done:
        base = ref.get((e.box_id, e.repetition))
        mine = information_area(e)
        if (
            mine is None
            or base is None
            or not math.isfinite(base)
            or base <= 0
            or not math.isfinite(mine)
        ):
            out[_key(e)] = None
        else:
            out[_key(e)] = mine / base
    return out


def _areas(analyses: Iterable[EpisodeAnalysis]) -> dict[_Key, float]:
    """The information area of every completed episode that has one."""
    out: dict[_Key, float] = {}
    for e in analyses:
        area = information_area(e) if e.status == "completed" else None
        if area is not None and math.isfinite(area):
            out[_key(e)] = area
    return out


def _scales(areas: Mapping[_Key, float]) -> dict[str, float]:
    """Per box, the largest mean area any agent reached: the unit of the paired gaps, so
    that each box weighs alike and a box where the reference gathered little cannot
    blow a ratio up."""
    by_agent: dict[tuple[str, str], list[float]] = defaultdict(list)
    for (box, agent, _), area in areas.items():
        by_agent[(box, agent)].append(area)
    scales: dict[str, float] = {}
    for (box, _), values in by_agent.items():
        scales[box] = max(scales.get(box, 0.0), statistics.fmean(values))
    return scales


def _ratio_ci(
    num: Mapping[str, float], den: Mapping[str, float], seed: int, *parts: str
) -> tuple[float | None, tuple[float, float] | None]:
    """Sum of ``num`` over sum of ``den`` on their common boxes, with a seeded 95%
    percentile bootstrap over boxes (``rng_for(seed, "bootstrap", "tiers", *parts)``)."""
    common = sorted(b for b in set(num) & set(den))
    total = math.fsum(den[b] for b in common)
    if not common or total <= 0:
        return None, None
    point = math.fsum(num[b] for b in common) / total
    rng = rng_for(seed, "bootstrap", "tiers", *parts)
    stats: list[float] = []
    n = len(common)
    for _ in range(BOOTSTRAP_RESAMPLES):
        drawn = [common[int(rng.random() * n)] for _ in range(n)]
        d = math.fsum(den[b] for b in drawn)
        stats.append(math.fsum(num[b] for b in drawn) / d if d > 0 else point)
    stats.sort()
    low = stats[math.floor(0.025 * (BOOTSTRAP_RESAMPLES - 1))]
    high = stats[math.ceil(0.975 * (BOOTSTRAP_RESAMPLES - 1))]
    return point, (min(low, point), max(high, point))


def _per_box(values: Mapping[_Key, float | None], agent: str) -> dict[str, float]:
    boxes: dict[str, list[float]] = defaultdict(list)
    for (box, who, _), value in values.items():
        if who == agent and value is not None:
            boxes[box].append(value)
    return {box: statistics.fmean(v) for box, v in boxes.items()}


def _paired_gap(
    a: Mapping[str, float],
    b: Mapping[str, float],
    scales: Mapping[str, float],
    seed: int,
    *parts: str,
) -> tuple[float | None, tuple[float, float] | None]:
    """The mean over common boxes of (a - b) / the box's scale, with its interval."""
    common = sorted(box for box in set(a) & set(b) if scales.get(box, 0.0) > 0)
    if not common:
        return None, None
    gaps = [(a[box] - b[box]) / scales[box] for box in common]
    return statistics.fmean(gaps), bootstrap_ci(gaps, seed, "tiers", *parts)


def _divergence_share(pairs: Sequence[tuple[EpisodeAnalysis, EpisodeAnalysis]]) -> float | None:
    flags = [diverges(a.query_keys, b.query_keys) for a, b in pairs]
    return sum(flags) / len(flags) if flags else None


def _pairs(
    members: Sequence[EpisodeAnalysis], others: Mapping[_Key, EpisodeAnalysis]
) -> list[tuple[EpisodeAnalysis, EpisodeAnalysis]]:
    return [(e, others[_key(e)]) for e in members if e.status == "completed" and _key(e) in others]


def _repetition_pairs(
    members: Sequence[EpisodeAnalysis],
) -> list[tuple[EpisodeAnalysis, EpisodeAnalysis]]:
    """Repetition r and r + 1 of each box: the agent's own randomness differs."""
    done = {_key(e): e for e in members if e.status == "completed"}
    return [
        (e, done[(box, agent, rep + 1)])
        for (box, agent, rep), e in sorted(done.items())
        if (box, agent, rep + 1) in done
    ]


def _tier(
    above: bool | None,
    systematic: bool | None,
    adaptive: bool | None,
    evidence: Evidence,
    near: bool | None,
) -> tuple[int | None, str]:
    if near is None:
        return None, "no reference agent on the same boxes to compare with"
    if above is None:
        return None, "no random baseline on the same boxes to compare with"
    if not above and not systematic and not adaptive:
        if systematic is None and evidence == "efficiency":
            return 1, "no more efficient than the random baseline (provisional: no replays)"
        return 1, "no more efficient than the random baseline, no fixed plan, not adaptive"
    if above:
        lead = "above random"
    elif systematic:
        lead = "a plan that does not change with its seed"
    else:
        lead = "not above random, but its queries respond to feedback"
    if evidence == "not observable":
        if near:
            return 3, f"{lead}, near greedy; feedback cannot change the greedy plan here"
        return 2, f"{lead}, short of greedy"
    if evidence == "efficiency":
        if near:
            return 3, f"{lead}, near greedy (provisional: no adaptivity evidence)"
        return 2, f"{lead}, short of greedy (provisional: no adaptivity evidence)"
    if adaptive and near:
        return 3, f"{lead}, adaptive ({evidence}) and near greedy"
    if adaptive:
        return 2, f"{lead}, adaptive ({evidence}) but short of greedy"
    return 2, f"{lead}, queries do not respond to feedback ({evidence})"


def classify_tiers(
    analyses: Sequence[EpisodeAnalysis],
    *,
    reference_agent: str,
    expected: Mapping[str, int],
    seed: int = 0,
    counterfactual: Sequence[EpisodeAnalysis] | None = None,
    reseeded: Sequence[EpisodeAnalysis] | None = None,
    deferred: Sequence[EpisodeAnalysis] | None = None,
) -> TierReport:
    """The tiers of one run's episodes (see the module docstring).

    ``counterfactual`` holds the same jobs played against twin boxes; ``reseeded`` the
    same jobs on the same boxes with another run seed; ``deferred`` a run of the same
    boxes and budget with deferred feedback. ``seed`` draws the bootstrap intervals
    (``rng_for(seed, "bootstrap", "tiers", ...)``).
    """
    eff = efficiencies(analyses, reference_agent)
    areas = _areas(analyses)
    scales = _scales(areas)
    deferred_areas = _areas(deferred) if deferred else None
    twins = {_key(e): e for e in counterfactual or () if e.status == "completed"}
    replays = {_key(e): e for e in reseeded or () if e.status == "completed"}
    groups: dict[tuple[str, str, str], list[EpisodeAnalysis]] = defaultdict(list)
    for e in analyses:
        groups[(e.family, e.level, e.agent)].append(e)

    shares: dict[tuple[str, str, str], float | None] = {}
    noise: dict[tuple[str, str, str], float | None] = {}
    gains: dict[tuple[str, str, str], tuple[float | None, tuple[float, float] | None]] = {}
    for group, members in groups.items():
        shares[group] = _divergence_share(_pairs(members, twins))
        same_box = _pairs(members, replays) if replays else _repetition_pairs(members)
        noise[group] = _divergence_share(same_box)
        if deferred_areas is not None:
            boxes = {e.box_id for e in members}
            now = {b: v for b, v in _per_box(areas, group[2]).items() if b in boxes}
            blind = _per_box(deferred_areas, group[2])
            gains[group] = _paired_gap(now, blind, scales, seed, "feedback", *group)
    random_boxes = _per_box(areas, RANDOM_AGENT)
    reference_boxes = _per_box(areas, reference_agent)

    rows: list[TierRow] = []
    for group in sorted(groups):
        family, level, agent = group
        members = groups[group]
        in_group = {e.box_id for e in members}
        mine = {b: v for b, v in _per_box(areas, agent).items() if b in in_group}
        mean_eff, ci = _ratio_ci(mine, reference_boxes, seed, "efficiency", *group)
        gap, gap_ci = _paired_gap(mine, random_boxes, scales, seed, "random", *group)
        # Never worse and sometimes better counts: boxes every agent solves alike put the
        # interval's low end at exactly 0.
        above = None if gap is None or gap_ci is None else gap > 0 and gap_ci[0] >= 0
        near = None if ci is None else ci[1] >= NEAR_GREEDY
        spread = noise[group]
        systematic = None if spread is None else spread <= 1.0 - SYSTEMATIC_SHARE
        ref_share = shares.get((family, level, reference_agent))
        ref_gain = gains.get((family, level, reference_agent))
        share = shares[group]
        gain = gains.get(group)
        evidence: Evidence
        adaptive: bool | None
        if share is not None and ref_share is not None:
            if ref_share > 0:
                evidence, adaptive = "counterfactual", share >= ADAPTIVE_SHARE * ref_share
            else:
                evidence, adaptive = "not observable", None
        elif gain is not None and gain[1] is not None and ref_gain and ref_gain[1]:
            if ref_gain[1][0] > 0:
                evidence, adaptive = "deferred", gain[1][0] > 0
            else:
                evidence, adaptive = "not observable", None
        else:
            evidence, adaptive = "efficiency", None
        tier, reason = _tier(above, systematic, adaptive, evidence, near)
        rows.append(
            TierRow(
                family=family,
                level=level,
                agent=agent,
                boxes=len(in_group),
                episodes=len(members),
                efficiency=rnd(mean_eff),
                efficiency_ci_low=rnd(ci[0]) if ci else None,
                efficiency_ci_high=rnd(ci[1]) if ci else None,
                random_gap=rnd(gap),
                random_gap_ci_low=rnd(gap_ci[0]) if gap_ci else None,
                random_gap_ci_high=rnd(gap_ci[1]) if gap_ci else None,
                above_random=above,
                seed_divergence=rnd(spread),
                systematic=systematic,
                adaptivity=rnd(share),
                feedback_gain=rnd(gain[0]) if gain else None,
                feedback_gain_ci_low=rnd(gain[1][0]) if gain and gain[1] else None,
                feedback_gain_ci_high=rnd(gain[1][1]) if gain and gain[1] else None,
                adaptive=adaptive,
                evidence=evidence,
                near_greedy=near,
                tier=tier,
                reason=reason,
            )
        )

    random_area = {(k[0], k[2]): v for k, v in areas.items() if k[1] == RANDOM_AGENT}
    row_of = {(r.family, r.level, r.agent): r for r in rows}
    episodes: list[EpisodeTier] = []
    for e in sorted(analyses, key=_key):
        value = eff.get(_key(e))
        mine_e = areas.get(_key(e))
        base = random_area.get((e.box_id, e.repetition))
        above_e = None if mine_e is None or base is None else mine_e > base
        near_e = None if value is None else value >= NEAR_GREEDY
        row = row_of[(e.family, e.level, e.agent)]
        twin = twins.get(_key(e))
        div = (
            None
            if twin is None or e.status != "completed"
            else diverges(e.query_keys, twin.query_keys)
        )
        adaptive_e = div if row.evidence == "counterfactual" else row.adaptive
        if e.status != "completed":
            tier_e = None
        else:
            tier_e, _ = _tier(above_e, row.systematic, adaptive_e, row.evidence, near_e)
        episodes.append(
            EpisodeTier(
                box_id=e.box_id,
                agent=e.agent,
                repetition=e.repetition,
                family=e.family,
                level=e.level,
                efficiency=rnd(value),
                above_random=above_e,
                diverges=div,
                tier=tier_e,
            )
        )
    return TierReport(
        reference_agent=reference_agent, rows=rows, episodes=episodes, expected=dict(expected)
    )
