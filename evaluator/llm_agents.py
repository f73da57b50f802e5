"""LLM agents for both episode kinds: ``provider/model`` names (``openai/gpt-5.4``,
``anthropic/claude-sonnet-4-5``, ``scripted/replies.jsonl``).

:class:`LlmAgent` plays turn@shot episodes (:mod:`evaluator.protocol`) and
:class:`LlmDfaAgent` DFA episodes (:mod:`evaluator.dfa_protocol`). Each builds its own
provider on first use, so every episode is its own conversation (a ``scripted/`` file
replays from its first line in every episode).

Conversation: the system prompt (templates/prompts/player/system.j2: what a black box is and
how to act, never anything about the rule), the task intro as the first user message, then
one exchange per model reply. The full history is the context unless
``LlmAgentSettings.history`` keeps only the last N exchanges (an exchange is a reply with
the tool results and the user message that follow it, so a tool call is never separated
from its result).

Two protocols:

- ``tools`` (default): native tool calls. turn@shot offers ``query`` ({"input": str})
  while exploring and ``answer`` ({"output": str}) while evaluated; DFA offers
  ``membership_query`` ({"word": str}) and ``equivalence_query`` ({"dfa": object}).
  Results come back as tool results; every tool call id of a reply is answered (extra
  calls with "ignored: make one call per message").
- ``text``: a turn@shot reply ends with a line ``QUERY: <input>`` or ``ANSWER: <output>``
  (the last such line counts); a DFA reply holds one JSON call as the task intro shows.

A turn@shot reply without a usable call is asked again with a short correction, up to
``max_reasks`` times (each a call recorded with phase ``reask``, and a note); then the raw
reply goes to the protocol, which records an invalid turn. Replies are hostile: a reply
over :data:`~oracle_bench.bounded.MAX_TEXT_CHARS` has no usable call, tool arguments that
cannot be read (not JSON, not an object, over the limits of :mod:`oracle_bench.bounded`)
are an invalid call whose one-line reason is shown to the model, and every record and
history message holds such input only through its recording-safe stand-in. Every call is
checked against and charged to the run's :class:`~evaluator.usage.RunBudget` and
recorded as an :class:`~evaluator.usage.LlmCallRecord`. ``ProviderError`` and
``BudgetExhausted`` propagate: the protocols record the first as a failed episode, the
runner handles the second.
"""

from __future__ import annotations

import json
import logging
import re
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import templates
from evaluator._defaults import PROTOCOLS, PlayProtocol
from evaluator._llm_text import (
    arguments_text,
    clip,
    marker_value,
    rejected_text,
    string_argument,
    unusable_arguments,
)
from evaluator._solutions import program_text
from evaluator.agents import AgentContext, Briefing, Observation, Question
from evaluator.dfa_protocol import DfaAgentContext, DfaEnvironment
from evaluator.usage import CallPhase, LlmCallRecord, RunBudget
from oracle_bench.bounded import BoundsError, check_text, recordable, recordable_text
from oracle_bench.errors import UsageError
from providers import (
    CallCache,
    ChatMessage,
    Provider,
    Reply,
    RetryHook,
    RetryPolicy,
    ToolCall,
    ToolSpec,
    base_url_for,
    check_provider,
    create_provider,
    parse_model_spec,
)

__all__ = [
    "DEFERRED_PLACEHOLDER",
    "IGNORED_CALL",
    "PROTOCOLS",
    "LlmAgent",
    "LlmAgentSettings",
    "LlmDfaAgent",
    "PlayProtocol",
    "ProviderPool",
    "check_llm_agent",
    "dfa_tools",
    "is_llm_agent",
    "system_prompt",
    "turnshot_tools",
]

log = logging.getLogger(__name__)

DEFERRED_PLACEHOLDER = "recorded; the answers are revealed after your last turn"
"""The tool result of a query in deferred feedback mode."""
IGNORED_CALL = "ignored: make one call per message"
"""The tool result of every tool call after the first usable one of a reply."""

