"""The generation graph and suite writing, with the real sandbox and the ERI family."""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest

from blackboxes.families import Family, Rule, get_family
from blackboxes.store import load_suite_boxes
from generator import (
    CandidateReport,
    GenerateConfig,
    Judgement,
    SuiteExistsError,
    generate_suite,
)
from generator.backends import Draft, judge_report
from generator.cli import main
from oracle_bench.errors import GenerationError
from templates import render


def _tree(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def test_same_seed_gives_byte_identical_suites(tmp_path: Path) -> None:
    for name in ("a", "b"):
        generate_suite(
            GenerateConfig(category="ERI", level="easy", n=3, seed=42, out=tmp_path / name)
        )
    a, b = _tree(tmp_path / "a"), _tree(tmp_path / "b")
    assert a.keys() == b.keys()
    assert a == b
    generate_suite(GenerateConfig(category="ERI", level="easy", n=3, seed=43, out=tmp_path / "c"))
    assert _tree(tmp_path / "c") != a


@pytest.mark.parametrize(
    ("fixture", "level", "n"), [("eri_easy_suite", "easy", 6), ("eri_hard_suite", "hard", 4)]
)
def test_suite_boxes_are_verified_and_consistent(
    fixture: str, level: str, n: int, request: pytest.FixtureRequest
) -> None:
    suite_dir: Path = request.getfixturevalue(fixture)
    suite, boxes = load_suite_boxes(suite_dir)
    family = get_family("ERI")
    assert suite.level == level and len(boxes) == n
    for box in boxes:
        assert box.provenance.accepted
        assert [a.verdict for a in box.provenance.attempts] == ["correct"]
        attempt = box.provenance.attempts[0]
        assert attempt.differential_inputs >= 200
        assert attempt.differential_mismatches == 0
        assert all(attempt.checks.values())
        rule = family.rule_from_params(box.hidden.rule_kind, box.info.level, box.hidden.params)
        template, ctx = family.code_template(rule)
        assert box.code == render(template, **ctx)
        assert (box.info, box.facts) == family.box_records(box.info.id, rule)
        # The agent-facing intro never names the kind.
        assert rule.kind not in box.info.task_intro.lower()


@dataclass
class _ScriptedBackend:
    """A coder that crashes, then misaligns, then gets it right."""

    codes: list[str]
    refiner_says_correct: bool = False
    name: str = "scripted-test"
    calls: list[Judgement | None] = field(default_factory=list)

    def write_code(self, rule: Rule, family: Family, feedback: Judgement | None) -> Draft:
        self.calls.append(feedback)
        code = self.codes[min(len(self.calls) - 1, len(self.codes) - 1)]
        if code == "TEMPLATE":
            template, ctx = family.code_template(rule)
            return Draft(render(template, **ctx), template)
        return Draft(code, "scripted")

    def judge(
        self,
        rule: Rule,
        family: Family,
        code: str,
        report: CandidateReport,
        play_log: str | None = None,
    ) -> Judgement:
        if self.refiner_says_correct:
            return Judgement("correct", ("looks fine to me",))
        return judge_report(report)


CRASHING = "def blackbox(plaintext):\n    return 1 // 0\n"
MISALIGNED = "def blackbox(plaintext):\n    return plaintext[::-1] + 'Q'\n"


def test_three_attempts_crash_misalign_correct(tmp_path: Path) -> None:
    backend = _ScriptedBackend([CRASHING, MISALIGNED, "TEMPLATE"])
    result = generate_suite(
        GenerateConfig(category="ERI", level="easy", n=1, seed=1, out=tmp_path / "s"),
        backend=backend,
    )
    _, [box] = load_suite_boxes(result.path)
    assert [a.verdict for a in box.provenance.attempts] == [
        "execution_error",
        "misalignment",
        "correct",
    ]
    assert box.provenance.accepted
    # The coder saw each verdict with its evidence.
    assert backend.calls[0] is None
    assert backend.calls[1] is not None and backend.calls[1].verdict == "execution_error"
    assert "ZeroDivisionError" in " ".join(backend.calls[1].reasons)
    assert backend.calls[2] is not None and backend.calls[2].verdict == "misalignment"
    assert any("expected" in r for r in backend.calls[2].reasons)


def test_lying_refiner_is_overruled_and_nothing_is_accepted(tmp_path: Path) -> None:
    backend = _ScriptedBackend([MISALIGNED], refiner_says_correct=True)
    out = tmp_path / "s"
    with pytest.raises(GenerationError, match="0 of 1"):
        generate_suite(
            GenerateConfig(category="ERI", level="easy", n=1, seed=1, out=out, max_candidates=2),
            backend=backend,
        )
    assert not (out / "suite.json").exists()
    assert not (out / "boxes").exists()
    records = sorted((out / "rejected").glob("*.json"))
    assert len(records) == 2
    record = json.loads(records[0].read_text())
    attempts = record["provenance"]["attempts"]
    assert len(attempts) == 3
    assert {a["verdict"] for a in attempts} == {"misalignment"}
    assert all(any("overruled" in r for r in a["reasons"]) for a in attempts)
    assert record["provenance"]["accepted"] is False


def test_rerun_keeps_verified_boxes(tmp_path: Path) -> None:
    config = GenerateConfig(category="ERI", level="easy", n=2, seed=9, out=tmp_path / "s")
    first = generate_suite(config)
    before = _tree(first.path)
    second = generate_suite(config)
    assert second.skipped == first.accepted
    assert _tree(second.path) == before


def test_interrupted_run_resumes_without_redoing_boxes(tmp_path: Path) -> None:
    config = GenerateConfig(category="ERI", level="easy", n=4, seed=5, out=tmp_path / "s")
    reference = generate_suite(replace(config, out=tmp_path / "ref")).path

    def stop_after_two(done: int, total: int, box_id: str, status: str) -> None:
        if done == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        generate_suite(config, progress=stop_after_two)
    assert not (tmp_path / "s" / "suite.json").exists()
    resumed = generate_suite(config)
    assert resumed.skipped == ["ERI-easy-0000", "ERI-easy-0001"]
    assert _tree(resumed.path) == _tree(reference)


def test_other_arguments_are_refused_and_overwrite_replaces(tmp_path: Path) -> None:
    out = tmp_path / "s"
    generate_suite(GenerateConfig(category="ERI", level="easy", n=2, seed=1, out=out))
    before = _tree(out)
    other = GenerateConfig(category="ERI", level="easy", n=2, seed=2, out=out)
    with pytest.raises(SuiteExistsError) as info:
        generate_suite(other)
    assert str(info.value) == (
        f"{out} holds an ERI easy suite made with --seed 1, not --seed 2: "
        "use --overwrite to replace it, or another --out"
    )
    assert _tree(out) == before  # nothing written, nothing deleted
    second = generate_suite(replace(other, overwrite=True))
    assert second.skipped == []
    # The old suite is gone, box for box: the folder is what a fresh run writes.
    assert _tree(out) == _tree(generate_suite(replace(other, out=tmp_path / "r")).path)


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (
            ["--category", "XYZ", "--level", "hard"],
            "category 'XYZ' does not exist yet; available: CII, CRI, DFA, ERI, GSI, IPI, PSI",
        ),
        (["--category", "ERI", "--level", "medium"], "invalid choice: 'medium'"),
        (["--category", "ERI", "--level", "easy", "-n", "0"], "-n must be >= 1"),
        (["--level", "easy"], "the following arguments are required: --category"),
        (["--category", "ERI", "--level", "easy", "-n", "x"], "invalid int value: 'x'"),
    ],
)
def test_cli_usage_errors_are_one_line_exit_2(
    argv: list[str], needle: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert err.startswith("oracle-gen: error: ")
    assert needle in err


def test_cli_bare_command_writes_default_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ORACLE_BENCH_SUITES", str(tmp_path / "suites"))
    assert main(["--category", "ERI", "--level", "hard", "-n", "2"]) == 0
    expected = tmp_path / "suites" / "ERI-hard-n2"  # a secret seed: not in the name
    out = capsys.readouterr().out.replace("\n", "")
    assert f"wrote 2 verified boxes to {expected}; secret seed" in out
    suite, boxes = load_suite_boxes(expected)
    assert suite.level == "hard" and len(boxes) == 2
