"""Hard graph kind: which nodes a source node reaches in a 5-node graph given by the bits."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from functools import cache

from blackboxes.box import JSONValue
from blackboxes.families.cri._circuit import Builder, Circuit, Gate
from blackboxes.families.cri._hard_parts import check_input, masked, masks
from blackboxes.families.cri._kind import (
    EnumeratedKind,
    Params,
    describe_inputs,
    require_bits,
    require_int,
)

__all__ = ["PAIRS", "ReachabilityKind"]

_NODES = 5
PAIRS: tuple[tuple[int, int], ...] = tuple(
    (u, v) for u in range(_NODES) for v in range(u + 1, _NODES)
)
"""Input bit i is the edge PAIRS[i]."""
_PAIR = {pair: i for i, pair in enumerate(PAIRS)}
_ROUNDS = _NODES - 2
"""Relaxation rounds after the direct edges: paths of up to 4 edges."""


def _others(s: int) -> list[int]:
    return [v for v in range(_NODES) if v != s]


@cache
def _closure() -> tuple[tuple[Gate, ...], tuple[int, ...]]:
    """The gates after the input layer (whose gate i is the edge PAIRS[i]) and the output
    wires: which of nodes 1..4 node 0 reaches, by rounds of one more edge."""
    b = Builder(len(PAIRS))
    layer = masked(b, range(len(PAIRS)), "0" * len(PAIRS))
    edge: dict[tuple[int, int], int] = {}
    for (u, v), wire in zip(PAIRS, layer, strict=True):
        edge[u, v] = edge[v, u] = wire
    others = range(1, _NODES)
    reach = {v: edge[0, v] for v in others}
    for _ in range(_ROUNDS):
        reach = {
            v: b.gate(
                "OR",
                reach[v],
                *(b.gate("AND", reach[u], edge[u, v]) for u in others if u != v),
            )
            for v in others
        }
    circuit = b.circuit([reach[v] for v in others])
    return circuit.gates[len(PAIRS) :], circuit.outputs


class ReachabilityKind(EnumeratedKind):
    """Output j: the source s reaches the j-th other node in the graph of x XOR c."""

    name = "reachability"
    n = len(PAIRS)
    m = _NODES - 1

    def all_params(self) -> Iterator[Params]:
        for s in range(_NODES):
            for c in masks(self.n):
                yield {"c": c, "s": s}

    def check_params(self, params: Mapping[str, JSONValue]) -> Params:
        return {
            "c": require_bits(params, "c", self.n),
            "s": require_int(params, "s", 0, _NODES - 1),
        }

    def direct(self, params: Params) -> Callable[[str], str]:
        p = self.check_params(params)
        c, s = str(p["c"]), int(p["s"])

        def fn(x: str) -> str:
            check_input(x, self.n)
            # Node sets as bit masks: grow the set from s until no edge leaves it.
            near = [0] * _NODES
            for i, (u, v) in enumerate(PAIRS):
                if x[i] != c[i]:
                    near[u] |= 1 << v
                    near[v] |= 1 << u
            seen, grown = 0, 1 << s
            while grown != seen:
                seen = grown
                for v in range(_NODES):
                    if seen >> v & 1:
                        grown |= near[v]
            return "".join("1" if seen >> v & 1 else "0" for v in _others(s))

        return fn

    def circuit(self, params: Params) -> Circuit:
        p = self.check_params(params)
        c, s = str(p["c"]), int(p["s"])
        # Relabel the nodes so that s is node 0 and the others keep their order as 1..4:
        # only the input layer's wiring depends on s, after it comes one fixed structure.
        label = [s, *_others(s)]
        sources = [_PAIR[min(label[u], label[v]), max(label[u], label[v])] for u, v in PAIRS]
        layer = tuple(Gate("NOT" if c[i] == "1" else "BUF", (i,)) for i in sources)
        tail, outputs = _closure()
        return Circuit(self.n, layer + tail, outputs)

    @property
    def gate_count(self) -> int:
        return self.n + _ROUNDS * (_NODES - 1) * (_NODES - 1)

    def describe(self, params: Params) -> str:
        p = self.check_params(params)
        c, s = p["c"], p["s"]
        others = _others(int(s))
        pairs = ", ".join(f"{i}: ({u},{v})" for i, (u, v) in enumerate(PAIRS))
        return (
            describe_inputs(self.n)
            + f"Consider an undirected graph on the 5 nodes 0, 1, 2, 3, 4. Let c = {c} (10 "
            f"characters; c_i is character i). Bit i stands for the pair of nodes number i in "
            f"this list: {pairs}; that pair is joined by an edge iff x_i XOR c_i = 1 (x_i and "
            f"c_i differ). Let s = {s} and let o_0, o_1, o_2, o_3 = "
            f"{', '.join(map(str, others))} be the other nodes in increasing order. "
            f"Output: a string of 4 characters '0'/'1'; character j is 1 iff node o_j can be "
            f"reached from node {s} by a path of one or more edges, and 0 otherwise."
        )
