"""Baseline DFA agents: the classic learners ``lstar``, ``kv`` and ``ttt``, and the
feedback-blind ``random`` and ``fixed``.

Each learner runs the learner of the same name (:data:`blackboxes.automata.learners.LEARNERS`) on
an oracle backed by the episode's environment. The adapter keeps a word cache, so a word
is never sent twice, and labels each EQ witness for free (the target disagrees with the
hypothesis there), exactly as the box's own baseline run counts. Hence on a box from the
generator an agent's cost equals the box's recorded baseline cost for that learner, and
the learners stay correct under any counterexample policy.

``random`` and ``fixed`` (the exploration tiers' baselines 1 and 2) choose their membership
queries before seeing any answer: ``random`` draws distinct words from the episode's
seeded rng (lengths uniform in 0..:data:`RANDOM_MAX_LEN`, letters uniform, as the DFA
family's random queries), ``fixed`` asks every word in shortlex order. Counted step ``s``
is an equivalence query when ``s`` is a multiple of ``EQ_EVERY + 1`` or the last of the
budget, else a membership query: the schedule depends on the budget only. Each EQ
proposes RPNI's DFA (:func:`blackboxes.automata.passive.rpni`) from all the evidence so
far, MQ answers and EQ witnesses (labelled against the hypothesis they refuted); witnesses
never change which words are asked, so replaying a job against another target of the
same budget asks the same words (until one of the two episodes succeeds).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from blackboxes.automata.dfa import DFA
from blackboxes.automata.learners import LEARNERS
from blackboxes.automata.oracle import CountedOracle
from blackboxes.automata.passive import rpni
from evaluator.kinds.dfa.protocol import DfaAgentContext, DfaEnvironment, register_dfa_agent

__all__ = [
    "EQ_EVERY",
    "RANDOM_MAX_LEN",
    "EnvironmentOracle",
    "FixedAgent",
    "KvAgent",
    "LearnerAgent",
    "LstarAgent",
    "PassiveAgent",
    "RandomAgent",
    "TttAgent",
]

EQ_EVERY = 8
"""``random`` and ``fixed`` make an equivalence query after every this many MQs."""
RANDOM_MAX_LEN = 12
"""``random``'s words have lengths uniform in 0..this (the DFA family's random queries)."""
_REDRAWS = 1000
"""Draws ``random`` makes for a word it has not asked yet before it repeats one."""


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


class PassiveAgent:
    """Asks the words of :meth:`words` on a fixed schedule and proposes RPNI's DFA at
    every equivalence query (see the module docstring); subclasses choose the words."""

    def __init__(self, ctx: DfaAgentContext) -> None:
        self.ctx = ctx
        self._eqs = 0
        self._mqs = 0

    def words(self) -> Iterator[str]:
        """The membership queries, in order; drawn without looking at any answer."""
        raise NotImplementedError

    def play(self, env: DfaEnvironment) -> None:
        evidence: dict[str, bool] = {}
        words = self.words()
        while env.remaining > 0:
            step = env.used + 1
            if step % (EQ_EVERY + 1) == 0 or step == env.budget:
                hypothesis = rpni(evidence, env.alphabet)
                self._eqs += 1
                witness = env.equivalence(hypothesis)
                if witness is None:
                    return
                evidence[witness] = not hypothesis.accepts(witness)
            else:
                word = next(words)
                self._mqs += 1
                evidence[word] = env.membership(word)

    def notes(self) -> list[str]:
        return [f"{self._mqs} membership and {self._eqs} equivalence queries on a fixed schedule"]


@register_dfa_agent("random")
class RandomAgent(PassiveAgent):
    """Distinct random words from the episode's seeded rng (tier-1 baseline)."""

    def words(self) -> Iterator[str]:
        rng, alphabet = self.ctx.rng, self.ctx.alphabet
        asked: set[str] = set()
        while True:
            for _ in range(_REDRAWS):
                word = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, RANDOM_MAX_LEN)))
                if word not in asked:
                    break
            asked.add(word)
            yield word


@register_dfa_agent("fixed")
class FixedAgent(PassiveAgent):
    """Every word in shortlex order, shortest first (tier-2 baseline)."""

    def words(self) -> Iterator[str]:
        layer = [""]
        while True:
            yield from layer
            layer = [w + a for w in layer for a in self.ctx.alphabet]
