"""Active DFA learners over a minimally adequate teacher: L*, Kearns-Vazirani and TTT.

Each learner is a plain function of an :class:`~blackboxes.automata.oracle.Oracle`: it asks
``oracle.mq(word)`` and ``oracle.eq(hypothesis)`` and returns the hypothesis the oracle
accepted, complete, minimal and in canonical form. They keep a private word cache (a word
is asked once) and treat an EQ witness's label as known; :func:`learn` wraps the oracle in
a :class:`~blackboxes.automata.oracle.CountedOracle` to count what they asked. Any exception
raised by the oracle propagates unchanged; the learners hold no global state.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from blackboxes.automata.dfa import DFA
from blackboxes.automata.learners._kv import kv
from blackboxes.automata.learners._lstar import lstar
from blackboxes.automata.learners._ttt import ttt
from blackboxes.automata.oracle import CountedOracle, Oracle
from oracle_bench.errors import UnknownNameError

__all__ = ["LEARNERS", "LearnResult", "kv", "learn", "lstar", "ttt"]

LEARNERS: dict[str, Callable[[Oracle], DFA]] = {"kv": kv, "lstar": lstar, "ttt": ttt}
"""The active learners by name, in sorted order."""


@dataclass(frozen=True)
class LearnResult:
    """A learner's final hypothesis and what it cost: distinct MQs and all EQs."""

    dfa: DFA
    mq: int
    eq: int

    @property
    def total(self) -> int:
        return self.mq + self.eq


def learn(name: str, oracle: Oracle) -> LearnResult:
    """Run the learner ``name`` on ``oracle`` through a :class:`CountedOracle`."""
    learner = LEARNERS.get(name)
    if learner is None:
        raise UnknownNameError("learner", name, list(LEARNERS))
    counted = CountedOracle(oracle)
    dfa = learner(counted)
    return LearnResult(dfa, counted.mq_count, counted.eq_count)
