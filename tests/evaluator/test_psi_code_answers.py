"""Code answers (PSI ``--answers code``): a submitted ``solution(t)`` runs only in the
sandbox, in a fresh worker, at every held-out time.

A right program scores 1 and a wrong one 0; every attack of the sandbox's corpus,
submitted as a solution, is contained: the episode completes with score 0, the
submission is recorded, the host is untouched and the box's own worker still answers.
"""

from __future__ import annotations

import os
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from blackboxes.families import family_for_box
from blackboxes.store import Box, load_suite_boxes
from evaluator._solutions import SandboxSolutions, program_text
from evaluator.kinds.turns.protocol import EpisodeContext, run_episode
from evaluator.kinds.turns.trajectory import Trajectory
from evaluator.spec import TurnShot
from generator import GenerateConfig, generate_suite
from sandbox import SandboxLimits, SandboxWorker
from tests.sandbox.test_attack_corpus import COMPILE, CORPUS, Attack

FAST = SandboxLimits(cpu_seconds=1, wall_seconds=3.0)


@pytest.fixture(scope="module")
def boxes(tmp_path_factory: pytest.TempPathFactory) -> list[Box]:
    out = tmp_path_factory.mktemp("psi") / "psi-code"
    generate_suite(
        GenerateConfig(category="PSI", level="easy", n=2, seed=3, out=out, answers="code")
    )
    return load_suite_boxes(out)[1]


def _play(
    box: Box, scripted: Any, replies: list[str], shots: int = 1, limits: SandboxLimits = FAST
) -> tuple[Trajectory, Any, Any]:
    family = family_for_box(box.info)
    answers = iter(replies)
    agent = scripted(["1.0", "2.0"], lambda q: next(answers))
    ctx = EpisodeContext(
        suite="s", agent_name="scripted", spec=TurnShot(2, shots), feedback="instant", seed=0
    )
    with SandboxWorker(box.code, entry=box.info.entry) as worker:
        traj = run_episode(box, family, agent, worker, ctx, SandboxSolutions(limits))
        after = worker.call(1.0)
    return traj, agent, after


def _own_code(box: Box) -> str:
    """The box's own code as a solution: right at every time by construction."""
    return "```python\n" + box.code.replace("def blackbox(", "def solution(") + "\n```"


WRONG = "```python\ndef solution(t):\n    return {'object1': [0.0, -1.0]}\n```"


def test_interface_says_code(boxes: list[Box]) -> None:
    for box in boxes:
        assert box.info.interface["answers"] == "code"
        assert "solution(t)" in box.info.task_intro
        assert family_for_box(box.info).answers_as_code


def test_right_program_scores_one(boxes: list[Box], scripted: Any) -> None:
    traj, agent, after = _play(boxes[0], scripted, [_own_code(boxes[0])])
    assert traj.status == "completed" and traj.accuracy == 1.0
    assert traj.submissions is not None and len(traj.submissions) == 1
    sub = traj.submissions[0]
    assert (sub.correct, sub.asked, sub.error) == (10, 10, None)
    assert "def solution(" in sub.source
    assert [q.program for q in agent.questions] == [True]
    assert agent.feedbacks == [(True, "Your program is right at 10 of 10 held-out input(s).")]
    assert after.ok


def test_wrong_program_scores_zero_and_names_objects(boxes: list[Box], scripted: Any) -> None:
    traj, agent, _ = _play(boxes[0], scripted, [WRONG])
    assert traj.accuracy == 0.0
    assert all(item.attempts[0].wrong == ["object1"] for item in traj.items)
    assert all(item.attempts[0].text == "object1: (0.00, -1.00)" for item in traj.items)
    assert agent.feedbacks[0][0] is False and "right at 0 of 10" in agent.feedbacks[0][1]


def test_second_submission_rescores_the_open_items(boxes: list[Box], scripted: Any) -> None:
    traj, agent, _ = _play(boxes[1], scripted, [WRONG, _own_code(boxes[1])], shots=2)
    assert traj.accuracy == 1.0
    assert traj.submissions is not None
    assert [(s.attempt, s.correct, s.asked) for s in traj.submissions] == [(0, 0, 10), (1, 10, 10)]
    assert all(len(item.attempts) == 2 for item in traj.items)
    assert "Please submit an improved program." in agent.feedbacks[0][1]


@pytest.mark.parametrize(
    ("reply", "error"),
    [
        ("I would rather not write code.", "no program defining solution() in the reply"),
        ("```python\nimport os\ndef solution(t):\n    return os.getcwd()\n```", "SandboxCompile"),
        ("```python\ndef solution(t) return 1\n```", "SandboxCompile"),
    ],
)
def test_unusable_submissions_score_zero(
    boxes: list[Box], scripted: Any, reply: str, error: str
) -> None:
    traj, _, after = _play(boxes[0], scripted, [reply])
    assert traj.status == "completed" and traj.accuracy == 0.0
    assert traj.submissions is not None
    assert traj.submissions[0].error is not None and error in traj.submissions[0].error
    assert traj.submissions[0].reply == reply
    assert after.ok


def test_program_text_prefers_the_block_defining_the_entry() -> None:
    reply = "```\nnotes\n```\ntext\n```python\ndef solution(t):\n    return 1\n```\n"
    assert program_text(reply) == "def solution(t):\n    return 1\n"
    assert program_text("def solution(t):\n    return 2") == "def solution(t):\n    return 2"
    assert program_text("no code") is None


def _children() -> set[int]:
    me = os.getpid()
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == me:
                found.add(int(entry.name))
    return found


@pytest.fixture
def guard(tmp_path: Path) -> Iterator[Path]:
    sentinel = tmp_path / "sentinel"
    cwd, children = os.getcwd(), _children()
    yield sentinel
    assert not sentinel.exists()
    assert os.getcwd() == cwd
    assert _children() <= children


def _as_solution(attack: Attack, sentinel: Path) -> str:
    body = textwrap.indent(attack.body.replace("SENTINEL", str(sentinel)), "    ")
    source = f"{attack.prelude}def attack():\n{body}\n\n\ndef solution(t):\n    return attack()\n"
    return f"```python\n{source}```"


@pytest.mark.parametrize("attack", CORPUS, ids=lambda a: a.id)
def test_attack_submitted_as_solution_is_contained(
    attack: Attack, boxes: list[Box], scripted: Any, guard: Path
) -> None:
    reply = _as_solution(attack, guard)
    traj, _, after = _play(boxes[0], scripted, [reply], limits=attack.limits)
    assert traj.status == "completed" and traj.accuracy == 0.0
    assert traj.submissions is not None and traj.submissions[0].reply == reply
    if attack.outcome == COMPILE:
        assert traj.submissions[0].error is not None
        assert "SandboxCompileError" in traj.submissions[0].error
    else:
        assert traj.submissions[0].error is None
        assert all(item.attempts[0].text.startswith("[") for item in traj.items)
    # The box's own worker was never touched by the submission.
    family = family_for_box(boxes[0].info)
    rule = family.rule_from_params(
        boxes[0].hidden.rule_kind, boxes[0].info.level, boxes[0].hidden.params
    )
    assert after.ok and after.value == rule(1.0)
