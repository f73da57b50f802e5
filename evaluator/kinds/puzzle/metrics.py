"""Information per probe of a puzzle episode, recomputed from its record alone.

Each instance is replayed through the exact version space of its puzzle
(:class:`blackboxes.puzzles.PuzzleSpace`, from the record's ``rule_kind`` and ``params``):
the realised information of a probe is the drop in log2 of the consistent secrets (a
noisy puzzle: the drop in posterior entropy), so an instance's bits sum to at most
log2|H|; the probe at which one answer became certain is the instance's ``pinned_at``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from blackboxes.puzzles import PuzzleError, PuzzleSpace, get_puzzle
from evaluator.kinds.puzzle.trajectory import InstanceRecord, PuzzleTrajectory
from oracle_bench.errors import UnknownNameError

__all__ = ["CERTAIN", "InstanceInformation", "PuzzleInformation", "puzzle_information"]

CERTAIN = 1.0 - 1e-9
"""An answer at least this probable is pinned down."""


@dataclass(frozen=True)
class InstanceInformation:
    bits: float
    """Realised information over the instance's answered probes."""
    pinned_at: int | None
    """Answered probes after which one answer was certain (0: before any), None: never."""
    violation: bool
    """The feedback emptied the space (the box disagrees with its puzzle's rules)."""


@dataclass(frozen=True)
class PuzzleInformation:
    instances: tuple[InstanceInformation, ...]

    @property
    def bits(self) -> float:
        """Mean bits per instance."""
        if not self.instances:
            return 0.0
        return math.fsum(i.bits for i in self.instances) / len(self.instances)

    @property
    def violations(self) -> int:
        return sum(i.violation for i in self.instances)


def _certain(space: PuzzleSpace) -> bool:
    posterior = space.solution_posterior()
    return bool(posterior) and max(posterior.values()) >= CERTAIN


def _instance(space: PuzzleSpace, inst: InstanceRecord) -> InstanceInformation:
    bits, pinned, answered = 0.0, 0 if _certain(space) else None, 0
    for probe in inst.probes:
        if probe.probe is None or probe.feedback is None:
            continue
        try:
            after = space.observe(probe.probe, probe.feedback)
        except PuzzleError:
            return InstanceInformation(bits, pinned, True)
        if after.size() == 0:
            return InstanceInformation(bits, pinned, True)
        # The realised information, from the two spaces at hand (observing again would
        # repeat the work): a noisy puzzle's entropy drop, else the log2-count drop.
        if space.kind.noisy:
            bits += space.entropy() - after.entropy()
        else:
            bits += space.log2_count() - after.log2_count()
        space = after
        answered += 1
        if pinned is None and _certain(space):
            pinned = answered
    return InstanceInformation(bits, pinned, False)


def puzzle_information(traj: PuzzleTrajectory) -> PuzzleInformation | None:
    """Every instance's information, or None when the record's puzzle is unknown or its
    parameters are refused (nothing can be measured)."""
    try:
        puzzle = get_puzzle(traj.rule_kind)
        prior = PuzzleSpace(puzzle, traj.params)
    except (UnknownNameError, PuzzleError):
        return None
    return PuzzleInformation(tuple(_instance(prior, inst) for inst in traj.instances))
