"""The tester node's work: run candidate code in the sandbox and compare it to the rule.

Checks, each named in the report, in this order: the code compiles under the sandbox's
policy, every call returns a value (``runs``), the outputs fit the family's schema, a
differential test against the trusted reference rule agrees on every input, a second,
fresh worker gives byte-identical outputs (determinism), and the outputs are not
degenerate (identity, constant, or echoing). The second worker starts beside the first
(on another core its start costs no wall time) and makes no call before the first is
done, so it is as fresh as one started then. A box designed by an LLM has no trusted
reference (``rule=None``): every check but the differential one runs.

Checks are tri-state: ``True`` passed, ``False`` failed, ``None`` not run. The tester
stops at the first sign that the candidate cannot pass, so a hostile or broken candidate
costs seconds, not one sandbox limit per input:

* when ``_MAX_SAME_ERRORS`` calls fail with the same sandbox error kind (timeout,
  invalid_output such as the output cap, memory, crash, policy, exception);
* when the tester's wall-clock budget (``budget_s``) runs out.

The remaining inputs are then not run, and every check that needed them is ``None``
(never ``False``: a check that was not run did not fail); ``runs`` is ``False`` when a
call failed. The errors say why the tester stopped.
"""

from __future__ import annotations

import json
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from blackboxes.box import JSONValue
from blackboxes.families import Family, Rule
from generator._prestart import PrestartedWorker
from oracle_bench.errors import FamilyError, SandboxError
from sandbox import ErrorKind, SandboxLimits, SandboxWorker, call_box

__all__ = [
    "DEFAULT_TESTER_BUDGET_S",
    "CandidateReport",
    "CheckResult",
    "check_candidate",
    "describe_checks",
    "measure_design",
]

CheckResult = bool | None
"""A check's outcome: True passed, False failed, None not run (the tester stopped first)."""

DEFAULT_TESTER_BUDGET_S = 60.0
"""Wall-clock seconds one tester run may take (both workers, every call) by default."""

_MAX_EXAMPLES = 5
_MAX_MESSAGE = 500
_DETERMINISM_SAMPLE = 32
_MAX_SAME_ERRORS = 3
"""Calls failing with the same sandbox error kind after which the tester stops."""


