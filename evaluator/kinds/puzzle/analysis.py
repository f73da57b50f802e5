"""A puzzle trajectory (IPI) as the kind-independent :class:`EpisodeAnalysis`.

The K instances are probed one after another, so the steps run across instances (each
step's ``note`` names its instance) and the budget is K times T. Each instance is
replayed through the exact version space of its puzzle, as
:func:`evaluator.kinds.puzzle.metrics.puzzle_information` does: a probe's realised bits
are the drop in log2 of the consistent secrets (a noisy puzzle: the drop in posterior
entropy, which can be negative), its expected bits the mutual information between the
secret and its feedback (:meth:`PuzzleSpace.expected_information`), and
``log2_consistent`` log2 of the secrets left after it (a noisy puzzle: the posterior's
entropy, log2 of its effective size). So an instance's bits sum to at most log2|H| and
``info_total``, the sum over every instance, to at most K log2|H|. Answers are the
instances.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from blackboxes.families import get_family
from blackboxes.puzzles import PuzzleError, PuzzleSpace, get_puzzle
from evaluator.analysis import AnswerView, EpisodeAnalysis, StepView, record_identity
from evaluator.kinds.puzzle.metrics import CERTAIN
from evaluator.kinds.puzzle.trajectory import InstanceRecord, ProbeRecord, PuzzleTrajectory
from oracle_bench.errors import UnknownNameError

__all__ = ["INVALID_KEY", "analyse_puzzle", "probe_key"]

INVALID_KEY = "<invalid>"
"""The probe part of the key of a reply that did not parse."""


def probe_key(instance: int, probe: str | None) -> str:
    """``i<instance>:<canonical probe>`` (``<invalid>`` for a reply that did not parse)."""
    return f"i{instance}:{INVALID_KEY if probe is None else probe}"


@dataclass(frozen=True)
class _Measured:
    bits: float | None = None
    expected: float | None = None
    after: float | None = None


@dataclass(frozen=True)
class _Instance:
    steps: tuple[_Measured, ...]
    """One per probe record, in order."""
    violation: bool
    pinned_at: int | None


def _certain(space: PuzzleSpace) -> bool:
    posterior = space.solution_posterior()
    return bool(posterior) and max(posterior.values()) >= CERTAIN


def _spread(space: PuzzleSpace) -> float | None:
    """log2 of the consistent secrets (a noisy puzzle: of the posterior's effective size)."""
    value = space.entropy() if space.kind.noisy else space.log2_count()
    return value if math.isfinite(value) else None


def _instance(prior: PuzzleSpace, inst: InstanceRecord) -> _Instance:
    space = prior
    out: list[_Measured] = []
    pinned, answered = (0 if _certain(space) else None), 0
    for n, probe in enumerate(inst.probes):
        if probe.probe is None or probe.feedback is None:
            out.append(_Measured())
            continue
        # Float noise can leave a certain feedback's entropy a hair below 0.
        expected = max(0.0, space.expected_information(probe.probe))
        try:
            after = space.observe(probe.probe, probe.feedback)
        except PuzzleError:
            after = None
        if after is None or after.size() == 0:
            # The feedback fits no secret: the box disagrees with its puzzle's rules.
            out.extend(_Measured() for _ in inst.probes[n:])
            return _Instance(tuple(out), True, pinned)
        if space.kind.noisy:
            bits = space.entropy() - after.entropy()
        else:
            bits = space.log2_count() - after.log2_count()
        out.append(_Measured(bits, expected, _spread(after)))
        space = after
        answered += 1
        if pinned is None and _certain(space):
            pinned = answered
    return _Instance(tuple(out), False, pinned)


def _measure(traj: PuzzleTrajectory) -> list[_Instance] | None:
    try:
        prior = PuzzleSpace(get_puzzle(traj.rule_kind), traj.params)
    except (UnknownNameError, PuzzleError):
        return None
    return [_instance(prior, inst) for inst in traj.instances]


def _step(index: int, inst: InstanceRecord, probe: ProbeRecord, m: _Measured) -> StepView:
    result = probe.feedback if probe.answered else (probe.error or "invalid reply")
    return StepView(
        index=index,
        action=probe.text,
        result=str(result),
        valid=probe.answered,
        bits=m.bits,
        expected_bits=m.expected,
        log2_consistent=m.after,
        note=f"instance {inst.index + 1}, turn {probe.turn}",
    )


def _answer(inst: InstanceRecord) -> AnswerView:
    last = inst.attempts[-1] if inst.attempts else None
    given = "" if last is None else (last.answer if last.answer is not None else last.text)
    return AnswerView(
        label=f"instance {inst.index + 1}",
        given=given,
        expected=inst.solution,
        correct=inst.solved,
        attempts=len(inst.attempts),
    )


def analyse_puzzle(traj: PuzzleTrajectory, kind_name: str = "puzzle") -> EpisodeAnalysis:
    """``traj`` as an :class:`EpisodeAnalysis`: a pure function of the record and the
    puzzle's trusted rules. ``info_total`` (summed over the instances) is None when the
    puzzle is unknown or some feedback fitted no secret."""
    measured = _measure(traj)
    steps: list[StepView] = []
    for k, inst in enumerate(traj.instances):
        found = measured[k].steps if measured is not None else None
        for j, probe in enumerate(inst.probes):
            m = found[j] if found is not None else _Measured()
            steps.append(_step(len(steps) + 1, inst, probe, m))
    violations = sum(i.violation for i in measured) if measured is not None else None
    info_total = (
        sum(s.bits for s in steps if s.bits is not None)
        if measured is not None and not violations
        else None
    )
    pinned = [i.pinned_at for i in measured] if measured is not None else []
    instances = len(traj.instances)
    metrics: dict[str, float | None] = {
        "queries_used": float(traj.queries_used),
        "invalid_turns": float(traj.invalid_turns),
        "solved": float(sum(inst.solved for inst in traj.instances)),
        "pinned": float(sum(p is not None for p in pinned)) if measured is not None else None,
        "bits_per_instance": None
        if info_total is None or not instances
        else info_total / instances,
        "violations": None if violations is None else float(violations),
    }
    context = "" if traj.context == "reset" else f" {traj.context}"
    try:
        k = max(instances, get_family(traj.family).test_items)
    except UnknownNameError:
        k = instances
    return EpisodeAnalysis(
        **record_identity(traj),
        kind=kind_name,
        setting=f"{traj.turns}@{traj.shots} {traj.feedback}{context}",
        budget=traj.turns * k,
        feedback=traj.feedback,
        score=traj.score,
        log2_h=traj.log2_h,
        t_info=traj.t_info,
        info_total=info_total,
        info_exact=True,
        query_keys=[probe_key(inst.index, p.probe) for inst in traj.instances for p in inst.probes],
        steps=steps,
        answers=[_answer(inst) for inst in traj.instances],
        intro=traj.intro,
        metrics=metrics,
    )
