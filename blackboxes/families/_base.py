"""The contract every family implements (DESIGN.md "Families")."""

from __future__ import annotations

import math
import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from blackboxes.box import BoxFacts, BoxInfo, HiddenInfo, JSONValue, Level
from blackboxes.families import LEVELS
from blackboxes.information import VersionSpace
from oracle_bench.errors import FamilyError, UsageError

__all__ = ["BoxCall", "Family", "HypothesisSpace", "LEVELS", "Rule", "t_info"]  # noqa: RUF022


@dataclass(frozen=True)
class Rule:
    """A trusted reference rule: pure Python, with its parameters and neutral description."""

    family: str
    kind: str
    level: Level
    params: Mapping[str, JSONValue]
    """JSON-compatible parameters; ``Family.rule_from_params`` rebuilds the rule from them."""
    description: str
    """Neutral natural-language description: the coder's spec, never shown to agents."""
    fn: Callable[[JSONValue], JSONValue] = field(compare=False, repr=False)
    reference: bool = True
    """False for a rule an LLM designed whose outputs only its box's code defines: no
    differential test, and nothing known of its hypothesis space."""

    def __call__(self, x: JSONValue) -> JSONValue:
        return self.fn(x)


@dataclass(frozen=True)
class BoxCall:
    """How one query is put to a box: the entry's arguments and, for families whose boxes
    report checkpoints (CII), which checkpoint visit to capture."""

    args: tuple[JSONValue, ...]
    checkpoint: int | None = None
    visit: int | None = None


@dataclass(frozen=True)
class HypothesisSpace:
    """The sizes behind T_info for one rule kind: exact, or an estimate with a bound."""

    log2_h: float | None
    """log2 of the number of distinct rules of the kind (None if unknown)."""
    log2_y: float
    """log2 of the number of possible outputs of one query."""
    exact: bool = True
    low: float | None = None
    """For an estimate: the low end of its interval at ``confidence``."""
    high: float | None = None
    confidence: float | None = None

    @property
    def t_info(self) -> int | None:
        """From the low end of an estimate, so that the bound is never over-stated."""
        return t_info(self.log2_h if self.exact or self.low is None else self.low, self.log2_y)


def t_info(log2_h: float | None, log2_y: float) -> int | None:
    """ceil(log2|H| / log2|Y|), ORACLE's lower bound on the number of queries."""
    if log2_h is None or log2_y <= 0:
        return None
    # Round away float noise so an exact ratio such as 2.0000000001 stays 2.
    return math.ceil(round(log2_h / log2_y, 9))


