"""Every episode counted: failures get a cause, agent failures score 0, box failures leave
the box out for every agent, infrastructure failures are excluded and retried, and any
failure makes oracle-eval exit 4 unless --allow-failures."""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any

import pytest

from evaluator.cli import main
from evaluator.failures import (
    EXIT_FAILURES,
    BoxFailureError,
    cause_from_error_text,
    cause_of,
)
from evaluator.kinds.turns.agents import AgentContext, Question, register_agent
from evaluator.kinds.turns.baselines import FixedAgent
from evaluator.kinds.turns.trajectory import load_trajectory
from evaluator.llm_agents import LlmAgentSettings
from evaluator.runner import evaluate_suite
from evaluator.spec import TurnShot
from oracle_bench.errors import (
    IsolationUnavailableError,
    ProviderUnavailableError,
    SandboxCompileError,
    WorkerError,
)
from providers import RetryPolicy
from providers.loopback import LoopbackServer

BROKEN = "def blackbox(x):\n    raise ValueError('broken box')\n"
MODEL = "openai/test-model"


@register_agent("test-crashes-on-some-boxes")
class CrashesOnSomeBoxes(FixedAgent):
    """The fixed baseline, except that it raises while answering on boxes whose first
    answer starts with a letter before M (about half of them, the same every time)."""

    def __init__(self, ctx: AgentContext) -> None:
        super().__init__(ctx)
        self.first: str | None = None

    def observe(self, observation: Any) -> None:
        if self.first is None:
            self.first = observation.response
        super().observe(observation)

    def answer(self, question: Question) -> str:
        if self.first is not None and self.first[:1] < "M":
            raise RuntimeError("the agent fell over")
        return super().answer(question)


def test_causes_of_exceptions() -> None:
    assert cause_of(RuntimeError("x")) == "agent"
    assert cause_of(BoxFailureError("x")) == "box"
    assert cause_of(SandboxCompileError("x")) == "box"
    assert cause_of(ProviderUnavailableError("down", "openai")) == "infrastructure"
    assert cause_of(IsolationUnavailableError("no seccomp")) == "infrastructure"
    assert cause_of(WorkerError("no fork")) == "infrastructure"
    # records written before causes existed
    assert cause_from_error_text("ProviderError: gave up") == "infrastructure"
    assert cause_from_error_text("SandboxCompileError: import os") == "box"
    assert cause_from_error_text("RuntimeError: oops") == "agent"
    assert cause_from_error_text(None) == "agent"


