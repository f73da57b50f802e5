"""A served suite over real HTTP: the same episodes as local text play, isolation, and no
route that leaks code, owner files or answers whatever is sent to it."""

from __future__ import annotations

import http.client
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from evaluator.dataset import BoxDataset
from evaluator.serve import BoxServer
from evaluator.serve.client import ServedSuite
from evaluator.spec import parse_spec
from oracle_bench.errors import RemoteProtocolError

TOKEN = "served-suite-token-0123456789"
ACTIONS = [
    "HELLO WORLD",
    "",
    "x" * 5000,
    "ABCDEFGHIJKLM",
    "1 2 3",
    "WRONG",
    "2",
    "3",
    "4",
    "5",
    "6",
    "7",
    "8",
    "9",
    "10",
]


@pytest.fixture(scope="module")
def served(eri_easy_suite: Path) -> Iterator[BoxServer]:
    with BoxServer(eri_easy_suite, options={"spec": parse_spec("3@1")}, token=TOKEN) as server:
        yield server


def _local(suite: Path, box_index: int, actions: list[str]) -> tuple[list[str], Any, float | None]:
    """The observations, record and score of the same episode played locally as text."""
    data = BoxDataset(suite, spec="3@1", seed=0)
    shown = []
    with data[box_index].episode() as ep:
        shown.append(ep.reset())
        step = None
        for action in actions:
            step = ep.step(action)
            shown.append(step.observation)
            if step.done:
                break
        return shown, ep.record, step.score if step is not None else None


def _remote(env: ServedSuite, box: str, actions: list[str]) -> tuple[list[str], dict[str, Any]]:
    reply = env.reset(box=box)
    shown = [reply["observation"]["text"]]
    for action in actions:
        reply = env.step(reply["episode_id"], action)
        shown.append(reply["observation"]["text"])
        if reply["done"]:
            break
    return shown, reply


def test_a_served_episode_is_the_local_one(served: BoxServer, eri_easy_suite: Path) -> None:
    box = sorted(served.boxes)[1]
    with ServedSuite(served.url, token=TOKEN) as env:
        remote, last = _remote(env, box, ACTIONS)
    local, record, score = _local(eri_easy_suite, 1, ACTIONS)
    assert remote == local
    assert last["done"] is True
    assert last["reward"] == score == record.accuracy


