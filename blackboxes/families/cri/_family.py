"""The CRI family: circuit rule inference (n-bit vector -> the bits of a hidden circuit)."""

from __future__ import annotations

import random
import textwrap
import threading
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar, cast, get_args

from blackboxes.box import JSONValue, Level
from blackboxes.families import register_family
from blackboxes.families._base import Family, HypothesisSpace, Rule
from blackboxes.families.cri import _inputs
from blackboxes.families.cri._kind import CircuitKind, Mode, describe_inputs
from blackboxes.families.cri._kinds import EASY_BITS, HARD_BITS, KINDS, LEVEL_KINDS
from blackboxes.information import MixtureVersionSpace, VersionSpace
from blackboxes.planning import greedy_joint_plan
from oracle_bench.errors import FamilyError, InvalidQueryError, UnknownNameError, UsageError
from oracle_bench.rng import rng_for

__all__ = ["DEFAULT_MODE", "MODES", "CircuitRuleInference"]

MODES: tuple[Mode, ...] = get_args(Mode)
DEFAULT_MODE: Mode = "outputs"
"""Only the output wires: a true black box, whose H is the kind's set of functions. ``gates``
(ORACLE's mode) shows every gate, so one query reveals most of the wiring."""

_LEVEL_BITS: dict[str, int] = {"easy": EASY_BITS, "hard": HARD_BITS}
_MAX_WIDTH = 512

_SHOWN: dict[Mode, str] = {
    "outputs": "the circuit's {width} output bits, output 0 first",
    "gates": (
        "the values of all {width} gates of the circuit, gate 0 first, in the circuit's fixed "
        "order (so internal values are visible)"
    ),
}

_INTRO = (
    "You are exploring a black box that computes a fixed, hidden boolean function of {n} "
    "input bits, built as a circuit of logic gates (AND, OR, XOR, NOT and their negations).",
    "Query: send one input vector of exactly {n} bits, for example {example}, "
    "[{listed}] or {spaced}. Only the characters 0 and 1, spaces, commas, semicolons, "
    "brackets and parentheses may appear; in a comma-separated list each item is one bit. "
    "Any other character, or a number of bits other than {n}, is rejected (and costs the "
    "turn).",
    "Answer: {shown}, as a string of 0s and 1s such as {answer_example}. The box is "
    "deterministic: the same input always gives the same bits.",
    "Evaluation: after exploring, you are given {items} new input vectors (none of them one "
    "you queried) and must answer the exact bits of each. Answers are compared after "
    "dropping every character other than 0 and 1, so all {width} bits must be right and in "
    "order.",
)

_GATE_SPEC = (
    "The circuit has {count} gates g0..g{last}, evaluated in this order. Each gate applies its "
    "operation to the listed wires (xi are inputs, gj earlier gates): AND is 1 iff all its "
    "inputs are 1; OR is 1 iff at least one is 1; XOR is 1 iff an odd number are 1; NAND, NOR "
    "and XNOR are the negations of AND, OR and XOR; NOT negates its one input; BUF copies it.\n"
    "{listing}\n"
    "Output: a string of {count} characters '0'/'1'; character j is the value of gj."
)


@dataclass(frozen=True)
class _Settings:
    mode: Mode = DEFAULT_MODE
    inputs: int | None = None
    """Set when serving one box: its input bits."""
    width: int | None = None
    """Set when serving one box: its observed bits (outputs, or gates in ``gates`` mode)."""


