"""LLM usage of an episode and of a run: per-call records, totals and the run's budget.

An LLM agent records one :class:`LlmCallRecord` per provider call (re-asks included); the
episode protocols copy them into the trajectory with their :class:`UsageTotals`, so
tokens and dollars are recomputable from trajectories alone. Each record also says which
messages of the episode's conversation (:mod:`evaluator.conversation`) the call sent.
Latency is wall-clock and stays out of trajectories (which are byte-identical for the
same seed and script); the run manifest keeps timing.

:class:`RunBudget` is shared by every agent of a run: ``--max-cost``/``--max-tokens``
are checked before each call and charged after it. Once spent, the next call raises
:class:`BudgetExhausted`, a ``BaseException`` so that no agent or protocol records it as
an episode failure: the runner drops the unfinished episode (it is rerun on resume, its
completed calls served free from the call cache) and stops starting new ones.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, NonNegativeInt

from oracle_bench.errors import UsageError

__all__ = [
    "BudgetExhausted",
    "LlmCallRecord",
    "ReportsUsage",
    "RunBudget",
    "Span",
    "UsageTotals",
    "agent_llm_calls",
    "check_priced",
    "totals_of",
]

CallPhase = Literal["explore", "answer", "reask", "play"]

Span = tuple[NonNegativeInt, NonNegativeInt]
"""A half-open range ``[start, end)`` of a conversation's messages."""


def _absent(value: object) -> bool:
    return value is None


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class LlmCallRecord(_Model):
    """One provider call an LLM agent made (a re-ask is a call of its own)."""

    phase: CallPhase
    """``explore`` (a turn's query), ``answer`` (a held-out attempt), ``reask`` (after an
    unparseable reply), ``play`` (a DFA episode's tool call)."""
    turn: int | None = None
    """The exploration turn, held-out item or DFA call this call served (1-based)."""
    text: str
    """The model's reply text (thinking excluded)."""
    tool_calls: list[dict[str, Any]] = Field(default_factory=list)
    """``[{"id", "name", "arguments"}]`` as the model made them."""
    finish_reason: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0
    cost_usd: float | None = None
    """From the pricing table (what the call cost when it was paid); None for a model
    without a price."""
    retries: int = 0
    """Waits of the retry layer before this call succeeded (429, 5xx, timeouts...)."""
    cached: bool = False
    """Served from the run's call cache (a resumed episode): paid once, by the run that
    was cut off, not again."""
    sent: list[Span] | None = Field(default=None, exclude_if=_absent)
    """The messages the call sent: ranges of the trajectory's ``conversation.messages``,
    in order, after its system prompt (see :mod:`evaluator.conversation`). Absent in
    records written before conversations were kept."""

    @property
    def tokens(self) -> int:
        return (
            self.input_tokens
            + self.output_tokens
            + self.cache_read_tokens
            + self.cache_write_tokens
        )


class UsageTotals(_Model):
    """Sums over an episode's (or a run's) calls."""

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0
    tokens: int = 0
    """input + output + cache read + cache write."""
    cost_usd: float | None = None
    """None when no call had a price."""
    retries: int = 0
    cached_calls: int = 0

    def __add__(self, other: UsageTotals) -> UsageTotals:
        if self.cost_usd is None and other.cost_usd is None:
            cost = None
        else:
            cost = round((self.cost_usd or 0.0) + (other.cost_usd or 0.0), 10)
        return UsageTotals(
            calls=self.calls + other.calls,
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cache_read_tokens=self.cache_read_tokens + other.cache_read_tokens,
            cache_write_tokens=self.cache_write_tokens + other.cache_write_tokens,
            reasoning_tokens=self.reasoning_tokens + other.reasoning_tokens,
            tokens=self.tokens + other.tokens,
            cost_usd=cost,
            retries=self.retries + other.retries,
            cached_calls=self.cached_calls + other.cached_calls,
        )


