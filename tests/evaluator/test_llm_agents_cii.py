"""LLM agents on CII and CRI boxes: both protocols, real SDK clients over the loopback server."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from blackboxes.families import Family, family_for_box
from blackboxes.store import Box, load_suite_boxes
from evaluator.kinds.turns.agents import AgentContext
from evaluator.kinds.turns.llm import LlmAgent
from evaluator.kinds.turns.protocol import EpisodeContext, run_episode
from evaluator.kinds.turns.trajectory import Trajectory
from evaluator.spec import TurnShot
from generator import GenerateConfig, generate_suite
from oracle_bench import rng_for
from providers.loopback import LoopbackServer
from sandbox import SandboxWorker
from tests.evaluator.test_llm_agents import settings, tool_reply, write_script


@pytest.fixture(scope="module", params=["CII", "CRI"])
def box(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Box:
    out = tmp_path_factory.mktemp("llm") / request.param
    generate_suite(GenerateConfig(category=request.param, level="hard", n=1, seed=3, out=out))
    return load_suite_boxes(out)[1][0]


def _expected(box: Box, family: Family, queried: list[str]) -> list[str]:
    """The held-out answers, drawn as the protocol draws them (from the trusted rule)."""
    rule = family.rule_from_params(box.hidden.rule_kind, box.info.level, box.hidden.params)
    exclude = [family.parse_query(q) for q in queried]
    rng = rng_for(box.hidden.test_seed, "test")
    items = family.held_out(rng, family.test_items, exclude, rule)
    return [family.render_output(y) for _, y in items]


def _queries(family: Family, n: int) -> list[str]:
    rng = random.Random(5)
    out: list[str] = []
    while len(out) < n:
        text = family.format_query(family.random_query(rng))
        if text not in out:
            out.append(text)
    return out


def _play(box: Box, family: Family, name: str, spec: TurnShot, **kw: Any) -> Trajectory:
    agent = LlmAgent(name, AgentContext(family, box.info.level, random.Random(0)), settings(**kw))
    ctx = EpisodeContext(suite="t", agent_name=name, spec=spec, feedback="instant", seed=0)
    try:
        with SandboxWorker(box.code, entry=box.info.entry) as worker:
            return run_episode(box, family, agent, worker, ctx)
    finally:
        agent.close()


def _answers(expected: list[str]) -> list[str]:
    # Right for the first four items, then a wrong value for each of the others.
    return expected[:4] + ["[0, -1]"] * (len(expected) - 4)


def test_tool_protocol_episode_through_the_openai_sdk(box: Box) -> None:
    family = family_for_box(box.info)
    explore = _queries(family, 4)
    expected = _expected(box, family, explore)
    script = [tool_reply("query", input=q) for q in explore]
    script += [tool_reply("answer", output=a) for a in _answers(expected)]
    with LoopbackServer() as server:
        server.add(*script)
        traj = _play(
            box, family, "openai/loopback", TurnShot(4, 1), base_url=server.openai_base_url
        )
        assert server.remaining == 0
    assert traj.status == "completed", traj.error
    assert [t.text for t in traj.turns] == explore and traj.invalid_turns == 0
    assert all(t.valid and t.error_kind is None for t in traj.turns)
    assert [item.correct for item in traj.items] == [True] * 4 + [False] * (len(expected) - 4)
    assert traj.accuracy == 4 / family.test_items


def test_text_protocol_episode_with_hostile_replies(box: Box, tmp_path: Path) -> None:
    family = family_for_box(box.info)
    explore = _queries(family, 2)
    expected = _expected(box, family, explore)
    lines: list[dict[str, Any] | str] = [
        f"First a look.\nQUERY: {explore[0]}",
        "QUERY: " + "[" * 3000,  # unreadable: an invalid turn, never a crash
        f"query: {explore[1]}",
        "QUERY: a=1; checkpoint=99",
    ]
    lines += [f"ANSWER: {a}" for a in _answers(expected)]
    name = write_script(tmp_path / "cii.jsonl", lines)
    traj = _play(box, family, name, TurnShot(4, 1), protocol="text")
    assert traj.status == "completed", traj.error
    assert [t.valid for t in traj.turns] == [True, False, True, False]
    assert traj.accuracy == 4 / family.test_items
