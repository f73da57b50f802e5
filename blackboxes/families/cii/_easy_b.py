"""EASY CII kinds: a linear recurrence, digit manipulation, a prefix function, a mode."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from itertools import product
from typing import Any

from blackboxes.box import JSONValue
from blackboxes.families.cii._domains import NUMBER, NUMBERS, WORD, IntDomain
from blackboxes.families.cii._kind import (
    Event,
    Params,
    ProgramKind,
    require_choice,
    require_int,
)
from oracle_bench.errors import FamilyError

__all__ = [  # noqa: RUF022 (plain sorted order, tests/test_layout.py)
    "DIGITS_NUMBER",
    "DigitsKind",
    "EASY_B",
    "FibonacciKind",
    "MostFrequentKind",
    "PrefixFunctionKind",
]


def _int_arg(args: Mapping[str, JSONValue], name: str) -> int:
    value = args[name]
    assert isinstance(value, int)
    return value


# --- fibonacci -------------------------------------------------------------------------

FIB_P = (1, 2, 3)
FIB_Q = (1, 2, 3)
FIB_R = (0, 1)
FIB_F0 = (0, 1, 2)
FIB_F1 = (1, 2, 3)
FIB_M = (7, 10, 11, 100)


class FibonacciKind(ProgramKind):
    """``f(i) = (p*f(i-1) + q*f(i-2) + r) mod m`` from ``f(0), f(1)``, up to ``f(a)``.

    Params: p, q in 1..3, r in {0, 1}, f0 in 0..2, f1 in 1..3, m in {7, 10, 11, 100};
    648 settings.
    """

    name = "fibonacci"
    level = "easy"
    inputs = (("a", NUMBER),)
    checkpoints = 2
    template = "fibonacci.py.j2"

    def all_params(self) -> Iterator[Params]:
        for p, q, r, f0, f1, m in product(FIB_P, FIB_Q, FIB_R, FIB_F0, FIB_F1, FIB_M):
            yield {"p": p, "q": q, "r": r, "f0": f0, "f1": f1, "m": m}

    def check_params(self, params: Mapping[str, JSONValue]) -> Params:
        return {
            "p": require_int(params, "p", FIB_P[0], FIB_P[-1]),
            "q": require_int(params, "q", FIB_Q[0], FIB_Q[-1]),
            "r": require_int(params, "r", FIB_R[0], FIB_R[-1]),
            "f0": require_int(params, "f0", FIB_F0[0], FIB_F0[-1]),
            "f1": require_int(params, "f1", FIB_F1[0], FIB_F1[-1]),
            "m": require_choice(params, "m", FIB_M),
        }

    def trace(self, params: Params, args: Mapping[str, JSONValue]) -> list[Event]:
        spec = self.check_params(params)
        p, q, r, m = (int(spec[k]) for k in ("p", "q", "r", "m"))
        n = _int_arg(args, "a")
        values = [int(spec["f0"]), int(spec["f1"])]
        events: list[Event] = []
        for i in range(2, n + 1):
            values.append((p * values[i - 1] + q * values[i - 2] + r) % m)
            events.append((1, {"r": i, "p": values[i - 1], "q": values[i]}))
        events.append((2, {"t": values[n]}))
        return events

    def context(self, params: Params) -> dict[str, Any]:
        return dict(self.check_params(params))

    def describe(self, params: Params) -> str:
        s = self.check_params(params)
        add = f" + {s['r']}" if s["r"] else ""
        return (
            "Input: a, an integer in 0..40. A sequence f is defined by "
            f"f(0) = {s['f0']}, f(1) = {s['f1']} and, for i >= 2, "
            f"f(i) = ({s['p']} * f(i-1) + {s['q']} * f(i-2){add}) mod {s['m']}. "
            "Compute it iteratively with two rolling variables p (holding f(i-1)) and "
            "q (holding f(i)), starting from p = f(0), q = f(1). For each i = 2, 3, ..., a "
            "in order: compute f(i), shift (p becomes the old q, q becomes f(i)), then "
            "checkpoint 1 records r = i, p = f(i-1), q = f(i). No step runs when a < 2. "
            "After the loop, checkpoint 2 records t = f(a) (so t = f(0) when a = 0 and "
            "t = f(1) when a = 1)."
        )


# --- digits ----------------------------------------------------------------------------

DIGITS_NUMBER = IntDomain(0, 9999)
"""The digits kind's input: an integer in 0..9999 (up to 14 binary digits)."""
DIGIT_BASES = range(2, 11)
DIGIT_OPS = ("sum", "reverse", "alternating", "product", "largest", "squares", "count")
DIGIT_THRESHOLDS = range(6)
"""The thresholds t of ``count`` (other operations have t = 0)."""


