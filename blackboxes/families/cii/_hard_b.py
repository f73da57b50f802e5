"""HARD CII kinds, part B: Manacher palindromes, longest monotone subsequences, knapsack
tables and digit-list arithmetic."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator, Mapping
from itertools import product
from typing import Any

from blackboxes.box import JSONValue
from blackboxes.families.cii._domains import NUMBERS, PAIRS, WORD
from blackboxes.families.cii._kind import (
    Event,
    Params,
    ProgramKind,
    require_choice,
    require_int,
)

__all__ = [  # noqa: RUF022 (plain sorted order, tests/test_layout.py)
    "BignumKind",
    "HARD_B",
    "KnapsackKind",
    "LisKind",
    "ManacherKind",
]

# Templates run where subscript stores and augmented assignment may be unavailable (the
# RestrictedPython test harness has no _write_ or _inplacevar_), so they rebuild lists by
# slicing and spell out max/min; the references below are ordinary Python.


def _int_list(value: JSONValue) -> list[int]:
    assert isinstance(value, list)
    return [int(v) for v in value]


# --------------------------------------------------------------------------- manacher

SEPARATOR = "|"
"""The separator of the transformed string in the ``sep`` mode (never equal to a letter)."""
PAIRS_EQUAL = ("", "ab", "ac", "bc")
MANACHER_REPORTS = ("length", "start", "end", "count")
"""Letter equivalence: ``""`` identity, else the two letters of the pair count as equal."""


class ManacherKind(ProgramKind):
    """Manacher's algorithm on the word (odd radii, or the separator-transformed string).

    Params: ``mode`` odd/sep, ``report`` length/start/end/count, ``pair`` (letters treated
    equal), ``tie`` first/last (which longest palindrome's start or end), ``least`` (the
    shortest length counted, 1..4); 2 x 4 x 4 x 2 x 4 = 256 settings (68 behaviours).
    """

    name = "manacher"
    level = "hard"
    inputs = (("a", WORD),)
    checkpoints = 3
    template = "manacher.py.j2"

    def all_params(self) -> Iterator[Params]:
        for mode, report, pair, tie, least in product(
            ("odd", "sep"), MANACHER_REPORTS, PAIRS_EQUAL, ("first", "last"), (1, 2, 3, 4)
        ):
            yield {"mode": mode, "report": report, "pair": pair, "tie": tie, "least": least}

    def check_params(self, params: Mapping[str, JSONValue]) -> Params:
        return {
            "mode": require_choice(params, "mode", ("odd", "sep")),
            "report": require_choice(params, "report", MANACHER_REPORTS),
            "pair": require_choice(params, "pair", PAIRS_EQUAL),
            "tie": require_choice(params, "tie", ("first", "last")),
            "least": require_int(params, "least", 1, 4),
        }

    def trace(self, params: Params, args: Mapping[str, JSONValue]) -> list[Event]:
        p = self.check_params(params)
        word = str(args["a"])
        text = word if p["mode"] == "odd" else SEPARATOR + "".join(ch + SEPARATOR for ch in word)
        pair = set(str(p["pair"]))

        def same(x: str, y: str) -> bool:
            return x == y or (bool(pair) and {x, y} == pair)

        events: list[Event] = []
        radius = [0] * len(text)
        left, right = 0, -1
        best_length, best_start, best_end, count = 0, 0, 0, 0
        reported = 0
        for centre in range(len(text)):
            k = 0
            if centre <= right:
                k = min(radius[left + right - centre], right - centre)
            while (
                centre - k - 1 >= 0
                and centre + k + 1 < len(text)
                and same(text[centre - k - 1], text[centre + k + 1])
            ):
                k += 1
                events.append((1, {"q": centre, "r": k}))
            radius[centre] = k
            if centre + k > right:
                left, right = centre - k, centre + k
            if p["mode"] == "odd":
                length, start = 2 * k + 1, centre - k
            else:
                length, start = k, (centre - k) // 2
            # Palindromes sharing this centre: lengths length, length - 2, ... down to 1 or 2.
            count += sum(1 for n in range(length, 0, -2) if n >= int(p["least"]))
            # A tie needs a real palindrome: the empty one at the first separator never counts.
            if length > best_length or (p["tie"] == "last" and length == best_length > 0):
                best_length, best_start, best_end = length, start, start + length - 1
            reported = {
                "length": best_length,
                "start": best_start,
                "end": best_end,
                "count": count,
            }[str(p["report"])]
            events.append(
                (2, {"q": centre, "p": list(radius), "s": left, "u": right, "y": reported})
            )
        events.append((3, {"p": list(radius), "y": reported}))
        return events

    def context(self, params: Params) -> dict[str, Any]:
        p = self.check_params(params)
        pair = str(p["pair"])
        return {
            "sep": p["mode"] == "sep",
            "separator": SEPARATOR,
            "pairs": [pair, pair[::-1]] if pair else [],
            "report": p["report"],
            "ties": p["tie"] == "last",
            "least": p["least"],
        }

    def describe(self, params: Params) -> str:
        p = self.check_params(params)
        pair = str(p["pair"])
        if p["mode"] == "odd":
            text = "Let t = a (work on the word itself; only odd-length palindromes are found)."
            sizes = (
                "At centre q with radius r the palindrome is t[q-r..q+r]: length L = 2r+1, "
                "start index q-r in a."
            )
        else:
            text = (
                f"Let t be a with the separator {SEPARATOR!r} before, between and after the "
                f"letters (t = {SEPARATOR!r} + each letter followed by {SEPARATOR!r}; len(t) = "
                f"2*len(a)+1; the letters sit at odd indices). The separator matches only itself."
            )
            sizes = (
                "At centre q with radius r the palindrome of a it stands for has length L = r "
                "and starts at index (q-r)//2 of a (length 0 at a separator with r = 0)."
            )
        equal = (
            "Two characters match iff they are equal"
            + (f", or one is {pair[0]!r} and the other {pair[1]!r}" if pair else "")
            + "."
        )
        report = {
            "length": "y is the length L of the longest palindrome so far (best length; "
            "initially 0)",
            "start": "y is the start of the longest palindrome so far (initially 0; keep a "
            "best length, initially 0, and update both when L > best"
            + (" or L == best > 0" if p["tie"] == "last" else "")
            + ")",
            "end": "y is the index in a of the last letter of the longest palindrome so far, "
            "start + L - 1 (initially 0; keep a best length, initially 0, and update both when "
            "L > best" + (" or L == best > 0" if p["tie"] == "last" else "") + ")",
            "count": f"y counts palindromic substrings of length >= {p['least']}: at each "
            f"centre add the number of lengths L, L-2, L-4, ... that are >= 1 and >= "
            f"{p['least']} (initially 0)",
        }[str(p["report"])]
        return (
            "Input a: a word. "
            + text
            + " "
            + equal
            + " Manacher's algorithm with radii: p = [0]*len(t); bounds s = 0, u = -1. For each "
            "centre q = 0..len(t)-1: r = 0, but if q <= u then r = min(p[s+u-q], u-q). While "
            "q-r-1 >= 0 and q+r+1 < len(t) and t[q-r-1] matches t[q+r+1]: r = r+1, then "
            "checkpoint 1 records q, r. After the loop set p[q] = r; if q+r > u then s = q-r, "
            "u = q+r. "
            + sizes
            + " Then update y: "
            + report
            + ". Checkpoint 2 (after the update, once per centre) records q, p, s, u, y. "
            "After all centres checkpoint 3 records p, y."
        )


# --------------------------------------------------------------------------- lis

LIS_KEYS: dict[str, Callable[[int], int]] = {
    "id": lambda x: x,
    "mod5": lambda x: x % 5,
    "mod7": lambda x: x % 7,
    "div3": lambda x: x // 3,
}
"""The key each element is compared by (the name is the parameter value)."""
LIS_KEY_TEXT = {"id": "x", "mod5": "x % 5", "mod7": "x % 7", "div3": "x // 3"}
LIS_REPORTS = ("length", "tail", "first", "last")


class LisKind(ProgramKind):
    """Longest monotone subsequence: a DP table or patience tails with binary search.

    Params: ``strict`` bool, ``down`` bool (decreasing), ``method`` dp/patience, ``report``
    length/tail/first/last, ``key`` id/mod5/mod7/div3; 2 x 2 x 2 x 4 x 4 = 128 settings.
    """

    name = "lis"
    level = "hard"
    inputs = (("a", NUMBERS),)
    checkpoints = 3
    template = "lis.py.j2"

    def all_params(self) -> Iterator[Params]:
        for strict, down, method, report, key in product(
            (True, False), (False, True), ("dp", "patience"), LIS_REPORTS, tuple(LIS_KEYS)
        ):
            yield {"strict": strict, "down": down, "method": method, "report": report, "key": key}

    def check_params(self, params: Mapping[str, JSONValue]) -> Params:
        return {
            "strict": require_choice(params, "strict", (True, False)),
            "down": require_choice(params, "down", (False, True)),
            "method": require_choice(params, "method", ("dp", "patience")),
            "report": require_choice(params, "report", LIS_REPORTS),
            "key": require_choice(params, "key", tuple(LIS_KEYS)),
        }

    def trace(self, params: Params, args: Mapping[str, JSONValue]) -> list[Event]:
        p = self.check_params(params)
        values = _int_list(args["a"])
        keys = [LIS_KEYS[str(p["key"])](x) for x in values]
        strict, down = bool(p["strict"]), bool(p["down"])

        def may_precede(x: int, y: int) -> bool:
            if down:
                return x > y if strict else x >= y
            return x < y if strict else x <= y

        events: list[Event] = []
        lengths: list[int] = []
        tails: list[int] = []
        reported = 0
        for i, key in enumerate(keys):
            if p["method"] == "dp":
                lengths.append(1)
                for j in range(i):
                    if may_precede(keys[j], key) and lengths[j] + 1 > lengths[i]:
                        lengths[i] = lengths[j] + 1
                        events.append((1, {"q": i, "r": j, "p": list(lengths)}))
            else:
                # Decreasing tails are searched as the ascending list of their negations.
                search, target = ([-t for t in tails], -key) if down else (tails, key)
                pos = (bisect_left if strict else bisect_right)(search, target)
                if pos == len(tails):
                    tails.append(key)
                    events.append((1, {"q": i, "r": pos, "t": list(tails)}))
                elif tails[pos] != key:
                    tails[pos] = key
                    events.append((1, {"q": i, "r": pos, "t": list(tails)}))
                lengths.append(pos + 1)
            best = max(lengths)
            ends = [j for j in range(i + 1) if lengths[j] == best]
            if p["report"] == "length":
                reported = best
            elif p["report"] == "tail":
                end_keys = [keys[j] for j in ends]
                reported = max(end_keys) if down else min(end_keys)
            elif p["report"] == "first":
                reported = values[ends[0]]
            else:
                reported = values[ends[-1]]
            events.append((2, {"q": i, "p": list(lengths), "y": reported}))
        events.append((3, {"p": list(lengths), "y": reported}))
        return events

    def context(self, params: Params) -> dict[str, Any]:
        p = self.check_params(params)
        op = (">" if p["strict"] else ">=") if p["down"] else ("<" if p["strict"] else "<=")
        return {
            "op": op,
            "better": ">" if p["down"] else "<",
            "patience": p["method"] == "patience",
            "report": p["report"],
            "key": LIS_KEY_TEXT[str(p["key"])].replace("x", "a[q]"),
        }

    def describe(self, params: Params) -> str:
        p = self.check_params(params)
        op = (">" if p["strict"] else ">=") if p["down"] else ("<" if p["strict"] else "<=")
        key = LIS_KEY_TEXT[str(p["key"])]
        shape = "decreasing" if p["down"] else "increasing"
        shape = ("strictly " if p["strict"] else "non-strictly ") + shape
        if p["method"] == "dp":
            method = (
                "O(n^2) DP: p starts empty; for element q append 1 to p, then for r = 0..q-1 in "
                f"order: if k[r] {op} k[q] and p[r]+1 > p[q], set p[q] = p[r]+1 and checkpoint 1 "
                "records q, r, p (only when p[q] changes)."
            )
        else:
            method = (
                "Patience: a tails list t starts empty. For element q binary-search the "
                f"position r = the number of leading entries e of t with e {op} k[q] (t stays "
                "sorted so these entries form a prefix). If r == len(t) append k[q]; else if "
                "t[r] != k[q] set t[r] = k[q]; in either of those two cases checkpoint 1 "
                "records q, r, t (nothing when t[r] already equals k[q]). Then append r+1 to a "
                "list p (p starts empty)."
            )
        report = {
            "length": "y = max(p)",
            "tail": "y = the "
            + ("largest" if p["down"] else "smallest")
            + " key k[j] over the j <= q with p[j] == max(p)",
            "first": "y = a[j] (the element, not its key) for the smallest j with p[j] == max(p)",
            "last": "y = a[j] (the element, not its key) for the largest j with p[j] == max(p)",
        }[str(p["report"])]
        return (
            f"Input a: a list of integers; the key of element x is k = {key}. Find the longest "
            f"{shape} subsequence by key: element r may come before element q (r < q) iff "
            f"k[r] {op} k[q]. "
            + method
            + f" After each element q: {report}, then checkpoint 2 records q, p, y (p holds "
            "the longest length ending at each element so far). After the last element "
            "checkpoint 3 records p, y."
        )


# --------------------------------------------------------------------------- knapsack

KNAP_CAPACITIES = (5, 8, 12, 15)
KNAP_WEIGHTS: dict[str, Callable[[int], int]] = {
    "w+1": lambda w: w + 1,
    "w//2+1": lambda w: w // 2 + 1,
    "w%4+1": lambda w: w % 4 + 1,
}
KNAP_VALUES: dict[str, Callable[[int], int]] = {
    "v": lambda v: v,
    "v+1": lambda v: v + 1,
    "9-v": lambda v: 9 - v,
    "v*v": lambda v: v * v,
}


class KnapsackKind(ProgramKind):
    """0/1 or unbounded knapsack DP, a rolling 1-D array or a 2-D table of rows.

    Params: ``cap`` in (5, 8, 12, 15), ``table`` 1d/2d, ``unbounded`` bool, ``weight`` and
    ``value`` transforms; 4 x 2 x 2 x 3 x 4 = 192 settings.
    """

    name = "knapsack"
    level = "hard"
    inputs = (("a", PAIRS), ("b", PAIRS))
    checkpoints = 3
    template = "knapsack.py.j2"

    def all_params(self) -> Iterator[Params]:
        for cap, table, unbounded, weight, value in product(
            KNAP_CAPACITIES, ("1d", "2d"), (False, True), tuple(KNAP_WEIGHTS), tuple(KNAP_VALUES)
        ):
            yield {
                "cap": cap,
                "table": table,
                "unbounded": unbounded,
                "weight": weight,
                "value": value,
            }

    def check_params(self, params: Mapping[str, JSONValue]) -> Params:
        return {
            "cap": require_choice(params, "cap", KNAP_CAPACITIES),
            "table": require_choice(params, "table", ("1d", "2d")),
            "unbounded": require_choice(params, "unbounded", (False, True)),
            "weight": require_choice(params, "weight", tuple(KNAP_WEIGHTS)),
            "value": require_choice(params, "value", tuple(KNAP_VALUES)),
        }

    def trace(self, params: Params, args: Mapping[str, JSONValue]) -> list[Event]:
        p = self.check_params(params)
        cap = int(p["cap"])
        raw_w, raw_v = _int_list(args["a"]), _int_list(args["b"])
        items = [
            (KNAP_WEIGHTS[str(p["weight"])](w), KNAP_VALUES[str(p["value"])](v))
            for w, v in zip(raw_w, raw_v, strict=False)
        ]
        events: list[Event] = []
        if p["table"] == "1d":
            best = [0] * (cap + 1)
            for i, (weight, value) in enumerate(items):
                # 0/1 scans capacities downwards so each item is used once; unbounded upwards.
                cells = range(weight, cap + 1) if p["unbounded"] else range(cap, weight - 1, -1)
                for c in cells:
                    best[c] = max(best[c], best[c - weight] + value)
                    events.append((1, {"q": i, "r": c, "s": best[c]}))
                events.append((2, {"q": i, "p": list(best)}))
            answer = best[cap]
        else:
            previous = [0] * (cap + 1)
            for i, (weight, value) in enumerate(items):
                row: list[int] = []
                for c in range(cap + 1):
                    cell = previous[c]
                    if c >= weight:
                        source = row if p["unbounded"] else previous
                        cell = max(cell, source[c - weight] + value)
                    row.append(cell)
                    events.append((1, {"q": i, "r": c, "s": cell}))
                events.append((2, {"q": i, "p": list(row)}))
                previous = row
            answer = previous[cap]
        events.append((3, {"y": answer}))
        return events

    def context(self, params: Params) -> dict[str, Any]:
        p = self.check_params(params)
        return {
            "cap": p["cap"],
            "two": p["table"] == "2d",
            "unbounded": p["unbounded"],
            "weight": str(p["weight"]).replace("w", "a[q]"),
            "value": str(p["value"]).replace("v", "b[q]"),
        }

    def describe(self, params: Params) -> str:
        p = self.check_params(params)
        cap = p["cap"]
        kind = "unbounded (each item any number of times)" if p["unbounded"] else "0/1"
        if p["table"] == "1d":
            order = (
                f"ascending c = w..{cap}" if p["unbounded"] else f"descending c = {cap} down to w"
            )
            table = (
                f"One array p = [0]*{cap + 1} (p[c] = best value within capacity c), updated in "
                f"place per item: for {order} (no cells when w > {cap}): p[c] = max(p[c], "
                "p[c-w]+v), then checkpoint 1 records q, r = c, s = the new p[c]. After the "
                "item checkpoint 2 records q, p."
            )
            answer = f"p[{cap}]"
        else:
            source = "the new row itself (u[c-w])" if p["unbounded"] else "the previous row"
            table = (
                f"A 2-D table: the previous row starts as [0]*{cap + 1}; for each item build a new "
                f"row u, for c = 0..{cap} ascending: the cell is the previous row's [c], and "
                f"if c >= w the max of that and v + the entry at c-w of {source}; append it "
                "to u, then checkpoint 1 records q, r = c, s = the cell. After the row "
                "checkpoint 2 records q, p = u; u becomes the previous row."
            )
            answer = f"the last row's [{cap}]"
        return (
            "Inputs a (weights) and b (values), lists of digits; use the first n = "
            "min(len(a), len(b)) of each, item q = (a[q], b[q]). Item q has weight w = "
            f"{str(p['weight']).replace('w', 'a[q]')} and value v = "
            f"{str(p['value']).replace('v', 'b[q]')}. "
            f"{kind} knapsack of capacity {cap}, items q = 0..n-1 in order. "
            + table
            + f" At the end checkpoint 3 records y = {answer}."
        )


# --------------------------------------------------------------------------- bignum

BIG_BASES = (10, 8, 7, 5, 3, 2)
BIG_OPS = ("add", "sub", "mul")


class BignumKind(ProgramKind):
    """Digit-list arithmetic: add, absolute difference or schoolbook product, in a base.

    Params: ``op`` add/sub/mul, ``base`` (digits taken mod base), ``msd`` bool (digit
    order of inputs and result), ``trim`` bool (strip leading zeros); 3 x 6 x 2 x 2 = 72.
    """

    name = "bignum"
    level = "hard"
    inputs = (("a", PAIRS), ("b", PAIRS))
    checkpoints = 3
    template = "bignum.py.j2"

    def all_params(self) -> Iterator[Params]:
        for op, base, msd, trim in product(BIG_OPS, BIG_BASES, (True, False), (True, False)):
            yield {"op": op, "base": base, "msd": msd, "trim": trim}

    def check_params(self, params: Mapping[str, JSONValue]) -> Params:
        return {
            "op": require_choice(params, "op", BIG_OPS),
            "base": require_choice(params, "base", BIG_BASES),
            "msd": require_choice(params, "msd", (True, False)),
            "trim": require_choice(params, "trim", (True, False)),
        }

    def trace(self, params: Params, args: Mapping[str, JSONValue]) -> list[Event]:
        p = self.check_params(params)
        base = int(p["base"])
        first = [d % base for d in _int_list(args["a"])]
        second = [d % base for d in _int_list(args["b"])]
        if p["msd"]:  # work least significant digit first
            first, second = first[::-1], second[::-1]
        events: list[Event] = []

        def digit(digits: list[int], i: int) -> int:
            return digits[i] if i < len(digits) else 0

        if p["op"] == "mul":
            result = [0] * (len(first) + len(second))
            for i, x in enumerate(first):
                carry = 0
                for j, y in enumerate(second):
                    total = result[i + j] + x * y + carry
                    result[i + j], carry = total % base, total // base
                    events.append((1, {"q": i + j, "r": result[i + j], "s": carry}))
                result[i + len(second)] = carry
                events.append((2, {"p": list(result), "s": carry}))
        else:
            if p["op"] == "sub" and _value(first, base) < _value(second, base):
                first, second = second, first
            result = []
            carry = 0  # the borrow, for sub
            for i in range(max(len(first), len(second))):
                if p["op"] == "add":
                    total = digit(first, i) + digit(second, i) + carry
                    result.append(total % base)
                    carry = total // base
                else:
                    total = digit(first, i) - digit(second, i) - carry
                    carry = 1 if total < 0 else 0
                    result.append(total + base * carry)
                events.append((1, {"q": i, "r": result[-1], "s": carry}))
            events.append((2, {"p": list(result), "s": carry}))
            if p["op"] == "add":
                result.append(carry)
        if p["trim"]:
            while len(result) > 1 and result[-1] == 0:
                result.pop()
        if p["msd"]:
            result.reverse()
        events.append((3, {"p": result}))
        return events

    def context(self, params: Params) -> dict[str, Any]:
        return dict(self.check_params(params))

    def describe(self, params: Params) -> str:
        p = self.check_params(params)
        base = p["base"]
        order = "most significant digit first" if p["msd"] else "least significant digit first"
        work = (
            "Let x, y be the digits of a, b taken mod {B} and reversed (so x[0], y[0] are the "
            "least significant)"
            if p["msd"]
            else "Let x, y be the digits of a, b taken mod {B} (x[0], y[0] least significant)"
        ).format(B=base)
        if p["op"] == "add":
            steps = (
                "Sum: carry s = 0, p = []; for q = 0..max(len x, len y)-1 (missing digits are "
                f"0): t = x[q]+y[q]+s, append r = t % {base} to p, s = t // {base}; checkpoint 1 "
                "records q, r, s. After the loop checkpoint 2 records p, s; then append s to p."
            )
        elif p["op"] == "sub":
            steps = (
                "Absolute difference: if the value of x is less than that of y, swap them "
                "(equal: no swap). Borrow s = 0, p = []; for q = 0..max(len x, len y)-1 "
                f"(missing digits are 0): t = x[q]-y[q]-s; if t < 0 then s = 1 and r = t+{base}, "
                "else s = 0 and r = t; append r to p; checkpoint 1 records q, r, s. After the "
                "loop checkpoint 2 records p, s."
            )
        else:
            steps = (
                "Schoolbook product: p = [0]*(len x + len y); for i over x (index order): s = 0; "
                "for j over y: t = p[i+j] + x[i]*y[j] + s, p[i+j] = t % "
                f"{base}, s = t // {base}; checkpoint 1 records q = i+j, r = p[i+j], s. After "
                "each row set p[i+len y] = s and checkpoint 2 records p, s."
            )
        trim = (
            "Drop the most significant zero digits of p, keeping at least one digit. "
            if p["trim"]
            else "Keep all digits of p (no trimming). "
        )
        return (
            f"Inputs a, b: base-{base} numbers as digit lists, {order}. {work}. "
            + steps
            + " (p is least significant digit first throughout.) "
            + trim
            + f"The result is p written {order}; checkpoint 3 records it as p."
        )


def _value(digits: list[int], base: int) -> int:
    """The number a least-significant-first digit list stands for."""
    return sum(d * base**i for i, d in enumerate(digits))


HARD_B: tuple[ProgramKind, ...] = (ManacherKind(), LisKind(), KnapsackKind(), BignumKind())
