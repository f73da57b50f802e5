"""Issue 15's acceptance, end to end through real containers.

For every family: generate a small suite, publish it (``oracle-publish``'s builder, through
the docker SDK), run the image with the host's network, evaluate the family's baselines
through ``--env`` and locally, and check that the summaries are equal and the
trajectories equal the local ones withheld, byte for byte once the recorded environment
(``sandbox_layers``: the sandbox layers the box ran under) is set aside. Prints image
size, build time, server start time (``docker run`` to the ready line, and the server's
own start inside), and, for ERI, the per-query round trip of ``POST /step`` to the
container against the local text step and the bare sandbox worker call (medians over
``--queries``, measured in interleaved blocks).

Needs a Docker engine (``bash .ci/docker-engine``) and ``$ORACLE_BASE_IMAGE`` or the
default base image. Usage: python benchmarks/serve/bench_published.py [--queries 1000]
[--families ERI,CRI,...] [--boxes 3]
"""

from __future__ import annotations

import argparse
import re
import shutil
import socket
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from evaluator.dataset import BoxDataset
from evaluator.publish import publish_suite
from evaluator.runner import evaluate_suite
from evaluator.serve.client import ServedSuite
from generator import GenerateConfig, generate_suite
from sandbox import SandboxWorker
from sandbox.docker import docker_client

CASES: dict[str, tuple[str, str | None, list[str]]] = {
    "ERI": ("easy", "3@1", ["adaptive", "fixed", "random"]),
    "CRI": ("hard", "10@1", ["adaptive", "fixed", "random"]),
    "CII": ("hard", "2@1", ["adaptive", "fixed", "random"]),
    "PSI": ("easy", "5@1", ["adaptive", "fixed", "random"]),
    "IPI": ("hard", "5@1", ["adaptive", "fixed", "random"]),
    "GSI": ("easy", "1@1", ["adaptive", "fixed", "random"]),
    "DFA": ("easy", None, ["ttt", "lstar", "fixed", "random"]),
}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _serve(client: Any, image: str, args: list[str]) -> tuple[Any, str, float, float]:
    """Run ``image`` with the server on a free port: (container, url, seconds from
    ``docker run`` to the ready line, the server's own start seconds)."""
    port = _free_port()
    command = ["python3", "-m", "evaluator.serve", "/srv/suite", *args]
    command += ["--host", "127.0.0.1", "--port", str(port)]
    clock = time.perf_counter()
    container = client.containers.run(
        image, command, detach=True, network_mode="host", tmpfs={"/tmp": ""}, remove=False
    )
    for chunk in container.logs(stream=True, follow=True):
        line = chunk.decode(errors="replace")
        match = re.search(r"ready in ([0-9.]+) s", line)
        if match:
            return (
                container,
                f"http://127.0.0.1:{port}",
                time.perf_counter() - clock,
                float(match[1]),
            )
    raise SystemExit(f"{image} did not start: {container.logs().decode()[-500:]}")


def _same(local: Path, remote: Path, suite: Path, spec: str | None) -> tuple[bool, bool]:
    data = BoxDataset(suite, spec=spec)
    ok = True
    for path in sorted((local / "trajectories").iterdir()):
        record = data.kind.withhold(data.kind.read_record(path), data.settings)
        # The recorded environment: the sandbox layers the box ran under (a container's
        # unprivileged server has no network namespace or uid drop; seccomp still holds).
        mine = record.model_copy(update={"sandbox_layers": []})
        data.kind.save_record(mine, local / "withheld.json")
        theirs = data.kind.read_record(remote / "trajectories" / path.name)
        data.kind.save_record(
            theirs.model_copy(update={"sandbox_layers": []}), local / "theirs.json"
        )
        ok &= (local / "withheld.json").read_bytes() == (local / "theirs.json").read_bytes()
    summaries = all(
        (local / n).read_bytes() == (remote / n).read_bytes()
        for n in ("summary.json", "summary.csv")
    )
    return ok, summaries


