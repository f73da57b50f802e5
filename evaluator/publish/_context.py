"""The build context of a published image: which images a suite makes (tags, labels,
command) and the folder ``docker build`` reads (Dockerfile, site, suite).

Nothing here talks to the Docker engine: a context can be written and inspected without
one (the tests do), and :mod:`evaluator.publish.builder` builds it.
"""

from __future__ import annotations

import compileall
import json
import logging
import os
import py_compile
import re
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from blackboxes.box import BOX_FILES, SuiteInfo
from blackboxes.store import OWNER_NAME, SUITE_NAME, load_suite
from evaluator.publish._closure import PROJECT_PACKAGES, Distribution, serve_distributions
from oracle_bench._version import __version__
from oracle_bench.errors import OracleBenchError, PublishError, UsageError
from oracle_bench.jsonio import sha256_hex

__all__ = [
    "IMAGE_SUITE_DIR",
    "SERVER_GID",
    "SERVER_UID",
    "SERVE_PORT",
    "SITE_DIR",
    "SUITE_FILES",
    "BuildContext",
    "ImagePlan",
    "image_labels",
    "plan_images",
    "suite_digest",
    "write_context",
]

logger = logging.getLogger(__name__)

SITE_DIR = "/opt/oracle-bench/site"
"""Where the image holds the Python packages (on ``PYTHONPATH``)."""
IMAGE_SUITE_DIR = "/srv/suite"
"""Where the image holds the suite the server serves."""
SERVE_PORT = 8000
"""The port the server listens on inside the image."""
SERVER_UID = 65534
SERVER_GID = 65534
"""The server runs as nobody:nogroup (present in Debian-based images, and a numeric
``USER`` needs no passwd entry): not root, owning nothing in the image."""
SUITE_FILES = (SUITE_NAME, OWNER_NAME)
"""Suite-level files an image holds. owner.json is there because loading a box checks
every file against the sha256 it records; rejected/ (the failed candidates'
provenance) is not. Every box's :data:`~blackboxes.box.BOX_FILES` come along, for the
same check."""
DOCKERFILE_TEMPLATE = "publish/Dockerfile.j2"
PTH_NAME = "oracle-bench.pth"

_PART = r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*"
_REPOSITORY = re.compile(rf"{_PART}(?:/{_PART})*")
_HOST = re.compile(r"[A-Za-z0-9.-]+(?::[0-9]+)?")
_TAG = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}")
_SOURCE_ROOT = Path(__file__).resolve().parents[2]
_SKIP_PROJECT = {("templates", "publish")}  # the publisher's own templates


@dataclass(frozen=True)
class ImagePlan:
    """One image to build: its tag, the box it serves (None: the whole suite), its
    labels and the command its server runs with."""

    tag: str
    box: str | None
    labels: Mapping[str, str]
    command: tuple[str, ...]
    boxes: tuple[str, ...]
    """The box folders the image holds."""


@dataclass(frozen=True)
class BuildContext:
    """A written build context: its folder, the plan, what went into ``site``."""

    path: Path
    plan: ImagePlan
    distributions: tuple[Distribution, ...]
    python_version: tuple[int, int]
    compiled: bool
    """True when the site holds bytecode (the base image's Python is the publisher's)."""
    suite_files: tuple[str, ...] = field(default=())
    """Paths under the image's suite folder, posix, sorted."""


def suite_digest(suite_dir: Path) -> str:
    """sha256 of suite.json's bytes: names the suite (its boxes' digests are inside)."""
    try:
        return sha256_hex((Path(suite_dir) / SUITE_NAME).read_bytes())
    except OSError as exc:
        raise PublishError(f"cannot read {Path(suite_dir) / SUITE_NAME}: {exc}") from None


