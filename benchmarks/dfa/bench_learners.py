"""Active learners side by side: our L*, KV and TTT against AALpy's L* and KV.

Every algorithm learns the same uniform minimal targets (``sample_minimal_dfa``, seeded)
under the same counterexample policy (our ``counterexample()``; ``short_random`` by default,
``--mode minimal`` for shortest ones). Membership queries are one-bit and counted once per
distinct word; an EQ witness's label is free for everyone (notes/dfa.md 2.2/2.3). AALpy runs
with ``cache_and_non_det_check=False`` (L*: ``all_prefixes_in_obs_table=False``) on a SUL
that answers one bit per word from a word cache.

Times are medians of the whole run ("total") and of the learner alone ("learner": total
minus the time spent inside the teacher's MQ/EQ, which is the same code for everybody;
turning AALpy's hypothesis into our ``DFA`` counts as learner time, since our learners build
that same object for every EQ).
Ratios are ours / AALpy on the same targets. The last lines give the share of targets with
n >= 20 on which TTT's MQ+EQ is at most KV's.

Usage: python benchmarks/dfa/bench_learners.py [--quick] [--mode short_random|minimal]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run from a checkout

from aalpy.automata import Dfa as AalpyDfa
from aalpy.base import SUL
from aalpy.base import Oracle as AalpyOracle
from aalpy.learning_algs import run_KV, run_Lstar

from blackboxes.automata.dfa import DFA
from blackboxes.automata.learners import LEARNERS
from blackboxes.automata.oracle import COUNTEREXAMPLE_MODES, CounterexampleMode, counterexample
from blackboxes.automata.sampling import sample_minimal_dfa
from oracle_bench.rng import rng_for

SIZES = (5, 10, 20, 50, 100)
SEED = 2026


@dataclass
class Teacher:
    """Our side: answers from the target, counts distinct words, times itself."""

    target: DFA
    mode: CounterexampleMode
    answers: dict[str, bool] = field(default_factory=dict)
    eq_count: int = 0
    seconds: float = 0.0

    @property
    def alphabet(self) -> tuple[str, ...]:
        return self.target.alphabet

    def mq(self, word: str) -> bool:
        start = time.perf_counter()
        known = self.answers.get(word)
        if known is None:
            known = self.answers[word] = self.target.accepts(word)
        self.seconds += time.perf_counter() - start
        return known

    def eq(self, hypothesis: DFA) -> str | None:
        start = time.perf_counter()
        self.eq_count += 1
        witness = counterexample(self.target, hypothesis, self.mode)
        if witness is not None:
            self.answers.setdefault(witness, not hypothesis.accepts(witness))
        self.seconds += time.perf_counter() - start
        return witness


class BitSUL(SUL):
    """AALpy's side: one bit per query (the whole word's label), from the same word cache."""

    def __init__(self, teacher: Teacher) -> None:
        super().__init__()
        self.teacher = teacher

    def query(self, word: tuple) -> list:
        return [self.teacher.mq("".join(word))]

    def pre(self) -> None:  # pragma: no cover - query() never steps
        pass

    def post(self) -> None:  # pragma: no cover
        pass

    def step(self, letter: object) -> bool:  # pragma: no cover
        raise NotImplementedError


def from_aalpy(hyp: AalpyDfa, alphabet: tuple[str, ...]) -> DFA:
    states = [hyp.initial_state] + [s for s in hyp.states if s is not hyp.initial_state]
    ids = {id(s): i for i, s in enumerate(states)}
    delta = [[ids[id(s.transitions[a])] for a in alphabet] for s in states]
    return DFA.build(alphabet, delta, [bool(s.is_accepting) for s in states])


class CexOracle(AalpyOracle):
    """AALpy's EQ oracle: converts the hypothesis and asks our teacher."""

    def __init__(self, teacher: Teacher, sul: SUL) -> None:
        super().__init__(list(teacher.alphabet), sul)
        self.teacher = teacher

    def find_cex(self, hypothesis: AalpyDfa) -> tuple[str, ...] | None:
        # The conversion is learner time: our learners build the same DFA for every EQ.
        witness = self.teacher.eq(from_aalpy(hypothesis, self.teacher.alphabet))
        return None if witness is None else tuple(witness)


def aalpy_lstar(teacher: Teacher) -> DFA:
    sul = BitSUL(teacher)
    hyp = run_Lstar(
        list(teacher.alphabet),
        sul,
        CexOracle(teacher, sul),
        "dfa",
        cache_and_non_det_check=False,
        all_prefixes_in_obs_table=False,
        print_level=0,
    )
    return from_aalpy(hyp, teacher.alphabet)


