"""The DFA core against brute force over all short words, and the submission parser.

Random DFAs come from hypothesis and include unreachable and redundant states. The
brute-force references run words through ``delta`` directly and enumerate words with
``itertools.product`` (lexicographic in alphabet order), never through the code under test.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from itertools import product
from typing import Any

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from blackboxes.automata.dfa import DFA
from blackboxes.automata.sampling import sample_minimal_dfa
from blackboxes.automata.submission import MAX_SUBMITTED_STATES, InvalidDfaError, parse_submission
from oracle_bench.errors import InvalidQueryError
from oracle_bench.rng import rng_for

ALPHABETS: list[tuple[str, ...]] = [("a", "b"), ("b", "a"), ("a", "b", "c")]
"""("b", "a") checks that "lexicographic" follows alphabet order, not code points."""

MAX_LEN = {2: 8, 3: 5}
"""Brute-force word length per alphabet size (511 and 364 words)."""

FAST = settings(max_examples=80, deadline=None)


# -- brute-force references -----------------------------------------------------------


def words_of(alphabet: tuple[str, ...], length: int) -> Iterator[str]:
    """All words of exactly ``length``, lexicographic in alphabet order."""
    for letters in product(alphabet, repeat=length):
        yield "".join(letters)


def words_upto(alphabet: tuple[str, ...], max_len: int) -> Iterator[str]:
    """All words up to ``max_len`` in shortlex order."""
    for length in range(max_len + 1):
        yield from words_of(alphabet, length)


def run(dfa: DFA, word: str, state: int | None = None) -> int:
    q = dfa.start if state is None else state
    for c in word:
        q = dfa.delta[q][dfa.alphabet.index(c)]
    return q


def accepts(dfa: DFA, word: str) -> bool:
    return dfa.accepting[run(dfa, word)]


def reachable(dfa: DFA) -> set[int]:
    return {run(dfa, w) for w in words_upto(dfa.alphabet, dfa.n)}


def nerode_classes(dfa: DFA) -> int:
    """Distinct residual languages of the reachable states (words up to n suffice)."""
    suffixes = list(words_upto(dfa.alphabet, dfa.n))
    return len({tuple(dfa.accepting[run(dfa, s, q)] for s in suffixes) for q in reachable(dfa)})


def first_difference(one: DFA, two: DFA) -> str | None:
    """The shortlex-first word the two disagree on.

    Moore's bound on the disjoint union (n1 + n2 states): if the languages differ, some
    word of length <= n1 + n2 - 2 shows it.
    """
    for w in words_upto(one.alphabet, one.n + two.n - 2):
        if accepts(one, w) != accepts(two, w):
            return w
    return None


# -- random DFAs and disguises --------------------------------------------------------


@st.composite
def dfas(draw: st.DrawFn, alphabet: tuple[str, ...] | None = None, max_n: int = 5) -> DFA:
    """Any complete DFA: unreachable states, equivalent states and any start allowed."""
    if alphabet is None:
        alphabet = draw(st.sampled_from(ALPHABETS))
    if len(alphabet) > 2:
        max_n = min(max_n, 3)
    n = draw(st.integers(1, max_n))
    delta = [[draw(st.integers(0, n - 1)) for _ in alphabet] for _ in range(n)]
    accepting = [draw(st.booleans()) for _ in range(n)]
    return DFA.build(alphabet, delta, accepting, draw(st.integers(0, n - 1)))


def renumber(dfa: DFA, perm: list[int]) -> DFA:
    """The same automaton with state q renamed perm[q]."""
    delta: list[list[int]] = [[] for _ in range(dfa.n)]
    accepting = [False] * dfa.n
    for q in range(dfa.n):
        delta[perm[q]] = [perm[t] for t in dfa.delta[q]]
        accepting[perm[q]] = dfa.accepting[q]
    return DFA.build(dfa.alphabet, delta, accepting, perm[dfa.start])


def disguise(dfa: DFA, rng: random.Random, copies: int = 2, junk: int = 1) -> DFA:
    """An equivalent DFA: copies of states that some edges are redirected to, unreachable
    junk states, then a random renumbering."""
    delta = [list(row) for row in dfa.delta]
    accepting = list(dfa.accepting)
    for _ in range(copies):
        q = rng.randrange(dfa.n)
        clone = len(delta)
        delta.append(list(delta[q]))
        accepting.append(accepting[q])
        for row in delta:
            for a, t in enumerate(row):
                if t == q and rng.random() < 0.5:
                    row[a] = clone
    for _ in range(junk):
        delta.append([rng.randrange(len(delta) + 1) for _ in dfa.alphabet])
        accepting.append(rng.random() < 0.5)
    perm = list(range(len(delta)))
    rng.shuffle(perm)
    return renumber(DFA.build(dfa.alphabet, delta, accepting, dfa.start), perm)


@st.composite
def dfa_pairs(draw: st.DrawFn) -> tuple[DFA, DFA]:
    """Two DFAs over one alphabet: unrelated, or the second a disguise of the first."""
    one = draw(dfas(max_n=4))
    if draw(st.booleans()):
        return one, draw(dfas(alphabet=one.alphabet, max_n=4))
    rng = random.Random(draw(st.integers(0, 2**32)))
    two = disguise(one, rng, copies=draw(st.integers(0, 2)), junk=draw(st.integers(0, 1)))
    if draw(st.booleans()):
        # One flipped state: often still equivalent (unreachable), often not.
        flags = list(two.accepting)
        flags[draw(st.integers(0, two.n - 1))] ^= True
        two = DFA.build(two.alphabet, two.delta, flags, two.start)
    return one, two


# -- minimisation and canonical forms -------------------------------------------------


@FAST
@given(dfas())
def test_minimise_keeps_the_language_and_is_minimal(dfa: DFA) -> None:
    m = dfa.minimise()
    for w in words_upto(dfa.alphabet, MAX_LEN[dfa.k]):
        assert accepts(m, w) == accepts(dfa, w), w
    assert m.is_minimal()
    assert m.n == nerode_classes(dfa) <= len(reachable(dfa))
    assert m.start == 0 and m.canonical() == m and m.minimise() == m
    assert dfa.is_minimal() == (dfa.n == len(reachable(dfa)) == nerode_classes(dfa))


@FAST
@given(dfas(), st.randoms(use_true_random=False))
def test_canonical_is_invariant_under_renumbering(dfa: DFA, rng: random.Random) -> None:
    perm = list(range(dfa.n))
    rng.shuffle(perm)
    shuffled = renumber(dfa, perm)
    canon = dfa.canonical()
    assert shuffled.canonical() == canon
    assert canon.n == len(reachable(dfa)) and canon.start == 0
    assert canon.reachable_states() == list(range(canon.n))
    for w in words_upto(dfa.alphabet, 5):
        assert accepts(canon, w) == accepts(dfa, w)
    assert shuffled.minimise() == dfa.minimise()
    assert shuffled.fingerprint == dfa.fingerprint


def test_reachable_states_are_in_bfs_order() -> None:
    #   0 -a-> 2, 0 -b-> 1; 2 -a-> 3; 1 and 4 unreachable from 3 except via 2.
    dfa = DFA.build("ab", [[2, 1], [1, 1], [3, 2], [3, 3], [0, 0]], [3])
    assert dfa.reachable_states() == [0, 2, 1, 3]
    canon = dfa.canonical()
    assert canon.delta == ((1, 2), (3, 1), (2, 2), (3, 3))
    assert canon.accepting == (False, False, False, True)


# -- comparing ------------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(dfa_pairs())
def test_distinguishing_word_is_the_shortlex_first_difference(pair: tuple[DFA, DFA]) -> None:
    one, two = pair
    expected = first_difference(one, two)
    event("equivalent" if expected is None else f"differ at length {len(expected)}")
    word = one.distinguishing_word(two)
    assert word == expected
    assert two.distinguishing_word(one) == expected
    assert one.equivalent(two) == (expected is None)
    assert (one.fingerprint == two.fingerprint) == (expected is None)
    if word is not None:
        assert accepts(one, word) != accepts(two, word)


def test_distinguishing_word_on_near_misses() -> None:
    # A minimal DFA against itself with one edge redirected: the differences are long
    # (hypothesis pairs mostly differ at length 0 or 1).
    lengths = []
    for seed in range(200):
        rng = rng_for(11, "near-miss", seed)
        alphabet = ALPHABETS[seed % 3]
        one = sample_minimal_dfa(rng, 3 if len(alphabet) == 3 else 5, alphabet)
        delta = [list(row) for row in one.delta]
        delta[rng.randrange(one.n)][rng.randrange(one.k)] = rng.randrange(one.n)
        two = DFA.build(alphabet, delta, one.accepting)
        expected = first_difference(one, two)
        assert one.distinguishing_word(two) == expected
        assert two.distinguishing_word(one) == expected
        assert (one.fingerprint == two.fingerprint) == (expected is None)
        lengths.append(-1 if expected is None else len(expected))
    assert -1 in lengths and max(lengths) >= 4 and sum(x >= 2 for x in lengths) >= 50


def test_distinguishing_word_follows_alphabet_order() -> None:
    # Both "a" and "b" distinguish; with the alphabet ("b", "a") "b" comes first.
    for alphabet, first in [(("a", "b"), "a"), (("b", "a"), "b")]:
        one = DFA.build(alphabet, [[1, 1], [1, 1]], [1])
        two = DFA.universal(alphabet, accept=False)
        assert one.distinguishing_word(two) == first
        assert one.shortest_accepted() == first


def test_comparing_different_alphabets_is_refused() -> None:
    with pytest.raises(ValueError, match="alphabets differ"):
        DFA.universal("ab").equivalent(DFA.universal("ba"))
    with pytest.raises(ValueError, match="alphabets differ"):
        DFA.universal("ab").union(DFA.universal("abc"))


OPS: dict[str, Callable[[bool, bool], bool]] = {
    "union": lambda a, b: a or b,
    "intersection": lambda a, b: a and b,
    "symmetric_difference": lambda a, b: a != b,
}


@FAST
@given(dfa_pairs())
def test_products_and_complement(pair: tuple[DFA, DFA]) -> None:
    one, two = pair
    made = {name: getattr(one, name)(two) for name in OPS}
    minus = one.product(two, lambda a, b: a and not b)
    complement = one.complement()
    for dfa in [*made.values(), minus]:
        assert dfa.reachable_states() == list(range(dfa.n))  # products are accessible
        assert dfa.n <= len(reachable(one)) * len(reachable(two))
    for w in words_upto(one.alphabet, MAX_LEN[one.k] - 1):
        a, b = accepts(one, w), accepts(two, w)
        for name, op in OPS.items():
            assert accepts(made[name], w) == op(a, b), (name, w)
        assert accepts(minus, w) == (a and not b)
        assert accepts(complement, w) == (not a)


# -- counting and enumerating words ---------------------------------------------------


@FAST
@given(dfas(), st.integers(0, 30))
def test_counts_and_words_of_length(dfa: DFA, limit: int) -> None:
    max_len = MAX_LEN[dfa.k]
    counts = dfa.accepted_counts(max_len)
    by_length = dfa.count_by_length(max_len)
    for length in range(max_len + 1):
        accepted = [w for w in words_of(dfa.alphabet, length) if accepts(dfa, w)]
        assert by_length[length] == len(accepted)
        for q in range(dfa.n):
            assert counts[length][q] == sum(
                dfa.accepting[run(dfa, w, q)] for w in words_of(dfa.alphabet, length)
            )
        assert list(dfa.words_of_length(length)) == accepted
        assert list(dfa.words_of_length(length, limit)) == accepted[:limit]
        for i, w in enumerate(accepted):
            assert dfa.nth_accepted_of_length(length, i, counts) == w
        with pytest.raises(IndexError):
            dfa.nth_accepted_of_length(length, len(accepted), counts)
    with pytest.raises(IndexError):
        dfa.nth_accepted_of_length(0, -1, counts)


def test_counts_are_exact_big_integers() -> None:
    universal = DFA.universal("ab")
    assert universal.count_by_length(200)[200] == 2**200
    even_a = DFA.build("ab", [[1, 0], [0, 1]], [0])  # an even number of a's
    assert even_a.count_by_length(101)[101] == 2**100
    counts = even_a.accepted_counts(101)
    assert even_a.nth_accepted_of_length(101, 0, counts) == "a" * 100 + "b"
    assert even_a.nth_accepted_of_length(101, 2**100 - 2, counts) == "b" * 99 + "aa"
    assert even_a.nth_accepted_of_length(101, 2**100 - 1, counts) == "b" * 101


@pytest.mark.parametrize("alphabet", ALPHABETS)
def test_words_up_to_is_shortlex(alphabet: tuple[str, ...]) -> None:
    assert list(DFA.universal(alphabet).words_up_to(4)) == list(words_upto(alphabet, 4))


@FAST
@given(dfas())
def test_shortest_accepted_and_run(dfa: DFA) -> None:
    found = next((w for w in words_upto(dfa.alphabet, dfa.n) if accepts(dfa, w)), None)
    assert dfa.shortest_accepted() == found
    for w in words_upto(dfa.alphabet, 4):
        assert dfa.run(w) == run(dfa, w)
        assert dfa.accepts(w) == dfa(w) == accepts(dfa, w)


# -- construction and serialisation ---------------------------------------------------


def test_constructor_validates() -> None:
    with pytest.raises(ValueError, match="at least one state"):
        DFA(("a",), (), ())
    with pytest.raises(ValueError, match="single characters"):
        DFA(("ab",), ((0,),), (False,))
    with pytest.raises(ValueError, match="repeated letter"):
        DFA(("a", "a"), ((0, 0),), (False,))
    with pytest.raises(ValueError, match="accepting flags or start"):
        DFA(("a",), ((0,),), (False,), start=1)
    with pytest.raises(ValueError, match="in-range successor"):
        DFA(("a", "b"), ((0, 1),), (False,))
    with pytest.raises(ValueError, match="in-range successor"):
        DFA(("a", "b"), ((0,),), (False,))


def test_build_accepts_flags_or_ids_and_letters_are_checked() -> None:
    by_flags = DFA.build("ab", [[1, 0], [1, 1]], [False, True])
    by_ids = DFA.build("ab", [[1, 0], [1, 1]], [1])
    assert by_flags == by_ids and by_ids.accepting == (False, True)
    # Two ids that happen to number the states are ids, not flags.
    assert DFA.build("ab", [[1, 0], [1, 1]], [0, 1]).accepting == (True, True)
    with pytest.raises(ValueError, match="letter 'c' is not in the alphabet 'ab'"):
        by_ids.accepts("abc")


@FAST
@given(dfas())
def test_json_and_table_round_trips(dfa: DFA) -> None:
    data = dfa.to_json()
    assert parse_submission(data, dfa.alphabet) == dfa
    assert parse_submission(json.dumps(data), dfa.alphabet) == dfa
    table = json.loads(json.dumps(dfa.to_table()))
    assert DFA.from_table(table) == dfa
    # Without the alphabet key the submission is still over the target's alphabet.
    del data["alphabet"]
    assert parse_submission(data, dfa.alphabet) == dfa


def test_from_table_rejects_malformed_tables() -> None:
    with pytest.raises(ValueError, match="not a DFA table"):
        DFA.from_table({"alphabet": "ab", "accepting": []})
    with pytest.raises(ValueError, match="not a DFA table"):
        DFA.from_table({"alphabet": "ab", "delta": "00", "accepting": []})
    with pytest.raises(ValueError):
        DFA.from_table({"alphabet": "ab", "delta": [[0, 2]], "accepting": []})


def test_describe_marks_start_and_accepting() -> None:
    text = DFA.build("ab", [[1, 0], [1, 1]], [1]).describe().splitlines()
    assert text[0].split() == ["state", "a", "b"]
    assert text[1].startswith("-> q0") and text[2].startswith("  *q1")


# -- the submission parser ------------------------------------------------------------

AB = ("a", "b")


def _good() -> dict[str, Any]:
    return {
        "states": ["s", "t"],
        "alphabet": ["a", "b"],
        "start": "s",
        "accepting": ["t"],
        "transitions": [["s", "a", "t"], ["s", "b", "s"], ["t", "a", "t"], ["t", "b", "s"]],
    }


def _with(**changes: Any) -> dict[str, Any]:
    data = _good()
    for key, value in changes.items():
        if value is None:
            del data[key]
        else:
            data[key] = value
    return data


EXPECTED = DFA.build(AB, [[1, 0], [1, 0]], [1])


def test_parse_good_submissions_in_every_form() -> None:
    assert parse_submission(_good(), AB) == EXPECTED
    mapping = {"s": {"a": "t", "b": "s"}, "t": {"a": "t", "b": "s"}}
    assert parse_submission(_with(transitions=mapping), AB) == EXPECTED
    src_sym_dst = [{"src": s, "sym": a, "dst": d} for s, a, d in _good()["transitions"]]
    assert parse_submission(_with(transitions=src_sym_dst), AB) == EXPECTED
    from_letter_to = [{"from": s, "letter": a, "to": d} for s, a, d in _good()["transitions"]]
    assert parse_submission(_with(transitions=from_letter_to), AB) == EXPECTED
    # Integer names, a string alphabet, letters listed in another order, repeated edges.
    ints = {
        "states": [0, 1],
        "alphabet": "ba",
        "start": 0,
        "accepting": [1],
        "transitions": [[0, "a", 1], [0, "b", 0], [1, "a", 1], [1, "b", 0], [1, "b", 0]],
    }
    assert parse_submission(ints, AB) == EXPECTED
    assert parse_submission(json.dumps(ints), AB) == EXPECTED
    # State order fixes the numbering; the start need not be the first state.
    moved = _with(states=["t", "s"])
    assert parse_submission(moved, AB) == DFA.build(AB, [[0, 1], [0, 1]], [0], start=1)


def test_invalid_dfa_error_is_an_invalid_query() -> None:
    assert issubclass(InvalidDfaError, InvalidQueryError)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "must be a JSON object"),
        (_with(start=None), "no 'start' field"),
        (_with(transitions=None), "no 'transitions' field"),
        (_with(states=None), "no 'states' field"),
        (_with(accepting=None), "no 'accepting' field"),
        ({**_good(), "initial": "s"}, r"unknown field\(s\) in the hypothesis: initial"),
        (_with(states=["s", "t", "s"]), "state names must be distinct"),
        (_with(states=["s", 1, "1"]), "state names must be distinct"),
        (_with(states=[]), "non-empty list"),
        (_with(states="st"), "non-empty list"),
        (_with(states=["s", 2.5]), "each state must be a state name"),
        (_with(start="u"), "start state 'u' is not one of the listed states"),
        (_with(start=True), "start must be a state name"),
        (_with(accepting=["u"]), "accepting state 'u' is not one of the listed states"),
        (_with(accepting="t"), "accepting must be a list"),
        (
            _with(transitions=[*_good()["transitions"][:3], ["t", "b", "u"]]),
            "target state 'u' is not one of the listed states",
        ),
        (
            _with(transitions=[*_good()["transitions"][:3], ["u", "b", "s"]]),
            "source state 'u' is not one of the listed states",
        ),
        (
            _with(transitions=[*_good()["transitions"], ["t", "c", "s"]]),
            r"letter 'c' is not in the alphabet \{a, b\}",
        ),
        (
            _with(transitions=[*_good()["transitions"], ["t", "ab", "s"]]),
            r"letter 'ab' is not in the alphabet",
        ),
        (_with(alphabet=["a", "b", "c"]), r"the alphabet must be exactly \{a, b\}"),
        (_with(alphabet=["a"]), r"the alphabet must be exactly \{a, b\}"),
        (_with(alphabet=5), r"the alphabet must be exactly \{a, b\}"),
        (
            _with(transitions=[*_good()["transitions"], ["s", "a", "s"]]),
            "nondeterministic: state 's' has two transitions on 'a'",
        ),
        (
            _with(transitions=_good()["transitions"][:2]),
            r"incomplete: no transition for \('t', 'a'\), \('t', 'b'\)$",
        ),
        (_with(transitions={"s": {"a": "t", "b": "s"}}), r"no transition for \('t', 'a'\)"),
        (_with(transitions={"s": ["t", "s"]}), r"transitions\['s'\] must map letters"),
        (_with(transitions=[["s", "a"]]), r"transitions\[0\] must be \[source, letter, target\]"),
        (_with(transitions=[{"src": "s", "sym": "a"}]), r"transitions\[0\] must be"),
        (_with(transitions="s a t"), "transitions must be a list"),
    ],
)
def test_parse_errors_say_what_is_wrong(data: Any, message: str) -> None:
    with pytest.raises(InvalidDfaError, match=message):
        parse_submission(data, AB)


def test_incomplete_lists_the_first_missing_pairs_and_a_count() -> None:
    data = _with(states=[f"q{i}" for i in range(4)], transitions=[], accepting=[], start="q0")
    with pytest.raises(InvalidDfaError) as info:
        parse_submission(data, AB)
    assert str(info.value) == (
        "incomplete: no transition for ('q0', 'a'), ('q0', 'b'), ('q1', 'a'), "
        "('q1', 'b'), ('q2', 'a') and 3 more"
    )


def test_too_many_states_is_refused() -> None:
    biggest = DFA.build(AB, [[0, 0]] * MAX_SUBMITTED_STATES, []).to_json()
    assert parse_submission(biggest, AB).n == MAX_SUBMITTED_STATES
    names = [f"q{i}" for i in range(MAX_SUBMITTED_STATES + 1)]
    with pytest.raises(InvalidDfaError, match=f"at most {MAX_SUBMITTED_STATES} states, got 1001"):
        parse_submission(_with(states=names), AB)
