"""Episode kinds as plug-ins: how an agent meets a box.

Each kind is a subpackage (``turns``: ORACLE's turn@shot; ``dfa``: membership and
equivalence queries) holding its protocol, trajectory record, metrics, summary and
tables and its agents' context, and registering one :class:`EpisodeKind` in its
``__init__``. A family names its kind (``Family.episode``); the runner, ``oracle-eval
report``, ``oracle-play`` and the command lines find it here and never name one. Adding
a kind adds a subpackage and touches no other kind.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable, Mapping
from functools import cache
from typing import TYPE_CHECKING, Any, TypeVar

from evaluator.kinds._base import (
    Command,
    EpisodeJobLike,
    EpisodeKind,
    HumanPlay,
    KindOption,
    KindReport,
    KindRun,
    KindSummary,
    PlayedEpisode,
    RunContext,
)
from oracle_bench.errors import UnknownNameError, UsageError

if TYPE_CHECKING:
    from blackboxes.box import SuiteInfo

__all__ = [
    "Command",
    "EpisodeJobLike",
    "EpisodeKind",
    "HumanPlay",
    "KindOption",
    "KindReport",
    "KindRun",
    "KindSummary",
    "PlayedEpisode",
    "RunContext",
    "all_kinds",
    "check_options",
    "command_options",
    "get_kind",
    "join_titles",
    "kind_for_family",
    "kind_for_suite",
    "kind_names",
    "manifest_kind",
    "record_kind",
    "register_kind",
    "suite_subject",
]

_K = TypeVar("_K", bound="type[EpisodeKind]")
_REGISTRY: dict[str, EpisodeKind] = {}


def register_kind(cls: _K) -> _K:
    """Class decorator: register one instance of a kind under ``cls.name``."""
    if cls.name in _REGISTRY:
        raise ValueError(f"episode kind {cls.name!r} registered twice")
    _REGISTRY[cls.name] = cls()
    return cls


@cache
def _builtin_names() -> tuple[str, ...]:
    # The subpackages, read from the file system: building a parser must not import
    # every kind's protocol (their __init__ modules are light).
    return tuple(
        sorted(m.name for m in pkgutil.iter_modules(__path__) if m.ispkg and m.name[0] != "_")
    )


def kind_names() -> list[str]:
    """The kinds' names, sorted: the built-in ones and any registered."""
    return sorted(set(_builtin_names()) | set(_REGISTRY))


def get_kind(name: str) -> EpisodeKind:
    """The kind registered as ``name`` (importing a built-in one on first use)."""
    if name not in _REGISTRY and name in _builtin_names():
        importlib.import_module(f"{__name__}.{name}")
    kind = _REGISTRY.get(name)
    if kind is None:
        raise UnknownNameError("episode kind", name, kind_names())
    return kind


def all_kinds() -> list[EpisodeKind]:
    """Every kind, in name order."""
    return [get_kind(name) for name in kind_names()]


def kind_for_family(family: str) -> EpisodeKind:
    """The kind of episode a family's boxes are played in."""
    from blackboxes.families import get_family

    return get_kind(get_family(family).episode)


def kind_for_suite(suite: SuiteInfo) -> EpisodeKind:
    """The kind of episode a suite's boxes are played in."""
    return kind_for_family(suite.family)


def record_kind(raw: Any) -> EpisodeKind:
    """The kind of a trajectory's JSON: its ``kind`` field or, without one, the kind whose
    early records carried none."""
    name = raw.get("kind") if isinstance(raw, dict) else None
    if isinstance(name, str):
        return get_kind(name)
    for kind in all_kinds():
        if kind.unlabelled_records:
            return kind
    raise UnknownNameError("episode kind", "(none)", kind_names())


def manifest_kind(data: Mapping[str, Any]) -> EpisodeKind | None:
    """The kind of a run manifest: the one it names or, in a manifest written before
    manifests named it, the kind whose marker argument it sets; None if neither."""
    name = data.get("kind")
    if isinstance(name, str):
        return get_kind(name)
    arguments = data.get("arguments")
    if not isinstance(arguments, Mapping):
        return None
    for kind in all_kinds():
        if kind.legacy_marker is not None and arguments.get(kind.legacy_marker) is not None:
            return kind
    return None


def command_options(command: Command) -> list[KindOption]:
    """Every kind's options for ``command``, once each (shared options are one object),
    in kind order."""
    found: dict[str, KindOption] = {}
    for kind in all_kinds():
        for option in kind.options:
            if command in option.commands:
                found.setdefault(option.name, option)
    return list(found.values())


def _takers(option: KindOption) -> list[EpisodeKind]:
    """The kinds that take ``option``."""
    return [k for k in all_kinds() if any(o.name == option.name for o in k.options)]


def _article(word: str) -> str:
    # Family codes are read letter by letter: "an ERI suite", "a CII suite".
    return "an" if word[:1].upper() in "AEFHILMNORSX" else "a"


def _titles(kinds: Iterable[EpisodeKind]) -> str:
    return join_titles([k.title for k in kinds])


def join_titles(titles: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return (
        " and ".join(titles) if len(titles) <= 2 else ", ".join(titles[:-1]) + f" and {titles[-1]}"
    )


def suite_subject(kind: EpisodeKind, family: str, name: str) -> str:
    """``eri-easy is an ERI suite (turn@shot episodes)``: how a refusal names a suite."""
    subject = f"{name} is {_article(family)} {family} suite"
    return subject if family.upper() == kind.title.upper() else f"{subject} ({kind.title} episodes)"


def check_options(
    kind: EpisodeKind, given: Mapping[str, Any], *, subject: str, what: str = "suite"
) -> dict[str, Any]:
    """The options of ``given`` that ``kind`` takes; :class:`UsageError` for one it refuses.

    ``given`` maps option names to values (None: not given). The error starts with
    ``subject`` (:func:`suite_subject`) and says which ``what`` (``suite``, ``run``)
    takes the option. An option no kind takes is a programming error (``KeyError``).
    """
    mine = {o.name for o in kind.options}
    every = {o.name: o for k in all_kinds() for o in k.options}
    foreign = [every[n] for n, v in given.items() if v is not None and n not in mine]
    refused = [o for o in foreign if o.refused]
    if refused:
        spec = next((o for o in refused if o.positional), None)
        if spec is not None:
            raise UsageError(
                f"{subject}: it takes no {spec.flag} ({spec.metavar}; only "
                f"{_titles(_takers(spec))} {what}s take one)"
            )
        flags = ", ".join(o.flag for o in refused)
        verb = "does" if len(refused) == 1 else "do"
        raise UsageError(
            f"{subject}: {flags} {verb} not apply (for {_titles(_takers(refused[0]))} {what}s only)"
        )
    return {n: v for n, v in given.items() if v is not None and n in mine}
