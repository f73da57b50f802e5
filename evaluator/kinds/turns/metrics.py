"""Information metrics of an episode: pure functions of a trajectory and its family.

Measured over the box's OWN kind version space ``family.version_space(level, rule_kind)``
(exact for easy kinds), a researcher's view the agent never has: per answered query,
its expected information (entropy of the predicted output over the consistent rules),
its realised information (``-log2 P(observed output)``) and log2 of the consistent count
before it. Invalid replies and failed box calls carry no information and are skipped.

Bounds every episode must satisfy (:func:`check_information_bounds`):
expected <= log2|Y|, expected <= log2 |consistent before|, and cumulative realised
<= log2|H|. A violation means a count or a box is wrong.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from blackboxes.families import Family
from blackboxes.information import VersionSpace, expected_information, realised_information
from evaluator.kinds.turns.trajectory import Trajectory

__all__ = [
    "EXPECTED_TOLERANCE",
    "REALISED_TOLERANCE",
    "EpisodeInformation",
    "QueryInformation",
    "bound_efficiency",
    "bound_violations",
    "check_information_bounds",
    "efficiency",
    "episode_information",
    "kind_space",
]

EXPECTED_TOLERANCE = 1e-9
REALISED_TOLERANCE = 1e-6


@dataclass(frozen=True)
class QueryInformation:
    """Information of one answered query, in bits."""

    turn: int
    log2_before: float
    """log2 of the number of rules consistent with the history before this query."""
    expected: float
    realised: float
    """``inf`` when the observed output is impossible under the space (a count or box bug)."""
    cumulative: float


@dataclass(frozen=True)
class EpisodeInformation:
    queries: tuple[QueryInformation, ...]
    log2_h: float
    """log2 of the kind's full space (log2 count before any query)."""
    exact: bool
    """False when the family's space gives documented estimates."""

    @property
    def identified_at(self) -> int | None:
        """The turn whose answer left one rule of the kind consistent (None: never)."""
        for q in self.queries:
            if math.isfinite(q.cumulative) and q.cumulative >= self.log2_h - REALISED_TOLERANCE:
                return q.turn
        return None

    @property
    def realised_total(self) -> float:
        return self.queries[-1].cumulative if self.queries else 0.0

    @property
    def consistent(self) -> bool:
        """False if some observed output was impossible under the space."""
        return all(math.isfinite(q.realised) for q in self.queries)


def kind_space(traj: Trajectory, family: Family) -> VersionSpace:
    """The prior version space of the box's own rule kind."""
    return family.version_space(traj.level, traj.rule_kind)


def episode_information(traj: Trajectory, family: Family) -> EpisodeInformation:
    """Per-query expected and realised information over the box's own kind space."""
    space = kind_space(traj, family)
    log2_h = space.log2_count()
    exact = space.exact
    rows: list[QueryInformation] = []
    cumulative = 0.0
    for turn in traj.turns:
        if not turn.answered:
            continue
        before = space.log2_count()
        if before == -math.inf:
            # An earlier observation already emptied the space: nothing left to measure.
            rows.append(QueryInformation(turn.index, before, 0.0, math.inf, math.inf))
            continue
        expected = expected_information(space, turn.query)
        realised = realised_information(space, turn.query, turn.output)
        cumulative += realised
        rows.append(QueryInformation(turn.index, before, expected, realised, cumulative))
        space = space.observe(turn.query, turn.output)
        exact = exact and space.exact
    return EpisodeInformation(queries=tuple(rows), log2_h=log2_h, exact=exact)


def check_information_bounds(traj: Trajectory, family: Family) -> list[str]:
    """Violations of the information bounds in one episode (empty when all hold)."""
    return bound_violations(traj, episode_information(traj, family))


def bound_violations(traj: Trajectory, info: EpisodeInformation) -> list[str]:
    """:func:`check_information_bounds` on an already computed :class:`EpisodeInformation`."""
    log2_h = traj.log2_h if traj.log2_h is not None else info.log2_h
    problems: list[str] = []
    where = f"{traj.box_id}/{traj.agent}/r{traj.repetition}"
    # An estimated kind's space may be a documented superset of its rules (CRI's random
    # DAGs), whose count is then not box.json's log2|H| point value.
    if (
        info.exact
        and traj.log2_h is not None
        and abs(info.log2_h - traj.log2_h) > REALISED_TOLERANCE
    ):
        problems.append(
            f"{where}: the {traj.rule_kind!r} version space counts log2 {info.log2_h:.6f} rules "
            f"but box.json says log2|H| = {traj.log2_h:.6f}"
        )
    over = False
    for q in info.queries:
        if not math.isfinite(q.realised):
            problems.append(
                f"{where} turn {q.turn}: observed output impossible under the "
                f"{traj.rule_kind!r} version space"
            )
            continue
        if q.expected > traj.log2_y + EXPECTED_TOLERANCE:
            problems.append(
                f"{where} turn {q.turn}: expected information {q.expected:.6f} > "
                f"log2|Y| = {traj.log2_y:.6f}"
            )
        if q.expected > q.log2_before + EXPECTED_TOLERANCE:
            problems.append(
                f"{where} turn {q.turn}: expected information {q.expected:.6f} > "
                f"log2 consistent count {q.log2_before:.6f}"
            )
        if q.cumulative > log2_h + REALISED_TOLERANCE and not over:
            over = True  # reported once, at the first turn it happens
            problems.append(
                f"{where} turn {q.turn}: cumulative realised information {q.cumulative:.6f} > "
                f"log2|H| = {log2_h:.6f}"
            )
    return problems


def bound_efficiency(t_info: int | None, identified_at: int | None) -> float | None:
    """T_info / the turns an agent took to pin its box's rule down (1.0: as few as the
    bound allows; 0.0: never pinned down); None when T_info is unknown."""
    if t_info is None:
        return None
    if identified_at is None:
        return 0.0
    return min(1.0, t_info / identified_at)


def efficiency(agent_bits: float, adaptive_bits: float) -> float | None:
    """Realised information of an agent / that of the adaptive baseline (None if undefined)."""
    if not (math.isfinite(agent_bits) and math.isfinite(adaptive_bits)) or adaptive_bits <= 0:
        return None
    return agent_bits / adaptive_bits
