"""Version spaces and the information they measure.

A :class:`VersionSpace` is the set of rules of a hypothesis space consistent with
a history of ``(input, output)`` observations, under a prior (uniform within a
rule kind). Three representations fit behind the same interface: an exact set
when the space is small, factorised constraints when the structure allows (a
substitution key is one constraint per plaintext letter, never 26! candidates),
and a documented estimate otherwise (``exact`` is then False).

For a candidate query ``x`` the space gives a :class:`Predictive` distribution of
the output. Its entropy is the query's *expected information*; for an observed
answer ``y``, ``-log2 P(y)`` is the *realised information*. Within one uniform
kind the realised information equals ``log2|C| - log2|C'|``, so over a whole
history it sums to ``log2|H| - log2|C_final| <= log2|H|``; a violation means a
count is wrong.

The true rule is never injected into a space: if observations made by the true
box empty it, the space (or the box) is wrong, and :meth:`VersionSpace.observe`
returns a space with ``log2_count() == -inf`` for callers to flag.
"""

from __future__ import annotations

import json
import math
from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "MixtureVersionSpace",
    "Predictive",
    "TablePredictive",
    "VersionSpace",
    "entropy_bits",
    "expected_information",
    "output_key",
    "realised_information",
]

JSONValue = Any

ENUMERATION_LIMIT = 4096
"""Largest support a predictive distribution is asked to list exactly."""

NEGLIGIBLE_POSTERIOR = 1e-12
"""A mixture's predictive leaves out parts whose posterior weight is at most this."""


def output_key(y: JSONValue) -> str:
    """A hashable, canonical key for a JSON output value."""
    if isinstance(y, str):
        return y
    return json.dumps(y, sort_keys=True, separators=(",", ":"))


def entropy_bits(probs: Iterable[float]) -> float:
    """Shannon entropy in bits of a probability vector (zeros ignored)."""
    return -sum(p * math.log2(p) for p in probs if p > 0.0)


class Predictive(ABC):
    """The distribution of a query's output over the consistent rules."""

    @property
    @abstractmethod
    def entropy(self) -> float:
        """Entropy in bits: the query's expected information."""

    @abstractmethod
    def prob(self, y: JSONValue) -> float:
        """Probability of output ``y`` (0.0 if no consistent rule produces it)."""

    @abstractmethod
    def top(self, k: int) -> list[JSONValue]:
        """Up to ``k`` most probable outputs, best first, ties broken deterministically."""

    def support(self, limit: int = ENUMERATION_LIMIT) -> dict[str, tuple[JSONValue, float]] | None:
        """Each output and its probability by :func:`output_key`; None if over ``limit``."""
        return None

    @property
    def mode(self) -> JSONValue:
        return self.top(1)[0]


@dataclass(frozen=True)
class TablePredictive(Predictive):
    """A predictive distribution given as an explicit table of weights."""

    weights: dict[str, tuple[JSONValue, float]]
    """output_key -> (output, unnormalised weight)."""
    _total: float = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_total", sum(w for _, w in self.weights.values()))

    @property
    def entropy(self) -> float:
        if self._total <= 0:
            return 0.0
        return entropy_bits(w / self._total for _, w in self.weights.values())

    def prob(self, y: JSONValue) -> float:
        entry = self.weights.get(output_key(y))
        return entry[1] / self._total if entry and self._total > 0 else 0.0

    def top(self, k: int) -> list[JSONValue]:
        ranked = sorted(self.weights.items(), key=lambda kv: (-kv[1][1], kv[0]))
        return [value for _, (value, _) in ranked[:k]]

    def support(self, limit: int = ENUMERATION_LIMIT) -> dict[str, tuple[JSONValue, float]] | None:
        if len(self.weights) > limit or self._total <= 0:
            return None if len(self.weights) > limit else {}
        return {key: (value, w / self._total) for key, (value, w) in self.weights.items()}


class VersionSpace(ABC):
    """The rules consistent with a history. Immutable: :meth:`observe` returns a new space."""

    exact: bool = True
    """False when counts and entropies are documented estimates."""

    @abstractmethod
    def log2_count(self) -> float:
        """log2 of the number of consistent rules (``-inf`` when none is)."""

    @abstractmethod
    def observe(self, x: JSONValue, y: JSONValue) -> VersionSpace:
        """The space restricted to rules mapping ``x`` to ``y``."""

    @abstractmethod
    def predictive(self, x: JSONValue) -> Predictive:
        """The output distribution for ``x`` under a uniform prior over the consistent rules."""

    def pruned(self, min_weight: float) -> VersionSpace:
        """The space without parts whose posterior weight is at most ``min_weight`` (for
        agents that trade a bounded error for speed); a space without parts is itself."""
        return self

    def observe_all(self, history: Iterable[tuple[JSONValue, JSONValue]]) -> VersionSpace:
        space: VersionSpace = self
        for x, y in history:
            space = space.observe(x, y)
        return space


def expected_information(space: VersionSpace, x: JSONValue) -> float:
    """Entropy (bits) of the output of ``x`` over the consistent rules."""
    return space.predictive(x).entropy


def realised_information(space: VersionSpace, x: JSONValue, y: JSONValue) -> float:
    """Information (bits) the answer ``y`` to ``x`` gave: ``-log2 P(y)``; ``inf`` if impossible."""
    p = space.predictive(x).prob(y)
    return math.inf if p <= 0.0 else -math.log2(p)


