"""The Inspect AI adapter against our own runner: the same suite, the same scripted replies.

Our runner replays a ``scripted/`` file; Inspect's ``mockllm/model`` replays the same
lines through :class:`Replayer`, which serves them as the scripted provider does (the
first unserved line whose ``match`` is absent or occurs in the last user/tool message;
every episode from the first line). Every mock output carries its usage: without one,
mockllm counts tokens with tiktoken, which downloads its encoding (no network here).
"""

from __future__ import annotations

import json
import math
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog, read_eval_log, write_eval_log
from inspect_ai.model import ModelOutput, ModelUsage, get_model

from blackboxes.store import load_suite_boxes
from evaluator._report_cli import report_main
from evaluator.integrations.inspect import TASK_NAME, oracle
from evaluator.integrations.inspect._facts import RECORD_KEY, SCORER_NAME
from evaluator.kinds import get_kind
from evaluator.llm_agents import LlmAgentSettings
from evaluator.runner import evaluate_suite

pytestmark = [
    # tenacity (Inspect's retries) warns at every model call in this version.
    pytest.mark.filterwarnings("ignore:The 'initial' parameter is deprecated:DeprecationWarning"),
    # Inspect's own machinery leaves one anyio memory stream per sample unclosed (a bare
    # Task with mockllm does too): a ResourceWarning at garbage collection, not ours.
    pytest.mark.filterwarnings("ignore:Unclosed <MemoryObjectReceiveStream:ResourceWarning"),
    pytest.mark.filterwarnings(
        "ignore:Exception ignored in.*MemoryObjectReceiveStream"
        ":pytest.PytestUnraisableExceptionWarning"
    ),
]

AGENT = "inspect/mockllm/model"
SPEC = "20@2"
WRONG = "#"
"""An answer no ERI ciphertext equals."""


# -- the script, for both runners -----------------------------------------------------


def _line(i: int, tool: str | None = None, text: str = "", **arguments: Any) -> dict[str, Any]:
    line: dict[str, Any] = {"text": text, "usage": {"input": 100 + i, "output": 7 + i % 3}}
    if tool is not None:
        line["tool_calls"] = [{"id": f"call-{i}", "name": tool, "arguments": arguments}]
    return line


def _write(path: Path, lines: Sequence[dict[str, Any]]) -> str:
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return f"scripted/{path}"


def _output(line: dict[str, Any]) -> ModelOutput:
    calls = line.get("tool_calls") or []
    if calls:
        call = calls[0]
        out = ModelOutput.for_tool_call(
            "mockllm/model",
            call["name"],
            call["arguments"],
            tool_call_id=call["id"],
            content=line["text"],
        )
    else:
        out = ModelOutput.from_content("mockllm/model", line["text"])
    usage = line["usage"]
    out.usage = ModelUsage(
        input_tokens=usage["input"],
        output_tokens=usage["output"],
        total_tokens=usage["input"] + usage["output"],
    )
    return out


