"""The ``turn@shot`` budget of an episode and the feedback modes (DESIGN.md, "Evaluation")."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal, get_args

from evaluator.kinds._base import KindOption
from oracle_bench.errors import UsageError

__all__ = [
    "CONTEXTS",
    "CONTEXT_OPTION",
    "FEEDBACK_MODES",
    "FEEDBACK_OPTION",
    "MAX_SHOTS",
    "MAX_TURNS",
    "SPEC_OPTION",
    "Context",
    "FeedbackMode",
    "TurnShot",
    "check_spec_tokens",
    "parse_context",
    "parse_feedback",
    "parse_spec",
    "parse_spec_list",
    "split_spec_list",
]

FeedbackMode = Literal["instant", "deferred"]
"""``instant``: each query is answered at once. ``deferred``: all T queries are submitted
blind and the answers revealed together (ORACLE's setting (i), which isolates adaptivity)."""

FEEDBACK_MODES: tuple[FeedbackMode, ...] = get_args(FeedbackMode)

MAX_TURNS = 10_000
MAX_SHOTS = 100
"""Generous caps so a typo (``2000000@1``) fails fast instead of running for days."""

_EXPECTED = "expected TURNS@SHOTS, e.g. 20@2"
_SPEC = re.compile(r"^\s*([+-]?\d+)\s*@\s*([+-]?\d+)\s*$")


@dataclass(frozen=True)
class TurnShot:
    """``turns`` exploration turns, then ``shots`` attempts per held-out item."""

    turns: int
    shots: int

    def __str__(self) -> str:
        return f"{self.turns}@{self.shots}"

    @property
    def slug(self) -> str:
        """File-name friendly form: ``20at2``."""
        return f"{self.turns}at{self.shots}"


def parse_spec(text: str) -> TurnShot:
    """Parse ``"20@2"`` into ``TurnShot(turns=20, shots=2)``.

    Both numbers are plain decimal integers; turns and shots must be >= 1 (an episode
    with no exploration turn is not a black-box episode). Anything else raises
    :class:`UsageError` with a one-line message.
    """
    if not isinstance(text, str) or not text.strip():
        raise UsageError(f"invalid spec {text!r}: empty ({_EXPECTED})")
    match = _SPEC.match(text)
    if match is None:
        reason = "missing '@'" if "@" not in text else "TURNS and SHOTS must be whole numbers"
        raise UsageError(f"invalid spec {text!r}: {reason} ({_EXPECTED})")
    turns, shots = int(match.group(1)), int(match.group(2))
    if turns < 1:
        raise UsageError(f"invalid spec {text!r}: turns must be >= 1 ({_EXPECTED})")
    if shots < 1:
        raise UsageError(f"invalid spec {text!r}: shots must be >= 1 ({_EXPECTED})")
    if turns > MAX_TURNS:
        raise UsageError(f"invalid spec {text!r}: turns must be <= {MAX_TURNS} ({_EXPECTED})")
    if shots > MAX_SHOTS:
        raise UsageError(f"invalid spec {text!r}: shots must be <= {MAX_SHOTS} ({_EXPECTED})")
    return TurnShot(turns=turns, shots=shots)


def split_spec_list(text: str) -> list[str]:
    """A sweep's specs, each as text: ``"1,2,5@1"`` -> ``["1@1", "2@1", "5@1"]``.

    The comma-separated parts are specs; a part without ``@`` (bare TURNS) takes the SHOTS
    of the next part that has them, so ``"10,20@2,5@1"`` is ``10@2, 20@2, 5@1``. Nothing
    is validated here: a part left without SHOTS stays as it is, for :func:`parse_spec`
    to refuse with its own message."""
    parts = [part.strip() for part in str(text).split(",")]
    shots: str | None = None
    out: list[str] = []
    for part in reversed(parts):
        if "@" in part:
            shots = part.split("@", 1)[1].strip()
            out.append(part)
        else:
            out.append(part if shots is None or not part else f"{part}@{shots}")
    return out[::-1]


def parse_spec_list(text: str) -> tuple[TurnShot, ...]:
    """Parse a sweep of specs (:func:`split_spec_list`): ``"1,2,5,10,20@1"``; a spec listed
    twice, like any bad one, is a :class:`UsageError`."""
    specs = tuple(parse_spec(part) for part in split_spec_list(text))
    twice = sorted({str(s) for s in specs if specs.count(s) > 1})
    if twice:
        raise UsageError(f"invalid spec {text!r}: {', '.join(twice)} listed twice")
    return specs


def check_spec_tokens(tokens: list[str]) -> None:
    """Parse every command-line token that looks like a negative spec (``-1@1``,
    ``-1,2@1``): argparse would take it for an unknown option; it is the bad spec it is
    (:class:`UsageError`)."""
    for token in tokens:
        if token.startswith("-") and "@" in token and token[1:2].isdigit():
            parse_spec_list(token)


def parse_feedback(text: str) -> FeedbackMode:
    """Validate a feedback mode name; raises :class:`UsageError` for anything else."""
    for mode in FEEDBACK_MODES:
        if text == mode:
            return mode
    choices = ", ".join(FEEDBACK_MODES)
    raise UsageError(f"invalid feedback mode {text!r} (choose from {choices})")


SPEC_OPTION = KindOption(
    name="spec",
    flag="SPEC",
    metavar="TURNS@SHOTS",
    help="the budget: TURNS exploration turns, then SHOTS attempts per held-out item, "
    "e.g. 10@1 or 20@2",
    commands=frozenset({"eval", "play"}),
    sweep=True,
    sweep_split=split_spec_list,
)
"""The turn@shot budget, shared by the kinds whose budget it is."""


def _feedback_arg(text: str) -> FeedbackMode:
    import argparse

    try:
        return parse_feedback(text)
    except UsageError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


FEEDBACK_OPTION = KindOption(
    name="feedback",
    flag="--feedback",
    metavar="MODE",
    parse=_feedback_arg,
    help=f"{' or '.join(FEEDBACK_MODES)} (default: instant)",
    commands=frozenset({"eval", "play"}),
)
"""The feedback mode, shared likewise."""

Context = Literal["reset", "keep"]
"""``reset``: an LLM agent starts every item (a puzzle instance, a game setting) with a
fresh conversation, as ORACLE does; ``keep``: one conversation across the items."""
CONTEXTS: tuple[Context, ...] = get_args(Context)


def parse_context(text: str) -> Context:
    """Validate a context mode; :class:`UsageError` for anything else."""
    for mode in CONTEXTS:
        if text == mode:
            return mode
    raise UsageError(f"invalid context mode {text!r} (choose from {', '.join(CONTEXTS)})")


def _context_arg(text: str) -> Context:
    import argparse

    try:
        return parse_context(text)
    except UsageError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


CONTEXT_OPTION = KindOption(
    name="context",
    flag="--context",
    metavar="MODE",
    help="reset (default, ORACLE's: an LLM agent starts every puzzle instance or game "
    "setting with a fresh conversation) or keep (one conversation across them)",
    commands=frozenset({"eval", "play"}),
    parse=_context_arg,
)
"""The conversation across an episode's items, shared by the kinds that have items."""
