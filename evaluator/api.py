"""The Python API of evaluation: what ``oracle-eval`` and ``oracle-eval report`` run.

>>> from evaluator import evaluate, report_results
>>> result = evaluate("suites/demo-ERI-easy", spec="10@1")      # the default baselines
>>> result.summary.groups[0].accuracy                           # doctest: +SKIP
>>> report_results(result.out_dir).summary                      # recomputed from the files
>>> sweep("suites/demo-ERI-easy", spec="1,2,5,10,20@1")        # doctest: +SKIP

:func:`plan_run` checks everything a run needs before any work (the suite and its digests,
the kind's settings, the agent names, the run folder) and returns a :class:`RunPlan`;
:func:`evaluate` runs a plan (or makes one from the same arguments). Errors are the
command line's: :class:`~oracle_bench.errors.UsageError` for bad arguments, ``BoxError``
for a missing or tampered suite; an episode's own failure is recorded, never raised.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from oracle_bench.errors import BoxError, UnknownNameError, UsageError

if TYPE_CHECKING:
    from blackboxes.box import SuiteInfo
    from evaluator.kinds import EpisodeKind
    from evaluator.llm_agents import LlmAgentSettings
    from evaluator.report import RunRecords
    from evaluator.runner import RunEvent, RunResult
    from evaluator.spec import TurnShot
    from sandbox import SandboxLimits

__all__ = [
    "ReportResult",
    "RunPlan",
    "SweepResult",
    "check_agent",
    "evaluate",
    "latest_suite",
    "plan_run",
    "plan_sweep",
    "report_results",
    "sweep",
]


@dataclass(frozen=True)
class RunPlan:
    """A checked run: what :func:`evaluate` will do, before it does it."""

    suite_dir: Path
    suite: SuiteInfo
    kind: EpisodeKind
    settings: Any
    """The kind's own settings (``EpisodeKind.configure``)."""
    options: Mapping[str, Any]
    """The kind's options as given (checked), handed to ``evaluate_suite``."""
    agents: tuple[str, ...]
    out_dir: Path
    seed: int
    repeats: int
    shard: tuple[int, int] | None
    label: str
    """For people: the kind's settings, e.g. ``10@1 instant`` (``shard i/n`` added)."""
    llm: LlmAgentSettings | None = field(default=None, repr=False)
    env: str | None = None
    """The served suite's URL (``--env``): the boxes are played there."""
    env_token: str | None = field(default=None, repr=False)


def latest_suite(root: Path | None = None) -> Path:
    """The most recently written suite under ``root`` (default: the suites folder)."""
    from oracle_bench.cli import suites_root

    root = suites_root() if root is None else Path(root)
    if not root.is_dir():
        raise BoxError("no suite given and the suites folder does not exist (use --suite)", root)
    candidates = [p for p in root.glob("*/suite.json") if p.is_file()]
    if not candidates:
        raise BoxError("no suite given and no suite (*/suite.json) found here", root)
    newest = max(candidates, key=lambda p: (p.stat().st_mtime_ns, str(p)))
    return newest.parent


def check_agent(name: str) -> None:
    """Fail fast (before any suite is read) on an agent name no kind knows."""
    from evaluator.kinds import all_kinds
    from evaluator.llm_agents import is_llm_agent

    if is_llm_agent(name):
        return  # provider/model: preflighted with the LLM settings
    known = {a for kind in all_kinds() for a in kind.agent_names()}
    if name not in known:
        raise UnknownNameError("agent", name, [*sorted(known), "provider/model"])


