"""Angluin's L* with Rivest-Schapire counterexample processing.

The observation table has rows ``S`` (access words, prefix-closed: every word added to
``S`` is some ``s + a`` with ``s`` in ``S``) and ``S.A``, and columns ``E`` (suffixes; ``E``
starts as ``[""]`` and is NOT suffix-closed: each counterexample adds the single suffix the
Rivest-Schapire search finds, as AALpy's ``cex_processing='rs'``). A cell ``T(u, e)`` is one
membership bit, the label of ``u + e``.

- Closedness: every ``S.A`` row equals some ``S`` row. Unclosed rows are moved to ``S``
  shortest first, one representative per distinct row value.
- Consistency: two ``S`` rows that are equal must stay equal after each letter. With
  Rivest-Schapire processing ``S`` rows are pairwise distinct, so the check never fires,
  but it is kept for safety.
- A counterexample ``w`` with hypothesis run ``q_0 .. q_m`` gives
  ``alpha(i) = T(access(q_i) + w[i:])``; ``alpha(0)`` is ``w``'s label and ``alpha(m)`` the
  hypothesis's, which differ. A breakpoint ``i`` makes ``w[i+1:]`` separate
  ``access(q_i) + w[i]`` from ``access(q_{i+1})``: once it is in ``E`` that row is unclosed
  and a new state appears. A counterexample is reused until the hypothesis agrees with it.
"""

from __future__ import annotations

from blackboxes.automata.dfa import DFA
from blackboxes.automata.learners._common import Teacher, rs_breakpoint
from blackboxes.automata.oracle import Oracle


class _Table:
    def __init__(self, teacher: Teacher) -> None:
        self.teacher = teacher
        self.alphabet = teacher.alphabet
        self.S: list[str] = []
        self.in_s: set[str] = set()
        self.E: list[str] = [""]
        # Row of a word of S or S.A as a bit mask: bit j is T(word, E[j]).
        self.rows: dict[str, int] = {}

    def add_row(self, word: str) -> None:
        if word in self.rows:
            return
        mq = self.teacher.mq
        row = 0
        for j, e in enumerate(self.E):
            if mq(word + e):
                row |= 1 << j
        self.rows[word] = row

    def add_to_s(self, word: str) -> None:
        self.S.append(word)
        self.in_s.add(word)
        self.add_row(word)
        for a in self.alphabet:
            self.add_row(word + a)

    def add_suffix(self, suffix: str) -> None:
        j = len(self.E)
        self.E.append(suffix)
        mq = self.teacher.mq
        bit = 1 << j
        # Every row word (S and S.A) gets the new column.
        for word in self.rows:
            if mq(word + suffix):
                self.rows[word] |= bit

    def close(self) -> None:
        while True:
            known = {self.rows[s] for s in self.S}
            unclosed: dict[int, str] = {}
            for s in self.S:
                for a in self.alphabet:
                    w = s + a
                    if w in self.in_s:
                        continue
                    r = self.rows[w]
                    if r in known:
                        continue
                    best = unclosed.get(r)
                    if best is None or len(w) < len(best):
                        unclosed[r] = w
            if not unclosed:
                return
            for w in sorted(unclosed.values(), key=len):
                self.add_to_s(w)

    def inconsistency(self) -> str | None:
        """A suffix ``a + e`` separating two equal ``S`` rows, or None if consistent."""
        first: dict[int, str] = {}
        for s in self.S:
            other = first.setdefault(self.rows[s], s)
            if other == s:
                continue
            for a in self.alphabet:
                diff = self.rows[s + a] ^ self.rows[other + a]
                if diff:
                    j = (diff & -diff).bit_length() - 1
                    return a + self.E[j]
        return None

    def hypothesis(self) -> DFA:
        state = {self.rows[s]: q for q, s in enumerate(self.S)}
        delta = tuple(tuple(state[self.rows[s + a]] for a in self.alphabet) for s in self.S)
        accepting = tuple(bool(self.rows[s] & 1) for s in self.S)
        return DFA(self.alphabet, delta, accepting, 0)


def lstar(oracle: Oracle) -> DFA:
    """Learn the oracle's language with Angluin's L* (Rivest-Schapire suffixes).

    Returns the accepted hypothesis, minimal and in canonical form.
    """
    teacher = Teacher(oracle)
    table = _Table(teacher)
    table.add_to_s("")
    while True:
        while True:
            table.close()
            suffix = table.inconsistency()
            if suffix is None:
                break
            table.add_suffix(suffix)
        hyp = table.hypothesis()
        answer = teacher.eq(hyp)
        if answer is None:
            return hyp.canonical()
        word, label = answer
        while hyp.accepts(word) != label:
            _process(table, hyp, word, label)
            table.close()
            while (suffix := table.inconsistency()) is not None:
                table.add_suffix(suffix)
                table.close()
            hyp = table.hypothesis()


def _process(table: _Table, hyp: DFA, word: str, label: bool) -> None:
    """Add the Rivest-Schapire suffix of the counterexample ``word`` to ``E``."""
    run = [hyp.start]
    for i in hyp.letters(word):
        run.append(hyp.delta[run[-1]][i])
    access = table.S
    mq = table.teacher.mq

    def alpha(i: int) -> bool:
        return mq(access[run[i]] + word[i:])

    i = rs_breakpoint(alpha, len(word), label)
    suffix = word[i + 1 :]
    if suffix in table.E:  # pragma: no cover - would contradict the search
        raise AssertionError("Rivest-Schapire suffix already in E")
    table.add_suffix(suffix)
