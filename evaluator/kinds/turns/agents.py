"""The agent protocol and the agent registry.

An agent is text-in / text-out, so LLM agents fit behind the same protocol as the
baselines. The evaluator drives one episode like this::

    agent.start(briefing)                      # task intro, T, shots, feedback mode
    for turn in 1..T:                          # exploration
        text = agent.query(banner)             # "<Turn 3 of 10; 7 remaining>"
        agent.observe(observation)             # instant mode: right away
    # deferred mode: the T observe() calls come together, after the T-th query
    agent.begin_evaluation(message)            # "Evaluation starts: ..."
    for item in 1..K:
        for attempt in 0..shots-1:
            text = agent.answer(question)
            agent.feedback(correct, message)   # right/wrong only, never the ground truth
            if correct: break
    agent.notes()                              # recorded in the trajectory

Structured fields (``Observation.query``/``output``, ``Question.input``) repeat exactly
what the text already says, for agents that reason over values (the baselines). No
agent ever receives the box's rule kind, hidden.json or the expected outputs.

Agents are built by a factory from an :class:`AgentContext` (public information only)
and registered next to their definition::

    @register_agent("random")
    class RandomAgent:
        def __init__(self, ctx: AgentContext) -> None: ...
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar, runtime_checkable

from blackboxes.box import Level
from blackboxes.families import Family
from evaluator.spec import FeedbackMode
from oracle_bench.errors import UnknownNameError

__all__ = [
    "Agent",
    "AgentContext",
    "AgentFactory",
    "Briefing",
    "Observation",
    "Question",
    "agent_names",
    "check_agent_name",
    "make_agent",
    "register_agent",
]

JSONValue = Any


@dataclass(frozen=True)
class Briefing:
    """What an agent is told before exploring."""

    intro: str
    """The box's task intro (the interface, not the rule)."""
    turns: int
    shots: int
    feedback: FeedbackMode


@dataclass(frozen=True)
class Observation:
    """The answer to one exploration turn."""

    turn: int
    """1-based turn this observation answers."""
    query_text: str
    """The agent's own reply for that turn."""
    response: str
    """The exact text shown: the rendered output, the parse error, or the box error."""
    query: JSONValue = None
    """The parsed query (None when the reply did not parse)."""
    output: JSONValue = None
    """The box's output value (None for an invalid reply or a failed call)."""
    ok: bool = False
    """True when the box answered a valid query."""


@dataclass(frozen=True)
class Question:
    """One attempt at one held-out item."""

    prompt: str
    """The full text of the question (item number, attempt, input)."""
    input_text: str
    """The item's input, formatted as a query would be."""
    input: JSONValue
    item: int
    """1-based item number."""
    attempt: int
    """0-based attempt number, < shots."""
    program: bool = False
    """True when the answer is one program for every held-out item (``item`` is 0 and
    ``input`` None): the family's ``answers_as_code``."""


@runtime_checkable
class Agent(Protocol):
    """What the episode protocol calls. Every method is text-in / text-out."""

    def start(self, briefing: Briefing) -> None:
        """A new episode begins."""

    def query(self, banner: str) -> str:
        """The reply for one exploration turn (a query in the family's input form)."""

    def observe(self, observation: Observation) -> None:
        """The box's answer (or an error) to one earlier turn."""

    def begin_evaluation(self, message: str) -> None:
        """Exploration is over; held-out questions follow."""

    def answer(self, question: Question) -> str:
        """An answer in the family's output form."""

    def feedback(self, correct: bool, message: str) -> None:
        """Right or wrong for the last answer (never the expected output)."""

    def notes(self) -> list[str]:
        """Anything the agent wants recorded in the trajectory (fallbacks taken...)."""


@dataclass(frozen=True)
class AgentContext:
    """Public information an agent factory may use. Never the rule kind or hidden.json."""

    family: Family
    level: Level
    rng: random.Random
    """Seeded per (run seed, agent, box, repetition) with ``rng_for``."""


AgentFactory = Callable[[AgentContext], Agent]

_F = TypeVar("_F", bound=AgentFactory)
_REGISTRY: dict[str, AgentFactory] = {}


def register_agent(name: str) -> Callable[[_F], _F]:
    """Decorator registering an agent class (or factory) under ``name``."""

    def decorate(factory: _F) -> _F:
        if name in _REGISTRY:
            raise ValueError(f"agent {name!r} registered twice")
        _REGISTRY[name] = factory
        return factory

    return decorate


def agent_names() -> list[str]:
    """Registered agent names, sorted."""
    _load_builtin()
    return sorted(_REGISTRY)


def make_agent(name: str, ctx: AgentContext) -> Agent:
    """Build the agent registered as ``name``; :class:`UnknownNameError` if there is none."""
    _load_builtin()
    factory = _REGISTRY.get(name)
    if factory is None:
        raise UnknownNameError("agent", name, list(_REGISTRY))
    return factory(ctx)


def check_agent_name(name: str) -> str:
    """``name`` if registered, else :class:`UnknownNameError` listing the available ones."""
    _load_builtin()
    if name not in _REGISTRY:
        raise UnknownNameError("agent", name, list(_REGISTRY))
    return name


_loaded = False


def _load_builtin() -> None:
    global _loaded
    if not _loaded:
        _loaded = True
        from evaluator.kinds.turns import baselines  # noqa: F401