QUERY_MARKER = "QUERY"
ANSWER_MARKER = "ANSWER"
_BANNER_TURN = re.compile(r"<Turn (\d+) of \d+")


@dataclass(frozen=True)
class LlmAgentSettings:
    """How LLM agents call their provider (shared by every LLM agent of a run)."""

    options: Mapping[str, Any] = field(default_factory=dict)
    """Model options (``-M key=value``), passed through (reasoning/thinking included)."""
    base_url: str | None = None
    """The server of every LLM agent (None: ``$OPENAI_BASE_URL`` etc. or the vendor's API)."""
    base_urls: Mapping[str, str] = field(default_factory=dict)
    """Per provider name (``openai``, ``anthropic``; ``""``: every provider), before
    ``base_url``: ``--base-url openai=URL``."""
    protocol: PlayProtocol = "tools"
    max_reasks: int = 2
    """Re-asks after a reply with no usable call, before the raw reply goes to the protocol."""
    history: int | None = None
    """None: the full history (both seeds' default); N: only the last N exchanges."""
    timeout: float = 600.0
    """Per attempt, in seconds."""
    retry: RetryPolicy | None = None
    on_retry: RetryHook | None = None
    cache: CallCache | None = None
    budget: RunBudget | None = None
    max_per_provider: int | None = None
    """Calls in flight per provider name (``create_provider(max_concurrency=...)``)."""
    pool: ProviderPool | None = None
    """Providers shared by the run's episodes (None: each agent builds its own)."""

    def url_for(self, name: str) -> str | None:
        """The base URL for the agent ``provider/model``."""
        return base_url_for(self.base_urls, name) or self.base_url

    def __post_init__(self) -> None:
        if self.protocol not in PROTOCOLS:
            raise UsageError(
                f"unknown protocol {self.protocol!r}; available: {', '.join(PROTOCOLS)}"
            )
        if isinstance(self.max_reasks, bool) or self.max_reasks < 0:
            raise UsageError(f"invalid max_reasks {self.max_reasks}: must be >= 0")
        if self.history is not None and self.history < 1:
            raise UsageError(f"invalid history {self.history}: keep at least 1 exchange")
        if not self.timeout > 0:
            raise UsageError(f"invalid timeout {self.timeout}: must be > 0 seconds")
        if self.max_per_provider is not None and self.max_per_provider < 1:
            raise UsageError(f"invalid max_per_provider {self.max_per_provider}: must be >= 1")


def is_llm_agent(name: str) -> bool:
    """True for ``provider/model`` names (LLM agents); baseline names have no slash."""
    return "/" in name


def _create(name: str, settings: LlmAgentSettings) -> Provider:
    return create_provider(
        name,
        options=settings.options,
        base_url=settings.url_for(name),
        on_retry=settings.on_retry,
        retry=settings.retry,
        cache=settings.cache,
        timeout=settings.timeout,
        max_concurrency=settings.max_per_provider,
    )


