"""The active learners L*, KV and TTT: exact results, query bounds and TTT's internals.

Correctness is checked against the target by exact equivalence; query counts against
hand-computed values (one-state targets) and against AALpy 2.0.0's L* and KV on a one-bit,
word-cached SUL (the reference the notes use, notes/dfa.md 2.2/2.3).
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

import pytest

from blackboxes.automata.dfa import DFA
from blackboxes.automata.learners import LEARNERS, LearnResult, kv, learn, lstar, ttt
from blackboxes.automata.learners._common import rs_breakpoint
from blackboxes.automata.learners._ttt import TTTLearner, _Node
from blackboxes.automata.oracle import (
    COUNTEREXAMPLE_MODES,
    CountedOracle,
    CounterexampleMode,
    Oracle,
    TargetOracle,
    counterexample,
)
from blackboxes.automata.sampling import sample_minimal_dfa
from oracle_bench.errors import UnknownNameError
from oracle_bench.rng import rng_for

ABC = ("a", "b", "c")


def _targets(
    count: int, low: int, high: int, tag: str, alphabet: tuple[str, ...] = ("a", "b")
) -> list[DFA]:
    out = []
    for i in range(count):
        rng = rng_for(2026, "learners", tag, i)
        out.append(sample_minimal_dfa(rng, rng.randint(low, high), alphabet))
    return out


# -- oracles ----------------------------------------------------------------------------


@dataclass
class CheckedOracle:
    """Checks what the learner asks (letters, alphabet) and counts every MQ call."""

    inner: Oracle
    words: int = 0

    @property
    def alphabet(self) -> tuple[str, ...]:
        return self.inner.alphabet

    def mq(self, word: str) -> bool:
        assert set(word) <= set(self.alphabet), word
        self.words += 1
        return self.inner.mq(word)

    def eq(self, hypothesis: DFA) -> str | None:
        assert hypothesis.alphabet == self.alphabet
        return self.inner.eq(hypothesis)


def _live_states(dfa: DFA) -> set[int]:
    """States from which an accepting state can be reached."""
    back: dict[int, set[int]] = {q: set() for q in range(dfa.n)}
    for q, row in enumerate(dfa.delta):
        for t in row:
            back[t].add(q)
    live = {q for q in range(dfa.n) if dfa.accepting[q]}
    todo = deque(live)
    while todo:
        for p in back[todo.popleft()]:
            if p not in live:
                live.add(p)
                todo.append(p)
    return live


@dataclass
class LongWalkOracle:
    """Adversarial: a counterexample of length >= ``min_len``, a random walk through live
    states of the symmetric difference, closed by its shortest accepted continuation."""

    target: DFA
    min_len: int = 50
    seed: int = 0
    calls: int = 0
    lengths: list[int] = field(default_factory=list)

    @property
    def alphabet(self) -> tuple[str, ...]:
        return self.target.alphabet

    def mq(self, word: str) -> bool:
        return self.target.accepts(word)

    def eq(self, hypothesis: DFA) -> str | None:
        self.calls += 1
        diff = self.target.symmetric_difference(hypothesis)
        live = _live_states(diff)
        if diff.start not in live:
            return None
        rng = rng_for(self.seed, "long-walk", self.calls)
        q, letters = diff.start, []
        for _ in range(self.min_len):
            a = rng.choice([i for i, t in enumerate(diff.delta[q]) if t in live])
            letters.append(diff.alphabet[a])
            q = diff.delta[q][a]
        rest = DFA(diff.alphabet, diff.delta, diff.accepting, q).shortest_accepted()
        assert rest is not None
        word = "".join(letters) + rest
        assert self.target.accepts(word) != hypothesis.accepts(word)
        self.lengths.append(len(word))
        return word


@dataclass
class LastShortestOracle:
    """Adversarial in another way: the lexicographically LAST shortest counterexample."""

    target: DFA

    @property
    def alphabet(self) -> tuple[str, ...]:
        return self.target.alphabet

    def mq(self, word: str) -> bool:
        return self.target.accepts(word)

    def eq(self, hypothesis: DFA) -> str | None:
        shortest = self.target.distinguishing_word(hypothesis)
        if shortest is None:
            return None
        diff = self.target.symmetric_difference(hypothesis)
        counts = diff.accepted_counts(len(shortest))
        last = counts[len(shortest)][diff.start] - 1
        return diff.nth_accepted_of_length(len(shortest), last, counts)


def _check(result: DFA, target: DFA) -> None:
    assert result.equivalent(target)
    assert result.n == target.n
    assert result == result.canonical()
    assert result == target.canonical()  # minimal + canonical: the same table


# -- public API -------------------------------------------------------------------------


def test_registry_and_learn() -> None:
    assert list(LEARNERS) == ["kv", "lstar", "ttt"]
    assert LEARNERS == {"kv": kv, "lstar": lstar, "ttt": ttt}
    target = _targets(1, 6, 6, "api")[0]
    result = learn("ttt", TargetOracle(target))
    assert isinstance(result, LearnResult)
    _check(result.dfa, target)
    assert result.total == result.mq + result.eq
    counted = CountedOracle(TargetOracle(target))
    assert ttt(counted) == result.dfa
    assert (counted.mq_count, counted.eq_count) == (result.mq, result.eq)


def test_unknown_learner() -> None:
    with pytest.raises(UnknownNameError) as info:
        learn("lsharp", TargetOracle(DFA.universal(("a", "b"))))
    assert info.value.what == "learner"
    assert info.value.available == ["kv", "lstar", "ttt"]


@pytest.mark.parametrize("name", sorted(LEARNERS))
@pytest.mark.parametrize("alphabet", [("a", "b"), ABC])
@pytest.mark.parametrize("accept", [True, False])
def test_one_state_targets(name: str, alphabet: tuple[str, ...], accept: bool) -> None:
    """Sigma* and the empty language: the empty word and each letter, then one EQ."""
    target = DFA.universal(alphabet, accept)
    result = learn(name, TargetOracle(target))
    assert result.dfa == target
    assert (result.mq, result.eq) == (1 + len(alphabet), 1)


# -- correctness on uniform targets --------------------------------------------------------

SWEEP = _targets(200, 2, 30, "sweep")


@pytest.mark.parametrize("mode", COUNTEREXAMPLE_MODES)
@pytest.mark.parametrize("name", sorted(LEARNERS))
def test_learns_uniform_minimal_targets(name: str, mode: CounterexampleMode) -> None:
    """200 uniform minimal DFAs with 2..30 states: the exact target, at most n EQs (one
    state per refinement), and a query count bounded by the tree/table sizes."""
    assert {t.n for t in SWEEP} >= set(range(2, 31))
    for target in SWEEP:
        counted = CountedOracle(TargetOracle(target, mode))
        checked = CheckedOracle(counted)
        _check(LEARNERS[name](checked), target)
        assert counted.eq_count <= target.n
        # The learners' own caches: no word is asked twice, no witness is asked at all.
        assert checked.words == counted.mq_count
        # Every state's access word and both letters' successors must have been asked.
        assert counted.mq_count >= target.n + 1


@pytest.mark.parametrize("name", sorted(LEARNERS))
def test_three_letters(name: str) -> None:
    for mode in COUNTEREXAMPLE_MODES:
        for target in _targets(12, 2, 15, "abc", ABC):
            counted = CountedOracle(TargetOracle(target, mode))
            _check(LEARNERS[name](counted), target)
            assert counted.eq_count <= target.n


@pytest.mark.parametrize("name", sorted(LEARNERS))
def test_long_counterexamples(name: str) -> None:
    """Counterexamples of length 50+ (random walks in the symmetric difference)."""
    for i, target in enumerate(_targets(12, 2, 20, "long") + _targets(4, 2, 10, "long3", ABC)):
        oracle = LongWalkOracle(target, min_len=50 + i, seed=i)
        counted = CountedOracle(oracle)
        _check(LEARNERS[name](counted), target)
        assert counted.eq_count <= target.n
        assert all(length >= 50 + i for length in oracle.lengths)


@pytest.mark.parametrize("name", sorted(LEARNERS))
def test_last_shortest_counterexamples(name: str) -> None:
    for target in _targets(15, 2, 20, "last"):
        counted = CountedOracle(LastShortestOracle(target))
        _check(LEARNERS[name](counted), target)
        assert counted.eq_count <= target.n


# -- oracle failures, determinism --------------------------------------------------------


class Stop(BaseException):
    """Like the evaluator's EpisodeOver: not an Exception subclass."""


