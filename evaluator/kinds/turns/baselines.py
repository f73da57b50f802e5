"""Baseline agents needing no network: ``random``, ``fixed`` and ``adaptive``.

All three predict the same way, from the agent-view version space
``family.version_space(level, None)`` (every kind of the level mixed under the sampling
prior) updated with their own observations: attempt ``a`` of an item answers the
``a``-th most probable output. They differ only in how they explore:

- ``random``: uniform valid queries (``family.random_query``);
- ``fixed``: the family's feedback-independent plan (``family.exploration_plan``);
- ``adaptive``: greedy, each turn the not-yet-asked candidate of ``family.query_pool``
  with the highest expected information over the current version space (ties broken
  by a draw from the agent's seeded rng); for a family with a ``plan_margin``, the
  plan's next query unless the greedy pick beats it by more than that many bits.

They are given the Family, the level and a seeded rng: public information only, never
the box's rule kind or hidden.json.
"""

from __future__ import annotations

import logging
import math
import random
import threading
from abc import ABC, abstractmethod
from typing import Any

from blackboxes.box import Level
from blackboxes.families import Family
from blackboxes.information import VersionSpace, expected_information, output_key
from evaluator.kinds.turns.agents import (
    AgentContext,
    Briefing,
    Observation,
    Question,
    register_agent,
)
from oracle_bench.rng import rng_for

__all__ = ["ADAPTIVE_POOL_SIZE", "PRUNE_WEIGHT", "AdaptiveAgent", "FixedAgent", "RandomAgent"]

log = logging.getLogger(__name__)

JSONValue = Any

ADAPTIVE_POOL_SIZE = 32
"""Candidates the adaptive baseline scores per turn."""

PRUNE_WEIGHT = 1e-6
"""Kinds whose posterior weight is at most this are left out of predictions and scores:
each moves an entropy by at most about 1e-6 * log2|Y| + h(1e-6) (well under 0.01 bit),
and a composition's predictive costs more than all the other kinds together."""

_SCORE_DIGITS = 9
"""Scores are compared after rounding, so float noise never decides a tie."""


class _VersionSpaceAgent(ABC):
    """Shared prediction: the agent-view version space updated with every observation."""

    def __init__(self, ctx: AgentContext) -> None:
        self.family = ctx.family
        self.level = ctx.level
        self.rng = ctx.rng
        self.space: VersionSpace = ctx.family.version_space(ctx.level, None)
        self.briefing: Briefing | None = None
        self._notes: list[str] = []
        self._asked: set[str] = set()
        self._queries: list[JSONValue] = []
        self._turn = 0
        self._observed = 0
        """Observations taken into the space (0: it is still the prior)."""
        self._view: VersionSpace | None = None
        self._candidates: dict[int, list[str]] = {}
        self._held: list[tuple[int, JSONValue, JSONValue]] = []
        """Observations an estimated space placed nowhere, retried after each answer."""

    # -- protocol -------------------------------------------------------------
    def start(self, briefing: Briefing) -> None:
        self.briefing = briefing

    def query(self, banner: str) -> str:
        self._turn += 1
        x = self.choose_query()
        self._asked.add(output_key(x))
        self._queries.append(x)
        return self.family.format_query(x)

    def observe(self, observation: Observation) -> None:
        if not observation.ok:
            self._note(f"turn {observation.turn}: no answer ({observation.response.strip()})")
            return
        if not self._take(observation.query, observation.output):
            # No rule of the family explains this answer: keep the last consistent space
            # (ignoring this observation) rather than predict from nothing.
            if self.space.exact:
                self._note(
                    f"turn {observation.turn}: observation inconsistent with every "
                    "hypothesis; ignored"
                )
                return
            # An estimated space found no consistent rule, which does not prove there is
            # none: later answers narrow the search, so this one is tried again then.
            self._note(
                f"turn {observation.turn}: no consistent hypothesis found; held back for "
                "another try after the next answer"
            )
            self._held.append((observation.turn, observation.query, observation.output))
            return
        for turn, x, y in list(self._held):
            if self._take(x, y):
                self._held.remove((turn, x, y))
                self._note(f"turn {turn}: held-back observation now placed")

    def _take(self, x: JSONValue, y: JSONValue) -> bool:
        """Observe ``(x, y)`` unless that leaves no consistent hypothesis."""
        updated = self.space.observe(x, y)
        if updated.log2_count() == -math.inf:
            return False
        self.space = updated
        self._view = None
        self._observed += 1
        return True

    def begin_evaluation(self, message: str) -> None:
        return None

    @property
    def view(self) -> VersionSpace:
        """The space predictions and scores use: kinds below ``PRUNE_WEIGHT`` left out."""
        if self._view is None:
            self._view = self.space.pruned(PRUNE_WEIGHT)
        return self._view

    def answer(self, question: Question) -> str:
        if question.program:
            return self._program(question.attempt)
        shots = self.briefing.shots if self.briefing is not None else 1
        ranked = self._candidates.get(question.item)
        if ranked is None:
            ranked = self._rank(question, shots)
            self._candidates[question.item] = ranked
        if question.attempt < len(ranked):
            return ranked[question.attempt]
        self._note(f"item {question.item}: no candidate left for attempt {question.attempt + 1}")
        return ranked[-1] if ranked else question.input_text

    def feedback(self, correct: bool, message: str) -> None:
        return None

    def notes(self) -> list[str]:
        return list(self._notes)

    # -- exploration (what the subclasses change) -----------------------------
    @abstractmethod
    def choose_query(self) -> JSONValue:
        """The next query (a parsed input of the family)."""

    # -- helpers --------------------------------------------------------------
    def _rank(self, question: Question, shots: int) -> list[str]:
        try:
            top = self.view.predictive(question.input).top(shots)
        except Exception as exc:  # a family bug must not kill the episode
            self._note(f"item {question.item}: prediction failed ({type(exc).__name__}: {exc})")
            top = []
        texts: list[str] = []
        for y in top:
            text = self.family.render_output(y)
            if text not in texts:
                texts.append(text)
        if not texts:
            self._note(f"item {question.item}: empty prediction; echoing the input")
            texts.append(question.input_text)
        return texts

    def _program(self, attempt: int) -> str:
        """A code answer: the model tabulated on the family's whole query domain, attempt
        ``a`` giving each input's ``a``-th most probable output (as answers per item do)."""
        predictions = []
        for x in self.family.domain():
            try:
                top = self.view.predictive(x).top(attempt + 1)
            except Exception as exc:  # a family bug must not kill the episode
                self._note(f"program: prediction at {x!r} failed ({type(exc).__name__}: {exc})")
                continue
            if top:
                predictions.append((x, top[min(attempt, len(top) - 1)]))
        source = self.family.solution_source(predictions)
        return f"```python\n{source}```"

    def _note(self, text: str) -> None:
        log.debug("%s: %s", type(self).__name__, text)
        self._notes.append(text)


