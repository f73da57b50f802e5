"""The tester stops calling a box that keeps timing out, with the real sandbox."""

from __future__ import annotations

import random

from blackboxes.families import get_family
from generator.tester import _MAX_TIMEOUTS, check_candidate
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


def _stop_line(errors: list[str]) -> str:
    stops = [e for e in errors if e.startswith("stopped after")]
    assert len(stops) == 1, errors
    return stops[0]


def test_a_looping_box_is_stopped_after_a_few_timeouts() -> None:
    report = check_candidate(LOOPS, RULE, FAMILY, random.Random(1), limits=TIGHT)
    assert report.inputs == 256
    timed_out = [e for e in report.errors if e.endswith(TIMEOUT)]
    assert len(timed_out) == _MAX_TIMEOUTS == 3
    assert _stop_line(report.errors) == (
        f"stopped after 3 timed-out calls: {256 - 3} of 256 inputs not run"
    )
    assert report.checks["compiles"] is True
    for name in ("runs", "differential", "deterministic", "non_degenerate"):
        assert report.checks[name] is False, name
    assert not report.passed
    assert report.mismatches == 0 and report.examples == []


def test_without_a_reference_the_stop_skips_determinism() -> None:
    report = check_candidate(LOOPS, None, FAMILY, random.Random(2), n_inputs=64, limits=TIGHT)
    assert "differential" not in report.checks
    assert sum(e.endswith(TIMEOUT) for e in report.errors) == 3
    assert "61 of 64 inputs not run" in _stop_line(report.errors)
    assert report.checks["runs"] is False
    assert report.checks["deterministic"] is False


def test_mismatches_before_the_stop_are_still_reported() -> None:
    rng = random.Random(3)
    inputs = FAMILY.differential_inputs(random.Random(3), 256)
    report = check_candidate(WRONG_THEN_LOOPS, RULE, FAMILY, rng, limits=TIGHT)
    # The calls made: every input up to and including the third even-length one.
    even = [i for i, x in enumerate(inputs) if len(x) % 2 == 0]
    ran = even[2] + 1
    assert "stopped after 3 timed-out calls" in _stop_line(report.errors)
    assert f"{256 - ran} of 256 inputs not run" in _stop_line(report.errors)
    wrong = [x for x in inputs[:ran] if len(x) % 2 and RULE(x) != x.lower()]
    assert wrong and report.mismatches == len(wrong)
    assert report.examples[0].startswith(f'input "{wrong[0]}": expected ')
    assert len(report.examples) == min(5, len(wrong))
    assert report.checks["runs"] is False
    assert report.checks["differential"] is False
    assert report.checks["deterministic"] is False


def test_ordinary_errors_do_not_stop_the_tester() -> None:
    code = "def blackbox(x):\n    raise ValueError('no')\n"
    report = check_candidate(code, RULE, FAMILY, random.Random(4), n_inputs=40, limits=TIGHT)
    assert not any(e.startswith("stopped after") for e in report.errors)
    assert report.checks["runs"] is False
    assert report.checks["differential"] is False
    # Unchanged semantics: a box that fails the same way twice is deterministic.
    assert report.checks["deterministic"] is True
