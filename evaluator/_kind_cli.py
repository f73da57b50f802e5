"""The kinds' options on the command lines: added to a parser from the registry, and read
back from the parsed arguments, so that no command line names a kind or its flags."""

from __future__ import annotations

import argparse
from typing import Any

from evaluator.kinds import Command, KindOption, all_kinds, command_options, join_titles

__all__ = ["add_kind_arguments", "given_options", "kind_help"]


def _takers(option: KindOption) -> str:
    titles = [k.title for k in all_kinds() if any(o.name == option.name for o in k.options)]
    return join_titles(titles)


def add_kind_arguments(parser: argparse.ArgumentParser, command: Command) -> None:
    """The positional SPEC (when a kind takes one) and every kind's flags for ``command``,
    each saying which suites take it. The flags go in a group of their own."""
    options = command_options(command)
    for option in options:
        if option.positional:
            parser.add_argument(
                option.name,
                metavar=option.flag,
                nargs="?",
                help=f"{option.metavar}: {option.help} ({_takers(option)} suites; the "
                "others take none)",
            )
    flags = [o for o in options if not o.positional]
    if not flags:
        return
    group = parser.add_argument_group("settings of a kind of episode")
    for option in flags:
        extra: dict[str, Any] = {} if option.parse is None else {"type": option.parse}
        group.add_argument(
            option.flag,
            dest=option.name,
            default=None,
            metavar=option.metavar,
            help=f"{_takers(option)} suites: {option.help}",
            **extra,
        )


def given_options(args: argparse.Namespace, command: Command) -> dict[str, Any]:
    """The kinds' options of ``command`` as given on the command line (None: not given)."""
    return {o.name: getattr(args, o.name, None) for o in command_options(command)}


def kind_help() -> str:
    """A paragraph per kind for ``oracle-eval --help``."""
    import textwrap

    return "\n\n".join(textwrap.fill(k.eval_help, width=88) for k in all_kinds() if k.eval_help)