def plan_run(
    suite: Path | str | None = None,
    agents: Sequence[str] | None = None,
    spec: TurnShot | str | None = None,
    *,
    feedback: str | None = None,
    seed: int = 0,
    out: Path | str | None = None,
    repeats: int = 1,
    shard: tuple[int, int] | str | None = None,
    llm: LlmAgentSettings | None = None,
    env: str | None = None,
    env_token: str | None = None,
    **options: Any,
) -> RunPlan:
    """Check a run without running it; see :func:`evaluate` for the arguments; ``env``
    (``http://HOST:PORT``) plans a run of the suite served there instead of a folder."""
    from blackboxes.store import load_suite_boxes
    from evaluator._run_folder import default_run_root
    from evaluator.kinds import check_options, kind_for_suite, suite_subject
    from evaluator.llm_agents import is_llm_agent
    from evaluator.runner import parse_shard
    from evaluator.spec import parse_spec
    from oracle_bench.jsonio import sha256_hex

    if isinstance(spec, str):
        spec = parse_spec(spec)  # a bad spec fails before the suite is read
    for name in agents or ():
        check_agent(name)
    if repeats < 1:
        raise UsageError(f"invalid --repeats {repeats}: must be >= 1")
    if isinstance(shard, str):
        shard = parse_shard(shard)
    elif shard is not None:
        shard = parse_shard(f"{shard[0]}/{shard[1]}")
    suite_sha: str | None = None
    if env is not None:
        from evaluator.serve._remote_run import served_suite

        if suite is not None:
            raise UsageError("give --suite or --env, not both")
        served, info, _, suite_sha = served_suite(env, env_token)
        suite_dir = Path(served.url)
    elif suite is None:
        try:
            suite_dir = latest_suite()
        except BoxError:
            if spec is None:  # nothing says what to run: the usage error says more
                raise UsageError(
                    "no suite was found to evaluate (use --suite DIR; a turn@shot suite "
                    "also needs SPEC = TURNS@SHOTS)"
                ) from None
            raise
    else:
        suite_dir = Path(suite)
    if env is None:
        info, _ = load_suite_boxes(suite_dir)  # every digest, before anything starts
    kind = kind_for_suite(info)
    given = {"spec": spec, "feedback": feedback, **options}
    subject = suite_subject(kind, info.family, info.name)
    if env is not None:
        from evaluator.serve._remote_run import configure_served

        try:
            mine, settings = configure_served(served, kind, info, given, subject)
        finally:
            served.close()
    else:
        mine = check_options(kind, given, subject=subject)
        settings = kind.configure(info, mine, "eval")  # the settings' errors, before any work
    names = list(agents or kind.default_agents)
    twice = sorted({a for a in names if names.count(a) > 1})
    if twice:
        raise UsageError(f"agent listed twice: {', '.join(twice)}")
    names = [a if is_llm_agent(a) else kind.check_agent_name(a) for a in names]
    if out is None:
        if suite_sha is None:
            suite_sha = sha256_hex((suite_dir / "suite.json").read_bytes())
        out_dir = default_run_root(suite_dir, info, suite_sha) / kind.run_slug(settings, seed)
    else:
        out_dir = Path(out)
    if out_dir.exists() and not out_dir.is_dir():
        raise UsageError(f"--out {out_dir} is a file, not a directory")
    label = kind.label(settings)
    if shard is not None:
        label += f" shard {shard[0]}/{shard[1]}"
    return RunPlan(
        suite_dir=suite_dir,
        suite=info,
        kind=kind,
        settings=settings,
        options=mine,
        agents=tuple(names),
        out_dir=out_dir,
        seed=seed,
        repeats=repeats,
        shard=shard,
        label=label,
        llm=llm,
        env=env,
        env_token=env_token,
    )


