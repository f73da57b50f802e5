"""The IPI family: interactive puzzles with public rules and a hidden answer per instance."""

from __future__ import annotations

import itertools
import json
import math
import random
from collections.abc import Collection, Mapping, Sequence
from typing import Any, ClassVar

from blackboxes.box import BoxFacts, BoxInfo, JSONValue, Level
from blackboxes.families import LEVELS, register_family
from blackboxes.families._base import BoxCall, Family, HypothesisSpace, Rule
from blackboxes.families.ipi import _queries
from blackboxes.families.ipi._code import describe
from blackboxes.information import VersionSpace
from blackboxes.puzzles import PuzzleError, PuzzleKind, get_puzzle, puzzle_names
from blackboxes.puzzles._base import params_key
from blackboxes.puzzles.designed import (
    MAX_ANSWER_CHARS,
    MAX_DESIGNED_ANSWERS,
    MAX_FEEDBACK_CHARS,
    MAX_LABELS,
    MAX_RULES_CHARS,
    MAX_TITLE_CHARS,
    DesignedPuzzle,
)
from oracle_bench.errors import FamilyError, InvalidQueryError, UnknownNameError

__all__ = ["IpiFamily"]

_INTRO = (
    "You are solving an interactive puzzle: {title}. Its rules are public and stated below;"
    " only the hidden answer is secret, and each instance hides its own. Send probes, read"
    " the feedback, then state the answer.\n\n{rules}\n"
)

_GENERIC_INTRO = (
    "You are solving an interactive puzzle with public rules: each instance hides an answer"
    " that you find by sending probes and reading the feedback. Every box states its"
    " puzzle's full rules (the hidden answer, the probes, the feedback, any noise, the"
    " answer format).\n"
)


DESIGNED = DesignedPuzzle.name
"""The puzzle kind of an LLM-designed box (``blackboxes.puzzles.designed``)."""

_DESIGN_BRIEF = """\
The rule is a new interactive puzzle. Its rules are public (players read them before \
playing); only each instance's hidden answer is secret. The description you submit IS \
the rules the players read: say what the hidden answer is, that a probe is a guess (any \
one of the possible answers), and exactly what feedback a probe gets, with examples. \
Besides the description give:
- title: the puzzle's name (at most {title_chars} characters);
- answers: every possible hidden answer, 2 to {answers} distinct strings of at most \
{answer_chars} characters (case and spacing never distinguish two answers); each \
instance's answer is drawn uniformly from them, and players may probe with any of them.
The feedback must be a deterministic function of (hidden answer, probe): one line of at \
most {feedback_chars} characters, at most {labels} distinct feedback strings over all \
probes and answers, and informative (different answers get different feedback for some \
probe). The description is at most {rules_chars} characters.
"""

_DESIGN_LEVEL = {
    "easy": "Level easy: a careful player can pin the answer down in about 5 to 10 probes.\n",
    "hard": "Level hard: a careful player needs more than 10 probes (a larger answer set, "
    "feedback that tells less per probe).\n",
}


