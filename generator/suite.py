"""Generate a suite: sample rules, run each through the graph, write accepted boxes.

A run is resumable at three levels, so an ``oracle-gen`` killed at any moment (even
with SIGKILL) and started again with the same arguments finishes the suite without
redoing work:

* accepted boxes are journalled in ``.suite.partial.json`` as they are written;
* with the ``llm`` backend, every candidate's graph is checkpointed in
  ``<suite>/.generator/checkpoints.sqlite`` (LangGraph ``SqliteSaver``, thread id =
  box id), so an interrupted candidate resumes at the node it was in;
* every completed LLM call is stored in ``<suite>/.generator/llm-cache.sqlite``
  (``providers.CallCache``, shared by all providers of the run), so a node that is run
  again replays its calls instead of paying for them twice.

``.generator/`` is the run's working state, not part of the suite: suite.json lists no
file of it and it may be deleted once the suite is complete.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import sqlite3
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from blackboxes.box import Attempt, BoxEntry, Level, Provenance, SuiteInfo
from blackboxes.families import LEVELS, Family, Rule, get_family
from blackboxes.store import load_box, load_suite, write_box, write_suite
from generator.backends import Backend, create_backend
from generator.graph import (
    DESIGNED_KIND,
    GraphSettings,
    attempt_summary,
    build_graph,
    recursion_limit,
)
from oracle_bench import __version__
from oracle_bench.errors import (
    BoxError,
    GenerationError,
    ProviderConfigError,
    ProviderError,
    UsageError,
)
from oracle_bench.jsonio import atomic_write_text, canonical_json
from oracle_bench.rng import rng_for, seed_for
from providers import RetryHook, Usage, base_url_for
from providers.pricing import PricingTable, load_pricing
from providers.retry import RetryPolicy
from sandbox import SandboxLimits

__all__ = [
    "CACHE_NAME",
    "CHECKPOINTS_NAME",
    "GENERATOR_DIR",
    "GenerateConfig",
    "GenerateResult",
    "LlmModels",
    "check_models",
    "default_suite_name",
    "generate_suite",
]

logger = logging.getLogger(__name__)

PARTIAL_NAME = ".suite.partial.json"
"""Journal of the boxes accepted so far; replaced by suite.json when the suite is complete."""
GENERATOR_DIR = ".generator"
"""A suite's resumable working state (checkpoints, LLM call cache, telemetry)."""
CHECKPOINTS_NAME = "checkpoints.sqlite"
CACHE_NAME = "llm-cache.sqlite"
_RUN_NAME = "run.json"
_TELEMETRY_NAME = "telemetry.jsonl"

ProgressFn = Callable[[int, int, str, str], None]
"""(accepted so far, target, box id, status) after each candidate, in index order.

Status is ``kept`` (verified box of an earlier run), ``accepted``, ``rejected`` or
``failed`` (a provider error the retry layer gave up on).
"""

Design = Literal["reference", "llm"]
DESIGNS: tuple[Design, ...] = ("reference", "llm")


@dataclass(frozen=True)
class LlmModels:
    """The models of the ``llm`` backend and how to reach them."""

    coder: str
    refiner: str
    tester: str | None = None
    """The test-player model; None: no test-player episode."""
    design: Design = "reference"
    options: Mapping[str, Any] = field(default_factory=dict)
    """Model options (``-M key=value``) sent with every call of every role."""
    base_urls: Mapping[str, str] = field(default_factory=dict)
    """Server per provider name (``openai``, ``anthropic``); key ``""``: every provider."""
    max_per_provider: int = 4
    """Calls in flight at once per provider name, over all boxes of a run."""

    def roles(self) -> dict[str, str]:
        """``{"coder": spec, "refiner": spec, "tester": spec}`` (tester only when set)."""
        roles = {"coder": self.coder, "refiner": self.refiner}
        if self.tester is not None:
            roles["tester"] = self.tester
        return roles

    def base_url(self, spec: str) -> str | None:
        """The server for a model spec: its provider's ``--base-url``, else the general one."""
        return base_url_for(self.base_urls, spec)

    def identity(self) -> dict[str, Any]:
        """What makes boxes differ: models, design and options (not where they are served)."""
        return {
            **self.roles(),
            "design": self.design,
            "options": {k: self.options[k] for k in sorted(self.options)},
        }

    def validate(self) -> None:
        if self.design not in DESIGNS:
            raise UsageError(f"--design must be one of {', '.join(DESIGNS)}, not {self.design!r}")
        if self.max_per_provider < 1:
            raise UsageError(f"--max-per-provider must be >= 1, not {self.max_per_provider}")


