"""The CII kinds of each level, in a fixed order, and what the family derives from each."""

from __future__ import annotations

import itertools
import math
import random
from dataclasses import dataclass, field
from functools import cache, cached_property
from typing import Protocol

from blackboxes.box import JSONValue
from blackboxes.families._base import HypothesisSpace
from blackboxes.families.cii._domains import Domain
from blackboxes.families.cii._easy_a import EASY_A
from blackboxes.families.cii._easy_b import EASY_B
from blackboxes.families.cii._hard_a import HARD_A
from blackboxes.families.cii._hard_b import HARD_B
from blackboxes.families.cii._kind import Params, ProgramKind
from blackboxes.families.cii._marked import MARKED
from blackboxes.families.cii._query import canonical
from blackboxes.families.cii._space import ProgramSpace, TraceMemo
from blackboxes.families.cii._trace import Grouped, group, observation
from blackboxes.information import VersionSpace
from oracle_bench.rng import rng_for

__all__ = [
    "KINDS",
    "LEVEL_KINDS",
    "Analysis",
    "KindPrior",
    "analysis",
    "prior",
    "probe_inputs",
    "signature",
]

_HARD = (*HARD_A, *HARD_B, *MARKED)
KINDS: dict[str, ProgramKind] = {k.name: k for k in (*EASY_A, *EASY_B, *_HARD)}
LEVEL_KINDS: dict[str, tuple[str, ...]] = {
    "easy": tuple(k.name for k in (*EASY_A, *EASY_B)),
    "hard": tuple(k.name for k in _HARD),
}

_RANDOM_PROBES = 16
_EDGE_PROBES = 8
_SPLIT_VISITS = 8


def signature(inputs: tuple[tuple[str, Domain], ...], checkpoints: int) -> str:
    """Equal for kinds an agent cannot tell apart from the intro (inputs and checkpoints)."""
    return canonical([[name, domain.key] for name, domain in inputs] + [checkpoints])


def probe_inputs(kind: ProgramKind) -> list[dict[str, JSONValue]]:
    """Fixed input sets that tell the kind's parameterisations apart: edge combinations,
    then seeded random ones."""
    edges = [domain.edges() for _, domain in kind.inputs]
    names = [name for name, _ in kind.inputs]
    probes = [dict(zip(names, combo, strict=True)) for combo in itertools.product(*edges)]
    probes = probes[:_EDGE_PROBES]
    rng = rng_for(0, "CII probes", kind.name)
    probes += [
        {name: domain.sample(rng) for name, domain in kind.inputs} for _ in range(_RANDOM_PROBES)
    ]
    return probes


@dataclass(frozen=True)
class Analysis:
    """A kind's distinct parameterisations (its H) and their shared trace memo."""

    kind: ProgramKind
    hypotheses: tuple[Params, ...]
    """The first setting of each behaviour class on the probes, in ``all_params`` order."""
    settings: int
    """``len(all_params())``."""
    memo: TraceMemo
    probe_traces: tuple[list[Grouped], ...] = field(repr=False, compare=False)
    """Each hypothesis' grouped traces on the probes (``probe_inputs`` order)."""

    @cached_property
    def widest_split(self) -> int:
        """The most distinct answers one probe query (input set, checkpoint, visit 1..8)
        gets from the hypotheses: the |Y| behind T_info. Computed on first use (it costs
        more than the rest of the analysis, and box generation never needs it)."""
        widest = 1
        for p in range(len(probe_inputs(self.kind))):
            for k in range(1, self.kind.checkpoints + 1):
                for v in range(1, _SPLIT_VISITS + 1):
                    answers = {canonical(observation(g[p], k, v)) for g in self.probe_traces}
                    widest = max(widest, len(answers))
        return widest

    def space(self) -> ProgramSpace:
        return ProgramSpace(self.memo)

    def sample(self, rng: random.Random) -> Params:
        """A uniform behaviour class (its first setting)."""
        return dict(rng.choice(self.hypotheses))

    def hypothesis(self) -> HypothesisSpace:
        # A visit shows every recorded variable, so one query can split H in as many ways
        # as H has programs (``widest_split`` on the probes comes close): |Y| = |H| is the
        # bound that holds for every query, and T_info is 1 for every enumerated kind.
        log2_h = math.log2(len(self.hypotheses))
        return HypothesisSpace(log2_h=log2_h, log2_y=max(1.0, log2_h))


class KindPrior(Protocol):
    """A kind's prior as the family uses it."""

    def space(self) -> VersionSpace: ...

    def hypothesis(self) -> HypothesisSpace: ...

    def sample(self, rng: random.Random) -> Params: ...


@cache
def prior(name: str) -> KindPrior:
    """The kind's own prior if it has one, else its enumerated behaviour classes."""
    custom: KindPrior | None = KINDS[name].custom_prior()
    return custom if custom is not None else analysis(name)


@cache
def analysis(name: str) -> Analysis:
    """Computed once per process: every setting run on the probes."""
    kind = KINDS[name]
    probes = probe_inputs(kind)
    seen: dict[str, tuple[Params, list[Grouped]]] = {}
    settings = 0
    for params in kind.all_params():
        settings += 1
        traces = [kind.trace(params, probe) for probe in probes]
        key = canonical(traces)
        if key not in seen:
            seen[key] = (params, [group(t) for t in traces])
    hypotheses = tuple(params for params, _ in seen.values())
    grouped = tuple(g for _, g in seen.values())
    return Analysis(kind, hypotheses, settings, TraceMemo(kind, hypotheses), grouped)
