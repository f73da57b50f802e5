"""The HTML report in a real headless Chromium: the figures and the trajectory viewer
render, an episode opens by its address, and the page asks the network for nothing.

Runs the baselines on a tiny ERI suite (2@1 instant and deferred, 4@1 instant: every
generic section has something to show) and takes the stored DFA run, builds the report
with ``oracle-eval report ... --html``, and reads the DOM Chromium dumps after the
viewer's script ran. Chromium goes through a proxy that is a socket this test listens
on: any request the page made would connect to it (only Chromium's own calls to its
services may, :data:`BROWSER_HOSTS`; the page has no address and forbids every fetch in
its Content-Security-Policy). Screenshots of the report and of an
opened episode go to ``$ORACLE_BENCH_ARTIFACTS`` (CI keeps .ci/artifacts). Skipped
without Chromium unless in CI (``CI`` set), where it must run.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from evaluator._report_cli import report_main
from evaluator.api import evaluate

FIXTURES = Path(__file__).parent / "fixtures" / "runs"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

pytestmark = pytest.mark.skipif(
    CHROMIUM is None and not os.environ.get("CI"),
    reason="needs Chromium (apt-get install chromium); CI installs it",
)


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory, suite_builder: Any) -> Path:
    root = tmp_path_factory.mktemp("chromium")
    suite = suite_builder(root, n=2, seed=3)
    runs = []
    for spec, feedback in (("2@1", "instant"), ("2@1", "deferred"), ("4@1", "instant")):
        out = root / f"{spec.replace('@', 'at')}-{feedback}"
        evaluate(suite, spec=spec, feedback=feedback, out=out)
        runs.append(str(out))
    dfa = root / "dfa-x2"
    shutil.copytree(FIXTURES / "dfa-x2", dfa)
    page = root / "report.html"
    assert report_main([*runs, str(dfa), "--html", str(page)]) == 0
    return page


@pytest.fixture
def proxy() -> Iterator[socket.socket]:
    """A listening socket Chromium is told to use as its proxy: every request it makes
    (but to loopback) connects here, and nothing answers."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    sock.setblocking(False)
    yield sock
    sock.close()


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    named = os.environ.get("ORACLE_BENCH_ARTIFACTS")
    out = Path(named) if named else tmp_path_factory.mktemp("artifacts")
    out.mkdir(parents=True, exist_ok=True)
    return out


def _chromium(
    page: Path, proxy: socket.socket, profile: Path, *args: str, fragment: str = ""
) -> str:
    assert CHROMIUM is not None, "Chromium is missing (CI must install it: .ci/run)"
    port = proxy.getsockname()[1]
    # Its own process group: a hung Chromium (a page waiting on the proxy, which never
    # answers) is stopped with its renderer and helper processes.
    browser = subprocess.Popen(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--disable-extensions",
            "--disable-features=NetworkTimeServiceQuerying,OptimizationHints,MediaRouter",
            "--no-pings",
            "--disable-domain-reliability",
            f"--user-data-dir={profile}",
            f"--proxy-server=http://127.0.0.1:{port}",
            "--proxy-bypass-list=<-loopback>",
            "--virtual-time-budget=5000",
            *args,
            page.resolve().as_uri() + fragment,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )
    try:
        stdout, stderr = browser.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(browser.pid, signal.SIGKILL)
        browser.communicate()
        _no_page_request(proxy)  # names the request the page waits on, if any
        raise
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(browser.pid, signal.SIGKILL)
    assert browser.returncode == 0, stderr[-2000:]
    return stdout


# Chromium's own services, which it calls whatever page it shows (the time, the
# component updater, the account check) even with background networking disabled.
BROWSER_HOSTS = ("google.com", "googleapis.com", "gvt1.com", "gstatic.com")


def _requests(proxy: socket.socket) -> list[str]:
    """The request lines Chromium sent through the proxy (it has exited: they wait in
    the backlog, each with its first line already sent)."""
    lines: list[str] = []
    while True:
        try:
            conn, _ = proxy.accept()
        except BlockingIOError:
            return lines
        with conn:
            conn.settimeout(2)
            try:
                lines.append(conn.recv(4096).split(b"\r\n")[0].decode("latin-1"))
            except OSError:
                lines.append("(no request line)")


def _no_page_request(proxy: socket.socket) -> None:
    """No request but Chromium's own: the page asked for nothing."""
    for line in _requests(proxy):
        target = line.split(" ")[1] if line.count(" ") >= 2 else line
        host = re.sub(r"^[a-z]+://", "", target).split("/")[0].split(":")[0]
        assert host.endswith(BROWSER_HOSTS), line


def _data(page: Path) -> dict[str, Any]:
    text = page.read_text(encoding="utf-8")
    found = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', text)
    assert found is not None
    data: dict[str, Any] = json.loads(found.group(1))
    return data


def test_the_report_renders_offline(
    report: Path, proxy: socket.socket, artifacts: Path, tmp_path: Path
) -> None:
    text = report.read_text(encoding="utf-8")
    assert set(re.findall(r"https?://[^\s\"'<>)]+", text)) == {"http://www.w3.org/2000/svg"}
    figures = text.count("<svg ")
    episodes = _data(report)["episodes"]

    dom = _chromium(report, proxy, tmp_path / "profile", "--dump-dom")
    # every figure, every section, and one row per episode drawn by the viewer's script
    assert dom.count("<svg ") == figures >= 15
    for section in ("runs", "results", "information", "feedback", "budget", "dfa"):
        assert f'<section id="{section}">' in dom, section
    assert dom.count('class="episode-row"') == len(episodes) == 3 * 2 * 3 + 9
    assert f"{len(episodes)} of {len(episodes)} episodes" in dom
    _chromium(
        report,
        proxy,
        tmp_path / "profile",
        f"--screenshot={artifacts / 'report.png'}",
        "--window-size=1400,2000",
    )
    assert (artifacts / "report.png").stat().st_size > 10_000
    _no_page_request(proxy)


def test_an_episode_opens_by_its_address(
    report: Path, proxy: socket.socket, artifacts: Path, tmp_path: Path
) -> None:
    episodes = _data(report)["episodes"]
    n = next(e["n"] for e in episodes if e["agent"] == "adaptive" and len(e["steps"]) == 2)
    episode = episodes[n]
    dom = _chromium(report, proxy, tmp_path / "profile", "--dump-dom", fragment=f"#episode={n}")
    steps = re.search(r'<table id="episode-steps">.*?</table>', dom, re.DOTALL)
    assert steps is not None
    shown = steps.group(0)
    for step in episode["steps"]:
        assert f"<span>{step['action']}</span>" in shown
        assert f"<pre>{step['result']}</pre>" in shown
    assert f"Episode {n}: {episode['box_id']} / adaptive / r0" in dom
    assert "episode-open" in dom
    assert re.search(rf'<tr class="episode-row selected" data-n="{n}">', dom)
    _chromium(
        report,
        proxy,
        tmp_path / "profile",
        f"--screenshot={artifacts / 'episode.png'}",
        "--window-size=1400,2000",
        fragment=f"#episode={n}",
    )
    assert (artifacts / "episode.png").stat().st_size > 10_000
    _no_page_request(proxy)
