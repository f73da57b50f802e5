"""One DFA episode: membership and equivalence queries until an EQ is accepted or the budget ends.

The agent gets a :class:`DfaEnvironment` and drives it from ``play``: structured calls
(:meth:`~DfaEnvironment.membership`, :meth:`~DfaEnvironment.equivalence`) for programs,
or :meth:`~DfaEnvironment.call` with the JSON text of one tool call for LLM and human
agents. The rules (agentic automata learning, section 3; notes/dfa.md 1.2 and 1.5):

- the budget is ``round_half_up(budget_factor * reference_cost)`` counted calls, where the
  reference cost is min(L* total, TTT total) on the box (box.json);
- every valid call costs one unit, repeated words and repeated hypotheses included;
- invalid calls (no JSON, an unknown tool, a foreign letter, a malformed DFA, anything
  over the limits of :mod:`oracle_bench.bounded`: text size, nesting, digits, non-string
  keys) are free but recorded with ``error="invalid_call"``, and their one-line reason is
  shown to the agent; :data:`DEFAULT_MAX_INVALID_STREAK` of them in a row end the episode
  (a stuck agent). Structured calls are held to the same limits as text calls;
- membership answers come from the box's own code through ``mq`` (a sandbox worker in the
  runner); a box fault costs the call and shows the fault's text;
- equivalence answers come from the trusted target in hidden.json, never from the box code,
  with the box's counterexample policy (:class:`~blackboxes.automata.oracle.TargetOracle`);
- after an accepted EQ or once the budget is spent, every further call raises
  :class:`EpisodeOver`, which :func:`run_dfa_episode` catches, so a learner running inside
  ``play`` unwinds without cooperating.

Agents are built by a factory from a :class:`DfaAgentContext` (public information only: the
alphabet, the budget and the intro, never the state count) and registered next to their
definition::

    @register_dfa_agent("ttt")
    class TttAgent:
        def __init__(self, ctx: DfaAgentContext) -> None: ...
        def play(self, env: DfaEnvironment) -> None: ...
"""

from __future__ import annotations

import json
import logging
import math
import random
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, TypeVar, runtime_checkable

import templates
from blackboxes.automata.dfa import DFA
from blackboxes.automata.oracle import CounterexampleMode, TargetOracle
from blackboxes.automata.submission import (
    MAX_SUBMITTED_STATES,
    InvalidDfaError,
    parse_submission,
    read_hypothesis,
)
from blackboxes.box import DfaBaselineCost
from blackboxes.store import Box
from evaluator.box_env import CallResultLike
from evaluator.conversation import agent_conversation
from evaluator.failures import FailureCause, cause_of
from evaluator.kinds.dfa._defaults import DEFAULT_BUDGET_FACTOR
from evaluator.kinds.dfa.trajectory import DfaCall, DfaTrajectory, round_half_up
from evaluator.usage import agent_llm_calls, totals_of
from oracle_bench.bounded import (
    MAX_DEPTH,
    BoundsError,
    check_text,
    check_value,
    decode_json,
    json_nesting,
    load_json,
    preview,
    recordable,
    recordable_text,
)
from oracle_bench.errors import EvaluationError, InvalidQueryError, UnknownNameError, UsageError

__all__ = [
    "DEFAULT_BUDGET_FACTOR",
    "DEFAULT_MAX_INVALID_STREAK",
    "INVALID_CALL",
    "INVALID_OUTPUT",
    "MAX_WORD_LENGTH",
    "BoxFaultError",
    "DfaAgent",
    "DfaAgentContext",
    "DfaAgentFactory",
    "DfaBox",
    "DfaEnvironment",
    "EpisodeOver",
    "InvalidCallError",
    "MembershipFn",
    "box_target",
    "check_budget_factor",
    "check_dfa_agent_name",
    "dfa_agent_names",
    "dfa_intro",
    "episode_budget",
    "failed_dfa_trajectory",
    "in_process_membership",
    "make_dfa_agent",
    "register_dfa_agent",
    "run_dfa_episode",
]

log = logging.getLogger(__name__)

DEFAULT_MAX_INVALID_STREAK = 20
MAX_WORD_LENGTH = 10_000
"""Longer MQ words are invalid calls: no learner needs them, and they only slow the box."""
INVALID_CALL = "invalid_call"
"""``DfaCall.error`` of a call that did not parse or validate (free)."""
INVALID_OUTPUT = "invalid_output"
"""``DfaCall.error`` when the box answered something other than 0 or 1 (a box fault)."""

