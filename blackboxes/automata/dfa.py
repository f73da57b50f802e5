"""Complete DFAs on plain arrays: running, minimising, comparing, enumerating words.

A :class:`DFA` is immutable. States are ``0..n-1``; ``delta[q][i]`` is the successor of
``q`` on ``alphabet[i]``; letters are single characters, so words are ``str``. Every
construction here returns a complete DFA; nothing is ever left partial.
"""

from __future__ import annotations

import hashlib
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = ["DFA", "letter_index"]


def letter_index(alphabet: Sequence[str]) -> dict[str, int]:
    return {a: i for i, a in enumerate(alphabet)}


@dataclass(frozen=True)
class DFA:
    """A complete deterministic finite automaton over single-character letters."""

    alphabet: tuple[str, ...]
    delta: tuple[tuple[int, ...], ...]
    accepting: tuple[bool, ...]
    start: int = 0
    _index: dict[str, int] = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        n, k = len(self.delta), len(self.alphabet)
        if n == 0:
            raise ValueError("a DFA needs at least one state")
        if k == 0 or any(len(a) != 1 for a in self.alphabet):
            raise ValueError("the alphabet must be non-empty single characters")
        if len(set(self.alphabet)) != k:
            raise ValueError("the alphabet has a repeated letter")
        if len(self.accepting) != n or not 0 <= self.start < n:
            raise ValueError("accepting flags or start state do not match the states")
        # min/max over the rows run in C: a DFA is built for every hypothesis.
        delta = self.delta
        if set(map(len, delta)) != {k} or min(map(min, delta)) < 0 or max(map(max, delta)) >= n:
            raise ValueError("every state needs one in-range successor per letter")
        object.__setattr__(self, "_index", letter_index(self.alphabet))

    # -- construction ---------------------------------------------------------
    @classmethod
    def build(
        cls,
        alphabet: Sequence[str],
        delta: Sequence[Sequence[int]],
        accepting: Sequence[bool] | Sequence[int],
        start: int = 0,
    ) -> DFA:
        """From lists; ``accepting`` may be flags or a list of accepting state ids."""
        n = len(delta)
        if len(accepting) == n and all(isinstance(x, bool) for x in accepting):
            flags = tuple(bool(x) for x in accepting)
        else:
            acc = {int(x) for x in accepting}
            flags = tuple(q in acc for q in range(n))
        return cls(tuple(alphabet), tuple(tuple(int(t) for t in r) for r in delta), flags, start)

    @classmethod
    def unchecked(
        cls,
        alphabet: tuple[str, ...],
        delta: tuple[tuple[int, ...], ...],
        accepting: tuple[bool, ...],
        start: int = 0,
    ) -> DFA:
        """The same DFA as the constructor, without its checks: for tables that are valid
        by construction (minimisation, the learners' hypotheses), where the checks would
        cost as much as the rest of the work."""
        dfa = object.__new__(cls)
        vars(dfa).update(
            alphabet=alphabet,
            delta=delta,
            accepting=accepting,
            start=start,
            _index=letter_index(alphabet),
        )
        return dfa

    @classmethod
    def universal(cls, alphabet: Sequence[str], accept: bool = True) -> DFA:
        """Sigma* (``accept=True``) or the empty language, with one state."""
        return cls(tuple(alphabet), ((0,) * len(alphabet),), (accept,))

    # -- basic facts ----------------------------------------------------------
    @property
    def n(self) -> int:
        return len(self.delta)

    @property
    def k(self) -> int:
        return len(self.alphabet)

    def letters(self, word: str) -> list[int]:
        """Letter indices of ``word``; ValueError names the first foreign letter."""
        try:
            return [self._index[c] for c in word]
        except KeyError as exc:
            raise ValueError(
                f"letter {exc.args[0]!r} is not in the alphabet {''.join(self.alphabet)!r}"
            ) from None

    def run(self, word: str, state: int | None = None) -> int:
        q = self.start if state is None else state
        delta = self.delta
        for i in self.letters(word):
            q = delta[q][i]
        return q

    def accepts(self, word: str) -> bool:
        return self.accepting[self.run(word)]

    __call__ = accepts

    # -- structure ------------------------------------------------------------
    def reachable_states(self) -> list[int]:
        """States reachable from the start, in BFS order (letters in alphabet order)."""
        seen = [False] * self.n
        seen[self.start] = True
        order = [self.start]
        for q in order:
            for t in self.delta[q]:
                if not seen[t]:
                    seen[t] = True
                    order.append(t)
        return order

    def canonical(self) -> DFA:
        """The accessible part, renumbered in BFS order from the start (start = 0).

        Two minimal DFAs accept the same language iff their canonical forms are equal.
        """
        order = self.reachable_states()
        new = {q: i for i, q in enumerate(order)}
        return DFA.unchecked(
            self.alphabet,
            tuple(tuple(new[t] for t in self.delta[q]) for q in order),
            tuple(self.accepting[q] for q in order),
            0,
        )

    def _classes(self) -> tuple[list[int], int]:
        """Nerode classes of the accessible states: (class per state or -1, class count).

        Moore refinement by signatures; it stops when a round splits nothing, or when
        every accessible state is alone in its class.
        """
        order = self.reachable_states()
        cls = [-1] * self.n
        side = self.accepting[self.start]  # numbered densely: the start's side is 0
        for q in order:
            cls[q] = 0 if self.accepting[q] == side else 1
        count = len({cls[q] for q in order})
        rows = [(q, self.delta[q]) for q in order]
        while count < len(order):
            get = cls.__getitem__
            ids: dict[tuple[int, ...], int] = {}
            new = [-1] * self.n
            for q, row in rows:
                new[q] = ids.setdefault((cls[q], *map(get, row)), len(ids))
            if len(ids) == count:
                break
            cls, count = new, len(ids)
        return cls, count

    def minimise(self) -> DFA:
        """The minimal complete DFA of the same language, in canonical form."""
        return self._minimal

    @cached_property
    def _minimal(self) -> DFA:
        # Cached: the oracle, the metrics and the fingerprint all minimise the same
        # hypothesis, and a DFA never changes.
        cls, count = self._classes()
        member = [0] * count  # one state per class: its successors stand for the class
        for q in reversed(self.reachable_states()):
            member[cls[q]] = q
        # The class automaton renumbered breadth-first from the start: canonical form.
        first = cls[self.start]
        rename = {first: 0}
        queue = [first]
        delta: list[tuple[int, ...]] = []
        for c in queue:
            row = []
            for t in self.delta[member[c]]:
                d = cls[t]
                j = rename.get(d)
                if j is None:
                    j = rename[d] = len(queue)
                    queue.append(d)
                row.append(j)
            delta.append(tuple(row))
        accepting = tuple(self.accepting[member[c]] for c in queue)
        minimal = DFA.unchecked(self.alphabet, tuple(delta), accepting, 0)
        minimal.__dict__["_minimal"] = minimal  # already minimal and canonical
        return minimal

    def is_minimal(self) -> bool:
        """Every state reachable and no two states equivalent."""
        return len(self.reachable_states()) == self.n and self._classes()[1] == self.n

    @cached_property
    def arrays(self) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.bool_]]:
        """``delta`` (n x k) and ``accepting`` as numpy arrays, built once per DFA."""
        import numpy as np  # on use: command lines import this module and must start fast

        delta = np.array(self.delta, dtype=np.intp).reshape(self.n, self.k)
        return delta, np.array(self.accepting, dtype=np.bool_)

    @cached_property
    def fingerprint(self) -> str:
        """sha256 of the minimal canonical form: equal iff the languages are equal."""
        m = self.minimise()
        rows = ";".join(
            ("+" if m.accepting[q] else "-") + ",".join(map(str, m.delta[q])) for q in range(m.n)
        )
        return hashlib.sha256(f"{''.join(m.alphabet)}|{rows}".encode()).hexdigest()

    # -- products -------------------------------------------------------------
    def _check_alphabet(self, other: DFA) -> None:
        if self.alphabet != other.alphabet:
            raise ValueError(
                f"alphabets differ: {''.join(self.alphabet)!r} vs {''.join(other.alphabet)!r}"
            )

    def product(self, other: DFA, accept: Callable[[bool, bool], bool]) -> DFA:
        """The accessible product automaton; a pair accepts when ``accept(a, b)``."""
        self._check_alphabet(other)
        ids = {(self.start, other.start): 0}
        pairs = [(self.start, other.start)]
        delta: list[list[int]] = []
        for p, q in pairs:
            row = []
            for a in range(self.k):
                nxt = (self.delta[p][a], other.delta[q][a])
                j = ids.get(nxt)
                if j is None:
                    j = ids[nxt] = len(pairs)
                    pairs.append(nxt)
                row.append(j)
            delta.append(row)
        flags = [accept(self.accepting[p], other.accepting[q]) for p, q in pairs]
        return DFA.build(self.alphabet, delta, flags, 0)

    def symmetric_difference(self, other: DFA) -> DFA:
        """Accepts exactly the words on which the two DFAs disagree."""
        return self.product(other, lambda a, b: a != b)

    def intersection(self, other: DFA) -> DFA:
        return self.product(other, lambda a, b: a and b)

    def union(self, other: DFA) -> DFA:
        return self.product(other, lambda a, b: a or b)

    def complement(self) -> DFA:
        return DFA(self.alphabet, self.delta, tuple(not x for x in self.accepting), self.start)

    def distinguishing_word(self, other: DFA) -> str | None:
        """The shortest, then lexicographically first, word the two disagree on."""
        self._check_alphabet(other)
        start = (self.start, other.start)
        parent: dict[tuple[int, int], tuple[tuple[int, int], int] | None] = {start: None}
        queue = deque([start])
        while queue:
            p, q = pair = queue.popleft()
            if self.accepting[p] != other.accepting[q]:
                letters = []
                cur: tuple[int, int] | None = pair
                while cur is not None and parent[cur] is not None:
                    prev, a = parent[cur]  # type: ignore[misc]
                    letters.append(self.alphabet[a])
                    cur = prev
                return "".join(reversed(letters))
            for a in range(self.k):
                nxt = (self.delta[p][a], other.delta[q][a])
                if nxt not in parent:
                    parent[nxt] = (pair, a)
                    queue.append(nxt)
        return None

    def equivalent(self, other: DFA) -> bool:
        return self.distinguishing_word(other) is None

    # -- words ----------------------------------------------------------------
    def shortest_accepted(self) -> str | None:
        """The shortest, then lexicographically first, accepted word (None if empty)."""
        return self.distinguishing_word(DFA.universal(self.alphabet, accept=False))

    def accepted_counts(self, max_len: int) -> list[list[int]]:
        """``c[L][q]``: how many words of length L are accepted from state q (exact ints)."""
        counts = [[1 if f else 0 for f in self.accepting]]
        for _ in range(max_len):
            prev = counts[-1]
            counts.append([sum(prev[t] for t in row) for row in self.delta])
        return counts

    def count_by_length(self, max_len: int) -> list[int]:
        """Number of accepted words of each length 0..max_len."""
        return [c[self.start] for c in self.accepted_counts(max_len)]

    def nth_accepted_of_length(self, length: int, index: int, counts: list[list[int]]) -> str:
        """The ``index``-th (0-based, lexicographic by alphabet order) accepted word of
        ``length``; ``counts`` comes from :meth:`accepted_counts` with max_len >= length."""
        q = self.start
        if not 0 <= index < counts[length][q]:
            raise IndexError(f"no accepted word #{index} of length {length}")
        out = []
        for remaining in range(length, 0, -1):
            for a, t in enumerate(self.delta[q]):
                c = counts[remaining - 1][t]
                if index < c:
                    out.append(self.alphabet[a])
                    q = t
                    break
                index -= c
        return "".join(out)

    def words_of_length(self, length: int, limit: int | None = None) -> Iterator[str]:
        """Accepted words of ``length`` in lexicographic order, at most ``limit`` of them."""
        counts = self.accepted_counts(length)
        total = counts[length][self.start]
        for i in range(total if limit is None else min(total, limit)):
            yield self.nth_accepted_of_length(length, i, counts)

    def words_up_to(self, max_len: int) -> Iterator[str]:
        """Every word over the alphabet of length <= max_len, shortlex order."""
        layer = [""]
        yield ""
        for _ in range(max_len):
            layer = [w + a for w in layer for a in self.alphabet]
            yield from layer

    # -- serialisation --------------------------------------------------------
    def to_json(self) -> dict[str, object]:
        """The submission format agents use: named states and ``[src, letter, dst]`` edges."""
        names = [f"q{i}" for i in range(self.n)]
        return {
            "states": names,
            "alphabet": list(self.alphabet),
            "start": names[self.start],
            "accepting": [names[q] for q in range(self.n) if self.accepting[q]],
            "transitions": [
                [names[q], a, names[self.delta[q][i]]]
                for q in range(self.n)
                for i, a in enumerate(self.alphabet)
            ],
        }

    def to_table(self) -> dict[str, object]:
        """A compact array form for hidden.json and trajectories."""
        return {
            "alphabet": "".join(self.alphabet),
            "delta": [list(r) for r in self.delta],
            "accepting": [q for q in range(self.n) if self.accepting[q]],
            "start": self.start,
        }

    @classmethod
    def from_table(cls, data: dict[str, object]) -> DFA:
        """Inverse of :meth:`to_table` (trusted input; ValueError if malformed)."""
        try:
            alphabet = str(data["alphabet"])
            delta = data["delta"]
            accepting = data["accepting"]
            start = int(data.get("start", 0))  # type: ignore[call-overload]
            if not isinstance(delta, list) or not isinstance(accepting, list):
                raise TypeError("delta and accepting must be lists")
            acc = {int(q) for q in accepting}
            flags = tuple(q in acc for q in range(len(delta)))
            return cls(
                tuple(alphabet), tuple(tuple(int(t) for t in r) for r in delta), flags, start
            )
        except (KeyError, TypeError) as exc:
            raise ValueError(f"not a DFA table: {exc}") from None

    def describe(self) -> str:
        """A human-readable transition table."""
        head = "state  " + "  ".join(f"{a:>4}" for a in self.alphabet)
        lines = [head]
        for q in range(self.n):
            mark = ("->" if q == self.start else "  ") + ("*" if self.accepting[q] else " ")
            row = "  ".join(f"{'q' + str(t):>4}" for t in self.delta[q])
            lines.append(f"{mark}q{q:<3}{row}")
        return "\n".join(lines)
