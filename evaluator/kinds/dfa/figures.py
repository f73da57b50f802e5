"""The agentic-automata-learning paper's figures, as data, from a DFA run's analyses.

Every figure has one series per agent (agents sorted by name) and goes to the report's
``dfa`` section:

- ``dfa-success-by-bucket`` (the paper's Figure 3, left): success rate per state bucket;
- ``dfa-delta-vs-ttt`` (Figure 3, right): (cost - TTT cost) / TTT cost of successful
  episodes per bucket;
- ``dfa-failure-kinds`` (Figure 4): shares of successes, reasoning failures (a passive
  learner recovers the target from the agent's evidence) and planning failures;
- ``dfa-non-informative-by-step`` (Figure 5): share of counted calls at step s that are
  non-informative (a repeated MQ or EQ, an EQ contradicting an MQ answer), unsmoothed;
- ``dfa-success-by-budget-factor`` (Figure 9), ``dfa-calls-by-budget-factor`` and
  ``dfa-usd-by-budget-factor`` (Figure 6): per budget factor of the records (analyses of
  several runs may be passed together; one run gives one point per agent);
- ``dfa-similarity-by-states`` (Figure 7): best-hypothesis similarity per target state
  count, the ``random`` agent being the paper's random-proposal baseline;
- ``dfa-similarity-by-step`` (Figure 8): best similarity so far per counted step;
- ``dfa-context-by-step`` (Figure 10): context tokens (input + cache read + cache write)
  per LLM call.

Rates and means are per box first (over its repetitions), then over boxes; the 95%
intervals are the summary's seeded two-level bootstrap
(:func:`evaluator.reporting.hierarchical_bootstrap_ci`, the plain :func:`bootstrap_ci`
with one repetition per box), seeded with the run's seed. Box and infrastructure
failures are left out; agent failures count as unsuccessful, as in the summary.
"""

from __future__ import annotations

import re
import statistics
from collections import defaultdict
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any

from evaluator.analysis import EpisodeAnalysis, Figure, Series
from evaluator.kinds.dfa.metrics import non_informative_rate_by_step
from evaluator.kinds.dfa.trajectory import DfaTrajectory
from evaluator.reporting import hierarchical_bootstrap_ci

__all__ = ["FIGURE_NAMES", "dfa_figures"]

FIGURE_NAMES: tuple[str, ...] = (
    "dfa-success-by-bucket",
    "dfa-delta-vs-ttt",
    "dfa-failure-kinds",
    "dfa-non-informative-by-step",
    "dfa-success-by-budget-factor",
    "dfa-calls-by-budget-factor",
    "dfa-usd-by-budget-factor",
    "dfa-similarity-by-states",
    "dfa-similarity-by-step",
    "dfa-context-by-step",
)
"""The figures :func:`dfa_figures` returns, in order."""

_SECTION = "dfa"


def _scored(a: EpisodeAnalysis) -> bool:
    return a.status == "completed" or a.failure in (None, "agent")


def _success(a: EpisodeAnalysis) -> float:
    return (a.metrics.get("success") or 0.0) if a.status == "completed" else 0.0


def _bucket_key(label: str) -> tuple[int, str]:
    match = re.match(r"\d+", label)
    return (int(match.group()) if match else 0, label)


def _agents(analyses: Iterable[EpisodeAnalysis]) -> list[str]:
    return sorted({a.agent for a in analyses})


def _by_box(pairs: Iterable[tuple[str, float]]) -> list[list[float]]:
    boxes: dict[str, list[float]] = defaultdict(list)
    for box, value in pairs:
        boxes[box].append(value)
    return [boxes[b] for b in sorted(boxes)]


def _point(
    pairs: Sequence[tuple[str, float]], seed: int, *parts: str | int
) -> tuple[float | None, float | None, float | None]:
    """(mean of box means, CI low, CI high) of (box, value) pairs."""
    boxes = _by_box(pairs)
    if not boxes:
        return None, None, None
    mean = statistics.fmean(statistics.fmean(v) for v in boxes)
    ci = hierarchical_bootstrap_ci(boxes, seed, "dfa-figure", *parts)
    return mean, (ci[0] if ci else None), (ci[1] if ci else None)


