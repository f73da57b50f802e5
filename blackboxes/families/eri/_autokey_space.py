"""Exact version space of autokey ciphers (plaintext or ciphertext feedback) over primer lengths.

A key is a length L (one of ``lengths``) and a primer k in Z_q^L, over the first q letters
of an alphabet string (A-Z, or the 52 letters A-Z a-z of the cased kinds). Letter i (spaces not
counted) is shifted by s_i = k_i for i < L, then s_i = p_(i-L) (plaintext autokey) or
s_i = c_(i-L) (ciphertext autokey): c_i = p_i + s_i mod q.

State: per length L, each primer position fixed or free (or the part is gone). An
observation with n letters fixes k_i = c_i - p_i for i < m = min(n, L) and checks
c_i = p_i + s_i for i >= L, where s_i does not depend on k: the part survives whole or
not at all, and |C| = sum over L of q ** F_L (F_L free primer positions).

Predictive for a query x with n letters. In part L the output is in bijection with the
primer prefix k[:m] (its first m letters are p_i + k_i, the rest follow from them), so
the outputs Y_L of part L are equally likely, each made by w_L = q ** (F_L - f_L) keys
(f_L free positions below m). Every Y_L is the solution set of difference equations mod q
over the output letters y_0..y_(n-1): y_i = p_i + k_i (fixed i < m), y_i = p_i + p_(i-L)
(plaintext, i >= L) or y_i - y_(i-L) = p_i (ciphertext, i >= L). The intersection over a
set T of lengths is again such a system, solved by a weighted union-find: empty, or
q ** (components not tied to a constant) outputs. Outputs of different lengths can
coincide (every L >= n gives all of Z_q^n on a prior), so the mixture is merged exactly:
inclusion-exclusion over T gives N_S, the number of outputs lying in exactly the parts S,
each with probability W_S / |C| where W_S = sum of w_L over S, and

    H = log2 |C| - sum over S of N_S * W_S * log2(W_S) / |C|.

Lengths with the same solution set are grouped first, and empty intersections prune their
supersets, so a query costs at most 2 ** 6 small union-finds.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from functools import cached_property, lru_cache

from blackboxes.families.eri._alphabet import ALPHABET
from blackboxes.families.eri._spaces import EMPTY, same_shape
from blackboxes.information import ENUMERATION_LIMIT, Predictive, TablePredictive, VersionSpace
from oracle_bench.errors import FamilyError

__all__ = ["AutokeySpace", "autokey_letters"]

_FREE = -1


@lru_cache(maxsize=16)
def _index(letters: str) -> dict[str, int]:
    return {ch: i for i, ch in enumerate(letters)}


def _numbers(text: str, letters: str) -> list[int] | None:
    """The letter numbers of ``text`` (spaces skipped), None on any other character."""
    idx = _index(letters)
    out = []
    for ch in text:
        if ch != " ":
            v = idx.get(ch)
            if v is None:
                return None
            out.append(v)
    return out


def autokey_letters(
    primer: Sequence[int], plain: Sequence[int], feedback: bool, q: int = 26
) -> list[int]:
    """The output letters (as numbers) of the autokey cipher on the letters ``plain``."""
    length = len(primer)
    out: list[int] = []
    for i, p in enumerate(plain):
        if i >= length:
            p += out[i - length] if feedback else plain[i - length]
        else:
            p += primer[i]
        out.append(p % q)
    return out


class _System:
    """Solutions y_0..y_(n-1) in Z_q of equations y_a - y_b = d; node n is the constant 0."""

    __slots__ = ("_off", "_parent", "_q", "_roots", "_zero")

    def __init__(self, n: int, q: int) -> None:
        self._parent = list(range(n + 1))
        self._off = [0] * (n + 1)  # y_i = y_parent(i) + off_i
        self._roots = n + 1
        self._zero = n
        self._q = q

    def copy(self) -> _System:
        other = _System.__new__(_System)
        other._parent = self._parent[:]
        other._off = self._off[:]
        other._roots = self._roots
        other._zero = self._zero
        other._q = self._q
        return other

    def _find(self, a: int) -> tuple[int, int]:
        parent, off = self._parent, self._off
        path = []
        while parent[a] != a:
            path.append(a)
            a = parent[a]
        root, total = a, 0
        for node in reversed(path):  # compress: every node on the path points at the root
            total = (total + off[node]) % self._q
            off[node] = total
            parent[node] = root
        return root, (off[path[0]] if path else 0)

    def add(self, a: int, b: int, d: int) -> bool:
        """Add y_a - y_b = d; False when the system becomes inconsistent."""
        ra, oa = self._find(a)
        rb, ob = self._find(b)
        if ra == rb:
            return (oa - ob - d) % self._q == 0
        if ra == self._zero:  # keep the constant a root
            ra, rb, oa, ob, d = rb, ra, ob, oa, -d
        self._parent[ra] = rb
        self._off[ra] = (ob + d - oa) % self._q
        self._roots -= 1
        return True

    def count(self) -> int:
        return self._q ** (self._roots - 1)

    def canonical(self) -> tuple[tuple[int, int], ...]:
        """Per position (first position of its component or -1 for a constant, offset)."""
        n = self._zero
        first: dict[int, tuple[int, int]] = {}
        out = []
        for i in range(n):
            root, o = self._find(i)
            if root == self._zero:
                out.append((-1, o))
                continue
            head = first.setdefault(root, (i, o))
            out.append((head[0], (o - head[1]) % self._q))
        return tuple(out)


Canon = tuple[tuple[int, int], ...]


def _add_canon(system: _System, canon: Canon) -> bool:
    n = len(canon)
    return all(system.add(i, n if head < 0 else head, off) for i, (head, off) in enumerate(canon))


def _contains(canon: Canon, y: Sequence[int], q: int) -> bool:
    return all(
        y[i] == off if head < 0 else (y[i] - y[head]) % q == off
        for i, (head, off) in enumerate(canon)
    )


def _solutions(canon: Canon, q: int, excluded: Sequence[Canon]) -> Iterator[list[int]]:
    """Solutions of ``canon`` outside every ``excluded`` system, in lexicographic order.

    Free components z_0, z_1, ... (in order of their first position, where y = z) are
    assigned in order; an excluded system becomes constraints on them (z_u - z_v = d or
    z_u = d), checked when their later component is assigned. A subtree lying inside an
    excluded system is skipped whole.
    """
    heads = [i for i, (head, _) in enumerate(canon) if head == i]
    index = {h: t for t, h in enumerate(heads)}

    def term(i: int) -> tuple[int, int]:
        """y_i as (component or -1, offset)."""
        head, off = canon[i]
        return (-1, off) if head < 0 else (index[head], off)

    # Constraints per excluded system, grouped by the level (later component) they need.
    tables: list[dict[int, list[tuple[int, int]]]] = []
    for ex in excluded:
        levels: dict[int, list[tuple[int, int]]] = {}
        ok = True
        for i, (head, off) in enumerate(ex):
            u, ou = term(i)
            v, ov = (-1, 0) if head < 0 else term(head)
            d = (off + ov - ou) % q  # z_u - z_v = d, with z_-1 = 0
            if u == v:
                if d:
                    ok = False  # this excluded system misses ``canon`` entirely
                    break
                continue
            if u < v:
                u, v, d = v, u, -d % q
            levels.setdefault(u, []).append((v, d))
        if ok:
            tables.append(levels)
    tops = [max(levels, default=-1) for levels in tables]
    if any(t < 0 for t in tops):
        return
    z: list[int] = []

    def walk(alive: list[int]) -> Iterator[list[int]]:
        t = len(z)
        if t == len(heads):
            yield [(z[c] + o) % q if c >= 0 else o for c, o in (term(i) for i in range(len(canon)))]
            return
        for value in range(q):
            z.append(value)
            still = [
                j
                for j in alive
                if all((value - (z[v] if v >= 0 else 0)) % q == d for v, d in tables[j].get(t, ()))
            ]
            if not any(tops[j] <= t for j in still):
                yield from walk(still)
            z.pop()

    yield from walk(list(range(len(tables))))


class _AutokeyPredictive(Predictive):
    def __init__(self, space: AutokeySpace, x: str, plain: list[int]) -> None:
        self._x = x
        self._q = q = space.q
        self._alphabet = space.letters
        self._feedback = space.feedback
        n = len(plain)
        self._n = n
        self._total = space.count
        groups: dict[Canon, int] = {}
        systems: dict[Canon, _System] = {}
        for length, primer in space.primers.items():
            m = min(n, length)
            system = _System(n, q)
            for i in range(m):
                if primer[i] != _FREE:
                    system.add(i, n, plain[i] + primer[i])
            for i in range(length, n):
                if self._feedback:
                    system.add(i, i - length, plain[i])
                else:
                    system.add(i, n, plain[i] + plain[i - length])
            canon = system.canonical()
            free_all = sum(1 for v in primer if v == _FREE)
            free_seen = sum(1 for v in primer[:m] if v == _FREE)
            groups[canon] = groups.get(canon, 0) + q ** (free_all - free_seen)
            systems[canon] = system
        self._canons = list(groups)
        self._weights = [groups[c] for c in self._canons]
        self._systems = [systems[c] for c in self._canons]

    @cached_property
    def _intersections(self) -> dict[int, tuple[int, _System]]:
        """Non-empty intersections: mask of groups -> (size, solved system)."""
        out: dict[int, tuple[int, _System]] = {}

        def extend(mask: int, system: _System, start: int) -> None:
            for j in range(start, len(self._canons)):
                child = system.copy()
                if _add_canon(child, self._canons[j]):
                    out[mask | 1 << j] = (child.count(), child)
                    extend(mask | 1 << j, child, j + 1)

        for j, system in enumerate(self._systems):
            out[1 << j] = (system.count(), system)
            extend(1 << j, system, j + 1)
        return out

    @cached_property
    def _exact(self) -> dict[int, int]:
        """Mask S -> number of outputs in exactly the groups of S (Moebius over supersets)."""
        g = len(self._canons)
        sizes = [0] * (1 << g)
        for mask, (size, _) in self._intersections.items():
            sizes[mask] = size
        for j in range(g):
            bit = 1 << j
            for mask in range(1 << g):
                if not mask & bit:
                    sizes[mask] -= sizes[mask | bit]
        return {mask: sizes[mask] for mask in self._intersections if sizes[mask] > 0}

    def _weight(self, mask: int) -> int:
        return sum(w for j, w in enumerate(self._weights) if mask >> j & 1)

    @cached_property
    def entropy(self) -> float:
        if len(self._canons) == 1:
            return math.log2(self._intersections[1][0])
        plogp = 0.0
        for mask, count in self._exact.items():
            w = self._weight(mask)
            plogp += (count * w / self._total) * math.log2(w)
        return math.log2(self._total) - plogp

    def _letters(self, y: object) -> list[int] | None:
        if not isinstance(y, str) or not same_shape(self._x, y):
            return None
        return _numbers(y, self._alphabet)

    def _render(self, letters: Sequence[int]) -> str:
        it = iter(letters)
        alphabet = self._alphabet
        return "".join(" " if ch == " " else alphabet[next(it)] for ch in self._x)

    def prob(self, y: object) -> float:
        letters = self._letters(y)
        if letters is None:
            return 0.0
        w = sum(
            weight
            for canon, weight in zip(self._canons, self._weights, strict=True)
            if _contains(canon, letters, self._q)
        )
        return w / self._total

    def top(self, k: int) -> list[object]:
        # Outputs of the same exact-group set S are equally likely: take S by falling
        # weight, and within a tie of weights the first outputs in letter-number order
        # (string order too for A-Z and A-Z a-z, whose numbers follow ASCII).
        ranked = sorted(self._exact, key=lambda mask: -self._weight(mask))
        out: list[object] = []
        i = 0
        while i < len(ranked) and len(out) < k:
            w = self._weight(ranked[i])
            tied: list[str] = []
            while i < len(ranked) and self._weight(ranked[i]) == w:
                mask = ranked[i]
                canon = self._intersections[mask][1].canonical()
                excluded = [c for j, c in enumerate(self._canons) if not mask >> j & 1]
                for count, letters in enumerate(_solutions(canon, self._q, excluded)):
                    if count >= k:
                        break
                    tied.append(self._render(letters))
                i += 1
            out.extend(sorted(tied)[: k - len(out)])
        return out

    def support(self, limit: int = ENUMERATION_LIMIT) -> dict[str, tuple[object, float]] | None:
        if sum(self._exact.values()) > limit:
            return None
        weights: dict[str, int] = {}
        for canon, weight in zip(self._canons, self._weights, strict=True):
            for letters in _solutions(canon, self._q, ()):
                y = self._render(letters)
                weights[y] = weights.get(y, 0) + weight
        return {y: (y, w / self._total) for y, w in weights.items()}


class AutokeySpace(VersionSpace):
    """Autokey keys (length, primer) consistent with the history, a partial primer per length."""

    def __init__(
        self,
        primers: dict[int, tuple[int, ...]],
        feedback: bool,
        q: int | None = None,
        alphabet: str = ALPHABET,
    ) -> None:
        """``primers``: length -> primer with ``-1`` at free positions; ``feedback``: ciphertext
        autokey; ``alphabet``: the letters in number order (A-Z by default, CASED_ALPHABET for
        the mod-52 kind); ``q``: the modulus, using the first q letters (all of them by
        default; smaller only in tests)."""
        q = len(alphabet) if q is None else q
        if not 2 <= q <= len(alphabet) or len(set(alphabet)) != len(alphabet) or " " in alphabet:
            raise FamilyError(f"autokey space needs 2 <= q <= {len(alphabet)} distinct letters")
        self.primers = primers
        self.feedback = feedback
        self.q = q
        self.alphabet = alphabet
        self.letters = alphabet[:q]
        """The letters in use, numbered 0..q-1."""
        # Memo per query: the space is immutable and the adaptive agent asks repeatedly.
        self._memo: dict[str, _AutokeyPredictive] = {}

    @classmethod
    def prior(
        cls, lengths: Sequence[int], feedback: bool, q: int | None = None, alphabet: str = ALPHABET
    ) -> AutokeySpace:
        """All primers of the given lengths over the first q letters of ``alphabet``."""
        return cls({n: (_FREE,) * n for n in lengths}, feedback, q, alphabet)

    @cached_property
    def count(self) -> int:
        return sum(self.q ** sum(1 for v in p if v == _FREE) for p in self.primers.values())

    def log2_count(self) -> float:
        return math.log2(self.count) if self.count > 0 else -math.inf

    def _plain(self, x: object) -> list[int] | None:
        return _numbers(x, self.letters) if isinstance(x, str) else None

    def observe(self, x: object, y: object) -> VersionSpace:
        plain = self._plain(x)
        if plain is None or not isinstance(x, str) or not same_shape(x, y):
            return EMPTY
        cipher = self._plain(y)
        if cipher is None:
            return EMPTY
        q, n = self.q, len(plain)
        kept: dict[int, tuple[int, ...]] = {}
        for length, primer in self.primers.items():
            source = cipher if self.feedback else plain
            if any(cipher[i] != (plain[i] + source[i - length]) % q for i in range(length, n)):
                continue
            new = list(primer)
            for i in range(min(n, length)):
                v = (cipher[i] - plain[i]) % q
                if new[i] == _FREE:
                    new[i] = v
                elif new[i] != v:
                    break
            else:
                kept[length] = tuple(new)
        return AutokeySpace(kept, self.feedback, q, self.alphabet) if kept else EMPTY

    def predictive(self, x: object) -> Predictive:
        plain = self._plain(x)
        if plain is None or not isinstance(x, str) or not self.primers:
            return TablePredictive({})
        cached = self._memo.get(x)
        if cached is None:
            cached = _AutokeyPredictive(self, x, plain)
            self._memo[x] = cached
        return cached

    def posterior(self) -> dict[int, float]:
        """Probability of each primer length given the history."""
        return {
            n: self.q ** sum(1 for v in p if v == _FREE) / self.count
            for n, p in self.primers.items()
        }
