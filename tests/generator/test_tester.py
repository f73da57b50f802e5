"""The tester stops at the first sign a candidate cannot pass, with the real sandbox.

Checks are tri-state: True passed, False failed, None not run (the tester stopped first).
"""

from __future__ import annotations

import random
import time
from typing import Any

import pytest

from blackboxes.families import get_family
from generator import tester
from generator._prestart import PrestartedWorker
from generator.tester import _MAX_SAME_ERRORS, CandidateReport, check_candidate, describe_checks
from oracle_bench.errors import SandboxCompileError, WorkerError
from sandbox import SandboxLimits

FAMILY = get_family("ERI")
RULE = FAMILY.sample_rule(random.Random(0), "easy")
# cpu_seconds must be a whole number; the parent's wall limit is what trips first.
TIGHT = SandboxLimits(cpu_seconds=1, wall_seconds=0.2)
TIMEOUT = "[black box error: timeout]"

LOOPS = "def blackbox(x):\n    while True:\n        pass\n"
# Answers wrongly on odd lengths and loops forever on even lengths.
WRONG_THEN_LOOPS = (
    "def blackbox(x):\n    while len(x) % 2 == 0:\n        pass\n    return x.lower()\n"
)
HUGE = "def blackbox(x):\n    return 'A' * 10000000\n"
"""A 10 MB answer: every call hits the sandbox's 1 MiB output cap (ten times over, so
encoding it never nears the CPU limit on a loaded machine)."""
MEMORY_BOMB = "def blackbox(x):\n    s = ['A' * 1000000 for i in range(4000)]\n    return x\n"
FORBIDDEN = "import os\n\ndef blackbox(x):\n    return x\n"
RAISES = "def blackbox(x):\n    raise ValueError('no')\n"


def _stop_line(errors: list[str]) -> str:
    stops = [e for e in errors if e.startswith("stopped ")]
    assert len(stops) == 1, errors
    return stops[0]


def test_a_looping_box_is_stopped_after_a_few_timeouts() -> None:
    report = check_candidate(LOOPS, RULE, FAMILY, random.Random(1), limits=TIGHT)
    assert report.inputs == 256
    timed_out = [e for e in report.errors if e.endswith(TIMEOUT)]
    assert len(timed_out) == _MAX_SAME_ERRORS == 3
    assert _stop_line(report.errors) == (
        f"stopped after 3 calls failed with timeout: {256 - 3} of 256 inputs not run"
    )
    assert report.checks == {
        "compiles": True,
        "runs": False,
        "schema": None,
        "differential": False,
        # Never tested: not run, not failed.
        "deterministic": None,
        "non_degenerate": None,
    }
    assert not report.passed
    assert report.failed() == ["differential", "runs"]
    assert report.not_run() == ["deterministic", "non_degenerate", "schema"]
    assert report.mismatches == 0 and report.examples == []


def test_without_a_reference_the_stop_skips_determinism() -> None:
    report = check_candidate(LOOPS, None, FAMILY, random.Random(2), n_inputs=64, limits=TIGHT)
    assert "differential" not in report.checks
    assert sum(e.endswith(TIMEOUT) for e in report.errors) == 3
    assert "61 of 64 inputs not run" in _stop_line(report.errors)
    assert report.checks["runs"] is False
    assert report.checks["deterministic"] is None


def test_mismatches_before_the_stop_are_still_reported() -> None:
    rng = random.Random(3)
    inputs = FAMILY.differential_inputs(random.Random(3), 256)
    report = check_candidate(WRONG_THEN_LOOPS, RULE, FAMILY, rng, limits=TIGHT)
    # The calls made: every input up to and including the third even-length one.
    even = [i for i, x in enumerate(inputs) if len(x) % 2 == 0]
    ran = even[2] + 1
    assert "stopped after 3 calls failed with timeout" in _stop_line(report.errors)
    assert f"{256 - ran} of 256 inputs not run" in _stop_line(report.errors)
    wrong = [x for x in inputs[:ran] if len(x) % 2 and RULE(x) != x.lower()]
    assert wrong and report.mismatches == len(wrong)
    assert report.examples[0].startswith(f'input "{wrong[0]}": expected ')
    assert len(report.examples) == min(5, len(wrong))
    assert report.checks["runs"] is False
    assert report.checks["differential"] is False
    assert report.checks["deterministic"] is None


@pytest.mark.parametrize(
    ("code", "kind", "shown"),
    [
        (RAISES, "exception", "[black box error: exception: ValueError: no]"),
        (HUGE, "invalid_output", "result exceeds the output limit of 1048576 bytes"),
        (MEMORY_BOMB, "memory", "[black box error: memory]"),
    ],
    ids=["exception", "output-cap", "memory"],
)
def test_any_repeated_error_kind_stops_the_tester_in_seconds(
    code: str, kind: str, shown: str
) -> None:
    start = time.monotonic()
    report = check_candidate(code, RULE, FAMILY, random.Random(4))
    elapsed = time.monotonic() - start
    assert _stop_line(report.errors) == (
        f"stopped after 3 calls failed with {kind}: 253 of 256 inputs not run"
    )
    assert sum(shown in e for e in report.errors) == 3, report.errors
    assert report.checks["runs"] is False and report.checks["deterministic"] is None
    assert not report.passed
    assert elapsed < 30  # a generous bound; without the stop this is minutes


