"""LLM agents on PSI boxes: coordinates as answers, and programs as answers (text and tool
protocols, through the scripted provider), including replies that hold no program."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from blackboxes.families import family_for_box
from blackboxes.families.psi._kind import object_names
from blackboxes.store import Box, load_suite_boxes
from evaluator._solutions import SandboxSolutions
from evaluator.kinds.turns.agents import AgentContext
from evaluator.kinds.turns.llm import LlmAgent
from evaluator.kinds.turns.protocol import EpisodeContext, run_episode
from evaluator.kinds.turns.trajectory import Trajectory
from evaluator.llm_agents import LlmAgentSettings
from evaluator.spec import TurnShot
from generator import GenerateConfig, generate_suite
from oracle_bench.rng import rng_for
from sandbox import SandboxWorker
from tests.evaluator.test_llm_agents import FAST_RETRY, tool_reply, write_script


@pytest.fixture(scope="module")
def boxes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Box]:
    root = tmp_path_factory.mktemp("psi-llm")
    found = {}
    for answers in ("values", "code"):
        out = root / answers
        generate_suite(
            GenerateConfig(category="PSI", level="easy", n=1, seed=4, out=out, answers=answers)
        )
        found[answers] = load_suite_boxes(out)[1][0]
    return found


def _play(box: Box, name: str, protocol: str, shots: int = 1) -> Trajectory:
    family = family_for_box(box.info)
    settings = LlmAgentSettings(retry=FAST_RETRY, protocol=protocol)  # type: ignore[arg-type]
    agent = LlmAgent(name, AgentContext(family, box.info.level, random.Random(0)), settings)
    ctx = EpisodeContext(
        suite="t", agent_name=name, spec=TurnShot(2, shots), feedback="instant", seed=0
    )
    try:
        with SandboxWorker(box.code, entry=box.info.entry) as worker:
            return run_episode(box, family, agent, worker, ctx, SandboxSolutions())
    finally:
        agent.close()


def _expected(box: Box, queried: list[float]) -> list[str]:
    family = family_for_box(box.info)
    rule = family.rule_from_params(box.hidden.rule_kind, box.info.level, box.hidden.params)
    items = family.test_inputs(rng_for(box.hidden.test_seed, "test"), family.test_items, queried)
    return [family.render_output(rule(t)) for t in items]


def test_text_protocol_coordinates(boxes: dict[str, Box], tmp_path: Path) -> None:
    box = boxes["values"]
    answers = _expected(box, [1.0, 2.0])
    lines: list[Any] = ["QUERY: 1.0", "Next.\nQUERY: t = 2"]
    names = list(object_names(int(box.info.interface["objects"])))  # type: ignore[arg-type]
    far = "; ".join(f"{n}: (999, 999)" for n in names)
    lines += [f"ANSWER: {a}" for a in answers[:5]] + [f"ANSWER: {far}"] * 5
    traj = _play(box, write_script(tmp_path / "v.jsonl", lines), "text")
    assert traj.status == "completed" and traj.accuracy == 0.5
    assert [t.query for t in traj.turns] == [1.0, 2.0]
    assert [item.attempts[0].wrong for item in traj.items[5:]] == [names] * 5


def test_text_protocol_program(boxes: dict[str, Box], tmp_path: Path) -> None:
    box = boxes["code"]
    program = box.code.replace("def blackbox(", "def solution(")
    lines = ["QUERY: 1.0", "QUERY: 2.0", f"Here it is.\n```python\n{program}```\nDone."]
    traj = _play(box, write_script(tmp_path / "c.jsonl", lines), "text")
    assert traj.status == "completed" and traj.accuracy == 1.0
    assert traj.submissions is not None and traj.submissions[0].source == program


def test_tools_protocol_program_then_a_reply_without_one(
    boxes: dict[str, Box], tmp_path: Path
) -> None:
    box = boxes["code"]
    program = box.code.replace("def blackbox(", "def solution(")
    lines = [
        tool_reply("query", input="1.0"),
        tool_reply("query", input="2.0"),
        tool_reply("answer", output="def solution(t):\n    return {'object1': [0.0, -5.0]}\n"),
        {"text": "I have no idea what to write."},
        tool_reply("answer", output=program),
    ]
    traj = _play(box, write_script(tmp_path / "t.jsonl", lines), "tools", shots=2)
    assert traj.status == "completed" and traj.accuracy == 1.0
    assert traj.submissions is not None
    assert [(s.correct, s.asked) for s in traj.submissions] == [(0, 10), (10, 10)]
    # The reply without a call was re-asked (not sent as a program).
    assert any("no answer call; asked again" in n for n in traj.agent_notes)
    assert traj.usage is not None and traj.usage.calls == len(lines)


def test_text_protocol_reply_without_program_after_reasks_scores_zero(
    boxes: dict[str, Box], tmp_path: Path
) -> None:
    box = boxes["code"]
    lines = ["QUERY: 1.0", "QUERY: 2.0"] + ["No code from me."] * 3
    traj = _play(box, write_script(tmp_path / "n.jsonl", lines), "text")
    assert traj.status == "completed" and traj.accuracy == 0.0
    assert traj.submissions is not None
    assert traj.submissions[0].error == "no program defining solution() in the reply"
