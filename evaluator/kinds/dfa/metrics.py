"""Metrics of a DFA episode: pure functions of a :class:`DfaTrajectory` (plus options).

Everything is recomputed from the trajectory alone, so a report can rebuild
it from the JSON. The metrics follow the agentic-automata-learning paper (its cost,
budget-factor sweep, best-hypothesis similarity, non-informative queries, planning vs
reasoning failures, #EQ > #states and hypothesis-size monotonicity), with two fixes:

- Planning vs reasoning uses ALL the evidence the agent gathered, the last observation
  included (the paper's code snapshots evidence before each call, so it never tests the
  last one).
- Duplicate hypotheses are detected by language (fingerprint of the minimal DFA), not text.

Evidence is every answered MQ (word -> answer) plus every EQ witness with its implied label
``not hypothesis.accepts(witness)`` (the target disagrees with the hypothesis there).

Counted calls that carry a box fault (``valid`` with ``error`` set) consumed budget, so they
count as steps (in ``cost``, ``mq``/``eq`` and the per-step lists), but they gave the agent
no answer: they add no evidence, no hypothesis (no similarity point, no size, nothing for a
later EQ to duplicate) and get no non-informative kind (the agent cannot be blamed for a
fault). A later MQ of a word whose MQ faulted is therefore not a duplicate.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import pairwise
from typing import Literal

from pydantic import BaseModel, ConfigDict

from blackboxes.automata.dfa import DFA
from blackboxes.automata.metrics import myhill_nerode_scores, similarity
from blackboxes.automata.passive import recovers
from evaluator.failures import scored
from evaluator.kinds.dfa._defaults import (
    DEFAULT_SIMILARITY_LEN,
    MAX_SIMILARITY_LEN,
    PAPER_BUCKETS,
    check_similarity_len,
)
from evaluator.kinds.dfa.trajectory import DfaCall, DfaTrajectory, round_half_up
from oracle_bench.errors import EvaluationError

__all__ = [
    "BUDGET_FACTORS",
    "DEFAULT_SIMILARITY_LEN",
    "DIRECT_KINDS",
    "MAX_MYHILL_NERODE_STATES",
    "MAX_SIMILARITY_LEN",
    "NON_INFORMATIVE_KINDS",
    "PAPER_BUCKETS",
    "DfaAggregateRow",
    "DfaEpisodeMetrics",
    "FailureKind",
    "aggregate_dfa_metrics",
    "check_similarity_len",
    "dfa_episode_metrics",
    "non_informative_rate_by_step",
]

BUDGET_FACTORS: tuple[float, ...] = (1.0, 1.25, 1.5, 1.75, 2.0)
"""The paper's post-hoc budget sweep (Figure 9)."""
MAX_MYHILL_NERODE_STATES = 256
"""Above this many minimal states, the best hypothesis gets no Myhill-Nerode scores."""

NON_INFORMATIVE_KINDS: tuple[str, ...] = (
    "mq_duplicate",
    "mq_implied_by_witness",
    "eq_duplicate",
    "eq_contradicts_mq",
    "eq_contradicts_witness",
)
"""Every kind tracked per counted call, in the order the per-step lists use."""
DIRECT_KINDS: tuple[str, ...] = ("mq_duplicate", "eq_duplicate", "eq_contradicts_mq")
"""The kinds the paper's "non-informative rate by step" figure counts."""