class DigitsKind(ProgramKind):
    """A digit statistic of ``a`` in base ``base``, least significant digit first.

    Params: base in 2..10; op sum, reverse, alternating, product (of the non-zero digits),
    largest (digit), squares (sum of squared digits) or count (of the digits > t, t in
    0..5; t is 0 for the other operations); 108 settings.
    """

    name = "digits"
    level = "easy"
    inputs = (("a", DIGITS_NUMBER),)
    checkpoints = 2
    template = "digits.py.j2"

    def all_params(self) -> Iterator[Params]:
        for base in DIGIT_BASES:
            for op in DIGIT_OPS:
                for t in DIGIT_THRESHOLDS if op == "count" else (0,):
                    yield {"base": base, "op": op, "t": t}

    def check_params(self, params: Mapping[str, JSONValue]) -> Params:
        base = require_int(params, "base", DIGIT_BASES[0], DIGIT_BASES[-1])
        op = require_choice(params, "op", DIGIT_OPS)
        t = require_int(params, "t", DIGIT_THRESHOLDS[0], DIGIT_THRESHOLDS[-1])
        if op != "count" and t != 0:
            raise FamilyError(f"CII parameter 't' must be 0 unless op is 'count', got {t!r}")
        return {"base": base, "op": op, "t": t}

    @staticmethod
    def _start(op: str) -> int:
        return 1 if op == "product" else 0

    def trace(self, params: Params, args: Mapping[str, JSONValue]) -> list[Event]:
        spec = self.check_params(params)
        base, op, threshold = int(spec["base"]), str(spec["op"]), int(spec["t"])
        rest = _int_arg(args, "a")
        acc = self._start(op)
        position = 0  # 0 for the least significant digit
        events: list[Event] = []
        while rest > 0:
            digit = rest % base
            rest = rest // base
            if op == "sum":
                acc = acc + digit
            elif op == "reverse":
                acc = acc * base + digit
            elif op == "alternating":
                acc = acc + digit if position % 2 == 0 else acc - digit
            elif op == "product":
                acc = acc * digit if digit != 0 else acc
            elif op == "largest":
                acc = max(acc, digit)
            elif op == "squares":
                acc = acc + digit * digit
            elif digit > threshold:
                acc = acc + 1
            position = position + 1
            events.append((1, {"s": digit, "p": rest, "q": acc}))
        events.append((2, {"q": acc, "r": position}))
        return events

    def context(self, params: Params) -> dict[str, Any]:
        spec = self.check_params(params)
        return {**spec, "start": self._start(str(spec["op"]))}

    def describe(self, params: Params) -> str:
        s = self.check_params(params)
        base, op = s["base"], s["op"]
        start = self._start(str(op))
        update = {
            "sum": "q becomes q + s (the digit sum)",
            "reverse": f"q becomes q * {base} + s (the digits read in reverse order, "
            f"as a base-{base} number)",
            "alternating": "q becomes q + s if r is even and q - s if r is odd, where r is "
            "the digit's position counted before this step (the alternating digit sum, "
            "the least significant digit counting +)",
            "product": "q becomes q * s if s is not 0 and stays the same if s is 0 (the "
            "product of the non-zero digits)",
            "largest": "q becomes s if s > q and stays the same otherwise (the largest digit)",
            "squares": "q becomes q + s * s (the sum of the squared digits)",
            "count": f"q becomes q + 1 if s > {s['t']} and stays the same otherwise (the "
            f"number of digits greater than {s['t']})",
        }[str(op)]
        return (
            "Input: a, an integer in 0..9999. Let p = a, q = "
            f"{start}, r = 0. While p > 0: s = p mod {base} (the next base-{base} digit, least "
            f"significant first), p = p // {base} (integer division), then {update}; then "
            "r = r + 1 and checkpoint 1 records s, p, q (the values just computed). "
            "When p is 0 (at once if a = 0), checkpoint 2 records q and r (the number of "
            f"base-{base} digits, 0 for a = 0)."
        )


# --- prefix function -------------------------------------------------------------------

