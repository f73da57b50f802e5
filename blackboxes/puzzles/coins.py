"""Coin weighing on a two-pan balance: a heavy coin, a heavy-or-light coin, a lying balance."""

from __future__ import annotations

import itertools
import json
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import numpy.typing as npt

from blackboxes.puzzles._base import (
    Codes,
    DeterministicKind,
    Floats,
    Index,
    NoisyKind,
    Params,
    PuzzleError,
    PuzzleKind,
    params_key,
    params_seed,
    register_puzzle,
)
from blackboxes.puzzles._params import require_int, require_keys
from blackboxes.puzzles._text import bounded, parse_int, preview, single_int, tokens

if TYPE_CHECKING:
    from blackboxes.box import Level

__all__ = ["CoinHeavy", "CoinHeavyLight", "CoinLying", "parse_weighing"]

MAX_COINS = 200
_LABELS = ("left", "right", "balanced")
"""Feedback codes 0, 1, 2: which pan is heavier, or neither."""
_SEPARATORS = frozenset({"vs", "versus", "against", "v", "|", ";"})
_PAN_FILLERS = frozenset({"coin", "coins", "and", "pan", "on", "the", "with", ",", ":", "#"})
_BRACKETS = {"(": ")", "[": "]", "{": "}"}
_ANSWER_FILLERS = frozenset({"coin", "is", "the", "it", "#", ".", "!", "(", ")", "[", "]", ":"})
_HEAVY = frozenset({"heavy", "heavier", "h", "+"})
_LIGHT = frozenset({"light", "lighter", "l"})
Sides = npt.NDArray[np.int8]


def _runs(coins: Sequence[int]) -> str:
    """``1-3,7,9-12``: sorted coins with runs of three or more as ranges."""
    out: list[str] = []
    group: list[int] = []
    for c in [*sorted(coins), -1]:
        if group and c == group[-1] + 1:
            group.append(c)
            continue
        if group:
            out.append(f"{group[0]}-{group[-1]}" if len(group) >= 3 else ",".join(map(str, group)))
        group = [c]
    return ",".join(out)


def _pan(part: list[str], coins: int, expected: str, text: str) -> list[int]:
    """The coins of one pan's tokens: numbers and ranges ``a-b``, fillers allowed."""
    words = [t for t in part if t not in _PAN_FILLERS and t not in "()[]{}"]
    out: list[int] = []
    i = 0
    while i < len(words):
        if not words[i].isdigit():
            raise PuzzleError(f"expected {expected}; got {preview(text)}")
        first = parse_int(words[i], 1, coins, expected, text)
        if i + 2 < len(words) and words[i + 1] == "-" and words[i + 2].isdigit():
            last = parse_int(words[i + 2], 1, coins, expected, text)
            if last < first:
                raise PuzzleError(f"expected {expected}; the range {first}-{last} runs backwards")
            out.extend(range(first, last + 1))
            i += 3
        else:
            out.append(first)
            i += 1
    return out


def _bracket_groups(toks: list[str], expected: str, text: str) -> list[list[str]]:
    """The top-level bracketed groups of ``toks``, or an error if nested or stray."""
    groups: list[list[str]] = []
    current: list[str] | None = None
    closer = ""
    for t in toks:
        if current is None:
            if t in _BRACKETS:
                current, closer = [], _BRACKETS[t]
            elif t not in {",", "and", ":", "-"}:
                raise PuzzleError(f"expected {expected}; got {preview(text)}")
        elif t == closer:
            groups.append(current)
            current = None
        elif t in _BRACKETS or t in _BRACKETS.values():
            raise PuzzleError(f"expected {expected}; brackets are nested in {preview(text)}")
        else:
            current.append(t)
    if current is not None:
        raise PuzzleError(f"expected {expected}; a bracket is not closed in {preview(text)}")
    return groups


@dataclass(frozen=True)
class _Weighing:
    left: tuple[int, ...]
    right: tuple[int, ...]

    def name(self) -> str:
        return f"{_runs(self.left)} vs {_runs(self.right)}"


