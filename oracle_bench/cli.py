"""Pieces every command-line tool shares: one-line usage errors, logging setup, --version,
argument checks that must happen before any work."""

from __future__ import annotations

import argparse
import difflib
import logging
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from oracle_bench._version import __version__
from oracle_bench.errors import OracleBenchError, UsageError

if TYPE_CHECKING:
    from rich.console import Console

__all__ = [
    "ArgumentParser",
    "add_runtime_arguments",
    "add_version",
    "check_suite_arg",
    "configure_logging",
    "require_utf8_path",
    "run_cli",
    "suggest_subcommand",
    "suites_root",
]


class ArgumentParser(argparse.ArgumentParser):
    """argparse that raises :class:`UsageError` instead of printing usage and exiting.

    The CLI turns it into one line on stderr and exit code 2.
    """

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def configure_logging(verbose: int, console: Console) -> None:
    from rich.logging import RichHandler  # not needed to parse arguments or print --help

    level = logging.WARNING if verbose <= 0 else logging.INFO if verbose == 1 else logging.DEBUG
    logging.basicConfig(
        level=level,
        format="%(message)s",
        handlers=[RichHandler(console=console, show_time=False, show_path=False)],
        force=True,
    )


def add_version(parser: argparse.ArgumentParser) -> None:
    """``--version``: ``<prog> <version>``."""
    parser.add_argument(
        "--version", action="version", version=f"%(prog)s {__version__} (oracle-bench)"
    )


def add_runtime_arguments(
    parser: argparse.ArgumentParser | argparse._ArgumentGroup, subject: str = "box code"
) -> None:
    """``--runtime {process,docker}`` and ``--base-image IMG``: where ``subject`` runs."""
    parser.add_argument(
        "--runtime",
        choices=("process", "docker"),
        default="process",
        help=f"where {subject} runs: process (an isolated child process, default) or docker "
        "(the same worker in a container: no network, read-only, no capabilities; refused, "
        "exit 2, when no Docker engine can run it)",
    )
    parser.add_argument(
        "--base-image",
        default=None,
        metavar="IMG",
        help="image of --runtime docker's containers (default: $ORACLE_BASE_IMAGE or "
        "python:3.12-slim; never pulled)",
    )


def require_utf8_path(path: Path | str, flag: str) -> Path:
    """``path`` if its name is valid UTF-8 text (every file the tools write records paths
    in JSON), else a :class:`UsageError` before any work starts."""
    text = os.fspath(path)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        shown = text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
        raise UsageError(
            f"{flag} {shown}: the path is not valid UTF-8; rename it or choose another"
        ) from None
    return Path(path)


def check_suite_arg(path: Path | str, flag: str = "--suite") -> Path:
    """A ``--suite`` argument that names a suite folder, or a one-line :class:`UsageError`:
    a missing path, a file (suite.json itself: its folder is meant), a folder without
    suite.json."""
    suite = require_utf8_path(path, flag)
    if not suite.exists():
        raise UsageError(f"{flag} {suite} does not exist")
    if not suite.is_dir():
        hint = (
            f" (did you mean its folder, {flag} {suite.parent}?)"
            if suite.name == "suite.json"
            else ""
        )
        raise UsageError(f"{flag} {suite} is a file, not a suite folder{hint}")
    if not (suite / "suite.json").exists():
        raise UsageError(
            f"{flag} {suite} is not a suite: it has no suite.json (make one with oracle-gen)"
        )
    return suite


def suggest_subcommand(tokens: Sequence[str], subcommands: Sequence[str]) -> None:
    """A first token that looks like a misspelt subcommand (``reprot``) is a
    :class:`UsageError` suggesting it, rather than a puzzling error about what it was
    taken for."""
    if not tokens:
        return
    first = tokens[0]
    if first.startswith("-") or first in subcommands or any(c in first for c in "@/."):
        return
    close = difflib.get_close_matches(first, subcommands, n=1, cutoff=0.6)
    if close:
        raise UsageError(f"unknown command {first!r}; did you mean {close[0]!r}?")


def suites_root() -> Path:
    """Where suites live by default: ``$ORACLE_BENCH_SUITES`` or ``./suites``."""
    return Path(os.environ.get("ORACLE_BENCH_SUITES") or "suites")


def run_cli(prog: str, body: Callable[[], int], *, interrupted: str = "interrupted") -> int:
    """Run a command's ``body`` and turn every failure into one line on stderr and an exit
    code, never a traceback: 2 for a :class:`UsageError`, 1 for any other project or OS
    error (and, as ``internal error``, for a bug), 130 with ``interrupted`` on Ctrl-C,
    argparse's code for ``--help``."""
    try:
        return body()
    except UsageError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 2
    except OracleBenchError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"{prog}: {interrupted}", file=sys.stderr)
        return 130
    except SystemExit as exc:  # --help
        return exc.code if isinstance(exc.code, int) else 0
    except OSError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 1
    except Exception as exc:  # a bug: still one line, never a traceback
        logging.getLogger(prog).debug("internal error", exc_info=True)
        print(f"{prog}: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
