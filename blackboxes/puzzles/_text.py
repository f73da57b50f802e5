"""Bounded, lenient-but-strict text helpers shared by the puzzle parsers."""

from __future__ import annotations

import re

from blackboxes.puzzles._base import PuzzleError

__all__ = [
    "MAX_TEXT_CHARS",
    "bounded",
    "cell_name",
    "parse_cell",
    "parse_int",
    "preview",
    "tokens",
]

MAX_TEXT_CHARS = 2000
"""Longest probe or answer text parsed at all (checked before any regex runs)."""

MAX_DIGITS = 9
"""Longest run of digits read as a number: every puzzle's numbers are far smaller."""

# ASCII only: Python's \d and str.isdigit accept other scripts' digits ("٣", "²").
_TOKEN = re.compile(r"[0-9]+|[a-z]+|[^\sa-z0-9]")


def bounded(text: object, what: str) -> str:
    """``text`` if it is a string of at most MAX_TEXT_CHARS characters."""
    if not isinstance(text, str):
        raise PuzzleError(f"{what} must be text, got {type(text).__name__}")
    if len(text) > MAX_TEXT_CHARS:
        raise PuzzleError(
            f"{what} is {len(text)} characters long; at most {MAX_TEXT_CHARS} are allowed"
        )
    return text


def preview(text: str, width: int = 40) -> str:
    """A one-line quotation of ``text`` for an error message (repr escapes newlines)."""
    cut = text if len(text) <= width else text[:width] + "…"
    return repr(cut)


def tokens(text: str) -> list[str]:
    """Lower-cased runs of ASCII digits, runs of ASCII letters, and single other characters."""
    return _TOKEN.findall(text.lower())


def parse_int(token: str, lo: int, hi: int, expected: str, text: str) -> int:
    """``token`` as an integer in ``[lo, hi]``, or a PuzzleError saying ``expected``."""
    if not token.isascii() or not token.isdigit() or len(token) > MAX_DIGITS:
        raise PuzzleError(f"expected {expected}; got {preview(text)}")
    value = int(token)
    if not lo <= value <= hi:
        raise PuzzleError(f"expected {expected}; {value} is out of range in {preview(text)}")
    return value


def cell_name(row: int, col: int) -> str:
    """``C5`` for row 2, column 4 (rows are letters from A, columns numbers from 1)."""
    return f"{chr(ord('A') + row)}{col + 1}"


def parse_cell(letters: str, digits: str, rows: int, cols: int, text: str) -> int:
    """The cell index ``row * cols + col`` of a row letter and a column number."""
    expected = (
        f"a cell: a row letter A-{chr(ord('A') + rows - 1)} then a column number 1-{cols}, e.g. B3"
    )
    if len(letters) != 1 or not "a" <= letters <= chr(ord("a") + rows - 1):
        raise PuzzleError(f"expected {expected}; got {preview(text)}")
    col = parse_int(digits, 1, cols, expected, text) - 1
    return (ord(letters) - ord("a")) * cols + col


_NUMBER_PUNCTUATION = frozenset("()[]{}\"'`.:=#!?*")


def single_int(text: str, lo: int, hi: int, expected: str, fillers: frozenset[str]) -> int:
    """The one whole number in ``text`` (filler words and brackets around it are allowed;
    a sign, a decimal point between digits or a second number are not)."""
    parts = [t for t in tokens(text) if t not in fillers and t not in _NUMBER_PUNCTUATION]
    if len(parts) != 1 or not parts[0].isdigit():
        raise PuzzleError(f"expected {expected}; got {preview(text)}")
    return parse_int(parts[0], lo, hi, expected, text)


def spread_order(count: int) -> list[int]:
    """0..count-1 in van der Corput (bit-reversed) order of their midpoints: each prefix is
    spread evenly, the way a non-adaptive bisection probes."""
    if count <= 0:
        return []
    order: list[int] = []
    seen: set[int] = set()
    depth = 1
    while len(order) < count:
        for k in range(1, 1 << depth, 2):
            i = min(count - 1, (k * count) >> depth)
            if i not in seen:
                seen.add(i)
                order.append(i)
        depth += 1
        if (1 << depth) > 4 * count:
            order.extend(i for i in range(count) if i not in seen)
            break
    return order
