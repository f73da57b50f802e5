"""How close a hypothesis DFA is to the target: exact, with Python integers and Fractions.

Two families:

- :func:`similarity`, the agentic-automata-learning paper's score (its Appendix C):
  1 - |(L(h) xor L(t)) restricted to Sigma^{<=K}| / |Sigma^{<=K}|. Because
  |Sigma^{<=K}| is dominated by the longest lengths, it is essentially the disagreement
  density on words of length about K, so trivial hypotheses score about 0.5 on average
  over random targets (Sigma* and the empty language always sum to exactly 1).
- :func:`myhill_nerode_scores`, the Vafa et al. world-model metrics carried over to an
  exact DFA hypothesis (notes/dfa.md section 5.3): does H keep apart the prefixes the
  target keeps apart, and merge the ones the target merges?

Both minimise the two DFAs first (agents may submit bloated but correct automata).

Myhill-Nerode definitions. Prefixes are drawn independently: a uniform length in
0..prefix_len, then a uniform word of that length. Let p(t, h) be the probability that a
prefix reaches target state t and hypothesis state h (the coupling, a forward DP over
state pairs), p_T and p_H its marginals.

- compression precision = Pr[H-same | T-same] for independent prefixes u, v (which may
  coincide: that is what the closed form counts)
  = sum p(t, h)^2 / sum p_T(t)^2. Below 1 when H splits a target state.
- state distinction = Pr[H-differs | T-differs]
  = (1 - sum p_H^2 - sum p_T^2 + sum p^2) / (1 - sum p_T^2), by inclusion-exclusion;
  1.0 if the prefixes never reach two target states. Below 1 when H merges states.
- For states p, q of X in {T, H}, D_X(p, q) is the set of suffixes x on which X
  accepts from p but not from q or vice versa, and the boundary B_X(p, q) is the set of
  words of D_X with no proper prefix in D_X (the minimal distinguishing suffixes); both
  are restricted to length <= suffix_len. For a pair of prefixes reaching (t1, h1) and
  (t2, h2) with t1 != t2:
  boundary precision = |B_H(h1, h2) cap D_T(t1, t2)| / |B_H(h1, h2)| (1 if B_H is empty:
  H claims no distinction, so none is wrong), and
  boundary recall = |B_T(t1, t2) cap D_H(h1, h2)| / |B_T(t1, t2)| (1 if B_T is empty).
  Both are averaged over ordered prefix pairs with t1 != t2, weighted by
  p(t1, h1) p(t2, h2): precision and recall of H's distinctions between prefixes that
  truly differ, counted word by word.

Defaults: prefix_len = max(12, n_T - 1), so every target state is reached with positive
probability; suffix_len = max(12, n_T - 2), so every pair of distinct target states has a
true boundary word in range and recall is never vacuous (n_T is the minimal target's
state count). Scores are computed as Fractions and returned as floats; a hypothesis
equivalent to the target scores exactly 1.0 everywhere.

Cost: the similarity DP is O(K |Sigma| |Q_T x Q_H|) on the accessible pairs, with the
counts held as numpy limbs of 56 bits (about K log2|Sigma| / 56 of them per pair, fewer
early on), not as Python ints: random 100 x 100 states at K = 200 take about 7 ms
(benchmarks/dfa/bench_similarity.py); an equivalent hypothesis costs nothing.
The boundary scores run one DP over the quadruples (t1, t2, h1, h2) reachable from the
prefix pairs, up to |Q_T|^2 |Q_H|^2 / 2 of them, times suffix_len |Sigma|: about 10 ms at
10 x 10 states, 0.2 s at 20 x 20, 1.5 s at 30 x 30, 0.6 s for a 10-state target against a
100-state hypothesis. Time and memory grow with |Q_H|^2, so a hypothesis of more than about
200 states (after minimisation) is still scored correctly but takes seconds to minutes.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from blackboxes.automata._metrics_mn import exact_scores
from blackboxes.automata.dfa import DFA

__all__ = [
    "DEFAULT_SIMILARITY_MAX_LEN",
    "MIN_HORIZON",
    "MyhillNerodeScores",
    "disagreement_counts",
    "myhill_nerode_scores",
    "similarity",
    "words_up_to_count",
]

DEFAULT_SIMILARITY_MAX_LEN = 200
"""K of the paper's text (its code uses 100; notes/dfa.md section 1.7)."""