@register_family
class IpiFamily(Family):
    """IPI: a puzzle kind of :mod:`blackboxes.puzzles` with public parameters.

    A rule is a puzzle kind (the rule kind) and its parameters; both are public, in
    box.json's ``interface``, since the agent is told the rules. What is hidden is each
    episode instance's secret, drawn from the box's test seed. The box's code answers
    ``blackbox(secret, probe, u)`` with the feedback string; the query domain of the
    family is such triples. :meth:`for_interface` gives the family of one box, whose
    ``puzzle`` and ``params`` the puzzle episode reads; the bare family (``get_family``)
    has neither and refuses what needs them.
    """

    name: ClassVar[str] = "IPI"
    title: ClassVar[str] = "Interactive puzzle inference"
    hidden_rule: ClassVar[bool] = False
    test_items: ClassVar[int] = 6
    episode: ClassVar[str] = "puzzle"
    balanced_kinds: ClassVar[bool] = True
    entry_signature: ClassVar[str] = "secret, probe, u"
    coder_notes: ClassVar[str] = (
        "The box is called as blackbox(secret, probe, u) with the canonical secret and"
        " probe strings and a number u in [0, 1); it returns the feedback string exactly"
        " as the rules give it. Only noisy puzzles use u, exactly as the spec says."
    )

    def __init__(self, puzzle: PuzzleKind | None = None, key: str | None = None) -> None:
        self._puzzle = puzzle
        self._key = key
        """Canonical JSON of the box's parameters (a private copy)."""

    # -- the served box ------------------------------------------------------
    @property
    def puzzle(self) -> PuzzleKind:
        """The box's puzzle kind; FamilyError on the bare family."""
        if self._puzzle is None:
            raise FamilyError("the IPI family serves one box's puzzle: use for_interface")
        return self._puzzle

    @property
    def params(self) -> dict[str, Any]:
        """A fresh copy of the box's puzzle parameters; FamilyError on the bare family."""
        if self._key is None:
            raise FamilyError("the IPI family serves one box's puzzle: use for_interface")
        params: dict[str, Any] = json.loads(self._key)
        return params

    @property
    def configured(self) -> bool:
        """True for a box's family (from :meth:`for_interface`), False for the bare one."""
        return self._puzzle is not None

    def interface_of(self, rule: Rule) -> dict[str, JSONValue]:
        return {"puzzle": rule.kind, "params": dict(rule.params)}

    def for_interface(self, interface: Mapping[str, JSONValue]) -> IpiFamily:
        """The family of the box whose box.json has ``interface`` (``puzzle`` and
        ``params``); an empty interface gives the bare family. Anything else is refused
        with FamilyError: the file may be corrupt or hostile."""
        if not interface:
            return IpiFamily()
        if set(interface) != {"puzzle", "params"}:
            raise FamilyError(
                "an IPI box interface has exactly the keys params, puzzle; got "
                + ", ".join(sorted(map(str, interface)))
            )
        name, params = interface["puzzle"], interface["params"]
        puzzle = self._puzzle_named(name)
        return IpiFamily(puzzle, self._checked(puzzle, params))

    def _puzzle_named(self, name: object) -> PuzzleKind:
        known = puzzle_names(designed=True)
        if not isinstance(name, str) or name not in known:
            raise FamilyError(
                f"unknown IPI puzzle {str(name)[:60]!r}; available: {', '.join(known)}"
            )
        return get_puzzle(name)

    def _checked(self, puzzle: PuzzleKind, params: object) -> str:
        """The canonical JSON of ``params`` if ``puzzle`` can serve them."""
        if not isinstance(params, Mapping):
            raise FamilyError(f"IPI {puzzle.name} parameters must be an object")
        try:
            key = params_key(params)
            puzzle.check_params(json.loads(key))
        except PuzzleError as exc:
            raise FamilyError(f"IPI box interface: {exc}") from None
        return key

    def prior_key(self, level: Level) -> tuple[str | int, ...]:
        if self._puzzle is None or self._key is None:
            return (self.name, level)
        return (self.name, level, self._puzzle.name, self._key)

    # -- rules ---------------------------------------------------------------
    def kinds(self, level: Level) -> tuple[str, ...]:
        if level not in LEVELS:
            raise UnknownNameError("level", str(level), list(LEVELS))
        return tuple(puzzle_names(level))

    def sample_rule(self, rng: random.Random, level: Level, kind: str | None = None) -> Rule:
        """A puzzle kind of ``level`` (uniform unless given) and its sampled parameters."""
        name = rng.choice(self.kinds(level)) if kind is None else kind
        if name not in self.kinds(level):
            raise UnknownNameError(f"IPI {level} puzzle", name, list(self.kinds(level)))
        return self._rule(name, level, get_puzzle(name).sample_params(rng, level))

    def rule_from_params(self, kind: str, level: Level, params: Mapping[str, JSONValue]) -> Rule:
        if kind not in puzzle_names(level, designed=True):
            raise FamilyError(f"IPI has no {level} puzzle {kind!r}")
        return self._rule(kind, level, params)

    def _rule(self, kind: str, level: Level, params: Mapping[str, Any]) -> Rule:
        puzzle = get_puzzle(kind)
        key = self._checked(puzzle, params)
        checked: dict[str, JSONValue] = json.loads(key)

        def fn(x: JSONValue) -> JSONValue:
            if not puzzle.drawn:
                raise FamilyError("a designed puzzle has no reference: its box's code defines it")
            secret, probe, u = _queries.check_triple(puzzle, checked, x)
            return puzzle.feedback(checked, secret, probe, u)

        return Rule(
            family=self.name,
            kind=kind,
            level=level,
            params=checked,
            description=describe(puzzle, checked),
            fn=fn,
            reference=puzzle.drawn,
        )

    # -- LLM designs: a puzzle of listed answers -------------------------------
    def design_schema(self, level: Level) -> dict[str, Any] | None:
        """A designed IPI puzzle lists its answers (its rules are the description);
        its feedback comes from the accepted code (:meth:`design_measurements`)."""
        self.kinds(level)
        return {
            "title": {"type": "string", "maxLength": MAX_TITLE_CHARS},
            "answers": {
                "type": "array",
                "items": {"type": "string", "maxLength": MAX_ANSWER_CHARS},
                "minItems": 2,
                "maxItems": MAX_DESIGNED_ANSWERS,
            },
        }

    def design_brief(self, level: Level) -> str:
        self.kinds(level)
        return (
            _DESIGN_BRIEF.format(
                answers=MAX_DESIGNED_ANSWERS,
                answer_chars=MAX_ANSWER_CHARS,
                labels=MAX_LABELS,
                feedback_chars=MAX_FEEDBACK_CHARS,
                title_chars=MAX_TITLE_CHARS,
                rules_chars=MAX_RULES_CHARS,
            )
            + _DESIGN_LEVEL[level]
        )

    def _design_params(self, description: str, design: Mapping[str, Any]) -> dict[str, Any]:
        if not isinstance(design, Mapping) or set(design) != {"title", "answers"}:
            raise FamilyError("an IPI design has exactly the fields title and answers")
        rules = description.strip()
        params = {"title": design["title"], "rules": rules, "answers": design["answers"]}
        try:
            get_puzzle(DESIGNED).check_params(params)
        except PuzzleError as exc:
            raise FamilyError(str(exc)) from None
        return params

    def check_design(self, level: Level, description: str, design: Mapping[str, Any]) -> None:
        """A title, the rules (the description) and 2 to 256 distinct listed answers."""
        self.kinds(level)
        self._design_params(description, design)

    def rule_from_design(
        self, level: Level, description: str, design: Mapping[str, Any], rng: random.Random
    ) -> Rule:
        """The designed puzzle: no reference; its code, measured, completes it."""
        self.kinds(level)
        return self._rule(DESIGNED, level, self._design_params(description, design))

    def design_measurements(self, rule: Rule) -> list[JSONValue]:
        """The calls whose replies complete a puzzle only its code defines (a designed
        puzzle's feedback table); none for a drawn puzzle."""
        puzzle = get_puzzle(rule.kind)
        return [list(t) for t in puzzle.measurement_triples(rule.params)]

    def with_measurements(self, rule: Rule, outputs: Sequence[JSONValue]) -> Rule:
        """The rule with what its code's replies tell (the designed puzzle's table);
        FamilyError when they make no valid puzzle."""
        puzzle = get_puzzle(rule.kind)
        try:
            params = puzzle.with_measurements(rule.params, outputs)
        except PuzzleError as exc:
            raise FamilyError(str(exc)) from None
        return self._rule(rule.kind, rule.level, params)

    def hypothesis_space(self, kind: str, level: Level) -> HypothesisSpace:
        """Exact on a box's family (its puzzle is ``kind``): log2 of the distinct answers
        and of the puzzle's |Y|. The bare family cannot know the parameters, which set
        both: its sentinel is log2|H| unknown (None, so T_info is None) and log2|Y| 0."""
        self.kinds(level)
        if self._puzzle is None or self._puzzle.name != kind:
            return HypothesisSpace(log2_h=None, log2_y=0.0, exact=False)
        params = self.params
        return HypothesisSpace(
            log2_h=self._puzzle.log2_h(params),
            log2_y=math.log2(self._puzzle.feedback_size(params)),
        )

    def version_space(self, level: Level, kind: str | None = None) -> VersionSpace:
        raise FamilyError(
            "IPI boxes have no version space over rules (their rules are public); the"
            " puzzle baselines use blackboxes.puzzles.PuzzleSpace over each instance's secret"
        )

    def box_records(self, box_id: str, rule: Rule) -> tuple[BoxInfo, BoxFacts]:
        """box.json with the puzzle and its parameters (public) and the full rules text;
        facts.json with the box's exact log2|H| (distinct answers), log2|Y| and T_info."""
        served = self.for_interface(self.interface_of(rule))
        puzzle, params = served.puzzle, served.params
        log2_h, log2_y = puzzle.log2_h(params), math.log2(puzzle.feedback_size(params))
        info = BoxInfo(
            id=box_id,
            family=self.name,
            level=rule.level,
            task_intro=served.task_intro(rule.level),
            input_schema=served.input_schema,
            output_schema=served.output_schema,
            interface=self.interface_of(rule),
        )
        facts = BoxFacts(
            rule_kind=rule.kind,
            log2_h=log2_h,
            log2_y=log2_y,
            t_info=puzzle.t_info(params),
        )
        return info, facts

    # -- code ----------------------------------------------------------------
    def code_template(self, rule: Rule) -> tuple[str, dict[str, Any]]:
        puzzle = get_puzzle(rule.kind)
        if not puzzle.drawn:
            raise FamilyError("a designed puzzle has no code template: an LLM coder writes it")
        return f"code/ipi/{puzzle.name}.py.j2", puzzle.template_context(rule.params)

    # -- protocol ------------------------------------------------------------
    def task_intro(self, level: Level) -> str:
        """A box's: the puzzle's full rules. The bare family's: what every box shares."""
        self.kinds(level)
        if self._puzzle is None:
            return _GENERIC_INTRO
        params = self.params
        return _INTRO.format(
            title=self._puzzle.display_title(params), rules=self._puzzle.rules_text(params)
        )

    @property
    def input_schema(self) -> str:
        return "one probe, written as the rules describe"

    @property
    def output_schema(self) -> str:
        return "the feedback the rules give for the probe; at the end, the hidden answer"

    def parse_query(self, text: str) -> JSONValue:
        """A triple ``["secret", "probe", u]`` (or an object with those keys) as JSON."""
        secret, probe, u = _queries.parse_triple(self.puzzle, self.params, text)
        return [secret, probe, u]

    def format_query(self, x: JSONValue) -> str:
        secret, probe, u = _queries.check_triple(self.puzzle, self.params, x)
        return json.dumps([secret, probe, u], ensure_ascii=False)

    def render_output(self, y: JSONValue) -> str:
        if not isinstance(y, str):
            raise FamilyError(f"an IPI box answers a feedback string, got {y!r:.60}")
        return y

    def normalise_answer(self, text: str) -> str:
        """Runs of whitespace as one space, none at the ends (case matters: `B1 W2`)."""
        return " ".join(text.split())

    def box_call(self, x: JSONValue) -> BoxCall:
        if not isinstance(x, (list, tuple)) or len(x) != 3:
            raise InvalidQueryError(f"an IPI query is [secret, probe, u], got {x!r:.60}")
        return BoxCall(tuple(x))

    # -- inputs --------------------------------------------------------------
    def random_query(self, rng: random.Random) -> JSONValue:
        return list(_queries.random_triple(self.puzzle, self.params, rng))

    def exploration_plan(self, level: Level, turns: int) -> list[JSONValue]:
        """The puzzle's fixed plan of probes, against secrets spread over H and u spread
        over [0, 1) (golden-ratio steps): the same plan whatever the box answers."""
        puzzle, params = self.puzzle, self.params
        probes = puzzle.fixed_plan(params, turns)
        n = puzzle.answer_count(params)
        return [
            [
                puzzle.answer_at(params, (t * n) // max(1, turns)),
                probe,
                (t * 0.6180339887498949) % 1.0,
            ]
            for t, probe in enumerate(probes)
        ]

    def query_pool(
        self,
        rng: random.Random,
        level: Level,
        n: int,
        asked: Sequence[JSONValue] = (),
    ) -> list[JSONValue]:
        return [self.random_query(rng) for _ in range(n)]

    def test_inputs(
        self, rng: random.Random, k: int, exclude: Collection[JSONValue]
    ) -> list[JSONValue]:
        seen = {_queries.query_key(x) for x in exclude}
        out: list[JSONValue] = []
        for _ in range(100 * k + 100):
            if len(out) >= k:
                break
            x = self.random_query(rng)
            key = _queries.query_key(x)
            if key not in seen:
                seen.add(key)
                out.append(x)
        if len(out) < k:
            raise FamilyError(f"could not draw {k} new IPI queries outside the {len(seen)} seen")
        return out

    def differential_inputs(self, rng: random.Random, n: int) -> list[JSONValue]:
        """Edge cases first (up to half of ``n``): secrets at both ends of H and random
        ones, each probed with itself and at the edges of its feedback, at u = 0, the top
        of [0, 1) and, for noisy puzzles, at each threshold and just below it; then
        random triples over many secrets and the puzzle's probe pools."""
        puzzle, params = self.puzzle, self.params
        us = _queries.edge_us(puzzle, params)
        per_secret = [
            [
                [secret, probe, u]
                for probe in _queries.aimed_probes(puzzle, params, secret, rng)
                for u in us
            ]
            for secret in _queries.spread_secrets(puzzle, params, rng, 8)
        ]
        # Round robin over the secrets, so that every one gets its edge cases in.
        edges: dict[str, JSONValue] = {}
        for row in itertools.zip_longest(*per_secret):
            for x in row:
                if x is not None:
                    edges.setdefault(_queries.query_key(x), x)
        out = list(edges.values())[: n // 2]
        while len(out) < n:
            out.append(list(_queries.random_triple(puzzle, params, rng)))
        return out
