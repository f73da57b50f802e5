"""The CII family: code intent inference (a hidden program read through its checkpoints)."""

from __future__ import annotations

import random
import textwrap
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from blackboxes.box import JSONValue, Level
from blackboxes.families import register_family
from blackboxes.families._base import BoxCall, Family, HypothesisSpace, Rule
from blackboxes.families.cii import _query
from blackboxes.families.cii._domains import NUMBERS, Domain, domain_from_json, domain_to_json
from blackboxes.families.cii._kind import ProgramKind
from blackboxes.families.cii._kinds import KINDS, LEVEL_KINDS, Analysis, prior, signature
from blackboxes.families.cii._plan import greedy_plan, ranked_plan
from blackboxes.families.cii._query import MAX_VISIT, canonical, render_value
from blackboxes.families.cii._trace import answer, group
from blackboxes.information import MixtureVersionSpace, VersionSpace
from oracle_bench.errors import BoxOutputError, FamilyError, InvalidQueryError, UnknownNameError
from oracle_bench.rng import rng_for

__all__ = ["CodeIntentInference"]

Inputs = tuple[tuple[str, Domain], ...]

_DESIGN_INPUTS: Inputs = (("a", NUMBERS),)
_DESIGN_CHECKPOINTS = 3
"""The interface an LLM-designed CII rule is given (its designer is told it)."""
_MAX_INPUTS = 6
_INPUT_TRIES = 200
_PLAN_VISITS = (1, 2, 3, 5, 8)
_PLAN_SETS = 16
_PLAN_STEPS = 12

_INTRO = (
    "You are exploring a black box: a hidden Python program blackbox({names}) that runs on "
    "inputs you choose. Inputs: {domains}.",
    "The program has {k} checkpoints, numbered 1 to {k}: fixed places in its code where it "
    "records the values of some of its variables (the variable names are meaningless). A "
    "checkpoint inside a loop is visited once per iteration; one that a run never reaches "
    "has 0 visits.",
    "Query: give every input, a checkpoint and a visit number, for example {example}. The "
    "box runs the program on those inputs and shows the values recorded at that visit of "
    "that checkpoint, or, if the run visits it fewer times, how many times it did. The visit "
    "is 1 if left out and at most {max_visit}. Values are written as JSON or Python "
    "literals; a string input may also be written bare. Every query is a fresh run: the "
    "program keeps nothing between queries.",
    "Evaluation: after exploring, you get {items} questions. Each gives new inputs (none "
    "you queried), a checkpoint, a visit that the run reaches, and one variable recorded "
    'there; answer that variable\'s value, e.g. 7, [1, 2, 3], "abc" or true. Answers are '
    "read as a value, so spacing, quote style and a leading 'name =' do not matter.",
)

_CODER_NOTES = """\
- The program reports through `checkpoint(index, name=value, ...)`, a builtin the sandbox
  provides (do not define or import it): call it exactly where the description says, with
  the index first and the values as keyword arguments in the stated order. It returns None.
- `blackbox` itself returns nothing (None): what matters is the checkpoint calls."""

_PROTOCOL = (
    "Interface: the entry point is blackbox({names}), taking {domains}. It returns None. It "
    "calls the builtin checkpoint(index, name=value, ...) at the places stated below, with "
    "keyword values only, in the stated order; every value is a copy of the variable at that "
    "moment (a later change to a list does not alter a recorded value).\n"
)


@dataclass(frozen=True)
class _Settings:
    inputs: Inputs | None = None
    """Set when serving one box: its arguments and their domains."""
    checkpoints: int | None = None


def _check_query(x: JSONValue) -> dict[str, Any]:
    if not isinstance(x, dict) or not isinstance(x.get("inputs"), dict):
        raise InvalidQueryError(f"not a CII query: {x!r}")
    return x