class ProviderPool:
    """The providers of a run, one per agent name, shared by its episodes.

    An HTTP client is thread-safe and costs tens of milliseconds of CPU to build, so
    ``openai/...`` and ``anthropic/...`` agents share one per name. ``scripted/...``
    providers are not pooled: each episode replays its script from the first line.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._providers: dict[str, Provider] = {}

    def get(self, name: str, settings: LlmAgentSettings) -> Provider | None:
        """The shared provider for ``name`` (built on first use), or None for a provider
        that must not be shared (scripted)."""
        if parse_model_spec(name)[0] == "scripted":
            return None
        with self._lock:
            provider = self._providers.get(name)
            if provider is None:
                provider = self._providers[name] = _create(name, settings)
            return provider

    def close(self) -> None:
        """Close every pooled provider (at the end of the run)."""
        with self._lock:
            providers, self._providers = list(self._providers.values()), {}
        for provider in providers:
            _close(provider)


def _close(provider: Provider | None) -> None:
    close = getattr(provider, "close", None)
    if close is not None:
        close()


def check_llm_agent(name: str, settings: LlmAgentSettings) -> str:
    """Preflight for an LLM agent before any work: ``name`` if usable, else a one-line
    ``ProviderConfigError`` (unknown provider, missing key, unreachable server, bad model
    options, a missing script file)."""
    check_provider(name, base_url=settings.url_for(name))
    _close(_create(name, settings))
    return name


def system_prompt(kind: Literal["turnshot", "dfa"], protocol: PlayProtocol) -> str:
    """templates/prompts/player/system.j2 for an episode kind and a protocol."""
    return templates.render("prompts/player/system.j2", kind=kind, protocol=protocol).strip()


def _object(properties: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": sorted(properties),
        "additionalProperties": False,
    }


def turnshot_tools() -> tuple[ToolSpec, ToolSpec]:
    """``(query, answer)``: the exploration tool and the evaluation tool."""
    query = ToolSpec(
        name="query",
        description="Send one input to the black box; the result is its output for it.",
        parameters=_object(
            {"input": {"type": "string", "description": "the input, as the task describes it"}}
        ),
    )
    answer = ToolSpec(
        name="answer",
        description="Answer the current question with what the black box outputs.",
        parameters=_object({"output": {"type": "string", "description": "the black box's output"}}),
    )
    return query, answer


_CLOSED_QUERY = ToolSpec(
    name="query",
    description="Exploration is over: this tool no longer reaches the black box. Use answer.",
    parameters=_object(
        {"input": {"type": "string", "description": "the input, as the task describes it"}}
    ),
)

_STATE_LIST = {"type": "array", "items": {"type": "string"}}


def dfa_tools() -> tuple[ToolSpec, ToolSpec]:
    """``(membership_query, equivalence_query)``, the DFA episode's tools."""
    membership = ToolSpec(
        name="membership_query",
        description='Is the word in the hidden language? "" is the empty word. Costs one call.',
        parameters=_object({"word": {"type": "string"}}),
    )
    dfa = {
        "type": "object",
        "description": (
            "A complete DFA over exactly the alphabet: one transition "
            "[source, letter, target] for every state and letter."
        ),
        "properties": {
            "states": _STATE_LIST,
            "alphabet": _STATE_LIST,
            "start": {"type": "string"},
            "accepting": _STATE_LIST,
            "transitions": {
                "type": "array",
                "items": {"type": "array", "items": {"type": "string"}},
            },
        },
        "required": ["states", "alphabet", "start", "accepting", "transitions"],
    }
    equivalence = ToolSpec(
        name="equivalence_query",
        description=(
            "Does this DFA accept exactly the hidden language? The answer is 'correct' or "
            "a counterexample. Costs one call."
        ),
        parameters=_object({"dfa": dfa}),
    )
    return membership, equivalence


def _record(phase: CallPhase, turn: int | None, reply: Reply) -> LlmCallRecord:
    usage = reply.usage
    return LlmCallRecord(
        phase=phase,
        turn=turn,
        text=recordable_text(reply.text),
        tool_calls=[
            {"id": c.id, "name": c.name, "arguments": recordable(c.arguments)}
            for c in reply.tool_calls
        ],
        finish_reason=reply.finish_reason,
        input_tokens=usage.input,
        output_tokens=usage.output,
        cache_read_tokens=usage.cache_read,
        cache_write_tokens=usage.cache_write,
        reasoning_tokens=usage.reasoning,
        cost_usd=reply.cost_usd,
        retries=reply.retries,
        cached=reply.cached,
    )


