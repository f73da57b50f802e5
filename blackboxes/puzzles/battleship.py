"""Battleship: find one hidden ship, or a fleet hidden among decoy bombs, by probing cells."""

from __future__ import annotations

import itertools
import json
import math
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import numpy.typing as npt

from blackboxes.puzzles._base import (
    MAX_ANSWERS,
    Codes,
    DeterministicKind,
    Index,
    Params,
    PuzzleError,
    params_key,
    register_puzzle,
)
from blackboxes.puzzles._params import require_int, require_int_list, require_keys
from blackboxes.puzzles._text import bounded, cell_name, parse_cell, preview, spread_order, tokens

if TYPE_CHECKING:
    from blackboxes.box import Level

__all__ = ["BattleshipFleet", "BattleshipOne"]

_LABELS = ("miss", "hit")
_CELL_FILLERS = frozenset({"cell", "fire", "at", "shoot", "probe", "row", "column", "col"})
_CELL_PUNCTUATION = frozenset("()[]{},.:;!?\"'`")
_ACROSS = frozenset({"h", "horizontal", "across", "right", "horizontally"})
_DOWN = frozenset({"v", "vertical", "down", "vertically"})
_SEGMENT = re.compile(r"([a-z])\s*([0-9]+)\s*(?:-|–|to)\s*([a-z])\s*([0-9]+)")


@dataclass(frozen=True)
class _Ship:
    """One placement: the start (top-left end) cell, across or down, and the length."""

    row: int
    col: int
    down: bool
    length: int

    def cells(self, cols: int) -> list[int]:
        step = cols if self.down else 1
        return [self.row * cols + self.col + i * step for i in range(self.length)]

    def name(self) -> str:
        end_row = self.row + (self.length - 1 if self.down else 0)
        end_col = self.col + (0 if self.down else self.length - 1)
        return f"{cell_name(self.row, self.col)}-{cell_name(end_row, end_col)}"


def _placements(rows: int, cols: int, length: int) -> list[_Ship]:
    """Every placement of a ship, by start cell in reading order, across before down."""
    out = []
    for r in range(rows):
        for c in range(cols):
            if c + length <= cols:
                out.append(_Ship(r, c, False, length))
            if r + length <= rows:
                out.append(_Ship(r, c, True, length))
    return out


def _grid_text(rows: int, cols: int) -> str:
    return (
        f"a grid of {rows} rows A-{chr(ord('A') + rows - 1)} (top to bottom) and {cols}"
        f" columns 1-{cols} (left to right); a cell is its row letter then its column"
        " number, e.g. B3"
    )


def _parse_probe_cell(text: str, rows: int, cols: int) -> str:
    """One cell, e.g. ``C5``, ``c 5``, ``(C, 5)``, ``row C column 5``."""
    text = bounded(text, "a probe")
    parts = [t for t in tokens(text) if t not in _CELL_FILLERS and t not in _CELL_PUNCTUATION]
    if len(parts) != 2 or not parts[0].isalpha() or not parts[1].isdigit():
        raise PuzzleError(
            f"expected one cell: a row letter A-{chr(ord('A') + rows - 1)} then a column"
            f" number 1-{cols}, e.g. B3; got {preview(text)}"
        )
    index = parse_cell(parts[0], parts[1], rows, cols, text)
    return cell_name(*divmod(index, cols))


def _segment_ship(a: int, b: int, rows: int, cols: int, lengths: Sequence[int], text: str) -> _Ship:
    """The ship whose end cells are ``a`` and ``b`` (either order)."""
    (r1, c1), (r2, c2) = sorted([divmod(a, cols), divmod(b, cols)])
    if r1 == r2:
        ship = _Ship(r1, min(c1, c2), False, abs(c2 - c1) + 1)
    elif c1 == c2:
        ship = _Ship(r1, c1, True, r2 - r1 + 1)
    else:
        raise PuzzleError(f"a ship's end cells must share a row or a column; got {preview(text)}")
    if ship.length not in lengths:
        raise PuzzleError(
            f"a ship here is {' or '.join(map(str, sorted(set(lengths))))} cells long,"
            f" end cells included; {ship.name()} is {ship.length}"
        )
    return ship