MembershipFn = Callable[[str], CallResultLike]
"""Asks the box's code about one word (``SandboxWorker.call`` in the runner)."""

_MQ_NAMES = frozenset({"membership_query", "membership", "mq", "member", "is_word_in_language"})
_EQ_NAMES = frozenset({"equivalence_query", "equivalence", "eq", "evaluate_dfa_candidate"})
_TOOL_KEYS = ("tool", "tool_name", "name")
_ARGUMENT_KEYS = ("arguments", "parameters", "input")
_DFA_KEYS = ("dfa", "hypothesis", "candidate_dfa")
# The DFA seed's field names, mapped onto the submission format's.
_FIELD_ALIASES = {
    "start_state": "start",
    "initial_state": "start",
    "accept_states": "accepting",
    "accepting_states": "accepting",
    "final_states": "accepting",
}


class EpisodeOver(BaseException):
    """Raised by every call once the episode has ended (accepted EQ, budget, invalid streak).

    A ``BaseException`` on purpose: agent code that catches ``Exception`` (retry loops,
    learners) must not swallow the end of the episode.
    """


class InvalidCallError(InvalidQueryError):
    """A structured call the episode refused (free). The message is what was shown."""


class BoxFaultError(EvaluationError):
    """The box failed on a membership query (the call was counted). ``kind`` names the fault.

    An agent that lets it escape ends its episode with failure cause ``box``."""

    failure_cause: FailureCause = "box"

    def __init__(self, kind: str, shown: str) -> None:
        self.kind = kind
        self.shown = shown
        super().__init__(shown)


# -- agents ----------------------------------------------------------------------------


@dataclass(frozen=True)
class DfaAgentContext:
    """Public information a DFA agent factory may use; never the target or its size."""

    alphabet: tuple[str, ...]
    budget: int
    intro: str
    rng: random.Random
    """Seeded per (run seed, agent, box, repetition) with ``rng_for``."""


@runtime_checkable
class DfaAgent(Protocol):
    """What a DFA episode calls. ``notes() -> list[str]`` is optional and recorded if present."""

    def play(self, env: DfaEnvironment) -> None:
        """Drive the tools of ``env`` until done; :class:`EpisodeOver` may end it early."""


DfaAgentFactory = Callable[[DfaAgentContext], DfaAgent]

_F = TypeVar("_F", bound=DfaAgentFactory)
_REGISTRY: dict[str, DfaAgentFactory] = {}


def register_dfa_agent(name: str) -> Callable[[_F], _F]:
    """Decorator registering a DFA agent class (or factory) under ``name``."""

    def decorate(factory: _F) -> _F:
        if name in _REGISTRY:
            raise ValueError(f"DFA agent {name!r} registered twice")
        _REGISTRY[name] = factory
        return factory

    return decorate


def dfa_agent_names() -> list[str]:
    """Registered DFA agent names, sorted."""
    _load_builtin()
    return sorted(_REGISTRY)


def check_dfa_agent_name(name: str) -> str:
    """``name`` if registered, else :class:`UnknownNameError` listing the DFA agents."""
    _load_builtin()
    if name not in _REGISTRY:
        raise UnknownNameError("DFA agent", name, list(_REGISTRY))
    return name


def make_dfa_agent(name: str, ctx: DfaAgentContext) -> DfaAgent:
    """Build the DFA agent registered as ``name``."""
    return _REGISTRY[check_dfa_agent_name(name)](ctx)


_loaded = False


def _load_builtin() -> None:
    global _loaded
    if not _loaded:
        _loaded = True
        from evaluator.kinds.dfa import agents  # noqa: F401


# -- box facts -------------------------------------------------------------------------


@dataclass(frozen=True)
class DfaBox:
    """A DFA box's facts an episode needs: public (box.json: alphabet, reference cost)
    and owner-side (facts.json: state count, counterexample policy, learners' costs)."""

    states: int
    alphabet: tuple[str, ...]
    counterexamples: CounterexampleMode
    baselines: Mapping[str, DfaBaselineCost]
    reference_cost: int


