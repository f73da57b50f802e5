"""Evaluate a suite: boxes x agents x repetitions, concurrent, resumable and cost-aware.

Layout of ``out_dir``::

    trajectories/<box>__<agent>__r<rep>.json   one per episode, written atomically when it ends
    run.json                                   RunManifest: arguments, versions, digests, usage
    index.json                                 one row per job: file, status, score, tokens, $
    summary.json, summary.csv                  aggregates (see evaluator.summary)
    .cache/calls.sqlite                        LLM call cache (runs with LLM agents)

The job list is every (box, agent, repetition) in suite order, then agent order, then
repetition; ``shard=(i, n)`` keeps the jobs at positions p with ``p % n == i - 1``, and
names the run's own files ``run.shard-<i>-of-<n>.json``, ``index.shard-...``,
``summary.shard-...`` so that shards can share one directory (``oracle-eval report``
merges the trajectories).

Jobs run ``concurrency`` at a time (asyncio with a thread per episode, see
``evaluator._schedule``); sandbox workers come from a pool of ``workers`` (default
``concurrency``) shared by all boxes (``evaluator._pool``). LLM agents (``provider/model``)
share the provider bound ``max_per_provider``, the call cache and one
:class:`~evaluator.usage.RunBudget`; each episode's calls are made in
``providers.call_scope("<box>/<agent>/r<rep>")``.

Resume: rerunning with the same arguments skips every episode whose trajectory exists,
validates, completed, and matches the job (box digest, agent, spec, feedback, seed,
repetition, DFA budget factor); everything else reruns. Settings that trajectories do not
record (``--invalid-turns``, ``--max-reasks``, the LLM protocol, history and model
options) are kept in the manifest, and a directory made with other values is refused
(:class:`UsageError`) rather than mixed. An episode that crashes (agent error, provider
error after retries, a box that cannot start) is recorded failed with its error and the
run goes on.

Budget: ``max_cost``/``max_tokens`` cap the job list's finished episodes plus this run's
calls: the budget starts from the usage recorded in the reusable trajectories, so the
cap holds for the run directory across resumes (with a shard, for the shard's jobs).
When it is spent no episode starts, episodes in flight stop at their next LLM call
(unrecorded; their finished calls are replayed free from the call cache on resume), the
summary covers what finished, and ``RunResult.stopped``/``RunManifest.stopped`` say why.
Ctrl-C does the same and then raises ``KeyboardInterrupt``.

A suite whose family is ``DFA`` runs DFA episodes instead (``evaluator.dfa_protocol``):
no turn@shot spec or feedback mode, a budget factor instead, DFA agents (``lstar``,
``kv``, ``ttt``, or LLM agents), :class:`~evaluator.dfa_trajectory.DfaTrajectory` files
in the same layout and a :class:`~evaluator.dfa_summary.DfaSummary`. The box's code
answers membership queries in its sandbox worker; equivalence queries are answered from
hidden.json.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import logging
import os
import re
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from blackboxes.box import SuiteInfo
from blackboxes.families import Family, family_for_box
from blackboxes.store import Box, load_box, load_suite
from evaluator._pool import BoxWorkerPool, PooledBox, start_sandbox_worker
from evaluator._run_folder import RunDefinition, claim_folder, episode_settings, lock_name
from evaluator._schedule import run_jobs
from evaluator._solutions import SandboxSolutions
from evaluator.agents import AgentContext, check_agent_name, make_agent
from evaluator.dfa_metrics import (
    DEFAULT_SIMILARITY_LEN,
    check_similarity_len,
    dfa_episode_metrics,
)
from evaluator.dfa_protocol import (
    DEFAULT_BUDGET_FACTOR,
    DEFAULT_MAX_INVALID_STREAK,
    DfaAgentContext,
    box_target,
    check_budget_factor,
    check_dfa_agent_name,
    dfa_intro,
    episode_budget,
    failed_dfa_trajectory,
    make_dfa_agent,
    run_dfa_episode,
)
from evaluator.dfa_summary import (
    DEFAULT_BUCKETS,
    Bucket,
    DfaSummary,
    format_buckets,
    summarise_dfa,
    write_dfa_summary,
)
from evaluator.dfa_trajectory import DfaTrajectory, load_dfa_trajectory, save_dfa_trajectory
from evaluator.failures import FAILURE_CAUSES, FailureCause, cause_of, retried_on_resume
from evaluator.protocol import DEFAULT_MAX_REASKS, EpisodeContext, failed_trajectory, run_episode
from evaluator.spec import FeedbackMode, TurnShot, parse_feedback
from evaluator.summary import Summary, summarise, write_summary
from evaluator.trajectory import (
    CorruptTrajectoryError,
    Trajectory,
    load_trajectory,
    save_trajectory,
)
from evaluator.usage import BudgetExhausted, LlmCallRecord, RunBudget, UsageTotals, check_priced
from oracle_bench import __version__
from oracle_bench.errors import CorruptBoxError, EvaluationError, OracleBenchError, UsageError
from oracle_bench.jsonio import atomic_write_text, canonical_json, sha256_hex
from oracle_bench.lock import FolderLock
from oracle_bench.rng import rng_for

if TYPE_CHECKING:
    from evaluator.llm_agents import LlmAgentSettings, ProviderPool
    from providers import CallCache, RetryEvent
    from sandbox import SandboxLimits

__all__ = [
    "DFA_FAMILY",
    "INVALID_TURNS_MODES",
    "EpisodeJob",
    "IndexRow",
    "InvalidTurns",
    "LlmArguments",
    "ProgressEvent",
    "RetryProgress",
    "RunArguments",
    "RunEvent",
    "RunIndex",
    "RunManifest",
    "RunResult",
    "UsageProgress",
    "evaluate_suite",
    "is_dfa_suite",
    "job_list",
    "parse_shard",
    "shard_suffix",
    "trajectory_path",
]

log = logging.getLogger(__name__)

DFA_FAMILY = "DFA"
"""Beyond this K the big-integer counts only cost time: the score no longer moves."""
InvalidTurns = Literal["count", "free"]
INVALID_TURNS_MODES: tuple[InvalidTurns, ...] = ("count", "free")
CACHE_FILE = Path(".cache") / "calls.sqlite"


def is_dfa_suite(suite: SuiteInfo) -> bool:
    """True for a suite of DFA boxes (MQ/EQ episodes rather than turn@shot)."""
    return suite.family.upper() == DFA_FAMILY


@dataclass(frozen=True)
class EpisodeJob:
    box_id: str
    agent: str
    repetition: int

    @property
    def scope(self) -> str:
        """The call-cache scope of the episode: ``<box>/<agent>/r<rep>``."""
        return f"{self.box_id}/{self.agent}/r{self.repetition}"


# -- progress events ---------------------------------------------------------------


@dataclass(frozen=True)
class ProgressEvent:
    """After every episode: run, skipped (already done) or interrupted (budget, Ctrl-C)."""

    done: int
    """Jobs settled so far (an interrupted one counts: it will not finish in this run)."""
    total: int
    job: EpisodeJob
    action: Literal["ran", "skipped", "interrupted"]
    status: Literal["completed", "failed"] | None
    """None for an interrupted episode (nothing was written)."""
    tokens: int = 0
    """Tokens this invocation has spent so far (all episodes)."""
    cost_usd: float = 0.0
    """Dollars this invocation has spent so far."""
    error: str | None = None


@dataclass(frozen=True)
class UsageProgress:
    """After every paid LLM call (from the episode's thread): this invocation's spend."""

    tokens: int
    cost_usd: float
    calls: int


@dataclass(frozen=True)
class RetryProgress:
    """A provider call is backing off (from the episode's thread) before trying again."""

    provider: str
    attempt: int
    wait_s: float
    reason: str
    scope: str
    """The episode waiting (``<box>/<agent>/r<rep>``)."""


RunEvent = ProgressEvent | UsageProgress | RetryProgress
"""What a run's ``progress`` callback receives; baseline-only runs send ProgressEvents only."""


# -- on-disk records ---------------------------------------------------------------


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class LlmArguments(_Model):
    """The LLM agents' settings of a run (the ones that shape episodes come first)."""

    options: dict[str, Any] = Field(default_factory=dict)
    protocol: str
    history: str
    """``full`` or the number of past exchanges kept."""
    max_reasks: int
    base_url: str | None = None
    base_urls: dict[str, str] = Field(default_factory=dict)
    timeout: float | None = None
    max_per_provider: int | None = None


class RunArguments(_Model):
    suite_dir: str
    agents: list[str]
    spec: str | None
    """None for a DFA suite."""
    feedback: str | None
    seed: int
    repeats: int
    out_dir: str
    budget_factor: float | None = None
    """DFA suites only."""
    buckets: str | None = None
    """DFA suites only: the summary's state buckets, e.g. ``2-3,4-5,6-7,8-9``."""
    similarity_len: int | None = None
    """DFA suites only: K of the best-hypothesis similarity (words of length <= K)."""
    invalid_turns: InvalidTurns | None = None
    """Turn@shot suites: ``count`` (ORACLE: an invalid reply costs its turn) or ``free``."""
    max_reasks: int | None = None
    """Turn@shot suites: re-asks per turn with free invalid replies."""
    llm: LlmArguments | None = None
    """None when no LLM agent runs."""
    concurrency: int = 1
    workers: int | None = None
    shard: str | None = None
    """``i/n`` or None."""
    max_cost: float | None = None
    max_tokens: int | None = None


class RunManifest(_Model):
    """run.json (``run.shard-<i>-of-<n>.json``): what was run, on what, with which tool."""

    schema_version: int = 2
    tool_version: str
    arguments: RunArguments
    config_digest: str
    """SHA-256 of the canonical JSON of what defines the results: the suite (name and
    suite.json digest), agents, spec, feedback, seed, repeats, DFA settings, invalid-turn
    settings and the LLM options, protocol, history and re-asks. Not concurrency,
    workers, shard, paths, base URL, timeout or budgets."""
    suite: str
    suite_json_sha256: str
    box_digests: dict[str, str]
    started: str
    finished: str
    duration_s: float
    episodes: int
    """Finished episodes of the job list (skipped + executed)."""
    jobs: int = 0
    """Jobs in this invocation's job list."""
    executed: int
    skipped: int
    failed: int
    failures: dict[str, int] = Field(default_factory=dict)
    """Failed episodes by cause (``agent``, ``box``, ``infrastructure``; see
    :mod:`evaluator.failures`)."""
    pending: int = 0
    """Jobs not finished (stopped by the budget or Ctrl-C)."""
    usage: UsageTotals = Field(default_factory=UsageTotals)
    """Sums over the finished episodes' LLM calls (the whole job list, not just this run)."""
    stopped: str | None = None
    """Why the run stopped before the end (budget, interrupted); None when it finished."""


class IndexRow(_Model):
    box: str
    agent: str
    repetition: int
    file: str | None
    """Relative to the run directory; None while the episode is pending."""
    status: Literal["completed", "failed", "pending"]
    score: float | None
    """Accuracy (turn@shot) or 1/0 for DFA success; None for a failed or pending episode."""
    tokens: int | None
    cost_usd: float | None
    error: str | None
    failure: FailureCause | None = None
    """Why a failed episode failed (``agent``, ``box``, ``infrastructure``)."""


class RunIndex(_Model):
    """index.json: one row per job of the invocation's job list, in job order."""

    schema_version: int = 1
    config_digest: str
    shard: str | None
    rows: list[IndexRow]


@dataclass(frozen=True)
class RunResult:
    out_dir: Path
    summary: Summary | DfaSummary
    """A :class:`DfaSummary` for a DFA suite; over the finished episodes."""
    manifest: RunManifest
    trajectories: tuple[Path, ...]
    """The finished episodes' files, in job order."""

    @property
    def executed(self) -> int:
        return self.manifest.executed

    @property
    def skipped(self) -> int:
        return self.manifest.skipped

    @property
    def failed(self) -> int:
        return self.manifest.failed

    @property
    def pending(self) -> int:
        return self.manifest.pending

    @property
    def stopped(self) -> str | None:
        return self.manifest.stopped

    @property
    def usage(self) -> UsageTotals:
        return self.manifest.usage


_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def trajectory_path(out_dir: Path, job: EpisodeJob) -> Path:
    """``<out>/trajectories/<box>__<agent>__r<rep>.json`` (agent made file-name safe)."""
    agent = _UNSAFE.sub("-", job.agent)
    return Path(out_dir) / "trajectories" / f"{job.box_id}__{agent}__r{job.repetition}.json"


def parse_shard(text: str) -> tuple[int, int]:
    """``"2/4"`` -> ``(2, 4)``; :class:`UsageError` unless ``1 <= i <= n``."""
    match = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text)
    if match is None:
        raise UsageError(f"invalid --shard {text!r}: expected i/n, e.g. 1/4")
    i, n = int(match[1]), int(match[2])
    if n < 1 or not 1 <= i <= n:
        raise UsageError(f"invalid --shard {text!r}: need 1 <= i <= n")
    return i, n


def shard_suffix(shard: tuple[int, int] | None) -> str:
    """``""`` or ``".shard-<i>-of-<n>"`` (inserted before a run file's extension)."""
    return "" if shard is None else f".shard-{shard[0]}-of-{shard[1]}"


def job_list(
    box_ids: Sequence[str],
    agents: Sequence[str],
    repeats: int,
    shard: tuple[int, int] | None = None,
) -> list[EpisodeJob]:
    """Boxes x agents x repetitions in order; a shard keeps positions ``p % n == i - 1``."""
    jobs = [
        EpisodeJob(box_id, agent, rep)
        for box_id in box_ids
        for agent in agents
        for rep in range(repeats)
    ]
    if shard is None:
        return jobs
    i, n = shard
    return [job for p, job in enumerate(jobs) if p % n == i - 1]


_T = TypeVar("_T")


def _stored(path: Path, load: Callable[[Path], _T]) -> _T | None:
    """The record at ``path``, or None if there is none or it is corrupt (then rerun)."""
    if not path.exists():
        return None
    try:
        return load(path)
    except CorruptTrajectoryError as exc:
        log.warning("rerunning episode: %s", exc)
        return None


def _reusable(path: Path, box: Box, ctx: EpisodeContext) -> Trajectory | None:
    """The stored trajectory if it is a final record of exactly this job: completed, or
    failed for a cause a rerun would not change (agent, box; see evaluator.failures)."""
    traj = _stored(path, load_trajectory)
    if traj is None:
        return None
    same = (
        not retried_on_resume(traj.status, traj.failure)
        and traj.box_id == box.info.id
        and traj.box_digest == box.digest
        and traj.agent == ctx.agent_name
        and (traj.spec.turns, traj.spec.shots) == (ctx.spec.turns, ctx.spec.shots)
        and traj.feedback == ctx.feedback
        and traj.seed == ctx.seed
        and traj.repetition == ctx.repetition
    )
    return traj if same else None


def _reusable_dfa(
    path: Path, box: Box, agent: str, seed: int, repetition: int, budget_factor: float
) -> DfaTrajectory | None:
    """The stored DFA trajectory if it is a final record of exactly this job (as
    :func:`_reusable`)."""
    traj = _stored(path, load_dfa_trajectory)
    if traj is None:
        return None
    same = (
        not retried_on_resume(traj.status, traj.failure)
        and traj.box_id == box.info.id
        and traj.box_digest == box.digest
        and traj.agent == agent
        and traj.seed == seed
        and traj.repetition == repetition
        and traj.budget_factor == budget_factor
    )
    return traj if same else None


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def _is_llm(name: str) -> bool:
    if "/" not in name:
        return False
    from evaluator.llm_agents import is_llm_agent

    return is_llm_agent(name)


def _close_agent(agent: object) -> None:
    close = getattr(agent, "close", None)
    if close is None:
        return
    try:
        close()
    except Exception as exc:  # closing must not turn a finished episode into a failure
        log.warning("closing agent failed: %s: %s", type(exc).__name__, exc)


def _history_text(value: Any) -> str:
    return "full" if value is None or value == "full" else str(value)


# -- the run budget ----------------------------------------------------------------


class _Budget(RunBudget):
    """The run's budget, which also stops agents on Ctrl-C and reports each paid call."""

    def __init__(
        self,
        *,
        max_cost: float | None,
        max_tokens: int | None,
        spent_cost: float,
        spent_tokens: int,
        on_charge: Callable[[UsageProgress], None] | None,
    ) -> None:
        super().__init__(
            max_cost=max_cost,
            max_tokens=max_tokens,
            spent_cost=spent_cost,
            spent_tokens=spent_tokens,
        )
        self._seed = (spent_cost, spent_tokens)
        self._stop: str | None = None
        self._calls = 0
        self._count_lock = threading.Lock()
        self._on_charge = on_charge

    def stop(self, reason: str) -> None:
        """Every later :meth:`check` raises (agents stop at their next call)."""
        self._stop = reason

    def check(self) -> None:
        if self._stop is not None:
            raise BudgetExhausted(self._stop)
        super().check()

    def charge(self, record: LlmCallRecord) -> None:
        super().charge(record)
        if record.cached:
            return
        with self._count_lock:
            self._calls += 1
            calls = self._calls
        if self._on_charge is not None:
            tokens, cost = self.spent_here()
            self._on_charge(UsageProgress(tokens=tokens, cost_usd=cost, calls=calls))

    def spent_here(self) -> tuple[int, float]:
        """(tokens, dollars) charged by this invocation."""
        return self.tokens - self._seed[1], round(self.cost - self._seed[0], 10)

    def spent_reason(self) -> str | None:
        """Why no episode may start (a cap reached), else None."""
        try:
            super().check()
        except BudgetExhausted as exc:
            return str(exc)
        return None


# -- evaluate_suite ------------------------------------------------------------------


def evaluate_suite(
    suite_dir: Path,
    agents: Sequence[str],
    spec: TurnShot | None,
    feedback: FeedbackMode | None,
    seed: int,
    out_dir: Path,
    repeats: int = 1,
    progress: Callable[[RunEvent], None] | None = None,
    limits: SandboxLimits | None = None,
    *,
    budget_factor: float | None = None,
    buckets: Sequence[Bucket] | None = None,
    similarity_len: int | None = None,
    concurrency: int = 1,
    workers: int | None = None,
    shard: tuple[int, int] | None = None,
    llm: LlmAgentSettings | None = None,
    invalid_turns: InvalidTurns | None = None,
    max_reasks: int | None = None,
    max_cost: float | None = None,
    max_tokens: int | None = None,
) -> RunResult:
    """Run every (box, agent, repetition) episode of a suite that is not already done.

    Turn@shot suites need ``spec`` (``feedback`` defaults to instant; ``invalid_turns``
    to ``count``, ``max_reasks`` to 2) and refuse ``budget_factor``/``buckets``; DFA
    suites refuse ``spec``, ``feedback`` and ``invalid_turns`` and take
    ``budget_factor`` (default 2), ``buckets`` (the summary's state ranges) and
    ``similarity_len`` (K of the best-hypothesis similarity, default 200). Agent names
    are checked against the suite's kind of episode; LLM agents (``provider/model``) use
    ``llm`` (default settings when None) and are preflighted before any work.
    ``concurrency`` episodes run at once on at most ``workers`` sandbox workers;
    ``shard=(i, n)`` runs every n-th job; ``max_cost``/``max_tokens`` cap LLM usage (see
    the module docstring). ``progress`` gets :data:`RunEvent` values, possibly from
    worker threads. Runs ``asyncio.run`` inside: call it outside any event loop.

    Raises :class:`UsageError` for bad arguments and ``BoxError`` for a missing,
    corrupt or tampered suite; an episode's own failure is recorded, never raised.
    ``KeyboardInterrupt`` propagates after the summary and manifest are written.
    """
    if repeats < 1:
        raise UsageError(f"invalid repeats {repeats}: must be >= 1")
    if not agents:
        raise UsageError("no agent given")
    if concurrency < 1:
        raise UsageError(f"invalid --concurrency {concurrency}: must be >= 1")
    if workers is not None and workers < 1:
        raise UsageError(f"invalid --workers {workers}: must be >= 1")
    if shard is not None:
        parse_shard(f"{shard[0]}/{shard[1]}")
    if max_reasks is not None and max_reasks < 0:
        raise UsageError(f"invalid --max-reasks {max_reasks}: must be >= 0")
    if invalid_turns is not None and invalid_turns not in INVALID_TURNS_MODES:
        raise UsageError(f"invalid --invalid-turns {invalid_turns!r}: use count or free")
    RunBudget(max_cost=max_cost, max_tokens=max_tokens)  # validates the caps
    if feedback is not None:
        feedback = parse_feedback(feedback)
    if budget_factor is not None:
        budget_factor = check_budget_factor(budget_factor)
    if similarity_len is not None:
        check_similarity_len(similarity_len)
    suite_dir, out_dir = Path(suite_dir), Path(out_dir)
    suite = load_suite(suite_dir)
    dfa = is_dfa_suite(suite)
    if dfa:
        if spec is not None:
            raise UsageError(
                f"suite {suite.name} is a DFA suite: it takes no TURNS@SHOTS spec "
                "(its budget is --budget-factor x the box's reference cost)"
            )
        if feedback is not None:
            raise UsageError(f"suite {suite.name} is a DFA suite: it takes no feedback mode")
        if invalid_turns is not None:
            raise UsageError(
                f"suite {suite.name} is a DFA suite: --invalid-turns does not apply "
                "(invalid DFA calls are always free)"
            )
        check_name: Callable[[str], str] = check_dfa_agent_name
    else:
        if spec is None:
            raise UsageError(f"suite {suite.name} needs a TURNS@SHOTS spec, e.g. 10@1")
        if budget_factor is not None or buckets is not None or similarity_len is not None:
            raise UsageError(
                "--budget-factor, --buckets and --similarity-len apply to DFA suites only; "
                f"suite {suite.name} is {suite.family}"
            )
        check_name = check_agent_name
    agents = list(agents)
    if len(set(agents)) != len(agents):
        raise UsageError(f"agent listed twice: {', '.join(agents)}")
    llm_names = [a for a in agents if _is_llm(a)]
    settings: LlmAgentSettings | None = None
    if llm_names:
        from evaluator.llm_agents import LlmAgentSettings, check_llm_agent

        settings = llm if llm is not None else LlmAgentSettings()
        for name in llm_names:
            check_llm_agent(name, settings)  # preflight: ProviderConfigError (a UsageError)
        if max_cost is not None:
            check_priced(llm_names)
    agents = [a if a in llm_names else check_name(a) for a in agents]
    boxes = [load_box(suite_dir, entry) for entry in suite.boxes]
    run = _Run(
        suite_dir=suite_dir,
        out_dir=out_dir,
        suite=suite,
        boxes=boxes,
        agents=agents,
        llm_names=frozenset(llm_names),
        seed=seed,
        repeats=repeats,
        progress=progress,
        limits=limits,
        concurrency=concurrency,
        workers=workers if workers is not None else concurrency,
        shard=shard,
        settings=settings,
        max_cost=max_cost,
        max_tokens=max_tokens,
    )
    if dfa:
        factor = DEFAULT_BUDGET_FACTOR if budget_factor is None else budget_factor
        k = DEFAULT_SIMILARITY_LEN if similarity_len is None else similarity_len
        return run.go(
            _DfaKind(run, factor, tuple(DEFAULT_BUCKETS if buckets is None else buckets), k)
        )
    if spec is None:  # pragma: no cover - refused above
        raise UsageError("a TURNS@SHOTS spec is required")
    return run.go(
        _TurnsKind(
            run,
            spec,
            feedback or "instant",
            invalid_turns or "count",
            DEFAULT_MAX_REASKS if max_reasks is None else max_reasks,
        )
    )


# -- one run -------------------------------------------------------------------------


@dataclass(frozen=True)
class _Outcome:
    job: EpisodeJob
    record: Any
    """The written trajectory; None when interrupted."""
    action: Literal["ran", "skipped", "interrupted"]
    error: str | None = None


class _Kind(Protocol):
    """What differs between turn@shot and DFA episodes."""

    def arguments(self) -> dict[str, Any]: ...

    def reusable(self, path: Path, box: Box, job: EpisodeJob) -> Any: ...

    def cannot_start(self, box: Box, job: EpisodeJob, error: str, failure: FailureCause) -> Any: ...

    def play(self, box: Box, job: EpisodeJob, env: Any) -> Any: ...

    def save(self, record: Any, path: Path) -> None: ...

    def score(self, record: Any) -> float | None: ...

    def summarise(self, records: list[Any], paths: list[Path], out_dir: Path) -> Any:
        """Build the summary and write it (summary.json, .csv... into ``out_dir``)."""
        ...


@dataclass
class _Run:
    suite_dir: Path
    out_dir: Path
    suite: SuiteInfo
    boxes: list[Box]
    agents: list[str]
    llm_names: frozenset[str]
    seed: int
    repeats: int
    progress: Callable[[RunEvent], None] | None
    limits: SandboxLimits | None
    concurrency: int
    workers: int
    shard: tuple[int, int] | None
    settings: LlmAgentSettings | None
    max_cost: float | None
    max_tokens: int | None
    budget: _Budget | None = None
    all_settings: dict[str, Any] = field(default_factory=dict)
    """The run's episode settings by flag (``episode_settings``), set by ``go``."""

    def emit(self, event: RunEvent) -> None:
        if self.progress is not None:
            self.progress(event)

    def llm_settings(self) -> LlmAgentSettings:
        if self.settings is None:  # pragma: no cover - set whenever an LLM agent runs
            raise UsageError("no LLM settings")
        return self.settings

    # -- manifest arguments ----------------------------------------------------------
    def arguments(self, kind: _Kind) -> RunArguments:
        llm_args = None
        if self.settings is not None:
            s = self.settings
            llm_args = LlmArguments(
                options=dict(getattr(s, "options", None) or {}),
                protocol=str(getattr(s, "protocol", "tools")),
                history=_history_text(getattr(s, "history", None)),
                max_reasks=int(getattr(s, "max_reasks", DEFAULT_MAX_REASKS)),
                base_url=getattr(s, "base_url", None),
                base_urls=dict(getattr(s, "base_urls", None) or {}),
                timeout=getattr(s, "timeout", None),
                max_per_provider=getattr(s, "max_per_provider", None),
            )
        return RunArguments(
            suite_dir=str(self.suite_dir),
            agents=list(self.agents),
            seed=self.seed,
            repeats=self.repeats,
            out_dir=str(self.out_dir),
            llm=llm_args,
            concurrency=self.concurrency,
            workers=self.workers,
            shard=None if self.shard is None else f"{self.shard[0]}/{self.shard[1]}",
            max_cost=self.max_cost,
            max_tokens=self.max_tokens,
            **kind.arguments(),
        )

    def config_digest(self, arguments: RunArguments, suite_sha: str) -> str:
        data = arguments.model_dump(
            mode="json",
            exclude={
                "suite_dir",
                "out_dir",
                "concurrency",
                "workers",
                "shard",
                "max_cost",
                "max_tokens",
            },
        )
        if data.get("llm") is not None:
            for key in ("base_url", "base_urls", "timeout", "max_per_provider"):
                data["llm"].pop(key, None)
        data["suite"] = self.suite.name
        data["suite_json_sha256"] = suite_sha
        return sha256_hex(canonical_json(data))

    def job_record(self, job: EpisodeJob) -> dict[str, Any]:
        """What the runner adds to every trajectory it writes: the settings that shaped it
        and whether the suite's seed is public."""
        seed = self.suite.seed
        return {
            "settings": self.job_settings(job),
            "suite_seed": "secret" if seed is None else seed,
        }

    def job_settings(self, job: EpisodeJob) -> dict[str, Any]:
        """The settings recorded in a job's trajectory: the turn@shot ones for every
        agent, the LLM ones for LLM agents (see ``episode_settings``)."""
        llm = job.agent in self.llm_names
        return {k: v for k, v in self.all_settings.items() if llm or k in _NON_LLM_SETTINGS}

    def definition(self, kind: _Kind, arguments: RunArguments, suite_sha: str) -> RunDefinition:
        args = arguments.model_dump(mode="json")
        return RunDefinition(
            kind="dfa" if isinstance(kind, _DfaKind) else "turns",
            suite=self.suite.name,
            suite_json_sha256=suite_sha,
            spec=args["spec"],
            feedback=args["feedback"],
            budget_factor=args["budget_factor"],
            seed=self.seed,
            settings=episode_settings(args),
        )

    # -- the loop ---------------------------------------------------------------------
    def go(self, kind: _Kind) -> RunResult:
        """Take the folder's lock, check and record the run's definition, run."""
        if self.out_dir.exists() and not self.out_dir.is_dir():
            raise UsageError(f"--out {self.out_dir} is a file, not a folder")
        suite_sha = sha256_hex((self.suite_dir / "suite.json").read_bytes())
        arguments = self.arguments(kind)
        with FolderLock(self.out_dir / lock_name(shard_suffix(self.shard)), "oracle-eval run"):
            claim_folder(self.out_dir, self.definition(kind, arguments, suite_sha))
            return self._go(kind, arguments, suite_sha)

    def _go(self, kind: _Kind, arguments: RunArguments, suite_sha: str) -> RunResult:
        started, clock = _now(), time.monotonic()
        digest = self.config_digest(arguments, suite_sha)
        boxes = {box.info.id: box for box in self.boxes}
        jobs = job_list(list(boxes), self.agents, self.repeats, self.shard)
        total = len(jobs)
        records: dict[EpisodeJob, Any] = {}
        executed = 0
        done = 0

        # Finished episodes first: they seed the budget and are reported as skipped.
        pending: list[EpisodeJob] = []
        seed_cost, seed_tokens = 0.0, 0
        self.all_settings = episode_settings(arguments.model_dump(mode="json"))
        for job in jobs:
            record = kind.reusable(trajectory_path(self.out_dir, job), boxes[job.box_id], job)
            if record is not None and record.settings != self.job_settings(job):
                record = None  # made with other settings (a manifest since overwritten)
            if record is None:
                pending.append(job)
                continue
            records[job] = record
            if record.usage is not None:
                seed_tokens += record.usage.tokens
                seed_cost += record.usage.cost_usd or 0.0
            done += 1
            self.emit(ProgressEvent(done, total, job, "skipped", record.status))
        skipped = done

        budget = _Budget(
            max_cost=self.max_cost,
            max_tokens=self.max_tokens,
            spent_cost=seed_cost,
            spent_tokens=seed_tokens,
            on_charge=self.emit if self.progress is not None else None,
        )
        self.budget = budget
        cache: CallCache | None = None
        providers: ProviderPool | None = None
        if self.llm_names and pending:
            from evaluator.llm_agents import ProviderPool
            from providers import CallCache

            cache = CallCache(self.out_dir / CACHE_FILE)
            providers = ProviderPool()
            self.settings = dataclasses.replace(
                self.llm_settings(),
                budget=budget,
                cache=cache,
                on_retry=self._on_retry,
                pool=providers,
            )
        pool = BoxWorkerPool(self.workers, start_sandbox_worker(self.limits))
        interrupted = threading.Event()

        def episode(job: EpisodeJob) -> _Outcome:
            return self._episode(kind, pool, boxes[job.box_id], job, interrupted)

        def on_done(job: EpisodeJob, outcome: _Outcome) -> None:
            nonlocal done, executed
            done += 1
            if outcome.action == "ran":
                executed += 1
                records[job] = outcome.record
            tokens, cost = budget.spent_here()
            status = None if outcome.record is None else outcome.record.status
            self.emit(
                ProgressEvent(done, total, job, outcome.action, status, tokens, cost, outcome.error)
            )

        def on_interrupt() -> None:
            interrupted.set()
            budget.stop("interrupted")

        def may_start() -> bool:
            return not interrupted.is_set() and budget.spent_reason() is None

        try:
            if pending:
                (self.out_dir / "trajectories").mkdir(parents=True, exist_ok=True)
            schedule = run_jobs(
                pending,
                episode,
                concurrency=self.concurrency,
                on_done=on_done,
                may_start=may_start,
                on_interrupt=on_interrupt,
            )
        finally:
            pool.close()
            if providers is not None:
                providers.close()
            if cache is not None:
                cache.close()

        finished = [job for job in jobs if job in records]
        left = total - len(finished)
        stopped: str | None = None
        if left:
            if schedule.interrupted:
                stopped = "interrupted (Ctrl-C)"
            else:
                stopped = budget.spent_reason() or "stopped"
        paths = [trajectory_path(self.out_dir, job) for job in finished]
        trajs = [records[job] for job in finished]
        suffix = shard_suffix(self.shard)
        self.out_dir.mkdir(parents=True, exist_ok=True)
        summary = _write_suffixed(
            self.out_dir, suffix, lambda where: kind.summarise(trajs, paths, where)
        )
        usage = UsageTotals()
        for record in trajs:
            if record.usage is not None:
                usage = usage + record.usage
        manifest = RunManifest(
            tool_version=__version__,
            arguments=arguments,
            config_digest=digest,
            suite=self.suite.name,
            suite_json_sha256=suite_sha,
            box_digests={box.info.id: box.digest for box in self.boxes},
            started=started,
            finished=_now(),
            duration_s=round(time.monotonic() - clock, 3),
            episodes=len(trajs),
            jobs=total,
            executed=executed,
            skipped=skipped,
            failed=sum(t.status == "failed" for t in trajs),
            failures={cause: sum(t.failure == cause for t in trajs) for cause in FAILURE_CAUSES},
            pending=left,
            usage=usage,
            stopped=stopped,
        )
        index = RunIndex(
            config_digest=digest,
            shard=arguments.shard,
            rows=[self._row(kind, job, records.get(job)) for job in jobs],
        )
        atomic_write_text(
            self.out_dir / f"index{suffix}.json", canonical_json(index.model_dump(mode="json"))
        )
        atomic_write_text(
            self.out_dir / f"run{suffix}.json", canonical_json(manifest.model_dump(mode="json"))
        )
        if schedule.interrupted:
            raise KeyboardInterrupt
        return RunResult(
            out_dir=self.out_dir, summary=summary, manifest=manifest, trajectories=tuple(paths)
        )

    def _row(self, kind: _Kind, job: EpisodeJob, record: Any) -> IndexRow:
        if record is None:
            return IndexRow(
                box=job.box_id,
                agent=job.agent,
                repetition=job.repetition,
                file=None,
                status="pending",
                score=None,
                tokens=None,
                cost_usd=None,
                error=None,
            )
        path = trajectory_path(self.out_dir, job).relative_to(self.out_dir)
        usage = record.usage
        return IndexRow(
            box=job.box_id,
            agent=job.agent,
            repetition=job.repetition,
            file=path.as_posix(),
            status=record.status,
            score=kind.score(record),
            tokens=None if usage is None else usage.tokens,
            cost_usd=None if usage is None else usage.cost_usd,
            error=record.error,
            failure=record.failure,
        )

    def _on_retry(self, event: RetryEvent) -> None:
        from providers.cache import current_scope

        self.emit(
            RetryProgress(
                provider=event.provider,
                attempt=event.attempt,
                wait_s=event.wait_s,
                reason=event.reason,
                scope=current_scope(),
            )
        )

    def _episode(
        self,
        kind: _Kind,
        pool: BoxWorkerPool,
        box: Box,
        job: EpisodeJob,
        interrupted: threading.Event,
    ) -> _Outcome:
        """One episode, in a worker thread: play (box calls borrow pooled workers), write
        the trajectory. A box that cannot start fails the episode with its error."""
        from providers.cache import call_scope

        path = trajectory_path(self.out_dir, job)
        with call_scope(job.scope):
            try:
                pool.check(box)
            except OracleBenchError as exc:
                if interrupted.is_set():
                    return _Outcome(job, None, "interrupted", "interrupted")
                # SandboxCompileError or a failure while loading (box), isolation
                # unavailable or a worker that would not start (infrastructure): the
                # episode fails with that cause and the run goes on.
                cause = cause_of(exc)
                log.info("box %s cannot start (%s): %s", box.info.id, cause, exc)
                record = kind.cannot_start(box, job, f"{type(exc).__name__}: {exc}", cause)
                record = record.model_copy(update=self.job_record(job))
                kind.save(record, path)
                return _Outcome(job, record, "ran")
            try:
                record = kind.play(box, job, PooledBox(pool, box))
            except BudgetExhausted as exc:
                return _Outcome(job, None, "interrupted", str(exc))
        if interrupted.is_set() and record.status == "failed":
            # Most likely failed because Ctrl-C closed its worker: rerun on resume.
            return _Outcome(job, None, "interrupted", "interrupted")
        record = record.model_copy(update=self.job_record(job))
        kind.save(record, path)
        return _Outcome(job, record, "ran")


_NON_LLM_SETTINGS = ("--invalid-turns", "--max-reasks")


def _write_suffixed(out_dir: Path, suffix: str, write: Callable[[Path], _T]) -> _T:
    """Run ``write(dir)``; with a suffix, into a scratch dir, then rename each file
    ``name.ext`` to ``name<suffix>.ext`` in ``out_dir`` (same file system: atomic)."""
    if not suffix:
        return write(out_dir)
    with tempfile.TemporaryDirectory(dir=out_dir, prefix=".summary-") as scratch:
        result = write(Path(scratch))
        for item in sorted(Path(scratch).iterdir()):
            stem, dot, ext = item.name.partition(".")
            os.replace(item, out_dir / f"{stem}{suffix}{dot}{ext}")
    return result


# -- turn@shot -------------------------------------------------------------------------


class _TurnsKind:
    def __init__(
        self,
        run: _Run,
        spec: TurnShot,
        feedback: FeedbackMode,
        invalid_turns: InvalidTurns,
        max_reasks: int,
    ) -> None:
        self.run = run
        self.spec = spec
        self.feedback = feedback
        self.invalid_turns = invalid_turns
        self.max_reasks = max_reasks
        self.families: dict[str, Family] = {
            box.info.id: family_for_box(box.info) for box in run.boxes
        }

    def arguments(self) -> dict[str, Any]:
        return {
            "spec": str(self.spec),
            "feedback": self.feedback,
            "invalid_turns": self.invalid_turns,
            "max_reasks": self.max_reasks,
        }

    def ctx(self, job: EpisodeJob) -> EpisodeContext:
        return EpisodeContext(
            suite=self.run.suite.name,
            agent_name=job.agent,
            spec=self.spec,
            feedback=self.feedback,
            seed=self.run.seed,
            repetition=job.repetition,
            invalid_costs_turn=self.invalid_turns == "count",
            max_reasks=self.max_reasks,
        )

    def reusable(self, path: Path, box: Box, job: EpisodeJob) -> Trajectory | None:
        return _reusable(path, box, self.ctx(job))

    def cannot_start(
        self, box: Box, job: EpisodeJob, error: str, failure: FailureCause
    ) -> Trajectory:
        return failed_trajectory(box, self.families[box.info.id], self.ctx(job), error, failure)

    def play(self, box: Box, job: EpisodeJob, env: Any) -> Trajectory:
        family = self.families[box.info.id]
        ctx = self.ctx(job)
        agent_ctx = AgentContext(
            family,
            box.info.level,
            rng_for(ctx.seed, "agent", ctx.agent_name, box.info.id, ctx.repetition),
        )
        try:
            if job.agent in self.run.llm_names:
                from evaluator.llm_agents import LlmAgent

                agent: Any = LlmAgent(job.agent, agent_ctx, self.run.llm_settings())
            else:
                agent = make_agent(job.agent, agent_ctx)
        except Exception as exc:
            log.info("agent %s cannot start: %s", job.agent, exc)
            return failed_trajectory(box, family, ctx, f"{type(exc).__name__}: {exc}", "agent")
        try:
            return run_episode(box, family, agent, env, ctx, SandboxSolutions(self.run.limits))
        finally:
            _close_agent(agent)

    def save(self, record: Trajectory, path: Path) -> None:
        save_trajectory(record, path)

    def score(self, record: Trajectory) -> float | None:
        return record.accuracy

    def summarise(self, records: list[Trajectory], paths: list[Path], out_dir: Path) -> Summary:
        summary = summarise(
            records,
            suite=self.run.suite.name,
            spec=str(self.spec),
            feedback=self.feedback,
            seed=self.run.seed,
            repeats=self.run.repeats,
        )
        write_summary(summary, out_dir)
        return summary


# -- DFA -------------------------------------------------------------------------------


class _DfaKind:
    def __init__(
        self,
        run: _Run,
        budget_factor: float,
        buckets: tuple[Bucket, ...],
        similarity_len: int,
    ) -> None:
        self.run = run
        self.budget_factor = budget_factor
        self.buckets = buckets
        self.similarity_len = similarity_len
        for box in run.boxes:
            try:
                box_target(box)
            except EvaluationError as exc:
                # Every record of an episode names its target: without one the suite
                # itself is unusable, for every agent.
                raise CorruptBoxError(str(exc), box.path) from None

    def arguments(self) -> dict[str, Any]:
        return {
            "spec": None,
            "feedback": None,
            "budget_factor": self.budget_factor,
            "buckets": format_buckets(self.buckets),
            "similarity_len": self.similarity_len,
        }

    def common(self, job: EpisodeJob) -> dict[str, Any]:
        return {
            "suite": self.run.suite.name,
            "budget_factor": self.budget_factor,
            "seed": self.run.seed,
            "repetition": job.repetition,
        }

    def reusable(self, path: Path, box: Box, job: EpisodeJob) -> DfaTrajectory | None:
        return _reusable_dfa(
            path, box, job.agent, self.run.seed, job.repetition, self.budget_factor
        )

    def cannot_start(
        self, box: Box, job: EpisodeJob, error: str, failure: FailureCause
    ) -> DfaTrajectory:
        return failed_dfa_trajectory(box, job.agent, error, failure, **self.common(job))

    def play(self, box: Box, job: EpisodeJob, env: Any) -> DfaTrajectory:
        common = self.common(job)
        target, info = box_target(box)
        budget = episode_budget(info.reference_cost, self.budget_factor)
        ctx = DfaAgentContext(
            alphabet=target.alphabet,
            budget=budget,
            intro=dfa_intro(target.alphabet, budget, DEFAULT_MAX_INVALID_STREAK),
            rng=rng_for(self.run.seed, "agent", job.agent, box.info.id, job.repetition),
        )
        try:
            if job.agent in self.run.llm_names:
                from evaluator.llm_agents import LlmDfaAgent

                agent: Any = LlmDfaAgent(job.agent, ctx, self.run.llm_settings())
            else:
                agent = make_dfa_agent(job.agent, ctx)
        except Exception as exc:
            log.info("agent %s cannot start: %s", job.agent, exc)
            message = f"{type(exc).__name__}: {exc}"
            return failed_dfa_trajectory(box, job.agent, message, "agent", **common)
        try:
            layers = sorted(str(getattr(layer, "value", layer)) for layer in env.layers)
        except Exception:
            layers = []
        try:
            return run_dfa_episode(box, job.agent, agent, env.call, sandbox_layers=layers, **common)
        finally:
            _close_agent(agent)

    def save(self, record: DfaTrajectory, path: Path) -> None:
        save_dfa_trajectory(record, path)

    def score(self, record: DfaTrajectory) -> float | None:
        if record.status != "completed":
            return None
        return 1.0 if record.success else 0.0

    def summarise(
        self, records: list[DfaTrajectory], paths: list[Path], out_dir: Path
    ) -> DfaSummary:
        metrics = [dfa_episode_metrics(t, similarity_len=self.similarity_len) for t in records]
        summary = summarise_dfa(
            records,
            suite=self.run.suite.name,
            seed=self.run.seed,
            repeats=self.run.repeats,
            budget_factor=self.budget_factor,
            buckets=self.buckets,
            metrics=metrics,
            similarity_len=self.similarity_len,
        )
        by_file = {p.name: (t.agent, m) for p, t, m in zip(paths, records, metrics, strict=True)}
        write_dfa_summary(summary, out_dir, by_file)
        return summary
