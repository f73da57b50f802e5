"""Passive DFA learners: RPNI, EDSM and Blue-Fringe, all in the red-blue framework.

All three start from the augmented prefix tree acceptor (APTA) of the sample: one node
per prefix of a sample word, accepting / rejecting labels on the sample words, unlabelled
elsewhere. The root is red; the blue fringe is the set of non-red children of red nodes.
Merging a blue node b into a red node r redirects b's parent edge to r and folds b's
subtree into r's part of the automaton, which keeps the result deterministic. A merge is
consistent iff the fold never puts an accepting and a rejecting sample word on the same
state, i.e. the merged automaton still accepts every positive and rejects every negative
word. A blue node that cannot merge consistently with any red node is promoted to red.
The loop ends when no blue node is left.

The three differ only in which (red, blue) move they make. Orders are shortlex on the
nodes' access prefixes (the alphabet's order, not character order). The *evidence* of a
merge is the number of labelled nodes of the blue subtree that fold onto a state already
carrying the same label (Lang, Pearlmutter and Price 1998); a conflicting merge scores
minus infinity, i.e. is never taken.

- :func:`rpni` (Oncina and Garcia 1992): take the shortlex-smallest blue node; merge it
  with the first red node, in shortlex order, that it merges with consistently; else
  promote it. This is the classic algorithm; it identifies the target in the limit and
  does so from any superset of a characteristic sample.
- :func:`edsm` (Lang et al. 1998, evidence-driven state merging restricted to the blue
  fringe): score every (red, blue) pair. Scanning blue nodes in shortlex order, the
  first blue node that merges with no red node is promoted; if every blue node can
  merge, the pair with the highest evidence is merged, ties going to the shortlex-smaller
  blue node, then to the shortlex-smaller red node.
- :func:`blue_fringe`: the shortlex-smallest blue node only, as RPNI, but merged with its
  *best* red partner (highest evidence, ties to the shortlex-smaller red) rather than the
  first consistent one; promoted if it has none.

A blue node is named by its APTA node: the prefix it had in the tree (a subtree adopted
during a fold keeps its own names). Folds run depth first, letters in alphabet order,
which decides the name when two subtrees reach one missing transition. With these
conventions :func:`rpni` equals AALpy 2.0.0's classic RPNI once AALpy's tie-break between
equal-length blue nodes (its list order, as it compares lengths only) is made shortlex.

Evidence 0 is enough to merge (no threshold). Results are complete DFAs: transitions the
sample never exercised go to a rejecting sink, and red states that carry no label reject.
The DFA is then minimised and in canonical form. Everything is deterministic. Cost: each
trial merge costs the size of the folded subtree; EDSM scores |red| x |blue| pairs per
step, so it is the slowest of the three (fine for the few thousand prefix nodes a query
log yields).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from blackboxes.automata._passive_merge import RedBlue
from blackboxes.automata.dfa import DFA

__all__ = ["PASSIVE_LEARNERS", "Sample", "blue_fringe", "edsm", "recovers", "rpni"]

Sample = Mapping[str, bool]
"""Labelled words: word -> is it in the language?"""


def rpni(sample: Sample, alphabet: Sequence[str]) -> DFA:
    """Oncina-Garcia RPNI: shortlex-smallest blue, first consistent red in shortlex order."""
    rb = RedBlue(sample, alphabet)
    while blues := rb.blues():
        blue = blues[0]
        for red in rb.reds_in_order():
            if rb.merge(red, blue) is not None:
                rb.commit()
                break
        else:
            rb.promote(blue[0])
    return rb.to_dfa()


def _best_red(rb: RedBlue, blue: tuple[int, int, int]) -> tuple[int, int] | None:
    """(evidence, red) of the best consistent merge of ``blue``; ties to the smaller red."""
    best: tuple[int, int] | None = None
    for red in rb.reds_in_order():
        score = rb.merge(red, blue)
        if score is None:
            continue
        rb.undo()
        if best is None or score > best[0]:
            best = (score, red)
    return best


def edsm(sample: Sample, alphabet: Sequence[str]) -> DFA:
    """Evidence-driven state merging on the blue fringe (see the module docstring)."""
    rb = RedBlue(sample, alphabet)
    while blues := rb.blues():
        best: tuple[int, int, tuple[int, int, int]] | None = None
        promoted = False
        for blue in blues:
            found = _best_red(rb, blue)
            if found is None:
                rb.promote(blue[0])
                promoted = True
                break
            if best is None or found[0] > best[0]:
                best = (found[0], found[1], blue)
        if not promoted:
            assert best is not None
            rb.merge(best[1], best[2])
            rb.commit()
    return rb.to_dfa()


def blue_fringe(sample: Sample, alphabet: Sequence[str]) -> DFA:
    """Shortlex-smallest blue merged with its highest-evidence red, else promoted."""
    rb = RedBlue(sample, alphabet)
    while blues := rb.blues():
        blue = blues[0]
        found = _best_red(rb, blue)
        if found is None:
            rb.promote(blue[0])
        else:
            rb.merge(found[1], blue)
            rb.commit()
    return rb.to_dfa()


PASSIVE_LEARNERS: dict[str, Callable[[Sample, Sequence[str]], DFA]] = {
    "blue_fringe": blue_fringe,
    "edsm": edsm,
    "rpni": rpni,
}
"""The passive learners by name, in sorted order."""


def recovers(sample: Sample, target: DFA) -> list[str]:
    """Names (sorted) of the passive learners whose result accepts exactly L(target)."""
    return [
        name
        for name, learn in PASSIVE_LEARNERS.items()
        if learn(sample, target.alphabet).equivalent(target)
    ]