class _Conversation:
    """The messages of one episode and the window of them sent to the model."""

    def __init__(self, system: str, intro: str, history: int | None) -> None:
        self.head = [
            ChatMessage(role="system", content=system),
            ChatMessage(role="user", content=intro),
        ]
        self.body: list[ChatMessage] = []
        self.history = history

    def add(self, message: ChatMessage) -> None:
        self.body.append(message)

    def window(self) -> list[ChatMessage]:
        """The head and, with ``history=N``, the last N exchanges only (an exchange starts
        at an assistant message and runs to the next one)."""
        if self.history is None:
            return [*self.head, *self.body]
        starts = [i for i, m in enumerate(self.body) if m.role == "assistant"]
        if len(starts) <= self.history:
            return [*self.head, *self.body]
        return [*self.head, *self.body[starts[-self.history] :]]


class _LlmBase:
    """Provider, budget, call records and notes shared by both agents."""

    def __init__(self, name: str, settings: LlmAgentSettings) -> None:
        self.name = name
        self.settings = settings
        self._provider: Provider | None = None
        self._shared = False
        self._calls: list[LlmCallRecord] = []
        self._notes: list[str] = []

    # -- ReportsUsage ----------------------------------------------------------
    def llm_calls(self) -> list[LlmCallRecord]:
        return list(self._calls)

    def notes(self) -> list[str]:
        return list(self._notes)

    def close(self) -> None:
        """Release the provider (its HTTP client); the agent may not be used afterwards."""
        provider, self._provider = self._provider, None
        if not self._shared:  # a pooled provider is closed with its pool
            _close(provider)

    # -- calls -----------------------------------------------------------------
    def _complete(
        self,
        messages: Sequence[ChatMessage],
        tools: Sequence[ToolSpec],
        phase: CallPhase,
        turn: int | None,
    ) -> Reply:
        budget = self.settings.budget
        if budget is not None:
            budget.check()
        if self._provider is None:
            pool = self.settings.pool
            shared = pool.get(self.name, self.settings) if pool is not None else None
            self._shared = shared is not None
            self._provider = shared if shared is not None else _create(self.name, self.settings)
        reply = self._provider.complete(messages, tools=tools, tool_choice=None)
        record = _record(phase, turn, reply)
        self._calls.append(record)
        if budget is not None:
            budget.charge(record)
        return reply


def _reply_problem(reply: Reply) -> str | None:
    """Why a reply's text is unusable as a whole (too long, not UTF-8), or None."""
    try:
        check_text(reply.text, "your reply")
    except BoundsError as exc:
        return str(exc)
    return None


@dataclass
class _Open:
    """The usable tool call of the last reply, waiting for its result."""

    call: ToolCall
    bad_arguments: str | None = None
    """Why the arguments were unusable (shown before the result), or None."""


