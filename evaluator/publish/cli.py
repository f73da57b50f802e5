"""``oracle-publish``: build a Docker image that serves a suite (or one box) over HTTP."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from oracle_bench.cli import ArgumentParser, add_version, check_suite_arg, run_cli
from oracle_bench.errors import DockerUnavailableError, UsageError

__all__ = ["main"]

PROG = "oracle-publish"

_EPILOG = """\
The image runs `python3 -m evaluator.serve /srv/suite [SERVER-ARGS] --host 0.0.0.0 --port
8000` (with --box ID for a one-box image; SERVER-ARGS: what follows `--` on this command
line, e.g. the spec `10@1` a turns suite is served with) as a non-root user; the suite
is readable by that user only and no route returns the box code, hidden.json or an
answer. Run it with the host's network (no bridge here) and, for a token,
$ORACLE_SERVE_TOKEN_FILE:
  docker run --rm --network host --tmpfs /tmp IMAGE

The base image is --base-image, else $ORACLE_BASE_IMAGE, else python:3.12-slim; without a
registry, build the offline one with `bash .ci/docker-engine` (local/debian-python:bookworm).
Labels: org.opencontainers.image.* and io.oracle-bench.{category,level,seed,suite-digest,
box,tool-version}.

Examples:
  oracle-publish suites/eri-easy -- 10@1
  oracle-publish suites/eri-easy --box eri-easy-003 --save eri-easy-003.tar -- 10@1
  oracle-publish suites/dfa --per-box --tag registry.example:5000/bench/dfa:v1
"""


def _parser() -> argparse.ArgumentParser:
    p = ArgumentParser(
        prog=PROG,
        usage="%(prog)s SUITE [options] [-- SERVER-ARGS...]",
        description="Build a Docker image that serves a suite (or one box) over HTTP.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("suite", type=Path, metavar="SUITE", help="suite directory")
    p.add_argument("--box", metavar="ID", help="an image serving this box only")
    p.add_argument("--per-box", action="store_true", help="one image per box (NAME/BOX-ID:TAG)")
    p.add_argument(
        "--tag",
        metavar="T",
        help="image name[:tag] (default: oracle-bench/SUITE-NAME:first 12 hex of the suite digest)",
    )
    p.add_argument("--base-image", metavar="IMG", help="base image with python3 >= 3.11")
    p.add_argument("--save", type=Path, metavar="FILE.tar", help="also write `docker save` output")
    p.add_argument("-v", "--verbose", action="count", default=0, help="more logging (-vv: debug)")
    add_version(p)
    return p


def _size(n: int) -> str:
    return f"{n / 1e6:.1f} MB"


def _run(argv: Sequence[str] | None) -> int:
    tokens = list(sys.argv[1:] if argv is None else argv)
    serve_args: tuple[str, ...] = ()
    if "--" in tokens:  # what follows is the server's, baked into the image's command
        cut = tokens.index("--")
        tokens, serve_args = tokens[:cut], tuple(tokens[cut + 1 :])
    args = _parser().parse_args(tokens)
    suite = check_suite_arg(args.suite, "SUITE")
    from rich.console import Console

    from evaluator.publish.builder import publish_suite
    from oracle_bench.cli import configure_logging

    err = Console(stderr=True, highlight=False, soft_wrap=True)
    configure_logging(args.verbose, err)
    with err.status("oracle-publish: starting", spinner="dots") as status:
        images = publish_suite(
            suite,
            box=args.box,
            per_box=args.per_box,
            tag=args.tag,
            serve_args=serve_args,
            base_image=args.base_image,
            save=args.save,
            progress=lambda text: status.update(f"oracle-publish: {text}"),
        )
    out = Console(highlight=False, soft_wrap=True)
    for image in images:
        saved = f", saved to {image.saved}" if image.saved is not None else ""
        out.print(
            f"{image.tag}  {image.image_id.removeprefix('sha256:')[:12]}  "
            f"{_size(image.size_bytes)}  built in {image.build_seconds:.1f} s{saved}",
            markup=False,
        )
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``oracle-publish``: 0 built, 2 bad arguments or no Docker engine,
    1 a failed build."""

    def body() -> int:
        try:
            return _run(argv)
        except DockerUnavailableError as exc:
            # Fail closed, and as a setup problem: nothing was built.
            raise UsageError(str(exc)) from None

    return run_cli(PROG, body)


if __name__ == "__main__":
    sys.exit(main())
