"""Baseline DFA agents ``lstar``, ``kv`` and ``ttt``: the classic learners driving the tools.

Each runs the learner of the same name (:data:`blackboxes.automata.learners.LEARNERS`) on
an oracle backed by the episode's environment. The adapter keeps a word cache, so a word
is never sent twice, and labels each EQ witness for free (the target disagrees with the
hypothesis there), exactly as the box's own baseline run counts. Hence on a box from the
generator an agent's cost equals the box's recorded baseline cost for that learner, and
the learners stay correct under any counterexample policy.
"""

from __future__ import annotations

from dataclasses import dataclass

from blackboxes.automata.dfa import DFA
from blackboxes.automata.learners import LEARNERS
from blackboxes.automata.oracle import CountedOracle
from evaluator.kinds.dfa.protocol import DfaAgentContext, DfaEnvironment, register_dfa_agent

__all__ = ["EnvironmentOracle", "KvAgent", "LearnerAgent", "LstarAgent", "TttAgent"]


@dataclass(frozen=True)
class EnvironmentOracle:
    """The episode's tools seen as an :class:`~blackboxes.automata.oracle.Oracle`.

    No cache here: agents wrap it in a ``CountedOracle``, the same cache the box's own
    baseline run used.
    """

    env: DfaEnvironment

    @property
    def alphabet(self) -> tuple[str, ...]:
        return self.env.alphabet

    def mq(self, word: str) -> bool:
        return self.env.membership(word)

    def eq(self, hypothesis: DFA) -> str | None:
        return self.env.equivalence(hypothesis)


class LearnerAgent:
    """Runs ``LEARNERS[learner]`` inside ``play``; the episode's end unwinds it."""

    learner: str = ""

    def __init__(self, ctx: DfaAgentContext) -> None:
        self.ctx = ctx
        self._notes: list[str] = []

    def play(self, env: DfaEnvironment) -> None:
        oracle = CountedOracle(EnvironmentOracle(env))
        result = LEARNERS[self.learner](oracle)
        self._notes.append(
            f"{self.learner}: final hypothesis has {result.n} states; "
            f"{len(oracle.answers)} word(s) labelled"
        )

    def notes(self) -> list[str]:
        return list(self._notes)


@register_dfa_agent("lstar")
class LstarAgent(LearnerAgent):
    """Angluin's L* (the box's ``lstar`` baseline)."""

    learner = "lstar"


@register_dfa_agent("kv")
class KvAgent(LearnerAgent):
    """Kearns-Vazirani (the box's ``kv`` baseline)."""

    learner = "kv"


@register_dfa_agent("ttt")
class TttAgent(LearnerAgent):
    """TTT (the box's ``ttt`` baseline)."""

    learner = "ttt"
