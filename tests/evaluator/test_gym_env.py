"""The gymnasium env of a box (evaluator.integrations.gym): gymnasium's own checker, the
rewards and records of a played episode, seeding, the sandbox worker's life, hostile
actions, and the example script."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import gymnasium
import pytest
from gymnasium.utils.env_checker import check_env

from blackboxes.families import Family, get_family
from blackboxes.store import Box, load_suite_boxes
from evaluator.integrations.gym import ENV_ID, BoxEnv, make_env, register_env
from evaluator.integrations.gym._episodes import INVALID_STAND_IN, file_reference
from oracle_bench.errors import UsageError

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def eri_env(eri_easy_suite: Path) -> Iterator[BoxEnv]:
    env = make_env(eri_easy_suite, box=0, spec="3@1", seed=4)
    yield env
    env.close()


def _check(env: gymnasium.Env[Any, Any]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # gymnasium's checker warns for what it doubts
        check_env(env)


@pytest.mark.parametrize("which", ["eri", "dfa"])
def test_gymnasium_checker_passes(which: str, eri_easy_suite: Path, dfa_suite: Path) -> None:
    kwargs: dict[str, Any] = (
        {"suite": str(eri_easy_suite), "spec": "3@1"} if which == "eri" else {"suite": dfa_suite}
    )
    env_id = register_env(f"oracle-bench-test/{which}-v0", **kwargs)
    env = gymnasium.make(env_id, render_mode="ansi")
    try:
        _check(env.unwrapped)
        assert isinstance(env.unwrapped, BoxEnv)
        env.reset(seed=0)
        assert env.render() == env.unwrapped.render()
    finally:
        env.close()
    assert register_env() == ENV_ID == "oracle-bench/Box-v0"


def _answer_policy(family: Family, box: Box) -> Callable[[str], str]:
    """Right answers to the odd-numbered questions (from the box's trusted rule), wrong
    ones to the rest; queries 'abc' while exploring."""
    rule = family.rule_from_params(box.hidden.rule_kind, box.info.level, box.hidden.params)

    def policy(observation: str) -> str:
        question = re.search(r"Question (\d+) of \d+ .*Input: (.*)\n", observation)
        if question is None:
            return "abc"
        if int(question.group(1)) % 2 == 0:
            return "QQQQ"
        return family.render_output(rule(family.parse_query(question.group(2))))

    return policy


def test_a_scripted_policy_is_rewarded_the_records_accuracy(
    eri_env: BoxEnv, eri_easy_suite: Path
) -> None:
    _, boxes = load_suite_boxes(eri_easy_suite)
    policy = _answer_policy(get_family("ERI"), boxes[0])
    observation, info = eri_env.reset(seed=3, options={"repetition": 2})
    assert info["box"] == boxes[0].info.id and info["repetition"] == 2
    assert info["kind"] == "turns" and info["step_count"] == 0 and info["prompt"] == "query>"
    rewards, steps = [], 0
    terminated = truncated = False
    while not (terminated or truncated):
        observation, reward, terminated, truncated, info = eri_env.step(policy(observation))
        rewards.append(reward)
        steps += 1
        assert eri_env.observation_space.contains(observation)
    record = info["record"]
    assert not truncated and info["error"] is None
    assert steps == info["step_count"] == 3 + len(record.items)
    assert rewards[:-1] == [0.0] * (steps - 1)
    assert record.status == "completed" and info["status"] == "completed"
    assert rewards[-1] == info["score"] == record.accuracy == 4 / 8
    assert [item.correct for item in record.items] == [True, False] * 4
    assert (record.seed, record.repetition, record.spec.turns) == (4, 2, 3)
    with pytest.raises(Exception, match="after the episode ended"):
        eri_env.step("abc")


def test_the_same_seed_gives_the_same_episode(eri_easy_suite: Path) -> None:
    def play(seed: int) -> list[str]:
        env = make_env(eri_easy_suite, spec="3@1")
        try:
            observation, info = env.reset(seed=seed)
            seen = [observation, json.dumps({k: info[k] for k in ("box", "repetition")})]
            for line in ["abc", "hello", "zz", "A", "B"]:
                observation, *_ = env.step(line)
                seen.append(observation)
            return seen
        finally:
            env.close()

    first = play(21)
    assert play(21) == first
    assert play(22) != first  # another (box, repetition): other questions


def test_close_releases_the_sandbox_worker(eri_env: BoxEnv) -> None:
    eri_env.reset(seed=0)
    session = eri_env.session
    assert session is not None and session._episode is not None
    worker = session._episode._worker
    process = worker._resources.process
    assert process is not None and process.proc.poll() is None
    eri_env.close()
    assert eri_env.session is None
    assert worker._resources.process is None and process.proc.poll() is not None
    assert session.record.status == "failed" and session.record.error == "the player quit"
    eri_env.close()  # idempotent
    with pytest.raises(UsageError, match="before reset"):
        eri_env.step("abc")


def test_a_new_reset_closes_the_previous_episode(eri_env: BoxEnv) -> None:
    eri_env.reset(seed=0)
    first = eri_env.session
    assert first is not None
    eri_env.reset(seed=1)
    assert first.done and first.record.error == "the player quit"


@pytest.mark.parametrize("action", [12, None, b"abc", "x" * 70_000], ids=lambda a: type(a).__name__)
def test_hostile_actions_are_recorded_invalid_turns(eri_env: BoxEnv, action: object) -> None:
    eri_env.reset(seed=0)
    session = eri_env.session
    assert session is not None
    observation, reward, terminated, truncated, info = eri_env.step(action)  # type: ignore[arg-type]
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert info["invalid_action"] is True and info["refused"] is None
    assert info["step_count"] == 1 and info["prompt"] == "query>"
    assert "at most 1048576 are allowed" in observation
    assert eri_env.observation_space.contains(observation)
    assert len(observation) < 1000  # the echo of the stand-in is clipped
    eri_env.close()
    assert session.record.invalid_turns == 1 and len(session.record.turns) == 1


def test_file_forms_are_refused_and_nothing_is_recorded(eri_env: BoxEnv) -> None:
    eri_env.reset(seed=0)
    for line in ["@/etc/passwd", "  @x", "eq @dfa.json", "? @w"]:
        assert file_reference(line)
        text, reward, terminated, _, info = eri_env.step(line)
        assert text.startswith("Refused: files (@PATH)") and text.endswith("query> ")
        assert info["refused"] and not terminated and reward == 0.0
    assert not file_reference("a@b") and not file_reference("one two @three")
    text, *_ = eri_env.step("abc")
    assert "abc ->" in text and "Turn 2 of 3" in text  # the refusals cost no turn


def test_observations_are_clipped_and_kept_in_the_charset(eri_easy_suite: Path) -> None:
    env = make_env(eri_easy_suite, box=1, spec="3@1", max_observation_length=300)
    try:
        observation, _ = env.reset(seed=0)
        assert len(observation) <= 300 and "characters left out" in observation
        assert observation.endswith("query> ")  # the tail (the prompt) is kept
        observation, *_ = env.step("h\u00e9llo \u4e16\u754c")
        assert "h\ufffdllo \ufffd\ufffd ->" in observation
        assert env.observation_space.contains(observation)
    finally:
        env.close()


def test_bad_boxes_and_options_are_usage_errors(eri_easy_suite: Path) -> None:
    with pytest.raises(UsageError, match="no box"):
        make_env(eri_easy_suite, box="nope", spec="3@1")
    with pytest.raises(UsageError, match="out of range"):
        make_env(eri_easy_suite, box=6, spec="3@1")
    with pytest.raises(UsageError, match="SPEC"):
        make_env(eri_easy_suite)
    env = make_env(eri_easy_suite, spec="3@1", repeats=2)
    try:
        with pytest.raises(UsageError, match="unknown reset option"):
            env.reset(options={"episode": 1})
        with pytest.raises(UsageError, match="repetition 2 out of range"):
            env.reset(options={"repetition": 2})
        third = env.dataset[3 * env.dataset.repeats].box_id
        _, info = env.reset(options={"box": third, "repetition": 1})
        assert (info["box"], info["repetition"]) == (third, 1)
        _, info = env.reset(options={"box": 3})
        assert info["box"] == third
    finally:
        env.close()


def test_gymnasium_is_imported_by_none_of_the_rest() -> None:
    probe = (
        "import sys\n"
        "import evaluator, evaluator.integrations, evaluator.integrations.gym\n"
        "import evaluator.integrations.gym._episodes\n"
        "from evaluator.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "from evaluator.play import main as play\n"
        "try:\n    play(['--help'])\nexcept SystemExit:\n    pass\n"
        "print('gymnasium' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "False"


def _example(*argv: str) -> subprocess.CompletedProcess[str]:
    script = ROOT / "examples" / "gym_random_policy.py"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, str(script), *argv], capture_output=True, text=True, timeout=300, env=env
    )


def test_the_example_plays_one_episode(dfa_suite: Path) -> None:
    done = _example(str(dfa_suite), "--box", "1", "--seed", "5")
    assert done.returncode == 0, done.stderr
    last = done.stdout.strip().splitlines()[-1]
    assert re.fullmatch(r"box DFA-\S+ repetition \d+: \d+ steps, reward [01]\.0+", last), last
    bad = _example(str(dfa_suite), "--spec", "3@1")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1, bad.stderr


def test_the_invalid_stand_in_is_over_every_bound() -> None:
    from oracle_bench.bounded import MAX_TEXT_CHARS

    assert len(INVALID_STAND_IN) == MAX_TEXT_CHARS + 1 and INVALID_STAND_IN.startswith("{")
