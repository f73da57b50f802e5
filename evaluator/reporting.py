"""What every kind's summary shares: seeded bootstrap intervals, usage columns, the
failure cell, the suite-seed and usage lines, CSV rows and the look of the tables."""

from __future__ import annotations

import csv
import io
import math
import statistics
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict
from rich import box as rich_box
from rich.table import Table

from evaluator.usage import UsageTotals
from oracle_bench.jsonio import atomic_write_text
from oracle_bench.rng import rng_for

__all__ = [
    "ALL_LEVELS",
    "BOOTSTRAP_RESAMPLES",
    "FAILED_HEADER",
    "FAILED_LEGEND",
    "UsageColumns",
    "bootstrap_ci",
    "ci_text",
    "failed_cell",
    "fmean_finite",
    "fmt",
    "hierarchical_bootstrap_ci",
    "new_table",
    "rnd",
    "rows_csv",
    "run_usage",
    "suite_seed_line",
    "suite_seed_of",
    "title_tail",
    "usage_columns",
    "usage_line",
    "usage_table",
    "write_files",
]

BOOTSTRAP_RESAMPLES = 2000
ALL_LEVELS = "all"
"""The ``level`` (DFA: ``bucket``) of the rows that pool every level of a family."""
_DIGITS = 6


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def suite_seed_of(records: Iterable[Any]) -> int | Literal["secret"] | None:
    """The suite seed the trajectories record (the first one that does)."""
    return next((r.suite_seed for r in records if r.suite_seed is not None), None)


def suite_seed_line(seed: int | Literal["secret"] | None) -> str | None:
    """The line under a run's tables that says whether its suite can be regenerated."""
    if seed is None:
        return None
    if seed == "secret":
        return "suite seed: secret (kept owner-side; nothing an agent sees rebuilds a key)"
    return f"suite seed: {seed}, public: anyone can regenerate these boxes and their keys"


class UsageColumns(_Model):
    """The usage columns shared by every box and group row (turn@shot and DFA)."""

    tokens_mean: float | None = None
    cost_usd_mean: float | None = None
    cost_usd_total: float | None = None
    llm_calls_mean: float | None = None
    retries_total: int = 0


def rnd(value: float | None) -> float | None:
    if value is None or not math.isfinite(value):
        return None
    return round(value, _DIGITS)


def fmean_finite(values: Iterable[float | None]) -> float | None:
    kept = [v for v in values if v is not None and math.isfinite(v)]
    return statistics.fmean(kept) if kept else None


def usage_columns(usages: Iterable[UsageTotals | None]) -> UsageColumns:
    """Per-episode means and totals over the episodes' usage (None: no model called)."""
    kept = [u for u in usages if u is not None]
    if not kept:
        return UsageColumns()
    priced = [u.cost_usd for u in kept if u.cost_usd is not None]
    return UsageColumns(
        tokens_mean=rnd(statistics.fmean(u.tokens for u in kept)),
        cost_usd_mean=rnd(statistics.fmean(priced)) if priced else None,
        cost_usd_total=rnd(math.fsum(priced)) if priced else None,
        llm_calls_mean=rnd(statistics.fmean(u.calls for u in kept)),
        retries_total=sum(u.retries for u in kept),
    )


def usage_line(usage: UsageTotals) -> str | None:
    """``LLM usage: 1,200 call(s), 3,456,789 tokens, $4.1234, 7 retried, 3 replayed from the
    cache``, the one usage line of runs, reports and plays; None when no model was called.
    Calls of models without a price show ``$- (no price)``."""
    if not usage.calls:
        return None
    cost = "$- (no price)" if usage.cost_usd is None else f"${usage.cost_usd:.4f}"
    parts = [f"{usage.calls:,} call(s)", f"{usage.tokens:,} tokens", cost]
    if usage.retries:
        parts.append(f"{usage.retries:,} retried")
    if usage.cached_calls:
        parts.append(f"{usage.cached_calls:,} replayed from the cache")
    return "LLM usage: " + ", ".join(parts)


def run_usage(usages: Iterable[UsageTotals | None]) -> UsageTotals:
    """The sum of every episode's usage (episodes without one add nothing)."""
    total = UsageTotals()
    for u in usages:
        if u is not None:
            total = total + u
    return total


def _percentiles(stats: list[float], resamples: int) -> tuple[float, float]:
    stats.sort()
    return stats[math.floor(0.025 * (resamples - 1))], stats[math.ceil(0.975 * (resamples - 1))]


def hierarchical_bootstrap_ci(
    boxes: Sequence[Sequence[float]],
    seed: int,
    *parts: str | int,
    resamples: int = BOOTSTRAP_RESAMPLES,
) -> tuple[float, float] | None:
    """Seeded 95% two-level percentile bootstrap CI of the mean of box means.

    ``boxes`` holds each box's repetition values (boxes without any are skipped). Each
    resample draws boxes with replacement, then the repetitions of each drawn box with
    replacement (no draw for a one-value box); see the module docstring. None if there is
    no value at all.
    """
    kept = [list(values) for values in boxes if values]
    if not kept:
        return None
    if resamples < 1:
        raise ValueError(f"resamples must be >= 1, got {resamples}")
    lowest = min(min(values) for values in kept)
    highest = max(max(values) for values in kept)
    if len(kept) == 1 and len(kept[0]) == 1:
        return kept[0][0], kept[0][0]
    rng = rng_for(seed, "bootstrap", *parts)
    # ``rng.choices(pool, k=m)`` is ``[pool[floor(random() * float(len(pool)))] ...]`` and
    # ``statistics.fmean(xs)`` is ``math.fsum(xs) / len(xs)``: spelled out, the same draws
    # and the same floats at a fraction of the calls (a summary asks for thousands).
    draw = rng.random
    fsum = math.fsum
    n = len(kept)
    outer = float(n)
    inner = [(values, len(values), float(len(values))) for values in kept]
    stats: list[float] = []
    for _ in range(resamples):
        # The outer draw first, then the inner ones in order: with one value per box the
        # stream is consumed exactly like the plain bootstrap over box values.
        drawn = [inner[int(draw() * outer)] for _ in range(n)]
        means = [
            values[0] if m == 1 else fsum([values[int(draw() * mf)] for _ in range(m)]) / m
            for values, m, mf in drawn
        ]
        stats.append(fsum(means) / n)
    low, high = _percentiles(stats, resamples)
    # A mean of equal floats can land one ulp outside them: clamp (monotone, so low <= high).
    return min(max(low, lowest), highest), min(max(high, lowest), highest)