# -- one ship ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _OneModel:
    rows: int
    cols: int
    length: int

    @cached_property
    def ships(self) -> list[_Ship]:
        return _placements(self.rows, self.cols, self.length)

    @cached_property
    def answers(self) -> list[str]:
        return [s.name() for s in self.ships]

    @cached_property
    def occupied(self) -> npt.NDArray[np.bool_]:
        out = np.zeros((len(self.ships), self.rows * self.cols), dtype=bool)
        for i, ship in enumerate(self.ships):
            out[i, ship.cells(self.cols)] = True
        return out


@register_puzzle
class BattleshipOne(DeterministicKind):
    """One ship of length k, across or down, on an R x C grid; probe cells: hit or miss."""

    name: ClassVar[str] = "battleship_one"
    title: ClassVar[str] = "Battleship, one ship"
    levels: ClassVar[tuple[Level, ...]] = ("easy", "hard")

    def sample_params(self, rng: random.Random, level: Level) -> dict[str, Any]:
        if self.require_level(level) == "easy":
            side = rng.randint(6, 9)
            return {"rows": side, "cols": side + rng.choice([0, 0, 1]), "ship": rng.randint(3, 5)}
        side = rng.randint(10, 14)
        return {"rows": side, "cols": side + rng.choice([0, 1, 2]), "ship": rng.choice([2, 2, 3])}

    def _model(self, params: Params) -> _OneModel:
        return _build_one(self, params_key(params))

    def validate(self, params: Params) -> _OneModel:
        require_keys(self.name, params, ("cols", "rows", "ship"))
        rows = require_int(self.name, params, "rows", 2, 26)
        cols = require_int(self.name, params, "cols", 2, 26)
        length = require_int(self.name, params, "ship", 2, max(rows, cols))
        return _OneModel(rows, cols, length)

    def check_params(self, params: Params) -> None:
        self._model(params)

    def answers(self, params: Params) -> Sequence[str]:
        return self._model(params).answers

    def feedback_size(self, params: Params) -> int:
        self._model(params)
        return 2  # the ship covers at most k < R*C cells of a grid at least 2 x 2

    def feedback_values(self, params: Params, probe: str) -> list[str]:
        self.parse_probe(params, probe)
        return list(_LABELS)

    def parse_probe(self, params: Params, text: str) -> str:
        m = self._model(params)
        return _parse_probe_cell(text, m.rows, m.cols)

    def parse_answer(self, params: Params, text: str) -> str:
        """``B2-B4``; also ``B2 B3 B4``, ``B4 to B2`` or ``B2 across`` / ``B2 down``."""
        m = self._model(params)
        text = bounded(text, "an answer")
        expected = (
            f"the ship's two end cells, e.g. {m.answers[0]}, or its top/left cell and"
            " `across` or `down`"
        )
        parts = [t for t in tokens(text) if t not in _CELL_PUNCTUATION and t not in {"-", "to"}]
        cells: list[int] = []
        direction: bool | None = None
        i = 0
        while i < len(parts):
            token = parts[i]
            if (
                direction is None
                and token in _ACROSS | _DOWN
                and (i + 1 == len(parts) or not parts[i + 1].isdigit())
            ):
                direction = token in _DOWN
                i += 1
            elif token.isalpha() and i + 1 < len(parts) and parts[i + 1].isdigit():
                cells.append(parse_cell(token, parts[i + 1], m.rows, m.cols, text))
                i += 2
            else:
                raise PuzzleError(f"expected {expected}; got {preview(text)}")
        if direction is not None and len(cells) == 1:
            r, c = divmod(cells[0], m.cols)
            ship = _Ship(r, c, direction, m.length)
            if (r + m.length if direction else c + m.length) > (m.rows if direction else m.cols):
                raise PuzzleError(f"a ship of {m.length} from {cell_name(r, c)} leaves the grid")
            return ship.name()
        if direction is None and len(cells) == 2:
            return _segment_ship(cells[0], cells[1], m.rows, m.cols, [m.length], text).name()
        if direction is None and len(cells) == m.length:
            ship = _segment_ship(min(cells), max(cells), m.rows, m.cols, [m.length], text)
            if sorted(cells) != ship.cells(m.cols):
                raise PuzzleError(f"expected {expected}; the cells are not in one line")
            return ship.name()
        raise PuzzleError(f"expected {expected}; got {preview(text)}")

    def _cell(self, params: Params, probe: str) -> int:
        m = self._model(params)
        name = self.parse_probe(params, probe)
        return (ord(name[0]) - ord("A")) * m.cols + int(name[1:]) - 1

    def feedback(self, params: Params, secret: str, probe: str, u: float) -> str:
        m = self._model(params)
        start, end = self.parse_answer(params, secret).split("-")
        (r1, c1), (r2, c2) = ((ord(x[0]) - ord("A"), int(x[1:]) - 1) for x in (start, end))
        r, c = divmod(self._cell(params, probe), m.cols)
        return "hit" if r1 <= r <= r2 and c1 <= c <= c2 else "miss"

    def feedback_all(self, params: Params, probe: str, index: Index | None = None) -> Codes:
        occupied = self._model(params).occupied
        column = occupied[:, self._cell(params, probe)]
        return (column if index is None else column[index]).astype(np.int64)

    def feedback_label(self, params: Params, probe: str, code: int) -> str:
        return _LABELS[code]

    def feedback_code(self, params: Params, probe: str, feedback: str) -> int | None:
        return _LABELS.index(feedback) if feedback in _LABELS else None

    def rules_text(self, params: Params) -> str:
        m = self._model(params)
        return (
            f"The hidden answer is the position of one ship, {m.length} cells long, on"
            f" {_grid_text(m.rows, m.cols)}. The ship lies across (in one row) or down (in"
            f" one column), wholly inside the grid; each of its {len(m.ships)} positions is"
            " equally likely.\n"
            "Probe: one cell, e.g. B3.\n"
            "Feedback: `hit` if the ship covers that cell, `miss` otherwise.\n"
            f"Answer: the ship's two end cells, e.g. {m.ships[-1].name()}"
            f" (or its top/left cell and `across` or `down`, e.g. {m.ships[0].name().split('-')[0]}"
            " across)."
        )

    def candidate_probes(
        self, params: Params, rng: random.Random, limit: int, plausible: Sequence[str] = ()
    ) -> list[str]:
        m = self._model(params)
        cells = [cell_name(r, c) for r in range(m.rows) for c in range(m.cols)]
        return cells if len(cells) <= limit else rng.sample(cells, limit)

    def fixed_plan(self, params: Params, turns: int) -> list[str]:
        m = self._model(params)
        return _lattice_plan(m.rows, m.cols, m.length, turns)

    def canonical_formats(self, params: Params) -> tuple[str, str]:
        return "the ship's end cells, top/left end first, e.g. `B2-B4`", "one cell"

    def edge_probe_texts(self, params: Params, secret: str, rng: random.Random) -> list[str]:
        return _edge_cells(secret)


