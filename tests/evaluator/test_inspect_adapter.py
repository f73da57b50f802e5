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
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog, read_eval_log, write_eval_log
from inspect_ai.model import get_model

from blackboxes.store import load_suite_boxes
from evaluator._report_cli import report_main
from evaluator.integrations.inspect import TASK_NAME, oracle
from evaluator.integrations.inspect._facts import RECORD_KEY, SCORER_NAME
from evaluator.kinds import get_kind
from evaluator.llm_agents import LlmAgentSettings
from evaluator.runner import evaluate_suite
from tests.evaluator._inspect_script import (
    INSPECT_WARNINGS,
    SPEC,
    Replayer,
    dfa_script,
    eri_script,
    write,
)

pytestmark = INSPECT_WARNINGS

AGENT = "inspect/mockllm/model"


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
    probe = write(root / "probe.jsonl", eri_script({}))
    learnt = _local(eri_suite, probe, root / "probe", spec=SPEC)
    items = {
        box: [(item["input_text"], item["expected"]) for item in raw["items"]]
        for box, raw in learnt["records"].items()
    }
    lines = eri_script(items)
    local = _local(eri_suite, write(root / "replies.jsonl", lines), root / "run", spec=SPEC)
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
    lines = eri_script({})
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
    lines = dfa_script()
    local = _local(dfa_suite_small, write(tmp_path / "dfa.jsonl", lines), tmp_path / "run")
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
