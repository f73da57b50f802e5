"""``oracle-serve``: serve a suite (or one box) over HTTP for remote players and tools."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from types import FrameType

from oracle_bench.cli import ArgumentParser, add_version, check_suite_arg, run_cli
from oracle_bench.errors import UsageError

__all__ = ["main", "read_token"]

PROG = "oracle-serve"
TOKEN_FILE_ENV = "ORACLE_SERVE_TOKEN_FILE"

_EPILOG = """\
Routes (JSON): GET /health; GET / (suite.json, the boxes' box.json, the settings);
GET /boxes/ID; and episodes shaped like OpenEnv's environment server: POST /reset
{"box": ID, "repetition": R, "seed": N} -> {"episode_id", "observation": {"text",
"metadata"}, "reward", "done"}, POST /step {"episode_id", "action": {"text": "one line"}},
GET /state?episode_id=ID, POST /close {"episode_id"}. An episode is the one oracle-eval
plays with the server's --seed for that box and repetition (a reset's "seed" only picks
what the body leaves out). Agent episodes (POST /episodes ...) serve `oracle-eval --env
URL`: the protocol runs here, the agent at the client, and the records come back with the
expected answers, secrets and targets withheld.
Observations are the text oracle-play shows; box code runs in sandbox workers and is never
returned, nor facts.json, hidden.json or an expected answer.

With a token (--token-file F, or $ORACLE_SERVE_TOKEN_FILE), every route but /health needs
"Authorization: Bearer <token>". The server prints "serving NAME at http://HOST:PORT" once
it accepts connections, and stops on SIGINT or SIGTERM.

Examples:
  oracle-serve suites/eri-easy 10@1
  oracle-serve suites/eri-easy 10@1 --box ERI-easy-0003 --port 8000 --token-file token.txt
"""


def _parser() -> argparse.ArgumentParser:
    from evaluator._kind_cli import add_kind_arguments

    p = ArgumentParser(
        prog=PROG,
        description="Serve a suite's boxes over HTTP: describe, episodes (reset/step/state), "
        "never the code or the answers.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("suite", type=Path, metavar="SUITE", help="suite directory")
    p.add_argument("--box", metavar="ID", help="serve this box only")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default: 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default: 8000; 0: any free)")
    p.add_argument("--token-file", type=Path, metavar="F", help="bearer token file")
    p.add_argument(
        "--max-sessions",
        type=int,
        default=32,
        metavar="N",
        help="episodes open at once (default: 32)",
    )
    p.add_argument(
        "--rate",
        type=float,
        default=None,
        metavar="R",
        help="requests per second per client address (default: 1000; burst 2 R)",
    )
    p.add_argument(
        "--seed",
        type=int,
        default=0,
        metavar="N",
        help="run seed of the text episodes (default: 0; agent episodes bring their own)",
    )
    add_kind_arguments(p, "play")
    add_version(p)
    return p


def read_token(path: Path | None) -> str | None:
    """The bearer token in ``path`` (or ``$ORACLE_SERVE_TOKEN_FILE``); None without one."""
    if path is None:
        env = os.environ.get(TOKEN_FILE_ENV)
        if not env:
            return None
        path = Path(env)
    try:
        token = path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"--token-file {path}: cannot read it ({exc})") from None
    if len(token) < 16:
        raise UsageError(f"--token-file {path}: the token must have at least 16 characters")
    return token


def _stop(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def _main(argv: Sequence[str] | None) -> int:
    from evaluator._kind_cli import given_options
    from evaluator.spec import check_spec_tokens, parse_spec

    tokens = list(sys.argv[1:] if argv is None else argv)
    check_spec_tokens(tokens)
    args = _parser().parse_args(tokens)
    if not 0 <= args.port <= 65535:
        raise UsageError(f"invalid --port {args.port}: must be 0..65535")
    if args.max_sessions < 1:
        raise UsageError(f"invalid --max-sessions {args.max_sessions}: must be >= 1")
    given = {k: v for k, v in given_options(args, "play").items() if v is not None}
    if given.get("spec") is not None:
        given["spec"] = parse_spec(given["spec"])
    suite = check_suite_arg(args.suite, "SUITE")
    limits = None
    if args.rate is not None:
        from sandbox.serve import ServiceLimits

        if not args.rate > 0:
            raise UsageError(f"invalid --rate {args.rate}: must be > 0")
        limits = ServiceLimits(rate_per_second=args.rate, burst=max(1, int(2 * args.rate)))
    token = read_token(args.token_file)

    from evaluator.serve._app import BoxServer

    clock = time.monotonic()
    server = BoxServer(
        suite,
        box=args.box,
        options=given,
        host=args.host,
        port=args.port,
        token=token,
        max_sessions=args.max_sessions,
        seed=args.seed,
        limits=limits,
    )
    # SIGINT may arrive ignored (a background job of a shell without job control) and
    # SIGTERM is how `docker stop` asks: both stop the server.
    signal.signal(signal.SIGINT, _stop)
    signal.signal(signal.SIGTERM, _stop)
    ready = time.monotonic() - clock
    print(
        f"serving {server.suite.name} ({len(server.boxes)} box(es)) at {server.url}"
        f" (ready in {ready:.2f} s)",
        flush=True,
    )
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("stopped", flush=True)
    finally:
        server.stop()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``oracle-serve``; returns the exit code."""
    return run_cli(PROG, lambda: _main(argv), interrupted="stopped")
