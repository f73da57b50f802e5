"""Build the images that serve a suite over HTTP, through the Docker engine.

``publish_suite`` checks its arguments before touching the engine, fails closed when no
engine answers (``DockerUnavailableError``), makes sure the base image is there (pulling
it where a registry is reachable), asks it which Python it runs, writes a build context
per image (:mod:`evaluator.publish._context`) and builds it with the docker SDK (the
legacy builder, with no network). ``--save`` output is written atomically.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaluator.publish._context import ImagePlan, plan_images, write_context
from oracle_bench.errors import PublishError, UsageError
from sandbox.docker import LOCAL_BASE_IMAGE, docker_client
from sandbox.docker import base_image as resolve_base_image

__all__ = ["BaseImageFacts", "PublishedImage", "probe_base_image", "publish_suite", "save_image"]

logger = logging.getLogger(__name__)

Progress = Callable[[str], None]
_PROBE = (
    "import json, os, platform, site, sys; print(json.dumps([sys.version_info[0], "
    "sys.version_info[1], platform.machine(), os.stat('/').st_mode, site.getsitepackages()]))"
)


@dataclass(frozen=True)
class PublishedImage:
    """One image built: its tag and id, its size, how long the build took, its labels."""

    tag: str
    image_id: str
    size_bytes: int
    build_seconds: float
    labels: Mapping[str, str]
    box: str | None
    """The box it serves; None for a whole suite."""
    saved: Path | None = None
    """The ``docker save`` tarball, when one was asked for."""


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return (text[0] if text else type(exc).__name__)[:300]


def _ensure_base_image(client: Any, image: str, progress: Progress) -> None:
    from docker.errors import DockerException, ImageNotFound

    try:
        client.images.get(image)
        return
    except ImageNotFound:
        pass
    except DockerException as exc:
        raise PublishError(f"cannot inspect base image {image}: {_one_line(exc)}") from None
    progress(f"pulling base image {image}")
    try:
        client.images.pull(image)
    except DockerException as exc:
        raise PublishError(
            f"base image {image} is not here and cannot be pulled here ({_one_line(exc)}); "
            f"build the offline one with `bash .ci/docker-engine` and pass --base-image "
            f"{LOCAL_BASE_IMAGE} (or set ORACLE_BASE_IMAGE)"
        ) from None


@dataclass(frozen=True)
class BaseImageFacts:
    """What a build needs to know about its base image, from one container run."""

    python_version: tuple[int, int]
    machine: str
    root_searchable: bool
    """Whether others may traverse ``/`` (an image imported from a ``mktemp -d`` tree
    has a 0700 root, which locks every non-root user out)."""
    site_packages: str
    """The first system site folder: a ``.pth`` there reaches every ``python3``,
    including the sandbox's workers, which run with an empty environment."""


def probe_base_image(client: Any, image: str) -> BaseImageFacts:
    """The Python, machine and root folder mode of ``image``, from one container run
    without network."""
    from docker.errors import DockerException

    try:
        raw = client.containers.run(
            image, ["python3", "-c", _PROBE], network_mode="none", remove=True, stderr=True
        )
    except DockerException as exc:
        raise PublishError(
            f"base image {image} cannot run python3 ({_one_line(exc)}): a published image "
            "needs a base with Python 3.11 or later"
        ) from None
    try:
        major, minor, machine, root_mode, sites = json.loads(raw)
        facts = BaseImageFacts(
            (int(major), int(minor)), str(machine), bool(int(root_mode) & 0o001), str(sites[0])
        )
    except (ValueError, TypeError, IndexError):
        raise PublishError(f"base image {image}: python3 answered {raw[:100]!r}") from None
    if (major, minor) < (3, 11):
        raise PublishError(f"base image {image} runs Python {major}.{minor}; 3.11+ is needed")
    if not facts.site_packages.startswith("/"):
        raise PublishError(f"base image {image}: no system site folder ({sites!r})")
    return facts


