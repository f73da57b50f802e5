"""Compositions: a letter cipher E followed by a transposition T (x -> T(E(x))).

E may itself be a chain of letter ciphers (:class:`LetterChainKind`), which makes
three-step ciphers such as keyword substitution, then a Caesar shift, then a rail fence.

H is the product of the two kinds' spaces: distinct (E, T) pairs are distinct functions
(a different T moves some letter elsewhere, which a query varying that letter exposes;
with T equal, E must be equal), so log2|H| = log2|H_E| + log2|H_T| exactly.

The version space is the union over the (few hundred at most) transpositions T of E's
space seen through T: an observation (x, y) is the observation (x, T^-1(y)) of E. Counts
are exact. The predictive merges outputs exactly while every part lists its support;
when some part cannot (large supports), its outputs are treated as disjoint from the
others, an upper bound on the entropy: ``exact`` is False unless E's space is a small
explicit set.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from blackboxes.box import JSONValue
from blackboxes.families.eri._alphabet import LOG2_26, letters_of
from blackboxes.families.eri._kind import (
    CipherKind,
    Encrypt,
    EnumeratedKind,
    Params,
    describe_steps,
)
from blackboxes.families.eri._spaces import EMPTY, MappedSpace
from blackboxes.families.eri._transposition import TranspositionKind
from blackboxes.information import (
    ENUMERATION_LIMIT,
    MixtureVersionSpace,
    Predictive,
    TablePredictive,
    VersionSpace,
)

__all__ = ["CompositionKind", "CompositionSpace", "LetterChainKind"]

OrderFor = Callable[[int], tuple[int, ...]]


def _log2_sum(values: Sequence[float]) -> float:
    top = max(values, default=-math.inf)
    if top == -math.inf:
        return -math.inf
    return top + math.log2(sum(2.0 ** (v - top) for v in values))


class CompositionSpace(VersionSpace):
    """Union over transpositions T of the letter cipher's space seen through T."""

    def __init__(self, parts: Sequence[tuple[OrderFor, VersionSpace]], exact: bool) -> None:
        self._parts = tuple(parts)
        self.exact = exact
        self._memo: dict[str, Predictive] = {}

    def log2_count(self) -> float:
        return _log2_sum([inner.log2_count() for _, inner in self._parts])

    def observe(self, x: object, y: object) -> VersionSpace:
        kept: list[tuple[OrderFor, VersionSpace]] = []
        for order_for, inner in self._parts:
            seen = MappedSpace(inner, order_for).observe(x, y)
            if isinstance(seen, MappedSpace):
                kept.append((order_for, seen.inner))
        return CompositionSpace(kept, self.exact) if kept else EMPTY

    def predictive(self, x: object) -> Predictive:
        if not isinstance(x, str):
            return TablePredictive({})
        cached = self._memo.get(x)
        if cached is not None:
            return cached
        n = len(letters_of(x))
        # Parts with the same order at this length and the same inner space predict the
        # same distribution: merge them, weighting by multiplicity, to keep this cheap.
        groups: dict[tuple[object, ...], tuple[int, tuple[int, ...], VersionSpace]] = {}
        for order_for, inner in self._parts:
            order = order_for(n)
            key = (order, type(inner).__name__, _fingerprint(inner))
            mult, _, _ = groups.get(key, (0, order, inner))
            groups[key] = (mult + 1, order, inner)
        # Listing supports costs time: share a budget of listed outputs among the groups
        # (parts beyond it are merged as disjoint, the documented upper bound).
        cap = max(1, _SUPPORT_BUDGET // len(groups))
        # Posterior of a group = multiplicity * |C_part| (log2 size 0 makes the prior weight
        # the multiplicity), i.e. uniform over all consistent rules.
        components: list[tuple[str, float, float, VersionSpace]] = [
            (f"part {i}", float(mult), 0.0, MappedSpace(inner, _const(order), cap))
            for i, (mult, order, inner) in enumerate(groups.values())
        ]
        cached = _CompositionPredictive(
            MixtureVersionSpace(components), [(c[0], c[3]) for c in components], x
        )
        self._memo[x] = cached
        return cached


class _CompositionPredictive(Predictive):
    """The mixture's predictive with a cheaper ``top``.

    ``MixtureVersionSpace``'s top scores every candidate of every open part against every
    part (quadratic in the number of parts, hundreds here). This shortlists candidates by
    their own part's weighted probability, then ranks the shortlist by the exact mixture
    probability.
    """

    def __init__(
        self, mixture: MixtureVersionSpace, parts: list[tuple[str, VersionSpace]], x: str
    ) -> None:
        self._mixture = mixture
        self._parts = parts
        self._x = x
        self._inner = mixture.predictive(x)

    @property
    def entropy(self) -> float:
        # Parts merged as disjoint over-count; the output keeps x's letter/space layout,
        # so log2 26^letters is also an upper bound, and the tighter of the two is kept.
        return min(self._inner.entropy, len(letters_of(self._x)) * LOG2_26)

    def prob(self, y: object) -> float:
        return self._inner.prob(y)

    def support(self, limit: int = ENUMERATION_LIMIT) -> dict[str, tuple[object, float]] | None:
        return self._inner.support(limit)

    def top(self, k: int) -> list[object]:
        post = self._mixture.posterior()
        shortlist: dict[str, float] = {}
        for name, space in self._parts:
            w = post.get(name, 0.0)
            if w <= 0.0:
                continue
            pred = space.predictive(self._x)
            for y in pred.top(k):
                if isinstance(y, str):
                    shortlist[y] = max(shortlist.get(y, 0.0), w * pred.prob(y))
        best = sorted(shortlist.items(), key=lambda yp: (-yp[1], yp[0]))[: 4 * k]
        ranked = sorted((y for y, _ in best), key=lambda y: (-self._inner.prob(y), y))
        return list(ranked[:k])


_SUPPORT_BUDGET = 20_000


def _fingerprint(space: VersionSpace) -> object:
    method = getattr(space, "fingerprint", None)
    return method() if callable(method) else id(space)


def _const(order: tuple[int, ...]) -> OrderFor:
    return lambda _n: order


class CompositionKind(CipherKind):
    """E then T, with both keys' parameters merged into one flat mapping."""

    def __init__(self, letter: CipherKind, transposition: TranspositionKind) -> None:
        self.letter = letter
        self.transposition = transposition
        self.name = f"{letter.name}_{transposition.name}"
        self.template_name = f"code/eri/{self.name}.py.j2"
        # Exact merging needs every part's support listed: true for small explicit sets.
        self.exact = isinstance(letter, EnumeratedKind)
        self._prior: CompositionSpace | None = None

    @property
    def log2_h(self) -> float:
        return self.letter.log2_h + self.transposition.log2_h

    def sample_params(self, rng: random.Random) -> Params:
        return {**self.letter.sample_params(rng), **self.transposition.sample_params(rng)}

    def check_params(self, params: Mapping[str, JSONValue]) -> Params:
        return {**self.letter.check_params(params), **self.transposition.check_params(params)}

    def encrypt(self, params: Params) -> Encrypt:
        first = self.letter.encrypt(params)
        second = self.transposition.encrypt(params)
        return lambda text: second(first(text))

    def steps(self, params: Params) -> list[str]:
        return self.letter.steps(params) + self.transposition.steps(params)

    def describe(self, params: Params) -> str:
        return describe_steps(self.steps(params))

    def context(self, params: Params) -> dict[str, Any]:
        return {**self.letter.context(params), **self.transposition.context(params)}

    def space(self) -> VersionSpace:
        if self._prior is None:
            parts = self.letter.space_parts()
            self._prior = CompositionSpace(
                [
                    (self.transposition.order_for(p), part)
                    for p in self.transposition.distinct
                    for part in parts
                ],
                self.exact,
            )
        return self._prior


class LetterChainKind(EnumeratedKind):
    """E1 then E2, two letter-wise ciphers with small explicit spaces.

    A letter-wise cipher is fixed by its image of the alphabet, so the signature
    dedupes keys into distinct functions exactly (e.g. two Caesar shifts that add
    up the same); H is the set of distinct products.
    """

    def __init__(self, first: EnumeratedKind, second: EnumeratedKind) -> None:
        shared = set(first.distinct[0]) & set(second.distinct[0])
        if shared:
            # Merged parameter dicts would silently lose one stage's key.
            raise ValueError(f"chained kinds share parameter names {sorted(shared)}")
        self.first = first
        self.second = second
        self.name = f"{first.name}_{second.name}"
        self.template_name = f"code/eri/{self.name}.py.j2"

    def all_params(self) -> Iterable[Params]:
        return ({**a, **b} for a in self.first.distinct for b in self.second.distinct)

    def check_params(self, params: Mapping[str, JSONValue]) -> Params:
        return {**self.first.check_params(params), **self.second.check_params(params)}

    def encrypt(self, params: Params) -> Encrypt:
        one = self.first.encrypt(params)
        two = self.second.encrypt(params)
        return lambda text: two(one(text))

    def steps(self, params: Params) -> list[str]:
        return self.first.steps(params) + self.second.steps(params)

    def describe(self, params: Params) -> str:
        return describe_steps(self.steps(params))

    def context(self, params: Params) -> dict[str, Any]:
        return {**self.first.context(params), **self.second.context(params)}
