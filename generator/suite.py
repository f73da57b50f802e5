"""Generate a suite: sample rules, run each through the graph, write accepted boxes."""

from __future__ import annotations

import logging
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from blackboxes.box import Attempt, BoxEntry, Level, Provenance, SuiteInfo
from blackboxes.families import LEVELS, get_family
from blackboxes.store import load_box, load_suite, write_box, write_suite
from generator.backends import Backend, create_backend
from generator.graph import GraphSettings, build_graph, recursion_limit
from oracle_bench import __version__
from oracle_bench.errors import BoxError, GenerationError, UsageError
from oracle_bench.jsonio import atomic_write_text, canonical_json
from oracle_bench.rng import rng_for, seed_for
from sandbox import SandboxLimits

__all__ = ["GenerateConfig", "GenerateResult", "default_suite_name", "generate_suite"]

logger = logging.getLogger(__name__)

PARTIAL_NAME = ".suite.partial.json"
"""Journal of the boxes accepted so far; replaced by suite.json when the suite is complete."""

ProgressFn = Callable[[int, int, str, str], None]
"""(accepted so far, target, box id, status) after each candidate."""


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

    def family_options(self) -> dict[str, Any]:
        """The family options this config sets (``Family.configure`` keywords)."""
        options = {
            "states": self.states,
            "counterexamples": self.counterexamples,
            "alphabet_size": self.alphabet_size,
        }
        return {k: v for k, v in options.items() if v is not None}

    def label(self) -> str:
        """The suite's difficulty label: the level, or the state range when one is given."""
        if self.states is not None:
            lo, hi = self.states
            return f"states{lo}" if lo == hi else f"states{lo}-{hi}"
        return self.level

    def validate(self) -> None:
        if self.level not in LEVELS:
            raise UsageError(f"level must be one of {', '.join(LEVELS)}, not {self.level!r}")
        if self.n < 1:
            raise UsageError(f"-n must be >= 1, not {self.n}")
        if self.max_attempts < 1:
            raise UsageError(f"--max-attempts must be >= 1, not {self.max_attempts}")
        if self.differential_inputs < 200:
            raise UsageError("the differential test needs at least 200 inputs")


@dataclass(frozen=True)
class GenerateResult:
    path: Path
    accepted: list[str]
    rejected: list[str]
    skipped: list[str] = field(default_factory=list)
    """Boxes found already written and verified (a resumed run)."""


def default_suite_name(category: str, label: str, seed: int, n: int) -> str:
    """``<CAT>-<level or state range>-seed<S>-n<N>``."""
    return f"{category.upper()}-{label}-seed{seed}-n{n}"


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


def generate_suite(
    config: GenerateConfig,
    *,
    suites_root: Path = Path("suites"),
    backend: Backend | None = None,
    limits: SandboxLimits | None = None,
    progress: ProgressFn | None = None,
) -> GenerateResult:
    """Generate ``config.n`` verified boxes into a suite directory and return where.

    Boxes already present and verified (from an interrupted run with the same
    arguments) are kept, not regenerated.
    """
    config.validate()
    family = get_family(config.category).configure(**config.family_options())
    backend = backend or create_backend(config.backend)
    name = default_suite_name(family.name, config.label(), config.seed, config.n)
    kinds = family.kinds(config.level)
    out = Path(config.out) if config.out else suites_root / name
    out.mkdir(parents=True, exist_ok=True)
    partial = out / PARTIAL_NAME
    previous = _previous_entries(out, family.name, config, backend.name)
    settings = GraphSettings(
        seed=config.seed,
        max_attempts=config.max_attempts,
        differential_inputs=config.differential_inputs,
        limits=limits,
    )
    app = build_graph(family, backend, settings)
    entries: list[BoxEntry] = []
    rejected: list[str] = []
    skipped: list[str] = []
    max_candidates = config.max_candidates or 3 * config.n
    index = 0
    while len(entries) < config.n and index < max_candidates:
        box_id = f"{family.name}-{config.label()}-{index:04d}"
        index += 1
        reused = previous.get(box_id)
        if reused is not None and _still_valid(out, reused):
            entries.append(reused)
            skipped.append(box_id)
            if progress:
                progress(len(entries), config.n, box_id, "kept")
            continue
        rng = rng_for(config.seed, family.name, config.level, index - 1)
        # Balanced families (DFA) cycle through their kinds so every bucket gets its share.
        kind = kinds[(index - 1) % len(kinds)] if family.balanced_kinds else None
        rule = family.sample_rule(rng, config.level, kind)
        state: dict[str, Any] = {
            "box_id": box_id,
            "family": family.name,
            "level": config.level,
            "kind": rule.kind,
            "params": dict(rule.params),
        }
        final = app.invoke(state, {"recursion_limit": recursion_limit(config.max_attempts)})
        attempts = [Attempt.model_validate(a) for a in final.get("attempts", [])]
        layers = sorted(final.get("report", {}).get("layers", []))
        provenance = Provenance(
            backend=backend.name,
            tool_version=__version__,
            accepted=final.get("status") == "accepted",
            attempts=attempts,
            sandbox_layers=layers,
        )
        if provenance.accepted:
            info = family.box_info(box_id, rule)
            test_seed = seed_for(config.seed, family.name, config.level, index - 1, "test")
            hidden = family.hidden_info(rule, test_seed)
            entries.append(write_box(out, info, final["code"], hidden, provenance))
            # A journal of accepted boxes, so a killed run resumes instead of redoing them.
            write_suite(
                out,
                _suite_info(name, family.name, config, backend.name, entries, rejected),
                PARTIAL_NAME,
            )
        else:
            rejected.append(box_id)
            record = {
                "id": box_id,
                "kind": rule.kind,
                "params": dict(rule.params),
                "provenance": provenance.model_dump(mode="json"),
                "last_code": final.get("code", ""),
            }
            atomic_write_text(out / "rejected" / f"{box_id}.json", canonical_json(record))
            logger.warning("rejected %s after %d attempt(s)", box_id, len(attempts))
        if progress:
            progress(
                len(entries), config.n, box_id, "accepted" if provenance.accepted else "rejected"
            )
    if len(entries) < config.n:
        raise GenerationError(
            f"only {len(entries)} of {config.n} boxes passed verification after "
            f"{index} candidates; see {out / 'rejected'}"
        )
    _remove_stale(out, {e.id for e in entries})
    write_suite(out, _suite_info(name, family.name, config, backend.name, entries, rejected))
    partial.unlink(missing_ok=True)
    return GenerateResult(
        path=out, accepted=[e.id for e in entries], rejected=rejected, skipped=skipped
    )


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
    return {k: list(v) if isinstance(v, tuple) else v for k, v in config.family_options().items()}


def _previous_entries(
    out: Path, family: str, config: GenerateConfig, backend: str
) -> dict[str, BoxEntry]:
    """Boxes a previous run with the same arguments finished (suite.json or the journal)."""
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


def _remove_stale(out: Path, keep: set[str]) -> None:
    """Delete box folders not in this suite (left by an earlier, different run)."""
    boxes = out / "boxes"
    if not boxes.is_dir():
        return
    for child in boxes.iterdir():
        if child.is_dir() and child.name not in keep:
            shutil.rmtree(child)