def _edge_cells(secret: str) -> list[str]:
    """The end cells of each ship (and bomb) of ``secret``, each followed by its
    neighbours to the right, left and below."""
    texts: list[str] = []
    cells = secret.replace("ships ", "").replace("; bombs", "").replace("none", "").split()
    for ship in cells:
        ends = ship.split("-")
        texts += ends
        # The cell past each end: a miss that an off-by-one would call a hit.
        for end in ends:
            row, col = end[0], int(end[1:])
            texts += [f"{row}{col + 1}", f"{row}{col - 1}", f"{chr(ord(row) + 1)}{col}"]
    return texts


def _lattice_plan(rows: int, cols: int, step: int, turns: int) -> list[str]:
    """Cells with (row + col) % step == 0 first (every ship of ``step`` or more cells covers
    one), spread over the grid; then the next residues, until every cell is listed."""
    order: list[str] = []
    for residue in range(step):
        cells = [(r, c) for r in range(rows) for c in range(cols) if (r + c) % step == residue]
        order.extend(cell_name(*cells[i]) for i in spread_order(len(cells)))
    return [order[i % len(order)] for i in range(turns)]


@lru_cache(maxsize=32)
def _build_one(kind: BattleshipOne, key: str) -> _OneModel:
    return kind.validate(json.loads(key))


# -- a fleet among decoys ---------------------------------------------------------------


