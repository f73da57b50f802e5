"""A suite folder belongs to the arguments that made it, and a rerun never loses a box.

* another run's suite (other arguments, a journal, files that are not a suite) is refused
  before any work unless ``--overwrite``; one run at a time holds the folder's lock;
* a complete suite is left byte for byte by a rerun; an unfinished one keeps every
  journalled box, and candidates run only for the slots still missing;
* a hostile candidate is rejected in seconds, and its records say why.

The coder is the procedural one, wrapped so that chosen boxes fail with a provider error
or get hostile code; box indices come from the graph's call scope (``<box id>/...``).
"""

from __future__ import annotations

import json
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from blackboxes.box import Attempt
from blackboxes.families import Family, Rule
from blackboxes.store import load_suite, load_suite_boxes
from generator import GenerateConfig, Judgement, SuiteExistsError, generate_suite
from generator.backends import Draft, ProceduralBackend, judge_report
from generator.cli import main
from generator.suite import inspect_suite
from generator.tester import CandidateReport
from oracle_bench.errors import GenerationError, ProviderError
from oracle_bench.lock import FolderLock, FolderLockedError
from providers.cache import current_scope
from sandbox import SandboxLimits

HUGE = "def blackbox(x):\n    return 'A' * 10000000\n"
"""Builds a 10 MB answer: every call hits the sandbox's 1 MiB output cap. Ten times the
cap, not a hundred: encoding 100 MB under the 1 CPU second of the test below ran out of
CPU on a loaded machine, and the call then failed as a timeout instead."""
LOOPS = "def blackbox(x):\n    while True:\n        pass\n"
MEMORY_BOMB = "def blackbox(x):\n    s = [bytes(100000000) for i in range(100)]\n    return x\n"
"""Asks for 10 GB in 100 MB blocks of zeros, which the kernel maps without touching a page:
the address-space limit stops it within a few blocks at almost no CPU. Filling 1 MB strings
instead spent the 1 CPU second of the test below on page faults on a loaded machine, and
the call failed as a timeout (seen once in CI)."""
FORBIDDEN = "import os\n\ndef blackbox(x):\n    return x\n"


def _index() -> int:
    # The graph calls the coder inside call_scope("<box id>/attempt-<k>/coder").
    return int(current_scope().split("/")[0].rsplit("-", 1)[1])


@dataclass
class _Coder:
    """The procedural backend, with provider errors and hostile code for chosen boxes."""

    fail: set[int] = field(default_factory=set)
    hostile: dict[int, str] = field(default_factory=dict)
    name: str = "procedural"
    coded: list[int] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def write_code(self, rule: Rule, family: Family, feedback: Judgement | None) -> Draft:
        index = _index()
        with self.lock:
            self.coded.append(index)
        if index in self.fail:
            raise ProviderError("503 Service Unavailable (scripted)", "openai/test")
        if index in self.hostile:
            return Draft(self.hostile[index], "hostile")
        return ProceduralBackend().write_code(rule, family, feedback)

    def judge(
        self,
        rule: Rule,
        family: Family,
        code: str,
        report: CandidateReport,
        play_log: str | None = None,
    ) -> Judgement:
        return judge_report(report)