def box_target(box: Box) -> tuple[DFA, DfaBox]:
    """The trusted target (hidden.json) and the DFA facts (box.json, facts.json) of a
    DFA box; :class:`EvaluationError` for a box that is not a well-formed DFA box."""
    public, owner = box.info.dfa, box.facts.dfa
    if public is None or owner is None:
        raise EvaluationError(f"box {box.info.id} is not a DFA box (no 'dfa' facts)")
    try:
        target = DFA.from_table(dict(box.hidden.params))
    except ValueError as exc:
        raise EvaluationError(f"box {box.info.id}: hidden.json holds no DFA: {exc}") from None
    if list(target.alphabet) != list(public.alphabet):
        raise EvaluationError(f"box {box.info.id}: box.json and hidden.json alphabets differ")
    info = DfaBox(
        states=owner.states,
        alphabet=tuple(public.alphabet),
        counterexamples=owner.counterexamples,
        baselines=dict(owner.baselines),
        reference_cost=public.reference_cost,
    )
    return target, info


def check_budget_factor(budget_factor: float) -> float:
    """``budget_factor`` as a float if finite and > 0, else :class:`UsageError`."""
    if not (isinstance(budget_factor, int | float) and math.isfinite(budget_factor)):
        raise UsageError(f"invalid budget factor {budget_factor!r}: must be a finite number")
    if budget_factor <= 0:
        raise UsageError(f"invalid budget factor {budget_factor}: must be > 0")
    return float(budget_factor)


def episode_budget(reference_cost: int, budget_factor: float) -> int:
    """``round_half_up(budget_factor * reference_cost)``, at least 1."""
    return max(1, round_half_up(check_budget_factor(budget_factor) * reference_cost))


def _example_dfa(alphabet: Sequence[str]) -> str:
    # Words ending in the first letter: small, complete, and says nothing about the target.
    first = alphabet[0]
    dfa = DFA.build(alphabet, [[1 if a == first else 0 for a in alphabet]] * 2, [1])
    return json.dumps(dfa.to_json(), ensure_ascii=False)  # the format's own field order


def dfa_intro(alphabet: Sequence[str], budget: int, max_invalid_streak: int) -> str:
    """The task intro an agent receives (templates/prompts/player/dfa_intro.j2)."""
    return templates.render(
        "prompts/player/dfa_intro.j2",
        alphabet=list(alphabet),
        budget=budget,
        max_invalid_streak=max_invalid_streak,
        example_word="".join(alphabet[:2]) * 2,
        example_dfa=_example_dfa(alphabet),
    )


# -- membership through the box --------------------------------------------------------


@dataclass(frozen=True)
class _LocalError:
    kind: str
    message: str

    def render(self) -> str:
        return f"[black box error: {self.kind}: {self.message}]"


@dataclass(frozen=True)
class _LocalResult:
    value: Any
    error: _LocalError | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


def in_process_membership(target: DFA) -> MembershipFn:
    """Membership answered in-process from a trusted DFA (tests, tools; never box code)."""

    def ask(word: str) -> CallResultLike:
        try:
            return _LocalResult(int(target.accepts(word)))
        except ValueError as exc:
            return _LocalResult(None, _LocalError("exception", str(exc)))

    return ask


def _kind_name(value: Any) -> str:
    return str(getattr(value, "value", value))


# -- parsing text calls ----------------------------------------------------------------


class _Refused(Exception):
    """A call that is invalid; ``tool`` is set when the tool itself was recognised."""

    def __init__(self, message: str, tool: Literal["mq", "eq"] | None = None) -> None:
        self.tool = tool
        super().__init__(message)


@dataclass(frozen=True)
class _Parsed:
    tool: Literal["mq", "eq"]
    argument: Any
    """The word (mq) or the raw hypothesis (eq)."""


def _compact(obj: Any) -> str:
    """Canonical JSON of a call for the record; never raises (see ``recordable``)."""
    return json.dumps(
        recordable(obj), sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=repr
    )


def _quoted(value: Any, limit: int = 60) -> str:
    """A value an agent sent, quoted in a one-line message and clipped."""
    if isinstance(value, str) and len(value) <= limit:
        return repr(value)
    return preview(value, limit)


def _key_list(keys: Sequence[str], shown: int = 5) -> str:
    """Field names for a message: plain when short and printable, else quoted; at most
    ``shown`` of them."""
    names = [
        k if len(k) <= 40 and k.isprintable() and not any(c.isspace() for c in k) else _quoted(k)
        for k in keys[:shown]
    ]
    more = f" and {len(keys) - shown} more" if len(keys) > shown else ""
    return ", ".join(names) + more