def _x(value: Hashable) -> float | str:
    return float(value) if isinstance(value, int | float) else str(value)


def _grouped_series(
    analyses: Sequence[EpisodeAnalysis],
    name: str,
    seed: int,
    x_of: Callable[[EpisodeAnalysis], Hashable],
    value: Callable[[EpisodeAnalysis], float | None],
    order: Callable[[Any], Any] = lambda x: x,
) -> list[Series]:
    """Per agent, one point per x (sorted by ``order``): the mean over boxes of ``value``
    (analyses where it is None are skipped), with its interval."""
    series = []
    for agent in _agents(analyses):
        cells: dict[Hashable, list[tuple[str, float]]] = defaultdict(list)
        for a in analyses:
            if a.agent != agent:
                continue
            v = value(a)
            if v is not None:
                cells[x_of(a)].append((a.box_id, v))
        if not cells:
            continue
        xs = sorted(cells, key=order)
        points = [_point(cells[x], seed, name, agent, str(x)) for x in xs]
        series.append(
            Series(
                label=agent,
                x=[_x(x) for x in xs],
                y=[p[0] for p in points],
                low=[p[1] for p in points],
                high=[p[2] for p in points],
            )
        )
    return series


def _success_or_none(a: EpisodeAnalysis) -> float | None:
    return _success(a) if _scored(a) else None


def _metric(name: str) -> Callable[[EpisodeAnalysis], float | None]:
    def get(a: EpisodeAnalysis) -> float | None:
        return a.metrics.get(name) if _scored(a) else None

    return get


def _success_by_bucket(analyses: Sequence[EpisodeAnalysis], seed: int) -> Figure:
    name = "dfa-success-by-bucket"
    return Figure(
        name=name,
        title="Success rate by target size",
        x_label="states of the minimal target DFA",
        y_label="success rate",
        series=_grouped_series(
            analyses, name, seed, lambda a: a.bucket or "", _success_or_none, _bucket_key
        ),
        y_range=(0.0, 1.0),
        caption="Share of boxes whose hidden DFA the agent identified within the budget "
        "(an accepted equivalence query), per state-count bucket, with 95% intervals.",
        section=_SECTION,
    )


def _delta_vs_ttt(analyses: Sequence[EpisodeAnalysis], seed: int) -> Figure:
    name = "dfa-delta-vs-ttt"
    return Figure(
        name=name,
        title="Tool calls relative to TTT",
        x_label="states of the minimal target DFA",
        y_label="(calls - TTT calls) / TTT calls",
        series=_grouped_series(
            analyses, name, seed, lambda a: a.bucket or "", _metric("delta_vs_ttt"), _bucket_key
        ),
        caption="Successful episodes only: above zero the agent used more calls than TTT "
        "on the same box, below zero fewer.",
        section=_SECTION,
    )


_OUTCOMES = (
    ("success", "success"),
    ("reasoning failure", "reasoning_failure"),
    ("planning failure", "planning_failure"),
)


def _failure_kinds(analyses: Sequence[EpisodeAnalysis]) -> Figure:
    done = [a for a in analyses if _scored(a)]
    agents = _agents(done)
    series = []
    for label, key in _OUTCOMES:
        ys: list[float | None] = []
        for agent in agents:
            mine = [a for a in done if a.agent == agent]
            if key == "success":
                hits = sum(_success(a) for a in mine)
            else:
                hits = sum(1.0 for a in mine if a.metrics.get(key) and not _success(a))
            ys.append(hits / len(mine))
        if agents:
            series.append(Series(label=label, x=list(agents), y=ys))
    return Figure(
        name="dfa-failure-kinds",
        title="Successes, reasoning and planning failures",
        x_label="agent",
        y_label="share of episodes",
        chart="bar",
        series=series,
        y_range=(0.0, 1.0),
        caption="A failure is a reasoning failure when RPNI, EDSM or Blue-Fringe recovers "
        "the target from the agent's evidence (it had the information), else a planning "
        "failure (it did not gather it).",
        section=_SECTION,
    )