@dataclass
class FailingOracle:
    inner: TargetOracle
    mq_budget: int
    eq_budget: int
    error: Callable[[], BaseException]

    @property
    def alphabet(self) -> tuple[str, ...]:
        return self.inner.alphabet

    def mq(self, word: str) -> bool:
        self.mq_budget -= 1
        if self.mq_budget < 0:
            raise self.error()
        return self.inner.mq(word)

    def eq(self, hypothesis: DFA) -> str | None:
        self.eq_budget -= 1
        if self.eq_budget < 0:
            raise self.error()
        return self.inner.eq(hypothesis)


@pytest.mark.parametrize("name", sorted(LEARNERS))
def test_oracle_exceptions_propagate(name: str) -> None:
    target = _targets(1, 12, 12, "fail")[0]
    full = learn(name, TargetOracle(target))
    for mq_budget, eq_budget in [(0, 99), (5, 99), (full.mq - 1, 99), (10**6, 0), (10**6, 2)]:
        for error in (lambda: Stop(), lambda: RuntimeError("box fault")):
            oracle = FailingOracle(TargetOracle(target), mq_budget, eq_budget, error)
            with pytest.raises((Stop, RuntimeError)):
                LEARNERS[name](oracle)
    # Nothing leaked from the aborted runs: a fresh run repeats the first one exactly.
    again = learn(name, TargetOracle(target))
    assert (again.dfa, again.mq, again.eq) == (full.dfa, full.mq, full.eq)