# An object's start as the decoder needs it ('{' then a key or '}'); other braces (prose,
# sets, LaTeX) fail at once and are skipped without scanning.
_OBJECT_START = re.compile(r"\{\s*[\"}]")
_SCAN_FACTOR = 8
"""The search for objects in a text scans at most this many times its length (plus a
little): a hostile text of many unclosed objects cannot make it quadratic."""


def _json_objects(text: str) -> tuple[list[dict[str, Any]], str | None, str | None]:
    """Every top-level JSON object in ``text`` (fences, tags and prose around are skipped),
    the first decoding error, and the first limit an object broke (its one-line reason).

    Decoding is bounded (``oracle_bench.bounded.decode_json``): an object nested too deep
    is skipped whole after one linear scan, a number with too many digits or NaN refuses
    the object it is in.
    """
    found: list[dict[str, Any]] = []
    first_error: str | None = None
    broken: str | None = None
    budget = _SCAN_FACTOR * len(text) + 65_536
    i = text.find("{")
    while i != -1:
        if not _OBJECT_START.match(text, i):
            if first_error is None:  # fails at its first character: no recursion, no scan
                try:
                    json.JSONDecoder().raw_decode(text, i)
                except json.JSONDecodeError as exc:
                    first_error = f"{exc.msg} (line {exc.lineno}, column {exc.colno})"
            i = text.find("{", i + 1)
            continue
        depth, extent = json_nesting(text, i)
        budget -= 2 * (extent - i) + 1  # the scan, then the decoder's own pass
        if budget < 0:
            if first_error is None:
                first_error = "too many unclosed objects to read"
            break
        if depth > MAX_DEPTH:
            if broken is None:
                broken = f"the call nests {depth} levels deep; at most {MAX_DEPTH} are allowed"
            i = text.find("{", max(extent, i + 1))
            continue
        try:
            value, end = decode_json(text, i, what="the call")
        except BoundsError as exc:
            if broken is None:
                broken = str(exc)
            i = text.find("{", max(extent, i + 1))
            continue
        except json.JSONDecodeError as exc:
            if first_error is None:
                first_error = f"{exc.msg} (line {exc.lineno}, column {exc.colno})"
            i = text.find("{", i + 1)
            continue
        if isinstance(value, dict):
            found.append(value)
            i = text.find("{", end)
        else:  # pragma: no cover - raw_decode at "{" only yields objects
            i = text.find("{", i + 1)
    return found, first_error, broken


def _tool_of(obj: Mapping[str, Any]) -> str | None:
    keys = [k for k in _TOOL_KEYS if k in obj]
    if not keys:
        return None
    if len(keys) > 1:
        raise _Refused(f"name the tool once (found {', '.join(repr(k) for k in keys)})")
    name = obj[keys[0]]
    if not isinstance(name, str):
        raise _Refused(f"the tool name must be a string, got {_quoted(name)}")
    return name


def _arguments(obj: Mapping[str, Any], tool_key: str) -> dict[str, Any]:
    keys = [k for k in _ARGUMENT_KEYS if k in obj]
    if not keys:
        return {k: v for k, v in obj.items() if k != tool_key}
    extra = sorted(set(obj) - {tool_key, keys[0]})
    if len(keys) > 1 or extra:
        raise _Refused(
            f"put every argument inside {keys[0]!r}; unexpected field(s): "
            + _key_list([repr(k) for k in sorted(set(keys[1:]) | set(extra))])
        )
    raw = obj[keys[0]]
    if isinstance(raw, str):
        try:
            raw = load_json(raw, what=repr(keys[0]))
        except BoundsError as exc:
            raise _Refused(str(exc)) from None
        except json.JSONDecodeError as exc:
            raise _Refused(f"{keys[0]!r} is not valid JSON: {exc.msg}") from None
    if not isinstance(raw, dict):
        raise _Refused(f"{keys[0]!r} must be a JSON object, got {type(raw).__name__}")
    return raw