def aalpy_kv(teacher: Teacher) -> DFA:
    sul = BitSUL(teacher)
    hyp = run_KV(
        list(teacher.alphabet),
        sul,
        CexOracle(teacher, sul),
        "dfa",
        cache_and_non_det_check=False,
        print_level=0,
    )
    return from_aalpy(hyp, teacher.alphabet)


ALGORITHMS: dict[str, Callable[[Teacher], DFA]] = {
    "L*": LEARNERS["lstar"],
    "KV": LEARNERS["kv"],
    "TTT": LEARNERS["ttt"],
    "AALpy L*": aalpy_lstar,
    "AALpy KV": aalpy_kv,
}
PAIRS = (("L*", "AALpy L*"), ("KV", "AALpy KV"))


@dataclass
class Run:
    mq: int
    eq: int
    total_s: float
    learner_s: float

    @property
    def cost(self) -> int:
        return self.mq + self.eq


def run_one(name: str, target: DFA, mode: CounterexampleMode) -> Run:
    teacher = Teacher(target, mode)
    start = time.perf_counter()
    dfa = ALGORITHMS[name](teacher)
    elapsed = time.perf_counter() - start
    if not (dfa.n == target.n and dfa.equivalent(target)):
        raise SystemExit(f"{name} learned a wrong DFA ({dfa.n} states, target {target.n})")
    return Run(len(teacher.answers), teacher.eq_count, elapsed, elapsed - teacher.seconds)


def _med(values: list[float]) -> float:
    return statistics.median(values)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer targets per size")
    parser.add_argument("--targets", type=int, help="targets per size (default 30, quick 6)")
    parser.add_argument("--mode", choices=COUNTEREXAMPLE_MODES, default="short_random")
    args = parser.parse_args()
    count = args.targets or (6 if args.quick else 30)

    print(f"counterexamples: {args.mode}; {count} uniform minimal targets per n over {{a,b}}")
    header = (
        f"{'n':>4} {'algorithm':<9} {'MQ':>7} {'EQ':>5} {'MQ+EQ':>7} "
        f"{'total ms':>9} {'learner ms':>10}"
    )
    print(header)
    ttt_wins = ttt_runs = 0
    for n in SIZES:
        targets = [
            sample_minimal_dfa(rng_for(SEED, "bench-learners", n, i), n) for i in range(count)
        ]
        runs: dict[str, list[Run]] = {name: [] for name in ALGORITHMS}
        for target in targets:
            # Interleave the algorithms per target so drifts hit all of them alike.
            for name in ALGORITHMS:
                runs[name].append(run_one(name, target, args.mode))
        for name, rs in runs.items():
            print(
                f"{n:>4} {name:<9} {_med([r.mq for r in rs]):>7.1f} "
                f"{_med([r.eq for r in rs]):>5.1f} {_med([r.cost for r in rs]):>7.1f} "
                f"{1e3 * _med([r.total_s for r in rs]):>9.2f} "
                f"{1e3 * _med([r.learner_s for r in rs]):>10.2f}"
            )
        for ours, theirs in PAIRS:
            a, b = runs[ours], runs[theirs]
            mq_ratio = _med([x.mq / y.mq for x, y in zip(a, b, strict=True)])
            total_ratio = _med([x.total_s / y.total_s for x, y in zip(a, b, strict=True)])
            learner_ratio = _med([x.learner_s / y.learner_s for x, y in zip(a, b, strict=True)])
            print(
                f"{n:>4} {ours}/{theirs}: MQ x{mq_ratio:.3f}, time total x{total_ratio:.2f}, "
                f"learner x{learner_ratio:.2f} (medians of per-target ratios)"
            )
        wins = sum(t.cost <= k.cost for t, k in zip(runs["TTT"], runs["KV"], strict=True))
        print(f"{n:>4} TTT MQ+EQ <= KV's on {wins}/{count} targets")
        if n >= 20:
            ttt_wins += wins
            ttt_runs += count
        print()
    if ttt_runs:
        print(
            f"n >= 20: TTT MQ+EQ <= KV's on {ttt_wins}/{ttt_runs} targets "
            f"({100 * ttt_wins / ttt_runs:.0f} %; target >= 60 %)"
        )


if __name__ == "__main__":
    main()
