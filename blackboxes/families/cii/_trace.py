"""What a CII query reads from a program's checkpoint trace."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from blackboxes.box import JSONValue
from blackboxes.families.cii._kind import Event

__all__ = ["Grouped", "answer", "group", "observation"]

Grouped = Mapping[int, Sequence[Mapping[str, JSONValue]]]
"""A trace by checkpoint: index -> the values of each visit, in order."""


def group(events: Sequence[Event]) -> dict[int, list[dict[str, JSONValue]]]:
    grouped: dict[int, list[dict[str, JSONValue]]] = {}
    for index, values in events:
        grouped.setdefault(index, []).append(values)
    return grouped


def observation(grouped: Grouped, checkpoint: int, visit: int) -> dict[str, JSONValue]:
    """What the sandbox reports for a traced call: the values of the ``visit``-th visit of
    ``checkpoint`` or, when there are fewer, how many visits there were."""
    visits = grouped.get(checkpoint, ())
    if visit <= len(visits):
        return {"values": dict(visits[visit - 1]), "visits": visit}
    return {"values": None, "visits": len(visits)}


def answer(grouped: Grouped, x: Mapping[str, JSONValue]) -> JSONValue:
    """The output for query ``x`` (an observation) or held-out item ``x`` (the value of its
    variable; None when the visit or the variable does not exist: never a real value)."""
    checkpoint, visit = x["checkpoint"], x["visit"]
    if not isinstance(checkpoint, int) or not isinstance(visit, int):
        return None
    seen = observation(grouped, checkpoint, visit)
    if "variable" not in x:
        return seen
    values = seen["values"]
    if not isinstance(values, dict):
        return None
    return values.get(str(x["variable"]))