MIN_HORIZON = 12
"""The smallest default prefix_len and suffix_len of :func:`myhill_nerode_scores`."""


def disagreement_counts(
    hyp: DFA, target: DFA, max_len: int = DEFAULT_SIMILARITY_MAX_LEN
) -> list[int]:
    """``d[L]`` = number of words of length L (0..max_len) accepted by exactly one DFA."""
    if max_len < 0:
        raise ValueError("max_len must be >= 0")
    t, h = target.minimise(), hyp.minimise()
    if t.alphabet != h.alphabet:
        raise ValueError(f"alphabets differ: {''.join(t.alphabet)!r} vs {''.join(h.alphabet)!r}")
    if t == h:  # minimal canonical forms: the same language
        return [0] * (max_len + 1)
    # numpy and scipy on use: this module is imported by command lines that start fast.
    from blackboxes.automata._difference import accessible_part, product_grid
    from blackboxes.automata._limbs import counts_at

    grid = accessible_part(product_grid(t, h))
    return counts_at(grid.succ, grid.marked, max_len, grid.start)


def words_up_to_count(k: int, max_len: int) -> int:
    """|Sigma^{<=max_len}| for an alphabet of k letters."""
    return max_len + 1 if k == 1 else (k ** (max_len + 1) - 1) // (k - 1)


def similarity(hyp: DFA, target: DFA, max_len: int = DEFAULT_SIMILARITY_MAX_LEN) -> Fraction:
    """1 - |(L(hyp) xor L(target)) cap Sigma^{<=max_len}| / |Sigma^{<=max_len}|, exactly."""
    total = words_up_to_count(target.k, max_len)
    return Fraction(total - sum(disagreement_counts(hyp, target, max_len)), total)


@dataclass(frozen=True)
class MyhillNerodeScores:
    """The four Myhill-Nerode scores of a hypothesis (see the module docstring), in [0, 1]."""

    compression_precision: float
    """Pr[H-same | T-same] for independent prefixes: below 1 when H splits states."""
    state_distinction: float
    """Pr[H-differs | T-differs]: below 1 when H merges states."""
    boundary_precision: float
    """Share of H's minimal distinguishing suffixes that truly distinguish."""
    boundary_recall: float
    """Share of the true minimal distinguishing suffixes that H also distinguishes on."""
    prefix_len: int
    """The prefix horizon used."""
    suffix_len: int
    """The suffix horizon used."""

    def as_dict(self) -> dict[str, float | int]:
        return {
            "compression_precision": self.compression_precision,
            "state_distinction": self.state_distinction,
            "boundary_precision": self.boundary_precision,
            "boundary_recall": self.boundary_recall,
            "prefix_len": self.prefix_len,
            "suffix_len": self.suffix_len,
        }


def myhill_nerode_scores(
    hyp: DFA,
    target: DFA,
    prefix_len: int | None = None,
    suffix_len: int | None = None,
) -> MyhillNerodeScores:
    """Exact compression, distinction and boundary precision / recall of ``hyp``.

    ``None`` horizons take the defaults of the module docstring (at least
    :data:`MIN_HORIZON`, more for large targets).
    """
    t, h = target.minimise(), hyp.minimise()
    if t.alphabet != h.alphabet:
        raise ValueError(f"alphabets differ: {''.join(h.alphabet)!r} vs {''.join(t.alphabet)!r}")
    plen = max(MIN_HORIZON, t.n - 1) if prefix_len is None else prefix_len
    slen = max(MIN_HORIZON, t.n - 2) if suffix_len is None else suffix_len
    if plen < 0 or slen < 0:
        raise ValueError("prefix_len and suffix_len must be >= 0")
    compression, distinction, precision, recall = exact_scores(t, h, plen, slen)
    return MyhillNerodeScores(
        compression_precision=float(compression),
        state_distinction=float(distinction),
        boundary_precision=float(precision),
        boundary_recall=float(recall),
        prefix_len=plen,
        suffix_len=slen,
    )