def _slug(text: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return slug or "suite"


def _split_tag(tag: str) -> tuple[str, str | None]:
    """``[host[:port]/]name[:tag]`` into the name and the tag (None if absent), or a
    ``UsageError`` saying what is wrong with it."""
    if "@" in tag:
        raise UsageError(f"--tag {tag!r}: give a name[:tag], not a digest")
    name, version = tag, None
    if ":" in tag.rpartition("/")[2]:
        name, _, version = tag.rpartition(":")
    first, slash, rest = name.partition("/")
    path = name
    if slash and ("." in first or ":" in first or first == "localhost"):
        if not _HOST.fullmatch(first):
            raise UsageError(f"--tag {tag!r}: {first!r} is not a registry host")
        path = rest
    if not _REPOSITORY.fullmatch(path):
        raise UsageError(
            f"--tag {tag!r}: an image name is lowercase letters and digits in parts "
            "separated by . _ - and joined by /"
        )
    if version is not None and not _TAG.fullmatch(version):
        raise UsageError(f"--tag {tag!r}: a tag is up to 128 letters, digits, _ . and -")
    return name, version


def image_labels(suite: SuiteInfo, digest: str, box: str | None) -> dict[str, str]:
    """The OCI and oracle-bench labels of an image serving ``suite`` (or its ``box``).

    ``created`` is the suite's own (set only from SOURCE_DATE_EPOCH) and absent without
    it: a label from the clock would make every build of a suite differ. A secret seed
    is labelled ``secret``."""
    count = 1 if box is not None else len(suite.boxes)
    subject = f"box {box} of suite" if box is not None else "suite"
    labels = {
        "org.opencontainers.image.title": suite.name if box is None else f"{suite.name}/{box}",
        "org.opencontainers.image.version": __version__,
        "org.opencontainers.image.description": (
            f"oracle-bench {subject} {suite.name} ({suite.family} {suite.level}, "
            f"{count} box{'es' if count != 1 else ''}) served over HTTP"
        ),
        "io.oracle-bench.category": suite.family,
        "io.oracle-bench.level": suite.level,
        "io.oracle-bench.seed": str(suite.seed) if suite.seed is not None else "secret",
        "io.oracle-bench.suite-digest": digest,
        "io.oracle-bench.tool-version": __version__,
    }
    if suite.created is not None:
        labels["org.opencontainers.image.created"] = suite.created
    if box is not None:
        labels["io.oracle-bench.box"] = box
    return dict(sorted(labels.items()))


def serve_command(box: str | None, serve_args: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The image's command: the server on the suite, with ``serve_args`` right after it
    (e.g. the episode spec ``10@1`` a turns suite is served with, a positional
    argument), on all interfaces."""
    server = ("python3", "-m", "evaluator.serve", IMAGE_SUITE_DIR, *serve_args)
    address = ("--host", "0.0.0.0", "--port", str(SERVE_PORT))
    return (*server, *address, *(("--box", box) if box is not None else ()))


def plan_images(
    suite_dir: Path,
    *,
    box: str | None = None,
    per_box: bool = False,
    tag: str | None = None,
    serve_args: tuple[str, ...] = (),
) -> list[ImagePlan]:
    """The images ``oracle-publish`` builds for a suite: one for the suite, one for
    ``box``, or one per box (``per_box``; ``tag``'s name gets ``/<box id>`` appended).
    ``serve_args`` follow the suite in the server's command. Raises ``UsageError`` for a bad
    combination, an unknown box, a malformed tag or server argument, and a folder that
    is not a readable suite."""
    for arg in serve_args:
        if not arg.isprintable() or not arg:
            raise UsageError(f"server argument {arg!r}: one printable word expected")
    if box is not None and per_box:
        raise UsageError("--box and --per-box exclude each other")
    try:
        suite = load_suite(Path(suite_dir))
    except OracleBenchError as exc:
        raise UsageError(f"SUITE {suite_dir}: {exc}") from None
    ids = [entry.id for entry in suite.boxes]
    if box is not None and box not in ids:
        shown = ", ".join(ids[:5]) + (", ..." if len(ids) > 5 else "")
        raise UsageError(f"--box {box!r}: suite {suite.name} has no such box ({shown})")
    if not ids:
        raise UsageError(f"SUITE {suite_dir}: the suite has no boxes")
    digest = suite_digest(Path(suite_dir))
    if tag is not None:
        name, version = _split_tag(tag)
    else:
        name, version = f"oracle-bench/{_slug(suite.name)}", None
    version = version or digest[:12]
    if per_box:
        return [
            ImagePlan(
                tag=f"{name}/{_slug(box_id)}:{version}",
                box=box_id,
                labels=image_labels(suite, digest, box_id),
                command=serve_command(box_id, serve_args),
                boxes=(box_id,),
            )
            for box_id in ids
        ]
    return [
        ImagePlan(
            tag=f"{name}:{version}",
            box=box,
            labels=image_labels(suite, digest, box),
            command=serve_command(box, serve_args),
            boxes=(box,) if box is not None else tuple(ids),
        )
    ]


def _copy_suite(suite_dir: Path, plan: ImagePlan, dest: Path) -> tuple[str, ...]:
    # Modes are what the image gets (COPY keeps them; --chown sets root:server group).
    written = []
    dest.mkdir(mode=0o750)
    names = [*SUITE_FILES, *(f"boxes/{b}/{name}" for b in plan.boxes for name in BOX_FILES)]
    for name in names:
        source, target = suite_dir / name, dest / name
        if not source.is_file():
            raise PublishError(f"{source} is missing: the suite is incomplete")
        for parent in reversed(target.relative_to(dest).parents[:-1]):
            (dest / parent).mkdir(mode=0o750, exist_ok=True)
        shutil.copyfile(source, target)
        target.chmod(0o640)
        written.append(name)
    for folder in [dest, *(p for p in dest.rglob("*") if p.is_dir())]:
        folder.chmod(0o750)
    return tuple(sorted(written))


def _copy_tree_file(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)
    target.chmod(0o755 if os.access(source, os.X_OK) and source.suffix != ".py" else 0o644)


def _copy_project(site: Path) -> None:
    for package in PROJECT_PACKAGES:
        root = _SOURCE_ROOT / package
        for source in sorted(root.rglob("*")):
            parts = source.relative_to(_SOURCE_ROOT).parts
            if not source.is_file() or "__pycache__" in parts or source.suffix == ".pyc":
                continue
            if tuple(parts[:2]) in _SKIP_PROJECT:
                continue
            _copy_tree_file(source, site / Path(*parts))


def _copy_installed(dists: tuple[Distribution, ...], site: Path) -> None:
    for dist in dists:
        for relative in dist.files:
            source = dist.root / relative
            if source.is_file():
                _copy_tree_file(source, site / relative)


def _platform_tags(machine: str) -> list[str]:
    arch = {"amd64": "x86_64", "arm64": "aarch64"}.get(machine, machine)
    tags = ["manylinux2014", "manylinux_2_17", "manylinux_2_28", "manylinux_2_34"]
    return [f"{tag}_{arch}" for tag in tags]


def _download_wheels(
    dists: tuple[Distribution, ...], python_version: tuple[int, int], machine: str, site: Path
) -> None:
    """Wheels of the same versions for the base image's Python, unpacked into ``site``."""
    version = f"{python_version[0]}.{python_version[1]}"
    wheels = site.parent / "wheels"
    wheels.mkdir()
    argv = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps"]
    argv += ["--only-binary=:all:", "--python-version", version, "--implementation", "cp"]
    for platform in _platform_tags(machine):
        argv += ["--platform", platform]
    argv += ["--dest", str(wheels), *(f"{d.name}=={d.version}" for d in dists)]
    logger.info("downloading wheels for Python %s: %s", version, " ".join(argv))
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=900, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise PublishError(f"pip download for Python {version} failed: {exc}") from None
    if done.returncode != 0:
        lines = [line for line in done.stderr.splitlines() if line.strip()]
        last = lines[-1].strip() if lines else f"exit code {done.returncode}"
        raise PublishError(
            f"the base image runs Python {version}, not this Python "
            f"({sys.version_info[0]}.{sys.version_info[1]}), and its wheels cannot be "
            f"fetched here ({last[:200]}); use a base image with Python "
            f"{sys.version_info[0]}.{sys.version_info[1]} or publish where PyPI is reachable"
        )
    for wheel in sorted(wheels.glob("*.whl")):
        _unpack_wheel(wheel, site)
    shutil.rmtree(wheels)


def _unpack_wheel(wheel: Path, site: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        for info in archive.infolist():
            parts = Path(info.filename).parts
            if info.is_dir() or ".." in parts or Path(info.filename).is_absolute():
                continue
            if parts[0].endswith(".data"):
                if len(parts) < 3 or parts[1] not in ("purelib", "platlib"):
                    continue  # scripts, headers, data: not for importing
                parts = parts[2:]
            target = site.joinpath(*parts)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(archive.read(info))
            executable = (info.external_attr >> 16) & 0o111
            target.chmod(0o755 if executable else 0o644)


def _compile(site: Path) -> None:
    # Unchecked-hash bytecode: the image is immutable, the server starts without
    # compiling (it cannot write __pycache__ anyway), and paths in tracebacks are the
    # image's. Sources that do not compile (a test fixture's deliberate error) stay source.
    ok = compileall.compile_dir(
        site,
        ddir=SITE_DIR,
        quiet=2,
        workers=0,
        invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH,
    )
    if not ok:
        logger.info("some modules under %s did not compile; they stay source only", site)


def _dockerfile(plan: ImagePlan, base_image: str, suite_name: str, site_packages: str) -> str:
    import templates

    labels = " \\\n      ".join(f"{key}={_quote(value)}" for key, value in plan.labels.items())
    return templates.render(
        DOCKERFILE_TEMPLATE,
        base_image=base_image,
        suite_name=suite_name.replace("\n", " "),
        site_dir=SITE_DIR,
        suite_dir=IMAGE_SUITE_DIR,
        uid=SERVER_UID,
        gid=SERVER_GID,
        port=SERVE_PORT,
        labels=labels,
        command=json.dumps(list(plan.command)),
        site_packages=site_packages,
        pth_name=PTH_NAME,
    )


def _quote(value: str) -> str:
    """A Dockerfile double-quoted word: no variable expansion, no line break."""
    flat = " ".join(value.split())
    return '"' + re.sub(r'(["\\$])', r"\\\1", flat) + '"'


def write_context(
    suite_dir: Path,
    plan: ImagePlan,
    dest: Path,
    *,
    base_image: str,
    python_version: tuple[int, int],
    machine: str = "x86_64",
    site_packages: str,
) -> BuildContext:
    """Write the build context of ``plan`` into the empty or missing folder ``dest``.

    The site holds the project's packages from this checkout and the third-party
    distributions the serve path imports: copied from this Python's installation when the
    base image runs the same major.minor (then precompiled), else wheels of the same
    versions fetched with ``pip download`` (``PublishError`` when that fails). A ``.pth``
    file for the base image's ``site_packages`` folder puts the site on every
    ``python3``'s path: the sandbox starts its workers with an empty environment, so
    ``PYTHONPATH`` would not reach them."""
    suite_dir = Path(suite_dir)
    suite = load_suite(suite_dir)
    if base_image != base_image.strip() or not base_image or any(c.isspace() for c in base_image):
        raise UsageError(f"--base-image {base_image!r} is not an image name")
    from blackboxes.families import get_family
    from evaluator.kinds import kind_for_family

    family_module = type(get_family(suite.family)).__module__
    kind_module = type(kind_for_family(suite.family)).__module__
    dists = serve_distributions(family_module, kind_module)
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    if any(dest.iterdir()):
        raise PublishError(f"{dest} is not empty: a build context is written to a new folder")
    site = dest / "site"
    site.mkdir()
    _copy_project(site)
    same_python = python_version == sys.version_info[:2]
    if same_python:
        _copy_installed(dists, site)
        _compile(site)
    else:
        _download_wheels(dists, python_version, machine, site)
    for path in [site, *(p for p in site.rglob("*") if p.is_dir())]:
        path.chmod(0o755)
    files = _copy_suite(suite_dir, plan, dest / "suite")
    (dest / "pth").mkdir()
    (dest / "pth" / PTH_NAME).write_text(SITE_DIR + "\n", encoding="utf-8")
    (dest / "pth" / PTH_NAME).chmod(0o644)
    dockerfile = _dockerfile(plan, base_image, suite.name, site_packages)
    (dest / "Dockerfile").write_text(dockerfile, encoding="utf-8")
    return BuildContext(
        path=dest,
        plan=plan,
        distributions=dists,
        python_version=python_version,
        compiled=same_python,
        suite_files=files,
    )