class LlmAgent(_LlmBase):
    """An LLM playing turn@shot episodes (:class:`evaluator.agents.Agent`)."""

    def __init__(self, name: str, ctx: AgentContext, settings: LlmAgentSettings) -> None:
        super().__init__(name, settings)
        self.ctx = ctx
        self._tools = turnshot_tools()
        self._reset()

    def _reset(self) -> None:
        """The state of one episode (``start`` begins a new one)."""
        self._conversation: _Conversation | None = None
        self._deferred = False
        self._evaluating = False
        self._turn = 0
        # What the next call must first deliver for the last reply.
        self._open: _Open | None = None
        self._ignored: list[tuple[str, str]] = []
        """(tool call id, result) for the other calls of the last reply."""
        self._observations: list[Observation] = []
        self._feedback: str | None = None
        self._pending: list[str] = []
        self._sent: Literal["query", "answer"] | None = None
        """What the last reply gave the protocol (None after a reply without a call)."""
        self._unusable: str | None = None
        """Why the last reply was unusable as a whole (shown in the correction), or None."""
        self._program = False
        """The current answer is a program (a code-answer box): read from a fenced block."""

    # -- Agent -----------------------------------------------------------------
    def start(self, briefing: Briefing) -> None:
        self._reset()
        self._deferred = briefing.feedback == "deferred"
        mode = (
            "The results of your queries are revealed together after your last exploration "
            "turn: you choose every query before seeing any result."
            if self._deferred
            else "The result of each query is shown right after it."
        )
        intro = f"{briefing.intro.rstrip()}\n\n{mode}"
        self._conversation = _Conversation(
            system_prompt("turnshot", self.settings.protocol), intro, self.settings.history
        )

    def query(self, banner: str) -> str:
        found = _BANNER_TURN.search(banner)
        self._turn = int(found.group(1)) if found else self._turn + 1
        return self._act(banner, "query", self._turn, f"turn {self._turn}")

    def observe(self, observation: Observation) -> None:
        self._observations.append(observation)

    def begin_evaluation(self, message: str) -> None:
        self._evaluating = True
        self._pending.append(message)

    def answer(self, question: Question) -> str:
        self._program = question.program
        where = (
            f"submission {question.attempt + 1}"
            if question.program
            else f"item {question.item} attempt {question.attempt + 1}"
        )
        return self._act(question.prompt, "answer", question.item, where)

    def feedback(self, correct: bool, message: str) -> None:
        self._feedback = message

    # -- internals -------------------------------------------------------------
    @property
    def _chat(self) -> _Conversation:
        if self._conversation is None:
            raise RuntimeError("LlmAgent.start() was not called")
        return self._conversation

    def _result_text(self) -> str | None:
        """What the episode said about the last reply (None: nothing yet)."""
        if self._feedback is not None:
            text, self._feedback = self._feedback, None
            return text
        if self._observations and not (self._deferred and self._evaluating):
            text = "\n".join(o.response for o in self._observations)
            self._observations = []
            return text
        if self._deferred and self._sent == "query":
            return DEFERRED_PLACEHOLDER
        return None

    def _deliver(self, new_text: str) -> None:
        """Append the results owed to the last reply, then the next user message."""
        chat = self._chat
        lines: list[str] = []
        result = self._result_text()
        if self._open is not None:
            bad = self._open.bad_arguments
            if bad is not None and result is None:
                content = bad  # re-asked: nothing reached the box
            else:
                content = result if result is not None else DEFERRED_PLACEHOLDER
                if bad is not None:
                    content = f"{bad}\n{content}"
            chat.add(ChatMessage(role="tool", content=content, tool_call_id=self._open.call.id))
        elif result is not None:
            lines.append(result)
        for call_id, text in self._ignored:
            chat.add(ChatMessage(role="tool", content=text, tool_call_id=call_id))
        self._open, self._ignored, self._sent = None, [], None
        if self._observations:  # deferred mode: every result at once, after the last turn
            lines.append(
                f"The results of your {len(self._observations)} queries, in order:\n"
                + "\n".join(
                    f"Turn {o.turn}: {clip(o.query_text)} -> {o.response}"
                    for o in self._observations
                )
            )
            self._observations = []
        lines.extend(self._pending)
        self._pending = []
        lines.append(new_text)
        chat.add(ChatMessage(role="user", content="\n\n".join(x for x in lines if x)))

    def _act(self, prompt: str, kind: Literal["query", "answer"], turn: int, where: str) -> str:
        """One exploration turn or one answer: call, re-ask without a usable call, return."""
        self._deliver(prompt)
        tools: Sequence[ToolSpec] = ()
        if self.settings.protocol == "tools":
            # Answers also list a closed `query` tool: the history holds query calls, and an
            # API may refuse tool_use blocks naming a tool the request does not define.
            tools = [self._tools[0]] if kind == "query" else [self._tools[1], _CLOSED_QUERY]
        phase: CallPhase = "explore" if kind == "query" else "answer"
        asked = 0
        while True:
            reply = self._complete(self._chat.window(), tools, phase, turn)
            found = self._read(reply, kind, where)
            if found is None and asked >= self.settings.max_reasks:
                self._notes.append(
                    f"{where}: no {self._expected(kind)} after {asked} re-ask(s); "
                    "the raw reply was sent"
                )
                found = self._fallback(reply, kind)
            if found is not None:
                self._sent = kind
                return found
            asked += 1
            self._notes.append(f"{where}: no {self._expected(kind)}; asked again")
            phase = "reask"
            correction = self._correction(kind)
            if self._unusable is not None:
                correction = f"{self._unusable[0].upper()}{self._unusable[1:]}. {correction}"
            self._deliver(correction)

    def _expected(self, kind: Literal["query", "answer"]) -> str:
        if self.settings.protocol == "tools":
            return f"{kind} call"
        return f"{QUERY_MARKER if kind == 'query' else ANSWER_MARKER} line"

    def _correction(self, kind: Literal["query", "answer"]) -> str:
        if self.settings.protocol == "tools":
            argument = '{"input": "..."}' if kind == "query" else '{"output": "..."}'
            return (
                f"Your reply made no {kind} call. Call the tool {kind} with {argument}: "
                "exactly one tool call."
            )
        if kind == "answer" and self._program:
            entry = self.ctx.family.solution_entry
            return (
                f"Your reply has no program. Reply with the whole program defining {entry}() "
                "in one ```python fenced block."
            )
        marker = QUERY_MARKER if kind == "query" else ANSWER_MARKER
        what = "input" if kind == "query" else "output"
        return f"Your reply has no {marker} line. End your reply with one line {marker}: <{what}>"

    def _read(self, reply: Reply, kind: Literal["query", "answer"], where: str) -> str | None:
        """The text for the protocol if the reply holds a usable call; records the reply."""
        chat = self._chat
        chat.add(_assistant(reply))
        self._unusable = _reply_problem(reply)
        if self._unusable is not None:
            for call in reply.tool_calls:
                self._ignored.append((call.id, f"ignored: {self._unusable}"))
            self._notes.append(f"{where}: {self._unusable}")
            return None
        if self.settings.protocol == "text":
            if kind == "answer" and self._program:
                return program_text(reply.text, self.ctx.family.solution_entry)
            return marker_value(reply.text, QUERY_MARKER if kind == "query" else ANSWER_MARKER)
        primary = next((c for c in reply.tool_calls if c.name == kind), None)
        for call in reply.tool_calls:
            if call is primary:
                continue
            text = (
                IGNORED_CALL
                if primary is not None
                else f"ignored: there is no tool {call.name!r} now; call the tool {kind}"
            )
            self._ignored.append((call.id, text))
        if len(reply.tool_calls) > 1 and primary is not None:
            self._notes.append(f"{where}: {len(reply.tool_calls) - 1} extra tool call(s) ignored")
        if primary is None:
            return None
        key = "input" if kind == "query" else "output"
        problem = unusable_arguments(primary.arguments)
        found = string_argument(primary.arguments, key) if problem is None else None
        if found is not None:
            value, used = found
            if used != key:
                self._notes.append(f"{where}: took the argument {clip(used, 60)!r} as {key!r}")
            self._open = _Open(primary)
            return value
        raw = arguments_text(primary.arguments)
        self._notes.append(f"{where}: {kind} call with unusable arguments {clip(raw, 120)}")
        why = "" if problem is None else f" ({problem})"
        self._open = _Open(
            primary,
            f'Invalid call: the tool {kind} takes {{"{key}": "<text>"}}, got {clip(raw, 200)}'
            f"{why}.",
        )
        return None  # asked again, like a reply without a call

    def _fallback(self, reply: Reply, kind: Literal["query", "answer"]) -> str:
        """The raw reply after the last re-ask: judged as an answer (its text, else its
        call's arguments); as a query, a text the family rejects, so the protocol records
        the invalid turn it is. An unusable reply (too long) goes as it is: the protocol
        refuses it with the reason."""
        if self._unusable is not None:
            return reply.text
        if kind == "answer":
            if reply.text.strip() or not reply.tool_calls:
                return reply.text
            return arguments_text(reply.tool_calls[0].arguments)
        return rejected_text(self.ctx.family.parse_query, [reply.text])