def test_a_few_errors_of_one_kind_do_not_stop_the_tester() -> None:
    inputs = FAMILY.differential_inputs(random.Random(5), 40)
    bad = sorted({x for x in inputs if x})[:2]
    assert len(bad) == 2
    code = f"def blackbox(x):\n    if x in {tuple(bad)!r}:\n        raise ValueError('no')\n"
    code += "    return x[::-1]\n"
    report = check_candidate(code, RULE, FAMILY, random.Random(5), n_inputs=40)
    assert not any(e.startswith("stopped ") for e in report.errors)
    assert sum("ValueError: no" in e for e in report.errors) == sum(x in bad for x in inputs)
    assert report.checks["runs"] is False
    assert report.checks["differential"] is False
    # Every input was run, so determinism was tested: the same errors, the same outputs.
    assert report.checks["deterministic"] is True
    assert report.checks["schema"] is True


def test_a_forbidden_import_fails_compiles_with_the_policy_message() -> None:
    report = check_candidate(FORBIDDEN, RULE, FAMILY, random.Random(6))
    assert report.checks == {
        "compiles": False,
        "runs": None,
        "schema": None,
        "differential": None,
        "deterministic": None,
        "non_degenerate": None,
    }
    assert report.inputs == 0
    [error] = report.errors
    assert "import of module 'os' is not allowed" in error
    assert describe_checks(report.checks) == (
        "failed: compiles; not run: deterministic, differential, non_degenerate, runs, schema"
    )


def test_the_time_budget_stops_a_slow_box_without_failing_what_it_did_not_run() -> None:
    # About a tenth of a second per call: 256 calls would take half a minute.
    slow = "def blackbox(x):\n    n = 0\n    for i in range(300000):\n        n = n + 1\n"
    slow += "    return x\n"
    report = check_candidate(slow, None, FAMILY, random.Random(7), budget_s=0.5)
    stop = _stop_line(report.errors)
    assert stop.startswith("stopped when the tester's time budget of 0.5 s ran out: ")
    assert stop.endswith(" of 256 inputs not run")
    assert report.checks == {
        "compiles": True,
        "runs": None,
        "schema": None,
        "deterministic": None,
        "non_degenerate": None,
    }


def test_a_report_passes_only_when_every_check_passed() -> None:
    def report(**checks: bool | None) -> CandidateReport:
        return CandidateReport(checks=checks, inputs=1, mismatches=0)

    assert report(compiles=True, runs=True).passed
    assert not report(compiles=True, runs=None).passed
    assert not report(compiles=True, runs=False).passed
    assert not report().passed
    data = report(compiles=True, runs=None).to_json()
    assert CandidateReport.from_json(data) == report(compiles=True, runs=None)


def test_the_determinism_check_runs_on_a_fresh_worker_started_beside_the_first() -> None:
    # Module-level state: a worker reverses its input on every second call. The first
    # worker reverses input 31 (its 32nd call); a fresh one, fed inputs 31..0, does not.
    flips = "seen = []\n\ndef blackbox(x):\n    seen.append(x)\n"
    flips += "    return x if len(seen) % 2 else x[::-1]\n"
    report = check_candidate(flips, None, FAMILY, random.Random(8), n_inputs=40)
    assert report.checks["runs"] is True and report.checks["deterministic"] is False
    # The same code with the state made afresh in every call: deterministic.
    fresh = flips.replace("seen = []\n\ndef blackbox(x):\n", "def blackbox(x):\n    seen = []\n")
    report = check_candidate(fresh, None, FAMILY, random.Random(8), n_inputs=40)
    assert report.checks["runs"] is True and report.checks["deterministic"] is True
    # Only a worker that has made no call before gives the first 40 answers again.
    tires = flips.replace("len(seen) % 2", "len(seen) <= 40")
    report = check_candidate(tires, None, FAMILY, random.Random(8), n_inputs=40)
    assert report.checks["runs"] is True and report.checks["deterministic"] is True


def test_the_prestarted_worker_is_closed_whatever_the_first_worker_did() -> None:
    made: list[PrestartedWorker] = []
    real = tester.PrestartedWorker

    def watched(*args: Any, **kwargs: Any) -> PrestartedWorker:
        made.append(real(*args, **kwargs))
        return made[-1]

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(tester, "PrestartedWorker", watched)
        check_candidate(FORBIDDEN, RULE, FAMILY, random.Random(6))
        check_candidate(LOOPS, RULE, FAMILY, random.Random(1), n_inputs=8, limits=TIGHT)
    assert len(made) == 2
    for prestarted in made:
        # Closed: a call on its worker is refused (and never runs box code).
        with pytest.raises((WorkerError, SandboxCompileError)):
            prestarted.worker().call("x")