@dataclass(frozen=True)
class _Component:
    name: str
    log2_prior: float
    log2_size: float
    """log2 |H_k| of the kind's full space."""
    space: VersionSpace


class _MixturePredictive(Predictive):
    """Mixture of the kinds' predictives weighted by posterior kind probability.

    Entropy is exact when every component can list its support; a component that
    cannot is treated as disjoint from the others, which over-counts only the
    (negligible) probability mass two such kinds share: the estimate is an upper
    bound on the true entropy and still at most log2 of the consistent count.
    """

    def __init__(self, parts: Sequence[tuple[float, Predictive]]) -> None:
        self._parts = [(w, p) for w, p in parts if w > 0.0]
        self._merged: dict[str, tuple[JSONValue, float]] = {}
        self._open: list[tuple[float, Predictive]] = []
        for w, pred in self._parts:
            support = pred.support()
            if support is None:
                self._open.append((w, pred))
                continue
            for key, (value, p) in support.items():
                prev = self._merged.get(key)
                self._merged[key] = (value, (prev[1] if prev else 0.0) + w * p)

    @property
    def entropy(self) -> float:
        h = entropy_bits(p for _, p in self._merged.values())
        for w, pred in self._open:
            h += w * pred.entropy - w * math.log2(w)
        return h

    def prob(self, y: JSONValue) -> float:
        return sum(w * pred.prob(y) for w, pred in self._parts)

    def top(self, k: int) -> list[JSONValue]:
        # Exact scoring asks every part for every candidate, and a listed support can
        # hold thousands: shortlist by a lower bound on each candidate's probability (its
        # listed mass plus what the open part proposing it gives), then rank the
        # shortlist exactly.
        bound: dict[str, tuple[JSONValue, float]] = dict(self._merged)
        for w, pred in self._open:
            for value in pred.top(k):
                key = output_key(value)
                listed = self._merged.get(key, (value, 0.0))[1]
                lower = listed + w * pred.prob(value)
                if lower > bound.get(key, (value, -1.0))[1]:
                    bound[key] = (value, lower)
        shortlist = sorted(bound.items(), key=lambda kv: (-kv[1][1], kv[0]))[: 4 * k]
        if not self._open:
            return [value for _, (value, _) in shortlist[:k]]
        scored = sorted(shortlist, key=lambda kv: (-self.prob(kv[1][0]), kv[0]))
        return [value for _, (value, _) in scored[:k]]

    def support(self, limit: int = ENUMERATION_LIMIT) -> dict[str, tuple[JSONValue, float]] | None:
        if self._open or len(self._merged) > limit:
            return None
        return dict(self._merged)


class MixtureVersionSpace(VersionSpace):
    """The union of several kinds' spaces with a prior over kinds.

    This is the view of an agent that knows the family but not the box's kind:
    the posterior weight of kind k is ``prior_k * |C_k| / |H_k|``.
    """

    def __init__(self, components: Sequence[tuple[str, float, float, VersionSpace]]) -> None:
        """``components``: (kind name, prior probability, log2|H_k|, the kind's space)."""
        self._components = tuple(
            _Component(name, math.log2(prior), log2_size, space)
            for name, prior, log2_size, space in components
            if prior > 0.0
        )
        self.exact = all(c.space.exact for c in self._components)

    def _log_weights(self) -> list[float]:
        return [c.log2_prior + c.space.log2_count() - c.log2_size for c in self._components]

    def posterior(self) -> dict[str, float]:
        """Posterior probability of each kind given the history so far."""
        logs = self._log_weights()
        top = max(logs, default=-math.inf)
        if top == -math.inf:
            return {c.name: 0.0 for c in self._components}
        raw = [2.0 ** (lw - top) for lw in logs]
        total = sum(raw)
        return {c.name: r / total for c, r in zip(self._components, raw, strict=True)}

    def pruned(self, min_weight: float) -> MixtureVersionSpace:
        post = self.posterior()
        kept = [c for c in self._components if post[c.name] > min_weight]
        if len(kept) == len(self._components):
            return self
        return MixtureVersionSpace(
            [(c.name, 2.0**c.log2_prior, c.log2_size, c.space) for c in kept]
        )

    def log2_count(self) -> float:
        counts = [c.space.log2_count() for c in self._components]
        top = max(counts, default=-math.inf)
        if top == -math.inf:
            return -math.inf
        return top + math.log2(sum(2.0 ** (c - top) for c in counts))

    def observe(self, x: JSONValue, y: JSONValue) -> MixtureVersionSpace:
        return MixtureVersionSpace(
            [
                (c.name, 2.0**c.log2_prior, c.log2_size, c.space.observe(x, y))
                for c in self._components
                if c.space.log2_count() > -math.inf
            ]
        )

    def predictive(self, x: JSONValue) -> Predictive:
        post = self.posterior()
        # A part below NEGLIGIBLE_POSTERIOR moves any entropy or probability by less than
        # 1e-9 (w * log2|Y| + h(w) with |Y| < 2^1000), and asking it for its predictive
        # can cost more than all the others together (a composition's hundreds of parts).
        return _MixturePredictive(
            [
                (post[c.name], c.space.predictive(x))
                for c in self._components
                if post[c.name] > NEGLIGIBLE_POSTERIOR
            ]
        )
