"""Generate a suite: sample rules, run each through the graph, write accepted boxes.

A suite folder belongs to the arguments that made it. A run into a folder holding a
suite made with other arguments (or files that are not a suite) is refused before any
work, naming the first argument that differs, unless ``GenerateConfig.overwrite``; a
run with the same arguments never replaces or deletes a box already written:

* a complete suite (suite.json) is left byte for byte as it is;
* an unfinished one (the ``.suite.partial.json`` journal) keeps every journalled box,
  and candidates run only to fill the slots still missing.

One run at a time writes into a folder (``oracle_bench.lock.FolderLock`` on
``.generator/lock``). A run is resumable at three levels, so an ``oracle-gen`` killed at
any moment (even with SIGKILL) and started again with the same arguments finishes the
suite without redoing work:

* written boxes and rejected candidates are journalled in ``.suite.partial.json`` as
  they are committed;
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
import re
import secrets
import sqlite3
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from blackboxes.box import Attempt, BoxEntry, Level, Provenance, SuiteInfo, SuiteOwnerInfo
from blackboxes.families import LEVELS, Family, Rule, get_family
from blackboxes.store import WrittenBox, load_box, seed_commitment, write_box, write_suite
from generator._designs import DESIGNS, Design
from generator._folder import (
    CACHE_NAME,
    GENERATOR_DIR,
    PARTIAL_NAME,
    SUITE_NAME,
    Found,
    SuiteExistsError,
    SuiteFolder,
    clear_suite,
    lock_suite,
    read_folder,
)
from generator.backends import Backend, create_backend
from generator.graph import (
    DESIGNED_KIND,
    GraphSettings,
    attempt_summary,
    build_graph,
    recursion_limit,
)
from generator.tester import DEFAULT_TESTER_BUDGET_S, describe_checks
from oracle_bench import __version__
from oracle_bench._executor import ExecutorChoice, current_executor, import_ray
from oracle_bench.errors import (
    BoxError,
    CorruptBoxError,
    GenerationError,
    ProviderConfigError,
    ProviderError,
    UnknownNameError,
    UsageError,
)
from oracle_bench.jsonio import atomic_write_text, canonical_json
from oracle_bench.lock import FolderLock
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
    "SuiteExistsError",
    "SuiteFolder",
    "check_models",
    "default_suite_name",
    "generate_suite",
    "inspect_suite",
    "lock_suite",
    "suite_path",
]

logger = logging.getLogger(__name__)

CHECKPOINTS_NAME = "checkpoints.sqlite"
_RUN_NAME = "run.json"
_TELEMETRY_NAME = "telemetry.jsonl"

ProgressFn = Callable[[int, int, str, str], None]
"""(boxes in the suite so far, target, box id, status) after each candidate, in index order.

