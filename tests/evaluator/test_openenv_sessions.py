"""The OpenEnv-shaped session service (evaluator.serve._openenv), without HTTP: bodies,
seeding, isolation, limits, errors, and what never leaves it."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from blackboxes.families import get_family
from blackboxes.store import load_suite_boxes
from evaluator.dataset import BoxDataset
from evaluator.serve._openenv import OpenEnvSessions, SessionLimitError, UnknownEpisodeError
from oracle_bench.errors import RemoteEnvError, RemoteProtocolError, UsageError

LINES = ["abc", "hello", "zz", "A", "B", "C", "D", "E", "F", "G", "H", "I", "J"]


@pytest.fixture
def sessions(eri_easy_suite: Path) -> Iterator[OpenEnvSessions]:
    service = OpenEnvSessions(eri_easy_suite, options={"spec": "3@1", "seed": 2}, max_sessions=3)
    yield service
    service.close_all()


def _play(service: OpenEnvSessions, reset: dict[str, Any]) -> list[dict[str, Any]]:
    replies = [service.reset(reset)]
    episode = replies[0]["episode_id"]
    for line in LINES:
        replies.append(service.step({"episode_id": episode, "action": {"text": line}}))
        if replies[-1]["done"]:
            break
    return replies


def test_bodies_have_openenvs_shape_and_the_reward_is_the_score(
    sessions: OpenEnvSessions, eri_easy_suite: Path
) -> None:
    replies = _play(sessions, {"seed": 9, "box": 1, "repetition": 3})
    episode = replies[0]["episode_id"]
    assert re.fullmatch(r"[A-Za-z0-9_-]{32}", episode)
    for reply in replies:
        assert set(reply) == {"episode_id", "observation", "reward", "done"}
        assert set(reply["observation"]) == {"text", "metadata"}
        assert reply["episode_id"] == episode
    first, last = replies[0], replies[-1]
    assert first["reward"] is None and not first["done"]
    assert first["observation"]["metadata"] == {
        "box": "ERI-easy-0001",
        "repetition": 3,
        "kind": "turns",
        "step_count": 0,
        "prompt": "query>",
        "refused": None,
        "invalid_action": False,
    }
    assert "You have 3 interaction turn(s)" in first["observation"]["text"]
    assert [r["reward"] for r in replies[1:-1]] == [0.0] * (len(replies) - 2)
    assert last["done"] and len(replies) == 1 + 3 + 8

    # The same lines played as the dataset's text episode: the record the reward comes from.
    item = BoxDataset(eri_easy_suite, spec="3@1", seed=2, repeats=4)[1 * 4 + 3]
    with item.episode() as text_episode:
        text_episode.reset()
        for line in LINES[: len(replies) - 1]:
            text_episode.step(line)
    record = text_episode.record
    meta = last["observation"]["metadata"]
    assert last["reward"] == meta["score"] == record.accuracy
    assert meta["status"] == "completed" and meta["error"] is None and meta["step_count"] == 11

    state = sessions.state(episode)
    assert state == {
        "episode_id": episode,
        "step_count": 11,
        "done": True,
        "box": "ERI-easy-0001",
        "repetition": 3,
        "kind": "turns",
        "score": record.accuracy,
        "status": "completed",
    }
    with pytest.raises(RemoteProtocolError, match="the episode is over"):
        sessions.step({"episode_id": episode, "action": {"text": "x"}})


def test_the_same_seed_gives_the_same_episode(sessions: OpenEnvSessions) -> None:
    def texts(replies: list[dict[str, Any]]) -> list[Any]:
        return [(r["observation"], r["reward"], r["done"]) for r in replies]

    first = _play(sessions, {"seed": 77})
    again = _play(sessions, {"seed": 77})
    assert first[0]["episode_id"] != again[0]["episode_id"]
    assert texts(first) == texts(again)
    other = _play(sessions, {"seed": 78})
    assert texts(other) != texts(first)
    drawn = [sessions.reset({})["observation"]["metadata"]["repetition"] for _ in range(3)]
    assert all(0 <= r < sessions.dataset.repeats for r in drawn)


def test_sessions_are_isolated_across_threads(eri_easy_suite: Path) -> None:
    service = OpenEnvSessions(eri_easy_suite, options={"spec": "3@1"}, max_sessions=4)
    alone = {seed: _play(service, {"seed": seed})[1:] for seed in range(4)}
    results: dict[int, list[dict[str, Any]]] = {}
    errors: list[BaseException] = []
    barrier = threading.Barrier(4)

    def worker(seed: int) -> None:
        try:
            barrier.wait()
            results[seed] = _play(service, {"seed": seed})[1:]
        except BaseException as exc:  # handed to the test's thread
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(seed,)) for seed in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    service.close_all()
    assert errors == []

    def strip(replies: list[dict[str, Any]]) -> list[Any]:
        return [{k: v for k, v in r.items() if k != "episode_id"} for r in replies]

    assert {s: strip(r) for s, r in results.items()} == {s: strip(r) for s, r in alone.items()}


def test_the_session_limit_counts_unfinished_episodes(sessions: OpenEnvSessions) -> None:
    started = [sessions.reset({"seed": i})["episode_id"] for i in range(3)]
    assert sessions.active == 3
    with pytest.raises(SessionLimitError, match="all 3 sessions are in use"):
        sessions.reset({})
    sessions.close(started[0])
    finished = _play(sessions, {"seed": 5})[0]["episode_id"]  # a slot, then freed again
    assert sessions.active == 2
    assert sessions.state(finished)["done"] is True
    third = sessions.reset({})["episode_id"]
    with pytest.raises(SessionLimitError):
        sessions.reset({})
    sessions.close_all()
    assert sessions.active == 0
    for episode in [*started, finished, third]:
        with pytest.raises(UnknownEpisodeError):
            sessions.state(episode)


@pytest.mark.parametrize(
    ("route", "body", "message"),
    [
        ("reset", [], "must be a JSON object"),
        ("reset", {"seed": -1}, "seed: Input should be greater than or equal to 0"),
        ("reset", {"seed": "1"}, "seed: Input should be a valid integer"),
        ("reset", {"seed": 1.5}, "seed: Input should be a valid integer"),
        ("reset", {"episode_id": "mine"}, "the server chooses episode_id"),
        ("reset", {"box": "nope"}, "no box 'nope' is served here"),
        ("reset", {"box": 6}, "box index 6 out of range: 6 served"),
        ("reset", {"box": True}, "box"),
        ("reset", {"repetition": 1 << 40}, "repetition 1099511627776 out of range"),
        ("reset", {"spec": "1@1"}, "spec: Extra inputs are not permitted"),
        ("step", {}, "episode_id: Field required"),
        ("step", {"episode_id": "x", "action": "abc"}, "action: Input should be"),
        ("step", {"episode_id": "x", "action": {"text": 5}}, "action.text: Input should be"),
        ("step", {"episode_id": "x", "action": {"text": "a", "b": 1}}, "action.b: Extra"),
        ("step", {"episode_id": "x" * 300, "action": {"text": "a"}}, "at most 255"),
    ],
)
def test_bad_bodies_are_protocol_errors(
    sessions: OpenEnvSessions, route: str, body: Any, message: str
) -> None:
    with pytest.raises(RemoteProtocolError, match=re.escape(message)) as caught:
        getattr(sessions, route)(body)
    assert len(str(caught.value)) < 300 and "xxxxxxxxxx" not in str(caught.value)
    assert sessions.active == 0


def test_unknown_episodes_are_key_errors(sessions: OpenEnvSessions) -> None:
    for call in (
        lambda: sessions.step({"episode_id": "nope", "action": {"text": "a"}}),
        lambda: sessions.state("nope"),
        lambda: sessions.close("nope"),
    ):
        with pytest.raises(UnknownEpisodeError) as caught:
            call()
        assert isinstance(caught.value, KeyError) and isinstance(caught.value, RemoteEnvError)
        assert str(caught.value) == "no episode 'nope'"
    episode = sessions.reset({})["episode_id"]
    sessions.close(episode)
    with pytest.raises(UnknownEpisodeError):
        sessions.step({"episode_id": episode, "action": {"text": "a"}})
    with pytest.raises(RemoteProtocolError):
        sessions.state(5)  # type: ignore[arg-type]


def test_hostile_actions_and_file_forms(sessions: OpenEnvSessions) -> None:
    episode = sessions.reset({"seed": 1})["episode_id"]

    def step(text: str) -> dict[str, Any]:
        return sessions.step(
            {"episode_id": episode, "action": {"text": text, "metadata": {}}, "timeout_s": 5}
        )

    refused = step("@/etc/passwd")
    assert refused["observation"]["metadata"]["refused"] == "names a file (@PATH)"
    assert refused["observation"]["text"].endswith("query> ")
    huge = step("y" * 100_000)
    assert huge["observation"]["metadata"]["invalid_action"] is True
    assert len(json.dumps(huge)) < 2000
    surrogate = step("\ud800abc")
    json.dumps(surrogate, ensure_ascii=False).encode("utf-8")  # encodable: no lone surrogate
    assert sessions.state(episode)["step_count"] == 3


def test_no_response_holds_code_hidden_facts_or_expected_answers(
    sessions: OpenEnvSessions, eri_easy_suite: Path
) -> None:
    family = get_family("ERI")
    _, boxes = load_suite_boxes(eri_easy_suite)
    shown: list[str] = []
    for seed in range(3):
        replies = _play(sessions, {"seed": seed, "box": seed})
        episode = replies[0]["episode_id"]
        shown += [json.dumps(r) for r in replies] + [json.dumps(sessions.state(episode))]
        box = boxes[seed]
        # The expected answers of this episode, from the text episode's record.
        repetition = replies[0]["observation"]["metadata"]["repetition"]
        item = sessions.dataset[seed * sessions.dataset.repeats + repetition]
        with item.episode() as text_episode:
            text_episode.reset()
            for line in LINES[: len(replies) - 1]:
                text_episode.step(line)
        answers = {
            family.render_output(i.expected)
            for i in text_episode.record.items
            if family.render_output(i.expected) != i.input_text
        }
        text = "\n".join(shown[-len(replies) - 1 :])
        assert answers and not any(answer in text for answer in answers)
        code_lines = [line.strip() for line in box.code.splitlines() if len(line.strip()) > 20]
        assert not any(line in text for line in code_lines)
        assert '"expected":' not in text and '"items":' not in text  # no record either


def test_idle_sessions_close_by_the_clock(eri_easy_suite: Path) -> None:
    now = [100.0]
    service = OpenEnvSessions(
        eri_easy_suite, options={"spec": "3@1"}, max_sessions=2, clock=lambda: now[0]
    )
    old = service.reset({})["episode_id"]
    now[0] = 150.0
    fresh = service.reset({})["episode_id"]
    now[0] = 170.0
    assert service.close_idle(60.0) == [old]
    assert service.active == 1 and service.state(fresh)["done"] is False
    service.close_all()


def test_a_factory_a_box_subset_and_the_settings(dfa_suite: Path) -> None:
    data = BoxDataset(dfa_suite, seed=3, repeats=5)
    served = [data[5].box_id, data[10].box_id]
    service = OpenEnvSessions(lambda: data, boxes=served, max_sessions=1)
    assert service.settings == {"budget_factor": 2.0, "seed": 3, "repeats": 5}
    reply = service.reset({"box": 1, "repetition": 4})
    meta = reply["observation"]["metadata"]
    assert (meta["box"], meta["repetition"], meta["kind"]) == (served[1], 4, "dfa")
    assert meta["prompt"].startswith("[") and meta["prompt"].endswith("calls left] >")
    service.close(reply["episode_id"])
    with pytest.raises(RemoteProtocolError, match="is served here"):
        service.reset({"box": data[0].box_id})
    with pytest.raises(UsageError, match="no box"):
        OpenEnvSessions(lambda: data, boxes=["nope"])
    with pytest.raises(UsageError, match="options go with a suite folder"):
        OpenEnvSessions(lambda: data, options={"spec": "1@1"})
    with pytest.raises(UsageError, match="max_sessions"):
        OpenEnvSessions(lambda: data, max_sessions=0)
