"""The kinds' options on the command lines: added to a parser from the registry, and read
back from the parsed arguments, so that no command line names a kind or its flags.

A sweepable option (``KindOption.sweep``: the turn@shot SPEC, DFA's ``--budget-factor``)
takes a comma list on ``oracle-eval``'s command line; its value is then a tuple, one
value per run of the sweep (:func:`sweep_points`).
"""

from __future__ import annotations

import argparse
import itertools
from collections.abc import Callable, Mapping
from typing import Any

from evaluator.kinds import Command, KindOption, all_kinds, command_options, join_titles
from oracle_bench.errors import UsageError

__all__ = [
    "add_kind_arguments",
    "given_options",
    "kind_help",
    "sweep_points",
    "sweep_values",
]


def _takers(option: KindOption) -> str:
    titles = [k.title for k in all_kinds() if any(o.name == option.name for o in k.options)]
    return join_titles(titles)


def _split(option: KindOption, text: str) -> list[str]:
    if option.sweep_split is not None:
        return option.sweep_split(text)
    return [part.strip() for part in text.split(",")]


def _sweep_type(option: KindOption) -> Callable[[str], tuple[Any, ...]]:
    """The argparse ``type`` of a sweepable option: a tuple of parsed values."""

    def parse(text: str) -> tuple[Any, ...]:
        parts = _split(option, text)
        return tuple(parts if option.parse is None else (option.parse(p) for p in parts))

    return parse


def sweep_values(option: KindOption, value: Any) -> tuple[Any, ...]:
    """The values of a sweep given to the Python API: a list or tuple as it is, a text
    split like the command line's (``"1,2,5@1"``, ``"1,2,4"``) and parsed by the option's
    parser, anything else one value. :class:`UsageError` for a part that does not parse."""
    if isinstance(value, list | tuple):
        return tuple(value)
    if not isinstance(value, str) or not option.sweep:
        return (value,)
    try:
        return _sweep_type(option)(value)
    except argparse.ArgumentTypeError as exc:
        raise UsageError(f"invalid {option.flag} {value!r}: {exc}") from None


def sweep_points(given: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The settings of each run of a sweep: ``given`` with the tuple value of every
    sweepable option (:func:`sweep_values`) replaced by one of its values, in the order of
    the product (the first option slowest). ``[given]`` when nothing is swept; a tuple of
    one value is that value."""
    sweepable = {o.name for k in all_kinds() for o in k.options if o.sweep}
    names = [n for n, v in given.items() if n in sweepable and isinstance(v, tuple)]
    if not names:
        return [dict(given)]
    points = []
    for combo in itertools.product(*(given[name] for name in names)):
        point = dict(given)
        point.update(zip(names, combo, strict=True))
        points.append(point)
    return points


def add_kind_arguments(
    parser: argparse.ArgumentParser, command: Command, *, sweeps: bool = False
) -> None:
    """The positional SPEC (when a kind takes one) and every kind's flags for ``command``,
    each saying which suites take it. The flags go in a group of their own. With
    ``sweeps``, sweepable options take a comma list (their value: a tuple)."""
    options = command_options(command)

    def extra(option: KindOption) -> dict[str, Any]:
        if sweeps and option.sweep:
            return {"type": _sweep_type(option)}
        return {} if option.parse is None else {"type": option.parse}

    def swept(option: KindOption) -> str:
        return "; a comma list sweeps, one run per value" if sweeps and option.sweep else ""

    for option in options:
        if option.positional:
            parser.add_argument(
                option.name,
                metavar=option.flag,
                nargs="?",
                help=f"{option.metavar}: {option.help} ({_takers(option)} suites; the "
                f"others take none){swept(option)}",
                **extra(option),
            )
    flags = [o for o in options if not o.positional]
    if not flags:
        return
    group = parser.add_argument_group("settings of a kind of episode")
    for option in flags:
        group.add_argument(
            option.flag,
            dest=option.name,
            default=None,
            metavar=option.metavar,
            help=f"{_takers(option)} suites: {option.help}{swept(option)}",
            **extra(option),
        )


def given_options(args: argparse.Namespace, command: Command) -> dict[str, Any]:
    """The kinds' options of ``command`` as given on the command line (None: not given)."""
    return {o.name: getattr(args, o.name, None) for o in command_options(command)}


def kind_help() -> str:
    """A paragraph per kind for ``oracle-eval --help``."""
    import textwrap

    return "\n\n".join(textwrap.fill(k.eval_help, width=88) for k in all_kinds() if k.eval_help)
