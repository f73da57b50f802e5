"""Baseline DFA agents ``lstar``, ``kv`` and ``ttt``: the classic learners driving the tools.

Each runs the learner of the same name (:data:`blackboxes.automata.learners.LEARNERS`) on
an oracle backed by the episode's environment. The adapter keeps a word cache, so a word
is never sent twice, and labels each EQ witness for free (the target disagrees with the
hypothesis there), exactly as the box's own baseline run counts. Hence on a box from the
generator an agent's cost equals the box's recorded baseline cost for that learner, and
the learners stay correct under any counterexample policy.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from blackboxes.automata.dfa import DFA
from blackboxes.automata.learners import LEARNERS
from evaluator.dfa_protocol import DfaAgentContext, DfaEnvironment, register_dfa_agent

__all__ = ["EnvironmentOracle", "KvAgent", "LearnerAgent", "LstarAgent", "TttAgent"]


@dataclass
class EnvironmentOracle:
    """A learner's oracle over a :class:`DfaEnvironment`, with a word cache."""

    env: DfaEnvironment
    answers: dict[str, bool] = field(default_factory=dict)

    @property
    def alphabet(self) -> tuple[str, ...]:
        return self.env.alphabet

    def mq(self, word: str) -> bool:
        known = self.answers.get(word)
        if known is None:
            known = self.answers[word] = self.env.membership(word)
        return known

    def eq(self, hypothesis: DFA) -> str | None:
        witness = self.env.equivalence(hypothesis)
        if witness is not None:
            self.answers.setdefault(witness, not hypothesis.accepts(witness))
        return witness


class LearnerAgent:
    """Runs ``LEARNERS[learner]`` inside ``play``; the episode's end unwinds it."""

    learner: str = ""

    def __init__(self, ctx: DfaAgentContext) -> None:
        self.ctx = ctx
        self._notes: list[str] = []

    def play(self, env: DfaEnvironment) -> None:
        oracle = EnvironmentOracle(env)
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