def totals_of(calls: Iterable[LlmCallRecord]) -> UsageTotals:
    """The totals of a list of call records."""
    total = UsageTotals()
    for c in calls:
        total = total + UsageTotals(
            calls=1,
            input_tokens=c.input_tokens,
            output_tokens=c.output_tokens,
            cache_read_tokens=c.cache_read_tokens,
            cache_write_tokens=c.cache_write_tokens,
            reasoning_tokens=c.reasoning_tokens,
            tokens=c.tokens,
            cost_usd=c.cost_usd,
            retries=c.retries,
            cached_calls=int(c.cached),
        )
    return total


@runtime_checkable
class ReportsUsage(Protocol):
    """An agent that calls an LLM reports its calls (both episode protocols read it)."""

    def llm_calls(self) -> list[LlmCallRecord]:
        """Every call so far, in order."""
        ...


def check_priced(models: Iterable[str]) -> None:
    """A one-line :class:`UsageError` unless every ``provider/model`` has a price:
    ``--max-cost`` cannot be enforced on calls that cost nothing as far as it knows."""
    from providers import load_pricing

    pricing = load_pricing()
    unpriced = [name for name in models if pricing.lookup(name) is None]
    if unpriced:
        raise UsageError(
            f"--max-cost cannot be enforced: no price for {', '.join(unpriced)} "
            "(add one to a pricing file named by $ORACLE_BENCH_PRICING, or cap with --max-tokens)"
        )


def agent_llm_calls(agent: object) -> list[LlmCallRecord]:
    """The agent's call records, or [] for an agent that makes none."""
    method = getattr(agent, "llm_calls", None)
    if method is None:
        return []
    return list(method())


class BudgetExhausted(BaseException):
    """The run's ``--max-cost``/``--max-tokens`` is spent: stop this episode unrecorded.

    A ``BaseException`` so agent retry loops and the protocols' ``except Exception`` do
    not turn it into a failed episode.
    """


class RunBudget:
    """Thread-safe running totals with optional caps, shared by every agent of a run.

    ``spent_*`` start from what the run directory already holds (finished episodes), so
    a resumed run honours the same caps.
    """

    def __init__(
        self,
        *,
        max_cost: float | None = None,
        max_tokens: int | None = None,
        spent_cost: float = 0.0,
        spent_tokens: int = 0,
    ) -> None:
        if max_cost is not None and not max_cost > 0:
            raise UsageError(f"invalid --max-cost {max_cost}: must be > 0 dollars")
        if max_tokens is not None and max_tokens < 1:
            raise UsageError(f"invalid --max-tokens {max_tokens}: must be >= 1")
        self.max_cost = max_cost
        self.max_tokens = max_tokens
        self._cost = spent_cost
        self._tokens = spent_tokens
        self._lock = threading.Lock()
        self._reason: str | None = None

    @property
    def cost(self) -> float:
        with self._lock:
            return self._cost

    @property
    def tokens(self) -> int:
        with self._lock:
            return self._tokens

    @property
    def exhausted(self) -> str | None:
        """Why the budget is spent (None while it is not)."""
        with self._lock:
            return self._reason

    def _update_reason(self) -> None:
        if self._reason is not None:
            return
        if self.max_cost is not None and self._cost >= self.max_cost:
            self._reason = f"--max-cost ${self.max_cost:g} reached (${self._cost:.4f} spent)"
        elif self.max_tokens is not None and self._tokens >= self.max_tokens:
            self._reason = f"--max-tokens {self.max_tokens} reached ({self._tokens} used)"

    def check(self) -> None:
        """Before a call: raise :class:`BudgetExhausted` if a cap is reached."""
        with self._lock:
            self._update_reason()
            if self._reason is not None:
                raise BudgetExhausted(self._reason)

    def charge(self, record: LlmCallRecord) -> None:
        """After a call: add what it cost. A cached call (replayed in a resumed episode) is
        charged too: it was paid by the cut-off run, and no finished episode counted it."""
        with self._lock:
            self._cost += record.cost_usd or 0.0
            self._tokens += record.tokens
            self._update_reason()
