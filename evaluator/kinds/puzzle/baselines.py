"""The puzzle baselines: ``random``, ``fixed`` and ``adaptive`` probes over the exact
version space of each instance (:class:`blackboxes.puzzles.PuzzleSpace`).

All three keep the posterior over the instance's secrets from the feedback they get and
answer with its most probable answer (after a wrong attempt, the next most probable);
they stop probing as soon as one answer is certain. They differ only in the probes:

- ``random``: a uniformly random probe from the puzzle's candidate pool drawn without
  looking at the feedback (a pool aimed at the still-plausible secrets would make it
  adaptive);
- ``fixed``: the puzzle's feedback-independent plan (``fixed_plan``), in order;
- ``adaptive``: the candidate of greatest expected information (mutual information with
  the secret, so a lying balance's noise is discounted), greedy.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from blackboxes.puzzles import PuzzleSpace
from evaluator.kinds.puzzle.protocol import (
    Move,
    PuzzleAgentContext,
    PuzzleBriefing,
    register_puzzle_agent,
)

__all__ = [
    "ADAPTIVE_CANDIDATES",
    "CERTAIN",
    "AdaptivePuzzleAgent",
    "FixedPuzzleAgent",
    "RandomPuzzleAgent",
]

ADAPTIVE_CANDIDATES = 200
"""Probes the adaptive baseline scores per turn."""
RANDOM_POOL = 64
CERTAIN = 1.0 - 1e-9
"""An answer this probable ends the probing."""


class _SpaceAgent(ABC):
    """Keeps each instance's posterior; answers with its best answer not yet judged wrong."""

    def __init__(self, ctx: PuzzleAgentContext) -> None:
        self.ctx = ctx
        self.turns = 1
        self.space = PuzzleSpace(ctx.puzzle, ctx.params)
        self.sent: dict[int, str] = {}
        self.wrong: set[str] = set()
        self.last: str | None = None
        self.turn = 0
        self._notes: list[str] = []

    # -- the protocol --------------------------------------------------------
    def start(self, briefing: PuzzleBriefing) -> None:
        self.turns = briefing.turns

    def begin_instance(self, index: int, message: str) -> None:
        self.space = PuzzleSpace(self.ctx.puzzle, self.ctx.params)
        self.sent, self.wrong, self.last, self.turn = {}, set(), None, 0
        self.begin()

    def move(self, banner: str) -> Move:
        self.turn += 1
        ranked = self.ranked()
        if ranked and ranked[0][1] >= CERTAIN:
            return Move("answer", ranked[0][0])
        probe = self.choose()
        self.sent[self.turn] = probe
        return Move("probe", probe)

    def observe(self, turn: int, probe_text: str, feedback: str) -> None:
        probe = self.sent.get(turn)
        if probe is None:
            return
        after = self.space.observe(probe, feedback)
        if after.size() == 0:
            # The box disagrees with the rules: keep what was known and say so.
            self._notes.append(f"turn {turn}: feedback {feedback!r} fits no secret; ignored")
            return
        self.space = after

    def answer(self, prompt: str, attempt: int) -> str:
        for answer, _ in self.ranked():
            if answer not in self.wrong:
                self.last = answer
                return answer
        self.last = None
        return next(iter(self.wrong), "")

    def verdict(self, correct: bool, message: str) -> None:
        if not correct and self.last is not None:
            self.wrong.add(self.last)

    def notes(self) -> list[str]:
        return list(self._notes)

    # -- helpers -------------------------------------------------------------
    def ranked(self) -> list[tuple[str, float]]:
        """The answers with mass, most probable first (ties: answer order)."""
        posterior = self.space.solution_posterior()
        order = {a: i for i, a in enumerate(posterior)}
        return sorted(posterior.items(), key=lambda kv: (-round(kv[1], 12), order[kv[0]]))

    def begin(self) -> None:  # noqa: B027 (optional hook)
        """Per-instance set-up of a subclass (none by default)."""

    @abstractmethod
    def choose(self) -> str:
        """The next probe."""


@register_puzzle_agent("random")
class RandomPuzzleAgent(_SpaceAgent):
    """Tier 1: random probes from the candidate pool."""

    def choose(self) -> str:
        rng: Any = self.ctx.rng
        pool = self.ctx.puzzle.candidate_probes(self.ctx.params, rng, RANDOM_POOL)
        return str(rng.choice(pool))


@register_puzzle_agent("fixed")
class FixedPuzzleAgent(_SpaceAgent):
    """Tier 2: the puzzle's fixed plan, whatever the feedback."""

    def begin(self) -> None:
        self.plan = self.ctx.puzzle.fixed_plan(self.ctx.params, self.turns)

    def choose(self) -> str:
        return self.plan[(self.turn - 1) % len(self.plan)]


@register_puzzle_agent("adaptive")
class AdaptivePuzzleAgent(_SpaceAgent):
    """Tier 3: the probe of greatest expected information over the posterior."""

    def choose(self) -> str:
        rng: Any = self.ctx.rng
        return self.space.greedy_probe(self.space.candidates(rng, ADAPTIVE_CANDIDATES))