PREFIX_EQUALS = ("same", "ab", "ac", "bc")
"""Which letters count as equal: only identical ones, or also the two named letters.
(All letters equal would never take the fallback loop, so it is left out.)"""
PREFIX_ORDERS = ("forward", "reverse")
PREFIX_RECORDS = ("border", "complement")
PREFIX_FINALS = ("last", "max", "sum")


class PrefixFunctionKind(ProgramKind):
    """The KMP prefix function of ``a`` (or of its reverse) under a letter equivalence.

    Params: equal in same, ab, ac, bc; order forward or reverse; record border (the table
    holds border lengths) or complement (position + 1 - border); final last, max or sum (what
    the end checkpoint reports of the table; complements never decrease, so there last and
    max agree); 48 settings.
    """

    name = "prefix_function"
    level = "easy"
    inputs = (("a", WORD),)
    checkpoints = 3
    template = "prefix_function.py.j2"

    def all_params(self) -> Iterator[Params]:
        for equal, order, record, final in product(
            PREFIX_EQUALS, PREFIX_ORDERS, PREFIX_RECORDS, PREFIX_FINALS
        ):
            yield {"equal": equal, "order": order, "record": record, "final": final}

    def check_params(self, params: Mapping[str, JSONValue]) -> Params:
        return {
            "equal": require_choice(params, "equal", PREFIX_EQUALS),
            "order": require_choice(params, "order", PREFIX_ORDERS),
            "record": require_choice(params, "record", PREFIX_RECORDS),
            "final": require_choice(params, "final", PREFIX_FINALS),
        }

    def trace(self, params: Params, args: Mapping[str, JSONValue]) -> list[Event]:
        spec = self.check_params(params)
        word = args["a"]
        assert isinstance(word, str)
        text = word[::-1] if spec["order"] == "reverse" else word
        pair = str(spec["equal"])

        def same(x: str, y: str) -> bool:
            return x == y or (pair != "same" and {x, y} == set(pair))

        borders = [0]  # borders[i]: the longest proper border of text[: i + 1]
        k = 0
        events: list[Event] = []

        def recorded() -> list[int]:
            if spec["record"] == "border":
                return list(borders)
            return [i + 1 - border for i, border in enumerate(borders)]

        for i in range(1, len(text)):
            while k > 0 and not same(text[i], text[k]):
                k = borders[k - 1]
                events.append((1, {"r": i, "q": k}))
            if same(text[i], text[k]):
                k = k + 1
            borders.append(k)
            events.append((2, {"r": i, "q": k, "p": recorded()}))
        table = recorded()
        final = {"last": table[-1], "max": max(table), "sum": sum(table)}[str(spec["final"])]
        events.append((3, {"p": table, "t": final}))
        return events

    def context(self, params: Params) -> dict[str, Any]:
        return dict(self.check_params(params))

    def describe(self, params: Params) -> str:
        s = self.check_params(params)
        equal = str(s["equal"])
        if equal == "same":
            eq = "two letters match when they are the same letter"
        else:
            eq = (
                f"two letters match when they are the same letter or one is {equal[0]} and "
                f"the other {equal[1]}"
            )
        text = "s = a reversed (the last letter first)" if s["order"] == "reverse" else "s = a"
        if s["record"] == "border":
            table = (
                "The list p holds p[i] = the border length at position i, starting as p = [0]. "
                "The fallback step is q = p[q - 1]."
            )
            entry = "q"
        else:
            table = (
                "The list p holds p[i] = (i + 1) - (the border length at position i), starting "
                "as p = [1]. The fallback step is q = q - p[q - 1] (that is, the border length "
                "at position q - 1)."
            )
            entry = "r + 1 - q"
        final = (
            "t = the last element of p" if s["final"] == "last" else "t = the largest element of p"
        )
        return (
            "Input: a, a string of 1 to 10 letters from a, b, c. "
            f"Let {text}; {eq}. Compute the KMP prefix function (failure function) of s under "
            "this matching: the border length at position i is the length of the longest "
            "proper prefix of s[0..i] that matches (letter by letter) the suffix of s[0..i] of "
            f"the same length. {table} Let q = 0 (the current border length). For "
            "r = 1, 2, ..., len(s) - 1: while q > 0 and s[r] does not match s[q], apply the "
            "fallback step and then checkpoint 1 records r, q (the new q); after that loop, "
            f"if s[r] matches s[q], q = q + 1; then append {entry} to p and checkpoint 2 "
            f"records r, q, p (the whole list so far). After the loop, {final}, and "
            "checkpoint 3 records p, t."
        )


# --- most frequent ---------------------------------------------------------------------