@dataclass(frozen=True)
class _FleetModel:
    rows: int
    cols: int
    lengths: tuple[int, ...]
    """Ship lengths, longest first."""
    bombs: int

    @cached_property
    def fleets(self) -> list[tuple[_Ship, ...]]:
        """Every non-overlapping placement of the ships (they may touch); ships of equal
        length are unordered, so each such set is listed once (placement indices rising)."""
        options = [_placements(self.rows, self.cols, k) for k in self.lengths]
        masks = [[_mask(s.cells(self.cols)) for s in opts] for opts in options]
        out: list[tuple[_Ship, ...]] = []

        def extend(j: int, used: int, chosen: list[int]) -> None:
            if j == len(self.lengths):
                out.append(tuple(options[i][c] for i, c in enumerate(chosen)))
                if len(out) > MAX_ANSWERS:
                    raise PuzzleError(f"battleship_fleet: over {MAX_ANSWERS} fleet placements")
                return
            same = j > 0 and self.lengths[j] == self.lengths[j - 1]
            for c in range(chosen[-1] + 1 if same else 0, len(options[j])):
                if not masks[j][c] & used:
                    extend(j + 1, used | masks[j][c], [*chosen, c])

        extend(0, 0, [])
        return out

    @property
    def free(self) -> int:
        return self.rows * self.cols - sum(self.lengths)

    @property
    def per_fleet(self) -> int:
        return math.comb(self.free, self.bombs)

    @cached_property
    def combos(self) -> npt.NDArray[np.intp]:
        """Every choice of bomb positions among a fleet's free cells (as free-cell ranks)."""
        rows = list(itertools.combinations(range(self.free), self.bombs))
        return np.array(rows, dtype=np.intp).reshape(len(rows), self.bombs)

    def free_cells(self, fleet: tuple[_Ship, ...]) -> list[int]:
        taken = {c for ship in fleet for c in ship.cells(self.cols)}
        return [c for c in range(self.rows * self.cols) if c not in taken]

    @cached_property
    def masks(self) -> npt.NDArray[np.uint64]:
        """Occupied cells (ships and bombs) of every secret, as bit masks."""
        out = np.empty(len(self.fleets) * self.per_fleet, dtype=np.uint64)
        one = np.uint64(1)
        for f, fleet in enumerate(self.fleets):
            free = np.array(self.free_cells(fleet), dtype=np.uint64)
            # With no bombs: one empty combination, whose reduction is 0.
            bomb_bits = np.bitwise_or.reduce(one << free[self.combos], axis=1)
            out[f * self.per_fleet : (f + 1) * self.per_fleet] = bomb_bits | np.uint64(
                _mask(c for ship in fleet for c in ship.cells(self.cols))
            )
        return out

    def fleet_name(self, fleet: tuple[_Ship, ...]) -> str:
        return " ".join(s.name() for s in fleet)

    def secret(self, index: int) -> str:
        fleet = self.fleets[index // self.per_fleet]
        free = self.free_cells(fleet)
        bombs = [
            cell_name(*divmod(free[int(i)], self.cols)) for i in self.combos[index % self.per_fleet]
        ]
        return f"ships {self.fleet_name(fleet)}; bombs {' '.join(bombs) or 'none'}"

    @cached_property
    def solutions(self) -> list[str]:
        return [self.fleet_name(f) for f in self.fleets]

    @cached_property
    def answers(self) -> list[str]:
        """``[self.secret(i) for i in range(...)]``, with each fleet's free cells, name and
        cell names worked out once (the hard level lists ~10^5 secrets)."""
        out: list[str] = []
        combos = self.combos.tolist()
        for fleet in self.fleets:
            names = [cell_name(*divmod(c, self.cols)) for c in self.free_cells(fleet)]
            head = f"ships {self.fleet_name(fleet)}; bombs "
            out.extend(head + (" ".join([names[i] for i in combo]) or "none") for combo in combos)
        return out


def _bombs_text(bombs: int) -> str:
    if bombs == 0:
        return "There are no decoy bombs."
    if bombs == 1:
        return "One decoy bomb lies on another cell."
    return f"{bombs} decoy bombs lie on other cells, one cell each."


def _mask(cells: Any) -> int:
    out = 0
    for c in cells:
        out |= 1 << c
    return out


_FLEETS: tuple[tuple[int, int, tuple[int, ...], int], ...] = (
    (5, 5, (3, 2), 2),
    (5, 5, (4, 3), 2),
    (6, 6, (3, 2), 1),
    (6, 6, (4, 2), 1),
    (6, 6, (4, 3), 1),
    (6, 7, (4, 3), 1),
    (7, 7, (4, 3), 1),
)
"""Hard variants: every one has at most 300,000 secrets (ships and bombs)."""


@register_puzzle
class BattleshipFleet(DeterministicKind):
    """Several ships and decoy bombs that also say "hit"; the answer is the ships alone."""

    name: ClassVar[str] = "battleship_fleet"
    title: ClassVar[str] = "Battleship, a fleet among decoys"
    levels: ClassVar[tuple[Level, ...]] = ("hard",)

    def sample_params(self, rng: random.Random, level: Level) -> dict[str, Any]:
        self.require_level(level)
        rows, cols, ships, bombs = rng.choice(_FLEETS)
        return {"rows": rows, "cols": cols, "ships": list(ships), "bombs": bombs}

    def _model(self, params: Params) -> _FleetModel:
        return _build_fleet(self, params_key(params))

    def validate(self, params: Params) -> _FleetModel:
        require_keys(self.name, params, ("bombs", "cols", "rows", "ships"))
        rows = require_int(self.name, params, "rows", 2, 8)
        cols = require_int(self.name, params, "cols", 2, 8)
        lengths = require_int_list(self.name, params, "ships", 2, max(rows, cols), (1, 4))
        if lengths != sorted(lengths, reverse=True):
            raise PuzzleError(f"{self.name} parameter 'ships' must list lengths longest first")
        bombs = require_int(self.name, params, "bombs", 0, 4)
        model = _FleetModel(rows, cols, tuple(lengths), bombs)
        if model.free < max(1, bombs + 1):
            raise PuzzleError(f"{self.name}: the grid has no room for the ships and bombs")
        # A cheap bound before enumerating: each ship's placements, times the bombs'.
        bound = math.prod(len(_placements(rows, cols, k)) for k in lengths) * model.per_fleet
        if bound > 50 * MAX_ANSWERS or len(model.fleets) * model.per_fleet > MAX_ANSWERS:
            raise PuzzleError(f"{self.name}: over {MAX_ANSWERS} secrets; use a smaller grid")
        if not model.fleets:
            raise PuzzleError(f"{self.name}: the ships do not fit on the grid")
        return model

    def check_params(self, params: Params) -> None:
        self._model(params)

    def answers(self, params: Params) -> Sequence[str]:
        return self._model(params).answers

    def answer_count(self, params: Params) -> int:
        m = self._model(params)
        return len(m.fleets) * m.per_fleet

    def answer_at(self, params: Params, index: int) -> str:
        return self._model(params).secret(index)

    def solution(self, params: Params, secret: str) -> str:
        ships, _ = self._parse_secret(params, secret)
        return ships

    def solution_classes(self, params: Params) -> tuple[Sequence[str], Index]:
        m = self._model(params)
        return m.solutions, np.repeat(np.arange(len(m.fleets), dtype=np.intp), m.per_fleet)

    def feedback_size(self, params: Params) -> int:
        self._model(params)
        return 2  # validation leaves a free cell, so some probe can miss

    def feedback_values(self, params: Params, probe: str) -> list[str]:
        self.parse_probe(params, probe)
        return list(_LABELS)

    def parse_probe(self, params: Params, text: str) -> str:
        m = self._model(params)
        return _parse_probe_cell(text, m.rows, m.cols)

    def _ships(self, params: Params, text: str, expected: str) -> list[_Ship]:
        m = self._model(params)
        low = text.lower()
        ships = []
        for found in _SEGMENT.finditer(low):
            a = parse_cell(found[1], found[2], m.rows, m.cols, text)
            b = parse_cell(found[3], found[4], m.rows, m.cols, text)
            ships.append(_segment_ship(a, b, m.rows, m.cols, m.lengths, text))
        rest = _SEGMENT.sub(" ", low)
        rest = re.sub(r"\b(?:and|ships?)\b", " ", rest)
        if rest.strip(" \t\n,;.()[]{}") or sorted(s.length for s in ships) != sorted(m.lengths):
            raise PuzzleError(f"expected {expected}; got {preview(text)}")
        return sorted(ships, key=lambda s: (-s.length, s.row, s.col, s.down))

    def _expected(self, params: Params) -> str:
        m = self._model(params)
        example = m.solutions[0]
        lengths = " and ".join(map(str, m.lengths))
        return f"the end cells of the ships of lengths {lengths}, e.g. {example}"

    def parse_answer(self, params: Params, text: str) -> str:
        text = bounded(text, "an answer")
        ships = self._ships(params, text, self._expected(params))
        return " ".join(s.name() for s in ships)

    def _parse_secret(self, params: Params, secret: str) -> tuple[str, list[int]]:
        """(the ships' answer, the bomb cells) of a secret from ``answers``."""
        m = self._model(params)
        found = re.fullmatch(r"ships (.+); bombs (.+)", bounded(secret, "a secret"))
        if found is None:
            raise PuzzleError(f"expected a secret like {m.secret(0)!r}; got {preview(secret)}")
        ships = self.parse_answer(params, found[1])
        bombs = [] if found[2] == "none" else found[2].split()
        cells = [self._cell(params, b) for b in bombs]
        if len(cells) != m.bombs:
            raise PuzzleError(f"a secret has {m.bombs} bombs; got {preview(secret)}")
        return ships, cells

    def _cell(self, params: Params, probe: str) -> int:
        m = self._model(params)
        name = self.parse_probe(params, probe)
        return (ord(name[0]) - ord("A")) * m.cols + int(name[1:]) - 1

    def feedback(self, params: Params, secret: str, probe: str, u: float) -> str:
        m = self._model(params)
        ships, bombs = self._parse_secret(params, secret)
        covered = set(bombs)
        for ship in self._ships(params, ships, self._expected(params)):
            covered.update(ship.cells(m.cols))
        return "hit" if self._cell(params, probe) in covered else "miss"

    def feedback_all(self, params: Params, probe: str, index: Index | None = None) -> Codes:
        masks = self._model(params).masks
        masks = masks if index is None else masks[index]
        return ((masks >> np.uint64(self._cell(params, probe))) & np.uint64(1)).astype(np.int64)

    def feedback_label(self, params: Params, probe: str, code: int) -> str:
        return _LABELS[code]

    def feedback_code(self, params: Params, probe: str, feedback: str) -> int | None:
        return _LABELS.index(feedback) if feedback in _LABELS else None

    def rules_text(self, params: Params) -> str:
        m = self._model(params)
        lengths = " and ".join(map(str, m.lengths))
        return (
            f"The hidden answer is the position of {len(m.lengths)} ships, {lengths} cells"
            f" long, on {_grid_text(m.rows, m.cols)}. Each ship lies across (in one row) or"
            " down (in one column), wholly inside the grid; ships do not overlap but may"
            f" touch. {_bombs_text(m.bombs)} Every such arrangement of ships and bombs is"
            " equally likely.\n"
            "Probe: one cell, e.g. B3.\n"
            "Feedback: `hit` if a ship or a bomb covers that cell, `miss` otherwise (a bomb's"
            " hit looks like a ship's).\n"
            f"Answer: each ship's two end cells, e.g. {m.solutions[-1]}; bombs are not part"
            " of the answer."
        )

    def candidate_probes(
        self, params: Params, rng: random.Random, limit: int, plausible: Sequence[str] = ()
    ) -> list[str]:
        m = self._model(params)
        cells = [cell_name(r, c) for r in range(m.rows) for c in range(m.cols)]
        return cells if len(cells) <= limit else rng.sample(cells, limit)

    def fixed_plan(self, params: Params, turns: int) -> list[str]:
        m = self._model(params)
        return _lattice_plan(m.rows, m.cols, m.lengths[-1], turns)

    def canonical_formats(self, params: Params) -> tuple[str, str]:
        return (
            "`ships <end cells> <end cells>...; bombs <cell> <cell>...` (`bombs none` without"
            " bombs), longest ship first, each ship's top/left end first, e.g."
            " `ships A1-A4 C2-E2; bombs B5`",
            "one cell, e.g. `C5`",
        )

    def edge_probe_texts(self, params: Params, secret: str, rng: random.Random) -> list[str]:
        return _edge_cells(secret)


@lru_cache(maxsize=16)
def _build_fleet(kind: BattleshipFleet, key: str) -> _FleetModel:
    return kind.validate(json.loads(key))
