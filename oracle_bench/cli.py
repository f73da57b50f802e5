"""Pieces both command-line tools share: one-line usage errors and logging setup."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

from rich.console import Console
from rich.logging import RichHandler

from oracle_bench.errors import OracleBenchError, UsageError

__all__ = ["ArgumentParser", "configure_logging", "run_cli", "suites_root"]


class ArgumentParser(argparse.ArgumentParser):
    """argparse that raises :class:`UsageError` instead of printing usage and exiting.

    The CLI turns it into one line on stderr and exit code 2.
    """

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def configure_logging(verbose: int, console: Console) -> None:
    level = logging.WARNING if verbose <= 0 else logging.INFO if verbose == 1 else logging.DEBUG
    logging.basicConfig(
        level=level,
        format="%(message)s",
        handlers=[RichHandler(console=console, show_time=False, show_path=False)],
        force=True,
    )


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