def _tree(root: Path) -> dict[str, bytes]:
    """Every byte of a suite folder but its working state (.generator/)."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".generator" not in p.relative_to(root).parts
    }


def _config(out: Path, **kw: object) -> GenerateConfig:
    base = {"category": "ERI", "level": "easy", "n": 2, "seed": 4, "out": out}
    return GenerateConfig(**{**base, **kw})  # type: ignore[arg-type]


def _argv(out: Path, *extra: str) -> list[str]:
    return ["--category", "ERI", "--level", "easy", "-n", "2", "--seed", "4", "--out", str(out)]


def _stop_at(n: int) -> object:
    """A progress callback that interrupts the run once ``n`` boxes are in the suite (after
    they are journalled, before suite.json is written), as a kill would."""

    def progress(done: int, total: int, box_id: str, status: str) -> None:
        if done == n:
            raise KeyboardInterrupt

    return progress


# -- refusing what is not this run's suite ----------------------------------------------


@pytest.mark.parametrize(
    ("first", "second", "needle"),
    [
        ({"seed": 3}, {"seed": 4}, "holds an ERI easy suite made with --seed 3, not --seed 4"),
        ({"n": 2}, {"n": 3}, "holds an ERI easy suite made with -n 2, not -n 3"),
        ({}, {"level": "hard"}, "holds an ERI easy suite made with --level easy, not --level hard"),
        (
            {},
            {"category": "DFA", "states": (3, 3)},
            "holds an ERI easy suite made with --category ERI, not --category DFA",
        ),
    ],
    ids=["seed", "n", "level", "dfa-over-eri"],
)
def test_a_suite_made_with_other_arguments_is_refused_before_any_work(
    tmp_path: Path, first: dict[str, object], second: dict[str, object], needle: str
) -> None:
    out = tmp_path / "s"
    generate_suite(_config(out, **first))
    before = _tree(out)
    coder = _Coder()
    with pytest.raises(SuiteExistsError) as info:
        generate_suite(_config(out, **second), backend=coder)
    assert str(info.value) == f"{out} {needle}: use --overwrite to replace it, or another --out"
    assert coder.coded == [] and _tree(out) == before


def test_an_unfinished_suite_with_other_arguments_is_refused_too(tmp_path: Path) -> None:
    out = tmp_path / "s"
    with pytest.raises(KeyboardInterrupt):
        generate_suite(_config(out, n=3), progress=_stop_at(1))
    assert (out / ".suite.partial.json").exists() and not (out / "suite.json").exists()
    with pytest.raises(SuiteExistsError, match=r"holds an ERI easy suite \(unfinished\) made "):
        generate_suite(_config(out, n=3, seed=5))
    assert [b.id for b in load_suite(out, ".suite.partial.json").boxes] == ["ERI-easy-0000"]


def test_another_backend_is_another_suite(tmp_path: Path) -> None:
    out = tmp_path / "s"
    generate_suite(_config(out))
    with pytest.raises(SuiteExistsError, match="made with --backend procedural, not --backend x"):
        generate_suite(_config(out), backend=_Coder(name="x"))


def test_a_folder_that_is_not_a_suite_is_refused_and_overwrite_keeps_its_files(
    tmp_path: Path,
) -> None:
    out = tmp_path / "s"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    (out / "boxes").mkdir()  # a suite's folder, but no manifest says whose
    with pytest.raises(SuiteExistsError) as info:
        generate_suite(_config(out))
    assert str(info.value) == (
        f"{out} is not empty and holds no suite (found boxes, notes.txt): "
        "use --overwrite to replace it, or another --out"
    )
    result = generate_suite(_config(out, overwrite=True))
    assert result.accepted == ["ERI-easy-0000", "ERI-easy-0001"]
    assert (out / "notes.txt").read_text() == "mine"  # --overwrite replaces a suite only


def test_an_unreadable_manifest_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "s"
    generate_suite(_config(out))
    (out / "suite.json").write_text("{not json")
    with pytest.raises(SuiteExistsError, match=r"holds a suite manifest that cannot be read \("):
        generate_suite(_config(out))
    assert generate_suite(_config(out, overwrite=True)).skipped == []
    load_suite_boxes(out)


def test_a_tampered_box_is_never_regenerated_silently(tmp_path: Path) -> None:
    out = tmp_path / "s"
    generate_suite(_config(out))
    code = out / "boxes" / "ERI-easy-0001" / "blackbox.py"
    code.write_text(code.read_text() + "# edited\n")
    with pytest.raises(
        GenerationError, match=r"blackbox\.py: content does not match .*--overwrite"
    ):
        generate_suite(_config(out))
    assert code.read_text().endswith("# edited\n")
    generate_suite(_config(out, overwrite=True))
    load_suite_boxes(out)


def test_cli_refusal_is_one_line_exit_2_and_overwrite_replaces(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "s"
    assert main(_argv(out)) == 0
    capsys.readouterr()
    argv = ["--category", "ERI", "--level", "easy", "-n", "2", "--seed", "5", "--out", str(out)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err == (
        f"oracle-gen: error: {out} holds an ERI easy suite made with --seed 4, not --seed 5: "
        "use --overwrite to replace it, or another --out\n"
    )
    assert load_suite(out).seed == 4
    assert main([*argv, "--overwrite"]) == 0
    assert load_suite(out).seed == 5
    (tmp_path / "file").write_text("")
    assert main([*argv[:-1], str(tmp_path / "file")]) == 2
    assert "is a file, not a folder" in capsys.readouterr().err


def test_a_second_run_into_the_same_folder_exits_2_naming_the_holder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "s"
    out.mkdir()
    with FolderLock(out / ".generator" / "lock", "oracle-gen run"):
        with pytest.raises(FolderLockedError) as info:
            generate_suite(_config(out))
        assert info.value.pid == os.getpid()
        start = time.monotonic()
        assert main(_argv(out)) == 2
        assert time.monotonic() - start < 30  # at once: no candidate was tried
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"(PID {os.getpid()})" in err
    assert sorted(p.name for p in out.iterdir()) == [".generator"]
    assert main(_argv(out)) == 0  # the lock is free again


def test_the_lock_is_held_for_the_whole_run(tmp_path: Path) -> None:
    out = tmp_path / "s"
    seen: list[str] = []

    def progress(done: int, total: int, box_id: str, status: str) -> None:
        try:
            FolderLock(out / ".generator" / "lock", "probe").acquire()
        except FolderLockedError:
            seen.append("locked")

    generate_suite(_config(out), progress=progress)
    assert seen == ["locked", "locked"]


# -- a rerun never replaces a box ---------------------------------------------------------


def test_a_complete_suite_is_left_byte_identical_by_a_rerun_after_a_failure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "s"
    # n=3: box 1 fails (a provider error), so boxes 0, 2 and 3 make the suite.
    first = generate_suite(_config(out, n=3), backend=_Coder(fail={1}))
    assert first.accepted == ["ERI-easy-0000", "ERI-easy-0002", "ERI-easy-0003"]
    assert first.failed == ["ERI-easy-0001"]
    before = _tree(out)
    # The same command again, the provider healthy now: nothing is retried, box 3 stays.
    coder = _Coder()
    second = generate_suite(_config(out, n=3), backend=coder)
    assert second.unchanged and second.skipped == first.accepted and coder.coded == []
    assert _tree(out) == before
    argv = ["--category", "ERI", "--level", "easy", "-n", "3", "--seed", "4", "--out", str(out)]
    assert main(argv) == 0
    assert capsys.readouterr().out == (
        f"kept 3 boxes in {out}: the suite was complete already, nothing was written\n"
    )
    assert _tree(out) == before


def test_an_unfinished_suite_keeps_every_journalled_box(tmp_path: Path) -> None:
    out = tmp_path / "s"
    # Box 0 fails; boxes 1 and 2 are journalled; the run is cut off before suite.json.
    with pytest.raises(KeyboardInterrupt):
        generate_suite(_config(out), backend=_Coder(fail={0}), progress=_stop_at(2))
    assert not (out / "suite.json").exists()
    journal = load_suite(out, ".suite.partial.json")
    assert [b.id for b in journal.boxes] == ["ERI-easy-0001", "ERI-easy-0002"]
    assert journal.rejected == ["ERI-easy-0000"]
    boxes = _tree(out / "boxes")
    assert inspect_suite(_config(out)).state == "resume"
    # Both slots are filled: box 0 is not retried, and box 2 is not displaced by it.
    coder = _Coder()
    result = generate_suite(_config(out), backend=coder)
    assert coder.coded == []
    assert result.accepted == result.skipped == ["ERI-easy-0001", "ERI-easy-0002"]
    assert _tree(out / "boxes") == boxes
    suite = load_suite(out)
    assert suite.rejected == ["ERI-easy-0000"]
    record = json.loads((out / "rejected" / "ERI-easy-0000.json").read_text())
    assert record["outcome"] == "failed" and "503 Service Unavailable" in record["reason"]


@pytest.mark.parametrize("jobs", [1, 3])
def test_failed_candidates_fill_only_the_missing_slots(tmp_path: Path, jobs: int) -> None:
    out = tmp_path / "s"
    # n=3: boxes 0 and 2 fail, box 1 is journalled, then the run is cut off.
    with pytest.raises(KeyboardInterrupt):
        generate_suite(_config(out, n=3), backend=_Coder(fail={0, 2}), progress=_stop_at(1))
    box1 = _tree(out / "boxes" / "ERI-easy-0001")
    # Two slots missing: box 0 is retried and fills one, box 2 (healthy now) the other.
    coder = _Coder(fail={3})
    result = generate_suite(_config(out, n=3, jobs=jobs), backend=coder)
    assert result.accepted == ["ERI-easy-0000", "ERI-easy-0001", "ERI-easy-0002"]
    assert result.skipped == ["ERI-easy-0001"]
    assert sorted(set(coder.coded)) == [0, 2]
    assert _tree(out / "boxes" / "ERI-easy-0001") == box1
    assert not (out / "rejected").exists()  # the failures' records went with them
    # The same suite as a run that never failed.
    reference = generate_suite(_config(tmp_path / "ref", n=3))
    assert _tree(out) == _tree(reference.path)


@pytest.mark.parametrize("jobs", [1, 2, 4])
def test_without_failures_the_suite_is_the_first_n_accepted_indices(
    tmp_path: Path, jobs: int
) -> None:
    coder = _Coder(hostile={1: FORBIDDEN, 3: FORBIDDEN})
    config = _config(tmp_path / "s", n=3, jobs=jobs, max_attempts=1)
    result = generate_suite(config, backend=coder)
    assert result.accepted == ["ERI-easy-0000", "ERI-easy-0002", "ERI-easy-0004"]
    assert result.rejected == ["ERI-easy-0001", "ERI-easy-0003"]


# -- bounded candidates, honest records --------------------------------------------------


@pytest.mark.parametrize(
    ("code", "message"),
    [
        (HUGE, "result exceeds the output limit of 1048576 bytes"),
        (LOOPS, "stopped after 3 calls failed with timeout"),
        (MEMORY_BOMB, "stopped after 3 calls failed with memory"),
        (FORBIDDEN, "import of module 'os' is not allowed"),
    ],
    ids=["10MB-output", "infinite-loop", "memory-bomb", "forbidden-import"],
)
def test_a_hostile_candidate_is_rejected_in_seconds_with_the_testers_messages(
    tmp_path: Path, code: str, message: str
) -> None:
    out = tmp_path / "s"
    config = _config(out, n=1, max_candidates=1, max_attempts=1)
    start = time.monotonic()
    with pytest.raises(GenerationError, match="only 0 of 1 boxes"):
        # One CPU second per call (the default is 2): the tester still stops at its third
        # timeout, in half the time. A roomy wall clock: on a loaded machine the 10 MB
        # answer must reach the output cap, not the parent's kill.
        limits = SandboxLimits(cpu_seconds=1, wall_seconds=15.0)
        generate_suite(config, backend=_Coder(hostile={0: code}), limits=limits)
    assert time.monotonic() - start < 30  # a generous bound: unbounded, this is minutes
    record = json.loads((out / "rejected" / "ERI-easy-0000.json").read_text())
    assert record["outcome"] == "rejected"
    assert record["reason"].startswith("no attempt passed verification (1 of 1); last attempt: ")
    assert message in record["reason"]
    [attempt] = [Attempt.model_validate(a) for a in record["provenance"]["attempts"]]
    assert any(message in e for e in attempt.errors), attempt.errors
    assert attempt.verdict == "execution_error"
    assert any(message in r for r in attempt.reasons)  # the judge used the messages
    # What was never tested is recorded as not run, never as failed.
    assert attempt.checks["deterministic"] is None
    assert attempt.checks["runs"] is (None if code == FORBIDDEN else False)
    assert record["last_code"] == code


def test_the_coder_gets_the_testers_messages_back(tmp_path: Path) -> None:
    seen: list[Judgement | None] = []

    @dataclass
    class _Retrying(_Coder):
        def write_code(self, rule: Rule, family: Family, feedback: Judgement | None) -> Draft:
            seen.append(feedback)
            if feedback is None:
                return Draft(HUGE, "hostile")
            return ProceduralBackend().write_code(rule, family, feedback)

    result = generate_suite(_config(tmp_path / "s", n=1), backend=_Retrying())
    assert result.accepted == ["ERI-easy-0000"]
    assert seen[0] is None and seen[1] is not None
    assert any("exceeds the output limit" in e for e in seen[1].evidence)
    _, [box] = load_suite_boxes(result.path)
    first, second = box.provenance.attempts
    assert first.checks["deterministic"] is None and first.errors
    assert second.errors == [] and all(second.checks.values())


def test_provenance_written_before_tri_state_checks_still_loads() -> None:
    old = {
        "index": 1,
        "code_sha256": "0" * 64,
        "verdict": "misalignment",
        "checks": {"compiles": True, "runs": True, "differential": False},
    }
    attempt = Attempt.model_validate(old)
    assert attempt.checks["differential"] is False and attempt.errors == []


# -- --timeout and the preflight -----------------------------------------------------------


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (["--timeout", "5"], "--timeout need --backend llm"),
        (
            ["--backend", "llm", "--coder", "openai/c", "--refiner", "openai/r", "--timeout", "0"],
            "--timeout must be > 0 seconds, not 0",
        ),
    ],
)
def test_cli_timeout_usage_errors(
    tmp_path: Path, extra: list[str], needle: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*_argv(tmp_path / "s"), *extra]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and needle in err


def test_with_a_key_and_the_api_unreachable_the_preflight_fails_in_seconds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from providers._anthropic import AnthropicBackend
    from providers._openai import OpenAIBackend

    for var in ("OPENAI_BASE_URL", "ANTHROPIC_BASE_URL", "HTTPS_PROXY", "https_proxy"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    # The vendors' APIs, moved to a host that cannot resolve (RFC 2606 reserves .invalid).
    monkeypatch.setattr(OpenAIBackend, "vendor_host", "api.invalid")
    monkeypatch.setattr(AnthropicBackend, "vendor_host", "api.invalid")
    out = tmp_path / "s"
    llm = ["--backend", "llm", "--coder", "openai/c", "--refiner", "anthropic/r"]
    start = time.monotonic()
    assert main([*_argv(out), *llm]) == 2
    assert time.monotonic() - start < 15  # generous: the probe's bound is 3 s per model
    err = capsys.readouterr().err
    assert err == (
        "oracle-gen: error: cannot reach https://api.invalid: unknown host; check the network "
        "(or HTTPS_PROXY), or set --base-url/OPENAI_BASE_URL to a server that is reachable\n"
    )
    assert not out.exists()  # before any candidate, before any file