def test_rs_breakpoint_against_brute_force() -> None:
    rng = random.Random(5)
    for _ in range(300):
        length = rng.randint(1, 40)
        values = [rng.random() < 0.5 for _ in range(length + 1)]
        values[-1] = not values[0]
        asked: list[int] = []

        def alpha(i: int, values: list[bool] = values, asked: list[int] = asked) -> bool:
            asked.append(i)
            return values[i]

        i = rs_breakpoint(alpha, length, values[0])
        assert values[i] == values[0] != values[i + 1]
        assert 0 not in asked and length not in asked
        assert len(asked) <= max(0, (length - 1).bit_length())


# -- against AALpy ------------------------------------------------------------------------


def _aalpy_counts(target: DFA, mode: CounterexampleMode, algorithm: str) -> tuple[int, int]:
    """(distinct MQ words, EQs) of AALpy's L* or KV with a one-bit SUL and free witnesses."""
    aalpy_base = pytest.importorskip("aalpy.base")
    learning = pytest.importorskip("aalpy.learning_algs")
    answers: dict[str, bool] = {}
    eqs = [0]

    class BitSUL(aalpy_base.SUL):  # type: ignore[misc, name-defined]
        def query(self, word: tuple) -> list:  # type: ignore[type-arg]
            w = "".join(word)
            if w not in answers:
                answers[w] = target.accepts(w)
            return [answers[w]]

        def pre(self) -> None: ...
        def post(self) -> None: ...
        def step(self, letter: object) -> None: ...

    def convert(hyp: object) -> DFA:
        states = [hyp.initial_state] + [s for s in hyp.states if s is not hyp.initial_state]  # type: ignore[attr-defined]
        ids = {id(s): i for i, s in enumerate(states)}
        delta = [[ids[id(s.transitions[a])] for a in target.alphabet] for s in states]
        return DFA.build(target.alphabet, delta, [bool(s.is_accepting) for s in states])

    class Eq(aalpy_base.Oracle):  # type: ignore[misc, name-defined]
        def find_cex(self, hypothesis: object) -> tuple[str, ...] | None:
            eqs[0] += 1
            hyp = convert(hypothesis)
            witness = counterexample(target, hyp, mode)
            if witness is None:
                return None
            answers.setdefault(witness, not hyp.accepts(witness))
            return tuple(witness)

    sul = BitSUL()
    alphabet = list(target.alphabet)
    if algorithm == "lstar":
        model = learning.run_Lstar(
            alphabet,
            sul,
            Eq(alphabet, sul),
            "dfa",
            cache_and_non_det_check=False,
            all_prefixes_in_obs_table=False,
            print_level=0,
        )
    else:
        model = learning.run_KV(
            alphabet, sul, Eq(alphabet, sul), "dfa", cache_and_non_det_check=False, print_level=0
        )
    assert convert(model).equivalent(target)
    return len(answers), eqs[0]


AALPY_TARGETS = _targets(4, 10, 10, "aalpy") + _targets(4, 25, 25, "aalpy")


@pytest.mark.parametrize("mode", COUNTEREXAMPLE_MODES)
@pytest.mark.parametrize("name", ["kv", "lstar"])
def test_query_counts_against_aalpy(name: str, mode: CounterexampleMode) -> None:
    """Same targets, same counterexamples, same counting: our MQs are within 10 % of
    AALpy's on every target and no more in total; EQs within one of AALpy's."""
    ours_total = theirs_total = 0
    for target in AALPY_TARGETS:
        mine = learn(name, TargetOracle(target, mode))
        theirs_mq, theirs_eq = _aalpy_counts(target, mode, name)
        assert mine.mq <= 1.1 * theirs_mq, (target.n, mine.mq, theirs_mq)
        assert mine.eq <= theirs_eq + 1
        ours_total += mine.mq
        theirs_total += theirs_mq
    assert ours_total <= theirs_total


# -- TTT internals ------------------------------------------------------------------------


def _walk(node: _Node) -> list[_Node]:
    out, stack = [], [node]
    while stack:
        cur = stack.pop()
        out.append(cur)
        stack.extend(cur.children)
    return out


