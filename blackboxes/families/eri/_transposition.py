"""Transpositions: rail fence and columnar.

Both permute the sequence of LETTERS of the plaintext (spaces removed) and then put the
permuted letters back into the plaintext's letter positions, so spaces keep their places.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Hashable, Iterable, Mapping
from functools import partial
from itertools import permutations
from typing import Any

from blackboxes.box import JSONValue
from blackboxes.families.eri._alphabet import MAX_LEN, letters_of
from blackboxes.families.eri._ciphers import columnar_order, railfence_order, transpose
from blackboxes.families.eri._kind import PREAMBLE, Encrypt, EnumeratedKind, Params, require_int
from oracle_bench.errors import FamilyError

__all__ = ["COLUMNAR_WIDTHS", "RAIL_COUNTS", "ColumnarKind", "RailFenceKind", "TranspositionKind"]

RAIL_COUNTS = (2, 3, 4, 5)
COLUMNAR_WIDTHS = (3, 4, 5, 6)
_RESPACE = (
    "Finally the rearranged letters are written back, in order, into the positions the "
    "plaintext had letters in, so every space stays where it was. "
)


def _apply(order_for: Callable[[int], tuple[int, ...]], text: str) -> str:
    return transpose(order_for(len(letters_of(text))), text)


class TranspositionKind(EnumeratedKind):
    """A kind whose rules permute letters; the permutation depends only on the letter count."""

    @abstractmethod
    def order_for(self, params: Params) -> Callable[[int], tuple[int, ...]]:
        """n -> order, where output letter j is input letter ``order[j]``."""

    def encrypt(self, params: Params) -> Encrypt:
        return partial(_apply, self.order_for(params))

    def signature(self, params: Params) -> Hashable:
        order_for = self.order_for(params)
        return tuple(order_for(n) for n in range(1, MAX_LEN + 1))


class RailFenceKind(TranspositionKind):
    """H: rails R in 2..5 and a starting offset 0..2R-3 into the zigzag, as distinct functions."""

    name = "railfence"
    template_name = "code/eri/railfence.py.j2"

    def all_params(self) -> Iterable[Params]:
        return ({"rails": r, "offset": o} for r in RAIL_COUNTS for o in range(2 * r - 2))

    def check_params(self, params: Mapping[str, JSONValue]) -> Params:
        rails = require_int(params, "rails", min(RAIL_COUNTS), max(RAIL_COUNTS))
        return {"rails": rails, "offset": require_int(params, "offset", 0, 2 * rails - 3)}

    def order_for(self, params: Params) -> Callable[[int], tuple[int, ...]]:
        return partial(railfence_order, int(params["rails"]), int(params["offset"]))

    def describe(self, params: Params) -> str:
        r, o = params["rails"], params["offset"]
        cycle = 2 * int(r) - 2
        return (
            PREAMBLE
            + f"Rail fence transposition with {r} rails and offset {o}. Take the letters of the "
            f"plaintext without spaces, numbered i = 0, 1, 2, ... Letter i goes to row "
            f"q if q < {r}, else {cycle} - q, where q = (i + {o}) mod {cycle} (a zigzag over rows "
            f"0..{int(r) - 1}). Read row 0 from left to right (increasing i), then row 1, "
            "and so on: "
            "this gives the rearranged letter sequence. "
            + _RESPACE
            + "Output: the resulting string."
        )

    def context(self, params: Params) -> dict[str, Any]:
        return {"rails": params["rails"], "rail_offset": params["offset"]}


class ColumnarKind(TranspositionKind):
    """H: widths 3..6 and every column reading order (6+24+120+720 keys), as distinct functions."""

    name = "columnar"
    template_name = "code/eri/columnar.py.j2"

    def all_params(self) -> Iterable[Params]:
        return ({"order": list(p)} for w in COLUMNAR_WIDTHS for p in permutations(range(w)))

    def check_params(self, params: Mapping[str, JSONValue]) -> Params:
        order = params.get("order")
        if (
            not isinstance(order, list | tuple)
            or len(order) not in COLUMNAR_WIDTHS
            or sorted(order) != list(range(len(order)))
        ):
            raise FamilyError(
                f"ERI columnar 'order' must be a permutation of 0..w-1, w in 3..6, got {order!r}"
            )
        return {"order": [int(c) for c in order]}

    def order_for(self, params: Params) -> Callable[[int], tuple[int, ...]]:
        order = params["order"]
        if not isinstance(order, list | tuple):
            raise FamilyError("ERI columnar 'order' must be a list")
        return partial(columnar_order, tuple(int(c) for c in order))

    def describe(self, params: Params) -> str:
        order = params["order"]
        if not isinstance(order, list):
            raise FamilyError("ERI columnar 'order' must be a list")
        w = len(order)
        return (
            PREAMBLE
            + f"Columnar transposition with {w} columns and column reading order {order}. Take the "
            f"letters of the plaintext without spaces and write them row by row into a grid {w} "
            f"letters wide (letter i goes to row i // {w}, column i mod {w}); the last row may be "
            f"incomplete. Then read whole columns, top to bottom, skipping empty cells, taking "
            f"the columns in the order {', '.join(str(c) for c in order)} "
            "(column numbers start at 0): "
            "this gives the rearranged letter sequence. "
            + _RESPACE
            + "Output: the resulting string."
        )

    def context(self, params: Params) -> dict[str, Any]:
        return {"columns": params["order"]}
