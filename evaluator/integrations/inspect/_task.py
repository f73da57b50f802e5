"""The Inspect task ``oracle_bench/oracle``: one sample per (box, repetition) of a suite,
played by our own protocol with Inspect's model and scored by the kind's own score.

Imported through the ``inspect_ai`` entry point of the package (see pyproject.toml), so
``inspect eval oracle_bench/oracle -T suite=DIR -T spec=20@2 --model ...`` finds it.
"""

from __future__ import annotations

import asyncio
import contextvars
import math
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.model import get_model
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import Generate, Solver, TaskState, solver

from blackboxes.box import SuiteInfo
from blackboxes.store import Box, load_box, load_suite
from evaluator.failures import scored
from evaluator.integrations.inspect._bridge import Bridge, agent_name, bridged
from evaluator.integrations.inspect._episode import SuiteRun, play_episode
from evaluator.integrations.inspect._facts import (
    RECORD_KEY,
    SCORER_NAME,
    TASK_KEY,
    SampleFacts,
    TaskFacts,
    sample_id,
)
from evaluator.kinds import EpisodeKind, KindRun, check_options, kind_for_suite, suite_subject
from evaluator.llm_agents import LlmAgentSettings
from evaluator.runner import EpisodeJob
from oracle_bench.errors import EvaluationError, UsageError

if TYPE_CHECKING:
    from inspect_ai.model import Model

__all__ = ["TASK_NAME", "oracle", "oracle_scorer", "oracle_solver"]

# Episodes are synchronous and spend their time waiting for the model: a thread each,
# more than asyncio.to_thread's default pool gives (min(32, CPUs + 4)), so that Inspect's
# max_samples, not the core count, bounds the episodes in flight.
_EPISODES = ThreadPoolExecutor(max_workers=256, thread_name_prefix="oracle-episode")