class Replayer:
    """mockllm's ``custom_outputs``: the scripted provider's rule over Inspect messages
    (samples run one at a time: an episode starts with a call without any reply)."""

    def __init__(self, lines: Sequence[dict[str, Any]], fail_at: int | None = None) -> None:
        self.lines = list(lines)
        self.served = [False] * len(self.lines)
        self.fail_at = fail_at
        self.calls = 0

    def __call__(self, input: list[Any], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
        if not any(m.role == "assistant" for m in input):
            self.served = [False] * len(self.lines)
        self.calls += 1
        if self.fail_at is not None and sum(m.role == "assistant" for m in input) == self.fail_at:
            raise RuntimeError("the model API broke")
        last = next((m.text for m in reversed(input) if m.role in ("user", "tool")), "")
        for i, line in enumerate(self.lines):
            if not self.served[i] and (line.get("match") is None or line["match"] in last):
                self.served[i] = True
                return _output(line)
        raise ValueError("script exhausted")


def _explore() -> list[dict[str, Any]]:
    """20 queries, with a reply without a call (re-asked) after the second."""
    lines = [_line(0, "query", input="HELLO WORLD"), _line(1, "query", input="ABC")]
    lines.append(_line(2, text="Let me think about the cipher first."))
    words = ["THE", "QUICK", "BROWN", "FOX", "JUMPS", "OVER", "LAZY", "DOG", "A", "B", "Z"]
    words += ["AA", "ZZ", "MM", "NOPQ", "XYZ", "KEY", "SPACE BAR"]
    lines += [_line(3 + n, "query", input=w) for n, w in enumerate(words)]
    return lines


def _eri_script(items: dict[str, list[tuple[str, Any]]]) -> list[dict[str, Any]]:
    """Exploration, then the first two items of every box right (matched on their
    plaintext), every other attempt wrong."""
    lines = _explore()
    for box_items in items.values():
        for text, expected in box_items[:2]:
            line = _line(len(lines), "answer", output=expected)
            lines.append({**line, "match": text})
    lines += [_line(len(lines) + n, "answer", output=WRONG) for n in range(16)]
    return lines


def _dfa_script() -> list[dict[str, Any]]:
    """Membership queries, two wrong-or-right equivalence queries, more queries."""
    every = {"states": ["q0"], "alphabet": ["a", "b"], "start": "q0", "accepting": ["q0"]}
    every["transitions"] = [["q0", "a", "q0"], ["q0", "b", "q0"]]
    parity = {
        "states": ["e", "o"],
        "alphabet": ["a", "b"],
        "start": "e",
        "accepting": ["o"],
        "transitions": [["e", "a", "e"], ["e", "b", "o"], ["o", "a", "o"], ["o", "b", "e"]],
    }
    words = ["", "a", "b", "ab", "ba", "bb"]
    lines = [_line(i, "membership_query", word=w) for i, w in enumerate(words)]
    lines.append(_line(len(lines), "equivalence_query", dfa=every))
    lines.append(_line(len(lines), "equivalence_query", dfa=parity))
    more = ["aab", "abb", "bab", "bbb", "aaa", "abab", "baba", "bbbb"] * 6
    lines += [_line(len(lines) + n, "membership_query", word=w) for n, w in enumerate(more)]
    return lines


# -- running both -----------------------------------------------------------------------


def _local(suite: Path, script: str, out: Path, **kind: Any) -> dict[str, Any]:
    """Our runner's records by box, and its index rows' scores."""
    result = evaluate_suite(
        suite, [script], kind.pop("spec", None), None, 0, out, llm=LlmAgentSettings(), **kind
    )
    index = json.loads((out / "index.json").read_text())
    records = {}
    for path in result.trajectories:
        raw = json.loads(path.read_text())
        records[raw["box_id"]] = raw
    return {"records": records, "scores": {r["box"]: r["score"] for r in index["rows"]}}


def _inspect(suite: Path, replayer: Replayer, log_dir: Path, **task: Any) -> EvalLog:
    model = get_model("mockllm/model", custom_outputs=replayer)
    logs = inspect_eval(
        oracle(suite=str(suite), **task),
        model=model,
        log_dir=str(log_dir),
        display="none",
        max_samples=1,
    )
    assert len(logs) == 1 and logs[0].status == "success", logs[0].error
    return logs[0]


def _neutral(value: Any, agent: str | None = None) -> Any:
    """``value`` without what depends on the provider's name: the agent's name (as
    ``agent``, else left out) and the prices (``scripted/`` is priced at $0, an
    ``inspect/`` model at its own model's price, none for mockllm)."""
    if isinstance(value, dict):
        return {
            k: _neutral(v, agent)
            for k, v in value.items()
            if "cost" not in k and not (k == "agent" and agent is None)
        }
    if isinstance(value, list):
        return [_neutral(v, agent) for v in value]
    if agent is not None and isinstance(value, str) and value.startswith("scripted/"):
        return agent
    return value


def _without_agent(record: dict[str, Any]) -> dict[str, Any]:
    return _neutral(record)  # type: ignore[no-any-return]


def _log_text(path: Path) -> str:
    """Every file of an .eval log (a zip), decompressed, as one text."""
    with zipfile.ZipFile(path) as archive:
        return "\n".join(archive.read(n).decode("utf-8") for n in archive.namelist())


@pytest.fixture(scope="module")
def eri_suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from generator import GenerateConfig, generate_suite

    out = tmp_path_factory.mktemp("inspect-suites") / "eri"
    generate_suite(GenerateConfig(category="ERI", level="easy", n=3, seed=0, out=out))
    return out


@pytest.fixture(scope="module")
def dfa_suite_small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from generator import GenerateConfig, generate_suite

    out = tmp_path_factory.mktemp("inspect-suites") / "dfa"
    generate_suite(
        GenerateConfig(category="DFA", level="easy", n=2, seed=0, out=out, states=(2, 4))
    )
    return out


@pytest.fixture(scope="module")
def eri_runs(eri_suite: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A first local run learns every box's held-out items; then both runners replay the
    script that answers two of them right."""
    root = tmp_path_factory.mktemp("inspect-eri")
    probe = _write(root / "probe.jsonl", _eri_script({}))
    learnt = _local(eri_suite, probe, root / "probe", spec=SPEC)
    items = {
        box: [(item["input_text"], item["expected"]) for item in raw["items"]]
        for box, raw in learnt["records"].items()
    }
    lines = _eri_script(items)
    local = _local(eri_suite, _write(root / "replies.jsonl", lines), root / "run", spec=SPEC)
    log = _inspect(eri_suite, Replayer(lines), root / "logs", spec=SPEC)
    hidden = _inspect(eri_suite, Replayer(lines), root / "logs-private", spec=SPEC, record=False)
    return {"local": local, "log": log, "private": hidden, "items": items, "root": root}


# -- the tests ----------------------------------------------------------------------------


def test_the_task_is_registered_under_the_documented_name() -> None:
    from inspect_ai.util import registry_info

    assert TASK_NAME == "oracle_bench/oracle"
    assert registry_info(oracle).name == TASK_NAME


def test_every_sample_scores_as_our_runner_and_holds_its_record(
    eri_runs: dict[str, Any],
) -> None:
    local, log = eri_runs["local"], eri_runs["log"]
    assert log.samples is not None
    assert [s.id for s in log.samples] == ["ERI-easy-0000", "ERI-easy-0001", "ERI-easy-0002"]
    kind = get_kind("turns")
    for sample in log.samples:
        score = sample.scores[SCORER_NAME]
        record = kind.load_record(score.metadata[RECORD_KEY], Path("log"))
        assert record.agent == AGENT and record.status == "completed"
        assert score.value == local["scores"][sample.id] == kind.score(record) == 2 / 8
        mine = _without_agent(score.metadata[RECORD_KEY])
        assert mine == _without_agent(local["records"][sample.id])
        # the re-ask: 21 exploration calls, 8 + 6 answers
        assert [c.phase for c in record.llm_calls].count("reask") == 1
        assert record.usage is not None and record.usage.calls == 21 + 2 + 6 * 2
    assert log.results is not None
    metrics = log.results.scores[0].metrics
    assert metrics["mean"].value == 0.25


def test_sample_metadata_is_the_boxes_public_facts(
    eri_runs: dict[str, Any], eri_suite: Path
) -> None:
    log = eri_runs["log"]
    boxes = {b.info.id: b for b in load_suite_boxes(eri_suite)[1]}
    assert log.samples is not None
    for sample in log.samples:
        box = boxes[str(sample.id)]
        assert sample.input == box.info.task_intro and sample.target == ""
        assert sample.metadata == {
            "suite": "ERI-easy-seed0-n3",
            "box_id": box.info.id,
            "box_digest": box.digest,
            "repetition": 0,
            "family": "ERI",
            "level": "easy",
            "input_schema": box.info.input_schema,
            "output_schema": box.info.output_schema,
            "interface": box.info.interface,
            "dfa": None,
        }


def test_the_log_holds_no_box_code_hidden_facts_or_keys(
    eri_runs: dict[str, Any], eri_suite: Path
) -> None:
    boxes = load_suite_boxes(eri_suite)[1]
    full = _log_text(Path(eri_runs["log"].location))
    private = _log_text(Path(eri_runs["private"].location))
    for box in boxes:
        for text in (full, private):
            assert box.code not in text
            assert box.hidden.description not in text
            assert str(box.hidden.test_seed) not in text
    # Without the records, neither the rule kinds nor the items' expected outputs (of
    # the items the model got wrong) are anywhere in the log.
    checked = 0
    for box in boxes:
        assert f'"{box.hidden.rule_kind}"' not in private
        assert f'"{box.hidden.rule_kind}"' in full  # the record names it, as a run folder's
        for _, expected in eri_runs["items"][box.info.id][2:]:
            if len(expected) >= 12:
                assert expected not in private
                checked += 1
    assert checked >= 6


def test_oracle_eval_report_reads_the_log_as_our_run(
    eri_runs: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = Path(eri_runs["log"].location)
    assert report_main([str(log), "--out", str(tmp_path / "report")]) == 0
    out = capsys.readouterr().out
    assert f"3 trajectories (settings from the Inspect log {log.name})" in out
    ours = json.loads((eri_runs["root"] / "run" / "summary.json").read_text())
    theirs = json.loads((tmp_path / "report" / "summary.json").read_text())
    assert _neutral(theirs, AGENT) == _neutral(ours, AGENT)
    assert [row["accuracy"] for row in theirs["boxes"]] == [0.25, 0.25, 0.25]
    # by default beside the log
    assert report_main([str(log)]) == 0
    assert (log.with_name(f"{log.stem}-report") / "summary.csv").is_file()


def test_a_log_without_records_or_with_a_bad_one_is_a_clear_error(
    eri_runs: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert report_main([str(eri_runs["private"].location)]) == 2
    err = capsys.readouterr().err
    assert "holds no episode records" in err and "Traceback" not in err

    log = read_eval_log(eri_runs["log"].location)
    assert log.samples is not None
    record = log.samples[1].scores[SCORER_NAME].metadata[RECORD_KEY]
    record["accuracy"] = 0.99
    bad = tmp_path / "tampered.eval"
    write_eval_log(log, str(bad))
    assert report_main([str(bad)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "tampered.eval#ERI-easy-0001@1" in err and "accuracy is 0.99" in err

    junk = tmp_path / "junk.eval"
    junk.write_bytes(b"not a zip")
    assert report_main([str(junk)]) == 1
    err = capsys.readouterr().err
    assert "not a readable Inspect log" in err and "Traceback" not in err


def test_a_failing_model_fails_its_samples_not_the_eval(eri_suite: Path, tmp_path: Path) -> None:
    lines = _eri_script({})
    log = _inspect(eri_suite, Replayer(lines, fail_at=4), tmp_path, spec="5@1")
    assert log.samples is not None and len(log.samples) == 3
    for sample in log.samples:
        score = sample.scores[SCORER_NAME]
        assert math.isnan(score.as_float())
        assert score.metadata["status"] == "failed"
        assert score.metadata["failure"] == "infrastructure"
        assert "RuntimeError: the model API broke" in score.metadata["error"]
        record = score.metadata[RECORD_KEY]
        assert [c["turn"] for c in record["llm_calls"]] == [1, 2, 3, 3]


def test_dfa_episodes_match_our_runner(dfa_suite_small: Path, tmp_path: Path) -> None:
    lines = _dfa_script()
    local = _local(dfa_suite_small, _write(tmp_path / "dfa.jsonl", lines), tmp_path / "run")
    log = _inspect(dfa_suite_small, Replayer(lines), tmp_path / "logs", budget_factor=2.0)
    kind = get_kind("dfa")
    assert log.samples is not None and len(log.samples) == 2
    for sample in log.samples:
        score = sample.scores[SCORER_NAME]
        raw = score.metadata[RECORD_KEY]
        record = kind.load_record(raw, Path("log"))
        assert record.status == "completed" and record.queries_used == record.budget
        assert score.value == local["scores"][sample.id] == kind.score(record)
        assert _without_agent(raw) == _without_agent(local["records"][sample.id])
    assert report_main([str(log.location), "--out", str(tmp_path / "report")]) == 0
