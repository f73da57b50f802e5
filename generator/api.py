"""The Python API of generation: what ``oracle-gen`` runs.

>>> from generator import generate
>>> result = generate("ERI", "easy", n=12, seed=0)          # doctest: +SKIP
>>> result.path, len(result.accepted)                        # doctest: +SKIP

:func:`generation_config` checks the arguments (one-line :class:`UsageError` messages,
the command line's) and :func:`generate` writes the suite.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from blackboxes.families import get_family
from oracle_bench.errors import UsageError

if TYPE_CHECKING:
    from blackboxes.families import Level
    from generator.suite import (
        GenerateConfig,
        GenerateResult,
        LlmModels,
        ProgressFn,
        StartFn,
    )
    from providers import RetryHook
    from sandbox import SandboxLimits

__all__ = ["generate", "generation_config"]

# Options that only some families take, by (keyword, flag, family); the family would
# refuse them anyway, but this says which flag belongs to which family.
_FAMILY_OPTIONS = (
    ("states", "--states", "DFA", "DFA boxes"),
    ("query_length", "--query-length", "ERI", "ERI boxes"),
    ("output_mode", "--output-mode", "CRI", "CRI boxes"),
    ("answers", "--answers", "PSI", "PSI boxes"),
)


def generation_config(
    category: str,
    level: Level | None = None,
    *,
    n: int = 20,
    seed: int | None = None,
    out: Path | str | None = None,
    backend: str = "procedural",
    max_attempts: int = 3,
    states: tuple[int, int] | None = None,
    counterexamples: str | None = None,
    alphabet_size: int | None = None,
    query_length: int | None = None,
    output_mode: str | None = None,
    answers: str | None = None,
    llm: LlmModels | None = None,
    jobs: int = 1,
    overwrite: bool = False,
) -> GenerateConfig:
    """A checked :class:`~generator.suite.GenerateConfig`; see :func:`generate`."""
    from generator.suite import GenerateConfig

    family = get_family(category)
    given = {
        "states": states,
        "query_length": query_length,
        "output_mode": output_mode,
        "answers": answers,
    }
    for key, flag, owner, what in _FAMILY_OPTIONS:
        if given[key] is not None and family.name != owner:
            raise UsageError(f"{flag} applies to {what}, not {family.name}")
    if level is None:
        if states is None:
            raise UsageError("the following arguments are required: --level")
        from blackboxes.families.dfa import level_of

        level = level_of(states[1])
    config = GenerateConfig(
        category=category,
        level=level,
        n=n,
        seed=seed,
        out=None if out is None else Path(out),
        backend=backend,
        max_attempts=max_attempts,
        states=states,
        counterexamples=counterexamples,
        alphabet_size=alphabet_size,
        query_length=query_length,
        output_mode=output_mode,
        answers=answers,
        llm=llm,
        jobs=jobs,
        overwrite=overwrite,
    )
    config.validate()
    family.configure(**config.family_options())
    return config


def generate(
    category: str | GenerateConfig,
    level: Level | None = None,
    *,
    n: int = 20,
    seed: int | None = None,
    out: Path | str | None = None,
    backend: str = "procedural",
    max_attempts: int = 3,
    states: tuple[int, int] | None = None,
    counterexamples: str | None = None,
    alphabet_size: int | None = None,
    query_length: int | None = None,
    output_mode: str | None = None,
    answers: str | None = None,
    llm: LlmModels | None = None,
    jobs: int = 1,
    overwrite: bool = False,
    suites_root: Path | str | None = None,
    limits: SandboxLimits | None = None,
    executor: str | None = None,
    executor_options: Mapping[str, Any] | None = None,
    progress: ProgressFn | None = None,
    on_retry: RetryHook | None = None,
    on_start: StartFn | None = None,
) -> GenerateResult:
    """Generate ``n`` verified boxes of a family into a suite folder; what ``oracle-gen`` does.

    ``category`` is a family code (``ERI``, ``DFA``...) or a ready
    :class:`~generator.suite.GenerateConfig`. ``seed`` None draws a secret seed (kept in
    ``owner.json``); an int makes the suite public and byte-for-byte reproducible. DFA
    suites may give ``states=(lo, hi)`` instead of a level. ``out`` defaults to
    ``<suites_root>/<CAT>-<level>[-seed<S>]-n<N>`` (``suites_root`` defaults to
    ``$ORACLE_BENCH_SUITES`` or ``./suites``). Rerunning finishes an interrupted suite
    and keeps a complete one. ``executor`` runs the candidates: ``local`` threads
    (default) or ``ray`` tasks (procedural backend; ``executor_options={"address": ...}``);
    the suite is the same. ``progress(done, total, box_id, status)`` is called after
    each box. Raises :class:`UsageError` for bad arguments or a folder holding something
    else, ``OracleBenchError`` subclasses for failures.
    """
    from generator.suite import GenerateConfig, generate_suite
    from oracle_bench.cli import suites_root as default_root

    if isinstance(category, GenerateConfig):
        config = category
        config.validate()
    else:
        config = generation_config(
            category,
            level,
            n=n,
            seed=seed,
            out=out,
            backend=backend,
            max_attempts=max_attempts,
            states=states,
            counterexamples=counterexamples,
            alphabet_size=alphabet_size,
            query_length=query_length,
            output_mode=output_mode,
            answers=answers,
            llm=llm,
            jobs=jobs,
            overwrite=overwrite,
        )
    return generate_suite(
        config,
        suites_root=default_root() if suites_root is None else Path(suites_root),
        limits=limits,
        progress=progress,
        on_retry=on_retry,
        on_start=on_start,
        executor=executor,
        executor_options=executor_options,
    )