def _check_tree(learner: TTTLearner, target: DFA) -> None:
    """Every label the tree claims for a state's access word or a transition's word is the
    target's, and the tree's leaves are exactly the target's states."""
    nodes = _walk(learner.root)
    leaves = [n for n in nodes if n.disc is None]
    assert sorted(n.state for n in leaves) == list(range(target.n))  # type: ignore[type-var]
    for node in nodes:
        words = [learner._word(t) for t in node.incoming]
        if node.disc is None:
            words.append(learner.access[node.state])  # type: ignore[index]
        child = node
        while child.parent is not None:
            parent = child.parent
            for w in words:
                assert target.accepts(w + parent.disc) == child.label  # type: ignore[operator]
            child = parent
    reached = {target.run(learner.access[q]) for q in range(target.n)}
    assert len(reached) == target.n


@pytest.mark.parametrize("oracle_kind", ["short_random", "long"])
def test_ttt_finalises_temporary_discriminators(oracle_kind: str) -> None:
    restructured = 0
    for i, target in enumerate(_targets(20, 8, 25, "ttt-final")):
        oracle = (
            LongWalkOracle(target, min_len=60, seed=i)
            if oracle_kind == "long"
            else TargetOracle(target, "short_random")
        )
        trace: list[str] = []
        learner = TTTLearner(oracle, trace)
        _check(learner.run(), target)
        stats = learner.stats
        # The root's second side is found by sifting; every other state comes from a
        # split (with its temporary discriminator) or from splitting a block.
        assert stats.temporary + stats.extracted_states == target.n - 2
        assert stats.temporary > 0
        assert stats.finalised > 0
        assert sum(line.startswith("split") for line in trace) == stats.temporary
        assert sum(line.startswith("finalise") for line in trace) == stats.finalised
        restructured += stats.restructured
        discs = learner.discriminators()
        assert len(discs) == target.n - 1
        assert all(final for _, final in discs)
        # Final discriminators are a letter plus another final one: suffix-closed, short.
        found = {d for d, _ in discs}
        assert "" in found
        assert all(d[1:] in found for d in found if d)
        assert max(map(len, found)) <= target.n - 1
        if oracle_kind == "long":
            assert max(map(len, found)) < 50  # the 60+ letter counterexamples left no trace
        _check_tree(learner, target)
    assert restructured > 0


def test_ttt_temporary_discriminators_exist_midway() -> None:
    """Between a split and its finalisation the tree holds a temporary discriminator that
    is the counterexample's long suffix; finalisation then replaces it by a short one."""
    target = _targets(1, 12, 12, "midway")[0]
    oracle = LongWalkOracle(target, min_len=70, seed=3)
    seen: list[tuple[int, int]] = []

    class Spy(TTTLearner):
        def _finalise(self, block: _Node, a: int, sep: _Node) -> None:
            seen.append((len(block.disc or ""), 1 + len(sep.disc or "")))
            assert block.temp
            super()._finalise(block, a, sep)
            assert not block.temp

    _check(Spy(oracle).run(), target)
    assert seen
    assert max(old for old, _ in seen) > 40  # a long temporary suffix was in the tree
    assert all(new <= target.n - 1 for _, new in seen)


def test_ttt_intermediate_trees_stay_truthful() -> None:
    """After every refinement (stable, all final) the tree's labels are the target's."""
    for i, target in enumerate(_targets(10, 5, 18, "truthful")):
        checks = [0]

        class Checking(TTTLearner):
            def _refine(self, word: str, label: bool) -> None:
                super()._refine(word, label)
                assert not self.blocks
                nodes = _walk(self.root)
                for node in nodes:
                    words = [self._word(t) for t in node.incoming]
                    if node.disc is None:
                        assert node.state is not None
                        words.append(self.access[node.state])
                    child = node
                    while child.parent is not None:
                        for w in words:
                            expected = child.label
                            assert target.accepts(w + child.parent.disc) == expected  # type: ignore[operator]
                        child = child.parent
                checks[0] += 1

        oracle = LongWalkOracle(target, min_len=50, seed=i) if i % 2 else TargetOracle(target)
        _check(Checking(oracle).run(), target)
        assert checks[0] >= 1


def test_ttt_not_more_expensive_than_kv_with_long_counterexamples() -> None:
    """TTT's point: long counterexamples cost it less than KV (MQ + EQ), summed."""
    ttt_total = kv_total = 0
    for i, target in enumerate(_targets(10, 10, 25, "ttt-vs-kv")):
        a = CountedOracle(LongWalkOracle(target, min_len=60, seed=i))
        b = CountedOracle(LongWalkOracle(target, min_len=60, seed=i))
        _check(ttt(a), target)
        _check(kv(b), target)
        ttt_total += a.total
        kv_total += b.total
    assert ttt_total <= kv_total
