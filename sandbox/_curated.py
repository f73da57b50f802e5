"""Curated stand-ins for the few stdlib modules a box may import.

A box never receives a real module object: real modules expose attributes such
as ``statistics.sys`` or ``collections.abc`` that lead back to ``sys`` and the
real builtins. Each allowed module is a :class:`CuratedModule` holding vetted
public functions and constants only, and ``guarded_import`` hands out nothing
else. This module is imported by the worker *and* by the parent (for the static
import check), so it must stay import-cheap and free of project imports.
"""

from __future__ import annotations

import bisect
import collections
import fractions
import functools
import heapq
import itertools
import math
import operator
import random
import re
import statistics
import string
from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType
from typing import Any, NoReturn

DEFAULT_RANDOM_SEED = 0


class PolicyViolation(Exception):
    """Marker base for every denial raised by the sandbox policy at run time."""


class ForbiddenImport(PolicyViolation, ImportError):
    """An import the sandbox does not allow."""


class ForbiddenAccess(PolicyViolation, AttributeError):
    """An attribute, builtin or write the sandbox does not allow."""


class CuratedModule:
    """A read-only namespace standing in for a module; has no path to the real one."""

    __slots__ = ("_members", "_name")

    def __init__(self, name: str, members: Mapping[str, Any]) -> None:
        object.__setattr__(self, "_name", name)
        object.__setattr__(self, "_members", MappingProxyType(dict(members)))

    def __getattr__(self, attr: str) -> Any:
        members: Mapping[str, Any] = object.__getattribute__(self, "_members")
        try:
            return members[attr]
        except KeyError:
            name = object.__getattribute__(self, "_name")
            # Raised without ``obj`` so AttributeError.obj cannot leak anything.
            raise ForbiddenAccess(
                f"module {name!r} has no attribute {attr!r} in the sandbox"
            ) from None

    def __setattr__(self, attr: str, value: object) -> NoReturn:
        raise ForbiddenAccess("sandboxed modules are read-only")

    def __delattr__(self, attr: str) -> NoReturn:
        raise ForbiddenAccess("sandboxed modules are read-only")

    def __repr__(self) -> str:
        return f"<sandboxed module {object.__getattribute__(self, '_name')!r}>"


def member_names(module: CuratedModule) -> frozenset[str]:
    """Names a curated module offers (a function, so box code cannot call it as a method)."""
    return frozenset(object.__getattribute__(module, "_members"))


class SeededRandom(random.Random):
    """``random.Random`` whose argument-less ``seed()`` uses a fixed seed, never the OS."""

    def __init__(self, x: Any = DEFAULT_RANDOM_SEED) -> None:
        super().__init__(x)

    def seed(self, a: Any = DEFAULT_RANDOM_SEED, version: int = 2) -> None:
        super().seed(DEFAULT_RANDOM_SEED if a is None else a, version)


def _public(module: object, names: Iterable[str] | None = None) -> dict[str, Any]:
    chosen = names if names is not None else [n for n in dir(module) if not n.startswith("_")]
    return {name: getattr(module, name) for name in chosen}


_RANDOM_METHODS = [
    "betavariate",
    "choice",
    "choices",
    "expovariate",
    "gammavariate",
    "gauss",
    "getrandbits",
    "lognormvariate",
    "normalvariate",
    "paretovariate",
    "randbytes",
    "randint",
    "random",
    "randrange",
    "sample",
    "seed",
    "shuffle",
    "triangular",
    "uniform",
    "vonmisesvariate",
    "weibullvariate",
]

# operator.attrgetter/methodcaller would bypass _getattr_; setitem & co. the write guard.
_OPERATOR_NAMES = [
    "abs",
    "add",
    "and_",
    "concat",
    "contains",
    "countOf",
    "eq",
    "floordiv",
    "ge",
    "gt",
    "index",
    "indexOf",
    "inv",
    "invert",
    "is_",
    "is_not",
    "itemgetter",
    "le",
    "lshift",
    "lt",
    "mod",
    "mul",
    "ne",
    "neg",
    "not_",
    "or_",
    "pos",
    "pow",
    "rshift",
    "sub",
    "truediv",
    "truth",
    "xor",
]