def _non_informative_by_step(
    analyses: Sequence[EpisodeAnalysis], records: Sequence[DfaTrajectory]
) -> Figure:
    series = []
    for agent in _agents(analyses):
        mine = [
            r for a, r in zip(analyses, records, strict=True) if a.agent == agent and _scored(a)
        ]
        rates = non_informative_rate_by_step(mine)
        if rates:
            series.append(
                Series(label=agent, x=[float(s) for s, _, _ in rates], y=[r for _, r, _ in rates])
            )
    return Figure(
        name="dfa-non-informative-by-step",
        title="Non-informative queries by step",
        x_label="counted call",
        y_label="share non-informative",
        series=series,
        y_range=(0.0, 1.0),
        caption="Share of the episodes reaching call s whose call s repeats an MQ, repeats "
        "an EQ hypothesis or proposes a DFA that contradicts an MQ answer (unsmoothed; late "
        "steps rest on few episodes).",
        section=_SECTION,
    )


def _by_factor(
    analyses: Sequence[EpisodeAnalysis],
    factors: Sequence[float],
    name: str,
    seed: int,
    value: Callable[[EpisodeAnalysis], float | None],
) -> list[Series]:
    factor_of = {id(a): f for a, f in zip(analyses, factors, strict=True)}
    return _grouped_series(analyses, name, seed, lambda a: factor_of[id(a)], value)


def _usd(a: EpisodeAnalysis) -> float | None:
    return a.metrics.get("cost_usd") if _scored(a) else None


def _budget_figures(
    analyses: Sequence[EpisodeAnalysis], records: Sequence[DfaTrajectory], seed: int
) -> list[Figure]:
    factors = [r.budget_factor for r in records]
    success = _by_factor(analyses, factors, "dfa-success-by-budget-factor", seed, _success_or_none)
    calls = _by_factor(analyses, factors, "dfa-calls-by-budget-factor", seed, _metric("calls"))
    usd = _by_factor(analyses, factors, "dfa-usd-by-budget-factor", seed, _usd)
    x_label = "budget factor (budget = factor x min(L*, TTT) calls)"
    return [
        Figure(
            name="dfa-success-by-budget-factor",
            title="Success rate by budget factor",
            x_label=x_label,
            y_label="success rate",
            series=success,
            y_range=(0.0, 1.0),
            caption="Each run's budget factor as recorded; runs with several factors give "
            "a curve, one run one point per agent.",
            section=_SECTION,
        ),
        Figure(
            name="dfa-calls-by-budget-factor",
            title="Tool calls by budget factor",
            x_label=x_label,
            y_label="counted calls per episode",
            series=calls,
            caption="Mean counted (budget-consuming) calls per episode, successful or not.",
            section=_SECTION,
        ),
        Figure(
            name="dfa-usd-by-budget-factor",
            title="Cost by budget factor",
            x_label=x_label,
            y_label="US dollars per episode",
            series=usd,
            caption="Mean provider cost per LLM episode, from the pricing table."
            if usd
            else "No priced LLM episode in these runs: nothing to plot.",
            section=_SECTION,
        ),
    ]


def _similarity_by_states(analyses: Sequence[EpisodeAnalysis], seed: int) -> Figure:
    name = "dfa-similarity-by-states"
    return Figure(
        name=name,
        title="Best-hypothesis similarity by target size",
        x_label="states of the minimal target DFA",
        y_label="best hypothesis similarity",
        series=_grouped_series(
            analyses, name, seed, lambda a: a.metrics.get("states"), _metric("best_similarity")
        ),
        y_range=(0.0, 1.0),
        caption="Highest similarity to the target (share of words up to length K on which "
        "they agree) over the agent's equivalence queries; the random agent proposes "
        "hypotheses built from random words.",
        section=_SECTION,
    )