@dataclass(frozen=True)
class GenerateConfig:
    category: str
    level: Level
    n: int = 20
    seed: int = 0
    out: Path | None = None
    """Suite directory; default ``<suites root>/<default_suite_name>``."""
    backend: str = "procedural"
    max_attempts: int = 3
    differential_inputs: int = 256
    max_candidates: int | None = None
    """Stop after this many candidates even if fewer than ``n`` were accepted (default 3n)."""
    states: tuple[int, int] | None = None
    """DFA only: state counts A..B, cycled through in order (default: the level's range)."""
    counterexamples: str | None = None
    """DFA only: ``short_random`` (default) or ``minimal``."""
    alphabet_size: int | None = None
    """DFA only: letters a, b, ... (default 2)."""
    llm: LlmModels | None = None
    """The models of the ``llm`` backend (required with it, refused without it)."""
    jobs: int = 1
    """Candidates generated at once; the suite is the same for every value."""

    def family_options(self) -> dict[str, Any]:
        """The family options this config sets (``Family.configure`` keywords)."""
        options = {
            "states": self.states,
            "counterexamples": self.counterexamples,
            "alphabet_size": self.alphabet_size,
        }
        return {k: v for k, v in options.items() if v is not None}

    def label(self) -> str:
        """The suite's label in default names and box ids: the level, or the state range
        when one is given, plus any non-default DFA option (``-k3``, ``-mincex``), so suites
        made with other options never share a default folder."""
        label: str = self.level
        if self.states is not None:
            lo, hi = self.states
            label = f"states{lo}" if lo == hi else f"states{lo}-{hi}"
        if self.alphabet_size not in (None, 2):
            label += f"-k{self.alphabet_size}"
        if self.counterexamples == "minimal":
            label += "-mincex"
        return label

    def validate(self) -> None:
        if self.level not in LEVELS:
            raise UsageError(f"level must be one of {', '.join(LEVELS)}, not {self.level!r}")
        if self.n < 1:
            raise UsageError(f"-n must be >= 1, not {self.n}")
        if self.max_attempts < 1:
            raise UsageError(f"--max-attempts must be >= 1, not {self.max_attempts}")
        if self.differential_inputs < 200:
            raise UsageError("the differential test needs at least 200 inputs")
        if self.jobs < 1:
            raise UsageError(f"--jobs must be >= 1, not {self.jobs}")
        if self.backend == "llm" and self.llm is None:
            raise UsageError("--backend llm needs --coder MODEL and --refiner MODEL")
        if self.llm is not None:
            if self.backend != "llm":
                raise UsageError(
                    f"--coder, --refiner, --tester and --design need --backend llm, "
                    f"not --backend {self.backend}"
                )
            self.llm.validate()


@dataclass(frozen=True)
class GenerateResult:
    path: Path
    accepted: list[str]
    rejected: list[str]
    """Candidates that never passed, failed ones included, in index order."""
    skipped: list[str] = field(default_factory=list)
    """Boxes found already written and verified (a resumed run)."""
    failed: list[str] = field(default_factory=list)
    """Candidates stopped by a provider error (also in ``rejected``)."""


def default_suite_name(category: str, label: str, seed: int, n: int) -> str:
    """``<CAT>-<level or state range>-seed<S>-n<N>``."""
    return f"{category.upper()}-{label}-seed{seed}-n{n}"


def check_models(config: GenerateConfig) -> None:
    """Preflight the ``llm`` backend's models before any work starts (and any file is
    written).

    Raises ``ProviderConfigError`` (a ``UsageError``) naming what to set: an unknown
    provider or model string, a ``--base-url`` for an unknown provider, a missing API key,
    a malformed or unreachable base URL, a missing scripted file, model options the
    provider refuses (``max_tokens=abc``, a reserved request field), a bad pricing file
    (``ORACLE_BENCH_PRICING``). Each provider is built once, as the run will build it
    (building one never contacts its server), and dropped. Does nothing for other
    backends.
    """
    if config.llm is None:
        return
    from providers import check_provider, create_provider, provider_names

    llm = config.llm
    names = provider_names()
    for name in llm.base_urls:
        if name and name not in names:
            raise ProviderConfigError(
                f"--base-url {name}=...: unknown provider {name!r}; available: {', '.join(names)}"
            )
    pricing = load_pricing()
    for spec in dict.fromkeys(llm.roles().values()):
        check_provider(spec, base_url=llm.base_url(spec))
        provider = create_provider(
            spec, options=dict(llm.options), base_url=llm.base_url(spec), pricing=pricing
        )
        close = getattr(provider, "close", None)
        if close is not None:
            close()


