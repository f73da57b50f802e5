"""Exploration tiers, computed from trajectories (ORACLE defines them only in prose).

ORACLE reads histories by hand and files an agent's exploration under one of three tiers:
1 random, 2 systematic but not adaptive, 3 adaptive. Here the tier comes from three
measurements, per episode and per (agent, family, level), of the kind-independent
:class:`~evaluator.analysis.EpisodeAnalysis` values:

(a) **Above random.** Efficiency is the information an episode gathered
    (``info_total``) over that of the kind's reference agent (``EpisodeKind.
    reference_agent``: the greedy/adaptive baseline; DFA: L*) on the same box and
    repetition. A group is above random when the paired differences of its per-box
    efficiency and the random baseline's on the same boxes have a seeded 95% bootstrap
    interval above 0; an episode, when its efficiency beats random's on its box and
    repetition.
(b) **Adaptive.** Whether the queries respond to feedback, from a counterfactual
    (``oracle-eval --counterfactual``: every episode replayed, same seed, against a twin of
    its box with another key of the same rule kind; :mod:`evaluator.counterfactual`): a
    pair *diverges* when the two query sequences differ within their common length. A
    group is adaptive when at least :data:`ADAPTIVE_SHARE` of its pairs diverge. Without
    a counterfactual, a deferred-feedback run of the same boxes and budget serves
    instead (ORACLE's setting (i)): adaptive when the efficiency lost without feedback
    has a 95% interval above 0.
    Feedback can only show where it could change the best plan: on boxes whose version
    spaces are symmetric under a change of key (ciphers), the greedy reference's own
    queries are the same for every key. The signal is *observable* for a family and
    level only when the reference agent's own pairs diverge (or its own deferred run
    loses efficiency); where it is not, adaptivity is not asked for.
(c) **Near greedy.** Mean efficiency at least :data:`NEAR_GREEDY`.

Tier: 1 when not above random; otherwise 3 when near greedy and adaptive (or adaptivity
is not observable on these boxes); otherwise 2 (systematic: better than random, but its
queries do not respond to feedback, or it stays far from greedy). Without any adaptivity
evidence the tier is *provisional* (``evidence = "efficiency"``): 3 when near greedy,
else 2. The classifier is trusted only because it labels the baselines
(``EpisodeKind.baseline_tiers``: random 1, fixed 2, adaptive 3) on every family; the
tests check it.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict

from evaluator.analysis._model import EpisodeAnalysis
from evaluator.reporting import bootstrap_ci, rnd

__all__ = [
    "ADAPTIVE_SHARE",
    "NEAR_GREEDY",
    "RANDOM_AGENT",
    "EpisodeTier",
    "Evidence",
    "TierReport",
    "TierRow",
    "classify_tiers",
    "diverges",
    "efficiencies",
]

ADAPTIVE_SHARE = 0.5
"""Share of counterfactual pairs that must diverge for a group to count as adaptive."""
NEAR_GREEDY = 0.8
"""Mean efficiency (against the reference agent) from which a group is near greedy."""
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
    """Mean per-episode efficiency against the reference agent."""
    efficiency_ci_low: float | None = None
    efficiency_ci_high: float | None = None
    random_gap: float | None
    """Mean per-box efficiency minus the random baseline's on the same boxes."""
    random_gap_ci_low: float | None = None
    random_gap_ci_high: float | None = None
    above_random: bool | None
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


def efficiencies(
    analyses: Iterable[EpisodeAnalysis],
    reference_agent: str,
    reference: Iterable[EpisodeAnalysis] | None = None,
) -> dict[_Key, float | None]:
    """Each completed episode's ``info_total`` over the reference agent's on the same
    box and repetition (None when either is missing or the reference gathered nothing).

    The reference episodes come from ``reference`` when given (a deferred run is measured
    against the instant run's reference), else from ``analyses`` themselves."""
    done = [e for e in analyses if e.status == "completed"]
    source = done if reference is None else [e for e in reference if e.status == "completed"]
    ref = {
        (e.box_id, e.repetition): e.info_total
        for e in source
        if e.agent == reference_agent and e.info_total is not None
    }
    out: dict[_Key, float | None] = {}
    for e in done:
        base = ref.get((e.box_id, e.repetition))
        if (
            e.info_total is None
            or base is None
            or not math.isfinite(base)
            or base <= 0
            or not math.isfinite(e.info_total)
        ):
            out[_key(e)] = None
        else:
            out[_key(e)] = e.info_total / base
    return out