def _build(client: Any, context: Path, tag: str, progress: Progress) -> str:
    """Build ``context`` as ``tag``; the image id. The builder's error is a PublishError."""
    from docker.errors import DockerException

    image_id = ""
    try:
        stream = client.api.build(
            path=str(context),
            tag=tag,
            rm=True,
            forcerm=True,
            pull=False,
            network_mode="none",
            decode=True,
        )
        for chunk in stream:
            if not isinstance(chunk, dict):
                continue
            if "error" in chunk:
                raise PublishError(f"docker build of {tag} failed: {str(chunk['error']).strip()}")
            line = str(chunk.get("stream", "")).strip()
            if line.startswith("Step "):
                progress(f"{tag}: {line[:120]}")
            aux = chunk.get("aux")
            if isinstance(aux, dict) and isinstance(aux.get("ID"), str):
                image_id = aux["ID"]
    except DockerException as exc:
        raise PublishError(f"docker build of {tag} failed: {_one_line(exc)}") from None
    if not image_id:
        raise PublishError(f"docker build of {tag} reported no image")
    return image_id


def save_image(client: Any, tag: str, path: Path) -> Path:
    """``docker save`` of ``tag`` into ``path``, through a temporary file in the same
    folder renamed into place: a reader never sees half a tarball."""
    from docker.errors import DockerException

    path = Path(path)
    descriptor, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(descriptor, "wb") as out:
            for chunk in client.images.get(tag).save(named=tag):
                out.write(chunk)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except DockerException as exc:
        raise PublishError(f"docker save of {tag} failed: {_one_line(exc)}") from None
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
    return path


def _check_save(save: Path | None, plans: list[ImagePlan]) -> Path | None:
    if save is None:
        return None
    if len(plans) > 1:
        raise UsageError("--save writes one image: use --box ID, not --per-box")
    save = Path(save)
    if save.is_dir():
        raise UsageError(f"--save {save} is a folder; name the .tar file to write")
    if not save.parent.is_dir():
        raise UsageError(f"--save {save}: folder {save.parent} does not exist")
    return save


def publish_suite(
    suite_dir: Path,
    *,
    box: str | None = None,
    per_box: bool = False,
    tag: str | None = None,
    serve_args: tuple[str, ...] = (),
    base_image: str | None = None,
    save: Path | None = None,
    client: Any = None,
    progress: Progress | None = None,
) -> list[PublishedImage]:
    """Build the image serving ``suite_dir`` (or its ``box``, or one per box) and return
    what was built.

    ``serve_args`` follow the suite in the server's command (e.g. ``("10@1",)``, the
    spec a turns suite is served with). ``base_image`` defaults to ``$ORACLE_BASE_IMAGE``,
    then ``python:3.12-slim``; ``client`` to :func:`sandbox.docker.docker_client`;
    ``progress`` receives one-line statuses. Raises ``UsageError`` for bad arguments
    (before any engine call), ``DockerUnavailableError`` without an engine,
    ``PublishError`` when the base image or a build fails."""
    report = progress or (lambda _status: None)
    plans = plan_images(
        Path(suite_dir), box=box, per_box=per_box, tag=tag, serve_args=tuple(serve_args)
    )
    save = _check_save(save, plans)
    base = resolve_base_image(base_image)
    if client is None:
        client = docker_client()
    _ensure_base_image(client, base, report)
    report(f"asking {base} which Python it runs")
    facts = probe_base_image(client, base)
    if not facts.root_searchable:
        # A layer never records /'s mode, so no build step can open it: the base must.
        raise PublishError(
            f"base image {base} has a / only root may enter, so the server's non-root user "
            f"cannot start; rebuild it from a 0755 root folder, or re-import it: docker "
            f"export $(docker create {base}) | docker import -c 'CMD [\"python3\"]' - {base}"
        )
    published = []
    for plan in plans:
        started = time.monotonic()
        with tempfile.TemporaryDirectory(prefix="oracle-publish-") as folder:
            report(f"{plan.tag}: writing the build context")
            write_context(
                Path(suite_dir),
                plan,
                Path(folder) / "context",
                base_image=base,
                python_version=facts.python_version,
                machine=facts.machine,
                site_packages=facts.site_packages,
            )
            report(f"{plan.tag}: building on {base}")
            image_id = _build(client, Path(folder) / "context", plan.tag, report)
        seconds = time.monotonic() - started
        image = client.images.get(image_id)
        saved = None
        if save is not None:
            report(f"{plan.tag}: saving to {save}")
            saved = save_image(client, plan.tag, save)
        logger.info("built %s (%s) in %.1f s", plan.tag, image_id, seconds)
        published.append(
            PublishedImage(
                tag=plan.tag,
                image_id=image.id,
                size_bytes=int(image.attrs.get("Size", 0)),
                build_seconds=seconds,
                labels=dict(image.labels or {}),
                box=plan.box,
                saved=saved,
            )
        )
    return published
