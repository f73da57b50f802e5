"""Defaults and choices of the evaluator's own options that the command lines show in --help
(each kind keeps its own with its options).

Apart, importing nothing, so that a parser is built (and --help printed) without importing
the evaluator; the modules that use them import them from here and re-export them.
"""

from __future__ import annotations

from typing import Literal

__all__ = [
    "EXIT_FAILURES",
    "PROTOCOLS",
    "PlayProtocol",
]

EXIT_FAILURES = 4
"""``oracle-eval``'s exit code when episodes failed (without ``--allow-failures``)."""

PlayProtocol = Literal["tools", "text"]
PROTOCOLS: tuple[PlayProtocol, ...] = ("tools", "text")
"""How an LLM agent plays: native tool calls or the text protocol."""