def _created() -> str | None:
    # Wall-clock time would break byte-identical suites; honour the reproducible-builds
    # convention instead.
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if not epoch:
        return None
    try:
        return datetime.fromtimestamp(int(epoch), tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    except ValueError:
        return None


@dataclass(frozen=True)
class _Candidate:
    index: int
    box_id: str
    rule: Rule
    state: dict[str, Any]


@dataclass(frozen=True)
class _Outcome:
    final: dict[str, Any]
    """The graph's final state (or, for a failed candidate, its last checkpoint)."""
    error: str | None = None
    """Why a provider error stopped the candidate."""


def generate_suite(
    config: GenerateConfig,
    *,
    suites_root: Path = Path("suites"),
    backend: Backend | None = None,
    limits: SandboxLimits | None = None,
    progress: ProgressFn | None = None,
    on_retry: RetryHook | None = None,
    retry: RetryPolicy | None = None,
    checkpoint: bool | None = None,
) -> GenerateResult:
    """Generate ``config.n`` verified boxes into a suite directory and return where.

    Boxes already present and verified (from an interrupted run with the same
    arguments) are kept, not regenerated. With ``config.backend == "llm"`` and no
    ``backend`` given, the providers are preflighted, built with the suite's call
    cache, ``on_retry`` and ``retry`` (a ``providers.RetryPolicy``), and bounded to
    ``max_per_provider`` calls at once per provider name. ``checkpoint`` turns the
    per-box graph checkpoints on or off (default: on for the ``llm`` backend).

    Candidates run ``config.jobs`` at a time but are committed in index order: the
    suite is the first ``n`` accepted candidate indices, whatever the concurrency.
    A candidate stopped by a ``ProviderError`` is recorded under ``rejected/`` with
    the reason and the run goes on.
    """
    config.validate()
    family = get_family(config.category).configure(**config.family_options())
    name = default_suite_name(family.name, config.label(), config.seed, config.n)
    out = Path(config.out) if config.out else suites_root / name
    with ExitStack() as stack:
        if backend is None:
            if config.llm is not None:
                check_models(config)
                out.mkdir(parents=True, exist_ok=True)
                backend = _llm_backend(config.llm, out, stack, on_retry, retry)
            else:
                backend = create_backend(config.backend)
        out.mkdir(parents=True, exist_ok=True)
        use_checkpoints = config.backend == "llm" if checkpoint is None else checkpoint
        checkpointer = None
        if use_checkpoints:
            checkpointer = _checkpointer(out, _run_identity(family.name, config, backend.name))
            stack.callback(checkpointer.conn.close)
        result = _generate(config, family, name, out, backend, limits, progress, checkpointer)
    return result


def _generate(
    config: GenerateConfig,
    family: Family,
    name: str,
    out: Path,
    backend: Backend,
    limits: SandboxLimits | None,
    progress: ProgressFn | None,
    checkpointer: Any,
) -> GenerateResult:
    kinds = family.kinds(config.level)
    partial = out / PARTIAL_NAME
    previous = _previous_entries(out, family.name, config, backend.name)
    settings = GraphSettings(
        seed=config.seed,
        max_attempts=config.max_attempts,
        differential_inputs=config.differential_inputs,
        limits=limits,
    )
    app = build_graph(family, backend, settings, checkpointer=checkpointer)
    entries: list[BoxEntry] = []
    rejected: list[str] = []
    failed: list[str] = []
    skipped: list[str] = []
    max_candidates = config.max_candidates or 3 * config.n
    models = _models_of(config, backend)
    pricing = load_pricing() if config.llm is not None else PricingTable()
    telemetry = out / GENERATOR_DIR / _TELEMETRY_NAME

    def candidate(index: int) -> _Candidate:
        box_id = f"{family.name}-{config.label()}-{index:04d}"
        rng = rng_for(config.seed, family.name, config.level, index)
        # Balanced families (DFA) cycle through their kinds so every bucket gets its share.
        kind = kinds[index % len(kinds)] if family.balanced_kinds else None
        rule = family.sample_rule(rng, config.level, kind)
        state: dict[str, Any] = {
            "box_id": box_id,
            "family": family.name,
            "level": config.level,
            "kind": rule.kind,
            "params": dict(rule.params),
        }
        return _Candidate(index, box_id, rule, state)

    def run(cand: _Candidate) -> _Outcome:
        return _run_candidate(app, cand, config.max_attempts, checkpointer is not None)

    def commit(cand: _Candidate, outcome: _Outcome) -> str:
        final = outcome.final
        raw = [Attempt.model_validate(a) for a in final.get("attempts", [])]
        if any(a.calls for a in raw):
            _append_telemetry(telemetry, cand.box_id, raw)
        attempts = [_reproducible(a, pricing) for a in raw]
        layers = sorted(final.get("report", {}).get("layers", []))
        provenance = Provenance(
            backend=backend.name,
            tool_version=__version__,
            accepted=outcome.error is None and final.get("status") == "accepted",
            attempts=attempts,
            models=models,
            sandbox_layers=layers,
        )
        if provenance.accepted:
            entries.append(_write_accepted(out, family, config, cand, final, provenance))
            # A journal of accepted boxes, so a killed run resumes instead of redoing them.
            write_suite(
                out,
                _suite_info(name, family.name, config, backend.name, entries, rejected),
                PARTIAL_NAME,
            )
            return "accepted"
        rejected.append(cand.box_id)
        if outcome.error is not None:
            failed.append(cand.box_id)
            reason = f"provider error: {outcome.error}"
            logger.warning("%s failed: %s", cand.box_id, outcome.error)
        else:
            reason = f"no attempt passed verification ({len(attempts)} of {config.max_attempts})"
            logger.warning("rejected %s after %d attempt(s)", cand.box_id, len(attempts))
        record = {
            "id": cand.box_id,
            "kind": cand.rule.kind,
            "params": dict(cand.rule.params),
            "outcome": "failed" if outcome.error is not None else "rejected",
            "reason": reason,
            "provenance": provenance.model_dump(mode="json"),
            "last_code": final.get("code", ""),
        }
        atomic_write_text(out / "rejected" / f"{cand.box_id}.json", canonical_json(record))
        return "failed" if outcome.error is not None else "rejected"

    # Candidates are submitted in index order and committed in index order. At most
    # ``jobs`` run at once, and never more than the boxes still missing: with every
    # candidate accepted no work is wasted, and the committed prefix is exactly what a
    # one-job run commits.
    pending: dict[int, Future[_Outcome] | None] = {}
    candidates: dict[int, _Candidate] = {}
    submitted = committed = 0
    with ThreadPoolExecutor(max_workers=config.jobs, thread_name_prefix="oracle-gen") as pool:
        try:
            while len(entries) < config.n and committed < max_candidates:
                while submitted < max_candidates and len(pending) < min(
                    config.jobs, config.n - len(entries)
                ):
                    cand = candidate(submitted)
                    candidates[submitted] = cand
                    reused = previous.get(cand.box_id)
                    if reused is not None and _still_valid(out, reused):
                        pending[submitted] = None
                    else:
                        pending[submitted] = pool.submit(run, cand)
                    submitted += 1
                cand = candidates.pop(committed)
                future = pending.pop(committed)
                committed += 1
                if future is None:
                    reused = previous[cand.box_id]
                    entries.append(reused)
                    skipped.append(cand.box_id)
                    status = "kept"
                else:
                    status = commit(cand, future.result())
                if progress:
                    progress(len(entries), config.n, cand.box_id, status)
        finally:
            for future in pending.values():
                if future is not None:
                    future.cancel()
    if len(entries) < config.n:
        raise GenerationError(
            f"only {len(entries)} of {config.n} boxes passed verification after "
            f"{committed} candidates; see {out / 'rejected'}"
        )
    _remove_stale(out, {e.id for e in entries}, set(rejected))
    write_suite(out, _suite_info(name, family.name, config, backend.name, entries, rejected))
    partial.unlink(missing_ok=True)
    return GenerateResult(
        path=out,
        accepted=[e.id for e in entries],
        rejected=rejected,
        skipped=skipped,
        failed=failed,
    )


def _run_candidate(app: Any, cand: _Candidate, max_attempts: int, checkpointed: bool) -> _Outcome:
    """Run one candidate's graph, resuming its checkpoint when there is one."""
    config: dict[str, Any] = {"recursion_limit": recursion_limit(max_attempts)}
    if not checkpointed:
        try:
            return _Outcome(dict(app.invoke(cand.state, config)))
        except ProviderError as exc:
            return _Outcome({}, str(exc))
    config["configurable"] = {"thread_id": cand.box_id}
    try:
        snapshot = app.get_state(config)
        if snapshot.next:
            logger.info("%s: resuming at %s", cand.box_id, ", ".join(snapshot.next))
            final = app.invoke(None, config)
        elif snapshot.values.get("status"):
            logger.info("%s: finished in an earlier run", cand.box_id)
            final = snapshot.values
        else:
            if snapshot.values:  # a thread that never got going: start it afresh
                app.checkpointer.delete_thread(cand.box_id)
            final = app.invoke(cand.state, config)
        return _Outcome(dict(final))
    except ProviderError as exc:
        # The node that failed is not committed: a later run resumes right there.
        return _Outcome(dict(app.get_state(config).values), str(exc))


def _write_accepted(
    out: Path,
    family: Family,
    config: GenerateConfig,
    cand: _Candidate,
    final: dict[str, Any],
    provenance: Provenance,
) -> BoxEntry:
    info = family.box_info(cand.box_id, cand.rule)
    test_seed = seed_for(config.seed, family.name, config.level, cand.index, "test")
    hidden = family.hidden_info(cand.rule, test_seed)
    if not final.get("has_reference", True):
        # An LLM-designed rule: no trusted reference, so nothing is known of its space.
        info = info.model_copy(
            update={
                "has_reference": False,
                "rule_kind": DESIGNED_KIND,
                "log2_h": None,
                "t_info": None,
            }
        )
        hidden = hidden.model_copy(
            update={
                "rule_kind": DESIGNED_KIND,
                "params": {},
                "description": final.get("description", ""),
            }
        )
    return write_box(out, info, final["code"], hidden, provenance)


def _reproducible(attempt: Attempt, pricing: PricingTable) -> Attempt:
    """The attempt as provenance.json records it.

    A call's latency and retries are the measured ones (a call replayed from the call
    cache of a resumed run keeps the values measured when it was made); its cost is what
    its tokens cost at the pricing table, since a replayed call reports 0 (what the
    *resumed run* paid). Whether a call was replayed goes to ``.generator/telemetry.jsonl``
    only. So two runs of the same LLM suite differ only in the measured ``latency_s`` and
    ``retries`` fields (and suite.json's digests of those provenance files).
    """
    if not attempt.calls:
        return attempt
    calls = [
        c.model_copy(
            update={
                "cached": False,
                "cost_usd": pricing.price(c.model, Usage.model_validate(c.usage)),
            }
        )
        for c in attempt.calls
    ]
    summary = attempt_summary(calls)
    return attempt.model_copy(
        update={
            "calls": calls,
            "tokens": summary["tokens"],
            "cost_usd": summary["cost_usd"],
            "latency_s": summary["latency_s"],
        }
    )


def _append_telemetry(path: Path, box_id: str, attempts: list[Attempt]) -> None:
    """One line per committed candidate: how its calls went in this run (or the earlier)."""
    calls = [
        {
            "attempt": a.index,
            "role": c.role,
            "model": c.model,
            "latency_s": c.latency_s,
            "retries": c.retries,
            "cached": c.cached,
            "cost_usd": c.cost_usd,
        }
        for a in attempts
        for c in a.calls
    ]
    line = json.dumps({"id": box_id, "calls": calls}, sort_keys=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as fh:
        fh.write(line + "\n")


def _models_of(config: GenerateConfig, backend: Backend) -> dict[str, str]:
    """provenance.json's ``models``: role -> ``provider/model``, and the model options."""
    if config.llm is None:
        return {}
    models = dict(getattr(backend, "models", None) or config.llm.roles())
    if config.llm.options:
        models["options"] = json.dumps(
            config.llm.identity()["options"], sort_keys=True, separators=(",", ":")
        )
    return models


def _llm_backend(
    llm: LlmModels,
    out: Path,
    stack: ExitStack,
    on_retry: RetryHook | None,
    retry: RetryPolicy | None,
) -> Backend:
    from generator.llm_backend import create_llm_backend
    from providers import CallCache, create_provider

    cache = stack.enter_context(CallCache(out / GENERATOR_DIR / CACHE_NAME))

    def provider(spec: str) -> Any:
        return create_provider(
            spec,
            options=dict(llm.options),
            base_url=llm.base_url(spec),
            on_retry=on_retry,
            retry=retry,
            cache=cache,
            max_concurrency=llm.max_per_provider,
        )

    return create_llm_backend(
        coder=provider(llm.coder),
        refiner=provider(llm.refiner),
        tester=provider(llm.tester) if llm.tester is not None else None,
        design=llm.design,
    )


def _run_identity(family: str, config: GenerateConfig, backend: str) -> dict[str, Any]:
    """Everything a checkpointed graph state depends on."""
    return {
        "family": family,
        "level": config.level,
        "seed": config.seed,
        "backend": backend,
        "tool_version": __version__,
        "options": _options_json(config),
        "max_attempts": config.max_attempts,
        "differential_inputs": config.differential_inputs,
    }


def _checkpointer(out: Path, identity: dict[str, Any]) -> Any:
    """The suite's SQLite checkpointer; emptied when the run's arguments changed."""
    from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
    from langgraph.checkpoint.sqlite import SqliteSaver

    work = out / GENERATOR_DIR
    work.mkdir(parents=True, exist_ok=True)
    path = work / CHECKPOINTS_NAME
    run_file = work / _RUN_NAME
    recorded: Any = None
    if run_file.exists():
        try:
            recorded = json.loads(run_file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            recorded = None
    if recorded != identity:
        if path.exists():
            logger.info("%s was made with other arguments; starting it afresh", path)
        for stale in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
            stale.unlink(missing_ok=True)
        atomic_write_text(run_file, canonical_json(identity))
    conn = sqlite3.connect(path, check_same_thread=False, timeout=30.0)
    conn.execute("PRAGMA journal_mode=WAL")
    # The state is JSON-like: refuse to deserialise anything but the safe built-in types.
    return SqliteSaver(conn, serde=JsonPlusSerializer(allowed_msgpack_modules=None))


def _suite_info(
    name: str,
    family: str,
    config: GenerateConfig,
    backend: str,
    entries: list[BoxEntry],
    rejected: list[str],
) -> SuiteInfo:
    return SuiteInfo(
        name=name,
        seed=config.seed,
        family=family,
        level=config.level,
        created=_created(),
        tool_version=__version__,
        backend=backend,
        options=_options_json(config),
        boxes=list(entries),
        rejected=list(rejected),
    )


def _options_json(config: GenerateConfig) -> dict[str, Any]:
    """Family options, plus ``llm``: the models, design and model options of an LLM run."""
    options: dict[str, Any] = {
        k: list(v) if isinstance(v, tuple) else v for k, v in config.family_options().items()
    }
    if config.llm is not None:
        options["llm"] = config.llm.identity()
    return options


def _previous_entries(
    out: Path, family: str, config: GenerateConfig, backend: str
) -> dict[str, BoxEntry]:
    """Boxes a previous run with the same arguments finished (suite.json or the journal).

    The same arguments: family, level, seed, backend, tool version, family options and,
    for the ``llm`` backend, the models, design and model options.
    """
    for manifest in (out / "suite.json", out / PARTIAL_NAME):
        if not manifest.exists():
            continue
        try:
            suite = load_suite(out, manifest.name)
        except BoxError:
            logger.warning("ignoring unreadable %s; regenerating", manifest)
            continue
        same = (
            suite.family,
            suite.level,
            suite.seed,
            suite.backend,
            suite.tool_version,
            suite.options,
        ) == (family, config.level, config.seed, backend, __version__, _options_json(config))
        if same:
            return {e.id: e for e in suite.boxes}
        logger.info("%s was made with other arguments; regenerating", manifest)
    return {}


def _still_valid(out: Path, entry: BoxEntry) -> bool:
    try:
        load_box(out, entry)
    except BoxError:
        return False
    return True


def _remove_stale(out: Path, keep: set[str], rejected: set[str]) -> None:
    """Delete box folders and rejection records not in this suite (left by an earlier run)."""
    boxes = out / "boxes"
    if boxes.is_dir():
        for child in boxes.iterdir():
            if child.is_dir() and child.name not in keep:
                shutil.rmtree(child)
    records = out / "rejected"
    if records.is_dir():
        for record in records.glob("*.json"):
            if record.stem not in rejected:
                record.unlink()
        if not any(records.iterdir()):
            records.rmdir()