def _parse_call(text: str) -> _Parsed:
    objects, error, broken = _json_objects(text)
    calls = [o for o in objects if any(k in o for k in _TOOL_KEYS)]
    if not calls:
        if broken is not None:
            raise _Refused(broken)
        if objects:
            raise _Refused('the JSON object has no "tool" field')
        if error is not None:
            raise _Refused(f"the call is not valid JSON: {error}")
        raise _Refused("no JSON tool call found")
    if len(calls) > 1:
        raise _Refused(f"make exactly one tool call per message (found {len(calls)})")
    obj = calls[0]
    name = _tool_of(obj)
    assert name is not None
    tool_key = next(k for k in _TOOL_KEYS if k in obj)
    normal = name.strip().lower()
    if normal in _MQ_NAMES:
        args = _arguments(obj, tool_key)
        unknown = sorted(set(args) - {"word"})
        if unknown:
            raise _Refused(
                f'membership_query takes only "word"; unexpected: {_key_list(unknown)}', "mq"
            )
        if "word" not in args:
            raise _Refused('membership_query needs a "word" ("" is the empty word)', "mq")
        return _Parsed("mq", args["word"])
    if normal in _EQ_NAMES:
        args = _arguments(obj, tool_key)
        given = [k for k in _DFA_KEYS if k in args]
        unknown = sorted(set(args) - set(_DFA_KEYS))
        if unknown or len(given) > 1:
            raise _Refused(
                'equivalence_query takes only "dfa"; unexpected: ' + _key_list(unknown + given[1:]),
                "eq",
            )
        if not given:
            raise _Refused('equivalence_query needs a "dfa"', "eq")
        return _Parsed("eq", args[given[0]])
    raise _Refused(
        f"unknown tool {_quoted(name)}; the tools are membership_query and equivalence_query"
    )


def _normalise_hypothesis(raw: Any) -> Any:
    """The hypothesis with the seed's field names mapped; within the limits, or
    :class:`InvalidDfaError` with the reason."""
    raw = read_hypothesis(raw)
    if not isinstance(raw, Mapping):
        return raw
    out: dict[str, Any] = {}
    for key, value in raw.items():
        name = _FIELD_ALIASES.get(str(key), str(key))
        if name in out:
            raise InvalidDfaError(f"the hypothesis gives {name!r} twice")
        out[name] = value
    return out


# -- the environment -------------------------------------------------------------------