def bootstrap_ci(
    values: Sequence[float], seed: int, *parts: str | int, resamples: int = BOOTSTRAP_RESAMPLES
) -> tuple[float, float] | None:
    """Seeded 95% percentile bootstrap CI of the mean of ``values`` (None if empty).

    One value per box: :func:`hierarchical_bootstrap_ci` without the inner draw.
    """
    return hierarchical_bootstrap_ci([[v] for v in values], seed, *parts, resamples=resamples)


def _cell(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, list):
        return "; ".join(str(v) for v in value)
    return value


def rows_csv(
    model: type[BaseModel], rows: Iterable[BaseModel], lead: Mapping[str, Any] | None = None
) -> str:
    """Rows of ``model`` as CSV (one header line; lists joined with ``"; "``, None empty).

    ``lead`` columns come first, the same value on every row: the run's defining settings,
    so that the CSVs of several runs stack into one table."""
    first = dict(lead or {})
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=[*first, *model.model_fields], lineterminator="\n")
    writer.writeheader()
    for row in rows:
        cells = {k: _cell(v) for k, v in first.items()}
        cells.update({k: _cell(v) for k, v in row.model_dump().items()})
        writer.writerow(cells)
    return buffer.getvalue()


class _HasUsage(Protocol):
    @property
    def agent(self) -> str: ...

    @property
    def episodes(self) -> int: ...

    @property
    def tokens_mean(self) -> float | None: ...

    @property
    def cost_usd_mean(self) -> float | None: ...

    @property
    def cost_usd_total(self) -> float | None: ...

    @property
    def llm_calls_mean(self) -> float | None: ...

    @property
    def retries_total(self) -> int: ...


def fmt(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def usage_table(
    title: str, rows: Sequence[_HasUsage], label: Callable[[Any], str], label_name: str
) -> Table | None:
    """LLM usage per group row (calls, tokens and dollars per episode, total dollars,
    retries), or None when no row called a model. A table of its own keeps the result
    tables readable in 80 columns."""
    used = [r for r in rows if r.tokens_mean is not None]
    if not used:
        return None
    table = new_table(title)
    table.add_column("agent", overflow="fold")
    table.add_column(label_name, overflow="fold")
    for name in ("episodes", "calls/ep", "tokens/ep", "$/ep", "$ total", "retries"):
        table.add_column(name, justify="right", no_wrap=True, min_width=len(name))
    for r in used:
        table.add_row(
            r.agent,
            label(r),
            str(r.episodes),
            fmt(r.llm_calls_mean, 1),
            fmt(r.tokens_mean, 0),
            "-" if r.cost_usd_mean is None else f"{r.cost_usd_mean:.4f}",
            "-" if r.cost_usd_total is None else f"{r.cost_usd_total:.4f}",
            str(r.retries_total),
        )
    return table


def new_table(title: str) -> Table:
    return Table(
        title=title,
        title_justify="left",
        box=rich_box.SIMPLE_HEAVY,
        pad_edge=False,
        collapse_padding=True,
    )


def ci_text(low: float | None, high: float | None) -> str:
    """A 95% interval as every table prints it: ``[0.62, 0.88]`` (``-`` when there is none)."""
    if low is None or high is None:
        return "-"
    return f"[{low:.2f}, {high:.2f}]"


FAILED_HEADER = "failed a/b/i"
"""The failure column of result tables: agent / box / infrastructure counts."""

FAILED_LEGEND = (
    "failed a/b/i: through the agent (scored 0) / the box (a suite error: the box is left "
    "out for every agent) / infrastructure (not scored; rerun to retry)"
)


class _HasFailures(Protocol):
    @property
    def failed_agent(self) -> int: ...

    @property
    def failed_box(self) -> int: ...

    @property
    def failed_infrastructure(self) -> int: ...


def failed_cell(row: _HasFailures) -> str:
    """``"2/0/1"``: a row's failed episodes by cause (agent/box/infrastructure)."""
    return f"{row.failed_agent}/{row.failed_box}/{row.failed_infrastructure}"


def title_tail(seed: int, bootstrap_seed: int | None) -> str:
    """``seed 7``, or ``seed 7 · bootstrap seed 8`` when a report re-drew the intervals."""
    tail = f"seed {seed}"
    return tail if bootstrap_seed is None else f"{tail} · bootstrap seed {bootstrap_seed}"


def write_files(out_dir: Path, files: Mapping[str, str]) -> list[Path]:
    """Write each ``name: text`` of ``files`` atomically into ``out_dir``; their paths."""
    out = Path(out_dir)
    for name, text in files.items():
        atomic_write_text(out / name, text)
    return [out / name for name in files]
