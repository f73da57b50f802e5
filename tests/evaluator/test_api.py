"""The Python API (generate, evaluate, report, BoxDataset): the same objects, files and
errors as the command lines, and a dataset whose items score what a run scores."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluator import (
    BoxDataset,
    TextEpisodeError,
    evaluate,
    plan_run,
    report_results,
)
from evaluator.cli import main as eval_main
from evaluator.dataset import TEXT_AGENT
from evaluator.human import QUIT_ERROR
from evaluator.play import PlayIO, play_box
from generator import generate
from generator.cli import main as gen_main
from oracle_bench.errors import BoxError, UnknownNameError, UsageError


def _scores(run_dir: Path) -> dict[tuple[str, str, int], float | None]:
    rows = json.loads((run_dir / "index.json").read_text())["rows"]
    return {(r["box"], r["agent"], r["repetition"]): r["score"] for r in rows}


def _files(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and ".lock" not in p.name and "owner" not in p.name
    }


# -- generate -------------------------------------------------------------------------


def test_generate_writes_the_suite_the_cli_writes(tmp_path: Path) -> None:
    by_api = generate("CRI", "easy", n=3, seed=4, out=tmp_path / "api")
    assert gen_main(["--category", "CRI", "--level", "easy", "-n", "3", "--seed", "4",
                     "--out", str(tmp_path / "cli")]) == 0  # fmt: skip
    assert by_api.path == tmp_path / "api"
    assert list(by_api.accepted) == ["CRI-easy-0000", "CRI-easy-0001", "CRI-easy-0002"]
    api, cli = _files(tmp_path / "api"), _files(tmp_path / "cli")
    assert api.keys() == cli.keys()
    for name in api:
        if name != "suite.json" and not name.endswith("provenance.json"):
            assert api[name] == cli[name], name


def test_generate_default_folder_is_under_the_suites_root(tmp_path: Path) -> None:
    result = generate("DFA", states=(2, 3), n=2, seed=1, suites_root=tmp_path)
    assert result.path == tmp_path / "DFA-states2-3-seed1-n2"
    assert len(result.accepted) == 2


@pytest.mark.parametrize(
    ("kwargs", "error", "text"),
    [
        ({"category": "NOPE", "level": "easy"}, UnknownNameError, "NOPE"),
        ({"category": "ERI"}, UsageError, "required: --level"),
        ({"category": "ERI", "level": "easy", "states": (2, 3)}, UsageError,
         "--states applies to DFA boxes, not ERI"),
        ({"category": "ERI", "level": "easy", "n": 0}, UsageError, "-n must be >= 1"),
        ({"category": "PSI", "level": "easy", "output_mode": "gates"}, UsageError,
         "--output-mode applies to CRI boxes"),
    ],
)  # fmt: skip
def test_generate_refuses_bad_arguments_with_the_cli_messages(
    tmp_path: Path, kwargs: dict[str, object], error: type[Exception], text: str
) -> None:
    with pytest.raises(error) as info:
        generate(**kwargs, suites_root=tmp_path)  # type: ignore[arg-type]
    assert text in str(info.value)
    assert not any(tmp_path.iterdir())


# -- evaluate and report ----------------------------------------------------------------


def test_evaluate_writes_the_run_the_cli_writes(eri_hard_suite: Path, tmp_path: Path) -> None:
    result = evaluate(eri_hard_suite, spec="3@1", seed=2, out=tmp_path / "api")
    assert eval_main(["3@1", "--suite", str(eri_hard_suite), "--seed", "2",
                      "--out", str(tmp_path / "cli")]) == 0  # fmt: skip
    api, cli = _files(tmp_path / "api"), _files(tmp_path / "cli")
    assert api.keys() == cli.keys()
    for name in api:
        if name != "run.json":
            assert api[name] == cli[name], name
    assert result.executed == 12 and result.skipped == 0 and result.failed == 0
    again = evaluate(eri_hard_suite, spec="3@1", seed=2, out=tmp_path / "api")
    assert (again.executed, again.skipped) == (0, 12)


def test_plan_run_defaults_the_agents_and_the_folder(eri_hard_suite: Path) -> None:
    plan = plan_run(eri_hard_suite, spec="3@1", seed=2)
    assert plan.agents == ("random", "fixed", "adaptive")
    assert plan.label == "3@1"
    assert plan.out_dir.name == "3at1-instant-seed2"
    assert plan.out_dir.parent.parent.name == "runs"


@pytest.mark.parametrize(
    ("kwargs", "error", "text"),
    [
        ({"spec": "3x1"}, UsageError, "3x1"),
        ({"spec": "3@1", "agents": ["nobody"]}, UnknownNameError, "nobody"),
        ({"spec": "3@1", "agents": ["fixed", "fixed"]}, UsageError, "agent listed twice: fixed"),
        ({"spec": "3@1", "budget_factor": 2.0}, UsageError, "budget"),
        ({"spec": "3@1", "repeats": 0}, UsageError, "repeats"),
    ],
)
def test_evaluate_refuses_bad_arguments_before_any_work(
    eri_hard_suite: Path,
    tmp_path: Path,
    kwargs: dict[str, object],
    error: type[Exception],
    text: str,
) -> None:
    with pytest.raises(error) as info:
        evaluate(eri_hard_suite, out=tmp_path / "run", **kwargs)  # type: ignore[arg-type]
    assert text in str(info.value)
    assert not (tmp_path / "run").exists()


def test_evaluate_without_a_suite_and_none_to_find(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no suite was found"):
        evaluate()
    with pytest.raises(BoxError, match="suites folder does not exist"):
        evaluate(spec="3@1")


def test_report_recomputes_the_files_the_run_wrote(eri_hard_suite: Path, tmp_path: Path) -> None:
    run = evaluate(eri_hard_suite, spec="3@1", seed=2, out=tmp_path / "run")
    written = dict(_files(tmp_path / "run"))
    again = report_results(tmp_path / "run", out=tmp_path / "again")
    assert sorted(p.name for p in again.written) == ["boxes.csv", "summary.csv", "summary.json"]
    for path in again.written:
        assert path.read_bytes() == written[path.name], path.name
    assert again.summary == run.summary
    assert report_results(tmp_path / "run", write=False).written == ()


# -- the dataset ------------------------------------------------------------------------


def test_dataset_indexing_is_box_major_and_checked(eri_hard_suite: Path) -> None:
    data = BoxDataset(eri_hard_suite, spec="3@1", repeats=3)
    assert len(data) == 12
    assert [(it.box_id, it.repetition) for it in data[:4]] == [
        ("ERI-hard-0000", 0),
        ("ERI-hard-0000", 1),
        ("ERI-hard-0000", 2),
        ("ERI-hard-0001", 0),
    ]
    assert data[-1].index == 11 and data[-1].box_id == "ERI-hard-0003"
    assert data[-1].repetition == 2
    assert data[5] == data[5]
    with pytest.raises(IndexError):
        data[12]
    with pytest.raises(TypeError):
        data[True]
    assert "rule" not in data[0].info.model_dump()
    order = data.order(0)
    assert sorted(order) == list(range(12))
    assert order == BoxDataset(eri_hard_suite, spec="3@1", repeats=3).order(0)
    assert order != data.order(1)


def test_dataset_items_score_what_a_run_scores(eri_hard_suite: Path, tmp_path: Path) -> None:
    evaluate(eri_hard_suite, spec="4@1", seed=7, repeats=2, out=tmp_path / "run")
    run = _scores(tmp_path / "run")
    data = BoxDataset(eri_hard_suite, spec="4@1", seed=7, repeats=2)
    played = {
        (item.box_id, agent, item.repetition): item.score(item.play(agent))
        for item in data
        for agent in ("random", "fixed", "adaptive")
    }
    assert played == run
    assert len(set(played.values())) > 1  # scores that can tell a wrong match


def test_dataset_of_a_dfa_suite_plays_its_learners(dfa_suite: Path, tmp_path: Path) -> None:
    evaluate(dfa_suite, agents=["lstar", "kv"], out=tmp_path / "run")
    run = _scores(tmp_path / "run")
    data = BoxDataset(dfa_suite)
    played = {
        (item.box_id, agent, 0): item.score(item.play(agent))
        for item in data
        for agent in ("lstar", "kv")
    }
    assert played == run
    with pytest.raises(UsageError):
        BoxDataset(dfa_suite, spec="3@1")


def test_a_text_episode_is_the_episode_oracle_play_records(
    eri_hard_suite: Path, tmp_path: Path
) -> None:
    lines = ["ab", ":history", "hello world", "zz", "1", "2", "3", "4", "5", "6", "7", "8"]
    item = BoxDataset(eri_hard_suite, spec="3@1", seed=5)[2]
    with item.episode() as episode:
        first = episode.reset()
        assert "You have 3 interaction turn(s)" in first
        assert first.rstrip().endswith("query>")
        steps = []
        for line in lines:
            step = episode.step(line)
            steps.append(step)
            if step.done:
                break
    assert steps[-1].done and not any(s.done for s in steps[:-1])
    assert "hello world ->" in steps[2].observation
    record = episode.record
    assert record.status == "completed" and record.agent == TEXT_AGENT
    assert steps[-1].score == record.accuracy
    with pytest.raises(TextEpisodeError, match="after the episode ended"):
        episode.step("x")

    out_lines = iter(lines)
    played = play_box(
        eri_hard_suite,
        item.box_id,
        PlayIO(lambda prompt: next(out_lines), lambda text: None),
        spec="3@1",
        seed=5,
        out_dir=tmp_path / "play",
    )
    mine = record.model_dump(mode="json")
    theirs = played.trajectory.model_dump(mode="json")
    assert mine.pop("agent") == TEXT_AGENT and theirs.pop("agent") == "human:human"
    assert mine == theirs


def test_closing_a_text_episode_early_records_a_quit(eri_hard_suite: Path) -> None:
    episode = BoxDataset(eri_hard_suite, spec="3@1")[0].episode()
    with pytest.raises(TextEpisodeError, match="before reset"):
        episode.step("x")
    episode.reset()
    step = episode.step("first\nsecond")  # one action, never two
    assert "first second ->" in step.observation
    episode.close()
    assert episode.done
    assert episode.record.status == "failed" and episode.record.error == QUIT_ERROR
    assert len(episode.record.turns) == 1
    episode.close()  # idempotent