Status is ``kept`` (a box an earlier run wrote), ``accepted``, ``rejected`` or
``failed`` (a provider error the retry layer gave up on).
"""
StartFn = Callable[[SuiteFolder], None]
"""Called once the folder is locked and checked and the models preflighted, before the
first candidate runs (not when the suite is complete already)."""


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
    timeout: float = 600.0
    """Seconds per LLM call attempt (``--timeout``); each retry gets as long again."""

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
        if not self.timeout > 0:
            raise UsageError(f"--timeout must be > 0 seconds, not {self.timeout:g}")


@dataclass(frozen=True)
class GenerateConfig:
    category: str
    level: Level
    n: int = 20
    seed: int | None = None
    """The suite seed. None (the default): a secret random seed, kept in owner.json only
    (suite.json records a commitment); an int: a public seed, so anyone can regenerate
    the suite byte for byte."""
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
    query_length: int | None = None
    """ERI only: the longest query in characters (default: 32 easy, 8 hard)."""
    output_mode: str | None = None
    """CRI only: ``outputs`` (default) or ``gates``."""
    answers: str | None = None
    """PSI only: ``values`` (default) or ``code`` (a ``solution(t)`` program)."""
    llm: LlmModels | None = None
    """The models of the ``llm`` backend (required with it, refused without it)."""
    jobs: int = 1
    """Candidates generated at once; the suite is the same for every value."""
    overwrite: bool = False
    """Replace what ``out`` holds when it is not this run's suite (``--overwrite``)."""
    tester_budget_s: float | None = DEFAULT_TESTER_BUDGET_S
    """Wall-clock seconds per tester run of a candidate attempt (None: unbounded)."""

    def family_options(self) -> dict[str, Any]:
        """The family options this config sets (``Family.configure`` keywords)."""
        options = {
            "states": self.states,
            "counterexamples": self.counterexamples,
            "alphabet_size": self.alphabet_size,
            "query_length": self.query_length,
            "output_mode": self.output_mode,
            "answers": self.answers,
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
        if self.answers == "code":
            label += "-code"
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
        if self.tester_budget_s is not None and not self.tester_budget_s > 0:
            raise UsageError(f"the tester's budget must be > 0 seconds, not {self.tester_budget_s}")
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
    unchanged: bool = False
    """The suite was complete already: every box kept, nothing written."""


def default_suite_name(category: str, label: str, seed: int | None, n: int) -> str:
    """``<CAT>-<level or state range>-seed<S>-n<N>``, or ``<CAT>-<label>-n<N>`` for a
    secret seed (a name must not carry it)."""
    if seed is None:
        return f"{category.upper()}-{label}-n{n}"
    return f"{category.upper()}-{label}-seed{seed}-n{n}"


def new_secret_seed() -> int:
    """A secret suite seed: 128 bits from the operating system's CSPRNG."""
    return secrets.randbits(128)


def check_models(config: GenerateConfig) -> None:
    """Preflight the ``llm`` backend's models before any work starts (and any file is
    written).

    Raises ``ProviderConfigError`` (a ``UsageError``) naming what to set: an unknown
    provider or model string, a ``--base-url`` for an unknown provider, a missing API key,
    a malformed base URL, a server that cannot be reached (the base URL, or the vendor's
    API when a key is set: a connect within a few seconds), a missing scripted file,
    model options the provider refuses (``max_tokens=abc``, a reserved request field), a
    bad pricing file (``ORACLE_BENCH_PRICING``). Each provider is built once, as the run
    will build it (building one never contacts its server), and dropped. Does nothing
    for other backends.
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
            spec,
            options=dict(llm.options),
            base_url=llm.base_url(spec),
            pricing=pricing,
            timeout=llm.timeout,
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


def suite_path(config: GenerateConfig, *, suites_root: Path = Path("suites")) -> Path:
    """The folder a run writes: ``config.out``, else ``<suites_root>/<default name>``."""
    if config.out:
        return Path(config.out)
    family = get_family(config.category).configure(**config.family_options())
    return suites_root / default_suite_name(family.name, config.label(), config.seed, config.n)


def inspect_suite(
    config: GenerateConfig, *, suites_root: Path = Path("suites"), backend: str | None = None
) -> SuiteFolder:
    """What the run's folder holds and what the run will do with it; reads only.

    A suite made with other arguments (the first one that differs is named), an
    unreadable manifest or a non-empty folder that is not a suite raises
    ``SuiteExistsError`` (a ``UsageError``: exit 2), unless ``config.overwrite``: the
    folder is then ``new`` and ``replaces`` says what goes. ``backend`` is the backend's
    name when it is not ``config.backend`` (a custom ``Backend`` object).
    """
    family = get_family(config.category).configure(**config.family_options())
    out = suite_path(config, suites_root=suites_root)
    found = read_folder(out)
    refusal = _refusal(out, found, config, family.name, backend or config.backend)
    if refusal is not None:
        if not config.overwrite:
            raise SuiteExistsError(f"{refusal}: use --overwrite to replace it, or another --out")
        return SuiteFolder(out, "new", replaces=refusal)
    if found.manifest is None:
        return SuiteFolder(out, "new")
    return SuiteFolder(
        out,
        "complete" if found.complete else "resume",
        tuple(found.manifest.boxes),
        tuple(found.manifest.rejected),
        owner=found.owner,
    )


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
    on_start: StartFn | None = None,
    executor: str | None = None,
    executor_options: Mapping[str, Any] | None = None,
) -> GenerateResult:
    """Generate ``config.n`` verified boxes into a suite folder and return where.

    Before any work: the folder is checked (``inspect_suite``: a suite made with other
    arguments is refused, or replaced with ``config.overwrite``), locked for the whole
    run (``lock_suite``: a second run into the same folder raises ``FolderLockedError``)
    and, with ``config.backend == "llm"`` and no ``backend`` given, the models are
    preflighted (``check_models``); each of these raises a ``UsageError``.

    A complete suite made with the same arguments is kept as it is (``unchanged``). An
    unfinished one keeps every journalled box; candidates run only for the slots still
    missing, so a box once written is never replaced. The ``llm`` providers are built
    with the suite's call cache, ``on_retry`` and ``retry`` (a ``providers.RetryPolicy``)
    and bounded to ``max_per_provider`` calls at once per provider name. ``checkpoint``
    turns the per-box graph checkpoints on or off (default: on for the ``llm`` backend).

    Candidates run ``config.jobs`` at a time but are committed in index order: with no
    journalled boxes, the suite is the first ``n`` accepted candidate indices, whatever
    the concurrency. A candidate stopped by a ``ProviderError`` is recorded under
    ``rejected/`` with the reason and the run goes on.

    ``executor`` runs the candidates: ``local`` threads or ``ray`` tasks (default: the
    one set by ``use_executor``, else ``local``; ``executor_options={"address": ...}``
    for Ray); the suite is the same either way. Ray runs backends without per-run files
    only (the procedural one): ``UsageError`` for the ``llm`` backend or checkpoints.
    """
    config.validate()
    runs_on = _executor_choice(executor, executor_options, config, backend, checkpoint)
    family = get_family(config.category).configure(**config.family_options())
    name = default_suite_name(family.name, config.label(), config.seed, config.n)
    backend_name = backend.name if backend is not None else config.backend
    out = suite_path(config, suites_root=suites_root)
    with ExitStack() as stack:
        # Refuse early, reading only; lock before the preflight when the folder exists
        # (a second run fails at once), after it when it does not (a failed preflight
        # leaves no folder behind); then look again, under the lock.
        folder = inspect_suite(config, suites_root=suites_root, backend=backend_name)
        lock: FolderLock | None = None
        if out.exists():
            lock = lock_suite(out)
            stack.callback(lock.release)
            folder = inspect_suite(config, suites_root=suites_root, backend=backend_name)
        if folder.state != "complete" and backend is None:
            check_models(config)
        if lock is None:
            lock = lock_suite(out)
            stack.callback(lock.release)
            folder = inspect_suite(config, suites_root=suites_root, backend=backend_name)
        try:
            kept = {e.id: _verified(out, e, folder.owner) for e in folder.boxes}
        except BoxError as exc:
            if not config.overwrite:
                raise GenerationError(
                    f"{exc}; the suite is left as it is: use --overwrite to make it again"
                ) from exc
            folder = SuiteFolder(out, "new", replaces=f"{out} holds a damaged suite ({exc})")
            kept = {}
        if folder.state == "complete":
            logger.info("%s is complete: kept %d boxes", out, len(kept))
            return GenerateResult(
                path=out,
                accepted=list(kept),
                rejected=[],
                skipped=list(kept),
                unchanged=True,
            )
        if folder.replaces is not None:
            logger.warning("%s; replacing it (--overwrite)", folder.replaces)
            clear_suite(out)
        if backend is None:
            if config.llm is not None:
                backend = _llm_backend(config.llm, out, stack, on_retry, retry)
            else:
                backend = create_backend(config.backend)
        seed = _run_seed(config, folder)
        use_checkpoints = config.backend == "llm" if checkpoint is None else checkpoint
        checkpointer = None
        if use_checkpoints:
            identity = _run_identity(family.name, config, backend.name, seed)
            checkpointer = _checkpointer(out, identity)
            stack.callback(checkpointer.conn.close)
        if on_start is not None:
            on_start(folder)
        run = _Run(config, family, name, out, backend, checkpointer, folder, seed, runs_on)
        return run.generate(limits, progress)


_EXECUTORS = ("local", "ray")


def _executor_choice(
    name: str | None,
    options: Mapping[str, Any] | None,
    config: GenerateConfig,
    backend: Backend | None,
    checkpoint: bool | None,
) -> ExecutorChoice:
    """The executor of the candidates, checked before any work."""
    if name is None:
        ambient = current_executor()
        name, options = ambient.name, {**ambient.options, **(options or {})}
    options = dict(options or {})
    if name not in _EXECUTORS:
        raise UnknownNameError("executor", name, list(_EXECUTORS))
    if name == "local":
        if options:
            raise UsageError(f"the local executor takes no option {', '.join(sorted(options))}")
        return ExecutorChoice(name, options)
    unknown = sorted(set(options) - {"address"})
    if unknown:
        raise UsageError(f"the ray executor takes no option {', '.join(unknown)} (only address)")
    backend_name = backend.name if backend is not None else config.backend
    if backend_name == "llm" or config.llm is not None or checkpoint:
        raise UsageError(
            "--executor ray generates with the procedural backend only: the llm backend's "
            "checkpoints and call cache are files of the suite folder"
        )
    import_ray()  # Ray missing: one line before any work
    return ExecutorChoice(name, options)


def _verified(out: Path, entry: BoxEntry, owner: SuiteOwnerInfo | None) -> BoxEntry:
    """The entry of a box already written, after checking its files against it (a
    missing or tampered box raises its ``BoxError``: it is never regenerated behind the
    user's back; ``--overwrite`` makes the suite again)."""
    if owner is None:  # pragma: no cover - a manifest is read with its owner file
        raise CorruptBoxError("no owner file for the suite's manifest", out)
    load_box(out, entry, owner)
    return entry


@dataclass(frozen=True)
class _Difference:
    flag: str
    recorded: Any
    requested: Any

    def render(self) -> str:
        if self.requested is None:
            return f"made with {self.flag} {self.recorded}, not without it"
        if self.recorded is None:
            return f"made without {self.flag}, not with {self.flag} {self.requested}"
        return f"made with {self.flag} {self.recorded}, not {self.flag} {self.requested}"


_NAME = re.compile(r"^(?P<category>[^-]+)-(?P<label>.+?)(?:-seed-?\d+)?-n(?P<n>\d+)$")


def _run_seed(config: GenerateConfig, folder: SuiteFolder) -> int:
    """The seed this run generates with: ``--seed``, else the secret seed of the suite it
    continues (from its owner file), else a new secret seed."""
    if config.seed is not None:
        return config.seed
    if folder.owner is not None and not folder.owner.public:
        return folder.owner.seed
    return new_secret_seed()


def _suite_arguments(suite: SuiteInfo) -> dict[str, Any]:
    """The arguments a manifest records, as ``{flag: value}`` in command-line order:
    what "the same arguments" means, compared key by key (``_first_difference``).

    The ONE place that reads them back, the seed included; this run's are read back from
    the manifest it would write (``_suite_info``), so the two sides cannot drift apart.
    ``-n`` comes from the suite's name (a journal lists only the boxes written so far).
    """
    options = dict(suite.options)
    llm = options.pop("llm", None)
    match = _NAME.match(suite.name)
    args: dict[str, Any] = {"--category": suite.family, "--level": suite.level}
    for key in sorted(options):
        value = options[key]
        if key == "states" and isinstance(value, list) and len(value) == 2:
            value = f"{value[0]}-{value[1]}"
        args["--" + key.replace("_", "-")] = value
    args["-n"] = int(match.group("n")) if match else None
    # A secret seed is "no --seed": a rerun without --seed continues the suite with the
    # seed its owner file keeps.
    args["--seed"] = suite.seed
    args["--backend"] = suite.backend
    if isinstance(llm, dict):
        for role in ("coder", "refiner", "tester"):
            args["--" + role] = llm.get(role)
        args["--design"] = llm.get("design")
        model_options = llm.get("options") or {}
        # Shown after the flag: "-M temperature=0 -M max_tokens=9".
        shown = " -M ".join(f"{k}={json.dumps(model_options[k])}" for k in sorted(model_options))
        args["-M"] = shown or None
    args["oracle-bench"] = suite.tool_version
    return args


def _first_difference(recorded: SuiteInfo, requested: SuiteInfo) -> _Difference | None:
    """The first argument (in command-line order) in which two manifests differ."""
    theirs, ours = _suite_arguments(recorded), _suite_arguments(requested)
    for flag in [*ours, *(k for k in theirs if k not in ours)]:
        if theirs.get(flag) != ours.get(flag):
            return _Difference(flag, theirs.get(flag), ours.get(flag))
    return None


def _suite_label(suite: SuiteInfo) -> str:
    """``an ERI easy suite``, ``a DFA states4-5 suite``."""
    match = _NAME.match(suite.name)
    label = match.group("label") if match else suite.level
    # Spelled out, these letters start with a vowel sound: "an ERI", "an M...".
    article = "an" if suite.family[:1].upper() in set("AEFHILMNORSX") else "a"
    return f"{article} {suite.family} {label} suite"


def _refusal(
    out: Path, found: Found, config: GenerateConfig, family: str, backend: str
) -> str | None:
    """Why this run may not write into ``out`` as it is, or None."""
    if found.unreadable is not None:
        return f"{out} holds a suite manifest that cannot be read ({found.unreadable})"
    if found.manifest is None:
        if found.other:
            shown = ", ".join(found.other[:5]) + (", ..." if len(found.other) > 5 else "")
            return f"{out} is not empty and holds no suite (found {shown})"
        return None
    requested = _suite_info(
        default_suite_name(family, config.label(), config.seed, config.n),
        family,
        config,
        backend,
        [],
        [],
        config.seed if config.seed is not None else 0,
    )
    difference = _first_difference(found.manifest, requested)
    if difference is None:
        return None
    what = _suite_label(found.manifest)
    if not found.complete:
        what = what.replace(" suite", " suite (unfinished)", 1)
    return f"{out} holds {what} {difference.render()}"


class _Run:
    """One run's candidates: which to run, in what order, and what to write."""

    def __init__(
        self,
        config: GenerateConfig,
        family: Family,
        name: str,
        out: Path,
        backend: Backend,
        checkpointer: Any,
        folder: SuiteFolder,
        seed: int,
        executor: ExecutorChoice | None = None,
    ) -> None:
        self.config = config
        self.executor = executor or ExecutorChoice()
        self.family = family
        self.name = name
        self.out = out
        self.backend = backend
        self.checkpointer = checkpointer
        self.prefix = f"{family.name}-{config.label()}-"
        manifest = out / (PARTIAL_NAME if folder.state == "resume" else SUITE_NAME)
        self.seed = seed
        # Index -> entry of the boxes already written: kept whatever this run does.
        self.kept = {self._index(e.id, manifest): e for e in folder.boxes}
        # Box id -> file digests (owner.json) of every box in the suite.
        self.files: dict[str, dict[str, str]] = {
            e.id: dict(folder.owner.files[e.id])
            for e in folder.boxes
            if folder.owner is not None and e.id in folder.owner.files
        }
        self.new: dict[int, BoxEntry] = {}
        # Index -> id of every candidate the suite records as rejected (earlier runs too).
        self.rejected = {self._index(r, manifest): r for r in folder.rejected}
        self.rejected_now: list[str] = []
        self.failed: list[str] = []
        self.models = _models_of(config, backend)
        self.pricing = load_pricing() if config.llm is not None else PricingTable()
        self.telemetry = out / GENERATOR_DIR / _TELEMETRY_NAME

    def _index(self, box_id: str, manifest: Path) -> int:
        digits = box_id[len(self.prefix) :]
        if not box_id.startswith(self.prefix) or not digits.isdigit():
            raise CorruptBoxError(f"box id {box_id!r} is not one of this suite's", manifest)
        return int(digits)

    def candidate(self, index: int) -> _Candidate:
        family, config = self.family, self.config
        box_id = f"{self.prefix}{index:04d}"
        rng = rng_for(self.seed, family.name, config.level, index)
        # Balanced families (DFA) go through their kinds in blocks so every bucket gets
        # its share; each block in its own seeded order, so a box's index does not tell
        # its kind (the state count of a DFA box is the owner's).
        kind = None
        if family.balanced_kinds:
            kinds = family.kinds(config.level)
            block = index // len(kinds)
            order = rng_for(self.seed, family.name, config.level, "kinds", block).sample(
                kinds, len(kinds)
            )
            kind = order[index % len(kinds)]
        rule = family.sample_rule(rng, config.level, kind)
        state: dict[str, Any] = {
            "box_id": box_id,
            "family": family.name,
            "level": config.level,
            "kind": rule.kind,
            "params": dict(rule.params),
        }
        return _Candidate(index, box_id, rule, state)

    def entries(self) -> list[BoxEntry]:
        both = {**self.kept, **self.new}
        return [both[i] for i in sorted(both)]

    def write_manifest(self, name: str = PARTIAL_NAME) -> None:
        rejected = [self.rejected[i] for i in sorted(self.rejected)]
        entries = self.entries()
        info = _suite_info(
            self.name,
            self.family.name,
            self.config,
            self.backend.name,
            entries,
            rejected,
            self.seed,
        )
        owner = SuiteOwnerInfo(
            seed=self.seed,
            public=self.config.seed is not None,
            files={e.id: self.files[e.id] for e in entries},
        )
        write_suite(self.out, info, owner, name)

    def generate(self, limits: SandboxLimits | None, progress: ProgressFn | None) -> GenerateResult:
        config = self.config
        settings = GraphSettings(
            seed=self.seed,
            max_attempts=config.max_attempts,
            differential_inputs=config.differential_inputs,
            limits=limits,
            tester_budget_s=config.tester_budget_s,
        )
        app = build_graph(self.family, self.backend, settings, checkpointer=self.checkpointer)
        checkpointed = self.checkpointer is not None
        # The folder is this suite's from the start: a rerun recognises it even before
        # the first box is written.
        self.write_manifest()
        target = max(0, config.n - len(self.kept))
        max_candidates = config.max_candidates or 3 * config.n
        last_kept = max(self.kept, default=-1)
        queue: deque[tuple[_Candidate, Future[_Outcome] | None]] = deque()
        index = accepted = running = 0
        with self._candidates(app, settings, checkpointed) as submit:
            try:
                while True:
                    # Walk the indices in order: a kept box takes its place in the queue;
                    # another index runs only while slots are missing, at most ``jobs`` at
                    # once and never more than the slots still missing, so with nothing
                    # kept the committed prefix is exactly what a one-job run commits.
                    while True:
                        if index in self.kept:
                            queue.append((self.candidate(index), None))
                            index += 1
                            continue
                        if accepted + running < target and index < max_candidates:
                            if running >= config.jobs:
                                break
                            cand = self.candidate(index)
                            future = submit(cand)
                            queue.append((cand, future))
                            running += 1
                            index += 1
                            continue
                        # Not needed now. While candidates run, one may still fail and
                        # need this index; with none running, skip it to reach the kept
                        # boxes further on.
                        if running or index > last_kept:
                            break
                        index += 1
                    if not queue:
                        break
                    cand, pending = queue.popleft()
                    if pending is None:
                        status = "kept"
                    else:
                        outcome = pending.result()
                        running -= 1
                        status = self.commit(cand, outcome)
                        accepted += status == "accepted"
                    if progress:
                        progress(len(self.kept) + len(self.new), config.n, cand.box_id, status)
            finally:
                for _, pending in queue:
                    if pending is not None:
                        pending.cancel()
        entries = self.entries()
        if len(entries) < config.n:
            raise GenerationError(
                f"only {len(entries)} of {config.n} boxes passed verification after "
                f"{index} candidates; see {self.out / 'rejected'}"
            )
        self.write_manifest(SUITE_NAME)
        (self.out / PARTIAL_NAME).unlink(missing_ok=True)
        return GenerateResult(
            path=self.out,
            accepted=[e.id for e in entries],
            rejected=list(self.rejected_now),
            skipped=[self.kept[i].id for i in sorted(self.kept)],
            failed=list(self.failed),
        )

    @contextmanager
    def _candidates(
        self, app: Any, settings: GraphSettings, checkpointed: bool
    ) -> Iterator[Callable[[_Candidate], Future[_Outcome]]]:
        """``submit(candidate)`` -> its outcome's future, on this run's executor: threads
        here, ``config.jobs`` at a time, or Ray tasks (``generator._ray``)."""
        config = self.config
        if self.executor.name == "ray":
            from generator._ray import ray_candidates

            with ray_candidates(
                self.executor.options, self.family, self.backend, settings, config.max_attempts
            ) as submit:
                yield submit
            return
        with ThreadPoolExecutor(max_workers=config.jobs, thread_name_prefix="oracle-gen") as pool:
            yield lambda cand: pool.submit(
                _run_candidate, app, cand, config.max_attempts, checkpointed
            )

    def commit(self, cand: _Candidate, outcome: _Outcome) -> str:
        """Write an accepted box or a rejection record, then the journal."""
        config, out = self.config, self.out
        final = outcome.final
        raw = [Attempt.model_validate(a) for a in final.get("attempts", [])]
        if any(a.calls for a in raw):
            _append_telemetry(self.telemetry, cand.box_id, raw)
        attempts = [_reproducible(a, self.pricing) for a in raw]
        layers = sorted(final.get("report", {}).get("layers", []))
        provenance = Provenance(
            backend=self.backend.name,
            tool_version=__version__,
            accepted=outcome.error is None and final.get("status") == "accepted",
            attempts=attempts,
            models=self.models,
            sandbox_layers=layers,
        )
        if provenance.accepted:
            written = _write_accepted(out, self.family, config, cand, final, provenance, self.seed)
            self.new[cand.index] = written.entry
            self.files[cand.box_id] = written.files
            if self.rejected.pop(cand.index, None) is not None:
                # An earlier run's failure of this candidate, now accepted: its record
                # would contradict the box.
                records = out / "rejected"
                (records / f"{cand.box_id}.json").unlink(missing_ok=True)
                if records.is_dir() and not any(records.iterdir()):
                    records.rmdir()
            self.write_manifest()
            return "accepted"
        self.rejected[cand.index] = cand.box_id
        self.rejected_now.append(cand.box_id)
        if outcome.error is not None:
            self.failed.append(cand.box_id)
            reason = f"provider error: {outcome.error}"
            logger.warning("%s failed: %s", cand.box_id, outcome.error)
        else:
            reason = f"no attempt passed verification ({len(attempts)} of {config.max_attempts})"
            if attempts:
                reason += f"; last attempt: {_attempt_summary(attempts[-1])}"
            logger.warning("rejected %s after %d attempt(s)", cand.box_id, len(attempts))
        formal = final.get("formal", False)
        record = {
            "id": cand.box_id,
            "kind": final["kind"] if formal else cand.rule.kind,
            "params": dict(final["params"] if formal else cand.rule.params),
            "outcome": "failed" if outcome.error is not None else "rejected",
            "reason": reason,
            "provenance": provenance.model_dump(mode="json"),
            "last_code": final.get("code", ""),
        }
        atomic_write_text(out / "rejected" / f"{cand.box_id}.json", canonical_json(record))
        self.write_manifest()
        return "failed" if outcome.error is not None else "rejected"


_SUMMARY_CHARS = 300


def _attempt_summary(attempt: Attempt) -> str:
    """``checks failed: compiles; not run: ... (Line 1: import of module 'os' ...)``."""
    text = f"{attempt.verdict}, checks {describe_checks(attempt.checks)}"
    # The first error or failing example, and why the tester stopped, if it did.
    evidence = (attempt.errors or attempt.examples)[:1]
    evidence += [e for e in attempt.errors[1:] if e.startswith("stopped ")][:1]
    if evidence:
        text += f" ({'; '.join(evidence)})"
    return text if len(text) <= _SUMMARY_CHARS else text[: _SUMMARY_CHARS - 3] + "..."


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
    seed: int,
) -> WrittenBox:
    test_seed = seed_for(seed, family.name, config.level, cand.index, "test")
    if final.get("formal", False):
        # A formal design: the box is the designed rule (measured, if only its code
        # defines it), and the family knows what it knows of its space.
        rule = family.rule_from_params(final["kind"], config.level, final["params"])
        info, facts = family.box_records(cand.box_id, rule)
        facts = facts.model_copy(update={"has_reference": rule.reference})
        hidden = family.hidden_info(rule, test_seed)
        return write_box(out, info, facts, final["code"], hidden, provenance)
    info, facts = family.box_records(cand.box_id, cand.rule)
    hidden = family.hidden_info(cand.rule, test_seed)
    if not final.get("has_reference", True):
        # An LLM-designed rule: no trusted reference, so nothing is known of its space.
        facts = facts.model_copy(
            update={
                "has_reference": False,
                "rule_kind": DESIGNED_KIND,
                "log2_h": None,
                "log2_h_exact": True,
                "log2_h_low": None,
                "log2_h_high": None,
                "log2_h_confidence": None,
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
    return write_box(out, info, facts, final["code"], hidden, provenance)


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
        made = create_provider(
            spec,
            options=dict(llm.options),
            base_url=llm.base_url(spec),
            on_retry=on_retry,
            retry=retry,
            cache=cache,
            max_concurrency=llm.max_per_provider,
            timeout=llm.timeout,
        )
        # Its HTTP client's connections are released with the run, not left to the GC.
        close = getattr(made, "close", None)
        if close is not None:
            stack.callback(close)
        return made

    return create_llm_backend(
        coder=provider(llm.coder),
        refiner=provider(llm.refiner),
        tester=provider(llm.tester) if llm.tester is not None else None,
        design=llm.design,
    )


def _run_identity(family: str, config: GenerateConfig, backend: str, seed: int) -> dict[str, Any]:
    """Everything a checkpointed graph state depends on."""
    return {
        "family": family,
        "level": config.level,
        # The commitment, not the seed: .generator/ is working state, not owner-side.
        "seed": seed_commitment(seed),
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
    seed: int,
) -> SuiteInfo:
    """The public manifest: a public seed as it is, a secret one as its commitment."""
    public = config.seed is not None
    return SuiteInfo(
        name=name,
        seed=seed if public else None,
        seed_commitment=None if public else seed_commitment(seed),
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