def _per_box(values: Mapping[_Key, float | None], agent: str) -> dict[str, float]:
    boxes: dict[str, list[float]] = defaultdict(list)
    for (box, who, _), value in values.items():
        if who == agent and value is not None:
            boxes[box].append(value)
    return {box: statistics.fmean(v) for box, v in boxes.items()}


def _paired_gap(
    a: Mapping[str, float], b: Mapping[str, float], seed: int, *parts: str
) -> tuple[float | None, tuple[float, float] | None]:
    common = sorted(set(a) & set(b))
    if not common:
        return None, None
    gaps = [a[box] - b[box] for box in common]
    return statistics.fmean(gaps), bootstrap_ci(gaps, seed, "tiers", *parts)


def _reference_observable(
    shares: Mapping[tuple[str, str, str], float | None],
    gains: Mapping[tuple[str, str, str], tuple[float, float] | None],
    family: str,
    level: str,
    reference_agent: str,
) -> tuple[bool | None, bool | None]:
    """Whether the reference agent's own counterfactual pairs / deferred run show that
    feedback changes the greedy plan here (None: no such evidence)."""
    key = (family, level, reference_agent)
    share = shares.get(key)
    gain = gains.get(key)
    by_twin = None if share is None else share >= ADAPTIVE_SHARE
    by_deferred = None if gain is None else gain[0] > 0
    return by_twin, by_deferred


def _tier(
    above: bool | None, adaptive: bool | None, evidence: Evidence, near: bool | None
) -> tuple[int | None, str]:
    if above is None:
        return None, "no random baseline on the same boxes to compare with"
    if not above:
        return 1, "no more efficient than the random baseline"
    if near is None:
        return None, "no reference agent on the same boxes to compare with"
    if evidence == "not observable":
        if near:
            return 3, "near greedy; feedback cannot change the greedy plan on these boxes"
        return 2, "above random, far from greedy"
    if evidence == "efficiency":
        if near:
            return 3, "near greedy (provisional: no counterfactual or deferred run)"
        return 2, "above random, far from greedy (provisional: no adaptivity evidence)"
    if adaptive and near:
        return 3, f"adaptive ({evidence}) and near greedy"
    if adaptive:
        return 2, f"adaptive ({evidence}) but far from greedy"
    return 2, f"above random, queries do not respond to feedback ({evidence})"


