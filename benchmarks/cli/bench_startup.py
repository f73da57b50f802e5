"""Start-up time of every command-line tool: ``--help`` (and ``--version``) vs ``python -c pass``.

    python benchmarks/cli/bench_startup.py [--runs 15]

The tools are the entry points of pyproject.toml ``[project.scripts]`` (plus the
subcommand ``oracle-eval report``), each started the way its console script starts it
(import the module, call its ``main``) with this interpreter, so the baseline ``python -c
pass`` pays the same interpreter start-up. ``--version`` is measured where the tool's
``--help`` lists it. Runs alternate (one of each command per round), so a load that comes
and goes on a shared machine hits every command alike; the table gives the median wall
time, the ratio of the medians to the baseline, and the fastest run. Target: every
``--help`` well under a second on an idle machine (issue 9).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SUBCOMMANDS = {"oracle-eval": ("report",)}
"""Subcommands with a parser of their own, measured like a tool."""


@dataclass(frozen=True)
class Command:
    label: str
    argv: tuple[str, ...]


def entry_points() -> dict[str, str]:
    """``[project.scripts]``: tool name -> ``module:function``."""
    with (ROOT / "pyproject.toml").open("rb") as fh:
        scripts: dict[str, str] = tomllib.load(fh)["project"]["scripts"]
    return scripts


def _launcher(target: str) -> tuple[str, ...]:
    module, _, function = target.partition(":")
    code = f"import sys; from {module} import {function}; sys.exit({function}())"
    return (sys.executable, "-c", code)


def _run(argv: tuple[str, ...]) -> tuple[float, int, str]:
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, check=False)
    return time.perf_counter() - start, done.returncode, done.stdout + done.stderr


def commands() -> list[Command]:
    """The baseline, then ``--help`` and (where listed) ``--version`` of every tool."""
    found = [Command("python -c pass", (sys.executable, "-c", "pass"))]
    for tool, target in entry_points().items():
        for sub in ("", *SUBCOMMANDS.get(tool, ())):
            name = f"{tool} {sub}".strip()
            base = (*_launcher(target), *((sub,) if sub else ()))
            _, code, text = _run((*base, "--help"))
            if code != 0:
                raise SystemExit(f"{name} --help exited {code}:\n{text}")
            found.append(Command(f"{name} --help", (*base, "--help")))
            if "--version" in text:
                found.append(Command(f"{name} --version", (*base, "--version")))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15, help="runs of each command (default 15)")
    args = parser.parse_args()
    cmds = commands()
    load_before = os.getloadavg()[0]
    samples: dict[str, list[float]] = {c.label: [] for c in cmds}
    for _ in range(args.runs):
        for cmd in cmds:
            seconds, code, text = _run(cmd.argv)
            if code != 0:
                raise SystemExit(f"{cmd.label} exited {code}:\n{text}")
            samples[cmd.label].append(seconds)
    base = statistics.median(samples[cmds[0].label])
    width = max(len(c.label) for c in cmds)
    print(
        f"{sys.executable}, {args.runs} alternating runs of each command; "
        f"1-min load average {load_before:.2f} before, {os.getloadavg()[0]:.2f} after"
    )
    print(f"{'command':<{width}}  {'median':>8}  {'x pass':>7}  {'fastest':>8}")
    for cmd in cmds:
        median = statistics.median(samples[cmd.label])
        print(
            f"{cmd.label:<{width}}  {median:>7.3f}s  {median / base:>6.1f}x  "
            f"{min(samples[cmd.label]):>7.3f}s"
        )


if __name__ == "__main__":
    main()
