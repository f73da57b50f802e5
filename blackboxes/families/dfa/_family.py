"""The DFA family: a hidden regular language, explored with membership and equivalence queries."""

from __future__ import annotations

import random
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from blackboxes.automata.counting import minimal_dfa_log2_count
from blackboxes.automata.dfa import DFA
from blackboxes.automata.learners import learn
from blackboxes.automata.oracle import COUNTEREXAMPLE_MODES, CounterexampleMode, TargetOracle
from blackboxes.automata.sampling import sample_minimal_dfa
from blackboxes.box import (
    BoxFacts,
    BoxInfo,
    DfaBaselineCost,
    DfaBoxInfo,
    DfaFacts,
    JSONValue,
    Level,
)
from blackboxes.families import register_family
from blackboxes.families._base import Family, HypothesisSpace, Rule
from blackboxes.information import VersionSpace
from oracle_bench.errors import FamilyError, InvalidQueryError, UnknownNameError, UsageError

__all__ = [
    "BASELINE_LEARNERS",
    "DEFAULT_STATES",
    "AutomatonFamily",
    "kind_for",
    "level_of",
    "states_of",
]

DEFAULT_STATES: dict[str, tuple[int, int]] = {"easy": (2, 5), "hard": (6, 9)}
"""State counts per level: the DFA seed's buckets 2-3, 4-5 (easy) and 6-7, 8-9 (hard)."""
MAX_STATES = 10_000
"""Largest target a rule kind may name (the sampler handles it in about 0.1 s)."""
MAX_GENERATED_STATES = 200
"""Largest ``--states`` for generation: each box runs L*, KV and TTT against the oracle,
which takes seconds per box at 200 states and minutes at 400."""
MAX_ALPHABET = 26
BASELINE_LEARNERS = ("kv", "lstar", "ttt")
_KIND = re.compile(r"states-(\d+)")

_INTRO = """\
You are exploring a black box that hides a regular language over the alphabet {{{letters}}}:
a fixed deterministic finite automaton (DFA) decides, for every word, whether it belongs
to the language.

Membership query: send a word made of the letters {letters} (the empty word is allowed);
the answer is 1 if the word is in the language and 0 if it is not.

Equivalence query: submit a complete DFA; the answer is either that it accepts exactly the
hidden language, or a counterexample word on which it is wrong.

Your goal is an accepted equivalence query within the budget of queries.
"""


def kind_for(states: int) -> str:
    """The rule kind of ``states``-state targets, e.g. ``states-5``."""
    return f"states-{states}"


def states_of(kind: str) -> int:
    """Inverse of :func:`kind_for`; UnknownNameError for anything else."""
    match = _KIND.fullmatch(kind)
    if match is None or not 2 <= int(match.group(1)) <= MAX_STATES:
        raise UnknownNameError("DFA rule kind", kind, [kind_for(2), "...", kind_for(MAX_STATES)])
    return int(match.group(1))


def level_of(states: int) -> Level:
    """``easy`` up to 5 states, ``hard`` above (the DFA seed's 2-5 and 6-9 halves)."""
    return "easy" if states <= DEFAULT_STATES["easy"][1] else "hard"


def _alphabet(size: int) -> tuple[str, ...]:
    return tuple(chr(ord("a") + i) for i in range(size))


@dataclass(frozen=True)
class _Settings:
    states: tuple[int, int] | None = None
    counterexamples: CounterexampleMode = "short_random"
    alphabet_size: int = 2


