"""oracle-publish: the images' plans and build contexts (no engine), the command line's
refusals, and ONE image built per session from a 2-box ERI suite, inspected for labels,
user, files, permissions, closure, ``docker save``/``docker load`` and, once the server
exists, served over HTTP."""

from __future__ import annotations

import contextlib
import gc
import json
import secrets
import socket
import subprocess
import urllib.request
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from blackboxes.box import BOX_FILES
from blackboxes.store import load_owner, load_suite, write_suite
from evaluator.publish import (
    SERVE_PORT,
    PublishedImage,
    image_labels,
    plan_images,
    publish_suite,
    serve_distributions,
    suite_digest,
    write_context,
)
from evaluator.publish.cli import main
from oracle_bench import __version__
from oracle_bench.errors import PublishError, UsageError
from oracle_bench.jsonio import sha256_hex
from tests.evaluator.conftest import build_suite

CREATED = "2026-01-02T03:04:05Z"
SUITE_NAME = "eri-publish-test"
BOX_IDS = ("eri-easy-000", "eri-easy-001")
SERVER_ID = "65534"
SERVE_ARGS = ("10@1",)
"""The spec a turns suite is served with, after the server's own arguments."""


def _make_suite(root: Path, *, secret: bool = False) -> Path:
    """A 2-box easy ERI suite with a ``created`` time (as SOURCE_DATE_EPOCH gives)."""
    suite_dir = build_suite(root, n=2, seed=7, name=SUITE_NAME)
    suite = load_suite(suite_dir)
    owner = load_owner(suite_dir, suite)
    update: dict[str, Any] = {"created": CREATED}
    if secret:
        from blackboxes.store import seed_commitment

        update |= {"seed": None, "seed_commitment": seed_commitment(owner.seed)}
        owner = owner.model_copy(update={"public": False})
    write_suite(suite_dir, suite.model_copy(update=update), owner)
    (suite_dir / "rejected").mkdir()
    (suite_dir / "rejected" / "x.json").write_text("{}\n", encoding="utf-8")
    return suite_dir


def _expected_labels(suite_dir: Path, box: str | None = None) -> dict[str, str]:
    digest = sha256_hex((suite_dir / "suite.json").read_bytes())
    labels = {
        "io.oracle-bench.category": "ERI",
        "io.oracle-bench.level": "easy",
        "io.oracle-bench.seed": "7",
        "io.oracle-bench.suite-digest": digest,
        "io.oracle-bench.tool-version": __version__,
        "org.opencontainers.image.created": CREATED,
        "org.opencontainers.image.description": (
            f"oracle-bench suite {SUITE_NAME} (ERI easy, 2 boxes) served over HTTP"
        ),
        "org.opencontainers.image.title": SUITE_NAME,
        "org.opencontainers.image.version": __version__,
    }
    if box is not None:
        labels |= {
            "io.oracle-bench.box": box,
            "org.opencontainers.image.description": (
                f"oracle-bench box {box} of suite {SUITE_NAME} (ERI easy, 1 box) served over HTTP"
            ),
            "org.opencontainers.image.title": f"{SUITE_NAME}/{box}",
        }
    return labels


@pytest.fixture(scope="module")
def suite_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _make_suite(tmp_path_factory.mktemp("publish-suite"))


# -- plans and contexts, no engine ----------------------------------------------------------


def test_plan_of_a_suite_has_the_default_tag_labels_and_command(suite_dir: Path) -> None:
    digest = suite_digest(suite_dir)
    assert digest == sha256_hex((suite_dir / "suite.json").read_bytes())
    [plan] = plan_images(suite_dir)
    assert plan.tag == f"oracle-bench/{SUITE_NAME}:{digest[:12]}"
    assert plan.box is None
    assert plan.boxes == BOX_IDS
    assert dict(plan.labels) == _expected_labels(suite_dir)
    assert plan.command == (
        "python3",
        *("-m", "evaluator.serve", "/srv/suite", "--host", "0.0.0.0", "--port", "8000"),
    )


