"""Budget sweeps: sweepable kind options, the spec list, plan_sweep/sweep and
``oracle-eval 1,2@1`` (one resumable run per value, then one table)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import pytest

from evaluator import plan_sweep, sweep
from evaluator._kind_cli import add_kind_arguments, given_options, sweep_points, sweep_values
from evaluator.cli import main
from evaluator.kinds import get_kind
from evaluator.spec import SPEC_OPTION, TurnShot, parse_spec_list, split_spec_list
from oracle_bench.errors import UsageError


def test_split_and_parse_spec_lists() -> None:
    assert split_spec_list("1,2,5,10,20@1") == ["1@1", "2@1", "5@1", "10@1", "20@1"]
    assert split_spec_list("10, 20@2, 5@1") == ["10@2", "20@2", "5@1"]
    assert split_spec_list("20@2") == ["20@2"]
    assert split_spec_list("20@2,1") == ["20@2", "1"]  # left for parse_spec to refuse
    assert parse_spec_list("1,3@2") == (TurnShot(1, 2), TurnShot(3, 2))
    with pytest.raises(UsageError, match="missing '@'"):
        parse_spec_list("20@2,1")
    with pytest.raises(UsageError, match="10@1 listed twice"):
        parse_spec_list("10,10@1")


def test_the_budgets_of_every_kind_are_sweepable() -> None:
    for name in ("turns", "game", "puzzle"):
        assert SPEC_OPTION in get_kind(name).options
    assert SPEC_OPTION.sweep
    (factor,) = [o for o in get_kind("dfa").options if o.name == "budget_factor"]
    assert factor.sweep and factor.sweep_split is None
    assert [o.name for k in ("turns", "dfa", "game", "puzzle") for o in get_kind(k).options
            if o.sweep] == ["spec", "budget_factor", "spec", "spec"]  # fmt: skip


def _parsed(command: Any, argv: list[str], *, sweeps: bool) -> dict[str, Any]:
    parser = argparse.ArgumentParser()
    add_kind_arguments(parser, command, sweeps=sweeps)
    return given_options(parser.parse_args(argv), command)


def test_sweepable_options_parse_lists_on_oracle_eval_only() -> None:
    given = _parsed("eval", ["1,2@1", "--budget-factor", "1,2.5", "--buckets", "2-3,4-5"],
                    sweeps=True)  # fmt: skip
    assert given["spec"] == ("1@1", "2@1")
    assert given["budget_factor"] == (1.0, 2.5)
    assert given["buckets"] == ((2, 3), (4, 5))  # a tuple, but no sweep
    points = sweep_points(given)
    assert sorted((p["spec"], p["budget_factor"]) for p in points) == [
        ("1@1", 1.0), ("1@1", 2.5), ("2@1", 1.0), ("2@1", 2.5),
    ]  # fmt: skip
    assert all(p["buckets"] == ((2, 3), (4, 5)) for p in points)
    assert sweep_points({"spec": ("3@1",), "feedback": None}) == [{"spec": "3@1", "feedback": None}]
    assert _parsed("play", ["1,2@1"], sweeps=False)["spec"] == "1,2@1"
    factor = next(o for o in get_kind("dfa").options if o.name == "budget_factor")
    assert sweep_values(factor, "1,2") == (1.0, 2.0)
    assert sweep_values(factor, [1, 4]) == (1, 4)
    assert sweep_values(factor, 3.0) == (3.0,)
    with pytest.raises(UsageError, match="--budget-factor"):
        sweep_values(factor, "1,x")


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory, suite_builder: Any) -> Path:
    return Path(suite_builder(tmp_path_factory.mktemp("sweep"), n=2, seed=21, name="sw"))


def test_plan_sweep(suite: Path, tmp_path: Path) -> None:
    plans = plan_sweep(suite, ["random"], "1,2@1", feedback="deferred")
    assert [p.label for p in plans] == ["1@1", "2@1"]
    assert [p.out_dir.name for p in plans] == ["1at1-deferred-seed0", "2at1-deferred-seed0"]
    assert plans[0].out_dir.parent == plans[1].out_dir.parent
    into = plan_sweep(suite, ["random"], ["1@1", TurnShot(3, 1)], out=tmp_path / "o")
    assert [p.out_dir for p in into] == [
        tmp_path / "o" / "1at1-instant-seed0",
        tmp_path / "o" / "3at1-instant-seed0",
    ]
    (one,) = plan_sweep(suite, ["random"], "4@1", out=tmp_path / "single")
    assert one.out_dir == tmp_path / "single"
    with pytest.raises(UsageError, match="same settings twice"):
        plan_sweep(suite, ["random"], ["1@1", TurnShot(1, 1)])
    with pytest.raises(UsageError, match="--budget-factor does not apply"):
        plan_sweep(suite, ["random"], None, budget_factor="1,2")


@pytest.fixture(scope="module")
def dfa_suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from generator import GenerateConfig, generate_suite

    out = tmp_path_factory.mktemp("sweep-dfa") / "dfa"
    generate_suite(
        GenerateConfig(category="DFA", level="easy", n=1, seed=0, out=out, states=(2, 2))
    )
    return out


def test_dfa_budget_factor_sweep_plans(dfa_suite: Path) -> None:
    plans = plan_sweep(dfa_suite, ["ttt"], budget_factor="1,2")
    assert [p.label for p in plans] == ["x1", "x2"]
    assert [p.out_dir.name for p in plans] == ["dfa-x1-seed0", "dfa-x2-seed0"]
    with pytest.raises(UsageError, match="same settings twice"):
        plan_sweep(dfa_suite, ["ttt"], budget_factor=[2, 2.0])


def _files(run: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((run / "trajectories").glob("*.json"))}


def test_cli_sweep_runs_resumes_and_prints_one_table(
    suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["1,2@1", "--suite", str(suite), "--agent", "random", "--agent", "adaptive",
            "--out", str(tmp_path / "sw")]  # fmt: skip
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "Sweep of 2 runs on sw: 1@1, 2@1" in out
    assert "Score per agent and setting" in out
    assert "1@1: 4 episode(s), 4 run, 0 already done, 0 failed" in out
    first = {name: _files(tmp_path / "sw" / name) for name in ("1at1-instant-seed0",
                                                              "2at1-instant-seed0")}  # fmt: skip
    assert all(len(files) == 4 for files in first.values())
    assert main(argv) == 0  # resumes: nothing to run
    out = capsys.readouterr().out
    assert "2@1: 4 episode(s), 0 run, 4 already done, 0 failed" in out
    # Each run of the sweep is the run a single command makes.
    single = tmp_path / "single"
    assert main(["2@1", "--suite", str(suite), "--agent", "random", "--agent", "adaptive",
                 "--out", str(single)]) == 0  # fmt: skip
    assert _files(single) == first["2at1-instant-seed0"]


def test_api_sweep(suite: Path, tmp_path: Path) -> None:
    seen: list[str] = []
    done = sweep(
        suite,
        ["random"],
        "1,2@1",
        out=tmp_path / "api",
        on_run=lambda plan, result: seen.append(f"{plan.label} {result.executed}"),
    )
    assert seen == ["1@1 2", "2@1 2"]
    assert not done.stopped
    assert [r.out_dir.name for r in done.results] == ["1at1-instant-seed0", "2at1-instant-seed0"]


@pytest.mark.parametrize(
    ("argv", "text"),
    [
        (["20@2,1"], "invalid spec '1': missing '@'"),
        (["-1,2@1"], "turns must be >= 1"),
        (["1,1@1"], "same settings twice (1@1)"),
        (["--budget-factor", "1,x"], "argument --budget-factor: expected a number, got 'x'"),
    ],
)
def test_cli_sweep_errors_are_one_line_exit_2(
    suite: Path, capsys: pytest.CaptureFixture[str], argv: list[str], text: str
) -> None:
    assert main([*argv, "--suite", str(suite)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and text in err, err