@register_family
class CodeIntentInference(Family):
    """CII: a hidden program, observed through numbered checkpoints.

    Protocol. X: (inputs, checkpoint k, visit v) -> the keyword values of the v-th call of
    ``checkpoint(k, ...)`` when the program runs on the inputs, or the number of visits when
    there are fewer (``{"values": {...} | None, "visits": n}``). The intro states the input
    names, their domains and the checkpoint count (box.json ``interface``). Held-out items:
    new inputs, a checkpoint visit that the box reaches (chosen by asking the box), and one
    recorded variable that is not an unchanged input; the answer is that value, compared as
    compact JSON after :func:`~blackboxes.families.cii._query.normalise_value`.

    Information. H is the kind's parameterisations, one per behaviour class on fixed probe
    inputs (exact: boxes are drawn only from those classes). A visit shows every recorded
    variable, so one query can tell every program of such a kind apart: |Y| = |H|, T_info
    = 1. The marked kinds hide 21 bits (a mark per value) and one visit shows a few of
    them: exact log2|H| = 21, T_info 6 and 4.
    """

    name: ClassVar[str] = "CII"
    title: ClassVar[str] = "Code intent inference"
    test_items: ClassVar[int] = 10
    coder_notes: ClassVar[str] = _CODER_NOTES
    question_text: ClassVar[str] = "What is the value of that variable at that checkpoint visit?"

    def __init__(self, settings: _Settings | None = None) -> None:
        self.settings = settings or _Settings()

    # -- interface -----------------------------------------------------------
    @property
    def inputs(self) -> Inputs:
        return self.settings.inputs or _DESIGN_INPUTS

    @property
    def checkpoints(self) -> int:
        return self.settings.checkpoints or _DESIGN_CHECKPOINTS

    def _served(self, inputs: Inputs, checkpoints: int) -> CodeIntentInference:
        return CodeIntentInference(_Settings(inputs, checkpoints))

    def interface_of(self, rule: Rule) -> dict[str, JSONValue]:
        spec = KINDS.get(rule.kind)
        inputs, k = (spec.inputs, spec.checkpoints) if spec else (_DESIGN_INPUTS, 3)
        return {
            "inputs": [{"name": name, **domain_to_json(d)} for name, d in inputs],
            "checkpoints": k,
        }

    def for_interface(self, interface: Mapping[str, JSONValue]) -> CodeIntentInference:
        """A box's family: its inputs (names, domains) and checkpoint count from box.json."""
        if set(interface) != {"inputs", "checkpoints"}:
            raise FamilyError(
                f"a CII box interface has inputs and checkpoints, got {sorted(interface)}"
            )
        raw, k = interface["inputs"], interface["checkpoints"]
        if not isinstance(raw, list) or not 1 <= len(raw) <= _MAX_INPUTS:
            raise FamilyError(f"CII box interface: inputs must be 1..{_MAX_INPUTS} entries")
        inputs: list[tuple[str, Domain]] = []
        for entry in raw:
            if not isinstance(entry, dict):
                raise FamilyError(f"CII box interface: bad input {entry!r}")
            spec = dict(entry)
            name = spec.pop("name", None)
            if not isinstance(name, str) or not name.isidentifier() or not name.isascii():
                raise FamilyError(f"CII box interface: bad input name {name!r}")
            if name.lower() in _query.CHECKPOINT_KEYS + _query.VISIT_KEYS or name in dict(inputs):
                raise FamilyError(f"CII box interface: input name {name!r} is not usable")
            inputs.append((name, domain_from_json(spec)))
        if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= 64:
            raise FamilyError(f"CII box interface: checkpoints must be 1..64, got {k!r}")
        return self._served(tuple(inputs), k)

    def prior_key(self, level: Level) -> tuple[str | int, ...]:
        return (self.name, level, signature(self.inputs, self.checkpoints))

    def entry_signature_of(self, rule: Rule) -> str:
        spec = KINDS.get(rule.kind)
        return ", ".join(name for name, _ in (spec.inputs if spec else _DESIGN_INPUTS))

    # -- rules ---------------------------------------------------------------
    def kinds(self, level: Level) -> tuple[str, ...]:
        if level not in LEVEL_KINDS:
            raise UnknownNameError("level", str(level), list(LEVEL_KINDS))
        return LEVEL_KINDS[level]

    def _kind(self, kind: str, level: Level) -> ProgramKind:
        if kind not in self.kinds(level):
            raise UnknownNameError(f"CII {level} rule kind", kind, list(self.kinds(level)))
        return KINDS[kind]

    def _rule(self, spec: ProgramKind, level: Level, params: Mapping[str, JSONValue]) -> Rule:
        checked = spec.check_params(params)
        names = [name for name, _ in spec.inputs]
        domains = dict(spec.inputs)

        def fn(x: JSONValue) -> JSONValue:
            query = _check_query(x)
            args = query["inputs"]
            if list(args) != names:
                raise InvalidQueryError(f"a CII query gives the inputs {names}, got {list(args)}")
            for name in names:
                domains[name].check(args[name], name)
            return answer(group(spec.trace(checked, args)), query)

        fields = {
            "names": ", ".join(names),
            "domains": "; ".join(f"{n}: {d.describe()}" for n, d in spec.inputs),
        }
        return Rule(
            family=self.name,
            kind=spec.name,
            level=level,
            params=checked,
            description=_PROTOCOL.format(**fields) + spec.describe(checked),
            fn=fn,
        )

    def sample_rule(self, rng: random.Random, level: Level, kind: str | None = None) -> Rule:
        """Uniform kind unless given, then a uniform behaviour class of it."""
        name = rng.choice(self.kinds(level)) if kind is None else kind
        spec = self._kind(name, level)
        return self._rule(spec, level, prior(name).sample(rng))

    def rule_from_params(self, kind: str, level: Level, params: Mapping[str, JSONValue]) -> Rule:
        return self._rule(self._kind(kind, level), level, params)

    def hypothesis_space(self, kind: str, level: Level) -> HypothesisSpace:
        return prior(self._kind(kind, level).name).hypothesis()

    def version_space(self, level: Level, kind: str | None = None) -> VersionSpace:
        """One kind's space, or (``kind=None``) the agents' view: every kind of the level
        whose inputs and checkpoint count are this box's (the intro states them), uniform."""
        if kind is not None:
            return prior(self._kind(kind, level).name).space()
        names = self._prior_kinds(level)
        parts = [(k, prior(k).space()) for k in names]
        return MixtureVersionSpace(
            [(k, 1.0 / len(names), space.log2_count(), space) for k, space in parts]
        )

    def _prior_kinds(self, level: Level) -> list[str]:
        wanted = signature(self.inputs, self.checkpoints)
        names = [
            k
            for k in self.kinds(level)
            if signature(KINDS[k].inputs, KINDS[k].checkpoints) == wanted
        ]
        if not names:
            raise FamilyError(f"no CII {level} kind has the interface {wanted}")
        return names

    # -- code ----------------------------------------------------------------
    def code_template(self, rule: Rule) -> tuple[str, dict[str, Any]]:
        spec = self._kind(rule.kind, rule.level)
        return f"code/cii/{spec.template}", spec.context(spec.check_params(rule.params))

    def box_call(self, x: JSONValue) -> BoxCall:
        query = _check_query(x)
        args = tuple(query["inputs"][name] for name, _ in self.inputs)
        return BoxCall(args, checkpoint=query["checkpoint"], visit=query["visit"])

    # -- protocol ------------------------------------------------------------
    def task_intro(self, level: Level) -> str:
        fields = {
            "names": ", ".join(name for name, _ in self.inputs),
            "domains": "; ".join(f"{n} is {d.describe()}" for n, d in self.inputs),
            "k": self.checkpoints,
            "example": _query.format_example(self.inputs),
            "max_visit": MAX_VISIT,
            "items": self.test_items,
        }
        return "\n\n".join(textwrap.fill(p.format(**fields), width=90) for p in _INTRO) + "\n"

    @property
    def input_schema(self) -> str:
        domains = "; ".join(f"{n}: {d.describe()}" for n, d in self.inputs)
        return f"the inputs ({domains}), a checkpoint 1..{self.checkpoints} and a visit >= 1"

    @property
    def output_schema(self) -> str:
        return (
            "the values recorded at that checkpoint visit (name = value), or the number of "
            "visits when the run makes fewer"
        )

    def parse_query(self, text: str) -> JSONValue:
        return _query.parse_query(text, self.inputs, self.checkpoints)

    def format_query(self, x: JSONValue) -> str:
        return _query.format_query(_check_query(x))

    def render_output(self, y: JSONValue) -> str:
        if isinstance(y, dict) and set(y) == {"values", "visits"}:
            values, visits = y["values"], y["visits"]
            if values is None:
                return (
                    f"not reached: the run visits this checkpoint only {visits} time(s) with "
                    "these inputs"
                )
            if isinstance(values, dict):
                shown = "; ".join(f"{k} = {render_value(v)}" for k, v in values.items())
                return f"visit {visits}: {shown}" if shown else f"visit {visits}: (no values)"
        if isinstance(y, dict):
            raise FamilyError(f"not a CII output: {y!r}")
        return render_value(y)

    def normalise_answer(self, text: str) -> str:
        return _query.normalise_value(text)

    def check_answer(self, expected: JSONValue, answer: str) -> bool:
        return _query.normalise_value(answer) == canonical(expected)

    def output_fits(self, y: JSONValue) -> bool:
        if not isinstance(y, dict) or set(y) != {"values", "visits"}:
            return False
        values, visits = y["values"], y["visits"]
        if not isinstance(visits, int) or isinstance(visits, bool) or visits < 0:
            return False
        return values is None or (
            isinstance(values, dict) and all(_plain(v) for v in values.values())
        )

    # -- inputs --------------------------------------------------------------
    def _random_inputs(self, rng: random.Random) -> dict[str, JSONValue]:
        return {name: domain.sample(rng) for name, domain in self.inputs}

    def _fixed_inputs(self) -> list[dict[str, JSONValue]]:
        """Fixed random input sets (the same for every box of this interface): the plan's.
        Random rather than edge values, since a sorted or constant list runs few steps."""
        rng = rng_for(0, "CII plan", signature(self.inputs, self.checkpoints))
        return [self._random_inputs(rng) for _ in range(64)]

    def random_query(self, rng: random.Random) -> JSONValue:
        visit = 1 + min(int(rng.expovariate(0.4)), 31)
        return {
            "inputs": self._random_inputs(rng),
            "checkpoint": rng.randint(1, self.checkpoints),
            "visit": visit,
        }

    def exploration_plan(self, level: Level, turns: int) -> list[JSONValue]:
        """The greedy feedback-free plan: each query the one whose answer, together with
        the answers before it, is most uncertain under the level's prior (over fixed input
        sets, every checkpoint, visits 1, 2, 3, 5, 8); for priors too large to list (the
        marked kinds), each fixed input set's most informative query, best first. Chosen
        once per interface and level."""
        plan = self._greedy_plan(level)
        return [plan[i % len(plan)] for i in range(turns)]

    def _greedy_plan(self, level: Level) -> tuple[JSONValue, ...]:
        wanted = signature(self.inputs, self.checkpoints)
        kinds = self._prior_kinds(level)
        candidates = [
            {"inputs": inputs, "checkpoint": k, "visit": visit}
            for inputs in self._fixed_inputs()[:_PLAN_SETS]
            for k in range(1, self.checkpoints + 1)
            for visit in _PLAN_VISITS
        ]
        if all(isinstance(prior(k), Analysis) for k in kinds):
            return greedy_plan(kinds, candidates, _PLAN_STEPS, f"{level}/{wanted}")
        # Priors too large to list (hidden tables): the best single queries instead.
        return ranked_plan(self.version_space(level, None), candidates, f"{level}/{wanted}")

    def query_pool(
        self,
        rng: random.Random,
        level: Level,
        n: int,
        asked: Sequence[JSONValue] = (),
    ) -> list[JSONValue]:
        """The fixed plan's best queries not asked yet, then every checkpoint at visits 1,
        2, 3, 5 and 8 on the last input set asked and on fresh random ones; none asked."""
        seen = {canonical(x) for x in asked}
        pool: list[JSONValue] = []
        for x in self._greedy_plan(level):
            if len(pool) >= n // 2:
                break
            if canonical(x) not in seen:
                seen.add(canonical(x))
                pool.append(x)
        sources = [x["inputs"] for x in asked[-1:] if isinstance(x, dict) and "inputs" in x]
        tries = 0
        while len(pool) < n and tries < 64:
            tries += 1
            inputs = sources.pop() if sources else self._random_inputs(rng)
            for visit in _PLAN_VISITS:
                for k in range(1, self.checkpoints + 1):
                    x = {"inputs": inputs, "checkpoint": k, "visit": visit}
                    key = canonical(x)
                    if key not in seen and len(pool) < n:
                        seen.add(key)
                        pool.append(x)
        return pool

    def differential_inputs(self, rng: random.Random, n: int) -> list[JSONValue]:
        """Per input set (edges first, then random): every checkpoint at visits 1, 2, 3, 7
        and one far past any run's end (the "not reached" answer is tested too)."""
        out: list[JSONValue] = []
        names = [name for name, _ in self.inputs]
        edges = zip(*(d.edges() for _, d in self.inputs), strict=False)
        sets = [dict(zip(names, combo, strict=True)) for combo in edges]
        while len(out) < n:
            inputs = sets.pop(0) if sets else self._random_inputs(rng)
            for visit in (1, 2, 3, 7, MAX_VISIT):
                for k in range(1, self.checkpoints + 1):
                    if len(out) < n:
                        out.append({"inputs": inputs, "checkpoint": k, "visit": visit})
        return out

    def _fresh_inputs(
        self, rng: random.Random, k: int, exclude: Collection[JSONValue]
    ) -> list[dict[str, JSONValue]]:
        banned = {canonical(x["inputs"]) for x in exclude if isinstance(x, dict) and "inputs" in x}
        out: list[dict[str, JSONValue]] = []
        tries = 0
        while len(out) < k:
            tries += 1
            if tries > _INPUT_TRIES * k:
                raise InvalidQueryError(f"fewer than {k} unqueried CII input sets were found")
            inputs = self._random_inputs(rng)
            key = canonical(inputs)
            if key not in banned:
                banned.add(key)
                out.append(inputs)
        return out

    def test_inputs(
        self, rng: random.Random, k: int, exclude: Collection[JSONValue]
    ) -> list[JSONValue]:
        """``k`` queries on distinct input sets none of which was queried (checkpoint and
        visit 1: :meth:`held_out` chooses the real items with the box)."""
        return [
            {"inputs": inputs, "checkpoint": 1, "visit": 1}
            for inputs in self._fresh_inputs(rng, k, exclude)
        ]

    def held_out(
        self,
        rng: random.Random,
        k: int,
        exclude: Collection[JSONValue],
        ask: Callable[[JSONValue], JSONValue],
    ) -> list[tuple[JSONValue, JSONValue]]:
        """Per item: fresh inputs; a checkpoint the run reaches (count its visits by asking
        for visit MAX_VISIT), a uniform visit among them, and a uniform recorded variable
        that is not an input left unchanged. Input sets where no checkpoint is reached are
        replaced by others."""
        items: list[tuple[JSONValue, JSONValue]] = []
        used = list(exclude)
        tries = 0
        while len(items) < k:
            tries += 1
            if tries > _INPUT_TRIES:
                raise BoxOutputError("the box reaches no checkpoint on the held-out inputs")
            (inputs,) = self._fresh_inputs(rng, 1, used)
            used.append({"inputs": inputs})
            item = self._item(rng, inputs, ask)
            if item is not None:
                items.append(item)
        return items

    def _item(
        self,
        rng: random.Random,
        inputs: dict[str, JSONValue],
        ask: Callable[[JSONValue], JSONValue],
    ) -> tuple[JSONValue, JSONValue] | None:
        for checkpoint in rng.sample(range(1, self.checkpoints + 1), self.checkpoints):
            probe = _observed(ask({"inputs": inputs, "checkpoint": checkpoint, "visit": MAX_VISIT}))
            visits = MAX_VISIT if probe["values"] is not None else probe["visits"]
            if visits == 0:
                continue
            visit = rng.randint(1, visits)
            seen = _observed(ask({"inputs": inputs, "checkpoint": checkpoint, "visit": visit}))
            values = seen["values"]
            if not isinstance(values, dict) or not values:
                raise BoxOutputError(
                    f"the box reports {probe['visits']} visits of checkpoint {checkpoint} "
                    f"but nothing at visit {visit}"
                )
            names = sorted(values)
            # An input the program never changed is no question about the program.
            asked = [n for n in names if n not in inputs or values[n] != inputs[n]] or names
            variable = rng.choice(asked)
            x = {"inputs": inputs, "checkpoint": checkpoint, "visit": visit, "variable": variable}
            return x, values[variable]
        return None


def _plain(value: JSONValue) -> bool:
    """JSON without dicts or floats (what a CII value may be)."""
    if isinstance(value, bool | int | str):
        return True
    if isinstance(value, list):
        return all(_plain(v) for v in value)
    return False


def _observed(y: JSONValue) -> dict[str, Any]:
    if (
        not isinstance(y, dict)
        or set(y) != {"values", "visits"}
        or not isinstance(y["visits"], int)
        or isinstance(y["visits"], bool)
        or not 0 <= y["visits"] <= MAX_VISIT
        or not (y["values"] is None or isinstance(y["values"], dict))
    ):
        raise BoxOutputError(f"not a CII checkpoint observation: {str(y)[:200]}")
    return y