class DfaEnvironment:
    """The tools of one episode; the only way an agent reaches the box and the target.

    ``target`` (trusted, from hidden.json) answers equivalence queries with the
    counterexample policy ``mode``; ``mq`` (the box's code) answers membership queries.
    Both are private: agents use the tools and the public properties only.
    """

    def __init__(
        self,
        target: DFA,
        mode: CounterexampleMode,
        budget: int,
        mq: MembershipFn,
        intro: str = "",
        max_invalid_streak: int = DEFAULT_MAX_INVALID_STREAK,
    ) -> None:
        if budget < 1:
            raise UsageError(f"invalid budget {budget}: must be >= 1")
        if max_invalid_streak < 1:
            raise UsageError(f"invalid max_invalid_streak {max_invalid_streak}: must be >= 1")
        self._oracle = TargetOracle(target, mode)
        self._mq = mq
        self._budget = budget
        self._intro = intro
        self._max_invalid_streak = max_invalid_streak
        self._calls: list[DfaCall] = []
        self._used = 0
        self._streak = 0
        self._success = False
        self._ended: str | None = None

    def __repr__(self) -> str:
        return f"DfaEnvironment(budget={self._budget}, used={self._used}, ended={self._ended!r})"

    @property
    def intro(self) -> str:
        """The task intro (templates/prompts/player/dfa_intro.j2)."""
        return self._intro

    @property
    def alphabet(self) -> tuple[str, ...]:
        return self._oracle.alphabet

    @property
    def budget(self) -> int:
        """Counted calls allowed."""
        return self._budget

    @property
    def used(self) -> int:
        """Counted (budget-consuming) calls so far."""
        return self._used

    @property
    def remaining(self) -> int:
        return self._budget - self._used

    @property
    def calls(self) -> tuple[DfaCall, ...]:
        """Every call so far, invalid ones included, in order."""
        return tuple(self._calls)

    @property
    def success(self) -> bool:
        """An equivalence query was accepted."""
        return self._success

    @property
    def ended(self) -> str | None:
        """Why the episode is over (None while it runs)."""
        return self._ended

    @property
    def over(self) -> bool:
        return self._ended is not None

    @property
    def cost(self) -> int | None:
        """Counted calls up to and including the accepted EQ; None without success."""
        return self._used if self._success else None

    # -- structured calls ------------------------------------------------------
    def membership(self, word: str) -> bool:
        """Is ``word`` in the language? Costs one call.

        Raises :class:`InvalidCallError` (free) for a word that is not a string over the
        alphabet, :class:`BoxFaultError` (counted) if the box fails, :class:`EpisodeOver`.
        """
        self._check_open()
        text = _compact({"tool": "membership_query", "word": recordable(word)})
        shown, member, fault = self._membership(text, word)
        if fault is not None:
            raise BoxFaultError(fault, shown)
        if member is None:
            raise InvalidCallError(shown)
        return member

    def equivalence(self, hypothesis: DFA | Mapping[str, Any]) -> str | None:
        """None if ``hypothesis`` accepts exactly the language, else a counterexample.

        ``hypothesis`` is a :class:`DFA` or the submission format
        (:mod:`blackboxes.automata.submission`), held to the limits of text calls. Raises
        :class:`InvalidCallError` (free) for an invalid hypothesis, :class:`EpisodeOver`
        once the episode is over.
        """
        self._check_open()
        ready: DFA | None = None
        if isinstance(hypothesis, DFA):
            raw: Any = hypothesis.to_json()
            # A DFA object is complete and deterministic already; only its alphabet and
            # size need the submission checks, so skip re-parsing what it just wrote.
            if hypothesis.alphabet == self.alphabet and hypothesis.n <= MAX_SUBMITTED_STATES:
                ready = hypothesis
        else:
            raw = hypothesis
        text = _compact({"tool": "equivalence_query", "dfa": recordable(raw)})
        shown, verdict = self._equivalence(text, raw, ready)
        if verdict is None:
            raise InvalidCallError(shown)
        return verdict[1]

    # -- text calls ------------------------------------------------------------
    def call(self, text: str) -> str:
        """One tool call as JSON text; returns exactly the text shown to the agent.

        Accepted forms: ``{"tool": "membership_query", "word": "abba"}``,
        ``{"tool": "equivalence_query", "dfa": {...}}`` and the DFA seed's
        ``{"tool_name": ..., "arguments": {...}}`` (also ``is_word_in_language`` and
        ``evaluate_dfa_candidate`` with ``candidate_dfa``), inside code fences, tags or prose.
        Text over the limits of :mod:`oracle_bench.bounded` is an invalid call (free).
        """
        self._check_open()
        try:
            check_text(text, "the call")
        except BoundsError as exc:
            return self._invalid(recordable_text(text), None, str(exc))
        try:
            parsed = _parse_call(text)
        except _Refused as exc:
            return self._invalid(text, exc.tool, str(exc))
        if parsed.tool == "mq":
            return self._membership(text, parsed.argument)[0]
        return self._equivalence(text, parsed.argument)[0]

    def refuse(self, text: str, reason: str, tool_name: str | None = None) -> str:
        """Record a call that could not even be read as an invalid call (free), with
        ``reason`` shown; returns the text shown. For harnesses that take a call apart
        before :meth:`call` (a model's native tool call with unusable arguments);
        ``tool_name`` attributes it to a tool when it names one."""
        self._check_open()
        normal = tool_name.strip().lower() if isinstance(tool_name, str) else ""
        tool: Literal["mq", "eq"] | None = (
            "mq" if normal in _MQ_NAMES else "eq" if normal in _EQ_NAMES else None
        )
        return self._invalid(recordable_text(text), tool, " ".join(str(reason).split()))

    # -- internals ---------------------------------------------------------------
    def _check_open(self) -> None:
        if self._ended is not None:
            raise EpisodeOver(self._ended)

    def _end(self, reason: str) -> None:
        self._ended = reason

    def _budget_line(self) -> str:
        left = self.remaining
        line = f"{left} of {self._budget} calls left."
        if left == 0:
            line += " The budget is spent; the episode is over."
        return line

    def _invalid(self, text: str, tool: Literal["mq", "eq"] | None, message: str) -> str:
        shown = f"Invalid call (free, not counted): {message}"
        self._calls.append(
            DfaCall(
                index=len(self._calls) + 1,
                text=text,
                tool=tool,
                valid=False,
                shown=shown,
                error=INVALID_CALL,
            )
        )
        self._streak += 1
        if self._streak >= self._max_invalid_streak:
            self._end(f"{self._streak} invalid calls in a row")
            raise EpisodeOver(self._ended)
        return shown

    def _counted(self, shown: str, with_budget: bool, **fields: Any) -> str:
        """Record a budget-consuming call; ``with_budget`` appends the calls left to ``shown``."""
        self._used += 1
        self._streak = 0
        if fields.get("accepted"):
            self._success = True
            self._end("an equivalence query was accepted")
        elif self._used >= self._budget:
            self._end("the budget is spent")
        if with_budget:
            shown = f"{shown} {self._budget_line()}"
        self._calls.append(
            DfaCall(index=len(self._calls) + 1, valid=True, step=self._used, shown=shown, **fields)
        )
        return shown

    def _word_error(self, word: Any) -> str | None:
        if not isinstance(word, str):
            try:
                check_value(word, "the word")
            except BoundsError as exc:
                return str(exc)
            return f'the word must be a string ("" is the empty word), got {preview(word)}'
        if len(word) > MAX_WORD_LENGTH:
            return f"the word has {len(word)} letters; at most {MAX_WORD_LENGTH} are allowed"
        foreign = sorted({c for c in word if c not in self.alphabet})
        if foreign:
            hint = ' (the empty word is written "")' if word in ("ε", "λ", "epsilon") else ""
            more = f" and {len(foreign) - 10} more" if len(foreign) > 10 else ""
            return (
                f"letter(s) {', '.join(map(repr, foreign[:10]))}{more} not in the alphabet "
                f"{{{', '.join(self.alphabet)}}}{hint}"
            )
        return None

    def _membership(self, text: str, word: Any) -> tuple[str, bool | None, str | None]:
        """(shown, answer or None, fault kind or None)."""
        problem = self._word_error(word)
        if problem is not None:
            return self._invalid(text, "mq", problem), None, None
        result = self._mq(word)
        value = result.value if result.ok else None
        if result.ok and type(value) is int and value in (0, 1):  # not True/False, not 1.0
            member = bool(value)
            label = "1 (in the language)" if member else "0 (not in the language)"
            head = f"Membership query {_compact(word)}: {label}."
            shown = self._counted(head, True, text=text, tool="mq", word=word, member=member)
            return shown, member, None
        if result.ok:
            kind = INVALID_OUTPUT
            shown = f"[black box error: {INVALID_OUTPUT}]"
            log.info("DFA box answered %r to %r: not 0 or 1", value, word)
        else:
            error = result.error
            kind = _kind_name(error.kind) if error is not None else "unknown"
            shown = error.render() if error is not None else "[black box error: unknown]"
        self._counted(shown, False, text=text, tool="mq", word=word, error=kind)
        return shown, None, kind

    def _equivalence(
        self, text: str, raw: Any, ready: DFA | None = None
    ) -> tuple[str, tuple[DFA, str | None] | None]:
        """(shown, (hypothesis, counterexample or None) or None when invalid)."""
        hypothesis = ready
        if hypothesis is None:
            try:
                hypothesis = parse_submission(_normalise_hypothesis(raw), self.alphabet)
            except InvalidDfaError as exc:
                return self._invalid(text, "eq", f"invalid DFA: {exc}"), None
        witness = self._oracle.eq(hypothesis)
        table = hypothesis.to_table()
        if witness is None:
            shown = self._counted(
                "Equivalence query: correct. Your DFA accepts exactly the hidden language. "
                "The episode is over.",
                False,
                text=text,
                tool="eq",
                hypothesis=table,
                accepted=True,
            )
            return shown, (hypothesis, None)
        # The target disagrees with the hypothesis on the witness, so its label is implied.
        side = (
            "the hidden language contains it, your DFA rejects it"
            if not hypothesis.accepts(witness)
            else "your DFA accepts it, the hidden language does not contain it"
        )
        shown = self._counted(
            f"Equivalence query: wrong. Counterexample {_compact(witness)}: {side}.",
            True,
            text=text,
            tool="eq",
            hypothesis=table,
            accepted=False,
            counterexample=witness,
        )
        return shown, (hypothesis, witness)