def test_an_agent_that_crashes_scores_0_in_the_mean(
    tmp_path: Path, suite_builder: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = suite_builder(tmp_path / "suites", n=6, seed=21)
    out = tmp_path / "run"
    argv = [
        "4@1",
        "--suite",
        str(suite),
        "--agent",
        "test-crashes-on-some-boxes",
        "--out",
        str(out),
    ]
    assert main(argv) == EXIT_FAILURES
    captured = capsys.readouterr()
    assert "failed through the agent" in captured.out and "scored 0" in captured.out
    assert f"exit code {EXIT_FAILURES}" in captured.err

    trajs = [load_trajectory(p) for p in sorted((out / "trajectories").glob("*.json"))]
    crashed = [t for t in trajs if t.status == "failed"]
    completed = [t for t in trajs if t.status == "completed"]
    assert crashed and completed  # the test suite exercises both
    assert {t.failure for t in crashed} == {"agent"}
    assert all(t.turns for t in crashed)  # the exploration it did is kept

    summary = json.loads((out / "summary.json").read_text())
    (group,) = summary["groups"]
    assert group["boxes"] == 6  # a crashed box is not a box less
    assert group["failed_agent"] == len(crashed)
    expected = statistics.fmean([t.accuracy or 0.0 for t in completed] + [0.0] * len(crashed))
    assert group["accuracy_mean"] == round(expected, 6)
    assert group["accuracy_ci_low"] <= group["accuracy_mean"] <= group["accuracy_ci_high"]
    assert [f["cause"] for f in summary["failures"]] == ["agent"] * len(crashed)
    manifest = json.loads((out / "run.json").read_text())
    assert manifest["failures"] == {"agent": len(crashed), "box": 0, "infrastructure": 0}
    index = json.loads((out / "index.json").read_text())
    assert sorted(r["failure"] or "-" for r in index["rows"]) == sorted(
        ["agent"] * len(crashed) + ["-"] * len(completed)
    )

    # agent failures are final: a rerun plays nothing, and --allow-failures accepts them
    assert main([*argv, "--allow-failures"]) == 0
    assert "6 already done" in capsys.readouterr().out


def test_a_box_that_fails_is_a_suite_error_left_out_for_every_agent(
    tmp_path: Path, suite_builder: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = suite_builder(tmp_path / "suites", n=2, seed=22, code_override={1: BROKEN})
    out = tmp_path / "run"
    argv = ["3@1", "--suite", str(suite), "--agent", "random", "--agent", "fixed"]
    assert main([*argv, "--out", str(out)]) == EXIT_FAILURES
    text = " ".join(capsys.readouterr().out.split())
    assert (
        "SUITE ERROR: 1 box(es) failed and are left out of every agent's scores: eri-easy-001"
        in (text)
    )
    assert "failed a/b/i" in text

    summary = json.loads((out / "summary.json").read_text())
    assert summary["excluded_boxes"] == ["eri-easy-001"]
    box0 = {r["agent"]: r for r in summary["boxes"] if r["box_id"] == "eri-easy-000"}
    for group in summary["groups"]:
        assert (group["boxes"], group["boxes_excluded"], group["failed_box"]) == (1, 1, 1)
        # the mean is box 0's alone, for both agents alike: comparisons stay paired
        assert group["accuracy_mean"] == box0[group["agent"]]["accuracy"]
    broken = [r for r in summary["boxes"] if r["box_id"] == "eri-easy-001"]
    assert all(r["excluded"] and r["accuracy"] is None for r in broken)
    traj = load_trajectory(out / "trajectories" / "eri-easy-001__random__r0.json")
    assert traj.failure == "box" and "held-out input" in (traj.error or "")
    # the report shows the same
    assert main(["report", str(out)]) == 0
    assert "SUITE ERROR" in capsys.readouterr().out


def _script() -> list[dict[str, Any]]:
    lines: list[dict[str, Any]] = [
        {"tool_calls": [{"id": f"q{i}", "name": "query", "arguments": {"input": "HELLO"}}]}
        for i in range(2)
    ]
    return lines + [
        {"tool_calls": [{"id": f"a{i}", "name": "answer", "arguments": {"output": "X"}}]}
        for i in range(8)
    ]


def test_infrastructure_failures_are_excluded_and_the_only_ones_retried(
    tmp_path: Path, suite_builder: Any
) -> None:
    suite = suite_builder(tmp_path / "suites", n=3, seed=23, code_override={2: BROKEN})
    out = tmp_path / "run"
    retry = RetryPolicy(max_attempts=2, initial=0.01, max_wait=0.02)
    agents = [MODEL, "test-crashes-on-some-boxes"]
    with LoopbackServer([{"fault": "server_error"}] * 200) as down:
        first = evaluate_suite(
            suite,
            agents,
            TurnShot(2, 1),
            "instant",
            0,
            out,
            llm=LlmAgentSettings(base_url=down.openai_base_url, retry=retry),
        )
    causes = {(t.box_id, t.agent): t.failure for t in map(load_trajectory, first.trajectories)}
    assert {c for (_, a), c in causes.items() if a == MODEL} == {"infrastructure"}
    assert causes[("eri-easy-002", "test-crashes-on-some-boxes")] == "box"
    llm_group = next(g for g in first.summary.groups if g.agent == MODEL)
    assert (llm_group.boxes, llm_group.accuracy_mean) == (0, None)  # nothing scored
    assert llm_group.failed_infrastructure == 3
    assert first.manifest.failures["infrastructure"] == 3

    with LoopbackServer(_script(), per_conversation=True) as up:
        second = evaluate_suite(
            suite,
            agents,
            TurnShot(2, 1),
            "instant",
            0,
            out,
            llm=LlmAgentSettings(base_url=up.openai_base_url, retry=retry),
        )
        asked = {r.headers.get("x-oracle-bench-scope") for r in up.requests}
    # only the three infrastructure failures ran again; the box failure is final
    assert (second.executed, second.skipped) == (3, 3)
    assert asked == {f"eri-easy-00{i}/{MODEL}/r0" for i in range(3)}
    statuses = {(t.box_id, t.agent): t.failure for t in map(load_trajectory, second.trajectories)}
    assert statuses[("eri-easy-002", MODEL)] == "box"  # the broken box fails for it too now
    assert statuses[("eri-easy-000", MODEL)] is None
    llm_group = next(g for g in second.summary.groups if g.agent == MODEL)
    assert (llm_group.boxes, llm_group.boxes_excluded, llm_group.failed_infrastructure) == (2, 1, 0)