def evaluate(
    suite: Path | str | RunPlan | None = None,
    agents: Sequence[str] | None = None,
    spec: TurnShot | str | None = None,
    *,
    feedback: str | None = None,
    seed: int = 0,
    out: Path | str | None = None,
    repeats: int = 1,
    shard: tuple[int, int] | str | None = None,
    llm: LlmAgentSettings | None = None,
    concurrency: int = 1,
    workers: int | None = None,
    max_cost: float | None = None,
    max_tokens: int | None = None,
    limits: SandboxLimits | None = None,
    executor: str | None = None,
    executor_options: Mapping[str, Any] | None = None,
    progress: Callable[[RunEvent], None] | None = None,
    env: str | None = None,
    env_token: str | None = None,
    **options: Any,
) -> RunResult:
    """Evaluate agents on a suite, resumably; what ``oracle-eval`` does.

    ``env="http://HOST:PORT"`` (and ``env_token`` for a server with a bearer token)
    plays the suite a server serves (``oracle-serve``, a published image) instead of a
    folder: the same trajectories and summaries, with what the server withholds left out.

    ``suite`` is a suite folder (default: the most recent under the suites folder) or a
    :class:`RunPlan`. ``agents`` default to the kind's baselines; ``provider/model``
    names are LLM agents (``llm`` holds their settings). ``spec`` (``"20@2"``) and
    ``feedback`` are the turn@shot settings; any other kind's settings go by name in
    ``options`` (``budget_factor=2`` for DFA suites, ``invalid_turns="free"``...). The
    run folder ``out`` defaults to ``runs/<suite>-<tag>/<settings>``; rerunning into it
    skips the finished episodes. ``executor`` plays the episodes: ``local`` threads
    (default) or ``ray`` tasks, with ``executor_options`` such as ``{"address":
    "HOST:PORT"}``; the results are the same. ``progress`` receives
    ``evaluator.runner.RunEvent`` values, possibly from worker threads.
    """
    from evaluator.runner import evaluate_suite

    if isinstance(suite, RunPlan):
        plan = suite
    else:
        plan = plan_run(
            suite,
            agents,
            spec,
            feedback=feedback,
            seed=seed,
            out=out,
            repeats=repeats,
            shard=shard,
            llm=llm,
            env=env,
            env_token=env_token,
            **options,
        )
    return evaluate_suite(
        plan.suite_dir,
        list(plan.agents),
        None,
        None,
        plan.seed,
        plan.out_dir,
        repeats=plan.repeats,
        progress=progress,
        limits=limits,
        concurrency=concurrency,
        workers=workers,
        shard=plan.shard,
        llm=plan.llm,
        max_cost=max_cost,
        max_tokens=max_tokens,
        options=plan.options,
        executor=executor,
        executor_options=executor_options,
        env=plan.env,
        env_token=plan.env_token,
    )


def plan_sweep(
    suite: Path | str | None = None,
    agents: Sequence[str] | None = None,
    spec: TurnShot | str | Sequence[TurnShot | str] | None = None,
    *,
    feedback: str | None = None,
    seed: int = 0,
    out: Path | str | None = None,
    repeats: int = 1,
    shard: tuple[int, int] | str | None = None,
    llm: LlmAgentSettings | None = None,
    env: str | None = None,
    env_token: str | None = None,
    **options: Any,
) -> tuple[RunPlan, ...]:
    """Check every run of a sweep before any runs; one :class:`RunPlan` per value.

    A sweepable option (``KindOption.sweep``: the turn@shot ``spec``, DFA's
    ``budget_factor``) given a list, or a text with commas (``"1,2,5,10,20@1"``,
    ``"1,2,4"``), is swept: one run per value (per combination, if several are), each in
    its own default run folder, or in ``out/<settings>`` when ``out`` is given. Other
    arguments as :func:`plan_run`; the same settings twice is a :class:`UsageError`.
    """
    from evaluator._kind_cli import sweep_points, sweep_values
    from evaluator.kinds import all_kinds

    given: dict[str, Any] = {"spec": spec, "feedback": feedback, **options}
    sweepable = {o.name: o for k in all_kinds() for o in k.options if o.sweep}
    for name, option in sweepable.items():
        if given.get(name) is not None:
            given[name] = sweep_values(option, given[name])
    points = sweep_points(given)
    plans: list[RunPlan] = []
    for point in points:
        point_spec = point.pop("spec", None)
        point_feedback = point.pop("feedback", None)
        plan = plan_run(
            suite,
            agents,
            point_spec,
            feedback=point_feedback,
            seed=seed,
            out=None,
            repeats=repeats,
            shard=shard,
            llm=llm,
            env=env,
            env_token=env_token,
            **point,
        )
        if out is not None:
            folder = Path(out) if len(points) == 1 else Path(out) / plan.out_dir.name
            plan = replace(plan, out_dir=folder)
            if folder.exists() and not folder.is_dir():
                raise UsageError(f"--out {folder} is a file, not a directory")
        twin = next((p for p in plans if p.out_dir == plan.out_dir), None)
        if twin is not None:
            raise UsageError(f"the sweep lists the same settings twice ({twin.label})")
        plans.append(plan)
        suite = plan.suite_dir  # the runs of a sweep share one suite, even the latest
    return tuple(plans)