def _roundtrip(
    client: Any, image: str, suite: Path, queries: int, block: int
) -> dict[str, list[float]]:
    spec = f"{queries + 10}@1"
    container, url, _, _ = _serve(client, image, [spec])
    try:
        item = BoxDataset(suite, spec=spec)[0]
        worker = SandboxWorker(item._box.code, entry=item.info.entry)
        episode = item.episode()
        episode.reset()
        env = ServedSuite(url)
        served = env.reset(box=item.box_id)["episode_id"]
        query = "THE QUICK BROWN FOX"
        modes: dict[str, Callable[[], object]] = {
            "worker": lambda: worker.call(query),
            "text": lambda: episode.step(query),
            "http": lambda: env.step(served, query),
        }
        samples: dict[str, list[float]] = {m: [] for m in modes}
        for call in modes.values():
            call()
        done = 0
        while done < queries:
            n = min(block, queries - done)
            for name, call in modes.items():
                for _ in range(n):
                    start = time.perf_counter()
                    call()
                    samples[name].append(time.perf_counter() - start)
            done += n
        env.close()
        episode.close()
        worker.close()
        return samples
    finally:
        container.remove(force=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--block", type=int, default=50)
    parser.add_argument("--boxes", type=int, default=3)
    parser.add_argument("--families", default=",".join(CASES))
    parser.add_argument("--keep", action="store_true", help="keep the suites and runs")
    args = parser.parse_args()
    client = docker_client()
    rows = []
    eri: tuple[str, Path] | None = None
    root = Path(tempfile.mkdtemp(prefix="bench-published-"))
    try:
        for family in args.families.split(","):
            level, spec, agents = CASES[family]
            suite = root / family
            extra: dict[str, Any] = {"states": (2, 5)} if family == "DFA" else {}
            generate_suite(
                GenerateConfig(
                    category=family, level=level, n=args.boxes, seed=0, out=suite, **extra
                )
            )
            [image] = publish_suite(
                suite, serve_args=() if spec is None else (spec,), client=client
            )
            container, url, start, inside = _serve(
                client, image.tag, [] if spec is None else [spec]
            )
            try:
                evaluate_suite(suite, agents, spec, None, 0, root / f"{family}-local")
                clock = time.perf_counter()
                evaluate_suite(
                    None, agents, spec, None, 0, root / f"{family}-remote", env=url, concurrency=4
                )
                remote_s = time.perf_counter() - clock
            finally:
                container.remove(force=True)
            same, summaries = _same(
                root / f"{family}-local", root / f"{family}-remote", suite, spec
            )
            rows.append(
                (
                    family,
                    image.size_bytes / 2**20,
                    image.build_seconds,
                    start,
                    inside,
                    remote_s,
                    same,
                    summaries,
                )
            )
            if family == "ERI":
                eri = (image.tag, suite)
        print(
            f"{'family':<7}{'image MiB':>10}{'build s':>9}{'run->ready s':>13}{'inside s':>9}"
            f"{'--env run s':>12}  trajectories  summaries"
        )
        for family, mib, build, start, inside, remote_s, same, summaries in rows:
            print(
                f"{family:<7}{mib:>10.1f}{build:>9.1f}{start:>13.2f}{inside:>9.2f}{remote_s:>12.1f}"
                f"  {'equal' if same else 'DIFFER':<12}  {'equal' if summaries else 'DIFFER'}"
            )
        if eri is not None:
            samples = _roundtrip(client, eri[0], eri[1], args.queries, args.block)
            base = statistics.median(samples["worker"])
            print(f"\nper-query round trip (ERI box in its container), median of {args.queries}")
            for name, values in samples.items():
                med = statistics.median(values)
                print(f"  {name:<7}{med * 1000:>9.3f} ms  x{med / base:>7.2f} of the local worker")
            ratio = statistics.median(samples["http"]) / statistics.median(samples["text"])
            print(f"  HTTP to the container / local text step: {ratio:.2f}x")
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
        else:
            print(f"kept {root}")


if __name__ == "__main__":
    main()
