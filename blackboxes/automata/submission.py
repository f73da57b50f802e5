"""Parse an agent's hypothesis DFA, with errors an agent can act on.

The format (the same one :meth:`DFA.to_json` writes)::

    {"states": ["q0", "q1"], "alphabet": ["a", "b"], "start": "q0",
     "accepting": ["q1"],
     "transitions": [["q0", "a", "q1"], ["q0", "b", "q0"], ...]}

``transitions`` may also be a mapping ``{"q0": {"a": "q1", "b": "q0"}, ...}``. State
names are strings (integers are accepted and turned into strings). The DFA must be
complete and deterministic over exactly the target's alphabet: a missing transition,
two targets for one (state, letter), an unknown state or a foreign letter is an
:class:`InvalidDfaError` whose message says which, never a silent repair. The
submission is an agent's and hostile: it is held to :mod:`oracle_bench.bounded`'s limits
(nesting, digits, sizes, string keys) before it is read, and values quoted back in
messages are clipped.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from blackboxes.automata.dfa import DFA
from oracle_bench.bounded import BoundsError, check_value, load_json, preview
from oracle_bench.errors import InvalidQueryError

__all__ = ["MAX_SUBMITTED_STATES", "InvalidDfaError", "parse_submission", "read_hypothesis"]

MAX_SUBMITTED_STATES = 1000
"""Larger hypotheses are refused (they would only slow the oracle down)."""


class InvalidDfaError(InvalidQueryError):
    """A hypothesis DFA that is malformed, incomplete, nondeterministic or off-alphabet."""


def _show(value: Any) -> str:
    """``value`` quoted in a message: a short string as its repr, anything else clipped."""
    if isinstance(value, str) and len(value) <= 60:
        return repr(value)
    return preview(value, 60)


def _name(value: Any, what: str) -> str:
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise InvalidDfaError(f"{what} must be a state name (a string), got {_show(value)}")
    return str(value)


def _letter(value: Any, alphabet: Sequence[str]) -> str:
    if not isinstance(value, str) or value not in alphabet:
        raise InvalidDfaError(
            f"letter {_show(value)} is not in the alphabet {{{', '.join(alphabet)}}}"
        )
    return value


def _edges(raw: Any, alphabet: Sequence[str]) -> list[tuple[str, str, str]]:
    edges: list[tuple[str, str, str]] = []
    if isinstance(raw, Mapping):
        for src, row in raw.items():
            if not isinstance(row, Mapping):
                raise InvalidDfaError(
                    f"transitions[{_show(src)}] must map letters to states, got {_show(row)}"
                )
            for letter, dst in row.items():
                edges.append(
                    (_name(src, "a source"), _letter(letter, alphabet), _name(dst, "a target"))
                )
        return edges
    if not isinstance(raw, list):
        raise InvalidDfaError("transitions must be a list of [source, letter, target] triples")
    for i, item in enumerate(raw):
        if isinstance(item, Mapping):
            keys = ("src", "sym", "dst") if "src" in item else ("from", "letter", "to")
            try:
                item = [item[keys[0]], item[keys[1]], item[keys[2]]]
            except KeyError:
                raise InvalidDfaError(
                    f"transitions[{i}] must be [source, letter, target], got {_show(item)}"
                ) from None
        if not isinstance(item, list | tuple) or len(item) != 3:
            raise InvalidDfaError(
                f"transitions[{i}] must be [source, letter, target], got {_show(item)}"
            )
        edges.append(
            (_name(item[0], "a source"), _letter(item[1], alphabet), _name(item[2], "a target"))
        )
    return edges


def read_hypothesis(data: Any) -> Any:
    """A submitted hypothesis as a value within the bounded reader's limits: JSON text
    loaded, a value checked; :class:`InvalidDfaError` with the reason otherwise."""
    try:
        if isinstance(data, str):
            return load_json(data, what="the hypothesis")
        check_value(data, "the hypothesis")
    except BoundsError as exc:
        raise InvalidDfaError(str(exc)) from None
    except json.JSONDecodeError as exc:
        raise InvalidDfaError(f"the hypothesis is not valid JSON: {exc.msg}") from None
    return data


def parse_submission(data: Any, alphabet: Sequence[str]) -> DFA:
    """The DFA an agent submitted (a dict, or JSON text of one), over ``alphabet``."""
    alphabet = tuple(alphabet)  # a str would make ``in`` a substring test
    data = read_hypothesis(data)
    if not isinstance(data, Mapping):
        raise InvalidDfaError("the hypothesis must be a JSON object")
    for key in ("states", "start", "accepting", "transitions"):
        if key not in data:
            raise InvalidDfaError(f"the hypothesis has no {key!r} field")
    unknown = set(data) - {"states", "alphabet", "start", "accepting", "transitions"}
    if unknown:
        raise InvalidDfaError(f"unknown field(s) in the hypothesis: {', '.join(sorted(unknown))}")
    if "alphabet" in data:
        given = data["alphabet"]
        letters = list(given) if isinstance(given, str | list) else None
        if letters is None or sorted(map(str, letters)) != sorted(alphabet):
            raise InvalidDfaError(
                f"the alphabet must be exactly {{{', '.join(alphabet)}}}, got {_show(given)}"
            )
    states_raw = data["states"]
    if not isinstance(states_raw, list) or not states_raw:
        raise InvalidDfaError("states must be a non-empty list of state names")
    if len(states_raw) > MAX_SUBMITTED_STATES:
        raise InvalidDfaError(f"at most {MAX_SUBMITTED_STATES} states, got {len(states_raw)}")
    states = [_name(s, "each state") for s in states_raw]
    if len(set(states)) != len(states):
        raise InvalidDfaError("state names must be distinct")
    index = {s: i for i, s in enumerate(states)}

    def known(name: str, role: str) -> int:
        if name not in index:
            raise InvalidDfaError(f"{role} {_show(name)} is not one of the listed states")
        return index[name]

    start = known(_name(data["start"], "start"), "start state")
    accepting_raw = data["accepting"]
    if not isinstance(accepting_raw, list):
        raise InvalidDfaError("accepting must be a list of state names")
    accepting = {known(_name(s, "an accepting state"), "accepting state") for s in accepting_raw}

    delta: list[list[int | None]] = [[None] * len(alphabet) for _ in states]
    letter_at = {a: i for i, a in enumerate(alphabet)}
    for src, letter, dst in _edges(data["transitions"], alphabet):
        q, a, t = known(src, "source state"), letter_at[letter], known(dst, "target state")
        if delta[q][a] is not None and delta[q][a] != t:
            raise InvalidDfaError(
                f"nondeterministic: state {_show(src)} has two transitions on {letter!r}"
            )
        delta[q][a] = t
    missing = [
        f"({_show(states[q])}, {alphabet[a]!r})"
        for q in range(len(states))
        for a in range(len(alphabet))
        if delta[q][a] is None
    ]
    if missing:
        shown = ", ".join(missing[:5]) + (
            f" and {len(missing) - 5} more" if len(missing) > 5 else ""
        )
        raise InvalidDfaError(f"incomplete: no transition for {shown}")
    return DFA.build(
        alphabet,
        [[t for t in row if t is not None] for row in delta],
        [q in accepting for q in range(len(states))],
        start,
    )