def test_plans_of_one_box_and_of_every_box(suite_dir: Path) -> None:
    digest12 = suite_digest(suite_dir)[:12]
    [one] = plan_images(
        suite_dir, box="eri-easy-001", tag="reg.example:5000/bench/eri", serve_args=("10@1",)
    )
    assert one.tag == f"reg.example:5000/bench/eri:{digest12}"
    assert one.boxes == ("eri-easy-001",)
    assert one.command[3:5] == ("/srv/suite", "10@1")
    assert one.command[-2:] == ("--box", "eri-easy-001")
    assert dict(one.labels) == _expected_labels(suite_dir, "eri-easy-001")
    per_box = plan_images(suite_dir, per_box=True, tag="bench/eri:v1")
    assert [p.tag for p in per_box] == [f"bench/eri/{b}:v1" for b in BOX_IDS]
    assert [p.boxes for p in per_box] == [(b,) for b in BOX_IDS]
    assert [p.labels["io.oracle-bench.box"] for p in per_box] == list(BOX_IDS)


def test_a_secret_seed_is_labelled_secret_and_no_created_means_no_label(
    tmp_path: Path,
) -> None:
    suite_dir = _make_suite(tmp_path, secret=True)
    suite = load_suite(suite_dir)
    labels = image_labels(suite, "d" * 64, None)
    assert labels["io.oracle-bench.seed"] == "secret"
    bare = image_labels(suite.model_copy(update={"created": None}), "d" * 64, None)
    assert "org.opencontainers.image.created" not in bare
    assert set(labels) - set(bare) == {"org.opencontainers.image.created"}


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"box": "nope"}, "--box 'nope': suite eri-publish-test has no such box"),
        ({"box": "eri-easy-000", "per_box": True}, "--box and --per-box exclude each other"),
        ({"tag": "Bad/Name"}, "--tag 'Bad/Name': an image name is lowercase"),
        ({"tag": "ok/name:bad tag"}, "--tag 'ok/name:bad tag': a tag is up to 128"),
        ({"tag": "ok/name@sha256:00"}, "--tag 'ok/name@sha256:00': give a name[:tag]"),
        ({"serve_args": ("10@1\n",)}, "server argument '10@1\\n': one printable word"),
    ],
)
def test_bad_plans_are_usage_errors(suite_dir: Path, kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(UsageError) as caught:
        plan_images(suite_dir, **kwargs)
    assert str(caught.value).startswith(message)


def test_one_box_context_holds_that_box_only_and_the_site(suite_dir: Path, tmp_path: Path) -> None:
    [plan] = plan_images(suite_dir, box="eri-easy-001")
    context = write_context(
        suite_dir,
        plan,
        tmp_path / "ctx",
        base_image="some/base:1",
        python_version=(3, 11),  # the tests' Python: copied and compiled, never downloaded
        site_packages="/usr/lib/python3/dist-packages",
    )
    suite_files = sorted(
        p.relative_to(context.path / "suite").as_posix()
        for p in (context.path / "suite").rglob("*")
        if p.is_file()
    )
    expected = sorted(["owner.json", "suite.json", *(f"boxes/eri-easy-001/{n}" for n in BOX_FILES)])
    assert suite_files == expected == list(context.suite_files)  # no other box, no rejected/
    assert {oct(p.stat().st_mode & 0o777) for p in (context.path / "suite").rglob("*")} == {
        "0o640",
        "0o750",
    }
    site = context.path / "site"
    assert {p.name for p in site.iterdir() if p.is_dir() and not p.name.endswith("-info")} >= {
        "blackboxes",
        "evaluator",
        "oracle_bench",
        "pydantic",
        "RestrictedPython",
        "sandbox",
        "templates",
    }
    for absent in ("generator", "openai", "anthropic", "langgraph", "matplotlib", "docker"):
        assert not (site / absent).exists(), absent
    assert not (site / "templates" / "publish").exists()
    assert (context.path / "pth" / "oracle-bench.pth").read_text() == "/opt/oracle-bench/site\n"
    dockerfile = (context.path / "Dockerfile").read_text()
    assert "FROM some/base:1\n" in dockerfile
    assert "COPY pth/oracle-bench.pth /usr/lib/python3/dist-packages/oracle-bench.pth\n" in (
        dockerfile
    )
    assert f"USER {SERVER_ID}:{SERVER_ID}\n" in dockerfile
    assert "RUN" not in dockerfile.replace("# No RUN step", "")
    assert dockerfile.endswith(f"CMD {json.dumps(list(plan.command))}\n")
    assert 'io.oracle-bench.box="eri-easy-001"' in dockerfile


def test_closure_follows_the_familys_imports() -> None:
    eri = {
        d.name.lower()
        for d in serve_distributions(
            "blackboxes.families.eri._family", "evaluator.kinds.turns._kind"
        )
    }
    psi = {
        d.name.lower()
        for d in serve_distributions(
            "blackboxes.families.psi._family", "evaluator.kinds.turns._kind"
        )
    }
    assert {"pydantic", "pydantic_core", "restrictedpython", "jinja2", "rich"} <= eri
    assert not eri & {"numpy", "scipy", "wordfreq", "openai", "anthropic", "docker", "ray"}
    assert psi - eri == {"numpy", "scipy"}  # PSI's references import SciPy on use


def test_another_python_without_wheels_is_one_publish_error(
    suite_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import evaluator.publish._context as context_module

    def offline(argv: list[str], **_: Any) -> subprocess.CompletedProcess[str]:
        assert argv[1:4] == ["-m", "pip", "download"]
        assert argv[argv.index("--python-version") + 1] == "3.12"
        return subprocess.CompletedProcess(argv, 1, "", "ERROR: No matching distribution\n")

    monkeypatch.setattr(context_module.subprocess, "run", offline)
    [plan] = plan_images(suite_dir)
    with pytest.raises(PublishError) as caught:
        write_context(
            suite_dir,
            plan,
            tmp_path / "ctx",
            base_image="python:3.12-slim",
            python_version=(3, 12),
            site_packages="/usr/local/lib/python3.12/site-packages",
        )
    assert "\n" not in str(caught.value)
    assert str(caught.value).startswith("the base image runs Python 3.12, not this Python")
    assert "(ERROR: No matching distribution)" in str(caught.value)


# -- the command line's refusals ------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["{missing}"],
        ["{suite}", "--box", "nope"],
        ["{suite}", "--box", "eri-easy-000", "--per-box"],
        ["{suite}", "--tag", "Not A Tag"],
        ["{suite}", "--per-box", "--save", "{tmp}/x.tar"],
        ["{suite}", "--save", "{tmp}"],
        ["{suite}", "--no-such-flag"],
        ["{suite}", "--", ""],
    ],
)
def test_bad_arguments_exit_2_with_one_line(
    args: list[str], suite_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [a.format(suite=suite_dir, tmp=tmp_path, missing=tmp_path / "missing") for a in args]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("oracle-publish: error: ")
    assert err.count("\n") == 1


def test_no_engine_exits_2_with_one_line(
    suite_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/no-engine.sock")
    with warnings.catch_warnings():
        # The docker SDK leaves its socket to the collector when no engine answers.
        warnings.simplefilter("ignore", ResourceWarning)
        code = main([str(suite_dir), "--base-image", "local/whatever:1"])
        gc.collect()
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith("oracle-publish: error: no Docker engine answers at unix://")
    assert err.count("\n") == 1


# -- one image per session -----------------------------------------------------------------


@dataclass(frozen=True)
class Published:
    client: Any
    suite_dir: Path
    image: PublishedImage
    tarball: Path


@pytest.fixture(scope="module")
def published(
    docker_engine: Any, docker_base_image: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Published]:
    """The one image of the session: a session-unique tag (tests on one engine may run
    side by side), removed at the end."""
    root = tmp_path_factory.mktemp("publish-image")
    suite_dir = _make_suite(root)
    tag = f"oracle-bench-test/eri-publish:{secrets.token_hex(6)}"
    tarball = root / "image.tar"
    [image] = publish_suite(
        suite_dir,
        tag=tag,
        serve_args=SERVE_ARGS,
        base_image=docker_base_image,
        save=tarball,
        client=docker_engine,
    )
    # Measured once per session; printed with -s (the report's figures).
    print(f"\npublished {tag}: {image.size_bytes} bytes in {image.build_seconds:.1f} s")
    try:
        yield Published(docker_engine, suite_dir, image, tarball)
    finally:
        with contextlib.suppress(Exception):  # already gone: nothing to clean
            docker_engine.images.remove(image.image_id, force=True)


def _run(published: Published, command: list[str]) -> str:
    out = published.client.containers.run(
        published.image.tag, command, network_mode="none", remove=True, stderr=True
    )
    return bytes(out).decode("utf-8")


_INSIDE = r"""
import importlib, json, os, pkgutil, stat, sys
import blackboxes, evaluator, sandbox
from blackboxes.families import get_family
from blackboxes.store import load_suite_boxes
from evaluator.kinds import kind_for_family
from sandbox import SandboxWorker

suite, boxes = load_suite_boxes("/srv/suite")
imported = []
family, kind = get_family(suite.family), kind_for_family(suite.family)
for package in (type(family).__module__, type(kind).__module__):
    root = importlib.import_module(package.rpartition(".")[0])
    for info in pkgutil.walk_packages(root.__path__, root.__name__ + "."):
        importlib.import_module(info.name)
        imported.append(info.name)
with SandboxWorker(boxes[0].code) as worker:
    layers = sorted(worker.layers)
    worker.call("probe")

def entry(path):
    s = os.stat(path)
    return [oct(stat.S_IMODE(s.st_mode)), s.st_uid, s.st_gid]

suite_tree = {
    os.path.relpath(os.path.join(d, n), "/srv/suite"): entry(os.path.join(d, n))
    for d, dirs, files in os.walk("/srv/suite") for n in dirs + files
}
site = "/opt/oracle-bench/site"
print(json.dumps({
    "ids": [os.getuid(), os.getgid(), os.geteuid()],
    "suite": suite_tree,
    "hidden_readable": len(open("/srv/suite/boxes/eri-easy-000/hidden.json").read()) > 0,
    "writable": {
        p: os.access(p, os.W_OK)
        for p in ("/srv/suite", "/srv/suite/boxes/eri-easy-000", site, "/tmp")
    },
    "site": sorted(os.listdir(site)),
    "imported": len(imported),
    "layers": layers,
    "secrets": sorted(k for k in os.environ if any(w in k for w in ("KEY", "TOKEN", "SECRET"))),
    "pyc": os.path.exists(
        site + "/evaluator/__pycache__/__init__.cpython-%d%d.pyc" % sys.version_info[:2]
    ),
}))
"""


def test_image_labels_user_command_and_environment(published: Published) -> None:
    image = published.client.images.get(published.image.tag)
    assert image.id == published.image.image_id
    ours = {
        k: v
        for k, v in (image.labels or {}).items()
        if k.startswith(("io.oracle-bench.", "org.opencontainers."))
    }
    assert ours == _expected_labels(published.suite_dir)
    assert {k: published.image.labels[k] for k in ours} == ours
    config = image.attrs["Config"]
    assert config["User"] == f"{SERVER_ID}:{SERVER_ID}"
    [plan] = plan_images(published.suite_dir, serve_args=SERVE_ARGS)
    assert config["Cmd"] == list(plan.command)
    assert plan.command == (
        "python3",
        *("-m", "evaluator.serve", "/srv/suite", "10@1", "--host", "0.0.0.0", "--port", "8000"),
    )
    assert config["ExposedPorts"] == {f"{SERVE_PORT}/tcp": {}}
    env = dict(e.split("=", 1) for e in config["Env"])
    assert env["PYTHONUNBUFFERED"] == "1"
    assert "PYTHONPATH" not in env  # the .pth reaches the sandbox's workers too
    assert not [k for k in env if any(w in k for w in ("KEY", "TOKEN", "SECRET"))]
    assert published.image.size_bytes == image.attrs["Size"] > 0
    assert published.image.build_seconds > 0


def test_inside_the_image(published: Published) -> None:
    facts = json.loads(_run(published, ["python3", "-c", _INSIDE]))
    assert facts["ids"] == [65534, 65534, 65534]
    owner_only = ["0o640", 0, 65534]
    folder = ["0o750", 0, 65534]
    expected = {"boxes": folder, "owner.json": owner_only, "suite.json": owner_only}
    for box in BOX_IDS:
        expected[f"boxes/{box}"] = folder
        expected |= {f"boxes/{box}/{name}": owner_only for name in BOX_FILES}
    assert facts["suite"] == expected  # no rejected/, nothing else
    assert facts["hidden_readable"] is True
    assert facts["writable"] == {
        "/srv/suite": False,
        "/srv/suite/boxes/eri-easy-000": False,
        "/opt/oracle-bench/site": False,
        "/tmp": True,
    }
    site = set(facts["site"])
    assert {"blackboxes", "evaluator", "oracle_bench", "providers", "sandbox", "templates"} <= site
    assert {"pydantic", "RestrictedPython", "jinja2", "rich"} <= site
    assert not site & {"generator", "numpy", "scipy", "wordfreq", "openai", "anthropic", "docker"}
    assert facts["imported"] > 5
    assert {"process", "restricted"} <= set(facts["layers"])
    assert facts["secrets"] == []
    assert facts["pyc"] is True


def test_saved_tarball_loads_back_as_the_same_image(published: Published) -> None:
    client = published.client
    assert not list(published.tarball.parent.glob(f".{published.tarball.name}.*"))
    client.images.remove(published.image.image_id, force=True)
    with published.tarball.open("rb") as data:
        [loaded] = client.images.load(data)
    assert loaded.id == published.image.image_id
    assert published.image.tag in loaded.tags


def test_a_missing_base_image_is_one_publish_error(suite_dir: Path, docker_engine: Any) -> None:
    with pytest.raises(PublishError) as caught:
        publish_suite(suite_dir, base_image="local/no-such-base:0", client=docker_engine)
    text = str(caught.value)
    assert text.startswith("base image local/no-such-base:0 is not here and cannot be pulled here")
    assert "bash .ci/docker-engine" in text
    assert "\n" not in text


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def _serving(published: Published) -> Iterator[tuple[int, str]]:
    """The image's own command on a free port of the host network, read-only root and a
    tmpfs /tmp: (port, what it printed up to its ready line)."""
    port = _free_port()
    command = list(published.client.images.get(published.image.tag).attrs["Config"]["Cmd"])
    command[command.index("--host") + 1] = "127.0.0.1"
    command[command.index("--port") + 1] = str(port)
    container = published.client.containers.run(
        published.image.tag,
        command,
        network_mode="host",
        detach=True,
        read_only=True,
        tmpfs={"/tmp": "rw,size=64m"},
    )
    try:
        seen = b""
        with warnings.catch_warnings():
            # The docker SDK leaves a followed log stream's socket to the collector.
            warnings.simplefilter("ignore", ResourceWarning)
            logs = container.logs(stream=True, follow=True)
            for chunk in logs:
                seen += chunk
                if b"serving " in seen and b"\n" in seen.split(b"serving ", 1)[1]:
                    break
            logs.close()
            del logs
            gc.collect()
        yield port, seen.decode("utf-8", "replace")
    finally:
        container.remove(force=True)


def test_evaluated_through_env_as_locally(published: Published, tmp_path: Path) -> None:
    """Issue 15's acceptance in a container: the baselines through --env give the local
    summaries, and the local trajectories withheld, but for the recorded environment (the
    sandbox layers: the container's unprivileged server has no netns or uid drop)."""
    from evaluator.dataset import BoxDataset
    from evaluator.runner import evaluate_suite

    agents = ["adaptive", "random"]
    evaluate_suite(published.suite_dir, agents, SERVE_ARGS[0], None, 0, tmp_path / "local")
    with _serving(published) as (port, _):
        evaluate_suite(
            None,
            agents,
            None,
            None,
            0,
            tmp_path / "remote",
            env=f"http://127.0.0.1:{port}",
            concurrency=2,
        )
    for name in ("summary.json", "summary.csv"):
        assert (tmp_path / "remote" / name).read_bytes() == (tmp_path / "local" / name).read_bytes()
    data = BoxDataset(published.suite_dir, spec=SERVE_ARGS[0])
    kind = data.kind
    names = sorted(p.name for p in (tmp_path / "local" / "trajectories").iterdir())
    assert names == sorted(p.name for p in (tmp_path / "remote" / "trajectories").iterdir())
    for name in names:
        local = kind.withhold(
            kind.read_record(tmp_path / "local" / "trajectories" / name), data.settings
        )
        remote = kind.read_record(tmp_path / "remote" / "trajectories" / name)
        assert "container" not in remote.sandbox_layers and "unprivileged" in remote.sandbox_layers
        kind.save_record(local.model_copy(update={"sandbox_layers": []}), tmp_path / "a.json")
        kind.save_record(remote.model_copy(update={"sandbox_layers": []}), tmp_path / "b.json")
        assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes(), name


def test_served_over_http(published: Published) -> None:
    """The image's own command, on a free port of the host network: the ready line, then
    /health and / (describe), with no code or hidden rule in the answer."""
    with _serving(published) as (port, text):
        assert f"at http://127.0.0.1:{port}" in text, text
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=30) as reply:
            assert reply.status == 200
            assert json.loads(reply.read()) == {"status": "ok"}
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=30) as reply:
            assert reply.status == 200
            body = reply.read().decode("utf-8")
        assert SUITE_NAME in body
        assert all(box in body for box in BOX_IDS)
        for box in BOX_IDS:
            box_dir = published.suite_dir / "boxes" / box
            code = (box_dir / "blackbox.py").read_text()
            assert code.strip() not in body
            hidden = json.loads((box_dir / "hidden.json").read_text())
            assert json.dumps(hidden["params"], sort_keys=True) not in body
            assert str(hidden["test_seed"]) not in body
