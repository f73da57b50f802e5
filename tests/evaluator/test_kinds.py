"""Episode kinds as plug-ins: the registry, the generic option checks, and the rule that
the generic modules dispatch through the registry and no kind imports another."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from evaluator.kinds import (
    all_kinds,
    check_options,
    command_options,
    get_kind,
    kind_for_family,
    kind_names,
    manifest_kind,
    record_kind,
    suite_subject,
)
from evaluator.records import CorruptTrajectoryError
from evaluator.report import load_run
from oracle_bench.errors import UnknownNameError, UsageError

ROOT = Path(__file__).resolve().parents[2]
KINDS = ROOT / "evaluator" / "kinds"
# The modules every kind goes through: they may import the registry, never a kind.
GENERIC = [
    "evaluator/runner.py",
    "evaluator/report.py",
    "evaluator/play.py",
    "evaluator/cli.py",
    "evaluator/_report_cli.py",
    "evaluator/_run_folder.py",
    "evaluator/_kind_cli.py",
]


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def test_the_builtin_kinds_are_the_subpackages_and_each_family_names_one() -> None:
    names = sorted(p.name for p in KINDS.iterdir() if (p / "__init__.py").is_file())
    assert kind_names() == names == ["dfa", "game", "puzzle", "turns"]
    assert [k.name for k in all_kinds()] == names
    assert kind_for_family("ERI") is get_kind("turns")
    assert kind_for_family("cri") is get_kind("turns")
    assert kind_for_family("DFA") is get_kind("dfa")
    with pytest.raises(UnknownNameError, match="unknown episode kind 'chess'"):
        get_kind("chess")


@pytest.mark.parametrize("module", GENERIC)
def test_generic_modules_never_import_a_kind(module: str) -> None:
    bad = [
        m
        for m in _imports(ROOT / module)
        if m.startswith("evaluator.kinds.") and m != "evaluator.kinds._base"
    ]
    assert bad == []


@pytest.mark.parametrize("name", ["dfa", "game", "puzzle", "turns"])
def test_no_kind_imports_another(name: str) -> None:
    others = [k for k in kind_names() if k != name]
    bad = [
        f"{path.relative_to(ROOT)} imports {m}"
        for path in sorted((KINDS / name).rglob("*.py"))
        for m in _imports(path)
        if any(m == f"evaluator.kinds.{o}" or m.startswith(f"evaluator.kinds.{o}.") for o in others)
    ]
    assert bad == []


def test_options_are_shared_once_and_listed_per_command() -> None:
    for kind in all_kinds():
        names = [o.name for o in kind.options]
        assert len(names) == len(set(names)), kind.name
    assert [o.name for o in command_options("eval")] == [
        "budget_factor",
        "buckets",
        "similarity_len",
        "spec",
        "context",
        "feedback",
        "invalid_turns",
    ]
    assert [o.name for o in command_options("play")] == [
        "budget_factor",
        "spec",
        "context",
        "feedback",
    ]
    assert [o.name for o in command_options("report")] == ["buckets", "similarity_len"]


def test_check_options_keeps_its_own_ignores_the_lenient_and_refuses_the_rest() -> None:
    turns, dfa = get_kind("turns"), get_kind("dfa")
    eri = suite_subject(turns, "ERI", "eri-x")
    assert eri == "eri-x is an ERI suite (turn@shot episodes)"
    given = {"spec": "10@1", "feedback": None, "max_reasks": 3, "budget_factor": None}
    assert check_options(turns, given, subject=eri) == {"spec": "10@1", "max_reasks": 3}
    # max_reasks is an LLM setting too: a DFA suite ignores it rather than refusing it.
    subject = suite_subject(dfa, "DFA", "d")
    assert subject == "d is a DFA suite"
    assert check_options(dfa, {"max_reasks": 3, "budget_factor": 1.5}, subject=subject) == {
        "budget_factor": 1.5
    }
    with pytest.raises(UsageError) as err:
        check_options(dfa, {"spec": "10@1", "feedback": "instant"}, subject=subject)
    assert str(err.value) == (
        "d is a DFA suite: it takes no SPEC (TURNS@SHOTS; only game, puzzle and turn@shot "
        "suites take one)"
    )
    with pytest.raises(UsageError) as err:
        check_options(turns, {"buckets": "2-3", "similarity_len": 4}, subject=eri)
    assert str(err.value) == (
        "eri-x is an ERI suite (turn@shot episodes): --buckets, --similarity-len do not "
        "apply (for DFA suites only)"
    )


def test_records_and_manifests_name_their_kind_or_say_it_by_their_fields() -> None:
    assert record_kind({"kind": "dfa"}) is get_kind("dfa")
    # Turn@shot records were written before the field existed.
    assert record_kind({"box_id": "x"}) is get_kind("turns")
    assert manifest_kind({"kind": "dfa"}) is get_kind("dfa")
    assert manifest_kind({"arguments": {"spec": "10@1"}}) is get_kind("turns")
    assert manifest_kind({"arguments": {"spec": None, "budget_factor": 2.0}}) is get_kind("dfa")
    assert manifest_kind({"arguments": {}}) is None
    with pytest.raises(UnknownNameError):
        record_kind({"kind": "nonsense"})


def test_a_trajectory_of_an_unknown_kind_is_a_corrupt_file(tmp_path: Path) -> None:
    (tmp_path / "trajectories").mkdir()
    bad = tmp_path / "trajectories" / "b__a__r0.json"
    bad.write_text(json.dumps({"kind": "nonsense", "box_id": "b"}))
    with pytest.raises(CorruptTrajectoryError, match="unknown episode kind 'nonsense'") as err:
        load_run(tmp_path)
    assert err.value.path == bad