def test_concurrent_episodes_are_isolated(served: BoxServer, eri_easy_suite: Path) -> None:
    boxes = sorted(served.boxes)
    results: dict[int, list[str]] = {}

    def play(i: int) -> None:
        with ServedSuite(served.url, token=TOKEN) as env:
            results[i], _ = _remote(env, boxes[i % 2], ACTIONS[i % 3 :])

    threads = [threading.Thread(target=play, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i in range(4):
        assert results[i] == _local(eri_easy_suite, i % 2, ACTIONS[i % 3 :])[0]


def _secrets(
    suite: Path, owner_files: tuple[str, ...] = ("hidden.json", "facts.json")
) -> list[str]:
    """Strings that must never appear in a response: code lines, owner files' values,
    every held-out item's expected output."""
    found: set[str] = set()
    for box in sorted((suite / "boxes").iterdir()):
        code = (box / "blackbox.py").read_text()
        found.update(line.strip() for line in code.splitlines() if len(line.strip()) >= 24)
        for name in owner_files:
            raw = (box / name).read_text()
            found.add(raw.strip())
            data = json.loads(raw)

            def walk(value: Any) -> None:
                if isinstance(value, dict):
                    for v in value.values():
                        walk(v)
                elif isinstance(value, list):
                    for v in value:
                        walk(v)
                elif isinstance(value, str) and len(value) >= 6:
                    found.add(value)
                elif isinstance(value, int) and not isinstance(value, bool) and value > 10**6:
                    found.add(str(value))  # seeds

            walk(data)
    _, record, _ = _local(suite, 0, ACTIONS)
    found.update(str(item.expected) for item in record.items if len(str(item.expected)) >= 6)
    return sorted(found)


def test_no_route_leaks_code_owner_files_or_answers(
    served: BoxServer, eri_easy_suite: Path
) -> None:
    host, port = served.service.address
    box = sorted(served.boxes)[0]
    replies: list[bytes] = []

    def send(
        method: str,
        path: str,
        body: bytes | None = None,
        token: str | None = TOKEN,
        ctype: str = "application/json",
    ) -> int:
        conn = http.client.HTTPConnection(host, port, timeout=60)
        headers = {"Content-Type": ctype}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        try:
            conn.request(method, path, body=body, headers=headers)
            resp = conn.getresponse()
            replies.append(resp.read())
            return resp.status
        except (BrokenPipeError, ConnectionResetError):
            # An oversized body: the server answered 413 and hung up before reading it.
            assert body is not None and len(body) > served.service.limits.max_body_bytes
            return 413
        finally:
            conn.close()

    ok = json.loads
    # A whole episode, with the answers right where the protocol asks for them.
    status = send("POST", "/reset", json.dumps({"box": box}).encode())
    episode = ok(replies[-1])["episode_id"]
    for action in ACTIONS:
        send(
            "POST",
            "/step",
            json.dumps({"episode_id": episode, "action": {"text": action}}).encode(),
        )
        if ok(replies[-1]).get("done"):
            break
    assert status == 200 and ok(replies[-1])["done"] is True
    assert send("GET", f"/state?episode_id={episode}") == 200

    hostile_paths = [
        "/",
        "/health",
        "/boxes/" + box,
        "/boxes/..",
        "/boxes/%2e%2e%2fhidden.json",
        f"/boxes/{box}/hidden.json",
        f"/boxes/{box}/blackbox.py",
        "/suite.json",
        "/boxes",
        "/../boxes/" + box + "/hidden.json",
        "/state",
        "/reset",
        "/step",
        "/close",
        "/state?episode_id=nope",
        "/state?episode_id=../../etc/passwd",
        "/docs",
        "/openapi.json",
        "/" + "a" * 2000,
    ]
    bodies = [
        None,
        b"",
        b"{",
        b"[]",
        b"null",
        b'"x"',
        b"1e999999",
        b'{"box": "../hidden"}',
        b'{"box": 10**9}',
        b'{"box": 999999}',
        b'{"box": -1}',
        b'{"repetition": -3}',
        b'{"episode_id": "nope", "action": {"text": "A"}}',
        b'{"episode_id": ' + json.dumps(episode).encode() + b', "action": {"text": "A"}}',
        b'{"episode_id": ' + json.dumps(episode).encode() + b', "action": "A"}',
        b'{"episode_id": 5, "action": {"text": 5}}',
        b'{"seed": "x"}',
        b'{"box": "' + box.encode() + b'", "extra": {"__class__": 1}}',
        b"\xff\xfe\x00",
        b"[" * 5000,
        b"x" * (2 << 20),
    ]
    statuses = set()
    for path in hostile_paths:
        for method in ("GET", "POST", "DELETE"):
            for body in bodies if method == "POST" else [None]:
                statuses.add(send(method, path, body))
        statuses.add(send("GET", path, token=None))
        statuses.add(send("GET", path, token="not-the-token-at-all"))
    statuses.add(send("POST", "/reset", b"{}", ctype="text/plain"))

    # An agent episode (the routes of --env), played by hand, answers where asked.
    surface = ["answer", "begin_evaluation", "feedback", "notes", "observe", "query", "start"]
    start = {
        "box": box,
        "agent": "adaptive",
        "repetition": 0,
        "seed": 0,
        "settings": served.kind.arguments(served._server_settings),
        "surface": surface,
    }
    assert send("POST", "/episodes", json.dumps(start).encode()) == 200
    reply = ok(replies[-1])
    agent_episode = reply["episode_id"]
    answers = {"query": "HELLO", "answer": "WRONG", "notes": []}
    for _ in range(200):
        event = reply["event"]
        if event["type"] == "end":
            break
        value = answers.get(event["method"])
        body = json.dumps({"id": event["id"], "value": value}).encode()
        assert send("POST", f"/episodes/{agent_episode}/reply", body) == 200
        reply = ok(replies[-1])
    assert reply["event"]["type"] == "end"
    record_reply = len(replies) - 1
    assert all(item["expected"] is None for item in reply["event"]["record"]["items"])
    hostile_episode_bodies = [
        b"{}",
        b"[]",
        json.dumps({**start, "box": "../hidden"}).encode(),
        json.dumps({**start, "surface": ["__class__"]}).encode(),
        json.dumps({**start, "surface": ["x"] * 1000}).encode(),
        json.dumps({**start, "settings": {"spec": "99@9"}}).encode(),
        json.dumps({**start, "seed": -1}).encode(),
        json.dumps({**start, "agent": ""}).encode(),
        json.dumps({**start, "agent_error": {"type": "X"}}).encode(),
    ]
    for body in hostile_episode_bodies:
        statuses.add(send("POST", "/episodes", body))
    for path in (
        f"/episodes/{agent_episode}/reply",
        f"/episodes/{agent_episode}/handle",
        "/episodes/nope/reply",
        "/episodes/nope/handle",
        "/episodes/../reply",
    ):
        for body in (
            b"{}",
            b'{"id": 1, "value": {"__dc": "os:system", "f": {}}}',
            b'{"handle": "x", "name": "__init__"}',
            b'{"id": 1, "raise": {"wire": 5}}',
        ):
            statuses.add(send("POST", path, body))
    statuses.add(send("DELETE", "/episodes/nope"))
    assert statuses <= {200, 400, 401, 404, 405, 413, 415, 503}
    assert send("GET", "/health") == 200  # still serving

    text = b"\n".join(replies).decode("utf-8", "replace")
    kinds = {
        json.loads((box_dir / "facts.json").read_text())["rule_kind"]
        for box_dir in (eri_easy_suite / "boxes").iterdir()
    }
    leaked = [s for s in _secrets(eri_easy_suite, ("hidden.json",)) if s in text and s not in kinds]
    # The facts (rule kind, log2|H|, T_info: the class of the rule, which the summaries
    # need) come back in an ended episode's record only.
    others = b"\n".join(r for i, r in enumerate(replies) if i != record_reply).decode(
        "utf-8", "replace"
    )
    leaked += [s for s in _secrets(eri_easy_suite) if s in others]
    assert leaked == []
    assert "Traceback" not in text and str(eri_easy_suite) not in text


def test_a_one_box_server_serves_that_box_only(eri_easy_suite: Path) -> None:
    suite = BoxDataset(eri_easy_suite, spec="3@1").suite
    only = suite.boxes[2].id
    with (
        BoxServer(eri_easy_suite, box=only, options={"spec": parse_spec("3@1")}) as server,
        ServedSuite(server.url) as env,
    ):
        assert [b["id"] for b in env.describe()["boxes"]] == [only]
        assert env.reset()["observation"]["metadata"]["box"] == only
        with pytest.raises(RemoteProtocolError, match="404"):
            env.reset(box=suite.boxes[0].id)


def test_a_folder_holding_one_box_serves_it(eri_easy_suite: Path, tmp_path: Path) -> None:
    """A one-box image holds suite.json, owner.json and its own box folder only."""
    import shutil

    from evaluator.runner import evaluate_suite

    only = sorted(p.name for p in (eri_easy_suite / "boxes").iterdir())[1]
    folder = tmp_path / "one"
    (folder / "boxes").mkdir(parents=True)
    for name in ("suite.json", "owner.json"):
        shutil.copy(eri_easy_suite / name, folder / name)
    shutil.copytree(eri_easy_suite / "boxes" / only, folder / "boxes" / only)
    with BoxServer(folder, box=only, options={"spec": parse_spec("3@1")}) as server:
        result = evaluate_suite(None, ["adaptive"], None, None, 0, tmp_path / "run", env=server.url)
    assert [p.name for p in (tmp_path / "run" / "trajectories").iterdir()] == [
        f"{only}__adaptive__r0.json"
    ]
    assert result.manifest.failed == 0


def test_a_crashing_box_fails_its_episodes_not_the_server(
    tmp_path: Path, suite_builder: Any
) -> None:
    from evaluator.runner import evaluate_suite
    from sandbox import SandboxLimits

    bomb = "def blackbox(text):\n    return [0] * (10 ** 10)\n"
    suite = suite_builder(tmp_path, n=2, seed=4, code_override={1: bomb})
    limits = SandboxLimits(memory_mb=128)  # the bomb fails on memory; no clock involved
    with BoxServer(suite, options={"spec": parse_spec("2@1")}, sandbox_limits=limits) as server:
        result = evaluate_suite(
            None, ["adaptive"], None, None, 0, tmp_path / "run", env=server.url, concurrency=2
        )
        with ServedSuite(server.url) as env:
            assert env.health() == {"status": "ok"}
            step = env.reset(box=sorted(server.boxes)[1])  # the text routes too
            step = env.step(step["episode_id"], "HELLO")
            assert "HELLO" in step["observation"]["text"] and not step["done"]
    records = {
        p.name.split("__")[0]: json.loads(p.read_text())
        for p in (tmp_path / "run" / "trajectories").iterdir()
    }
    good, bad = sorted(records)
    assert records[good]["status"] == "completed" and records[good]["accuracy"] is not None
    bad_turns = records[bad]["turns"]
    assert records[bad]["status"] == "failed" or all(t["error_kind"] for t in bad_turns)
    assert result.manifest.episodes == 2
