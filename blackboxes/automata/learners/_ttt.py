"""TTT (Isberner, Howar, Steffen, RV 2014) for DFAs.

Data structures:

- a spanning-tree hypothesis: each state has an access word; its incoming *tree* transition
  is the one that discovered it (``access = parent's access + letter``), every other
  transition is a *non-tree* transition pointing at a node of the discrimination tree;
- a discrimination tree whose inner nodes carry a discriminator marked *temporary* or
  *final*. The root's discriminator is the empty word (final), so a state's side under the
  root is its acceptance. A *block* is a maximal subtree under a temporary node (its
  *block root*); every inner node below a temporary node is temporary too.

Non-tree transitions are sifted *softly*: through final nodes only, stopping at a leaf or
at the first temporary node. The hypothesis then reads such a transition as pointing at any
state of that subtree; the learner sifts it *hard* (through temporary nodes too) only where a
counterexample analysis needs a definite successor.

A refinement handles an *output inconsistency* ``(state q, suffix w, label o)``: the target
labels ``access(q) + w`` with ``o`` but the hypothesis says ``not o`` from ``q``. A
counterexample ``w`` is the inconsistency ``(start, w, label)``. Steps:

1. Rivest-Schapire: binary search on ``alpha(i) = MQ(access(q_i) + w[i:])`` along the
   (hard-sifted) run finds ``w = u a v`` where ``v`` separates ``access(q_u) + a`` from the
   state the non-tree transition ``(q_u, a)`` reaches. That leaf is split by ``v``, a
   *temporary* discriminator (it can be long), and the transition becomes the tree
   transition of the new state.
2. Close: the new state's transitions are soft-sifted from the root; a sift into the
   root's empty side discovers a state.
3. Discriminator finalisation, repeated while possible: for a block and a letter ``a``, if
   the ``a``-successors of the block's states have a lowest common ancestor that is a
   final inner node with discriminator ``v'``, then ``a v'`` splits the block. The states'
   labels for ``a v'`` are read off the tree (no query: each successor's side under ``v'``
   is known); non-tree transitions into the block are asked ``word + a v'`` once. The block
   root takes the final discriminator ``a v'`` and two reduced copies of the old block
   (one per label) hang below it; an empty copy that a transition needs becomes a new
   state. Final discriminators therefore stay short: each is a letter plus another final
   discriminator, so the final ones form a suffix-closed set.
4. Stabilisation: every state is checked against the temporary discriminators above it
   (final ones are consistent by construction); the shortest inconsistency found is
   handled from step 1. When there is none, no temporary discriminator is left: with a
   stable hypothesis some block always has a final splitter.

The counterexample is then re-checked and reused until the hypothesis agrees with it;
only then is the next equivalence query asked. Every refinement adds a state, so there
are at most n equivalence queries for an n-state target.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from blackboxes.automata.dfa import DFA
from blackboxes.automata.learners._common import Teacher, rs_breakpoint
from blackboxes.automata.oracle import Oracle


class _Node:
    __slots__ = (
        "accept",
        "children",
        "depth",
        "disc",
        "incoming",
        "label",
        "mark",
        "parent",
        "state",
        "temp",
    )

    def __init__(self, parent: _Node | None, label: bool) -> None:
        self.parent = parent
        self.label = label  # the side of the parent this node hangs on
        # Nodes are never moved, so depth and the side under the root (the acceptance
        # of the states below) are fixed when a node is made.
        self.depth: int = 0 if parent is None else parent.depth + 1
        self.accept: bool = label if parent is None or parent.parent is None else parent.accept
        self.disc: str | None = None  # None for a leaf
        self.temp = False
        self.children: list[_Node] = []  # [false side, true side] for inner nodes
        self.state: int | None = None  # a leaf's state; None only while undiscovered
        self.incoming: set[int] = set()  # non-tree transitions pointing here
        self.mark = 0  # scratch during finalisation: bit 1 = label False, bit 2 = True


@dataclass
class TTTStats:
    """What one run did (a debugging hook for tests and benchmarks)."""

    temporary: int = 0
    """Temporary discriminators introduced (one per state split)."""
    finalised: int = 0
    """Block roots whose temporary discriminator was replaced by a final one."""
    restructured: int = 0
    """Finalisations that had to split a block (the rest only relabelled its root)."""
    extracted_states: int = 0
    """States discovered while splitting a block (a transition needed an empty copy)."""
    inconsistencies: int = 0
    """Output inconsistencies analysed during stabilisation (counterexamples excluded)."""
    hard_sifts: int = 0
    """Transitions sifted through temporary nodes for a counterexample analysis."""


class TTTLearner:
    """One TTT run over an oracle; :func:`ttt` is the plain-function entry point.

    ``stats`` counts what happened; ``trace``, if a list, receives one line per event.
    """

    def __init__(self, oracle: Oracle, trace: list[str] | None = None) -> None:
        self.teacher = Teacher(oracle)
        self.alphabet = self.teacher.alphabet
        self.k = len(self.alphabet)
        self.index = {a: i for i, a in enumerate(self.alphabet)}
        self.stats = TTTStats()
        self.trace = trace
        self.root = _Node(None, False)
        self.root.disc = ""
        self.root.children = [_Node(self.root, False), _Node(self.root, True)]
        self.access: list[str] = []
        self.leaf: list[_Node] = []
        self.accepting: list[bool] = []
        self.tree_target: list[int] = []  # per transition q * k + a; -1 if non-tree
        # The node a non-tree transition points at; a tree transition points at `tree`,
        # a node outside the discrimination tree (never None: fewer checks on hot paths).
        self.tree = _Node(None, False)
        self.tree.state = -1
        self.node_of: list[_Node] = []
        self.open: deque[int] = deque()
        self.blocks: list[_Node] = []  # block roots, oldest first

    # -- public -----------------------------------------------------------------------
    def run(self) -> DFA:
        """Learn until an equivalence query succeeds; the result is in canonical form."""
        self._new_state(self._sift(self.root, "", hard=False), "", None)
        self._close()
        while True:
            hyp = self._hypothesis()
            answer = self.teacher.eq(hyp)
            if answer is None:
                return hyp.canonical()
            word, label = answer
            while self._output(0, word) != label:
                self._refine(word, label)

    def discriminators(self) -> list[tuple[str, bool]]:
        """Every inner node's ``(discriminator, is_final)``, preorder."""
        out: list[tuple[str, bool]] = []
        stack = [self.root]
        while stack:
            node = stack.pop()
            if node.disc is not None:
                out.append((node.disc, not node.temp))
                stack.extend(reversed(node.children))
        return out

    # -- basics -----------------------------------------------------------------------
    def _word(self, t: int) -> str:
        return self.access[t // self.k] + self.alphabet[t % self.k]

    def _sift(self, node: _Node, word: str, hard: bool) -> _Node:
        mq = self.teacher.mq
        while node.disc is not None and (hard or not node.temp):
            node = node.children[mq(word + node.disc)]
        return node

    def _new_state(self, leaf: _Node, access: str, via: int | None) -> int:
        """A state at ``leaf``; ``via`` (if any) becomes its incoming tree transition."""
        q = len(self.access)
        self.access.append(access)
        self.leaf.append(leaf)
        leaf.state = q
        self.accepting.append(leaf.accept)
        if via is not None:
            self.node_of[via].incoming.discard(via)
            self.node_of[via] = self.tree
            self.tree_target[via] = q
        for t in range(q * self.k, (q + 1) * self.k):
            self.tree_target.append(-1)
            self.node_of.append(self.root)
            self.root.incoming.add(t)
            self.open.append(t)
        return q

    def _close(self) -> None:
        """Soft-sift the open transitions; a sift into an empty leaf discovers a state."""
        k, alphabet, access, mq = self.k, self.alphabet, self.access, self.teacher.mq
        while self.open:
            t = self.open.popleft()
            node = self.node_of[t]
            if node is self.tree:  # became a tree transition meanwhile
                continue
            word = access[t // k] + alphabet[t % k]
            target = node  # _sift(node, word, hard=False), inlined
            while target.disc is not None and not target.temp:
                target = target.children[mq(word + target.disc)]
            if target is node:
                continue
            node.incoming.discard(t)
            if target.disc is None and target.state is None:
                self._new_state(target, word, t)
            else:
                self.node_of[t] = target
                target.incoming.add(t)

    @staticmethod
    def _any_state(node: _Node) -> int:
        stack = [node]
        while stack:
            cur = stack.pop()
            if cur.disc is None:
                if cur.state is not None:
                    return cur.state
            else:
                stack.extend(reversed(cur.children))
        raise AssertionError("a subtree without states")  # pragma: no cover

    def _succ(self, q: int, a: int) -> int:
        """The hypothesis successor, reading a soft transition as any state below it."""
        t = q * self.k + a
        target = self.tree_target[t]
        if target >= 0:
            return target
        node = self.node_of[t]
        return node.state if node.disc is None else self._any_state(node)  # type: ignore[return-value]

    def _succ_hard(self, q: int, a: int) -> int:
        """The successor after sifting the transition down to a leaf."""
        t = q * self.k + a
        target = self.tree_target[t]
        if target >= 0:
            return target
        node = self.node_of[t]
        if node.disc is None:
            return node.state  # type: ignore[return-value]
        self.stats.hard_sifts += 1
        leaf = self._sift(node, self._word(t), hard=True)
        node.incoming.discard(t)
        if leaf.state is None:  # pragma: no cover - blocks never hold empty leaves
            return self._new_state(leaf, self._word(t), t)
        self.node_of[t] = leaf
        leaf.incoming.add(t)
        return leaf.state

    def _output(self, q: int, word: str) -> bool:
        k, index, tree_target, node_of = self.k, self.index, self.tree_target, self.node_of
        for c in word:
            # _succ, inlined for tree transitions and leaves (the common cases).
            a = index[c]
            target = tree_target[q * k + a]
            if target < 0:
                node = node_of[q * k + a]
                target = node.state if node.disc is None else self._succ(q, a)  # type: ignore[assignment]
            q = target
        return self.accepting[q]

    def _hypothesis(self) -> DFA:
        flat = [
            target if target >= 0 else node.state
            for target, node in zip(self.tree_target, self.node_of, strict=True)
        ]
        # An inner node or an undiscovered leaf has no state: an open transition.
        if None in flat:
            raise AssertionError("an open transition in a stable hypothesis")
        k = self.k
        delta = tuple(zip(*(flat[a::k] for a in range(k)), strict=True))
        return DFA.unchecked(self.alphabet, delta, tuple(self.accepting), 0)

    # -- refinement -------------------------------------------------------------------
    def _refine(self, word: str, label: bool) -> None:
        incons: tuple[int, str, bool] | None = (0, word, label)
        while incons is not None:
            self._analyse(*incons)
            self._close()
            while self._finalise_any():
                self._close()
            incons = self._find_inconsistency()
            if incons is not None:
                self.stats.inconsistencies += 1
                if self.trace is not None:  # the line is built only when traced
                    self.trace.append(f"inconsistency: q{incons[0]} on {incons[1]!r}")
        if self.blocks:
            raise AssertionError("a temporary discriminator survived stabilisation")

    def _analyse(self, q: int, word: str, label: bool) -> None:
        """Rivest-Schapire on the inconsistency; splits a state unless the hard-sifted run
        already agrees with ``label`` (then only soft transitions were resolved)."""
        k, index, tree_target, node_of = self.k, self.index, self.tree_target, self.node_of
        run = [q]
        for c in word:
            # _succ_hard, inlined for tree transitions and leaves (the common cases).
            a = index[c]
            target = tree_target[q * k + a]
            if target < 0:
                node = node_of[q * k + a]
                target = node.state if node.disc is None else self._succ_hard(q, a)  # type: ignore[assignment]
            q = target
            run.append(q)
        if self.accepting[q] == label:
            return
        access, mq = self.access, self.teacher.mq

        def alpha(i: int) -> bool:
            return mq(access[run[i]] + word[i:])

        i = rs_breakpoint(alpha, len(word), label)
        t = run[i] * self.k + self.index[word[i]]
        self._split(t, word[i + 1 :], old_out=not label, new_out=label)

    def _split(self, t: int, disc: str, old_out: bool, new_out: bool) -> None:
        """Split the leaf non-tree transition ``t`` reaches by the temporary ``disc``."""
        node = self.node_of[t]
        assert node.state is not None and self.tree_target[t] < 0
        old = node.state
        node.incoming.discard(t)
        old_leaf, new_leaf = _Node(node, old_out), _Node(node, new_out)
        old_leaf.state = old
        self.leaf[old] = old_leaf
        node.disc, node.temp, node.state = disc, True, None
        node.children = [new_leaf, old_leaf] if old_out else [old_leaf, new_leaf]
        if not node.parent.temp:  # type: ignore[union-attr]
            self.blocks.append(node)
        # The leaf's other incoming transitions now end at the temporary node (soft).
        q = self._new_state(new_leaf, self._word(t), t)
        self.stats.temporary += 1
        if self.trace is not None:
            self.trace.append(f"split q{old} by temporary {disc!r}: new q{q} = {self.access[q]!r}")

    @staticmethod
    def _subtree(node: _Node) -> list[_Node]:
        """The nodes of a subtree, preorder."""
        out = []
        stack = [node]
        while stack:
            cur = stack.pop()
            out.append(cur)
            stack.extend(reversed(cur.children))
        return out

    def _succ_node(self, q: int, a: int) -> _Node:
        t = q * self.k + a
        target = self.tree_target[t]
        if target >= 0:
            return self.leaf[target]
        node = self.node_of[t]
        return node

    @staticmethod
    def _lca(x: _Node, y: _Node) -> _Node:
        while x.depth > y.depth:
            x = x.parent  # type: ignore[assignment]
        while y.depth > x.depth:
            y = y.parent  # type: ignore[assignment]
        while x is not y:
            x, y = x.parent, y.parent  # type: ignore[assignment]
        return x

    def _splitters(self, block: _Node) -> list[tuple[int, _Node]]:
        """Each letter ``a`` whose successors' lowest common ancestor is a final inner node,
        with that node: ``a`` plus its discriminator splits ``block``."""
        states = [n.state for n in self._subtree(block) if n.state is not None]
        found = []
        for a in range(self.k):
            lca = self._succ_node(states[0], a)
            for q in states[1:]:
                lca = self._lca(lca, self._succ_node(q, a))
            if lca.disc is not None and not lca.temp:
                found.append((a, lca))
        return found

    def _finalise_any(self) -> bool:
        """Finalise one block, if any has a final splitter; the shortest discriminator wins
        (over all blocks and letters, as LearnLib does)."""
        best: tuple[int, _Node, int, _Node] | None = None
        for block in self.blocks:
            for a, sep in self._splitters(block):
                size = 1 + len(sep.disc)  # type: ignore[arg-type]
                if best is None or size < best[0]:
                    best = (size, block, a, sep)
        if best is None:
            return False
        self._finalise(*best[1:])
        return True

    @staticmethod
    def _side(node: _Node, sep: _Node) -> bool:
        """The side of ``sep`` that its descendant ``node`` lies on."""
        while node.parent is not sep:
            node = node.parent  # type: ignore[assignment]
        return node.label

    def _finalise(self, block: _Node, a: int, sep: _Node) -> None:
        disc = self.alphabet[a] + sep.disc  # type: ignore[operator]
        old_disc = block.disc
        self.stats.finalised += 1
        block.temp = False
        self.blocks.remove(block)
        if block.disc == disc:
            # Already of the final form: the labels below are real queries; only the
            # soft transitions stopped at this node must now be sifted on through it.
            self.open.extend(block.incoming)
            self.blocks.extend(c for c in block.children if c.disc is not None)
            if self.trace is not None:
                self.trace.append(f"finalise {old_disc!r} as is")
            return
        self.stats.restructured += 1
        mq = self.teacher.mq
        nodes = self._subtree(block)
        state_label: dict[int, bool] = {}
        trans_label: dict[int, bool] = {}
        for node in nodes:
            mark = 0
            for t in node.incoming:
                out = trans_label[t] = mq(self._word(t) + disc)
                mark |= 2 if out else 1
            if node.disc is None:
                q = node.state
                assert q is not None
                # No query: the a-successor's side under the separator is known.
                out = state_label[q] = self._side(self._succ_node(q, a), sep)
                mark |= 2 if out else 1
            node.mark = mark
        for node in reversed(nodes):  # children before parents
            if node.parent is not None and node is not block:
                node.parent.mark |= node.mark
        children = [
            self._extract(block, False, state_label, trans_label),
            self._extract(block, True, state_label, trans_label),
        ]
        block.disc, block.children, block.incoming = disc, children, set()
        self.blocks.extend(c for c in children if c.disc is not None)
        if self.trace is not None:
            self.trace.append(f"finalise {old_disc!r} -> {disc!r}")

    def _extract(
        self,
        block: _Node,
        label: bool,
        state_label: dict[int, bool],
        trans_label: dict[int, bool],
    ) -> _Node:
        """The reduced copy of ``block``'s subtree keeping what has ``label``, hung below
        ``block`` on side ``label``. Inner nodes with one relevant child are skipped."""
        bit = 2 if label else 1
        first: _Node | None = None
        stack: list[tuple[_Node, _Node, bool]] = [(block, block, label)]
        while stack:
            orig, parent, side = stack.pop()
            moved = [t for t in orig.incoming if trans_label[t] == label]
            marked = [c for c in orig.children if c.mark & bit]
            while len(marked) == 1:
                orig = marked[0]
                moved.extend(t for t in orig.incoming if trans_label[t] == label)
                marked = [c for c in orig.children if c.mark & bit]
            copy = _Node(parent, side)
            if parent is block:
                first = copy
            else:
                parent.children[side] = copy
            for t in moved:
                self.node_of[t] = copy
                copy.incoming.add(t)
            if len(marked) == 2:
                copy.disc, copy.temp = orig.disc, True
                copy.children = [copy, copy]  # placeholders, replaced below
                stack.append((marked[1], copy, True))
                stack.append((marked[0], copy, False))
            elif orig.disc is None and state_label[orig.state] == label:  # type: ignore[index]
                copy.state = orig.state
                self.leaf[orig.state] = copy  # type: ignore[index]
            else:
                # Only transitions reach here: the shortest becomes a new state's tree edge.
                via = min(moved, key=lambda t: (len(self._word(t)), t))
                q = self._new_state(copy, self._word(via), via)
                self.stats.extracted_states += 1
                if self.trace is not None:
                    self.trace.append(f"new q{q} = {self.access[q]!r} while finalising")
        assert first is not None
        return first

    def _find_inconsistency(self) -> tuple[int, str, bool] | None:
        """The state and temporary discriminator (shortest first) whose tree label the
        hypothesis contradicts; final discriminators cannot be contradicted."""
        best: tuple[int, str, bool] | None = None
        for block in self.blocks:
            for leaf in self._subtree(block):
                if leaf.disc is not None:
                    continue
                q = leaf.state
                assert q is not None
                node = leaf
                while node is not block:
                    expected = node.label
                    node = node.parent  # type: ignore[assignment]
                    disc = node.disc
                    assert disc is not None
                    if best is not None and len(disc) >= len(best[1]):
                        continue
                    if self._output(q, disc) != expected:
                        best = (q, disc, expected)
        return best


def ttt(oracle: Oracle) -> DFA:
    """Learn the oracle's language with TTT (temporary discriminators, stabilisation and
    discriminator finalisation). Returns the accepted hypothesis, in canonical form."""
    return TTTLearner(oracle).run()