def classify_tiers(
    analyses: Sequence[EpisodeAnalysis],
    *,
    reference_agent: str,
    expected: Mapping[str, int],
    seed: int = 0,
    counterfactual: Sequence[EpisodeAnalysis] | None = None,
    deferred: Sequence[EpisodeAnalysis] | None = None,
) -> TierReport:
    """The tiers of one run's episodes (see the module docstring).

    ``counterfactual`` holds the same jobs played against twin boxes; ``deferred`` a run
    of the same boxes and budget with deferred feedback. ``seed`` draws the bootstrap
    intervals (``rng_for(seed, "bootstrap", "tiers", ...)``).
    """
    eff = efficiencies(analyses, reference_agent)
    deferred_eff = efficiencies(deferred, reference_agent, analyses) if deferred else None
    twins = {_key(e): e for e in counterfactual or () if e.status == "completed"}
    groups: dict[tuple[str, str, str], list[EpisodeAnalysis]] = defaultdict(list)
    for e in analyses:
        groups[(e.family, e.level, e.agent)].append(e)

    pair_diverges: dict[_Key, bool] = {}
    for e in analyses:
        twin = twins.get(_key(e))
        if e.status == "completed" and twin is not None:
            pair_diverges[_key(e)] = diverges(e.query_keys, twin.query_keys)
    shares: dict[tuple[str, str, str], float | None] = {}
    gains: dict[tuple[str, str, str], tuple[float, float] | None] = {}
    gain_means: dict[tuple[str, str, str], float | None] = {}
    for group, members in groups.items():
        flags = [pair_diverges[_key(e)] for e in members if _key(e) in pair_diverges]
        shares[group] = sum(flags) / len(flags) if flags else None
        if deferred_eff is not None:
            boxes = {e.box_id for e in members}
            now = {b: v for b, v in _per_box(eff, group[2]).items() if b in boxes}
            blind = _per_box(deferred_eff, group[2])
            mean, ci = _paired_gap(now, blind, seed, "feedback", *group)
            gain_means[group], gains[group] = mean, ci
    random_boxes = _per_box(eff, RANDOM_AGENT)

    rows: list[TierRow] = []
    for group in sorted(groups):
        family, level, agent = group
        members = groups[group]
        values = [eff[_key(e)] for e in members if eff.get(_key(e)) is not None]
        in_group = {e.box_id for e in members}
        mine = {b: v for b, v in _per_box(eff, agent).items() if b in in_group}
        ci = bootstrap_ci(list(mine.values()), seed, "tiers", "efficiency", *group)
        mean_eff = statistics.fmean(v for v in values if v is not None) if values else None
        gap, gap_ci = _paired_gap(mine, random_boxes, seed, "random", *group)
        above = None if gap_ci is None else gap_ci[0] > 0
        near = None if mean_eff is None else mean_eff >= NEAR_GREEDY
        twin_ok, deferred_ok = _reference_observable(shares, gains, family, level, reference_agent)
        evidence: Evidence
        adaptive: bool | None
        if shares.get(group) is not None and twin_ok is not None:
            share = shares[group]
            evidence = "counterfactual" if twin_ok else "not observable"
            adaptive = bool(share is not None and share >= ADAPTIVE_SHARE) if twin_ok else None
        elif gains.get(group) is not None and deferred_ok is not None:
            g = gains[group]
            evidence = "deferred" if deferred_ok else "not observable"
            adaptive = bool(g is not None and g[0] > 0) if deferred_ok else None
        else:
            evidence, adaptive = "efficiency", None
        tier, reason = _tier(above, adaptive, evidence, near)
        g = gains.get(group)
        rows.append(
            TierRow(
                family=family,
                level=level,
                agent=agent,
                boxes=len({e.box_id for e in members}),
                episodes=len(members),
                efficiency=rnd(mean_eff),
                efficiency_ci_low=rnd(ci[0]) if ci else None,
                efficiency_ci_high=rnd(ci[1]) if ci else None,
                random_gap=rnd(gap),
                random_gap_ci_low=rnd(gap_ci[0]) if gap_ci else None,
                random_gap_ci_high=rnd(gap_ci[1]) if gap_ci else None,
                above_random=above,
                adaptivity=rnd(shares.get(group)),
                feedback_gain=rnd(gain_means.get(group)),
                feedback_gain_ci_low=rnd(g[0]) if g else None,
                feedback_gain_ci_high=rnd(g[1]) if g else None,
                adaptive=adaptive,
                evidence=evidence,
                near_greedy=near,
                tier=tier,
                reason=reason,
            )
        )

    random_eff = {(k[0], k[2]): v for k, v in eff.items() if k[1] == RANDOM_AGENT}
    row_of = {(r.family, r.level, r.agent): r for r in rows}
    episodes: list[EpisodeTier] = []
    for e in sorted(analyses, key=_key):
        value = eff.get(_key(e))
        base = random_eff.get((e.box_id, e.repetition))
        above_e = None if value is None or base is None else value > base
        near_e = None if value is None else value >= NEAR_GREEDY
        row = row_of[(e.family, e.level, e.agent)]
        div = pair_diverges.get(_key(e))
        evidence_e: Evidence = row.evidence
        adaptive_e = div if row.evidence == "counterfactual" else row.adaptive
        if e.status != "completed":
            tier_e = None
        else:
            tier_e, _ = _tier(above_e, adaptive_e, evidence_e, near_e)
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