class Family(ABC):
    """A family of black boxes: rules, protocol text, parsing, checking, information."""

    name: ClassVar[str]
    """Category code used on the command line, e.g. ``"ERI"``."""
    title: ClassVar[str]
    hidden_rule: ClassVar[bool] = True
    """True when agents see only the interface (CII/CRI/PSI/ERI), not the rule."""
    test_items: ClassVar[int] = 8
    """Held-out items per episode."""
    episode: ClassVar[str] = "turns"
    """``turns``: ORACLE's turn@shot protocol; ``dfa``: MQ/EQ until an EQ is accepted."""
    balanced_kinds: ClassVar[bool] = False
    """True: a suite cycles through ``kinds(level)`` in order instead of drawing kinds."""
    plan_margin: ClassVar[float | None] = None
    """Bits. When set, the adaptive baseline asks the fixed plan's next query unless another
    candidate's expected information beats it by more than this (for a family whose plan is
    chosen on the real prior while its version space is in part a superset, so close calls
    under the version space favour the plan). None: pure greedy."""

    def configure(self, **options: Any) -> Family:
        """A copy of the family with generation options applied (``oracle-gen`` flags).

        Families without options refuse any, naming them.
        """
        if options:
            raise UsageError(f"category {self.name} takes no option {', '.join(sorted(options))}")
        return self

    # -- rules ---------------------------------------------------------------
    @abstractmethod
    def kinds(self, level: Level) -> tuple[str, ...]:
        """Rule kinds sampled at ``level``, in a fixed order."""

    @abstractmethod
    def sample_rule(self, rng: random.Random, level: Level, kind: str | None = None) -> Rule:
        """Draw a rule (uniform kind unless given, then uniform key within the kind's space)."""

    @abstractmethod
    def rule_from_params(self, kind: str, level: Level, params: Mapping[str, JSONValue]) -> Rule:
        """Rebuild a rule from hidden.json's parameters."""

    @abstractmethod
    def hypothesis_space(self, kind: str, level: Level) -> HypothesisSpace:
        """Exact log2|H| and log2|Y| for a kind."""

    @abstractmethod
    def version_space(self, level: Level, kind: str | None = None) -> VersionSpace:
        """The prior space of one kind, or with ``kind=None`` the agent's view: every kind
        of ``level`` mixed under the sampling prior."""

    def interface_of(self, rule: Rule) -> dict[str, JSONValue]:
        """box.json's ``interface``: the public settings a box of ``rule`` is served with
        (ERI: its query length and output format). Empty for families without any."""
        return {}

    def for_interface(self, interface: Mapping[str, JSONValue]) -> Family:
        """The family as it serves a box whose box.json has ``interface``: parsing,
        checking, inputs and the agents' prior follow it. Families without interface
        settings refuse any."""
        if interface:
            raise FamilyError(
                f"category {self.name} has no interface setting {', '.join(sorted(interface))}"
            )
        return self

    def for_rule(self, rule: Rule) -> Family:
        """The family as it serves a box implementing ``rule``."""
        return self.for_interface(self.interface_of(rule))

    def prior_key(self, level: Level) -> tuple[str | int, ...]:
        """Equal for two families whose agents' prior ``version_space(level, None)`` is the
        same space (baselines share work done on the prior under this key)."""
        return (self.name, level)

    def box_records(self, box_id: str, rule: Rule) -> tuple[BoxInfo, BoxFacts]:
        """box.json (what an agent may see: the interface) and facts.json (the owner's:
        rule kind, hypothesis space, T_info) of a box implementing ``rule``."""
        interface = self.interface_of(rule)
        served = self.for_interface(interface)
        space = served.hypothesis_space(rule.kind, rule.level)
        info = BoxInfo(
            id=box_id,
            family=self.name,
            level=rule.level,
            task_intro=served.task_intro(rule.level),
            input_schema=served.input_schema,
            output_schema=served.output_schema,
            interface=interface,
        )
        facts = BoxFacts(
            rule_kind=rule.kind,
            log2_h=space.log2_h,
            log2_h_exact=space.exact,
            log2_h_low=None if space.exact else space.low,
            log2_h_high=None if space.exact else space.high,
            log2_h_confidence=None if space.exact else space.confidence,
            log2_y=space.log2_y,
            t_info=space.t_info,
        )
        return info, facts

    def hidden_info(self, rule: Rule, test_seed: int) -> HiddenInfo:
        """The hidden.json of a box implementing ``rule``."""
        return HiddenInfo(
            rule_kind=rule.kind,
            params=dict(rule.params),
            description=rule.description,
            test_seed=test_seed,
        )

    # -- LLM designs (oracle-gen --design llm) --------------------------------
    def design_schema(self, level: Level) -> dict[str, Any] | None:
        """JSON Schema properties of a design's formal part, asked of the designer beside
        its description (``submit_design``); None (the default): a description alone.

        A family whose boxes need more than prose from a designer (a puzzle's answer set,
        an opponent's machine) returns them here and builds the rule in
        :meth:`rule_from_design`."""
        return None

    def design_brief(self, level: Level) -> str:
        """What the designer is told of the formal part (its fields, limits, examples)."""
        return ""

    def check_design(self, level: Level, description: str, design: Mapping[str, Any]) -> None:
        """Raise FamilyError, saying what to fix, unless ``design`` (the formal part) is one
        :meth:`rule_from_design` accepts; the designer is shown the message."""
        raise FamilyError(f"category {self.name} takes no formal designs")

    def rule_from_design(
        self, level: Level, description: str, design: Mapping[str, Any], rng: random.Random
    ) -> Rule:
        """The rule of a checked formal design; ``rng`` draws what the design leaves to the
        family (a box's public settings). Its ``reference`` says whether the family can
        compute its outputs (a machine it interprets) or only the box's code can."""
        raise FamilyError(f"category {self.name} takes no formal designs")

    def design_measurements(self, rule: Rule) -> list[JSONValue]:
        """Queries whose outputs, from an accepted candidate's code, complete the public
        records of a designed rule without a reference (IPI: its feedback table); none by
        default. The generator runs them in the sandbox once every other check passed."""
        return []

    def with_measurements(self, rule: Rule, outputs: Sequence[JSONValue]) -> Rule:
        """``rule`` completed by the outputs of :meth:`design_measurements`, in order;
        FamilyError (a failed check, sent back to the coder) when they make no valid box."""
        return rule

    # -- code ----------------------------------------------------------------
    entry_signature: ClassVar[str] = "x"
    """The parameters of the box's entry point, as the coder prompt shows them."""
    coder_notes: ClassVar[str] = ""
    """Extra interface rules for an LLM coder (CII: the checkpoint hook)."""

    def entry_signature_of(self, rule: Rule) -> str:
        """The entry's parameters for a box of ``rule`` (CII: the kind's input names)."""
        return self.entry_signature

    @abstractmethod
    def code_template(self, rule: Rule) -> tuple[str, dict[str, Any]]:
        """(template name under templates/code/, context) rendering this rule's blackbox.py."""

    # -- protocol ------------------------------------------------------------
    @abstractmethod
    def task_intro(self, level: Level) -> str:
        """What the agent is told before exploring (the interface, not the rule)."""

    @property
    @abstractmethod
    def input_schema(self) -> str:
        """One-line description of a valid query."""

    @property
    @abstractmethod
    def output_schema(self) -> str:
        """One-line description of an answer."""

    @abstractmethod
    def parse_query(self, text: str) -> JSONValue:
        """Lenient about form, strict about meaning; raises ``InvalidQueryError``."""

    @abstractmethod
    def format_query(self, x: JSONValue) -> str:
        """Text an agent would send for ``x``; ``parse_query(format_query(x)) == x``."""

    @abstractmethod
    def render_output(self, y: JSONValue) -> str:
        """The text an agent sees for a box output."""

    @abstractmethod
    def normalise_answer(self, text: str) -> str:
        """The documented normalisation applied to both sides before comparing."""

    def output_fits(self, y: JSONValue) -> bool:
        """Whether a box output is in the family's canonical output form.

        The default: it renders, and rendering is a fixed point of the answer
        normalisation (so an agent could state it exactly).
        """
        try:
            text = self.render_output(y)
        except (TypeError, ValueError):
            return False
        return self.normalise_answer(text) == text

    def box_call(self, x: JSONValue) -> BoxCall:
        """How query (or held-out item) ``x`` is put to the box: by default ``blackbox(x)``."""
        return BoxCall((x,))

    question_text: ClassVar[str] = "What does the black box output?"
    """The question after each held-out input in the evaluation phase."""

    def held_out(
        self,
        rng: random.Random,
        k: int,
        exclude: Collection[JSONValue],
        ask: Callable[[JSONValue], JSONValue],
    ) -> list[tuple[JSONValue, JSONValue]]:
        """The ``k`` held-out (item, expected answer) pairs; ``ask(x)`` is the box's output
        for a query (it raises if the box fails). By default the box's outputs on
        :meth:`test_inputs`; a family whose items depend on what the box does (CII asks only
        checkpoint visits that happen) overrides this."""
        return [(x, ask(x)) for x in self.test_inputs(rng, k, exclude)]

    def check_answer(self, expected: JSONValue, answer: str) -> bool:
        """Exact match after :meth:`normalise_answer` (families with tolerance override)."""
        return self.normalise_answer(answer) == self.normalise_answer(self.render_output(expected))

    def wrong_parts(self, expected: JSONValue, answer: str) -> list[str]:
        """The parts of a wrong answer that were wrong, for the trajectory (PSI: the
        objects). Empty for families that do not break an answer down."""
        return []

    def outputs_agree(self, got: JSONValue, expected: JSONValue) -> bool:
        """Whether a box output matches the reference's in the generator's differential
        test: equal by default; a family with rounded real outputs allows a rounding tie."""
        return bool(got == expected)

    # -- answers as code -----------------------------------------------------
    @property
    def answers_as_code(self) -> bool:
        """True when the evaluation phase asks for one program, ``solution_entry``, run in
        the sandbox at every held-out input, instead of an answer per input."""
        return False

    solution_entry: ClassVar[str] = "solution"

    def solution_source(self, predictions: Sequence[tuple[JSONValue, JSONValue]]) -> str:
        """A program whose ``solution_entry`` answers ``predictions`` ((input, output)
        pairs): how a baseline agent states its model as code."""
        raise FamilyError(f"category {self.name} takes no code answers")

    def domain(self) -> list[JSONValue]:
        """Every valid query, for families whose queries are few enough to list (a
        baseline tabulates its model on them for a code answer)."""
        raise FamilyError(f"category {self.name} has no listed query domain")

    # -- inputs --------------------------------------------------------------
    @abstractmethod
    def random_query(self, rng: random.Random) -> JSONValue:
        """A uniformly random valid query (the ``random`` baseline)."""

    @abstractmethod
    def exploration_plan(self, level: Level, turns: int) -> list[JSONValue]:
        """A fixed, feedback-independent plan of ``turns`` queries (the ``fixed`` baseline)."""

    @abstractmethod
    def query_pool(
        self,
        rng: random.Random,
        level: Level,
        n: int,
        asked: Sequence[JSONValue] = (),
    ) -> list[JSONValue]:
        """Candidates the ``adaptive`` baseline scores by expected information; ``asked``
        (the queries so far) lets a family propose what they have not covered yet."""

    @abstractmethod
    def test_inputs(
        self, rng: random.Random, k: int, exclude: Collection[JSONValue]
    ) -> list[JSONValue]:
        """``k`` held-out inputs, none of them in ``exclude`` (what the agent queried)."""

    @abstractmethod
    def differential_inputs(self, rng: random.Random, n: int) -> list[JSONValue]:
        """Inputs for the generator's differential test (edge cases first)."""
