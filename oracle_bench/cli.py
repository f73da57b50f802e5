"""Pieces both command-line tools share: one-line usage errors and logging setup."""

from __future__ import annotations

import argparse
import logging
import os
from pathlib import Path
from typing import NoReturn

from rich.console import Console
from rich.logging import RichHandler

from oracle_bench.errors import UsageError

__all__ = ["ArgumentParser", "configure_logging", "suites_root"]


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