def parse_weighing(text: str, coins: int) -> _Weighing:
    """Two disjoint, equal, non-empty pans of coins 1..``coins``, left pan first."""
    text = bounded(text, "a probe")
    expected = (
        f"two pans with the same number of different coins from 1-{coins}, left pan first,"
        " e.g. 1,2,3 vs 4,5,6"
    )
    toks = tokens(text)
    cuts = [i for i, t in enumerate(toks) if t in _SEPARATORS]
    if len(cuts) == 1:
        parts = [toks[: cuts[0]], toks[cuts[0] + 1 :]]
        parts = [
            p[1:-1] if p and p[0] in _BRACKETS and p[-1] == _BRACKETS[p[0]] else p for p in parts
        ]
    elif len(cuts) > 1:
        raise PuzzleError(f"expected {expected}; got more than two pans in {preview(text)}")
    elif toks.count("left") == 1 and toks.count("right") == 1:
        a, b = toks.index("left"), toks.index("right")
        parts = [toks[a + 1 : b], toks[b + 1 :]] if a < b else [toks[a + 1 :], toks[b + 1 : a]]
        if min(a, b) and any(t not in _PAN_FILLERS for t in toks[: min(a, b)]):
            raise PuzzleError(f"expected {expected}; got {preview(text)}")
    else:
        parts = _bracket_groups(toks, expected, text)
    if len(parts) != 2:
        raise PuzzleError(f"expected {expected}; got {preview(text)}")
    left, right = (
        _pan([t for t in p if t not in {"left", "right"}], coins, expected, text) for p in parts
    )
    if not left or len(left) != len(right):
        raise PuzzleError(f"expected {expected}; the pans hold {len(left)} and {len(right)} coins")
    if len(set(left)) != len(left) or len(set(right)) != len(right) or set(left) & set(right):
        raise PuzzleError(f"expected {expected}; a coin appears twice in {preview(text)}")
    return _Weighing(tuple(sorted(left)), tuple(sorted(right)))


def _sides(weighing: _Weighing, coins: int) -> Sides:
    """+1 for a coin on the left pan, -1 on the right, 0 off the balance (index coin - 1)."""
    sides = np.zeros(coins, dtype=np.int8)
    sides[[c - 1 for c in weighing.left]] = 1
    sides[[c - 1 for c in weighing.right]] = -1
    return sides


def _code(outcome: npt.NDArray[np.int64]) -> Codes:
    """Outcome +1 (left heavier), -1 (right heavier), 0 (balanced) as feedback codes."""
    return np.where(outcome > 0, 0, np.where(outcome < 0, 1, 2)).astype(np.int64)


def _truth(outcome: int) -> str:
    return _LABELS[0] if outcome > 0 else _LABELS[1] if outcome < 0 else _LABELS[2]


# -- probe pools and plans --------------------------------------------------------------