@register_agent("random")
class RandomAgent(_VersionSpaceAgent):
    """Uniformly random valid queries (Tier 1)."""

    def choose_query(self) -> JSONValue:
        return self.family.random_query(self.rng)


@register_agent("fixed")
class FixedAgent(_VersionSpaceAgent):
    """The family's fixed exploration plan, blind to the answers (Tier 2)."""

    def __init__(self, ctx: AgentContext) -> None:
        super().__init__(ctx)
        self._plan: list[JSONValue] = []

    def start(self, briefing: Briefing) -> None:
        super().start(briefing)
        self._plan = list(self.family.exploration_plan(self.level, briefing.turns))

    def choose_query(self) -> JSONValue:
        index = self._turn - 1
        if index < len(self._plan):
            return self._plan[index]
        self._note(f"turn {self._turn}: the plan is exhausted; random query")
        return self.family.random_query(self.rng)


@register_agent("adaptive")
class AdaptiveAgent(_VersionSpaceAgent):
    """Greedy expected information over the current version space (Tier 3).

    Before any answer the space is the family's prior, the same for every box with the
    same prior key: its ranking of a seeded pool is computed once per process and shared,
    which is most of an episode's cost otherwise (scoring 32 candidates over every kind).
    """

    def __init__(self, ctx: AgentContext) -> None:
        super().__init__(ctx)
        self._plan: list[JSONValue] = []

    def start(self, briefing: Briefing) -> None:
        super().start(briefing)
        if self.family.plan_margin is not None:
            self._plan = list(self.family.exploration_plan(self.level, briefing.turns))

    def choose_query(self) -> JSONValue:
        best = self._greedy()
        planned = next((x for x in self._plan if output_key(x) not in self._asked), None)
        margin = self.family.plan_margin
        if planned is None or margin is None:
            return best
        if best is None:
            return planned
        gain = expected_information(self.view, best) - expected_information(self.view, planned)
        return planned if round(gain, _SCORE_DIGITS) <= margin else best

    def _greedy(self) -> JSONValue:
        if self._observed == 0:
            for x in _prior_ranking(self.family, self.level):
                if output_key(x) not in self._asked:
                    return x
        pool = self.family.query_pool(self.rng, self.level, ADAPTIVE_POOL_SIZE, self._queries)
        ranked = _rank_pool(self.view, pool, self._asked, self.rng)
        if not ranked:
            if self._plan:
                return None
            self._note(f"turn {self._turn}: query pool exhausted; random query")
            return self.family.random_query(self.rng)
        return ranked[0]


def _rank_pool(
    space: VersionSpace, pool: list[JSONValue], asked: set[str], rng: random.Random
) -> list[JSONValue]:
    """The not-yet-asked candidates, highest expected information first."""
    scored: list[tuple[float, float, int]] = []
    seen: set[str] = set()
    for i, x in enumerate(pool):
        key = output_key(x)
        if key in asked or key in seen:
            continue
        seen.add(key)
        score = round(expected_information(space, x), _SCORE_DIGITS)
        # Equal scores are broken by a seeded draw, never by the strings' order (which
        # would favour short, A-heavy probes).
        scored.append((-score, rng.random(), i))
    return [pool[i] for _, _, i in sorted(scored)]


_PRIOR_RANKINGS: dict[tuple[str | int, ...], tuple[JSONValue, ...]] = {}
_PRIOR_LOCK = threading.Lock()


def _prior_ranking(family: Family, level: Level) -> tuple[JSONValue, ...]:
    key = family.prior_key(level)
    with _PRIOR_LOCK:
        cached = _PRIOR_RANKINGS.get(key)
    if cached is None:
        rng = rng_for(0, "adaptive prior ranking", *key)
        pool = family.query_pool(rng, level, ADAPTIVE_POOL_SIZE)
        prior = family.version_space(level, None).pruned(PRUNE_WEIGHT)
        cached = tuple(_rank_pool(prior, pool, set(), rng))
        with _PRIOR_LOCK:
            _PRIOR_RANKINGS.setdefault(key, cached)
    return cached
