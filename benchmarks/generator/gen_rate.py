"""Procedural generation rate: verified boxes per minute, per family and level, before/after.

    .venv/bin/python benchmarks/generator/gen_rate.py [--before /tmp/before] [-n 20]
        [--seed 3] [--category ERI ...] [--level easy ...] [--runs 3] [--jobs 1]
        [--profile] [--top 12]

Every cell (family x level) makes a fresh suite with ``generate_suite`` (the tester's
differential test and determinism check included, every box verified) in a fresh
process per run: the time is ``generate_suite`` alone, after the imports and before the
process ends, so per-process work (a family's tables and enumerations, built once per
kind) counts as it does in one ``oracle-gen`` run. With ``--before CHECKOUT`` the same
cells run with that checkout's code too, interleaved run by run (the order alternating),
so load on a shared machine hits both alike; the table gives each side's median seconds
and boxes per minute, the ratio, and whether both made the same files (a digest of
every file of the suite but ``.generator/``, the run's working state).

``--profile`` adds one profiled run of this checkout per cell: cProfile in every thread
(the candidate's and the tester's second-worker start), merged, then the functions of
the checkout with the most cumulative time (wall seconds, summed over threads, so
overlapping threads count twice; cProfile slows Python code down by about 2x).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
TARGET = 300.0
"""Verified boxes per minute per family (issue 17)."""
FAMILIES = ["CII", "CRI", "PSI", "ERI", "IPI", "GSI", "DFA"]
LEVELS = ["easy", "hard"]


def suite_digest(path: Path) -> str:
    """sha256 over every file of a suite (relative path and bytes), ``.generator/`` left out."""
    digest = hashlib.sha256()
    for item in sorted(p for p in path.rglob("*") if p.is_file()):
        rel = item.relative_to(path).as_posix()
        if rel.startswith(".generator/"):
            continue
        digest.update(rel.encode() + b"\0" + item.read_bytes() + b"\0")
    return digest.hexdigest()


# -- the child: one suite, in a fresh process ------------------------------------------------


def _child(args: argparse.Namespace) -> None:
    import time

    sys.path.insert(0, str(Path(args.tree).resolve()))
    from generator import GenerateConfig, generate_suite

    out = Path(args.out)
    [category], [level] = args.category, args.level
    config = GenerateConfig(
        category=category, level=level, n=args.n, seed=args.seed, out=out, jobs=args.jobs
    )
    profiles: list[Any] = []
    if args.profile:
        import cProfile
        import threading

        def hook(*_: Any) -> None:
            # A new thread's first event: hand the thread to a profiler of its own.
            sys.setprofile(None)
            profiles.append(cProfile.Profile())
            profiles[-1].enable()

        profiles.append(cProfile.Profile())
        threading.setprofile(hook)
        profiles[0].enable()
    start = time.perf_counter()
    result = generate_suite(config)
    seconds = time.perf_counter() - start
    if args.profile:
        profiles[0].disable()
        import threading

        threading.setprofile(None)  # type: ignore[arg-type]
        print(_profile_text(profiles, Path(args.tree).resolve(), args.top))
    line = {"seconds": seconds, "boxes": len(result.accepted), "digest": suite_digest(out)}
    print("RESULT " + json.dumps(line))


def _profile_text(profiles: list[Any], tree: Path, top: int) -> str:
    import pstats

    stats = pstats.Stats(profiles[0])
    for extra in profiles[1:]:
        stats.add(extra)
    raw: dict[tuple[str, int, str], tuple[int, int, float, float, Any]] = stats.stats  # type: ignore[attr-defined]
    mine = []
    for (path, line, name), (_, calls, _, cumulative, _) in raw.items():
        if path.startswith(str(tree)) and "/.venv/" not in path and "/benchmarks/" not in path:
            where = f"{Path(path).relative_to(tree)}:{line}({name})"
            mine.append((cumulative, calls, where))
    mine.sort(reverse=True)
    lines = [f"    {cum:8.2f} s {calls:8d} calls  {where}" for cum, calls, where in mine[:top]]
    return "  profile (cumulative wall seconds, all threads):\n" + "\n".join(lines)


# -- the parent: cells, trees, runs ----------------------------------------------------------


def _run(
    tree: Path, category: str, level: str, args: argparse.Namespace, out: Path, profile: bool
) -> dict[str, Any]:
    command = [sys.executable, str(Path(__file__).resolve()), "--child", "--tree", str(tree)]
    command += ["--category", category, "--level", level, "-n", str(args.n)]
    command += ["--seed", str(args.seed), "--jobs", str(args.jobs), "--out", str(out)]
    command += ["--top", str(args.top)] + (["--profile"] if profile else [])
    done = subprocess.run(command, capture_output=True, text=True, cwd=tree, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{tree} {category} {level} failed:\n{done.stderr[-3000:]}")
    lines = done.stdout.splitlines()
    result: dict[str, Any] = json.loads(lines[-1].removeprefix("RESULT "))
    result["profile"] = "\n".join(lines[:-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("-n", type=int, default=20)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--category", action="append", default=None)
    parser.add_argument("--level", action="append", default=None, choices=LEVELS)
    parser.add_argument("--before", type=Path, default=None, help="another checkout to compare")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--top", type=int, default=12)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--tree", default=str(ROOT), help=argparse.SUPPRESS)
    parser.add_argument("--out", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args)
        return
    trees = {"after": ROOT}
    if args.before is not None:
        trees = {"before": args.before.resolve(), "after": ROOT}
    categories = args.category or FAMILIES
    levels = args.level or LEVELS
    print(
        f"-n {args.n} --seed {args.seed} --jobs {args.jobs}, {args.runs} runs per side "
        f"(medians); {os.cpu_count()} cores; target >= {TARGET:g} boxes/min"
    )
    head = f"{'family':6} {'level':5}"
    for name in trees:
        head += f" {name + ' s':>9} {name + '/min':>11}"
    head += f" {'ratio':>6} {'digest':>12}  same"
    print(head)
    profiles: list[str] = []
    with tempfile.TemporaryDirectory(prefix="gen-rate-") as tmp:
        for category in categories:
            for level in levels:
                seconds: dict[str, list[float]] = {name: [] for name in trees}
                digests: dict[str, set[str]] = {name: set() for name in trees}
                boxes = 0
                for run in range(args.runs):
                    order = list(trees) if run % 2 == 0 else list(trees)[::-1]
                    for name in order:
                        out = Path(tmp) / f"{name}-{category}-{level}-{run}"
                        got = _run(trees[name], category, level, args, out, profile=False)
                        seconds[name].append(got["seconds"])
                        digests[name].add(got["digest"])
                        boxes = got["boxes"]
                row = f"{category:6} {level:5}"
                rates = {}
                for name in trees:
                    median = statistics.median(seconds[name])
                    rates[name] = 60 * boxes / median
                    row += f" {median:9.2f} {rates[name]:11.1f}"
                ratio = rates["after"] / rates["before"] if "before" in rates else 1.0
                every = set().union(*digests.values())
                row += f" {ratio:6.2f} {min(every)[:12]:>12}  {len(every) == 1}"
                print(row, flush=True)
                if args.profile:
                    out = Path(tmp) / f"profile-{category}-{level}"
                    got = _run(ROOT, category, level, args, out, profile=True)
                    profiles.append(f"{category} {level} ({got['seconds']:.2f} s profiled)")
                    profiles.append(got["profile"])
    if profiles:
        print()
        print("\n".join(profiles))


if __name__ == "__main__":
    main()