def _best_so_far(a: EpisodeAnalysis) -> list[float | None]:
    """Per counted step, the best similarity of the hypotheses proposed up to it."""
    out: list[float | None] = []
    best: float | None = None
    for step in a.steps:
        if not step.counted:
            continue
        if step.similarity is not None:
            best = step.similarity if best is None else max(best, step.similarity)
        out.append(best)
    return out


def _similarity_by_step(analyses: Sequence[EpisodeAnalysis]) -> Figure:
    series = []
    for agent in _agents(analyses):
        curves = [_best_so_far(a) for a in analyses if a.agent == agent and _scored(a)]
        length = max((len(c) for c in curves), default=0)
        xs: list[float | str] = []
        ys: list[float | None] = []
        for i in range(length):
            # An episode that ended keeps its last value: a success stays at 1.
            values = [c[min(i, len(c) - 1)] for c in curves if c]
            kept = [v for v in values if v is not None]
            if kept:
                xs.append(float(i + 1))
                ys.append(statistics.fmean(kept))
        if xs:
            series.append(Series(label=agent, x=xs, y=ys))
    return Figure(
        name="dfa-similarity-by-step",
        title="Best hypothesis similarity by step",
        x_label="counted call",
        y_label="best similarity so far",
        series=series,
        y_range=(0.0, 1.0),
        caption="Mean over episodes of the best similarity of the hypotheses proposed up "
        "to call s (episodes before their first equivalence query are left out; ended "
        "episodes keep their last value).",
        section=_SECTION,
    )


def _context_tokens(record: DfaTrajectory) -> list[int]:
    return [c.input_tokens + c.cache_read_tokens + c.cache_write_tokens for c in record.llm_calls]


def _context_by_step(
    analyses: Sequence[EpisodeAnalysis], records: Sequence[DfaTrajectory]
) -> Figure:
    series = []
    for agent in _agents(analyses):
        runs = [
            _context_tokens(r)
            for a, r in zip(analyses, records, strict=True)
            if a.agent == agent and r.llm_calls
        ]
        length = max((len(t) for t in runs), default=0)
        if not length:
            continue
        xs: list[float | str] = []
        ys: list[float | None] = []
        for i in range(length):
            values = [t[i] for t in runs if i < len(t)]
            xs.append(float(i + 1))
            ys.append(statistics.fmean(values))
        series.append(Series(label=agent, x=xs, y=ys))
    return Figure(
        name="dfa-context-by-step",
        title="Context size by LLM call",
        x_label="LLM call",
        y_label="context tokens (input + cache)",
        series=series,
        caption="Mean context tokens the model read per call (input, cache read and cache "
        "write), re-asks included, over the episodes reaching that call."
        if series
        else "No agent of these runs called a model: nothing to plot.",
        section=_SECTION,
    )


def dfa_figures(analyses: Sequence[EpisodeAnalysis], records: Sequence[Any]) -> list[Figure]:
    """The DFA figures (:data:`FIGURE_NAMES`, module docstring) of ``analyses`` and
    their ``records`` (parallel :class:`DfaTrajectory` values, possibly of several runs)."""
    if len(analyses) != len(records):
        raise ValueError(f"{len(analyses)} analyses for {len(records)} records")
    trajs: list[DfaTrajectory] = list(records)
    seed = trajs[0].seed if trajs else 0
    return [
        _success_by_bucket(analyses, seed),
        _delta_vs_ttt(analyses, seed),
        _failure_kinds(analyses),
        _non_informative_by_step(analyses, trajs),
        *_budget_figures(analyses, trajs, seed),
        _similarity_by_states(analyses, seed),
        _similarity_by_step(analyses),
        _context_by_step(analyses, trajs),
    ]
