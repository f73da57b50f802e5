"""Kearns-Vazirani: a discrimination tree with Rivest-Schapire counterexample analysis.

Leaves of the tree are hypothesis states (each with an access word), inner nodes carry
discriminators (suffixes); the root's is the empty word, so a state's side under the
root is its acceptance. Sifting a word walks from the root asking ``word + discriminator``.
Each transition ``(q, a)`` is the leaf ``access(q) + a`` sifts to; a sift that falls into the
root's still-empty side discovers a state. Access words form a spanning tree (each is a
parent's access plus one letter), so every hypothesis is accessible.

A counterexample ``w`` with run ``q_0 .. q_m`` is decomposed ``u a v`` by binary search on
``alpha(i) = MQ(access(q_i) + w[i:])``: then ``v`` separates ``access(q_i) + a`` from
``access(q_{i+1})``, and the leaf of ``q_{i+1}`` is split by ``v`` into the old state and a
new one with access ``access(q_i) + a``. Transitions into the split leaf are re-sifted
through ``v`` (one query each), the new state's from the root. One new state per analysis;
as in AALpy, a counterexample is analysed again while the hypothesis still gets it wrong.
"""

from __future__ import annotations

from collections import deque

from blackboxes.automata.dfa import DFA
from blackboxes.automata.learners._common import Teacher, rs_breakpoint
from blackboxes.automata.oracle import Oracle


class _Node:
    __slots__ = ("children", "disc", "incoming", "state")

    def __init__(self) -> None:
        self.disc: str | None = None  # None for a leaf
        self.children: list[_Node] = []  # [false side, true side] for inner nodes
        self.state: int | None = None  # the leaf's state, None while undiscovered
        self.incoming: set[int] = set()  # transitions (q * k + a) ending at this leaf


class _KV:
    def __init__(self, oracle: Oracle) -> None:
        self.teacher = Teacher(oracle)
        self.alphabet = self.teacher.alphabet
        self.k = len(self.alphabet)
        self.root = _Node()
        self.root.disc = ""
        self.root.children = [_Node(), _Node()]
        self.access: list[str] = []
        self.leaf: list[_Node] = []
        self.accepting: list[bool] = []
        self.target: list[int] = []  # per transition q * k + a
        self.pending: deque[int] = deque()
        self.index = {a: i for i, a in enumerate(self.alphabet)}

    def sift(self, word: str, node: _Node) -> _Node:
        mq = self.teacher.mq
        while node.disc is not None:
            node = node.children[mq(word + node.disc)]
        return node

    def new_state(self, leaf: _Node, access: str, accepting: bool) -> int:
        q = len(self.access)
        self.access.append(access)
        self.leaf.append(leaf)
        self.accepting.append(accepting)
        leaf.state = q
        self.target.extend([-1] * self.k)
        self.pending.extend(range(q * self.k, (q + 1) * self.k))
        return q

    def close(self) -> None:
        while self.pending:
            t = self.pending.popleft()
            word = self.access[t // self.k] + self.alphabet[t % self.k]
            leaf = self.sift(word, self.root)
            if leaf.state is None:
                self.new_state(leaf, word, leaf is self.root.children[1])
            self.target[t] = leaf.state  # type: ignore[assignment]
            leaf.incoming.add(t)

    def hypothesis(self) -> DFA:
        k, target = self.k, self.target
        delta = tuple(tuple(target[q * k : (q + 1) * k]) for q in range(len(self.access)))
        # Complete by construction: every transition is closed before an EQ.
        return DFA.unchecked(self.alphabet, delta, tuple(self.accepting), 0)

    def states_along(self, word: str) -> list[int]:
        """The hypothesis run on ``word``, read off the transition table (no DFA built)."""
        k, target, index = self.k, self.target, self.index
        run = [0]
        q = 0
        for c in word:
            q = target[q * k + index[c]]
            run.append(q)
        return run

    def run(self) -> DFA:
        self.new_state(self.sift("", self.root), "", self.teacher.mq(""))
        self.close()
        while True:
            hyp = self.hypothesis()
            answer = self.teacher.eq(hyp)
            if answer is None:
                return hyp.canonical()
            word, label = answer
            while self.accepting[self.states_along(word)[-1]] != label:
                self.split(word, label)
                self.close()

    def split(self, word: str, label: bool) -> None:
        run = self.states_along(word)
        access, mq = self.access, self.teacher.mq

        def alpha(i: int) -> bool:
            return mq(access[run[i]] + word[i:])

        i = rs_breakpoint(alpha, len(word), label)
        t = run[i] * self.k + self.index[word[i]]
        suffix = word[i + 1 :]
        old = run[i + 1]
        node = self.leaf[old]
        # alpha(i) == label for the new access word, alpha(i + 1) != label for the old one.
        old_leaf, new_leaf = _Node(), _Node()
        old_leaf.state = old
        self.leaf[old] = old_leaf
        node.disc, node.state = suffix, None
        node.children = [new_leaf, old_leaf] if not label else [old_leaf, new_leaf]
        incoming = node.incoming
        node.incoming = set()
        incoming.discard(t)
        q = self.new_state(new_leaf, access[run[i]] + word[i], self.accepting[old])
        self.target[t] = q
        new_leaf.incoming.add(t)
        for t2 in incoming:
            word2 = access[t2 // self.k] + self.alphabet[t2 % self.k]
            leaf = node.children[mq(word2 + suffix)]
            self.target[t2] = leaf.state  # type: ignore[assignment]
            leaf.incoming.add(t2)


def kv(oracle: Oracle) -> DFA:
    """Learn the oracle's language with Kearns-Vazirani (Rivest-Schapire analysis).

    Returns the accepted hypothesis, minimal and in canonical form.
    """
    return _KV(oracle).run()
