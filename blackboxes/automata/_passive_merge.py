"""The red-blue state-merging machinery shared by the passive learners.

The augmented prefix tree acceptor (APTA) has one node per prefix of a sample word,
numbered in shortlex order of the prefixes (alphabet order, not character order), and
labels True / False on the sample words, None elsewhere. Merging works on that tree in
place: ``trans[x][a]`` is the successor of the state represented by node ``x`` (-1 if
none), ``label[x]`` its label. Red nodes are the kept states; blue nodes are the
non-red children of red nodes. Every non-red node heads a plain subtree of the APTA
with a single parent, which is what makes the fold below simple.

Every change is written to an undo log, so a trial merge (for scoring or a consistency
test) costs the size of the folded subtree, never a copy of the tree.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from blackboxes.automata.dfa import DFA, letter_index

__all__ = ["RedBlue"]

_LABEL = 0
_TRANS = 1


class RedBlue:
    """A red-blue merging session over the APTA of one sample."""

    def __init__(self, sample: Mapping[str, bool], alphabet: Sequence[str]) -> None:
        self.alphabet = tuple(alphabet)
        index = letter_index(self.alphabet)
        if len(index) != len(self.alphabet):
            raise ValueError("the alphabet has a repeated letter")
        prefixes: set[tuple[int, ...]] = {()}
        coded: list[tuple[tuple[int, ...], bool]] = []
        for word, label in sample.items():
            try:
                letters = tuple(index[c] for c in word)
            except KeyError as exc:
                raise ValueError(
                    f"sample word {word!r} has letter {exc.args[0]!r} outside the alphabet"
                ) from None
            coded.append((letters, bool(label)))
            prefixes.update(letters[:i] for i in range(len(letters)))
            prefixes.add(letters)
        order = sorted(prefixes, key=lambda p: (len(p), p))
        node = {p: i for i, p in enumerate(order)}
        k = len(self.alphabet)
        self.trans: list[list[int]] = [[-1] * k for _ in order]
        for p, i in node.items():
            if p:
                self.trans[node[p[:-1]]][p[-1]] = i
        self.label: list[bool | None] = [None] * len(order)
        for letters, label in coded:
            self.label[node[letters]] = label
        self.red: list[int] = [0]
        self._red_set = {0}
        self._log: list[tuple[int, int, int, int | bool | None]] = []

    # -- the fringe -------------------------------------------------------------
    def blues(self) -> list[tuple[int, int, int]]:
        """(blue node, red parent, letter) for every blue node, in shortlex order."""
        found = []
        for r in self.red:
            for a, c in enumerate(self.trans[r]):
                if c >= 0 and c not in self._red_set:
                    found.append((c, r, a))
        found.sort()
        return found

    def reds_in_order(self) -> list[int]:
        """Red nodes in shortlex order of their access prefixes."""
        return sorted(self.red)

    def promote(self, blue: int) -> None:
        self.red.append(blue)
        self._red_set.add(blue)

    # -- merging ----------------------------------------------------------------
    def merge(self, red: int, blue: tuple[int, int, int]) -> int | None:
        """Merge ``blue`` into ``red`` and fold its subtree in.

        Returns the evidence (how many labelled blue-subtree nodes landed on a state
        with the same label), or None on a label conflict, in which case nothing has
        changed. A successful merge stays applied until :meth:`undo`.
        """
        node, parent, letter = blue
        log = self._log
        log.clear()
        trans, label = self.trans, self.label
        log.append((_TRANS, parent, letter, trans[parent][letter]))
        trans[parent][letter] = red
        k = len(self.alphabet)
        evidence = 0
        # A depth-first fold, letters in alphabet order, each pair's first letter fully
        # folded before its next letter is looked at (the recursive fold, without the
        # recursion limit). The order decides which subtree is adopted when two reach
        # one missing transition, and with it the names of later blue nodes.
        stack: list[list[int]] = []
        x, y = red, node
        while True:
            ly = label[y]
            if ly is not None:
                lx = label[x]
                if lx is None:
                    log.append((_LABEL, x, 0, None))
                    label[x] = ly
                elif lx == ly:
                    evidence += 1
                else:
                    self.undo()
                    return None
            stack.append([x, y, 0])
            x = -1
            while stack and x < 0:
                frame = stack[-1]
                fx, fy, a = frame
                ty = trans[fy]
                while a < k and ty[a] < 0:
                    a += 1
                if a == k:
                    stack.pop()
                    continue
                frame[2] = a + 1
                cy, cx = ty[a], trans[fx][a]
                if cx < 0:
                    # fx has no successor on a: adopt fy's whole subtree there.
                    log.append((_TRANS, fx, a, -1))
                    trans[fx][a] = cy
                else:
                    x, y = cx, cy
            if x < 0:
                return evidence

    def undo(self) -> None:
        """Revert the last merge."""
        trans, label = self.trans, self.label
        for kind, x, a, old in reversed(self._log):
            if kind == _LABEL:
                label[x] = old  # type: ignore[assignment]
            else:
                trans[x][a] = old  # type: ignore[assignment]
        self._log.clear()

    def commit(self) -> None:
        """Keep the last merge."""
        self._log.clear()

    # -- result -----------------------------------------------------------------
    def to_dfa(self) -> DFA:
        """The red states as a complete DFA, minimised and canonical.

        Missing transitions go to a rejecting sink; unlabelled red states reject.
        """
        ids = {r: i for i, r in enumerate(sorted(self.red))}
        sink = len(ids)
        k = len(self.alphabet)
        delta = [[sink] * k for _ in range(sink + 1)]
        accepting = [False] * (sink + 1)
        for r, i in ids.items():
            accepting[i] = self.label[r] is True
            for a, c in enumerate(self.trans[r]):
                if c >= 0:
                    delta[i][a] = ids[c]
        return DFA.build(self.alphabet, delta, accepting, ids[0]).minimise()