FREQ_TIES = ("first", "last", "smallest", "largest")
FREQ_KEYS = (("value", 1), *(("mod", m) for m in range(2, 7)), *(("div", d) for d in range(2, 6)))
"""(key, k): the value itself (k = 1), value mod k, or value // k."""
FREQ_ORDERS = ("forward", "reverse")


class MostFrequentKind(ProgramKind):
    """The most frequent key of the elements of ``a``, counted in a list, online.

    Params: key value (k = 1), mod (k in 2..6) or div (k in 2..5); tie first, last,
    smallest or largest; order forward or reverse; 80 settings.
    """

    name = "most_frequent"
    level = "easy"
    inputs = (("a", NUMBERS),)
    checkpoints = 3
    template = "most_frequent.py.j2"

    def all_params(self) -> Iterator[Params]:
        for (key, k), tie, order in product(FREQ_KEYS, FREQ_TIES, FREQ_ORDERS):
            yield {"key": key, "k": k, "tie": tie, "order": order}

    def check_params(self, params: Mapping[str, JSONValue]) -> Params:
        key = require_choice(params, "key", ("value", "mod", "div"))
        ks = [k for name, k in FREQ_KEYS if name == key]
        k = require_int(params, "k", ks[0], ks[-1])
        return {
            "key": key,
            "k": k,
            "tie": require_choice(params, "tie", FREQ_TIES),
            "order": require_choice(params, "order", FREQ_ORDERS),
        }

    @staticmethod
    def _size(key: str, k: int) -> int:
        """The number of possible keys of a value in 0..20."""
        hi = NUMBERS.hi
        return {"value": hi + 1, "mod": k, "div": hi // k + 1}[key]

    def trace(self, params: Params, args: Mapping[str, JSONValue]) -> list[Event]:
        spec = self.check_params(params)
        key, k, tie = str(spec["key"]), int(spec["k"]), str(spec["tie"])
        items = args["a"]
        assert isinstance(items, list)
        if spec["order"] == "reverse":
            items = items[::-1]
        counts = [0] * self._size(key, k)
        best_key, best_count = -1, 0
        events: list[Event] = []
        for item in items:
            assert isinstance(item, int)
            group = item % k if key == "mod" else item // k if key == "div" else item
            counts[group] = counts[group] + 1
            events.append((1, {"s": item, "u": group, "t": list(counts)}))
            count = counts[group]
            better = count > best_count or (
                count == best_count
                and (
                    tie == "last"
                    or (tie == "smallest" and group < best_key)
                    or (tie == "largest" and group > best_key)
                )
            )
            if better:
                best_key, best_count = group, count
                events.append((2, {"p": best_key, "q": best_count}))
        events.append((3, {"p": best_key, "q": best_count}))
        return events

    def context(self, params: Params) -> dict[str, Any]:
        spec = self.check_params(params)
        return {**spec, "size": self._size(str(spec["key"]), int(spec["k"]))}

    def describe(self, params: Params) -> str:
        s = self.check_params(params)
        key, k, tie = str(s["key"]), int(s["k"]), str(s["tie"])
        size = self._size(key, k)
        group = {"value": "u = s", "mod": f"u = s mod {k}", "div": f"u = s // {k}"}[key]
        rule = {
            "first": "t[u] > q (a tie keeps the current best: the first key to reach the "
            "top count wins)",
            "last": "t[u] >= q (a tie replaces the current best: the last key to reach the "
            "top count wins)",
            "smallest": "t[u] > q, or t[u] == q and u < p (a tie goes to the smaller key)",
            "largest": "t[u] > q, or t[u] == q and u > p (a tie goes to the larger key)",
        }[tie]
        order = "from the last element to the first" if s["order"] == "reverse" else "in order"
        return (
            "Input: a, a list of 1 to 8 integers, each in 0..20. "
            f"Let t be a list of {size} zeros (the count of each key 0..{size - 1}), p = -1 "
            f"(the best key) and q = 0 (its count). Go through the elements s of a {order}: "
            f"{group} (the key), t[u] = t[u] + 1, and checkpoint 1 records s, u, t (the whole "
            f"list); then, if {rule}, set p = u and q = t[u] and checkpoint 2 records p, q. "
            "After the last element, checkpoint 3 records p, q."
        )


EASY_B: tuple[ProgramKind, ...] = (
    FibonacciKind(),
    DigitsKind(),
    PrefixFunctionKind(),
    MostFrequentKind(),
)