@dataclass(frozen=True)
class SweepResult:
    """The runs of a sweep (:func:`sweep`), in the order of its values."""

    plans: tuple[RunPlan, ...]
    results: tuple[RunResult, ...]
    """The runs played: fewer than ``plans`` when a budget stopped one (the sweep stops
    there; rerun to resume)."""

    @property
    def stopped(self) -> bool:
        return len(self.results) < len(self.plans) or any(
            r.manifest.stopped is not None for r in self.results
        )


def sweep(
    suite: Path | str | Sequence[RunPlan] | None = None,
    agents: Sequence[str] | None = None,
    spec: TurnShot | str | Sequence[TurnShot | str] | None = None,
    *,
    feedback: str | None = None,
    seed: int = 0,
    out: Path | str | None = None,
    repeats: int = 1,
    shard: tuple[int, int] | str | None = None,
    llm: LlmAgentSettings | None = None,
    concurrency: int = 1,
    workers: int | None = None,
    max_cost: float | None = None,
    max_tokens: int | None = None,
    limits: SandboxLimits | None = None,
    executor: str | None = None,
    executor_options: Mapping[str, Any] | None = None,
    progress: Callable[[RunPlan, RunEvent], None] | None = None,
    on_run: Callable[[RunPlan, RunResult], None] | None = None,
    **options: Any,
) -> SweepResult:
    """Evaluate one run per value of a sweep (``spec="1,2,5,10,20@1"``,
    ``budget_factor=[1, 2, 4]``), one after the other, each exactly as :func:`evaluate`
    (resumable in its own folder); ``suite`` may be the plans of :func:`plan_sweep`.

    ``max_cost`` and ``max_tokens`` cap each run (as :func:`evaluate` does its folder);
    when one stops a run the sweep stops. ``progress`` receives each run's events with
    its plan; ``on_run`` each finished run's result.
    """
    if isinstance(suite, Sequence) and not isinstance(suite, str):
        plans = tuple(suite)
    else:
        plans = plan_sweep(
            suite,
            agents,
            spec,
            feedback=feedback,
            seed=seed,
            out=out,
            repeats=repeats,
            shard=shard,
            llm=llm,
            **options,
        )
    results: list[RunResult] = []
    for plan in plans:

        def events(event: RunEvent, plan: RunPlan = plan) -> None:
            if progress is not None:
                progress(plan, event)

        result = evaluate(
            plan,
            concurrency=concurrency,
            workers=workers,
            max_cost=max_cost,
            max_tokens=max_tokens,
            limits=limits,
            executor=executor,
            executor_options=executor_options,
            progress=events,
        )
        results.append(result)
        if on_run is not None:
            on_run(plan, result)
        if result.manifest.stopped is not None:
            break
    return SweepResult(plans=plans, results=tuple(results))


@dataclass(frozen=True)
class ReportResult:
    """A run recomputed from its trajectories (``oracle-eval report``)."""

    records: RunRecords
    summary: Any
    """The kind's summary (``Summary``, ``DfaSummary``...)."""
    written: tuple[Path, ...]


def report_results(
    run_dir: Path | str,
    *,
    seed: int | None = None,
    out: Path | str | None = None,
    write: bool = True,
    **options: Any,
) -> ReportResult:
    """Recompute a run's results from its trajectories alone (no suite, no agent).

    ``seed`` is the bootstrap seed (default: the run's); ``options`` are the kind's report
    settings by name (``buckets="2-5,6-9"`` for DFA runs). With ``write`` the summary
    files go to ``out`` (default: the run folder); the files equal the run's own when no
    setting changes. Raises ``RunDirError`` for a folder that is not one readable run.
    """
    from evaluator.report import load_run, summarise_run, write_run_summary

    records = load_run(Path(run_dir))
    recomputed = summarise_run(records, seed=seed, options=options)
    written: list[Path] = []
    if write:
        if out is not None and Path(out).exists() and not Path(out).is_dir():
            raise UsageError(f"--out {out} is a file, not a folder")
        written = write_run_summary(records, recomputed, None if out is None else Path(out))
    return ReportResult(records=records, summary=recomputed.summary, written=tuple(written))