# -- episodes --------------------------------------------------------------------------


def _header(
    box: Box,
    agent_name: str,
    *,
    suite: str,
    budget_factor: float,
    seed: int,
    repetition: int,
    intro: str,
) -> dict[str, Any]:
    target, info = box_target(box)
    return {
        "box_id": box.info.id,
        "box_digest": box.digest,
        "suite": suite,
        "agent": agent_name,
        "seed": seed,
        "repetition": repetition,
        "intro": intro,
        "states": info.states,
        "alphabet": list(info.alphabet),
        "target": target.to_table(),
        "counterexamples": info.counterexamples,
        "baselines": dict(info.baselines),
        "reference_cost": info.reference_cost,
        "budget_factor": budget_factor,
        "budget": episode_budget(info.reference_cost, budget_factor),
    }


def _agent_notes(agent: object) -> list[str]:
    notes = getattr(agent, "notes", None)
    if notes is None:
        return []
    try:
        return [str(n) for n in notes()]
    except Exception as exc:
        return [f"agent.notes() failed: {type(exc).__name__}: {exc}"]


def run_dfa_episode(
    box: Box,
    agent_name: str,
    agent: DfaAgent,
    mq: MembershipFn,
    *,
    suite: str,
    budget_factor: float = DEFAULT_BUDGET_FACTOR,
    seed: int = 0,
    repetition: int = 0,
    sandbox_layers: Sequence[str] = (),
    max_invalid_streak: int = DEFAULT_MAX_INVALID_STREAK,
) -> DfaTrajectory:
    """Run ``agent.play`` on one DFA box and return the trajectory.

    Membership goes through ``mq`` (the box's code); equivalence through the target in
    hidden.json. An agent exception is recorded (``status="failed"`` with its text, or a
    note if the episode had already ended), never raised.
    """
    budget_factor = check_budget_factor(budget_factor)
    target, info = box_target(box)
    budget = episode_budget(info.reference_cost, budget_factor)
    intro = dfa_intro(target.alphabet, budget, max_invalid_streak)
    env = DfaEnvironment(
        target=target,
        mode=info.counterexamples,
        budget=budget,
        mq=mq,
        intro=intro,
        max_invalid_streak=max_invalid_streak,
    )
    error: str | None = None
    failure: FailureCause | None = None
    evaluator_notes: list[str] = []
    try:
        agent.play(env)
    except EpisodeOver:
        pass
    except Exception as exc:
        message = f"{type(exc).__name__}: {exc}"
        if env.over:
            evaluator_notes.append(
                f"evaluator: the agent raised after the episode ended: {message}"
            )
        else:
            error, failure = message, cause_of(exc)
            log.info(
                "DFA episode %s/%s r%d failed (%s): %s",
                box.info.id,
                agent_name,
                repetition,
                failure,
                message,
            )
    if error is None and env.ended is None:
        evaluator_notes.append(f"evaluator: the agent stopped with {env.remaining} call(s) left")
    elif env.ended is not None and not env.success:
        evaluator_notes.append(f"evaluator: the episode ended: {env.ended}")
    header = _header(
        box,
        agent_name,
        suite=suite,
        budget_factor=budget_factor,
        seed=seed,
        repetition=repetition,
        intro=intro,
    )
    calls = agent_llm_calls(agent)
    return DfaTrajectory(
        **header,
        llm_calls=calls,
        usage=totals_of(calls) if calls else None,
        conversation=agent_conversation(agent),
        sandbox_layers=sorted(sandbox_layers),
        calls=list(env.calls),
        success=env.success,
        cost=env.cost,
        queries_used=env.used,
        invalid_calls=sum(not c.valid for c in env.calls),
        agent_notes=_agent_notes(agent) + evaluator_notes,
        status="failed" if error is not None else "completed",
        error=error,
        failure=failure,
    )


def failed_dfa_trajectory(
    box: Box,
    agent_name: str,
    error: str,
    failure: FailureCause,
    *,
    suite: str,
    budget_factor: float = DEFAULT_BUDGET_FACTOR,
    seed: int = 0,
    repetition: int = 0,
    max_invalid_streak: int = DEFAULT_MAX_INVALID_STREAK,
) -> DfaTrajectory:
    """The record of a DFA episode that could not start (e.g. the box's worker refused it)."""
    budget_factor = check_budget_factor(budget_factor)
    target, info = box_target(box)
    intro = dfa_intro(
        target.alphabet, episode_budget(info.reference_cost, budget_factor), max_invalid_streak
    )
    return DfaTrajectory(
        **_header(
            box,
            agent_name,
            suite=suite,
            budget_factor=budget_factor,
            seed=seed,
            repetition=repetition,
            intro=intro,
        ),
        sandbox_layers=[],
        calls=[],
        success=False,
        cost=None,
        queries_used=0,
        invalid_calls=0,
        status="failed",
        error=error,
        failure=failure,
    )