@register_family
class AutomatonFamily(Family):
    """DFA: a uniform random minimal DFA (Bassino-Nicaud), learnt through MQ and EQ.

    Rules are minimal complete DFAs with exactly n states over ``a, b, ...`` (kind
    ``states-n``), drawn uniformly by the Boltzmann sampler. The box's code answers
    membership queries (1 or 0); equivalence queries are answered by the evaluator from
    hidden.json with the counterexample policy recorded in box.json. log2|H| is the
    number of minimal n-state DFAs (exact for small n, an estimate above); one MQ answer
    is one bit, so T_info = ceil(log2|H|).
    """

    name: ClassVar[str] = "DFA"
    title: ClassVar[str] = "Automaton learning"
    episode: ClassVar[str] = "dfa"
    balanced_kinds: ClassVar[bool] = True

    def __init__(self, settings: _Settings | None = None) -> None:
        self.settings = settings or _Settings()

    def configure(self, **options: Any) -> AutomatonFamily:
        """Options: ``states=(lo, hi)``, ``counterexamples`` ("short_random" | "minimal"),
        ``alphabet_size`` (2 by default)."""
        unknown = set(options) - {"states", "counterexamples", "alphabet_size"}
        if unknown:
            raise UsageError(f"category DFA takes no option {', '.join(sorted(unknown))}")
        states = options.get("states", self.settings.states)
        if states is not None:
            lo, hi = states
            if not 2 <= lo <= hi <= MAX_GENERATED_STATES:
                raise UsageError(
                    f"--states must be a range A-B with 2 <= A <= B <= {MAX_GENERATED_STATES} "
                    f"(the baselines take minutes per box beyond that), got {lo}-{hi}"
                )
            states = (int(lo), int(hi))
        mode = options.get("counterexamples", self.settings.counterexamples)
        if mode not in COUNTEREXAMPLE_MODES:
            raise UsageError(
                f"--counterexamples must be one of {', '.join(COUNTEREXAMPLE_MODES)}, not {mode!r}"
            )
        size = int(options.get("alphabet_size", self.settings.alphabet_size))
        if not 2 <= size <= MAX_ALPHABET:
            raise UsageError(f"--alphabet-size must be between 2 and {MAX_ALPHABET}, not {size}")
        return AutomatonFamily(_Settings(states, mode, size))

    @property
    def alphabet(self) -> tuple[str, ...]:
        return _alphabet(self.settings.alphabet_size)

    # -- rules ---------------------------------------------------------------
    def kinds(self, level: Level) -> tuple[str, ...]:
        if level not in DEFAULT_STATES:
            raise UnknownNameError("level", str(level), list(DEFAULT_STATES))
        lo, hi = self.settings.states or DEFAULT_STATES[level]
        return tuple(kind_for(n) for n in range(lo, hi + 1))

    def sample_rule(self, rng: random.Random, level: Level, kind: str | None = None) -> Rule:
        """A uniform minimal DFA with the kind's state count (uniform kind unless given)."""
        name = rng.choice(self.kinds(level)) if kind is None else kind
        target = sample_minimal_dfa(rng, states_of(name), self.alphabet)
        params = {**target.to_table(), "counterexamples": self.settings.counterexamples}
        return self._rule(name, level, params)

    def _rule(self, kind: str, level: Level, params: Mapping[str, JSONValue]) -> Rule:
        states = states_of(kind)
        try:
            target = DFA.from_table(dict(params))
        except ValueError as exc:
            raise FamilyError(f"DFA parameters: {exc}") from None
        mode = params.get("counterexamples", "short_random")
        if mode not in COUNTEREXAMPLE_MODES:
            raise FamilyError(f"unknown counterexample mode {mode!r}")
        if target.n != states or not target.is_minimal() or target != target.canonical():
            raise FamilyError(f"the target is not a canonical minimal {states}-state DFA")
        checked: dict[str, JSONValue] = {**target.to_table(), "counterexamples": mode}

        def fn(x: JSONValue) -> JSONValue:
            if not isinstance(x, str):
                raise InvalidQueryError(f"a DFA query must be a word, got {x!r}")
            return int(target.accepts(x))

        return Rule(
            family=self.name,
            kind=kind,
            # A box's level follows its own size, whatever range the suite spans.
            level=level_of(states),
            params=checked,
            description=_describe(target),
            fn=fn,
        )

    def rule_from_params(self, kind: str, level: Level, params: Mapping[str, JSONValue]) -> Rule:
        return self._rule(kind, level, params)

    def hypothesis_space(self, kind: str, level: Level) -> HypothesisSpace:
        count = minimal_dfa_log2_count(states_of(kind), self.settings.alphabet_size)
        if count.exact:
            return HypothesisSpace(log2_h=count.log2, log2_y=1.0)
        return HypothesisSpace(
            log2_h=count.log2,
            log2_y=1.0,
            exact=False,
            low=count.low,
            high=count.high,
            confidence=count.confidence,
        )

    def version_space(self, level: Level, kind: str | None = None) -> VersionSpace:
        raise FamilyError(
            "DFA boxes have no enumerable version space; their baselines are lstar, kv and ttt"
        )

    def box_records(self, box_id: str, rule: Rule) -> tuple[BoxInfo, BoxFacts]:
        """box.json with the alphabet and the reference cost (the budget's basis), and
        facts.json with the state count, the counterexample policy and the classic
        learners' costs under it."""
        info, facts = super().box_records(box_id, rule)
        target = DFA.from_table(dict(rule.params))
        mode: CounterexampleMode = rule.params["counterexamples"]
        costs = {}
        for name in BASELINE_LEARNERS:
            result = learn(name, TargetOracle(target, mode))
            if not result.dfa.equivalent(target):  # pragma: no cover - learners are tested
                raise FamilyError(f"baseline {name} failed to learn box {box_id}")
            costs[name] = DfaBaselineCost(mq=result.mq, eq=result.eq)
        public = DfaBoxInfo(
            alphabet=list(target.alphabet),
            reference_cost=min(costs["lstar"].total, costs["ttt"].total),
        )
        owner = DfaFacts(states=target.n, counterexamples=mode, baselines=costs)
        return info.model_copy(update={"dfa": public}), facts.model_copy(update={"dfa": owner})

    # -- code ----------------------------------------------------------------
    def code_template(self, rule: Rule) -> tuple[str, dict[str, Any]]:
        target = DFA.from_table(dict(rule.params))
        return "code/dfa/membership.py.j2", {
            "alphabet": "".join(target.alphabet),
            "delta": [list(row) for row in target.delta],
            "accepting": [q for q in range(target.n) if target.accepting[q]],
        }

    # -- protocol ------------------------------------------------------------
    def task_intro(self, level: Level) -> str:
        self.kinds(level)
        return _INTRO.format(letters=", ".join(self.alphabet))

    @property
    def input_schema(self) -> str:
        return f"a word over the letters {', '.join(self.alphabet)} (possibly empty)"

    @property
    def output_schema(self) -> str:
        return "1 if the word is in the hidden language, else 0"

    def parse_query(self, text: str) -> JSONValue:
        if not isinstance(text, str):
            raise InvalidQueryError(f"a query must be text, got {type(text).__name__}")
        # The same rule as the DFA episode's tools: the empty word is written "" (no
        # aliases such as "ε", which could be letters of some alphabet).
        word = text.strip().strip("\"'`")
        foreign = sorted({c for c in word if c not in self.alphabet})
        if foreign:
            raise InvalidQueryError(
                f"letter(s) {', '.join(map(repr, foreign))} not in the alphabet "
                f"{{{', '.join(self.alphabet)}}}"
            )
        return word

    def format_query(self, x: JSONValue) -> str:
        return str(x)

    def render_output(self, y: JSONValue) -> str:
        if y not in (0, 1) or isinstance(y, bool):
            raise FamilyError(f"a DFA box answers 0 or 1, got {y!r}")
        return str(y)

    def normalise_answer(self, text: str) -> str:
        return text.strip()

    # -- inputs --------------------------------------------------------------
    def _random_word(self, rng: random.Random, max_len: int) -> str:
        return "".join(rng.choice(self.alphabet) for _ in range(rng.randint(0, max_len)))

    def random_query(self, rng: random.Random) -> JSONValue:
        return self._random_word(rng, 12)

    def exploration_plan(self, level: Level, turns: int) -> list[JSONValue]:
        """The first ``turns`` words in shortlex order."""
        words = DFA.universal(self.alphabet).words_up_to(64)
        return [next(words) for _ in range(turns)]

    def query_pool(
        self,
        rng: random.Random,
        level: Level,
        n: int,
        asked: Sequence[JSONValue] = (),
    ) -> list[JSONValue]:
        return [self._random_word(rng, 12) for _ in range(n)]

    def test_inputs(
        self, rng: random.Random, k: int, exclude: Collection[JSONValue]
    ) -> list[JSONValue]:
        seen = set(exclude)
        out: list[JSONValue] = []
        while len(out) < k:
            word = self._random_word(rng, 20)
            if word not in seen:
                seen.add(word)
                out.append(word)
        return out

    def differential_inputs(self, rng: random.Random, n: int) -> list[JSONValue]:
        """Every word up to the length that fits half of ``n`` in shortlex order (edge cases),
        then random words up to length 64 (long enough to reach every state of large targets)."""
        out: list[JSONValue] = []
        for word in DFA.universal(self.alphabet).words_up_to(64):
            if len(out) >= n // 2:
                break
            out.append(word)
        while len(out) < n:
            out.append(self._random_word(rng, 64))
        return out


def _describe(target: DFA) -> str:
    accepting = [f"q{q}" for q in range(target.n) if target.accepting[q]]
    return (
        f"Membership in the language of a minimal DFA with {target.n} states over "
        f"{{{', '.join(target.alphabet)}}}: start in q0, follow one transition per letter, and "
        f"answer 1 if the final state is accepting ({', '.join(accepting) or 'none'}), else 0.\n"
        + target.describe()
    )