class LlmDfaAgent(_LlmBase):
    """An LLM playing DFA episodes (:class:`evaluator.dfa_protocol.DfaAgent`)."""

    def __init__(self, name: str, ctx: DfaAgentContext, settings: LlmAgentSettings) -> None:
        super().__init__(name, settings)
        self.ctx = ctx

    def play(self, env: DfaEnvironment) -> None:
        """Call the model and forward its calls until the episode is over.

        ``EpisodeOver`` from ``env.call`` propagates (``run_dfa_episode`` catches it).
        """
        chat = _Conversation(
            system_prompt("dfa", self.settings.protocol), self.ctx.intro, self.settings.history
        )
        tools: Sequence[ToolSpec] = dfa_tools() if self.settings.protocol == "tools" else ()
        names = {t.name for t in dfa_tools()}
        shown: str | None = None
        while not env.over:
            banner = f"<Call {env.used + 1}; {env.remaining} of {env.budget} calls left>"
            content = banner if shown is None else f"{shown}\n\n{banner}"
            chat.add(ChatMessage(role="user", content=content))
            index = len(env.calls) + 1
            reply = self._complete(chat.window(), tools, "play", index)
            chat.add(_assistant(reply))
            if not reply.tool_calls:
                shown = env.call(reply.text)
                continue
            first = next((c for c in reply.tool_calls if c.name in names), reply.tool_calls[0])
            extra = [c for c in reply.tool_calls if c is not first]
            if extra:
                self._notes.append(f"call {index}: {len(extra)} extra tool call(s) ignored")
            problem = _reply_problem(reply) or unusable_arguments(first.arguments)
            if problem is None:
                result = env.call(_json_text(_dfa_payload(first)))
            else:
                sent = {"tool": first.name, "arguments": arguments_text(first.arguments)}
                result = env.refuse(_json_text(sent), problem, first.name)
            chat.add(ChatMessage(role="tool", content=result, tool_call_id=first.id))
            for call in extra:
                chat.add(ChatMessage(role="tool", content=IGNORED_CALL, tool_call_id=call.id))
            shown = None


