"""IPI box code: the template of each puzzle kind, its context, and the coder's spec."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from blackboxes.puzzles import PuzzleKind

__all__ = ["FORMATS", "NOISE", "describe", "template_context"]

FORMATS: dict[str, tuple[str, str]] = {
    "bandit": (
        "the arms' success percents in arm order, comma separated, e.g. `20,70,10`",
        "`arm <k>`, e.g. `arm 2`",
    ),
    "battleship_fleet": (
        "`ships <end cells> <end cells>...; bombs <cell> <cell>...` (`bombs none` without"
        " bombs), longest ship first, each ship's top/left end first, e.g."
        " `ships A1-A4 C2-E2; bombs B5`",
        "one cell, e.g. `C5`",
    ),
    "battleship_one": ("the ship's end cells, top/left end first, e.g. `B2-B4`", "one cell"),
    "bulls_and_cows": ("the digits, e.g. `0123`", "the digits, e.g. `4567`"),
    "coin_heavy": ("`coin <k>`, e.g. `coin 7`", "`<left pan> vs <right pan>`, e.g. `1-3 vs 4,5,7`"),
    "coin_heavy_light": (
        "`coin <k> heavy` or `coin <k> light`",
        "`<left pan> vs <right pan>`, each pan sorted coins with runs of 3 or more as"
        " `a-b`, e.g. `1-3 vs 4,5,7`",
    ),
    "coin_lying": ("`coin <k>`, e.g. `coin 7`", "`<left pan> vs <right pan>`, e.g. `1,2 vs 3,4`"),
    "mastermind": ("the colour letters, e.g. `ABCA`", "the colour letters, e.g. `BBCD`"),
    "number_far_close": ("the number in decimal, e.g. `42`", "the number in decimal"),
    "number_higher_lower": ("the number in decimal, e.g. `42`", "the number in decimal"),
    "nuts_and_bolts": (
        "every nut with its bolt, nut order, e.g. `1C 2A 3B`",
        "1 to m pairs sorted by nut then bolt, e.g. `1A 3C`",
    ),
    "twenty_questions": (
        "the number in decimal, e.g. `42`",
        "one question: `<= k`, `>= k`, `between a and b` (a < b), `even`, `odd`,"
        " `divisible by k`, `= k` or `in {a,b,c}` (2 or more numbers, rising)",
    ),
    "wordle": ("the hidden word, lowercase", "any string of the word's length, letters a-z"),
}
"""Per kind: the canonical secret and the canonical probe the box is called with."""

NOISE: dict[str, str] = {
    "bandit": "Return `1` if u < (the probed arm's percent) / 100, else `0`.",
    "coin_lying": (
        "Let lie = lie_percent / 100. If u >= lie, return the true reading. Otherwise the"
        " balance lies: of the two wrong readings, in the order left, right, balanced,"
        " return the first if u < lie / 2 and the second otherwise."
    ),
}
"""The exact use of u by the noisy kinds (deterministic kinds ignore u)."""


def template_context(kind: PuzzleKind, params: Mapping[str, Any]) -> dict[str, Any]:
    """The params baked into ``code/ipi/<kind>.py.j2``, with the few derived constants."""
    context = dict(params)
    if kind.name == "mastermind":
        context["alphabet"] = "ABCDEFGHIJ"[: params["colours"]]
    elif kind.name == "bulls_and_cows":
        context["symbols"] = "0123456789"[: params["digits"]]
    elif kind.name == "nuts_and_bolts":
        context["bolts"] = "ABCDEFGH"[: params["size"]]
    return context


def describe(kind: PuzzleKind, params: Mapping[str, Any]) -> str:
    """The coder's spec: the interface, the canonical formats, the rules and the noise."""
    secret, probe = FORMATS[kind.name]
    noise = NOISE.get(kind.name, "The puzzle is deterministic: ignore u.")
    return (
        f"An interactive puzzle, {kind.title} (kind {kind.name}, parameters"
        f" {json.dumps(dict(params), sort_keys=True)}). Write `blackbox(secret, probe, u)`:"
        " it returns the feedback string the rules below give for probe `probe` when the"
        " hidden answer is `secret`; `u` is a number in [0, 1) the caller draws per probe.\n"
        f"The secret is written {secret}; the probe is written {probe} (both always in"
        " this canonical form; raise ValueError on anything else).\n"
        f"Noise: {noise}\n"
        f"The rules the player is told:\n{kind.rules_text(params)}"
    )