@dataclass
class _Plan:
    """Everything a sample of the task needs: the suite, the kind and its settings."""

    suite: SuiteInfo
    boxes: dict[str, Box]
    kind: EpisodeKind
    kind_settings: Any
    seed: int
    repeats: int
    llm: LlmAgentSettings
    record: bool
    _runs: dict[str, tuple[SuiteRun, KindRun]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _records: dict[str, Any] = field(default_factory=dict)
    """Finished records by sample uuid, from the solver to the scorer."""

    def run_for(self, agent: str, options: dict[str, Any]) -> tuple[SuiteRun, KindRun]:
        """The kind's run for one model's agent (the model is known only in a sample)."""
        key = f"{agent}\n{sorted(options.items())!r}"
        with self._lock:
            found = self._runs.get(key)
            if found is None:
                run = self._suite_run(frozenset({agent}), options)
                found = self._runs[key] = (run, self.kind.start(run, self.kind_settings))
            return found

    def _suite_run(self, agents: frozenset[str], options: dict[str, Any]) -> SuiteRun:
        return SuiteRun(
            suite=self.suite,
            boxes=list(self.boxes.values()),
            seed=self.seed,
            repeats=self.repeats,
            llm_names=agents,
            settings=self.llm,
            kind=self.kind,
            kind_settings=self.kind_settings,
            model_options=options,
        )

    def check(self) -> None:
        """Start the kind's run once without a model: a suite whose boxes cannot serve
        the kind fails when the task is made, not in every sample."""
        self.kind.start(self._suite_run(frozenset(), {}), self.kind_settings)

    def put(self, uuid: str, record: Any) -> None:
        with self._lock:
            self._records[uuid] = record

    def take(self, uuid: str) -> Any:
        with self._lock:
            return self._records.pop(uuid, None)


def _model_options(model: Model) -> dict[str, Any]:
    """The generate options set for the model (``--temperature`` ...), as recorded."""
    return dict(model.config.model_dump(mode="json", exclude_none=True))


def oracle_solver(plan: _Plan) -> Solver:
    """Play the sample's episode with our protocol; Inspect's model makes every call."""

    @solver(name="oracle_episode")
    def oracle_episode() -> Solver:
        async def solve(state: TaskState, generate: Generate) -> TaskState:
            facts = SampleFacts.model_validate(state.metadata)
            model = get_model()
            agent = agent_name(str(model))
            run, kind_run = plan.run_for(agent, _model_options(model))
            # Inspect's epochs repeat samples: each epoch is a further repetition.
            repetition = facts.repetition + (state.epoch - 1) * plan.repeats
            job = EpisodeJob(facts.box_id, agent, repetition)
            loop = asyncio.get_running_loop()
            with bridged(Bridge(loop, model)) as bridge:
                context = contextvars.copy_context()
                record = await loop.run_in_executor(
                    _EPISODES,
                    context.run,
                    play_episode,
                    run,
                    kind_run,
                    plan.boxes[facts.box_id],
                    job,
                )
            plan.put(state.uuid, record)
            if bridge.last is not None:
                messages, output = bridge.last
                state.messages = [*messages, output.message]
                state.output = output
            state.completed = True
            return state

        return solve

    return oracle_episode()


def oracle_scorer(plan: _Plan) -> Scorer:
    """The kind's own score of the episode; its record in the score's metadata."""

    # A failed episode that is not scored (box, infrastructure) has a NaN score, which
    # Inspect counts as unscored and leaves out of the metrics, as our reports do.
    @scorer(metrics=[mean(), stderr()], name=SCORER_NAME)
    def oracle_score() -> Scorer:
        async def score(state: TaskState, target: Target) -> Score:
            record = plan.take(state.uuid)
            if record is None:
                raise EvaluationError(
                    "no episode record for this sample: an oracle-bench sample is scored "
                    "by the episode its solver played (re-scoring a log is not supported)"
                )
            value = plan.kind.score(record)
            if value is None:
                value = 0.0 if scored(record) else math.nan
            metadata: dict[str, Any] = {
                "status": record.status,
                "failure": record.failure,
                "error": record.error,
            }
            if plan.record:
                metadata[RECORD_KEY] = record.model_dump(mode="json")
            completed = record.status == "completed"
            return Score(
                value=value,
                answer=plan.kind.outcome_line(record) if completed else None,
                explanation=None if completed else record.error,
                metadata=metadata,
            )

        return score

    return oracle_score()


def _given(**values: Any) -> dict[str, Any]:
    """The kind options given (None: not given), as ``evaluate_suite`` takes them."""
    options = values.pop("options") or {}
    if not isinstance(options, dict):
        raise UsageError(f"options must be a mapping of kind options, got {options!r}")
    return {**values, **options}


def oracle(
    suite: str,
    spec: str | None = None,
    feedback: str | None = None,
    seed: int = 0,
    repeats: int = 1,
    budget_factor: float | None = None,
    invalid_turns: str | None = None,
    max_reasks: int | None = None,
    buckets: str | None = None,
    similarity_len: int | None = None,
    options: dict[str, Any] | None = None,
    protocol: str = "tools",
    history: int | None = None,
    record: bool = True,
) -> Task:
    """An oracle-bench suite as an Inspect task (see the README's "Inspect AI" section).

    The suite's family names its kind of episode, which takes its own settings as
    ``oracle-eval`` does: ``spec`` (``20@2``), ``feedback``, ``invalid_turns``,
    ``max_reasks`` for turn@shot suites, ``budget_factor``, ``buckets``,
    ``similarity_len`` for DFA suites, any other kind's in ``options``. ``protocol``
    and ``history`` are the LLM agent's (``--protocol``, ``--history``); ``record=False``
    leaves the episodes' records (which hold the items' expected outputs, a DFA's
    target) out of the log, and ``oracle-eval report`` then cannot read it.
    """
    if repeats < 1:
        raise UsageError(f"invalid repeats {repeats}: must be >= 1")
    suite_dir = Path(suite)
    info = load_suite(suite_dir)
    kind = kind_for_suite(info)
    given = _given(
        spec=spec,
        feedback=feedback,
        invalid_turns=invalid_turns,
        max_reasks=max_reasks,
        budget_factor=budget_factor,
        buckets=buckets,
        similarity_len=similarity_len,
        options=options,
    )
    mine = check_options(kind, given, subject=suite_subject(kind, info.family, info.name))
    kind_settings = kind.configure(info, mine, "eval")
    llm = LlmAgentSettings(
        protocol=protocol,  # type: ignore[arg-type]  # checked by LlmAgentSettings
        max_reasks=2 if max_reasks is None else max_reasks,
        history=history,
    )
    boxes = [load_box(suite_dir, entry) for entry in info.boxes]
    plan = _Plan(
        suite=info,
        boxes={box.info.id: box for box in boxes},
        kind=kind,
        kind_settings=kind_settings,
        seed=seed,
        repeats=repeats,
        llm=llm,
        record=record,
    )
    plan.check()
    facts = TaskFacts(
        kind=kind.name,
        suite=info.name,
        seed=seed,
        repeats=repeats,
        boxes=list(plan.boxes),
        arguments=kind.arguments(kind_settings),
    )
    samples = [
        Sample(
            id=sample_id(box.info.id, rep, repeats),
            input=box.info.task_intro,
            target="",
            metadata=SampleFacts.of(info.name, box, rep).model_dump(mode="json"),
        )
        for box in boxes
        for rep in range(repeats)
    ]
    return Task(
        dataset=samples,
        solver=oracle_solver(plan),
        scorer=oracle_scorer(plan),
        name=f"oracle-{info.name}",
        metadata={TASK_KEY: facts.model_dump(mode="json")},
    )


TASK_NAME = "oracle_bench/oracle"


def _registered(factory: Any) -> Any:
    """``factory`` as the Inspect task :data:`TASK_NAME`.

    Inspect names a task ``<package>/<name>`` after the top-level package of the module
    defining it when that package is installed, and finds it through the entry point
    named after that package. Only ``oracle_bench`` is a name Inspect can tie to our
    distribution, so the task is presented as defined there; where Inspect cannot tell
    (a checkout whose stale ``oracle_bench.egg-info`` shadows the installed metadata, a
    bare PYTHONPATH) it adds no prefix, and the full name is given instead.
    """
    from inspect_ai.util import registry_info

    factory.__module__ = "oracle_bench"
    named = task(name="oracle")(factory)
    if registry_info(named).name != TASK_NAME:
        named = task(name=TASK_NAME)(factory)
    return named


oracle = _registered(oracle)