_STRING_CONSTANTS = [
    "ascii_letters",
    "ascii_lowercase",
    "ascii_uppercase",
    "digits",
    "hexdigits",
    "octdigits",
    "punctuation",
    "printable",
    "whitespace",
]

_RE_FUNCTIONS = [
    "compile",
    "escape",
    "findall",
    "finditer",
    "fullmatch",
    "match",
    "search",
    "split",
    "sub",
    "subn",
]
_RE_FLAGS = [
    "A",
    "ASCII",
    "DOTALL",
    "I",
    "IGNORECASE",
    "M",
    "MULTILINE",
    "S",
    "U",
    "UNICODE",
    "VERBOSE",
    "X",
]


def build_modules(rng: random.Random) -> dict[str, CuratedModule]:
    """The curated namespaces; ``rng`` backs the ``random`` stand-in."""
    re_members: dict[str, Any] = _public(re, _RE_FUNCTIONS)
    # Flags as plain ints: enum members carry class machinery we need not expose.
    re_members.update({flag: int(getattr(re, flag)) for flag in _RE_FLAGS})
    re_members["error"] = re.error
    random_members: dict[str, Any] = {name: getattr(rng, name) for name in _RANDOM_METHODS}
    random_members["Random"] = SeededRandom
    members: dict[str, dict[str, Any]] = {
        "bisect": _public(
            bisect,
            ["bisect", "bisect_left", "bisect_right", "insort", "insort_left", "insort_right"],
        ),
        # namedtuple is left out: it builds its class by evaluating generated source.
        "collections": _public(
            collections, ["ChainMap", "Counter", "OrderedDict", "defaultdict", "deque"]
        ),
        "fractions": {"Fraction": fractions.Fraction},
        "functools": _public(
            functools, ["cache", "cmp_to_key", "lru_cache", "partial", "reduce", "total_ordering"]
        ),
        "heapq": _public(
            heapq,
            [
                "heapify",
                "heappop",
                "heappush",
                "heappushpop",
                "heapreplace",
                "merge",
                "nlargest",
                "nsmallest",
            ],
        ),
        "itertools": _public(itertools),
        "math": _public(math),
        "operator": _public(operator, _OPERATOR_NAMES),
        "random": random_members,
        "re": re_members,
        "statistics": _public(
            statistics,
            [
                "StatisticsError",
                "correlation",
                "covariance",
                "fmean",
                "geometric_mean",
                "harmonic_mean",
                "linear_regression",
                "mean",
                "median",
                "median_grouped",
                "median_high",
                "median_low",
                "mode",
                "multimode",
                "pstdev",
                "pvariance",
                "quantiles",
                "stdev",
                "variance",
            ],
        ),
        "string": _public(string, _STRING_CONSTANTS),
    }
    return {name: CuratedModule(name, m) for name, m in members.items()}


# Parent-side view: names only (the rng here is never handed to box code).
_STATIC_MODULES = build_modules(SeededRandom())
ALLOWED_MODULES: frozenset[str] = frozenset(_STATIC_MODULES)
MODULE_MEMBERS: Mapping[str, frozenset[str]] = MappingProxyType(
    {name: member_names(mod) for name, mod in _STATIC_MODULES.items()}
)


def make_import_guard(modules: Mapping[str, CuratedModule]) -> Callable[..., CuratedModule]:
    """An ``__import__`` that only hands out the curated namespaces."""
    offered = {name: member_names(module) for name, module in modules.items()}

    def guarded_import(
        name: str,
        globals: object = None,
        locals: object = None,
        fromlist: Iterable[str] | None = (),
        level: int = 0,
    ) -> CuratedModule:
        if level != 0:
            raise ForbiddenImport("relative imports are not allowed in a black box")
        module = modules.get(name) if isinstance(name, str) else None
        if module is None:
            raise ForbiddenImport(f"import of module {name!r} is not allowed in a black box")
        for item in fromlist or ():
            if item not in offered[name]:
                raise ForbiddenImport(f"cannot import {item!r} from sandboxed module {name!r}")
        return module

    return guarded_import
