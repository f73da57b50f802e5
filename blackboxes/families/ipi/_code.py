"""IPI box code: the coder's spec of a puzzle's ``blackbox(secret, probe, u)``."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from blackboxes.puzzles import PuzzleKind

__all__ = ["describe"]


def describe(kind: PuzzleKind, params: Mapping[str, Any]) -> str:
    """The coder's spec: the interface, the canonical formats, the rules and the noise."""
    secret, probe = kind.canonical_formats(params)
    return (
        f"An interactive puzzle, {kind.display_title(params)} (kind {kind.name}, parameters"
        f" {json.dumps(kind.spec_params(params), sort_keys=True)}). Write"
        " `blackbox(secret, probe, u)`:"
        " it returns the feedback string the rules below give for probe `probe` when the"
        " hidden answer is `secret`; `u` is a number in [0, 1) the caller draws per probe.\n"
        f"The secret is written {secret}; the probe is written {probe} (both always in"
        " this canonical form; raise ValueError on anything else).\n"
        f"Noise: {kind.noise_spec(params)}\n"
        f"The rules the player is told:\n{kind.rules_text(params)}"
    )