@dataclass(frozen=True)
class CandidateReport:
    """What the tester found; ``passed`` only when every check passed."""

    checks: dict[str, CheckResult]
    inputs: int
    mismatches: int
    errors: list[str] = field(default_factory=list)
    examples: list[str] = field(default_factory=list)
    """Up to five concrete failures (input, expected, got) to send back to the coder."""
    layers: tuple[str, ...] = ()

    @property
    def passed(self) -> bool:
        return bool(self.checks) and all(ok is True for ok in self.checks.values())

    def failed(self) -> list[str]:
        """The names of the checks that failed, sorted."""
        return sorted(name for name, ok in self.checks.items() if ok is False)

    def not_run(self) -> list[str]:
        """The names of the checks that were not run, sorted."""
        return sorted(name for name, ok in self.checks.items() if ok is None)

    def to_json(self) -> dict[str, Any]:
        return {
            "checks": dict(self.checks),
            "inputs": self.inputs,
            "mismatches": self.mismatches,
            "errors": list(self.errors),
            "examples": list(self.examples),
            "layers": list(self.layers),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CandidateReport:
        return cls(
            checks=dict(data["checks"]),
            inputs=data["inputs"],
            mismatches=data["mismatches"],
            errors=list(data["errors"]),
            examples=list(data["examples"]),
            layers=tuple(data["layers"]),
        )


def describe_checks(checks: dict[str, CheckResult]) -> str:
    """``failed: runs, differential; not run: deterministic`` (or ``every check passed``)."""
    failed = sorted(name for name, ok in checks.items() if ok is False)
    not_run = sorted(name for name, ok in checks.items() if ok is None)
    parts = []
    if failed:
        parts.append(f"failed: {', '.join(failed)}")
    if not_run:
        parts.append(f"not run: {', '.join(not_run)}")
    return "; ".join(parts) or "every check passed"


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 80 else text[:77] + "..."


def _clip(text: str) -> str:
    return text if len(text) <= _MAX_MESSAGE else text[: _MAX_MESSAGE - 3] + "..."


def _check_names(with_reference: bool) -> list[str]:
    names = ["compiles", "runs", "schema"]
    if with_reference:
        names.append("differential")
    return [*names, "deterministic", "non_degenerate"]


def check_candidate(
    code: str,
    rule: Rule | None,
    family: Family,
    rng: random.Random,
    *,
    n_inputs: int = 256,
    entry: str = "blackbox",
    limits: SandboxLimits | None = None,
    budget_s: float | None = DEFAULT_TESTER_BUDGET_S,
) -> CandidateReport:
    """Run ``code`` on ``n_inputs`` differential inputs and judge it against ``rule``.

    With ``rule=None`` (no trusted reference) the report has no ``differential`` check.
    ``budget_s`` bounds the whole run in wall-clock seconds (None: unbounded); a call in
    flight at the deadline still finishes within the sandbox's own limits.
    """
    limits = limits or SandboxLimits()
    deadline = None if budget_s is None else time.monotonic() + budget_s
    inputs = family.differential_inputs(rng, n_inputs)
    # The determinism check's fresh worker starts now, beside the first one.
    second = PrestartedWorker(code, entry=entry, limits=limits)
    try:
        return _check(code, rule, family, inputs, entry, limits, budget_s, deadline, second)
    finally:
        second.close()


def _check(
    code: str,
    rule: Rule | None,
    family: Family,
    inputs: list[Any],
    entry: str,
    limits: SandboxLimits,
    budget_s: float | None,
    deadline: float | None,
    second: PrestartedWorker,
) -> CandidateReport:
    checks: dict[str, CheckResult] = dict.fromkeys(_check_names(rule is not None))
    try:
        worker = SandboxWorker(code, entry=entry, limits=limits)
    except SandboxError as exc:
        checks["compiles"] = False
        return CandidateReport(checks=checks, inputs=0, mismatches=0, errors=[_clip(str(exc))])
    checks["compiles"] = True
    errors: list[str] = []
    examples: list[str] = []
    outputs: list[Any] = []
    kinds: Counter[ErrorKind] = Counter()
    stop: str | None = None
    with worker:
        layers = tuple(sorted(worker.layers))
        for x in inputs:
            if deadline is not None and time.monotonic() >= deadline:
                stop = f"stopped when the tester's time budget of {budget_s:g} s ran out"
                break
            result = call_box(worker, family.box_call(x))
            if result.ok:
                outputs.append(result.value)
                continue
            outputs.append(None)
            kind = result.error.kind if result.error is not None else ErrorKind.CRASH
            shown = result.error.render() if result.error else "error"
            if len(errors) < _MAX_EXAMPLES:
                errors.append(_clip(f"input {_short(x)}: {shown}"))
            kinds[kind] += 1
            if kinds[kind] >= _MAX_SAME_ERRORS:
                stop = f"stopped after {kinds[kind]} calls failed with {kind.value}"
                break
    ran = len(outputs)
    if stop is not None:
        errors.append(f"{stop}: {len(inputs) - ran} of {len(inputs)} inputs not run")
    failed_calls = sum(kinds.values())
    pairs = list(zip(inputs[:ran], outputs, strict=True))
    valid = [(x, y) for x, y in pairs if y is not None]
    # A check fails on evidence; without all the evidence (stopped) it is not run.
    complete = stop is None
    checks["runs"] = False if failed_calls else (True if complete else None)
    misfits = [(x, o) for x, o in valid if not family.output_fits(o)]
    checks["schema"] = False if misfits else (True if complete else None)
    for x, o in misfits[:2]:
        errors.append(f"input {_short(x)}: output {_short(o)} does not fit the output schema")
    mismatches = 0
    if rule is not None:
        for x, got in valid:
            expected = rule(x)
            if not family.outputs_agree(got, expected):
                mismatches += 1
                if len(examples) < _MAX_EXAMPLES:
                    examples.append(
                        _clip(f"input {_short(x)}: expected {_short(expected)}, got {_short(got)}")
                    )
        if mismatches or failed_calls:
            checks["differential"] = False
        else:
            checks["differential"] = True if complete else None
    if complete:
        # A box that had to be stopped is not run again: a second worker would only
        # fail (or run out of time) the same way.
        checks["deterministic"] = _deterministic(family, second, inputs, outputs, deadline)
        if checks["deterministic"] is None:
            errors.append(
                f"the determinism check was not run: the tester's time budget of "
                f"{budget_s:g} s ran out"
            )
        checks["non_degenerate"] = _non_degenerate(valid)
        if not checks["non_degenerate"]:
            errors.append("outputs are degenerate (identity, constant or nearly so)")
    return CandidateReport(
        checks=checks,
        inputs=len(inputs),
        mismatches=mismatches,
        errors=errors,
        examples=examples,
        layers=layers,
    )


def _deterministic(
    family: Family,
    fresh: PrestartedWorker,
    inputs: list[Any],
    outputs: list[Any],
    deadline: float | None,
) -> CheckResult:
    """A fresh worker (``fresh``: started beside the first, no call made yet), fed a
    sample in reverse order, must reproduce every output.

    None when the deadline passes before the sample is done.
    """
    sample = list(range(min(_DETERMINISM_SAMPLE, len(inputs))))[::-1]
    try:
        with fresh.worker() as worker:
            for i in sample:
                if deadline is not None and time.monotonic() >= deadline:
                    return None
                again = call_box(worker, family.box_call(inputs[i]))
                if (again.value if again.ok else None) != outputs[i]:
                    return False
    except SandboxError:
        return False
    return True


def _non_degenerate(pairs: list[tuple[Any, Any]]) -> bool:
    if len(pairs) < 2:
        return False
    identity = sum(1 for x, y in pairs if x == y)
    distinct = len({json.dumps(y, sort_keys=True) for _, y in pairs})
    # A real cipher may map a few inputs to themselves, never most of them.
    return identity <= len(pairs) // 2 and distinct > 1


def measure_design(
    code: str,
    rule: Rule,
    family: Family,
    *,
    entry: str = "blackbox",
    limits: SandboxLimits | None = None,
    budget_s: float | None = DEFAULT_TESTER_BUDGET_S,
) -> tuple[Rule, str | None]:
    """A designed rule completed by its candidate's outputs (``Family.design_measurements``,
    run in one sandbox worker), and None; or the rule unchanged and why the measurement
    failed (a call that failed, the time budget, outputs the family refuses)."""
    inputs = family.design_measurements(rule)
    if not inputs:
        return rule, None
    deadline = None if budget_s is None else time.monotonic() + budget_s
    outputs: list[JSONValue] = []
    try:
        with SandboxWorker(code, entry=entry, limits=limits or SandboxLimits()) as worker:
            for x in inputs:
                if deadline is not None and time.monotonic() >= deadline:
                    return rule, (
                        f"measuring the design stopped when the time budget of {budget_s:g} s "
                        f"ran out ({len(outputs)} of {len(inputs)} inputs)"
                    )
                result = call_box(worker, family.box_call(x))
                if not result.ok:
                    shown = result.error.render() if result.error else "error"
                    return rule, _clip(f"measuring the design: input {_short(x)}: {shown}")
                outputs.append(result.value)
    except SandboxError as exc:
        return rule, _clip(f"measuring the design: {exc}")
    try:
        return family.with_measurements(rule, outputs), None
    except FamilyError as exc:
        return rule, _clip(f"measuring the design: {exc}")
