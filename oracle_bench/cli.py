"""Pieces both command-line tools share: one-line usage errors and logging setup."""

from __future__ import annotations

import argparse
import logging
import os
from pathlib import Path
from typing import NoReturn

from rich.console import Console
from rich.logging import RichHandler

__all__ = ["ArgumentParser", "UsageExit", "configure_logging", "suites_root"]


class UsageExit(Exception):
    """Raised by :class:`ArgumentParser` instead of printing usage and exiting."""

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(message)


class ArgumentParser(argparse.ArgumentParser):
    """argparse that reports a bad argument as one line (exit code 2 is the caller's)."""

    def error(self, message: str) -> NoReturn:
        raise UsageExit(message)


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
