"""EASY CII kinds, part A: bubble sort, insertion sort, Euclid's algorithm, a factorial."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from itertools import product
from typing import Any

from blackboxes.box import JSONValue, Level
from blackboxes.families.cii._domains import NUMBER, NUMBERS
from blackboxes.families.cii._kind import (
    Event,
    Params,
    ProgramKind,
    require_choice,
    require_int,
)

__all__ = [  # noqa: RUF022 (plain sorted order, tests/test_layout.py)
    "BubbleSortKind",
    "EASY_A",
    "EuclidKind",
    "FactorialKind",
    "InsertionSortKind",
    "KEYS",
    "SortKey",
]


@dataclass(frozen=True)
class SortKey:
    """A key transform of a list value: the sorts compare ``key(x)``, never ``x``."""

    op: str
    """``value``, ``mod``, ``div``, ``dist`` or ``mulmod``."""
    m: int = 0
    f: int = 0

    def __call__(self, x: int) -> int:
        if self.op == "mod":
            return x % self.m
        if self.op == "div":
            return x // self.m
        if self.op == "dist":
            return abs(x - self.m)
        if self.op == "mulmod":
            return x * self.f % self.m
        return x

    def words(self) -> str:
        if self.op == "mod":
            return f"key(x) = x mod {self.m} (the remainder of x divided by {self.m})"
        if self.op == "div":
            return f"key(x) = x // {self.m} (x divided by {self.m}, rounded down)"
        if self.op == "dist":
            return f"key(x) = |x - {self.m}| (the distance of x from {self.m})"
        if self.op == "mulmod":
            return f"key(x) = ({self.f} * x) mod {self.m}"
        return "key(x) = x (the value itself)"


KEYS: dict[str, SortKey] = {
    "value": SortKey("value"),
    **{f"mod{m}": SortKey("mod", m) for m in (3, 4, 5, 6, 7, 10)},
    "div3": SortKey("div", 3),
    "div5": SortKey("div", 5),
    "dist10": SortKey("dist", 10),
    "mul3mod7": SortKey("mulmod", 7, 3),
}
"""The sort keys by name, in ``all_params`` order."""

ORDERS = ("asc", "desc")


def _key_context(name: str) -> dict[str, Any]:
    key = KEYS[name]
    return {"key_op": key.op, "key_m": key.m, "key_f": key.f}


def _order_words(order: str) -> str:
    return "ascending (smallest key first)" if order == "asc" else "descending (largest key first)"


# --------------------------------------------------------------------------------------------
# bubble sort


class BubbleSortKind(ProgramKind):
    """Bubble sort of ``a`` by a key, ascending or descending, sinking or rising passes.

    Params: ``order``, ``direction`` (``sink``: left-to-right passes; ``rise``:
    right-to-left), ``early`` (stop after a pass without a swap), ``shrink`` (skip the part
    already in place), ``key``; 2 x 2 x 2 x 2 x 11 = 176 settings.
    """

    name = "bubble_sort"
    level: Level = "easy"
    inputs = (("a", NUMBERS),)
    checkpoints = 3
    template = "bubble_sort.py.j2"

    def all_params(self) -> Iterator[Params]:
        for key, order, direction, early, shrink in product(
            KEYS, ORDERS, ("sink", "rise"), (False, True), (False, True)
        ):
            yield {
                "order": order,
                "direction": direction,
                "early": early,
                "shrink": shrink,
                "key": key,
            }

    def check_params(self, params: Mapping[str, JSONValue]) -> Params:
        return {
            "order": require_choice(params, "order", ORDERS),
            "direction": require_choice(params, "direction", ("sink", "rise")),
            "early": require_choice(params, "early", (False, True)),
            "shrink": require_choice(params, "shrink", (False, True)),
            "key": require_choice(params, "key", KEYS),
        }

    def trace(self, params: Params, args: Mapping[str, JSONValue]) -> list[Event]:
        spec = self.check_params(params)
        key = KEYS[spec["key"]]
        items = list(_ints(args["a"]))
        n = len(items)
        events: list[Event] = []

        def out_of_order(left: int, right: int) -> bool:
            if spec["order"] == "asc":
                return key(left) > key(right)
            return key(left) < key(right)

        total = 0
        for pass_no in range(n - 1):
            if spec["direction"] == "sink":
                stop = n - 1 - pass_no if spec["shrink"] else n - 1
                positions: list[int] = list(range(stop))
            else:
                first = pass_no if spec["shrink"] else 0
                positions = list(range(n - 2, first - 1, -1))
            swaps = 0
            for j in positions:
                swapped = out_of_order(items[j], items[j + 1])
                if swapped:
                    items[j], items[j + 1] = items[j + 1], items[j]
                    swaps += 1
                events.append((1, {"p": list(items), "q": j, "r": swapped}))
            total += swaps
            events.append((2, {"p": list(items), "s": pass_no, "t": swaps}))
            if spec["early"] and swaps == 0:
                break
        events.append((3, {"p": list(items), "u": total}))
        return events

    def context(self, params: Params) -> dict[str, Any]:
        spec = self.check_params(params)
        return {
            "op": ">" if spec["order"] == "asc" else "<",
            "rise": spec["direction"] == "rise",
            "early": spec["early"],
            "shrink": spec["shrink"],
            **_key_context(spec["key"]),
        }

    def describe(self, params: Params) -> str:
        spec = self.check_params(params)
        key = KEYS[spec["key"]]
        worse = ">" if spec["order"] == "asc" else "<"
        if spec["direction"] == "sink":
            scan = (
                "compares adjacent positions j and j+1 for j = 0, 1, ..., "
                + ("n-2-s (the last s positions are skipped)" if spec["shrink"] else "n-2")
                + " in that order (left to right)"
            )
        else:
            scan = (
                "compares adjacent positions j and j+1 for j = n-2, n-3, ..., "
                + ("s (the first s positions are skipped)" if spec["shrink"] else "0")
                + " in that order (right to left)"
            )
        stop = (
            "After checkpoint 2, if the pass made no swap, the passes stop early. "
            if spec["early"]
            else "All n-1 passes always run (no early exit). "
        )
        return (
            f"Input a: {NUMBERS.describe()}. Let p be a copy of a (a itself is left alone) "
            "and n its length. "
            f"The program bubble-sorts p by a key, {_order_words(spec['order'])}, with "
            f"{key.words()}. It runs passes s = 0, 1, ..., n-2 (none when n = 1). Pass s "
            f"{scan}: when key(p[j]) {worse} key(p[j+1]) it swaps p[j] and p[j+1] (equal "
            "keys are never swapped). After each comparison (and its swap, if any), "
            "checkpoint 1 records p (the list now), q = j and r = whether it swapped (a bool). "
            "After each pass, checkpoint 2 records p, s (the pass number from 0) and t (the "
            f"number of swaps in that pass). {stop}At the end, checkpoint 3 records p and u "
            "(the total number of swaps)."
        )


# --------------------------------------------------------------------------------------------
# insertion sort


class InsertionSortKind(ProgramKind):
    """Insertion sort of ``a`` by a key: shifting or swapping, from the front or the back.

    Params: ``order``, ``move`` (``shift``: slide the others over, write the value at the
    end; ``swap``: swap it along), ``scan`` (``front``: grow a sorted prefix; ``back``: a
    sorted suffix), ``ties`` (``stay``: stop at an equal key; ``pass``: move past equal
    keys), ``key``; 2 x 2 x 2 x 2 x 11 = 176 settings.
    """

    name = "insertion_sort"
    level: Level = "easy"
    inputs = (("a", NUMBERS),)
    checkpoints = 3
    template = "insertion_sort.py.j2"

    def all_params(self) -> Iterator[Params]:
        for key, order, move, scan, ties in product(
            KEYS, ORDERS, ("shift", "swap"), ("front", "back"), ("stay", "pass")
        ):
            yield {"order": order, "move": move, "scan": scan, "ties": ties, "key": key}

    def check_params(self, params: Mapping[str, JSONValue]) -> Params:
        return {
            "order": require_choice(params, "order", ORDERS),
            "move": require_choice(params, "move", ("shift", "swap")),
            "scan": require_choice(params, "scan", ("front", "back")),
            "ties": require_choice(params, "ties", ("stay", "pass")),
            "key": require_choice(params, "key", KEYS),
        }

    def trace(self, params: Params, args: Mapping[str, JSONValue]) -> list[Event]:
        spec = self.check_params(params)
        key = KEYS[spec["key"]]
        items = list(_ints(args["a"]))
        n = len(items)
        front = spec["scan"] == "front"
        events: list[Event] = []

        def goes_before(x: int, y: int) -> bool:
            """Whether the inserted x moves past its neighbour y (x would come first)."""
            kx, ky = key(x), key(y)
            if spec["order"] == "desc":
                kx, ky = -kx, -ky
            return kx <= ky if spec["ties"] == "pass" else kx < ky

        moves = 0
        starts = range(1, n) if front else range(n - 2, -1, -1)
        step = -1 if front else 1
        for start in starts:
            value = items[start]
            pos = start
            while 0 <= pos + step < n:
                neighbour = items[pos + step]
                # From the front the value moves left past a larger neighbour; from the back
                # it moves right past a smaller one.
                if not (goes_before(value, neighbour) if front else goes_before(neighbour, value)):
                    break
                if spec["move"] == "shift":
                    items[pos] = neighbour
                else:
                    items[pos], items[pos + step] = neighbour, items[pos]
                pos += step
                moves += 1
                events.append((1, {"p": list(items), "q": pos, "t": value}))
            items[pos] = value
            events.append((2, {"p": list(items), "s": start, "u": pos}))
        events.append((3, {"p": list(items), "v": moves}))
        return events

    def context(self, params: Params) -> dict[str, Any]:
        spec = self.check_params(params)
        strict = spec["ties"] == "stay"
        # The box compares the two keys directly: front `key(p[q-1]) OP key(t)`,
        # back `key(t) OP key(p[q+1])`.
        ops = {"asc": (">", ">="), "desc": ("<", "<=")}[spec["order"]]
        op = ops[0] if strict else ops[1]
        return {
            "op": op,
            "back": spec["scan"] == "back",
            "swap": spec["move"] == "swap",
            **_key_context(spec["key"]),
        }

    def describe(self, params: Params) -> str:
        spec = self.check_params(params)
        key = KEYS[spec["key"]]
        asc = spec["order"] == "asc"
        strict = spec["ties"] == "stay"
        if spec["scan"] == "front":
            if asc:
                cond = "key(p[q-1]) > key(t)" if strict else "key(p[q-1]) >= key(t)"
            else:
                cond = "key(p[q-1]) < key(t)" if strict else "key(p[q-1]) <= key(t)"
            loop = (
                "For s = 1, 2, ..., n-1 (a sorted prefix p[0..s-1] grows): let t = p[s] and "
                f"q = s. While q > 0 and {cond}, "
            )
            if spec["move"] == "shift":
                step = "set p[q] = p[q-1] (shift the neighbour right; t is not written yet)"
            else:
                step = "swap p[q-1] and p[q] (t moves one place left)"
            step += ", then q = q - 1"
        else:
            if asc:
                cond = "key(t) > key(p[q+1])" if strict else "key(t) >= key(p[q+1])"
            else:
                cond = "key(t) < key(p[q+1])" if strict else "key(t) <= key(p[q+1])"
            loop = (
                "For s = n-2, n-3, ..., 0 (a sorted suffix p[s+1..n-1] grows): let t = p[s] "
                f"and q = s. While q < n-1 and {cond}, "
            )
            if spec["move"] == "shift":
                step = "set p[q] = p[q+1] (shift the neighbour left; t is not written yet)"
            else:
                step = "swap p[q] and p[q+1] (t moves one place right)"
            step += ", then q = q + 1"
        ties = (
            "a value stops at a neighbour with an equal key"
            if strict
            else "a value also moves past neighbours with an equal key"
        )
        return (
            f"Input a: {NUMBERS.describe()}. Let p be a copy of a (a itself is left alone) "
            "and n its length. "
            f"The program insertion-sorts p by a key, {_order_words(spec['order'])}, with "
            f"{key.words()}; {ties}. {loop}{step}, and then checkpoint 1 records p (the "
            "list now), q and t (the value being inserted). When the loop stops, set "
            "p[q] = t; checkpoint 2 records p, s and u = q (the final place of t). At the "
            "end, checkpoint 3 records p and v (the total number of checkpoint-1 steps)."
        )


# --------------------------------------------------------------------------------------------
# Euclid


class EuclidKind(ProgramKind):
    """The gcd of ``a * k + c`` and ``b + d`` by remainders or subtractions, maybe extended.

    Params: ``method`` (``remainder``/``subtract``), ``extended``, ``k`` in 1..3, ``c`` and
    ``d`` in 0..3, ``swap`` (start from (b + d, a * k + c)); 2 x 2 x 3 x 4 x 4 x 2 = 384.
    """

    name = "euclid"
    level: Level = "easy"
    inputs = (("a", NUMBER), ("b", NUMBER))
    checkpoints = 2
    template = "euclid.py.j2"

    def all_params(self) -> Iterator[Params]:
        for method, extended, k, c, d, swap in product(
            ("remainder", "subtract"), (False, True), range(1, 4), range(4), range(4), (False, True)
        ):
            yield {"method": method, "extended": extended, "k": k, "c": c, "d": d, "swap": swap}

    def check_params(self, params: Mapping[str, JSONValue]) -> Params:
        return {
            "method": require_choice(params, "method", ("remainder", "subtract")),
            "extended": require_choice(params, "extended", (False, True)),
            "k": require_int(params, "k", 1, 3),
            "c": require_int(params, "c", 0, 3),
            "d": require_int(params, "d", 0, 3),
            "swap": require_choice(params, "swap", (False, True)),
        }

    def trace(self, params: Params, args: Mapping[str, JSONValue]) -> list[Event]:
        spec = self.check_params(params)
        x = _int(args["a"]) * spec["k"] + spec["c"]
        y = _int(args["b"]) + spec["d"]
        first, second = (y, x) if spec["swap"] else (x, y)
        extended = spec["extended"]
        # Invariants: first = f1 * first0 + f2 * second0, second = g1 * first0 + g2 * second0.
        f1, f2, g1, g2 = 1, 0, 0, 1
        steps = 0
        events: list[Event] = []

        def step_values() -> dict[str, JSONValue]:
            if extended:
                return {"p": first, "q": second, "r": f1, "s": f2, "t": g1, "u": g2, "v": steps}
            return {"p": first, "q": second, "v": steps}

        if spec["method"] == "remainder":
            while second != 0:
                quotient = first // second
                first, second = second, first - quotient * second
                f1, g1 = g1, f1 - quotient * g1
                f2, g2 = g2, f2 - quotient * g2
                steps += 1
                events.append((1, step_values()))
            gcd, coef1, coef2 = first, f1, f2
        else:
            while first != 0 and second != 0:
                if first >= second:
                    first -= second
                    f1, f2 = f1 - g1, f2 - g2
                else:
                    second -= first
                    g1, g2 = g1 - f1, g2 - f2
                steps += 1
                events.append((1, step_values()))
            gcd, coef1, coef2 = (first, f1, f2) if first != 0 else (second, g1, g2)
        if extended:
            events.append((2, {"w": gcd, "x": coef1, "y": coef2, "v": steps}))
        else:
            events.append((2, {"w": gcd, "v": steps}))
        return events

    def context(self, params: Params) -> dict[str, Any]:
        spec = self.check_params(params)
        x = "a" if spec["k"] == 1 else f"a * {spec['k']}"
        x += f" + {spec['c']}" if spec["c"] else ""
        y = f"b + {spec['d']}" if spec["d"] else "b"
        first, second = (y, x) if spec["swap"] else (x, y)
        return {
            "first": first,
            "second": second,
            "subtract": spec["method"] == "subtract",
            "extended": spec["extended"],
        }

    def describe(self, params: Params) -> str:
        spec = self.check_params(params)
        x = f"a * {spec['k']} + {spec['c']}"
        y = f"b + {spec['d']}"
        first, second = (y, x) if spec["swap"] else (x, y)
        extended = spec["extended"]
        coefs = (
            " It also keeps coefficients r, s, t, u, starting at r = 1, s = 0, t = 0, u = 1, "
            "so that always p = r * P + s * Q and q = t * P + u * Q, where P and Q are the "
            "starting values of p and q."
            if extended
            else ""
        )
        step_names = "p, q, r, s, t, u and v" if extended else "p, q and v"
        if spec["method"] == "remainder":
            loop = (
                "While q != 0: let z = p // q (integer division); set (p, q) = (q, p - z * q)"
                + (", (r, t) = (t, r - z * t) and (s, u) = (u, s - z * u)" if extended else "")
                + "; add 1 to v. At the end w = p"
                + (", x = r, y = s" if extended else "")
                + "."
            )
        else:
            loop = (
                "While p != 0 and q != 0: if p >= q, set p = p - q"
                + (" (and r = r - t, s = s - u)" if extended else "")
                + "; otherwise set q = q - p"
                + (" (and t = t - r, u = u - s)" if extended else "")
                + "; add 1 to v. At the end, if p != 0 then w = p"
                + (", x = r, y = s" if extended else "")
                + "; otherwise w = q"
                + (", x = t, y = u" if extended else "")
                + "."
            )
        end_names = "w, x, y and v" if extended else "w and v"
        return (
            f"Inputs a and b: each {NUMBER.describe()}. The program runs Euclid's gcd "
            f"algorithm ({'repeated subtraction' if spec['method'] == 'subtract' else 'remainders'}"
            f"{', extended' if extended else ''}) on p = {first} and q = {second}, with a step "
            f"counter v = 0.{coefs} {loop} After each loop step (v already counts it), "
            "checkpoint 1 records "
            f"{step_names} (in that order). At the end, checkpoint 2 records {end_names} "
            "(w is the gcd; 0 when both start at 0)."
        )


# --------------------------------------------------------------------------------------------
# factorial


FACTORIAL_MODULI = (7, 10, 11, 13, 97, 100, 101, 1009)


class FactorialKind(ProgramKind):
    """The product of ``a`` terms ``start + step * r`` modulo ``m``, in either order.

    Params: ``start`` in 1..4, ``step`` in 1..3, ``m`` one of 8 moduli, ``order``
    (``up``: r = 0..a-1; ``down``: r = a-1..0); 4 x 3 x 8 x 2 = 192 settings.
    """

    name = "factorial"
    level: Level = "easy"
    inputs = (("a", NUMBER),)
    checkpoints = 2
    template = "factorial.py.j2"

    def all_params(self) -> Iterator[Params]:
        for m, start, step, order in product(
            FACTORIAL_MODULI, range(1, 5), range(1, 4), ("up", "down")
        ):
            yield {"start": start, "step": step, "m": m, "order": order}

    def check_params(self, params: Mapping[str, JSONValue]) -> Params:
        return {
            "start": require_int(params, "start", 1, 4),
            "step": require_int(params, "step", 1, 3),
            # require_int first: require_choice alone would let 7.0 pass for 7.
            "m": require_int(params, "m", 1, FACTORIAL_MODULI[-1])
            and require_choice(params, "m", FACTORIAL_MODULI),
            "order": require_choice(params, "order", ("up", "down")),
        }

    def trace(self, params: Params, args: Mapping[str, JSONValue]) -> list[Event]:
        spec = self.check_params(params)
        count = _int(args["a"])
        indices = range(count) if spec["order"] == "up" else range(count - 1, -1, -1)
        product_, term = 1, 0
        events: list[Event] = []
        for index in indices:
            term = spec["start"] + spec["step"] * index
            product_ = product_ * term % spec["m"]
            events.append((1, {"p": product_, "q": term, "r": index}))
        events.append((2, {"p": product_, "q": term}))
        return events

    def context(self, params: Params) -> dict[str, Any]:
        spec = self.check_params(params)
        return {**spec, "down": spec["order"] == "down"}

    def describe(self, params: Params) -> str:
        spec = self.check_params(params)
        order = (
            "r = 0, 1, ..., a-1 (ascending)"
            if spec["order"] == "up"
            else "r = a-1, a-2, ..., 0 (descending)"
        )
        return (
            f"Input a: {NUMBER.describe()}. The program multiplies the a terms "
            f"q = {spec['start']} + {spec['step']} * r modulo {spec['m']}. It starts with "
            f"p = 1 and q = 0; for {order} (nothing when a = 0) it sets "
            f"q = {spec['start']} + {spec['step']} * r and p = (p * q) mod {spec['m']}, "
            "then checkpoint 1 records p, q and r. At the end, checkpoint 2 records p and q "
            "(the last term multiplied, or 0 if none)."
        )


def _int(value: JSONValue) -> int:
    assert isinstance(value, int) and not isinstance(value, bool)
    return value


def _ints(value: JSONValue) -> list[int]:
    assert isinstance(value, list)
    return [_int(v) for v in value]


EASY_A: tuple[ProgramKind, ...] = (
    BubbleSortKind(),
    InsertionSortKind(),
    EuclidKind(),
    FactorialKind(),
)
"""The part-A EASY kinds, in order."""