@register_family
class CircuitRuleInference(Family):
    """CRI: a hidden boolean circuit maps n-bit vectors to bits.

    Protocol. X: strings of n characters 0/1 (n = 8 at easy, 10 at hard; a box's n is in its
    box.json), parsed leniently (``[1,0,1]``, ``1 0 1``, ``101``) but strictly about meaning.
    Y: the observed wires' bits as a 0/1 string: the outputs (default) or, in ``gates`` mode,
    every gate in order. log2|Y| is the number of observed bits. Held-out vectors are uniform
    over those not queried; answers are checked exactly after dropping every character other
    than 0 and 1.
    """

    name: ClassVar[str] = "CRI"
    title: ClassVar[str] = "Circuit rule inference"
    test_items: ClassVar[int] = 10
    # The plan is joint information on draws of every kind; the agents' version space has
    # the DAG kinds as all functions, so greedy scores alone are a worse guide in close
    # calls (a 100-box simulation: 2@1 adaptive 0.544 pure greedy, 0.571 with the margin,
    # fixed 0.583; 5@1 0.670 and 0.694 vs fixed 0.663).
    plan_margin: ClassVar[float | None] = 0.25

    def __init__(self, settings: _Settings | None = None) -> None:
        self.settings = settings or _Settings()

    @property
    def mode(self) -> Mode:
        return self.settings.mode

    def configure(self, **options: Any) -> CircuitRuleInference:
        """Options: ``output_mode`` (``outputs``, the default, or ``gates``)."""
        unknown = set(options) - {"output_mode"}
        if unknown:
            raise UsageError(f"category CRI takes no option {', '.join(sorted(unknown))}")
        mode = options.get("output_mode")
        if mode is None:
            return self
        if mode not in MODES:
            raise UsageError(f"--output-mode must be one of {', '.join(MODES)}, not {mode!r}")
        return CircuitRuleInference(replace(self.settings, mode=cast(Mode, mode)))

    # -- interface -----------------------------------------------------------
    def _bits(self, level: Level | None = None) -> int:
        if self.settings.inputs is not None:
            return self.settings.inputs
        if level is None:
            return max(_LEVEL_BITS.values())
        self.kinds(level)
        return _LEVEL_BITS[level]

    def interface_of(self, rule: Rule) -> dict[str, JSONValue]:
        spec = KINDS.get(rule.kind)
        if spec is None:
            # An LLM-designed rule: the level's width, one output bit, as its designer is told.
            return {"inputs": _LEVEL_BITS[rule.level], "outputs": 1, "mode": "outputs"}
        return {"inputs": spec.n, "outputs": spec.observed_width(self.mode), "mode": self.mode}

    def for_interface(self, interface: Mapping[str, JSONValue]) -> CircuitRuleInference:
        """A box's family: its input bits, observed bits and output mode from box.json."""
        unknown = set(interface) - {"inputs", "outputs", "mode"}
        if unknown:
            raise FamilyError(f"unknown CRI interface setting {', '.join(sorted(unknown))}")
        n, width, mode = interface.get("inputs"), interface.get("outputs"), interface.get("mode")
        if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= 16:
            raise FamilyError(f"CRI box interface: inputs must be 1..16, got {n!r}")
        if not isinstance(width, int) or isinstance(width, bool) or not 1 <= width <= _MAX_WIDTH:
            raise FamilyError(f"CRI box interface: outputs must be 1..{_MAX_WIDTH}, got {width!r}")
        if mode not in MODES:
            raise FamilyError(f"CRI box interface: unknown output mode {mode!r}")
        return CircuitRuleInference(_Settings(cast(Mode, mode), n, width))

    def prior_key(self, level: Level) -> tuple[str | int, ...]:
        return (self.name, level, self._bits(level), self.settings.width or 0, self.mode)

    # -- rules ---------------------------------------------------------------
    def kinds(self, level: Level) -> tuple[str, ...]:
        if level not in LEVEL_KINDS:
            raise UnknownNameError("level", str(level), list(LEVEL_KINDS))
        return tuple(k for k in LEVEL_KINDS[level] if self.mode in KINDS[k].modes)

    def _kind(self, kind: str, level: Level) -> CircuitKind:
        if kind not in self.kinds(level):
            raise UnknownNameError(
                f"CRI {level} rule kind ({self.mode} mode)", kind, list(self.kinds(level))
            )
        return KINDS[kind]

    def _rule(self, spec: CircuitKind, level: Level, params: Mapping[str, JSONValue]) -> Rule:
        checked = spec.check_params(params)
        reference: Callable[[str], str]
        if self.mode == "gates":
            circuit = spec.circuit(checked)

            def reference(bits: str) -> str:
                return circuit.evaluate(bits, "gates")

            description = describe_inputs(spec.n) + _GATE_SPEC.format(
                count=len(circuit.gates), last=len(circuit.gates) - 1, listing=circuit.listing()
            )
        else:
            reference = spec.direct(checked)
            description = spec.describe(checked)
        n = spec.n

        def fn(x: JSONValue) -> JSONValue:
            if not isinstance(x, str) or len(x) != n or set(x) - {"0", "1"}:
                raise InvalidQueryError(f"a CRI input is a string of {n} bits 0/1, got {x!r}")
            return reference(x)

        return Rule(
            family=self.name,
            kind=spec.name,
            level=level,
            params=checked,
            description=description,
            fn=fn,
        )

    def sample_rule(self, rng: random.Random, level: Level, kind: str | None = None) -> Rule:
        """Uniform kind among ``kinds(level)`` unless given, then a uniform function of it."""
        name = rng.choice(self.kinds(level)) if kind is None else kind
        spec = self._kind(name, level)
        return self._rule(spec, level, spec.sample_params(rng, self.mode))

    def rule_from_params(self, kind: str, level: Level, params: Mapping[str, JSONValue]) -> Rule:
        return self._rule(self._kind(kind, level), level, params)

    def hypothesis_space(self, kind: str, level: Level) -> HypothesisSpace:
        return self._kind(kind, level).hypothesis(self.mode)

    def version_space(self, level: Level, kind: str | None = None) -> VersionSpace:
        """One kind's prior space, or (``kind=None``) the agents' view: every kind of the
        level with this box's input and output widths (the intro states both), uniform."""
        if kind is not None:
            return self._kind(kind, level).space(self.mode)
        n, width = self._bits(level), self.settings.width
        names = self._prior_kinds(level)
        if not names:
            raise FamilyError(f"no CRI {level} kind has {n} inputs and {width} observed bits")
        # Each part is weighted by its own prior count: for an estimated kind, whose space
        # is a superset, that is not its log2|H| point value.
        spaces = [(k, KINDS[k].space(self.mode)) for k in names]
        return MixtureVersionSpace(
            [(k, 1.0 / len(names), space.log2_count(), space) for k, space in spaces]
        )

    # -- code ----------------------------------------------------------------
    def code_template(self, rule: Rule) -> tuple[str, dict[str, Any]]:
        spec = self._kind(rule.kind, rule.level)
        circuit = spec.circuit(spec.check_params(rule.params))
        outputs = (
            list(range(circuit.n, circuit.wires)) if self.mode == "gates" else list(circuit.outputs)
        )
        return "code/cri/circuit.py.j2", {
            "n": circuit.n,
            "gates": [(g.op, list(g.inputs)) for g in circuit.gates],
            "outputs": outputs,
            "mode": self.mode,
        }

    # -- protocol ------------------------------------------------------------
    def task_intro(self, level: Level) -> str:
        n = self._bits(level)
        width = self.settings.width or 1
        example = ("10" * n)[:n]
        fields = {
            "n": n,
            "width": width,
            "example": example,
            "listed": ", ".join(example),
            "spaced": " ".join(example),
            "shown": _SHOWN[self.mode].format(width=width),
            "answer_example": ("0110" * width)[:width],
            "items": self.test_items,
        }
        paragraphs = (textwrap.fill(p.format(**fields), width=90) for p in _INTRO)
        return "\n\n".join(paragraphs) + "\n"

    @property
    def input_schema(self) -> str:
        n = self._bits()
        return f"input vector: a string of {n} characters 0/1 (character i is input bit i)"

    @property
    def output_schema(self) -> str:
        width = self.settings.width
        count = f"{width} characters" if width else "characters"
        return f"output bits: a string of {count} 0/1 (character j is observed bit j)"

    def parse_query(self, text: str) -> JSONValue:
        return _inputs.parse_bits(text, self._bits())

    def format_query(self, x: JSONValue) -> str:
        n = self._bits()
        if not isinstance(x, str) or len(x) != n or set(x) - {"0", "1"}:
            raise InvalidQueryError(f"not a CRI input of {n} bits: {x!r}")
        return x

    def render_output(self, y: JSONValue) -> str:
        if not isinstance(y, str):
            raise FamilyError(f"a CRI output must be a string of bits, got {y!r}")
        return y

    def normalise_answer(self, text: str) -> str:
        return _inputs.normalise_bits(text)

    def output_fits(self, y: JSONValue) -> bool:
        width = self.settings.width
        return (
            isinstance(y, str)
            and bool(y)
            and not set(y) - {"0", "1"}
            and (width is None or len(y) == width)
        )

    # -- inputs --------------------------------------------------------------
    def random_query(self, rng: random.Random) -> JSONValue:
        return _inputs.random_bits(rng, self._bits())

    def exploration_plan(self, level: Level, turns: int) -> list[JSONValue]:
        """Fixed candidates (all zeros, all ones, unit vectors, unit holes, fixed random
        vectors): first, while it adds information, each the vector whose answer, jointly
        with those before it, is most uncertain under the level's prior (estimated on
        seeded draws of every kind the intro admits); then the fixed random vectors, then
        the structured ones. Chosen once, never from feedback."""
        plan = _greedy_plan(self, level)
        return [plan[i % len(plan)] for i in range(turns)]

    def _prior_kinds(self, level: Level) -> list[str]:
        n, width = self._bits(level), self.settings.width
        return [
            k
            for k in self.kinds(level)
            if KINDS[k].n == n and (width is None or KINDS[k].observed_width(self.mode) == width)
        ]

    def query_pool(
        self,
        rng: random.Random,
        level: Level,
        n: int,
        asked: Sequence[JSONValue] = (),
    ) -> list[JSONValue]:
        seen = [x for x in asked if isinstance(x, str)]
        # The plan's next vectors first (so the adaptive agent can do what the fixed one
        # does), then one-bit changes of the last answers, structured and random vectors.
        skip = set(seen)
        ahead = [x for x in _greedy_plan(self, level) if x not in skip][: n // 4]
        rest = _inputs.query_pool(rng, n, self._bits(level), [*seen, *ahead])
        return [*ahead, *rest][:n]

    def test_inputs(
        self, rng: random.Random, k: int, exclude: Collection[JSONValue]
    ) -> list[JSONValue]:
        banned = [x for x in exclude if isinstance(x, str)]
        return list(_inputs.test_inputs(rng, k, banned, self._bits()))

    def differential_inputs(self, rng: random.Random, n: int) -> list[JSONValue]:
        return list(_inputs.differential_inputs(rng, n, self._bits()))


_PLAN_DRAWS = 256
"""Seeded draws per kind that stand for the prior when the plan is chosen."""
_PLAN_STEPS = 24
_PLANS: dict[tuple[str | int, ...], tuple[str, ...]] = {}
_PLANS_LOCK = threading.Lock()


def _greedy_plan(family: CircuitRuleInference, level: Level) -> tuple[str, ...]:
    key = family.prior_key(level)
    with _PLANS_LOCK:
        hit = _PLANS.get(key)
        if hit is None:
            n = family._bits(level)
            candidates = _inputs.exploration_plan(4 * n + 64, n)
            kinds = family._prior_kinds(level)
            answers: list[list[int]] = [[] for _ in candidates]
            weights: list[float] = []
            ids: dict[str, int] = {}
            for kind in kinds:
                spec = KINDS[kind]
                rng = rng_for(0, "CRI plan prior", kind, family.mode)
                for _ in range(_PLAN_DRAWS):
                    rule = family._rule(spec, level, spec.sample_params(rng, family.mode))
                    weights.append(1.0 / (len(kinds) * _PLAN_DRAWS))
                    for c, x in enumerate(candidates):
                        answers[c].append(ids.setdefault(str(rule(x)), len(ids)))
            order = greedy_joint_plan(answers, weights, _PLAN_STEPS, restart=False) if kinds else []
            # Then the fixed random vectors (varied, like a random agent's), then the
            # structured ones.
            structured = 2 * n + 2
            chosen = set(order)
            rest = [i for i in range(structured, len(candidates)) if i not in chosen]
            rest += [i for i in range(structured) if i not in chosen]
            hit = _PLANS[key] = tuple(candidates[i] for i in (*order, *rest))
    return hit
