"""HARD CII kinds (set A): quicksort, merge sort, heap sort and a prime sieve."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from itertools import product
from typing import Any

from blackboxes.box import JSONValue
from blackboxes.families.cii._domains import NUMBER, NUMBERS
from blackboxes.families.cii._kind import (
    Event,
    Params,
    ProgramKind,
    require_choice,
    require_int,
)
from oracle_bench.errors import FamilyError

__all__ = [
    "HARD_A",
    "HeapSortKind",
    "MergeSortKind",
    "QuicksortKind",
    "SieveKind",
]

ORDERS = ("asc", "desc")
SIDES = ("left", "right")


def _numbers(args: Mapping[str, JSONValue]) -> list[int]:
    value = args["a"]
    if not isinstance(value, list) or not all(isinstance(v, int) for v in value):
        raise FamilyError(f"CII input a must be a list of integers, got {value!r}")
    return [int(v) for v in value]


def _number(args: Mapping[str, JSONValue]) -> int:
    value = args["a"]
    if not isinstance(value, int) or isinstance(value, bool):
        raise FamilyError(f"CII input a must be an integer, got {value!r}")
    return value


def _sort_key(value: int, modulus: int) -> int:
    """What the sorts compare: the value itself (modulus 0) or its remainder."""
    return value % modulus if modulus else value


def _key_words(modulus: int) -> str:
    if modulus == 0:
        return "Elements are compared by their values. "
    return (
        f"Elements are compared by their remainder modulo {modulus} (the key of x is "
        f"x mod {modulus}); elements with equal keys count as equal in every comparison. "
    )


def _order_words(order: str) -> tuple[str, str]:
    """(the target order, what 'x comes before y' means for keys)."""
    if order == "asc":
        return "ascending (non-decreasing keys)", "key(x) < key(y)"
    return "descending (non-increasing keys)", "key(x) > key(y)"


# --- quicksort ---------------------------------------------------------------------------

PIVOTS = ("first", "last", "middle", "median3")
SCHEMES = ("lomuto", "hoare")
QUICK_MODULI = (0, 3, 5)


class QuicksortKind(ProgramKind):
    """Quicksort with an explicit stack of ranges.

    Params: ``pivot`` (first, last, middle, median3), ``scheme`` (lomuto, hoare), ``order``
    (asc, desc), ``first`` (which sub-range is sorted first), ``ties`` (lomuto: equal keys go
    to the left or right part; no effect under hoare), ``modulus`` (keys x or x mod m);
    4 x 2 x 2 x 2 x 2 x 3 = 192 settings.
    """

    name = "quicksort"
    level = "hard"
    inputs = (("a", NUMBERS),)
    checkpoints = 4
    template = "quicksort.py.j2"

    def all_params(self) -> Iterator[Params]:
        for pivot, scheme, order, first, ties, modulus in product(
            PIVOTS, SCHEMES, ORDERS, SIDES, SIDES, QUICK_MODULI
        ):
            yield {
                "pivot": pivot,
                "scheme": scheme,
                "order": order,
                "first": first,
                "ties": ties,
                "modulus": modulus,
            }

    def check_params(self, params: Mapping[str, JSONValue]) -> Params:
        return {
            "pivot": require_choice(params, "pivot", PIVOTS),
            "scheme": require_choice(params, "scheme", SCHEMES),
            "order": require_choice(params, "order", ORDERS),
            "first": require_choice(params, "first", SIDES),
            "ties": require_choice(params, "ties", SIDES),
            "modulus": require_choice(params, "modulus", QUICK_MODULI),
        }

    def trace(self, params: Params, args: Mapping[str, JSONValue]) -> list[Event]:
        params = self.check_params(params)
        items = _numbers(args)
        modulus = int(params["modulus"])
        ascending = params["order"] == "asc"
        events: list[Event] = []

        def key(x: int) -> int:
            return _sort_key(x, modulus)

        def before(x: int, y: int) -> bool:
            """Key x strictly before key y in the target order."""
            return x < y if ascending else x > y

        def swap(i: int, j: int) -> None:
            items[i], items[j] = items[j], items[i]

        def choose_pivot(lo: int, hi: int) -> int:
            mid = (lo + hi) // 2
            if params["pivot"] == "first":
                return lo
            if params["pivot"] == "last":
                return hi
            if params["pivot"] == "middle":
                return mid
            # The median of three by (raw value, index): ties resolved by position.
            return sorted([(items[lo], lo), (items[mid], mid), (items[hi], hi)])[1][1]

        def lomuto(lo: int, hi: int) -> tuple[int, list[tuple[int, int]]]:
            pivot_key = key(items[hi])
            boundary = lo
            for j in range(lo, hi):
                k = key(items[j])
                goes_left = before(k, pivot_key) or (params["ties"] == "left" and k == pivot_key)
                if goes_left:
                    swap(boundary, j)
                    events.append((2, {"p": list(items), "u": boundary, "v": j}))
                    boundary += 1
            swap(boundary, hi)
            return boundary, [(lo, boundary - 1), (boundary + 1, hi)]

        def hoare(lo: int, hi: int) -> tuple[int, list[tuple[int, int]]]:
            pivot_key = key(items[lo])
            i, j = lo - 1, hi + 1
            while True:
                i += 1
                while before(key(items[i]), pivot_key):
                    i += 1
                j -= 1
                while before(pivot_key, key(items[j])):
                    j -= 1
                if i >= j:
                    return j, [(lo, j), (j + 1, hi)]
                swap(i, j)
                events.append((2, {"p": list(items), "u": i, "v": j}))

        stack = [(0, len(items) - 1)] if len(items) >= 2 else []
        while stack:
            lo, hi = stack.pop()
            chosen = choose_pivot(lo, hi)
            events.append((1, {"q": lo, "r": hi, "s": chosen, "t": items[chosen]}))
            if params["scheme"] == "lomuto":
                if chosen != hi:
                    swap(chosen, hi)
                split, parts = lomuto(lo, hi)
            else:
                if chosen != lo:
                    swap(chosen, lo)
                split, parts = hoare(lo, hi)
            events.append((3, {"p": list(items), "q": lo, "r": hi, "w": split}))
            left, right = parts
            # The stack pops the last push first: push the part sorted later first.
            ordered = [right, left] if params["first"] == "left" else [left, right]
            stack.extend(part for part in ordered if part[1] - part[0] >= 1)
        events.append((4, {"p": list(items)}))
        return events

    def context(self, params: Params) -> dict[str, Any]:
        params = self.check_params(params)
        return {
            "pivot": params["pivot"],
            "scheme": params["scheme"],
            "cmp": "<" if params["order"] == "asc" else ">",
            "left_first": params["first"] == "left",
            "ties_left": params["ties"] == "left",
            "modulus": params["modulus"],
        }

    def describe(self, params: Params) -> str:
        params = self.check_params(params)
        target, _ = _order_words(str(params["order"]))
        cmp = "<" if params["order"] == "asc" else ">"
        modulus = int(params["modulus"])
        pivot = {
            "first": "the pivot index m is lo",
            "last": "the pivot index m is hi",
            "middle": "the pivot index m is (lo + hi) // 2 (integer division)",
            "median3": (
                "the pivot index m is the median of three: with mid = (lo + hi) // 2, sort the "
                "three pairs (p[lo], lo), (p[mid], mid), (p[hi], hi) (raw values, not keys; "
                "ties by index) and take the index of the middle pair"
            ),
        }[str(params["pivot"])]
        if params["scheme"] == "lomuto":
            rule = (
                "key(y) comes strictly before the pivot key or equals it"
                if params["ties"] == "left"
                else "key(y) comes strictly before the pivot key (equal keys stay right)"
            )
            scheme = (
                "Lomuto partition: if m != hi, swap p[m] and p[hi] (no checkpoint). Let x = "
                "key(p[hi]) and i = lo. For j = lo, lo+1, ..., hi-1: if the element y = p[j] "
                f"goes left, that is {rule}, swap p[i] and p[j] (even when i == j), call "
                "checkpoint 2 with p (the whole list after the swap), u = i, v = j, then "
                "increase i by 1. After the loop swap p[i] and p[hi] (no checkpoint); the split "
                "k is i, the pivot's final position, and the two parts are lo..k-1 and k+1..hi."
            )
        else:
            scheme = (
                "Hoare partition: if m != lo, swap p[m] and p[lo] (no checkpoint). Let x = "
                "key(p[lo]), i = lo - 1, j = hi + 1. Repeat: increase i by 1, then keep "
                "increasing i while key(p[i]) comes strictly before x; decrease j by 1, then keep "
                "decreasing j while x comes strictly before key(p[j]); if i >= j stop with the "
                "split k = j; otherwise swap p[i] and p[j] and call checkpoint 2 with p (the "
                "whole list after the swap), u = i, v = j. The two parts are lo..k and k+1..hi."
            )
        first = "left" if params["first"] == "left" else "right"
        return (
            "Input a: a list of integers. Let p be a copy of a; it is sorted in place into "
            f"{target} order by quicksort. {_key_words(modulus)}"
            f"A key k comes strictly before a key l when k {cmp} l. "
            "Ranges are inclusive index pairs (lo, hi) kept on an explicit stack (last in, first "
            "out). Start with the stack holding (0, len(p) - 1) if p has at least 2 elements, "
            "else empty. While the stack is not empty: pop (lo, hi); "
            f"{pivot}; call checkpoint 1 with q = lo, r = hi, s = m, t = p[m] (the raw value); "
            f"partition by the {scheme} Then call checkpoint 3 with p (the whole list), q = lo, "
            f"r = hi, w = k. Then the {first} part is to be sorted first: push the other part "
            f"and then the {first} part, each only if it has at least 2 elements (its lo < hi). "
            "When the stack is empty, call checkpoint 4 with p (the sorted list). "
            "Checkpoint keywords are recorded in the order given."
        )


# --- merge sort --------------------------------------------------------------------------

SHAPES = ("topdown", "bottomup")
MERGE_MODULI = (0, 3, 4, 5, 10)


class MergeSortKind(ProgramKind):
    """Merge sort, top-down (recursive) or bottom-up.

    Params: ``shape``, ``order``, ``lean`` (top-down: the larger half; bottom-up: the side
    the runs are aligned to), ``ties`` (equal keys taken from the left or right run),
    ``modulus`` (keys x or x mod m); 2 x 2 x 2 x 2 x 5 = 80 settings.
    """

    name = "merge_sort"
    level = "hard"
    inputs = (("a", NUMBERS),)
    checkpoints = 3
    template = "merge_sort.py.j2"

    def all_params(self) -> Iterator[Params]:
        for shape, order, lean, ties, modulus in product(
            SHAPES, ORDERS, SIDES, SIDES, MERGE_MODULI
        ):
            yield {"shape": shape, "order": order, "lean": lean, "ties": ties, "modulus": modulus}

    def check_params(self, params: Mapping[str, JSONValue]) -> Params:
        return {
            "shape": require_choice(params, "shape", SHAPES),
            "order": require_choice(params, "order", ORDERS),
            "lean": require_choice(params, "lean", SIDES),
            "ties": require_choice(params, "ties", SIDES),
            "modulus": require_choice(params, "modulus", MERGE_MODULI),
        }

    def trace(self, params: Params, args: Mapping[str, JSONValue]) -> list[Event]:
        params = self.check_params(params)
        items = _numbers(args)
        n = len(items)
        modulus = int(params["modulus"])
        ascending = params["order"] == "asc"
        events: list[Event] = []

        def take_left(x: int, y: int) -> bool:
            kx, ky = _sort_key(x, modulus), _sort_key(y, modulus)
            if kx == ky:
                return params["ties"] == "left"
            return kx < ky if ascending else kx > ky

        def merge(lo: int, mid: int, hi: int) -> None:
            merged: list[int] = []
            i, j = lo, mid
            while i < mid or j < hi:
                if j >= hi or (i < mid and take_left(items[i], items[j])):
                    merged.append(items[i])
                    i += 1
                else:
                    merged.append(items[j])
                    j += 1
                events.append((2, {"q": list(merged), "u": i, "v": j}))
            items[lo:hi] = merged
            events.append((1, {"q": list(merged), "r": lo, "s": mid, "t": hi}))

        def top_down(lo: int, hi: int) -> None:
            size = hi - lo
            if size < 2:
                return
            left_size = (size + 1) // 2 if params["lean"] == "left" else size // 2
            mid = lo + left_size
            top_down(lo, mid)
            top_down(mid, hi)
            merge(lo, mid, hi)

        if params["shape"] == "topdown":
            top_down(0, n)
        else:
            width = 1
            while width < n:
                if params["lean"] == "left":
                    for lo in range(0, n, 2 * width):
                        mid, hi = min(lo + width, n), min(lo + 2 * width, n)
                        if mid < hi:
                            merge(lo, mid, hi)
                else:
                    hi = n
                    while hi > 0:
                        mid, lo = max(hi - width, 0), max(hi - 2 * width, 0)
                        if lo < mid:
                            merge(lo, mid, hi)
                        hi = lo
                width *= 2
        events.append((3, {"p": list(items)}))
        return events

    def context(self, params: Params) -> dict[str, Any]:
        params = self.check_params(params)
        return {
            "topdown": params["shape"] == "topdown",
            "lean_left": params["lean"] == "left",
            "cmp": "<" if params["order"] == "asc" else ">",
            "ties_left": params["ties"] == "left",
            "modulus": params["modulus"],
        }

    def describe(self, params: Params) -> str:
        params = self.check_params(params)
        target, before = _order_words(str(params["order"]))
        modulus = int(params["modulus"])
        side = "left" if params["ties"] == "left" else "right"
        merge = (
            "merge(lo, mid, hi) merges the adjacent sorted runs p[lo:mid] and p[mid:hi] "
            "(half-open index ranges): start with an empty list q and i = lo, j = mid; while "
            "i < mid or j < hi, take the next element: from the right run (p[j], then j += 1) "
            "if the left run is used up (i == mid); from the left run (p[i], then i += 1) if the "
            f"right run is used up (j == hi); otherwise from the left run when {before} with "
            f"x = p[i], y = p[j], from the right run when key(y) comes before key(x) that way, "
            f"and from the {side} run when the keys are equal. Append the taken element to q and "
            "call checkpoint 2 with q (the merged list so far), u = i, v = j (after the step). "
            "When both runs are used up, copy q into p[lo:hi] and call checkpoint 1 with q, "
            "r = lo, s = mid, t = hi."
        )
        if params["shape"] == "topdown":
            half = (
                "(size + 1) // 2 (the left half gets the extra element)"
                if params["lean"] == "left"
                else "size // 2 (the right half gets the extra element)"
            )
            shape = (
                "Top-down: sort(lo, hi) with size = hi - lo does nothing if size < 2; otherwise "
                f"mid = lo + {half}, then sort(lo, mid), sort(mid, hi), merge(lo, mid, hi). "
                "The program calls sort(0, len(p))."
            )
        elif params["lean"] == "left":
            shape = (
                "Bottom-up, runs aligned to the start: for width = 1, 2, 4, ... while width < n "
                "(n = len(p)): for lo = 0, 2*width, 4*width, ... (lo < n, left to right): "
                "mid = min(lo + width, n), hi = min(lo + 2*width, n); if mid < hi, "
                "merge(lo, mid, hi) (a lone last run is left as it is)."
            )
        else:
            shape = (
                "Bottom-up, runs aligned to the end: for width = 1, 2, 4, ... while width < n "
                "(n = len(p)): starting with hi = n and going right to left while hi > 0: "
                "mid = max(hi - width, 0), lo = max(hi - 2*width, 0); if lo < mid, "
                "merge(lo, mid, hi); then hi = lo (a lone first run is left as it is)."
            )
        return (
            "Input a: a list of integers. Let p be a copy of a; it is sorted into "
            f"{target} order by merge sort. {_key_words(modulus)}"
            f"{merge} {shape} Finally call checkpoint 3 with p (the sorted list). "
            "Checkpoint keywords are recorded in the order given."
        )


# --- heap sort ---------------------------------------------------------------------------

ARITIES = (2, 3, 4)
HEAPS = ("max", "min")
BUILDS = ("siftdown", "siftup")
CHILD_TIES = ("first", "last")
HEAP_MODULI = (0, 3, 4, 5)


class HeapSortKind(ProgramKind):
    """In-place heap sort on a d-ary heap.

    Params: ``arity`` (2, 3, 4), ``heap`` (max: ascending result, min: descending),
    ``build`` (sift-down from the last parent, or repeated sift-up), ``child`` (the first or
    last of equally good children), ``modulus`` (keys x or x mod m); 3 x 2 x 2 x 2 x 4 = 96.
    """

    name = "heap_sort"
    level = "hard"
    inputs = (("a", NUMBERS),)
    checkpoints = 4
    template = "heap_sort.py.j2"

    def all_params(self) -> Iterator[Params]:
        for arity, heap, build, child, modulus in product(
            ARITIES, HEAPS, BUILDS, CHILD_TIES, HEAP_MODULI
        ):
            yield {"arity": arity, "heap": heap, "build": build, "child": child, "modulus": modulus}

    def check_params(self, params: Mapping[str, JSONValue]) -> Params:
        return {
            "arity": require_int(params, "arity", ARITIES[0], ARITIES[-1]),
            "heap": require_choice(params, "heap", HEAPS),
            "build": require_choice(params, "build", BUILDS),
            "child": require_choice(params, "child", CHILD_TIES),
            "modulus": require_choice(params, "modulus", HEAP_MODULI),
        }

    def trace(self, params: Params, args: Mapping[str, JSONValue]) -> list[Event]:
        params = self.check_params(params)
        heap = _numbers(args)
        n = len(heap)
        d = int(params["arity"])
        modulus = int(params["modulus"])
        is_max = params["heap"] == "max"
        events: list[Event] = []

        def key(x: int) -> int:
            return _sort_key(x, modulus)

        def above(x: int, y: int) -> bool:
            """Element x belongs strictly above element y in the heap."""
            return key(x) > key(y) if is_max else key(x) < key(y)

        def move(i: int, j: int) -> None:
            heap[i], heap[j] = heap[j], heap[i]
            events.append((1, {"p": list(heap), "q": i, "r": j}))

        def sift_down(i: int, size: int) -> None:
            while d * i + 1 < size:
                children = range(d * i + 1, min(d * i + d + 1, size))
                best = children[0]
                for c in children[1:]:
                    tie = key(heap[c]) == key(heap[best]) and params["child"] == "last"
                    if above(heap[c], heap[best]) or tie:
                        best = c
                if not above(heap[best], heap[i]):
                    return
                move(i, best)
                i = best

        def sift_up(i: int) -> None:
            while i > 0:
                parent = (i - 1) // d
                if not above(heap[i], heap[parent]):
                    return
                move(i, parent)
                i = parent

        if params["build"] == "siftdown":
            for i in range((n - 2) // d, -1, -1):
                sift_down(i, n)
        else:
            for i in range(1, n):
                sift_up(i)
        events.append((2, {"p": list(heap)}))
        for end in range(n - 1, 0, -1):
            heap[0], heap[end] = heap[end], heap[0]
            sift_down(0, end)
            events.append((3, {"p": list(heap), "s": end, "t": heap[end]}))
        events.append((4, {"p": list(heap)}))
        return events

    def context(self, params: Params) -> dict[str, Any]:
        params = self.check_params(params)
        return {
            "d": params["arity"],
            "cmp": ">" if params["heap"] == "max" else "<",
            "siftdown": params["build"] == "siftdown",
            "child_last": params["child"] == "last",
            "modulus": params["modulus"],
        }

    def describe(self, params: Params) -> str:
        params = self.check_params(params)
        d = int(params["arity"])
        modulus = int(params["modulus"])
        if params["heap"] == "max":
            heap, above, result = "max-heap", "key(x) > key(y)", "ascending"
        else:
            heap, above, result = "min-heap", "key(x) < key(y)", "descending"
        child = "first" if params["child"] == "first" else "last"
        if params["build"] == "siftdown":
            build = (
                f"Build the heap by sift-down: for i = (n - 2) // {d} down to 0 (floor division; "
                "no iterations when n < 2), sift_down(i, n)."
            )
        else:
            build = (
                "Build the heap by repeated insertion: for i = 1, 2, ..., n - 1, sift_up(i), "
                f"where sift_up(i) repeats while i > 0: parent = (i - 1) // {d}; if p[i] is "
                "above p[parent], swap them (a step from i to parent, checkpoint 1) and set "
                "i = parent, otherwise stop."
            )
        return (
            "Input a: a list of integers. Let p be a copy of a and n = len(p); p is sorted in "
            f"place by heap sort on a {d}-ary {heap}, giving {result} order. "
            f"{_key_words(modulus)}"
            f"Element x is above element y when {above} (strictly). The children of index i "
            f"are {d}*i + 1 .. {d}*i + {d} (those below the heap size). "
            "A step swaps p[i] and p[j] and then calls checkpoint 1 with p (the whole list after "
            "the swap), q = i (where the moving element was), r = j (where it went). "
            "sift_down(i, size) repeats: if i has no child below size, stop; otherwise scan its "
            "children in index order, keeping the best: a later child replaces the best if it is "
            "above it"
            + (" or its key equals the best's key" if child == "last" else "")
            + f" (so among equally good children the {child} wins); if the best child is above "
            "p[i], take a step from i to it and continue from its index, otherwise stop. "
            f"{build} Then call checkpoint 2 with p. Then for end = n - 1 down to 1: swap p[0] "
            "and p[end] (not a step), sift_down(0, end), then call checkpoint 3 with p, s = end, "
            "t = p[end]. Finally call checkpoint 4 with p. "
            "Checkpoint keywords are recorded in the order given."
        )


# --- sieve -------------------------------------------------------------------------------

STARTS = ("square", "double")
BOUNDS = ("sqrt", "all")
OUTPUTS = ("count", "largest", "list", "sum")
SUM_MODULI = (0, 7, 10, 16, 31)


class SieveKind(ProgramKind):
    """The sieve of Eratosthenes up to ``a`` (or below it), with a running output.

    Params: ``start`` (marking from p*p or the first multiple after p), ``bound`` (mark only
    for p*p <= n, or for every prime), ``odd`` (odd candidates only), ``inclusive`` (n = a
    or a - 1), ``output`` (count, largest, list, sum) and ``modulus`` (the sum's, 0: none; 0
    for other outputs); 2 x 2 x 2 x 2 x (3 + 5) = 128 settings.
    """

    name = "sieve"
    level = "hard"
    inputs = (("a", NUMBER),)
    checkpoints = 3
    template = "sieve.py.j2"

    def all_params(self) -> Iterator[Params]:
        outputs = [(o, 0) for o in OUTPUTS if o != "sum"] + [("sum", m) for m in SUM_MODULI]
        for start, bound, odd, inclusive, (output, modulus) in product(
            STARTS, BOUNDS, (False, True), (True, False), outputs
        ):
            yield {
                "start": start,
                "bound": bound,
                "odd": odd,
                "inclusive": inclusive,
                "output": output,
                "modulus": modulus,
            }

    def check_params(self, params: Mapping[str, JSONValue]) -> Params:
        checked: Params = {
            "start": require_choice(params, "start", STARTS),
            "bound": require_choice(params, "bound", BOUNDS),
            "odd": require_choice(params, "odd", (False, True)),
            "inclusive": require_choice(params, "inclusive", (True, False)),
            "output": require_choice(params, "output", OUTPUTS),
            "modulus": require_choice(params, "modulus", SUM_MODULI),
        }
        if checked["output"] != "sum" and checked["modulus"] != 0:
            raise FamilyError("CII parameter 'modulus' must be 0 unless the output is 'sum'")
        return checked

    def trace(self, params: Params, args: Mapping[str, JSONValue]) -> list[Event]:
        params = self.check_params(params)
        limit = _number(args) - (0 if params["inclusive"] else 1)
        modulus = int(params["modulus"])
        odd = bool(params["odd"])
        events: list[Event] = []
        marked: set[int] = set()
        marks = 0
        count = largest = total = 0
        primes: list[int] = []

        def found(prime: int) -> None:
            nonlocal count, largest, total
            count += 1
            largest = prime
            total = (total + prime) % modulus if modulus else total + prime
            primes.append(prime)
            events.append((2, {"r": prime, "u": output()}))

        def output() -> JSONValue:
            return {"count": count, "largest": largest, "list": list(primes), "sum": total}[
                str(params["output"])
            ]

        if odd and limit >= 2:
            found(2)
        candidates = range(3, limit + 1, 2) if odd else range(2, limit + 1)
        for prime in candidates:
            if prime in marked:
                continue
            found(prime)
            if params["bound"] == "sqrt" and prime * prime > limit:
                continue
            step = 2 * prime if odd else prime
            # "double": the next candidate multiple after the prime itself (2p, or 3p if odd).
            first = prime * prime if params["start"] == "square" else prime + step
            for multiple in range(first, limit + 1, step):
                marked.add(multiple)
                marks += 1
                events.append((1, {"r": prime, "s": multiple, "t": marks}))
        events.append((3, {"u": output(), "t": marks}))
        return events

    def context(self, params: Params) -> dict[str, Any]:
        params = self.check_params(params)
        return {
            "square": params["start"] == "square",
            "sqrt": params["bound"] == "sqrt",
            "odd": params["odd"],
            "inclusive": params["inclusive"],
            "output": params["output"],
            "modulus": params["modulus"],
        }

    def describe(self, params: Params) -> str:
        params = self.check_params(params)
        odd = bool(params["odd"])
        modulus = int(params["modulus"])
        limit = "n = a" if params["inclusive"] else "n = a - 1"
        step = "2*x" if odd else "x"
        if params["start"] == "square":
            first, note = "x*x", ""
        elif odd:
            first, note = "3*x", " (from the first odd multiple after x)"
        else:
            first, note = "2*x", " (from the first multiple after x)"
        bound = (
            "only if x*x <= n (otherwise x marks nothing)"
            if params["bound"] == "sqrt"
            else "for every prime x"
        )
        output = {
            "count": "u is the number of primes found so far (starts at 0)",
            "largest": "u is the largest prime found so far (starts at 0)",
            "list": "u is the list of primes found so far, in order (starts empty)",
            "sum": (
                "u is the sum of the primes found so far (starts at 0)"
                if modulus == 0
                else f"u is the sum of the primes found so far modulo {modulus} (starts at 0; "
                f"after each prime x, u = (u + x) mod {modulus})"
            ),
        }[str(params["output"])]
        if odd:
            scan = (
                "Only odd candidates are scanned: if n >= 2, 2 is found as a prime first "
                "(it marks nothing); then x runs over 3, 5, 7, ... up to n."
            )
        else:
            scan = "x runs over 2, 3, 4, ... up to n."
        return (
            f"Input a: an integer. Let {limit}; the program runs a sieve of Eratosthenes on "
            f"2..n (nothing when n < 2). Every number starts unmarked. {scan} If x is marked it "
            "is skipped; otherwise x is a prime: update u, where "
            f"{output}, and call checkpoint 2 with r = x, u. Then, {bound}, mark the multiples "
            f"m = {first}, {first} + {step}, ... up to n in steps of {step}{note}: each "
            "marking (even of a number marked before) increases the mark counter t (starting "
            "at 0) and calls checkpoint 1 with r = x, s = m, t. After the scan, call checkpoint "
            "3 with u and t. Checkpoint keywords are recorded in the order given."
        )


HARD_A: tuple[ProgramKind, ...] = (QuicksortKind(), MergeSortKind(), HeapSortKind(), SieveKind())
