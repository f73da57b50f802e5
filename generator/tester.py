"""The tester node's work: run candidate code in the sandbox and compare it to the rule.

Checks, each named in the report: the code compiles under the sandbox's policy,
every call returns a value, the outputs fit the family's schema, a second,
fresh worker gives byte-identical outputs (determinism), the outputs are not
degenerate (identity, constant, or echoing), and a differential test against
the trusted reference rule agrees on every input. A box designed by an LLM has
no trusted reference (``rule=None``): every check but the differential one runs.

A box that keeps hitting the sandbox's time limit is not called again after
``_MAX_TIMEOUTS`` timed-out calls: the remaining inputs count as not run, and the
determinism check is skipped (false), so a looping candidate costs a few seconds,
not one time limit per input.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import Any

from blackboxes.families import Family, Rule
from oracle_bench.errors import SandboxError
from sandbox import ErrorKind, SandboxLimits, SandboxWorker

__all__ = ["CandidateReport", "check_candidate"]

_MAX_EXAMPLES = 5
_DETERMINISM_SAMPLE = 32
_MAX_TIMEOUTS = 3
"""Timed-out calls after which the tester stops calling the box."""


@dataclass(frozen=True)
class CandidateReport:
    """What the tester found; ``passed`` only when every check holds."""

    checks: dict[str, bool]
    inputs: int
    mismatches: int
    errors: list[str] = field(default_factory=list)
    examples: list[str] = field(default_factory=list)
    """Up to five concrete failures (input, expected, got) to send back to the coder."""
    layers: tuple[str, ...] = ()

    @property
    def passed(self) -> bool:
        return bool(self.checks) and all(self.checks.values())

    def to_json(self) -> dict[str, Any]:
        return {
            "checks": dict(self.checks),
            "inputs": self.inputs,
            "mismatches": self.mismatches,
            "errors": list(self.errors),
            "examples": list(self.examples),
            "layers": list(self.layers),
        }


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 80 else text[:77] + "..."


def check_candidate(
    code: str,
    rule: Rule | None,
    family: Family,
    rng: random.Random,
    *,
    n_inputs: int = 256,
    entry: str = "blackbox",
    limits: SandboxLimits | None = None,
) -> CandidateReport:
    """Run ``code`` on ``n_inputs`` differential inputs and judge it against ``rule``.

    With ``rule=None`` (no trusted reference) the report has no ``differential`` check.
    """
    limits = limits or SandboxLimits()
    inputs = family.differential_inputs(rng, n_inputs)
    checks: dict[str, bool] = {}
    try:
        worker = SandboxWorker(code, entry=entry, limits=limits)
    except SandboxError as exc:
        checks["compiles"] = False
        return CandidateReport(checks=checks, inputs=0, mismatches=0, errors=[str(exc)[:500]])
    checks["compiles"] = True
    errors: list[str] = []
    examples: list[str] = []
    outputs: list[Any] = []
    mismatches = 0
    timeouts = 0
    with worker:
        layers = tuple(sorted(worker.layers))
        for x in inputs:
            if timeouts >= _MAX_TIMEOUTS:
                break
            result = worker.call(x)
            if not result.ok:
                shown = result.error.render() if result.error else "error"
                msg = f"input {_short(x)}: {shown}"
                if len(errors) < _MAX_EXAMPLES:
                    errors.append(msg)
                if result.error is not None and result.error.kind is ErrorKind.TIMEOUT:
                    timeouts += 1
                outputs.append(None)
                continue
            outputs.append(result.value)
    not_run = len(inputs) - len(outputs)
    stopped = not_run > 0
    if stopped:
        errors.append(
            f"stopped after {timeouts} timed-out calls: {not_run} of {len(inputs)} inputs not run"
        )
        outputs.extend([None] * not_run)
    failed_calls = sum(1 for o in outputs if o is None)
    checks["runs"] = failed_calls == 0
    misfits = [(x, o) for x, o in zip(inputs, outputs, strict=True) if o is not None]
    misfits = [(x, o) for x, o in misfits if not family.output_fits(o)]
    checks["schema"] = not misfits
    for x, o in misfits[:2]:
        errors.append(f"input {_short(x)}: output {_short(o)} does not fit the output schema")
    if rule is not None:
        for x, got in zip(inputs, outputs, strict=True):
            if got is None:
                continue
            expected = rule(x)
            if got != expected:
                mismatches += 1
                if len(examples) < _MAX_EXAMPLES:
                    examples.append(
                        f"input {_short(x)}: expected {_short(expected)}, got {_short(got)}"
                    )
        checks["differential"] = mismatches == 0 and failed_calls == 0
    # A box that had to be stopped does not run: a second worker would only time out again.
    checks["deterministic"] = not stopped and _deterministic(code, entry, limits, inputs, outputs)
    valid = [(x, y) for x, y in zip(inputs, outputs, strict=True) if y is not None]
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
    code: str, entry: str, limits: SandboxLimits, inputs: list[Any], outputs: list[Any]
) -> bool:
    """A fresh worker, fed a sample in reverse order, must reproduce every output."""
    sample = list(range(min(_DETERMINISM_SAMPLE, len(inputs))))[::-1]
    try:
        with SandboxWorker(code, entry=entry, limits=limits) as worker:
            for i in sample:
                again = worker.call(inputs[i])
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
