"""Every command-line tool answers --version with one line and exit code 0."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from oracle_bench import __version__

BIN = Path(sys.executable).parent


@pytest.mark.parametrize(
    "argv",
    [
        ["oracle-gen"],
        ["oracle-eval"],
        ["oracle-eval", "report"],
        ["oracle-play"],
        ["oracle-llm-server"],
    ],
)
def test_version(argv: list[str]) -> None:
    tool = BIN / argv[0]
    if not tool.exists():
        pytest.skip(f"{tool} is not installed (run through make test)")
    done = subprocess.run(
        [str(tool), *argv[1:], "--version"], capture_output=True, text=True, timeout=60
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == f"{' '.join(argv)} {__version__} (oracle-bench)\n"
