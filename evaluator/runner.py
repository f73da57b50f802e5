"""Evaluate a suite: boxes x agents x repetitions, concurrent, resumable and cost-aware.

Layout of ``out_dir``::

    trajectories/<box>__<agent>__r<rep>.json   one per episode, written atomically when it ends
    run.json                                   RunManifest: arguments, versions, digests, usage
    index.json                                 one row per job: file, status, score, tokens, $
    summary.json, summary.csv                  aggregates (see evaluator.kinds.turns.summary)
    .cache/calls.sqlite                        LLM call cache (runs with LLM agents)

The job list is every (box, agent, repetition) in suite order, then agent order, then
repetition; ``shard=(i, n)`` keeps the jobs at positions p with ``p % n == i - 1``, and
names the run's own files ``run.shard-<i>-of-<n>.json``, ``index.shard-...``,
``summary.shard-...`` so that shards can share one directory (``oracle-eval report``
merges the trajectories).

Jobs run ``concurrency`` at a time on an executor (:mod:`evaluator.executors`): ``local``
(the default: asyncio with a thread per episode, see ``evaluator._schedule``; sandbox
workers come from a pool of ``workers``, default ``concurrency``, shared by all boxes,
started beside the episodes and ahead of them) or ``ray`` (each episode a Ray task on a
cluster, its record returned to this process, which validates and writes it). The
results do not depend on the executor. LLM agents (``provider/model``)
share the provider bound ``max_per_provider``, the call cache and one
:class:`~evaluator.usage.RunBudget`; each episode's calls are made in
``providers.call_scope("<box>/<agent>/r<rep>")``.

Resume: rerunning with the same arguments skips every episode whose trajectory exists,
validates, completed, and matches the job (box digest, agent, spec, feedback, seed,
repetition and the kind's own settings, e.g. the DFA budget factor); everything else
reruns. Settings that trajectories do not
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

Kinds of episode: the suite's family names its kind (:mod:`evaluator.kinds`), and
everything that differs between kinds (settings, agents, the protocol, the records, the
summary) goes through it: a DFA suite runs membership/equivalence episodes with a budget
factor instead of a turn@shot spec, into the same layout.
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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from blackboxes.box import SuiteInfo
from blackboxes.store import Box, load_box, load_suite
from evaluator._jobs import is_llm_name
from evaluator._run_folder import RunDefinition, claim_folder, episode_settings, lock_name
from evaluator.executors import (
    EpisodeHooks,
    EpisodeOutcome,
    EpisodePlan,
    Executor,
    Played,
    make_executor,
)
from evaluator.failures import FAILURE_CAUSES, FailureCause
from evaluator.kinds import (
    EpisodeKind,
    KindRun,
    KindSummary,
    check_options,
    kind_for_suite,
    suite_subject,
)
from evaluator.spec import FeedbackMode, TurnShot
from evaluator.usage import BudgetExhausted, LlmCallRecord, RunBudget, UsageTotals, check_priced
from oracle_bench import __version__
from oracle_bench._executor import current_executor
from oracle_bench.errors import UsageError
from oracle_bench.jsonio import atomic_write_text, canonical_json, sha256_hex
from oracle_bench.lock import FolderLock

if TYPE_CHECKING:
    from evaluator.llm_agents import LlmAgentSettings, ProviderPool
    from providers import CallCache, RetryEvent
    from sandbox import SandboxLimits

__all__ = [
    "EpisodeJob",
    "IndexRow",
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
    "job_list",
    "parse_shard",
    "shard_suffix",
    "trajectory_path",
]

log = logging.getLogger(__name__)

CACHE_FILE = Path(".cache") / "calls.sqlite"


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
    invalid_turns: str | None = None
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
    options: dict[str, Any] | None = None
    """The settings of a kind that has settings beyond the fields above, by name."""
    executor: str = "local"
    """Where the episodes ran (``local``, ``ray``): not part of the config digest, so a
    run folder may be resumed with any executor."""


class RunManifest(_Model):
    """run.json (``run.shard-<i>-of-<n>.json``): what was run, on what, with which tool."""

    schema_version: int = 2
    tool_version: str
    kind: str | None = None
    """The kind of episode (``turns``, ``dfa``...); None in manifests written before it
    was recorded."""
    arguments: RunArguments
    config_digest: str
    """SHA-256 of the canonical JSON of what defines the results: the suite (name and
    suite.json digest), agents, spec, feedback, seed, repeats, DFA settings, invalid-turn
    settings and the LLM options, protocol, history and re-asks. Not concurrency,
    workers, shard, paths, base URL, timeout, budgets or the executor."""
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
    summary: KindSummary
    """The kind's summary (``Summary`` for turn@shot, ``DfaSummary`` for DFA) over the
    finished episodes."""
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


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


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
    spec: TurnShot | str | None,
    feedback: FeedbackMode | None,
    seed: int,
    out_dir: Path,
    repeats: int = 1,
    progress: Callable[[RunEvent], None] | None = None,
    limits: SandboxLimits | None = None,
    *,
    budget_factor: float | None = None,
    buckets: Sequence[tuple[int, int]] | str | None = None,
    similarity_len: int | None = None,
    concurrency: int = 1,
    workers: int | None = None,
    shard: tuple[int, int] | None = None,
    llm: LlmAgentSettings | None = None,
    invalid_turns: str | None = None,
    max_reasks: int | None = None,
    max_cost: float | None = None,
    max_tokens: int | None = None,
    options: Mapping[str, Any] | None = None,
    executor: str | None = None,
    executor_options: Mapping[str, Any] | None = None,
    env: str | None = None,
    env_token: str | None = None,
) -> RunResult:
    """Run every (box, agent, repetition) episode of a suite that is not already done.

    The suite's family names its kind of episode (:mod:`evaluator.kinds`), which takes
    its own settings: ``spec``, ``feedback``, ``invalid_turns`` and ``max_reasks`` for
    turn@shot suites, ``budget_factor``, ``buckets`` and ``similarity_len`` for DFA
    suites, anything else in ``options`` (by the kind's option names); a setting its
    kind does not take is refused (:class:`UsageError`; ``max_reasks`` is also an LLM
    setting and never refused), a missing one defaulted or, without a default (a
    turn@shot spec), refused. Agent names are checked against the kind; LLM agents
    (``provider/model``) use ``llm`` (default settings when None) and are preflighted
    before any work. ``concurrency`` episodes run at once on at most ``workers`` sandbox
    workers; ``shard=(i, n)`` runs every n-th job; ``max_cost``/``max_tokens`` cap LLM
    usage (see the module docstring). ``executor`` (``local``, ``ray``; default: the one
    set by ``evaluator.executors.use_executor``, else ``local``) plays the episodes, with
    its ``executor_options`` (``address`` for Ray: ``local``, ``auto`` or ``HOST:PORT``);
    the results are the same whichever plays them. ``progress`` gets :data:`RunEvent`
    values, possibly from worker threads. Runs ``asyncio.run`` inside: call it outside
    any event loop.

    ``env`` (``http://HOST:PORT``, with ``env_token`` when it has one) plays the boxes a
    server serves (``oracle-serve``, a published image) instead of a local suite
    (``suite_dir`` is then ignored): the protocols run there, the agents here, and the
    records are the local ones with what the server withholds left out
    (:meth:`~evaluator.kinds.EpisodeKind.withhold`).

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
    RunBudget(max_cost=max_cost, max_tokens=max_tokens)  # validates the caps
    if executor is None:
        choice = current_executor()
        executor, executor_options = choice.name, {**choice.options, **(executor_options or {})}
    # Made before any work: an unknown executor or option, or Ray missing, is one line.
    runs_on = make_executor(executor, executor_options)
    out_dir = Path(out_dir)
    served: Any = None
    if env is not None:
        if executor != "local":
            raise UsageError("--env plays a served suite with the local executor only")
        from evaluator.serve._remote_run import served_suite

        served, suite, served_boxes, served_sha = served_suite(env, env_token)
        suite_dir = Path(served.url)
    else:
        suite_dir = Path(suite_dir)
        suite = load_suite(suite_dir)
    kind = kind_for_suite(suite)
    given: dict[str, Any] = {
        "spec": spec,
        "feedback": feedback,
        "invalid_turns": invalid_turns,
        "max_reasks": max_reasks,
        "budget_factor": budget_factor,
        "buckets": buckets,
        "similarity_len": similarity_len,
        **(options or {}),
    }
    subject = suite_subject(kind, suite.family, suite.name)
    if served is not None:
        from evaluator.serve._remote_run import configure_served

        try:
            mine, kind_settings = configure_served(served, kind, suite, given, subject)
        finally:
            served.close()  # only its connection: the run's first request opens another
    else:
        mine = check_options(kind, given, subject=subject)
        kind_settings = kind.configure(suite, mine, "eval")
    agents = list(agents)
    if len(set(agents)) != len(agents):
        raise UsageError(f"agent listed twice: {', '.join(agents)}")
    llm_names = [a for a in agents if is_llm_name(a)]
    settings: LlmAgentSettings | None = None
    if llm_names:
        from evaluator.llm_agents import LlmAgentSettings, check_llm_agent

        settings = llm if llm is not None else LlmAgentSettings()
        for name in llm_names:
            check_llm_agent(name, settings)  # preflight: ProviderConfigError (a UsageError)
        if max_cost is not None:
            check_priced(llm_names)
    agents = [a if a in llm_names else kind.check_agent_name(a) for a in agents]
    boxes = (
        served_boxes
        if served is not None
        else [load_box(suite_dir, entry) for entry in suite.boxes]
    )
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
        kind=kind,
        kind_settings=kind_settings,
        executor_name=executor,
        executor=runs_on,
        served=served,
        served_sha=served_sha if served is not None else None,
    )
    try:
        return run.go()
    finally:
        if served is not None:
            served.close()


# -- one run -------------------------------------------------------------------------


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
    kind: EpisodeKind
    kind_settings: Any
    """The kind's own settings (``EpisodeKind.configure``)."""
    executor_name: str
    executor: Executor
    budget: _Budget | None = None
    served: Any = None
    """The served suite's client when the run plays a served suite (``--env``)."""
    served_sha: str | None = None
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
    def arguments(self) -> RunArguments:
        llm_args = None
        if self.settings is not None:
            s = self.settings
            llm_args = LlmArguments(
                options=dict(getattr(s, "options", None) or {}),
                protocol=str(getattr(s, "protocol", "tools")),
                history=_history_text(getattr(s, "history", None)),
                max_reasks=int(s.max_reasks),
                base_url=getattr(s, "base_url", None),
                base_urls=dict(getattr(s, "base_urls", None) or {}),
                timeout=getattr(s, "timeout", None),
                max_per_provider=getattr(s, "max_per_provider", None),
            )
        return RunArguments(
            # A served suite's place is its URL (the run's recorded environment).
            suite_dir=self.served.url if self.served is not None else str(self.suite_dir),
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
            executor=self.executor_name,
            **self.kind.arguments(self.kind_settings),
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
                "executor",
            },
        )
        if data.get("options") is None:
            data.pop("options", None)  # the digests of runs made before the field existed
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

    def definition(self, arguments: RunArguments, suite_sha: str) -> RunDefinition:
        return RunDefinition(
            kind=self.kind.name,
            suite=self.suite.name,
            suite_json_sha256=suite_sha,
            seed=self.seed,
            settings=episode_settings(arguments.model_dump(mode="json")),
            **self.kind.definition(self.kind_settings),
        )

    # -- the loop ---------------------------------------------------------------------
    def go(self) -> RunResult:
        """Start the kind's run, take the folder's lock, check and record the run's
        definition, run."""
        if self.served is not None:
            from evaluator.serve._remote_run import RemoteKindRun

            kind: KindRun = RemoteKindRun(self.served, self.kind, self.kind_settings, self)
            suite_sha = str(self.served_sha)
        else:
            kind = self.kind.start(self, self.kind_settings)
            suite_sha = sha256_hex((self.suite_dir / "suite.json").read_bytes())
        if self.out_dir.exists() and not self.out_dir.is_dir():
            raise UsageError(f"--out {self.out_dir} is a file, not a folder")
        arguments = self.arguments()
        with FolderLock(self.out_dir / lock_name(shard_suffix(self.shard)), "oracle-eval run"):
            claim_folder(self.out_dir, self.definition(arguments, suite_sha))
            return self._go(kind, arguments, suite_sha)

    def _served_factory(self) -> Any:
        from evaluator.serve._remote_run import served_worker_factory

        return served_worker_factory(self.served)

    def _go(self, kind: KindRun, arguments: RunArguments, suite_sha: str) -> RunResult:
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
        interrupted = threading.Event()

        def finish(job: EpisodeJob, played: Played) -> EpisodeOutcome:
            return self._finish(job, played, interrupted)

        def on_done(job: EpisodeJob, outcome: EpisodeOutcome) -> None:
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

        plan = EpisodePlan(
            kind=self.kind,
            kind_settings=self.kind_settings,
            kind_run=kind,
            context=self,
            boxes=boxes,
            jobs=pending,
            concurrency=self.concurrency,
            workers=self.workers,
            limits=self.limits,
            llm=self.settings if self.llm_names else None,
            worker_factory=None if self.served is None else self._served_factory(),
        )
        hooks = EpisodeHooks(
            finish=finish,
            on_done=on_done,
            may_start=may_start,
            on_interrupt=on_interrupt,
            path=lambda job: trajectory_path(self.out_dir, job),
        )
        try:
            if pending:
                (self.out_dir / "trajectories").mkdir(parents=True, exist_ok=True)
            schedule = self.executor.run(plan, hooks)
        finally:
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
        report = self.kind.summarise(
            trajs,
            paths,
            suite=self.suite.name,
            seed=self.seed,
            repeats=self.repeats,
            settings=self.kind_settings,
        )
        _write_suffixed(self.out_dir, suffix, report.write)
        usage = UsageTotals()
        for record in trajs:
            if record.usage is not None:
                usage = usage + record.usage
        manifest = RunManifest(
            tool_version=__version__,
            kind=self.kind.name,
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
            rows=[self._row(job, records.get(job)) for job in jobs],
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
            out_dir=self.out_dir,
            summary=report.summary,
            manifest=manifest,
            trajectories=tuple(paths),
        )

    def _row(self, job: EpisodeJob, record: Any) -> IndexRow:
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
            score=self.kind.score(record),
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

    def _finish(
        self, job: EpisodeJob, played: Played, interrupted: threading.Event
    ) -> EpisodeOutcome:
        """Write a played episode's trajectory (atomically, with the settings that shaped
        it), or say why it is not written: stopped unrecorded, or failed after Ctrl-C
        (most likely because Ctrl-C closed its worker: rerun on resume)."""
        record = played.record
        if record is None:
            return EpisodeOutcome(job, None, "interrupted", played.stopped)
        if interrupted.is_set() and record.status == "failed":
            return EpisodeOutcome(job, None, "interrupted", "interrupted")
        record = record.model_copy(update=self.job_record(job))
        self.kind.save_record(record, trajectory_path(self.out_dir, job))
        return EpisodeOutcome(job, record, "ran")


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