EMPTY_REPLY = "(empty reply)"


def _assistant(reply: Reply) -> ChatMessage:
    """The reply as a history message, its reasoning blocks included (Anthropic refuses a
    thinking tool turn without them); an empty one gets a stand-in text (APIs refuse
    empty assistant text blocks).

    A reply over the limits of :mod:`oracle_bench.bounded` is kept as its stand-in, and
    unusable tool arguments as ``{}``: the history is sent again with every call (a
    provider serialises it), and the tool result already says what was wrong."""
    text = reply.text if (reply.text or reply.tool_calls) else EMPTY_REPLY
    calls = [
        c if unusable_arguments(c.arguments) is None else c.model_copy(update={"arguments": {}})
        for c in reply.tool_calls
    ]
    return ChatMessage(
        role="assistant",
        content=recordable_text(text),
        tool_calls=calls,
        reasoning_blocks=reply.reasoning_blocks,
    )


_NAME_KEYS = frozenset({"tool", "tool_name", "name"})


def _json_text(payload: dict[str, Any]) -> str:
    """A DFA call as JSON text; never raises (over the limits: the recording stand-in)."""
    return json.dumps(recordable(payload), ensure_ascii=False, default=repr)


def _dfa_payload(call: ToolCall) -> dict[str, Any]:
    """``{"tool": name, **arguments}`` (the intro's form), or the arguments nested under
    ``"arguments"`` when one of them would clash with the tool's name."""
    arguments = dict(call.arguments)
    if _NAME_KEYS & set(arguments):
        return {"tool": call.name, "arguments": arguments}
    return {"tool": call.name, **arguments}
