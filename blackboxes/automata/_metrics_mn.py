"""Exact Myhill-Nerode world-model scores (notes/dfa.md section 5.3) as Fractions.

Callers pass minimised DFAs, so states are Nerode classes. Prefix weights are integer
numerators over one common denominator, so every score is a ratio of big integers.
"""

from __future__ import annotations

from collections import defaultdict, deque
from fractions import Fraction

from blackboxes.automata._metrics_count import backward_counts, pair_product
from blackboxes.automata.dfa import DFA

__all__ = ["ExactScores", "coupling", "exact_scores"]

ExactScores = tuple[Fraction, Fraction, Fraction, Fraction]
"""(compression precision, state distinction, boundary precision, boundary recall)."""


def coupling(t: DFA, h: DFA, prefix_len: int) -> tuple[dict[tuple[int, int], int], int]:
    """``(weights, denominator)``: Pr[delta_T(w) = t, delta_H(w) = h] = weights[t, h] / denominator
    for w drawn by a uniform length in 0..prefix_len, then a uniform word of that length.

    A word of length l weighs k^(prefix_len - l) over (prefix_len + 1) k^prefix_len.
    """
    pairs, succ = pair_product(t, h)
    k = t.k
    counts = [0] * len(pairs)
    counts[0] = 1
    weights = [0] * len(pairs)
    for length in range(prefix_len + 1):
        scale = k ** (prefix_len - length)
        for i, c in enumerate(counts):
            if c:
                weights[i] += c * scale
        if length == prefix_len:
            break
        nxt = [0] * len(pairs)
        for row in succ:
            for i, c in enumerate(counts):
                if c:
                    nxt[row[i]] += c
        counts = nxt
    support = {pairs[i]: w for i, w in enumerate(weights) if w}
    return support, (prefix_len + 1) * k**prefix_len


def _ratio(num: int, den: int) -> Fraction:
    return Fraction(num, den) if den else Fraction(1)


def _canon(q: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    """Swapping the two prefixes changes no count (D_X and B_X are symmetric)."""
    t1, t2, h1, h2 = q
    swapped = (t2, t1, h2, h1)
    return swapped if swapped < q else q


def _last(succ: list[list[int]], base: list[int], steps: int) -> list[int]:
    return deque(backward_counts(succ, base, steps, base), maxlen=1)[0]


def _boundary_sizes(x: DFA, suffix_len: int) -> list[int]:
    """``sizes[p * n + q]`` = |B_X(p, q)| over suffixes of length <= suffix_len."""
    n, acc = x.n, x.accepting
    stop = [acc[p] != acc[q] for p in range(n) for q in range(n)]
    zero = n * n
    succ = [
        [
            zero if stop[p * n + q] else x.delta[p][a] * n + x.delta[q][a]
            for p in range(n)
            for q in range(n)
        ]
        + [zero]
        for a in range(x.k)
    ]
    return _last(succ, [int(b) for b in stop] + [0], suffix_len)


def _boundary_hits(
    t: DFA, h: DFA, starts: list[tuple[int, int, int, int]], suffix_len: int
) -> dict[tuple[int, int, int, int], tuple[int, int]]:
    """For each start quadruple (t1, t2, h1, h2), in canonical form: the numerators
    (|B_H(h1, h2) cap D_T(t1, t2)|, |B_T(t1, t2) cap D_H(h1, h2)|), suffixes <= suffix_len.

    One backward DP over the (canonical) quadruples reachable from the starts. A word
    of B_H ends at the first prefix where h1 and h2 disagree, so for the precision count
    the rows of such quadruples point at a zero state; likewise for T and recall.
    """
    k = t.k
    ta, ha = t.accepting, h.accepting
    td, hd = t.delta, h.delta
    ids: dict[tuple[int, int, int, int], int] = {}
    quads: list[tuple[int, int, int, int]] = []
    for q in starts:
        if q not in ids:
            ids[q] = len(quads)
            quads.append(q)
    succ: list[list[int]] = [[] for _ in range(k)]
    stop_t: list[bool] = []
    stop_h: list[bool] = []
    for t1, t2, h1, h2 in quads:
        st, sh = ta[t1] != ta[t2], ha[h1] != ha[h2]
        stop_t.append(st)
        stop_h.append(sh)
        for a in range(k):
            if st and sh:
                succ[a].append(-1)  # both boundaries end here; never read
                continue
            nxt = _canon((td[t1][a], td[t2][a], hd[h1][a], hd[h2][a]))
            j = ids.get(nxt)
            if j is None:
                j = ids[nxt] = len(quads)
                quads.append(nxt)
            succ[a].append(j)
    zero = len(quads)
    succ_h = [[zero if stop_h[i] else row[i] for i in range(zero)] + [zero] for row in succ]
    succ_t = [[zero if stop_t[i] else row[i] for i in range(zero)] + [zero] for row in succ]
    both = [int(stop_t[i] and stop_h[i]) for i in range(zero)] + [0]
    precision = _last(succ_h, both, suffix_len)
    recall = _last(succ_t, both, suffix_len)
    return {q: (precision[ids[q]], recall[ids[q]]) for q in starts}


def exact_scores(target: DFA, hyp: DFA, prefix_len: int, suffix_len: int) -> ExactScores:
    """The four scores as Fractions, for already minimised ``target`` and ``hyp``."""
    weights, den = coupling(target, hyp, prefix_len)
    w_t: dict[int, int] = defaultdict(int)
    w_h: dict[int, int] = defaultdict(int)
    for (t, h), w in weights.items():
        w_t[t] += w
        w_h[h] += w
    joint = sum(w * w for w in weights.values())
    same_t = sum(w * w for w in w_t.values())
    same_h = sum(w * w for w in w_h.values())
    compression = _ratio(joint, same_t)
    diff_t = den * den - same_t
    distinction = _ratio(den * den - same_h - same_t + joint, diff_t)

    items = list(weights.items())
    # Unordered pairs of support pairs, each standing for both orders (same counts).
    pairs = [
        (_canon((t1, t2, h1, h2)), 2 * w1 * w2)
        for i, ((t1, h1), w1) in enumerate(items)
        for (t2, h2), w2 in items[i + 1 :]
        if t1 != t2
    ]
    if not pairs:
        one = Fraction(1)
        return compression, distinction, one, one
    hits = _boundary_hits(target, hyp, [q for q, _ in pairs], suffix_len)
    size_t = _boundary_sizes(target, suffix_len)
    size_h = _boundary_sizes(hyp, suffix_len)
    nt, nh = target.n, hyp.n
    # Grouped by denominator so that few Fractions are ever added.
    prec: dict[int, int] = defaultdict(int)
    rec: dict[int, int] = defaultdict(int)
    total = 0
    for q, w in pairs:
        t1, t2, h1, h2 = q
        p_num, r_num = hits[q]
        p_den, r_den = size_h[h1 * nh + h2], size_t[t1 * nt + t2]
        total += w
        if p_den:
            prec[p_den] += w * p_num
        else:
            prec[1] += w
        if r_den:
            rec[r_den] += w * r_num
        else:
            rec[1] += w
    precision = sum((Fraction(n, d) for d, n in prec.items()), Fraction(0)) / total
    recall = sum((Fraction(n, d) for d, n in rec.items()), Fraction(0)) / total
    return compression, distinction, precision, recall