def _class_probes(
    classes: list[list[int]], genuine: list[int], rng: random.Random, limit: int
) -> list[str]:
    """Weighings built from coin classes that a space cannot tell apart within (suspects of
    one kind, coins of similar posterior): how many of each class go left and right, the
    rest of a pan made up with coins known to be genuine. Coins are taken in class order,
    which for such classes is as good as any other choice."""
    chosen: dict[str, None] = {}

    def add(counts: list[tuple[int, int]]) -> None:
        left = [c for cls, (x, _) in zip(classes, counts, strict=True) for c in cls[:x]]
        right = [c for cls, (x, y) in zip(classes, counts, strict=True) for c in cls[x : x + y]]
        short = len(left) - len(right)
        if abs(short) > len(genuine):
            return
        (right if short > 0 else left).extend(genuine[: abs(short)])
        if left and not set(left) & set(right) and len(chosen) < limit:
            chosen[_Weighing(tuple(sorted(left)), tuple(sorted(right))).name()] = None

    # Equal splits of each class alone: the ternary splits of a classic solution.
    for i, cls in enumerate(classes):
        for k in range(1, len(cls) // 2 + 1):
            add([(k, k) if j == i else (0, 0) for j in range(len(classes))])
            if len(chosen) >= limit // 2:
                break
    for _ in range(20 * limit):
        if len(chosen) >= limit:
            break
        counts = []
        for cls in classes:
            x = rng.randint(0, len(cls))
            counts.append((x, rng.randint(0, len(cls) - x)))
        total_left, total_right = sum(x for x, _ in counts), sum(y for _, y in counts)
        # Trim the heavier side's counts, last class first, when genuine coins cannot fill.
        for side in (0, 1):
            excess = (total_left - total_right if side == 0 else total_right - total_left) - len(
                genuine
            )
            for j in reversed(range(len(counts))):
                if excess <= 0:
                    break
                cut = min(excess, counts[j][side])
                counts[j] = (
                    (counts[j][0] - cut, counts[j][1])
                    if side == 0
                    else (counts[j][0], counts[j][1] - cut)
                )
                excess -= cut
        add(counts)
    return list(chosen)


def _pair_codes(coins: int, digits: int) -> list[tuple[int, ...]]:
    """Ternary codes for a heavy coin: pairs (c, c with 1 and 2 swapped), so each digit
    has as many 1s as 2s, and the all-0 code for an odd coin out."""
    codes: list[tuple[int, ...]] = []
    for c in itertools.product(range(3), repeat=digits):
        if len(codes) + 1 >= coins:
            break
        if next((d for d in c if d), 0) == 1:
            codes.extend([c, tuple((3 - d) % 3 for d in c)])
    if len(codes) < coins:
        codes.append((0,) * digits)
    return codes[:coins]


def _dyson_codes(coins: int, digits: int) -> list[tuple[int, ...]]:
    """Dyson's codes for a heavy-or-light coin: "clockwise" codes (the first change between
    neighbouring digits goes 0->1, 1->2 or 2->0) in orbits {c, c+1, c+2}, which put one
    coin of each orbit left, right and off in every weighing."""
    orbits: list[tuple[tuple[int, ...], ...]] = []
    seen: set[tuple[int, ...]] = set()
    for c in itertools.product(range(3), repeat=digits):
        change = next(((a, b) for a, b in itertools.pairwise(c) if a != b), None)
        if change is None or (change[1] - change[0]) % 3 != 1 or c in seen:
            continue
        orbit = tuple(tuple((d + k) % 3 for d in c) for k in range(3))
        seen.update(orbit)
        orbits.append(orbit)
    return [code for orbit in orbits for code in orbit][:coins]


def _design(codes: list[tuple[int, ...]], order: list[int]) -> list[_Weighing]:
    """Weighing j puts coin ``order[i]`` left if digit j of code i is 1, right if 2. Pans
    left unequal (by a remainder of coins) drop their last extra coins."""
    plan = []
    for j in range(len(codes[0]) if codes else 0):
        left = [order[i] for i, c in enumerate(codes) if c[j] == 1]
        right = [order[i] for i, c in enumerate(codes) if c[j] == 2]
        size = min(len(left), len(right))
        if size:
            plan.append(_Weighing(tuple(sorted(left[:size])), tuple(sorted(right[:size]))))
    return plan


def _coded_plan(kind: PuzzleKind, params: Params, coins: int, turns: int, dyson: bool) -> list[str]:
    """Rounds of a non-adaptive code design; each round after the first relabels the coins
    with a fixed shuffle, so repeated rounds still tell coins apart (and outvote lies)."""
    digits = 1
    while (3**digits - 3) // 2 < coins if dyson else 3**digits < coins:
        digits += 1
    codes = _dyson_codes(coins, digits) if dyson else _pair_codes(coins, digits)
    plan: list[str] = []
    for round_ in itertools.count():
        order = list(range(1, coins + 1))
        if round_:
            random.Random(params_seed(params, kind.name, str(round_))).shuffle(order)
        plan.extend(w.name() for w in _design(codes, order))
        if len(plan) >= turns or not plan:
            return plan[:turns]
    return plan  # pragma: no cover (the loop returns)


# -- the kinds --------------------------------------------------------------------------


@dataclass(frozen=True)
class _Coins:
    coins: int
    lie: int = 0
    """Percent chance that a weighing lies (coin_lying)."""


class _CoinKind(PuzzleKind):
    keys: ClassVar[tuple[str, ...]] = ("coins",)
    least: ClassVar[int] = 3

    def _model(self, params: Params) -> _Coins:
        return _build(self, params_key(params))

    def validate(self, params: Params) -> _Coins:
        require_keys(self.name, params, self.keys)
        coins = require_int(self.name, params, "coins", self.least, MAX_COINS)
        lie = (
            require_int(self.name, params, "lie_percent", 0, 30)
            if "lie_percent" in self.keys
            else 0
        )
        return _Coins(coins, lie)

    def check_params(self, params: Params) -> None:
        self._model(params)

    def feedback_size(self, params: Params) -> int:
        self._model(params)
        return 3  # with 3 or more coins, 1 vs 2 can tip either way or balance

    def parse_probe(self, params: Params, text: str) -> str:
        return parse_weighing(text, self._model(params).coins).name()

    def _weighing(self, params: Params, probe: str) -> Sides:
        coins = self._model(params).coins
        return _sides(parse_weighing(probe, coins), coins)

    def _probe_text(self, coins: int) -> str:
        return (
            "Probe: one weighing on a two-pan balance: two groups with the same number of"
            " different coins, the left pan first, e.g. `1,2,3 vs 4,5,6` (ranges such as"
            f" `1-{min(10, coins // 2)}` are fine).\n"
            "Feedback: `left` if the left pan is heavier, `right` if the right pan is"
            " heavier, `balanced` if they weigh the same.\n"
        )

    def edge_probe_texts(self, params: Params, secret: str, rng: random.Random) -> list[str]:
        """The secret's coin against one other coin on either pan, two other coins against
        each other, and the first half of the coins against the next."""
        coin = int(secret.split()[1])
        coins = self._model(params).coins
        other = 1 if coin != 1 else 2
        third = next(c for c in range(1, coins + 1) if c not in (coin, other))
        texts = [f"{coin} vs {other}", f"{other} vs {coin}", f"{other} vs {third}"]
        left = list(range(1, coins // 2 + 1))
        texts.append(f"{','.join(map(str, left))} vs {','.join(str(c + len(left)) for c in left)}")
        return texts


class _HeavyAnswers(_CoinKind):
    """Secrets ``coin i``: coin i is the heavy one."""

    def answers(self, params: Params) -> Sequence[str]:
        return [f"coin {i}" for i in range(1, self._model(params).coins + 1)]

    def answer_count(self, params: Params) -> int:
        return self._model(params).coins

    def answer_at(self, params: Params, index: int) -> str:
        return f"coin {index + 1}"

    def parse_answer(self, params: Params, text: str) -> str:
        coins = self._model(params).coins
        text = bounded(text, "an answer")
        expected = f"the heavy coin's number from 1-{coins}, e.g. coin 7"
        fillers = _ANSWER_FILLERS | {"heavy", "heavier"}
        return f"coin {single_int(text, 1, coins, expected, fillers)}"

    def _outcome(self, params: Params, secret: str, probe: str) -> int:
        coin = int(self.parse_answer(params, secret).split()[1])
        return int(self._weighing(params, probe)[coin - 1])

    def _outcomes(self, params: Params, probe: str, index: Index | None) -> npt.NDArray[np.int64]:
        sides = self._weighing(params, probe).astype(np.int64)
        return sides if index is None else sides[index]

    def _suspects(self, params: Params, plausible: Sequence[str]) -> tuple[list[int], list[int]]:
        coins = self._model(params).coins
        suspects = sorted({int(self.parse_answer(params, s).split()[1]) for s in plausible})
        if not suspects:
            return list(range(1, coins + 1)), []
        keep = set(suspects)
        return suspects, [c for c in range(1, coins + 1) if c not in keep]


@register_puzzle
class CoinHeavy(_HeavyAnswers, DeterministicKind):
    """N coins, one heavier; find it with a balance."""

    name: ClassVar[str] = "coin_heavy"
    title: ClassVar[str] = "The heavy coin"
    levels: ClassVar[tuple[Level, ...]] = ("easy",)

    def sample_params(self, rng: random.Random, level: Level) -> dict[str, Any]:
        self.require_level(level)
        return {"coins": rng.randint(20, 100)}

    def feedback_values(self, params: Params, probe: str) -> list[str]:
        self.parse_probe(params, probe)
        return list(_LABELS)

    def feedback(self, params: Params, secret: str, probe: str, u: float) -> str:
        return _truth(self._outcome(params, secret, probe))

    def feedback_all(self, params: Params, probe: str, index: Index | None = None) -> Codes:
        return _code(self._outcomes(params, probe, index))

    def feedback_label(self, params: Params, probe: str, code: int) -> str:
        return _LABELS[code]

    def feedback_code(self, params: Params, probe: str, feedback: str) -> int | None:
        return _LABELS.index(feedback) if feedback in _LABELS else None

    def rules_text(self, params: Params) -> str:
        coins = self._model(params).coins
        return (
            f"The hidden answer is which one of {coins} coins, numbered 1-{coins}, is heavier"
            " than the others; all the other coins weigh the same, and each coin is equally"
            " likely to be the heavy one.\n"
            + self._probe_text(coins)
            + "Answer: the heavy coin, e.g. `coin 7`."
        )

    def candidate_probes(
        self, params: Params, rng: random.Random, limit: int, plausible: Sequence[str] = ()
    ) -> list[str]:
        suspects, genuine = self._suspects(params, plausible)
        return _class_probes([suspects], genuine, rng, limit)

    def fixed_plan(self, params: Params, turns: int) -> list[str]:
        return _coded_plan(self, params, self._model(params).coins, turns, dyson=False)

    def canonical_formats(self, params: Params) -> tuple[str, str]:
        return "`coin <k>`, e.g. `coin 7`", "`<left pan> vs <right pan>`, e.g. `1-3 vs 4,5,7`"


@register_puzzle
class CoinLying(_HeavyAnswers, NoisyKind):
    """The heavy coin, with a balance that lies with a stated probability."""

    name: ClassVar[str] = "coin_lying"
    title: ClassVar[str] = "The heavy coin and a lying balance"
    levels: ClassVar[tuple[Level, ...]] = ("easy", "hard")
    keys: ClassVar[tuple[str, ...]] = ("coins", "lie_percent")

    def sample_params(self, rng: random.Random, level: Level) -> dict[str, Any]:
        if self.require_level(level) == "easy":
            return {"coins": rng.randint(12, 40), "lie_percent": rng.choice([5, 10])}
        return {"coins": rng.randint(40, 100), "lie_percent": rng.choice([10, 15, 20])}

    def feedback(self, params: Params, secret: str, probe: str, u: float) -> str:
        lie = self._model(params).lie / 100
        truth = _truth(self._outcome(params, secret, probe))
        if not 0.0 <= u < 1.0:
            raise PuzzleError(f"u must be in [0, 1), got {u!r}")
        if u >= lie:
            return truth
        others = [label for label in _LABELS if label != truth]
        return others[0] if u < lie / 2 else others[1]

    def likelihood(self, params: Params, secret: str, probe: str, feedback: str) -> float:
        lie = self._model(params).lie / 100
        if feedback not in _LABELS:
            return 0.0
        truth = _truth(self._outcome(params, secret, probe))
        return 1.0 - lie if feedback == truth else lie / 2

    def likelihoods(
        self, params: Params, probe: str, index: Index | None = None
    ) -> tuple[list[str], Floats]:
        lie = self._model(params).lie / 100
        truth = _code(self._outcomes(params, probe, index))
        matrix = np.full((3, len(truth)), lie / 2)
        matrix[truth, np.arange(len(truth))] = 1.0 - lie
        return list(_LABELS), matrix

    def rules_text(self, params: Params) -> str:
        m = self._model(params)
        return (
            f"The hidden answer is which one of {m.coins} coins, numbered 1-{m.coins}, is"
            " heavier than the others; all the other coins weigh the same, and each coin is"
            " equally likely to be the heavy one.\n"
            + self._probe_text(m.coins)
            + f"Noise: the balance lies. Each weighing, independently, with probability"
            f" {m.lie}% it reports one of the two wrong outcomes instead of the true one"
            f" (each wrong outcome with probability {m.lie / 2:g}%); otherwise it tells the"
            " truth.\n"
            "Answer: the heavy coin, e.g. `coin 7`."
        )

    def candidate_probes(
        self, params: Params, rng: random.Random, limit: int, plausible: Sequence[str] = ()
    ) -> list[str]:
        coins = self._model(params).coins
        ranked = [int(self.parse_answer(params, s).split()[1]) for s in plausible]
        ranked += [c for c in range(1, coins + 1) if c not in set(ranked)]
        # No coin is ever known genuine; coins of similar posterior rank go together.
        size = math.ceil(coins / 4)
        classes = [ranked[i : i + size] for i in range(0, coins, size)]
        return _class_probes(classes, [], rng, limit)

    def fixed_plan(self, params: Params, turns: int) -> list[str]:
        return _coded_plan(self, params, self._model(params).coins, turns, dyson=False)

    def canonical_formats(self, params: Params) -> tuple[str, str]:
        return "`coin <k>`, e.g. `coin 7`", "`<left pan> vs <right pan>`, e.g. `1,2 vs 3,4`"

    def noise_spec(self, params: Params) -> str:
        return (
            "Let lie = lie_percent / 100. If u >= lie, return the true reading. Otherwise the"
            " balance lies: of the two wrong readings, in the order left, right, balanced,"
            " return the first if u < lie / 2 and the second otherwise."
        )

    def noise_cuts(self, params: Params) -> list[float]:
        lie = self._model(params).lie / 100  # the same float operations as ``feedback``
        return [lie / 2, lie]


@register_puzzle
class CoinHeavyLight(_CoinKind, DeterministicKind):
    """N coins, one heavier or lighter than the rest; find it and which."""

    name: ClassVar[str] = "coin_heavy_light"
    title: ClassVar[str] = "The odd coin, heavy or light"
    levels: ClassVar[tuple[Level, ...]] = ("easy", "hard")

    def sample_params(self, rng: random.Random, level: Level) -> dict[str, Any]:
        if self.require_level(level) == "easy":
            return {"coins": rng.randint(8, 30)}
        return {"coins": rng.randint(40, 152)}

    def answers(self, params: Params) -> Sequence[str]:
        return [self.answer_at(params, i) for i in range(self.answer_count(params))]

    def answer_count(self, params: Params) -> int:
        return 2 * self._model(params).coins

    def answer_at(self, params: Params, index: int) -> str:
        return f"coin {index // 2 + 1} {'light' if index % 2 else 'heavy'}"

    def parse_answer(self, params: Params, text: str) -> str:
        """``coin 17 heavy``; also ``17 heavy``, ``17H``, ``heavy 17``, ``17 is lighter``."""
        coins = self._model(params).coins
        text = bounded(text, "an answer")
        expected = f"the odd coin's number from 1-{coins} and heavy or light, e.g. coin 7 heavy"
        parts = [t for t in tokens(text) if t not in _ANSWER_FILLERS]
        numbers = [t for t in parts if t.isdigit()]
        signs = [t for t in parts if t in _HEAVY | _LIGHT or t == "-"]
        if len(numbers) != 1 or len(signs) != 1 or len(parts) != 2:
            raise PuzzleError(f"expected {expected}; got {preview(text)}")
        coin = parse_int(numbers[0], 1, coins, expected, text)
        return f"coin {coin} {'heavy' if signs[0] in _HEAVY else 'light'}"

    def _signs(self, params: Params, index: Index | None) -> tuple[Index, npt.NDArray[np.int64]]:
        n = self.answer_count(params)
        idx = np.arange(n, dtype=np.intp) if index is None else index
        return idx // 2, np.where(idx % 2 == 0, 1, -1).astype(np.int64)

    def feedback_values(self, params: Params, probe: str) -> list[str]:
        self.parse_probe(params, probe)
        return list(_LABELS)

    def feedback(self, params: Params, secret: str, probe: str, u: float) -> str:
        _, number, weight = self.parse_answer(params, secret).split()
        side = int(self._weighing(params, probe)[int(number) - 1])
        return _truth(side if weight == "heavy" else -side)

    def feedback_all(self, params: Params, probe: str, index: Index | None = None) -> Codes:
        coin, sign = self._signs(params, index)
        return _code(self._weighing(params, probe).astype(np.int64)[coin] * sign)

    def feedback_label(self, params: Params, probe: str, code: int) -> str:
        return _LABELS[code]

    def feedback_code(self, params: Params, probe: str, feedback: str) -> int | None:
        return _LABELS.index(feedback) if feedback in _LABELS else None

    def rules_text(self, params: Params) -> str:
        coins = self._model(params).coins
        return (
            f"The hidden answer is which one of {coins} coins, numbered 1-{coins}, has a"
            " different weight from the others, and whether it is heavier or lighter; all"
            f" the other coins weigh the same, and each of the {2 * coins} possibilities is"
            " equally likely.\n"
            + self._probe_text(coins)
            + "Answer: the odd coin and `heavy` or `light`, e.g. `coin 7 heavy`."
        )

    def candidate_probes(
        self, params: Params, rng: random.Random, limit: int, plausible: Sequence[str] = ()
    ) -> list[str]:
        coins = self._model(params).coins
        heavy: set[int] = set()
        light: set[int] = set()
        for s in plausible:
            _, number, weight = self.parse_answer(params, s).split()
            (heavy if weight == "heavy" else light).add(int(number))
        if not plausible:
            heavy = light = set(range(1, coins + 1))
        both = sorted(heavy & light)
        genuine = [c for c in range(1, coins + 1) if c not in heavy | light]
        classes = [both, sorted(heavy - light), sorted(light - heavy)]
        return _class_probes([c for c in classes if c], genuine, rng, limit)

    def fixed_plan(self, params: Params, turns: int) -> list[str]:
        return _coded_plan(self, params, self._model(params).coins, turns, dyson=True)

    def canonical_formats(self, params: Params) -> tuple[str, str]:
        return (
            "`coin <k> heavy` or `coin <k> light`",
            "`<left pan> vs <right pan>`, each pan sorted coins with runs of 3 or more as"
            " `a-b`, e.g. `1-3 vs 4,5,7`",
        )


@lru_cache(maxsize=64)
def _build(kind: _CoinKind, key: str) -> _Coins:
    return kind.validate(json.loads(key))