FailureKind = Literal["none", "planning", "reasoning"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class DfaEpisodeMetrics(_Model):
    """Every metric of one DFA episode (JSON-serialisable)."""

    success: bool
    """An EQ was accepted within the budget."""
    cost: int | None
    """Counted calls up to and including the accepted EQ; None without success."""
    mq: int
    """Counted membership queries."""
    eq: int
    """Counted equivalence queries."""
    invalid: int
    """Invalid (free) calls."""
    delta_vs_ttt: float | None
    """(cost - TTT total) / TTT total on success: the paper's "Delta tool calls from TTT"."""
    delta_vs_lstar: float | None
    """(cost - L* total) / L* total on success."""
    success_at: dict[str, bool]
    """Per budget factor (key ``str(float(f))``): cost <= round_half_up(f * reference_cost)."""
    best_similarity: float | None
    """Max over the agent's EQ hypotheses of Sim_K(h, target); None without an EQ."""
    similarity_curve: list[tuple[int, float]]
    """(counted step, similarity of that EQ's hypothesis), in order."""
    best_step: int | None
    """The first step whose hypothesis reached ``best_similarity``."""
    non_informative: dict[str, int]
    """Kind -> number of counted calls of that kind (every kind, zeros included)."""
    non_informative_steps: list[tuple[int, list[str]]]
    """Per counted step, its kinds (an empty list means informative)."""
    eq_count_exceeds_states: bool
    """More EQs than the minimal target has states (classic learners never do)."""
    hypothesis_sizes: list[int]
    """Minimal (complete) state counts of the successive EQ hypotheses."""
    sizes_monotone: bool
    """Each hypothesis, minimised, is strictly larger than the one before (the DFA seed's
    monotonicity check). L* and TTT hypotheses always grow; a KV hypothesis can hold
    equivalent states, so minimised it may repeat a size."""
    failure: FailureKind
    """On failure: "reasoning" if a passive learner recovers the target from all the
    evidence, else "planning"; "none" on success."""
    gold_step: int | None
    """First counted step after which the evidence so far lets a passive learner recover
    the target; None if it never does."""
    passive_recovered_by: list[str]
    """Passive learners that recover the target from all the evidence."""
    myhill_nerode: dict[str, float] | None
    """Myhill-Nerode scores of the best hypothesis vs the target; None without an EQ, or
    when the best hypothesis has more than ``MAX_MYHILL_NERODE_STATES`` minimal states
    (the exact computation grows with the square of its size)."""


@dataclass(frozen=True)
class _Step:
    step: int
    call: DfaCall
    hypothesis: DFA | None
    """The EQ hypothesis of a non-faulted EQ."""
    kinds: tuple[str, ...]
    new_evidence: tuple[tuple[str, bool], ...]
    """Labelled words this call revealed that were not known before."""


def _faulted(call: DfaCall) -> bool:
    return call.error is not None


def _walk(traj: DfaTrajectory) -> list[_Step]:
    """One pass over the counted calls: hypotheses, non-informative kinds, new evidence."""
    asked: dict[str, bool] = {}  # answered MQs
    witnesses: dict[str, bool] = {}  # EQ counterexamples with their implied labels
    seen_hyps: set[str] = set()
    out: list[_Step] = []
    for call in traj.counted():
        assert call.step is not None
        kinds: list[str] = []
        hyp: DFA | None = None
        new: list[tuple[str, bool]] = []
        if not _faulted(call) and call.tool == "mq" and call.word is not None:
            word = call.word
            if word in asked:
                kinds.append("mq_duplicate")
            if word in witnesses:
                kinds.append("mq_implied_by_witness")
            if call.member is not None and word not in asked:
                if word not in witnesses:
                    new.append((word, call.member))
                asked[word] = call.member
        elif not _faulted(call) and call.tool == "eq" and call.hypothesis is not None:
            hyp = call.hypothesis_dfa()
            assert hyp is not None
            if hyp.fingerprint in seen_hyps:
                kinds.append("eq_duplicate")
            if any(hyp.accepts(w) != label for w, label in asked.items()):
                kinds.append("eq_contradicts_mq")
            if any(hyp.accepts(w) != label for w, label in witnesses.items()):
                kinds.append("eq_contradicts_witness")
            seen_hyps.add(hyp.fingerprint)
            w = call.counterexample
            if w is not None and w not in witnesses:
                label = not hyp.accepts(w)
                if w not in asked:
                    new.append((w, label))
                witnesses[w] = label
        out.append(_Step(call.step, call, hyp, tuple(kinds), tuple(new)))
    return out


def _evidence(steps: Iterable[_Step]) -> dict[str, bool]:
    sample: dict[str, bool] = {}
    for s in steps:
        sample.update(s.new_evidence)
    return sample


def _gold_step(
    steps: Sequence[_Step], target: DFA
) -> tuple[int | None, dict[str, bool] | None, list[str]]:
    """The first step whose evidence so far lets a passive learner recover ``target``.

    Learners only re-run when the evidence grew (the verdict of an unchanged sample is
    the previous one), and the search stops at the first success. Also returns the last
    sample evaluated (None if none was) and its verdict, so the caller can reuse it.
    """
    sample: dict[str, bool] = {}
    found: list[str] = []
    evaluated = False
    for i, s in enumerate(steps):
        if i > 0 and not s.new_evidence:
            continue
        sample.update(s.new_evidence)
        found = recovers(dict(sample), target)
        evaluated = True
        if found:
            return s.step, sample, found
    return None, sample if evaluated else None, found


def _delta(cost: int | None, baseline: str, traj: DfaTrajectory) -> float | None:
    ref = traj.baselines.get(baseline)
    if cost is None or ref is None or ref.total <= 0:
        return None
    return (cost - ref.total) / ref.total


def _factor_key(f: float) -> str:
    return str(float(f))


def _measured_metrics(
    traj: DfaTrajectory, similarity_len: int, factors: Sequence[float]
) -> DfaEpisodeMetrics:
    """The metrics a served box measured before it withheld the target."""
    measured = traj.measured
    if measured is None:  # pragma: no cover - the caller checks
        raise EvaluationError("no measured metrics")
    if measured.similarity_len != similarity_len or tuple(factors) != tuple(BUDGET_FACTORS):
        raise EvaluationError(
            f"{traj.box_id}: the served box withheld its target and measured similarity over "
            f"words up to {measured.similarity_len} at the default budget factors; "
            f"recompute with --similarity-len {measured.similarity_len}"
        )
    return DfaEpisodeMetrics.model_validate(measured.metrics)


def dfa_episode_metrics(
    traj: DfaTrajectory,
    *,
    similarity_len: int = DEFAULT_SIMILARITY_LEN,
    factors: Sequence[float] = BUDGET_FACTORS,
) -> DfaEpisodeMetrics:
    """Every metric of ``traj`` (see :class:`DfaEpisodeMetrics` and the module docstring).

    ``similarity_len`` is K of the similarity; ``factors`` the budget factors of
    ``success_at``. Success and cost come from the calls: the first accepted,
    non-faulted EQ within the budget.
    """
    if traj.measured is not None:
        return _measured_metrics(traj, similarity_len, factors)
    target = traj.target_dfa()
    counted = traj.counted()
    steps = _walk(traj)

    cost: int | None = None
    for call in counted:
        if call.tool == "eq" and call.accepted and not _faulted(call):
            cost = call.step
            break
    if cost is not None and cost > traj.budget:
        cost = None
    success = cost is not None

    mq = sum(1 for c in counted if c.tool == "mq")
    eq = sum(1 for c in counted if c.tool == "eq")
    invalid = sum(1 for c in traj.calls if c.step is None)
    success_at = {
        _factor_key(f): cost is not None and cost <= round_half_up(f * traj.reference_cost)
        for f in factors
    }

    # Similarity per distinct language: agents often resubmit the same hypothesis.
    # Compared as exact fractions: near K = 200 a wrong hypothesis can round to 1.0 as a
    # float, and must not tie with (and shadow) a later, equivalent one.
    sims: dict[str, Fraction] = {}
    curve: list[tuple[int, float]] = []
    sizes: list[int] = []
    best: tuple[Fraction, int, DFA] | None = None
    for s in steps:
        if s.hypothesis is None:
            continue
        h = s.hypothesis
        key = h.fingerprint
        if key not in sims:
            sims[key] = similarity(h, target, max_len=similarity_len)
        value = sims[key]
        curve.append((s.step, float(value)))
        sizes.append(h.minimise().n)
        if best is None or value > best[0]:
            best = (value, s.step, h)

    counts = {k: 0 for k in NON_INFORMATIVE_KINDS}
    for s in steps:
        for k in s.kinds:
            counts[k] += 1

    gold, last_sample, last_found = _gold_step(steps, target)
    evidence = _evidence(steps)
    recovered = sorted(last_found if last_sample == evidence else recovers(evidence, target))
    failure: FailureKind = "none" if success else ("reasoning" if recovered else "planning")

    mn: dict[str, float] | None = None
    if best is not None and best[2].minimise().n <= MAX_MYHILL_NERODE_STATES:
        scores = myhill_nerode_scores(best[2], target)
        mn = {
            "compression_precision": scores.compression_precision,
            "state_distinction": scores.state_distinction,
            "boundary_precision": scores.boundary_precision,
            "boundary_recall": scores.boundary_recall,
        }

    return DfaEpisodeMetrics(
        success=success,
        cost=cost,
        mq=mq,
        eq=eq,
        invalid=invalid,
        delta_vs_ttt=_delta(cost, "ttt", traj),
        delta_vs_lstar=_delta(cost, "lstar", traj),
        success_at=success_at,
        best_similarity=None if best is None else float(best[0]),
        similarity_curve=curve,
        best_step=None if best is None else best[1],
        non_informative=counts,
        non_informative_steps=[(s.step, list(s.kinds)) for s in steps],
        eq_count_exceeds_states=eq > target.minimise().n,
        hypothesis_sizes=sizes,
        sizes_monotone=all(a < b for a, b in pairwise(sizes)),
        failure=failure,
        gold_step=gold,
        passive_recovered_by=recovered,
        myhill_nerode=mn,
    )


def _steps_kinds(
    item: DfaTrajectory | DfaEpisodeMetrics,
) -> list[tuple[int, list[str]]]:
    if isinstance(item, DfaEpisodeMetrics):
        return item.non_informative_steps
    return [(s.step, list(s.kinds)) for s in _walk(item)]


def non_informative_rate_by_step(
    trajs: Iterable[DfaTrajectory | DfaEpisodeMetrics],
    kinds: Sequence[str] = DIRECT_KINDS,
) -> list[tuple[int, float, int]]:
    """Per counted step s: (s, share of episodes reaching s whose call s has one of
    ``kinds``, number of episodes reaching s). Accepts trajectories or their metrics."""
    wanted = set(kinds)
    unknown = wanted - set(NON_INFORMATIVE_KINDS)
    if unknown:
        raise ValueError(f"unknown non-informative kind(s): {', '.join(sorted(unknown))}")
    hits: dict[int, int] = {}
    reach: dict[int, int] = {}
    for item in trajs:
        for step, ks in _steps_kinds(item):
            reach[step] = reach.get(step, 0) + 1
            hits[step] = hits.get(step, 0) + (1 if wanted.intersection(ks) else 0)
    return [(s, hits[s] / reach[s], reach[s]) for s in sorted(reach)]


class DfaAggregateRow(_Model):
    """One agent x bucket of target sizes. Means skip episodes where a value is None."""

    agent: str
    bucket: str
    """``"2-3"`` for an inclusive range of target state counts, ``"5"`` for one size."""
    min_states: int
    max_states: int
    episodes: int
    """Completed episodes (infrastructure failures are excluded from every other field)."""
    failed: int
    """Episodes whose status is ``failed`` (the run broke, not the agent)."""
    successes: int
    success_rate: float | None
    success_at: dict[str, float]
    """Per budget factor, the share of episodes successful within it."""
    cost_mean: float | None
    """Mean cost over successful episodes."""
    mq_mean: float | None
    eq_mean: float | None
    delta_vs_ttt_mean: float | None
    """Mean relative cost vs TTT over successful episodes."""
    delta_vs_lstar_mean: float | None
    best_similarity_mean: float | None
    non_informative_rate: float | None
    """Counted calls with a direct non-informative kind / all counted calls (pooled)."""
    planning_failures: int
    reasoning_failures: int
    gold_step_mean: float | None
    """Mean gold step over episodes that have one."""
    eq_exceeds_states_share: float | None
    monotone_share: float | None
    """Among episodes with at least two EQ hypotheses, the share with strictly growing sizes."""
    myhill_nerode_mean: dict[str, float] | None
    """Per score, the mean over episodes that have a hypothesis."""


def _mean(values: Iterable[float | int | None]) -> float | None:
    kept = [float(v) for v in values if v is not None]
    return statistics.fmean(kept) if kept else None


def _share(flags: Sequence[bool]) -> float | None:
    return sum(flags) / len(flags) if flags else None


def _bucket_label(lo: int, hi: int) -> str:
    return str(lo) if lo == hi else f"{lo}-{hi}"


def _row(
    agent: str,
    lo: int,
    hi: int,
    pairs: Sequence[tuple[DfaTrajectory, DfaEpisodeMetrics]],
    factors: Sequence[float],
) -> DfaAggregateRow:
    # Completed episodes and agent failures (which count as unsuccessful); box and
    # infrastructure failures are not scored (evaluator.failures).
    done = [m for t, m in pairs if scored(t)]
    wins = [m for m in done if m.success]
    steps = [ks for m in done for _, ks in m.non_informative_steps]
    direct = set(DIRECT_KINDS)
    mn_names: list[str] = []
    for m in done:
        for name in m.myhill_nerode or {}:
            if name not in mn_names:
                mn_names.append(name)
    mn_mean = {
        name: v
        for name in mn_names
        if (v := _mean((m.myhill_nerode or {}).get(name) for m in done)) is not None
    }
    return DfaAggregateRow(
        agent=agent,
        bucket=_bucket_label(lo, hi),
        min_states=lo,
        max_states=hi,
        episodes=len(done),
        failed=len(pairs) - len(done),
        successes=len(wins),
        success_rate=_share([m.success for m in done]),
        success_at={
            _factor_key(f): sum(m.success_at.get(_factor_key(f), False) for m in done) / len(done)
            for f in factors
        }
        if done
        else {},
        cost_mean=_mean(m.cost for m in wins),
        mq_mean=_mean(m.mq for m in done),
        eq_mean=_mean(m.eq for m in done),
        delta_vs_ttt_mean=_mean(m.delta_vs_ttt for m in wins),
        delta_vs_lstar_mean=_mean(m.delta_vs_lstar for m in wins),
        best_similarity_mean=_mean(m.best_similarity for m in done),
        non_informative_rate=_share([bool(direct.intersection(ks)) for ks in steps]),
        planning_failures=sum(m.failure == "planning" for m in done),
        reasoning_failures=sum(m.failure == "reasoning" for m in done),
        gold_step_mean=_mean(m.gold_step for m in done),
        eq_exceeds_states_share=_share([m.eq_count_exceeds_states for m in done]),
        monotone_share=_share([m.sizes_monotone for m in done if len(m.hypothesis_sizes) >= 2]),
        myhill_nerode_mean=mn_mean or None,
    )


def aggregate_dfa_metrics(
    trajs: Sequence[DfaTrajectory],
    buckets: Sequence[tuple[int, int]] | None = PAPER_BUCKETS,
    *,
    metrics: Sequence[DfaEpisodeMetrics] | None = None,
    similarity_len: int = DEFAULT_SIMILARITY_LEN,
    factors: Sequence[float] = BUDGET_FACTORS,
) -> list[DfaAggregateRow]:
    """Rows per agent (sorted) x bucket (in the given order) for reports.

    ``buckets`` are inclusive ranges of target state counts; trajectories outside every
    bucket are left out, and a trajectory in two overlapping buckets counts in both.
    ``None`` makes one bucket per state count present. ``metrics`` (parallel to
    ``trajs``) skips recomputing them; otherwise they are computed with the options.
    Empty agent x bucket cells get no row.
    """
    if metrics is None:
        metrics = [
            dfa_episode_metrics(t, similarity_len=similarity_len, factors=factors) for t in trajs
        ]
    if len(metrics) != len(trajs):
        raise ValueError(f"{len(metrics)} metrics for {len(trajs)} trajectories")
    if buckets is None:
        buckets = [(n, n) for n in sorted({t.states for t in trajs})]
    for lo, hi in buckets:
        if lo > hi:
            raise ValueError(f"empty bucket ({lo}, {hi})")
    by_agent: dict[str, list[tuple[DfaTrajectory, DfaEpisodeMetrics]]] = {}
    for t, m in zip(trajs, metrics, strict=True):
        by_agent.setdefault(t.agent, []).append((t, m))
    rows: list[DfaAggregateRow] = []
    for agent in sorted(by_agent):
        for lo, hi in buckets:
            pairs = [(t, m) for t, m in by_agent[agent] if lo <= t.states <= hi]
            if pairs:
                rows.append(_row(agent, lo, hi, pairs, factors))
    return rows
