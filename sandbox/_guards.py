"""The restricted globals a box runs in: guards, curated builtins, curated imports.

Everything a box can reach starts here. RestrictedPython rewrites attribute,
item, iteration and write operations into calls of the ``_xxx_`` hooks below;
the builtins dict is a whitelist; ``__import__`` only yields curated modules.
"""

from __future__ import annotations

import builtins
import collections
import operator
import string
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from RestrictedPython.Guards import (
    guarded_iter_unpack_sequence,
    guarded_unpack_sequence,
    safe_builtins,
)
from RestrictedPython.PrintCollector import PrintCollector
from RestrictedPython.transformer import ALLOWED_FUNC_NAMES, INSPECT_ATTRIBUTES

from sandbox._curated import CuratedModule, ForbiddenAccess, make_import_guard

BOX_MODULE_NAME = "blackbox_module"

# Frame/generator/coroutine/traceback attribute families, denied even where the
# transformer's static list (INSPECT_ATTRIBUTES) has no entry yet.
_FRAME_PREFIXES = ("f_", "tb_", "gi_", "cr_", "ag_", "co_")
# ``cls.mro()`` hands out every base class: the real ``random.Random`` and
# ``_random.Random`` (OS-seeded, so box output stops being deterministic), the
# ``collections.abc``/``numbers`` ABCs (whose ``register`` mutates global state).
_DENIED_NAMES = frozenset({"mro"})
_STR_FORMAT_NAMES = frozenset({"format", "format_map"})
_FORMATTER_NAMES = frozenset({"format", "get_field", "get_value", "vformat", "parse"})

# Builtins that exist in CPython but never in a box: calling one is a policy error.
_FORBIDDEN_BUILTINS = [
    "aiter",
    "anext",
    "breakpoint",
    "compile",
    "copyright",
    "credits",
    "dir",
    "eval",
    "exec",
    "exit",
    "globals",
    "help",
    "id",
    "input",
    "license",
    "locals",
    "memoryview",
    "open",
    "quit",
    "super",
    "vars",
]

_CLASS_NAMESPACE_DUNDERS = frozenset(
    {"__annotations__", "__classcell__", "__doc__", "__module__", "__orig_bases__", "__qualname__"}
    | set(ALLOWED_FUNC_NAMES)
)


def guarded_getattr(obj: object, name: str, *default: object) -> Any:
    """The ``_getattr_`` hook and the ``getattr`` builtin."""
    if type(name) is not str:
        raise TypeError("attribute name must be a str")
    _check_attribute(obj, name)
    return getattr(obj, name, *default)


def _check_attribute(obj: object, name: str) -> None:
    if name.startswith("_"):
        raise ForbiddenAccess(f"access to attribute {name!r} is not allowed in a black box")
    if name in INSPECT_ATTRIBUTES or name in _DENIED_NAMES or name.startswith(_FRAME_PREFIXES):
        raise ForbiddenAccess(f"access to attribute {name!r} is not allowed in a black box")
    if name in _STR_FORMAT_NAMES and (
        isinstance(obj, str) or (isinstance(obj, type) and issubclass(obj, str))
    ):
        raise ForbiddenAccess("str.format and str.format_map are not allowed; use f-strings")
    if name in _FORMATTER_NAMES and (
        isinstance(obj, string.Formatter)
        or (isinstance(obj, type) and issubclass(obj, string.Formatter))
    ):
        raise ForbiddenAccess("string.Formatter is not allowed")
    # CVE-2024-47532: AttributeError.obj hands out the object the lookup failed on.
    if name == "obj" and isinstance(obj, BaseException):
        raise ForbiddenAccess("access to attribute 'obj' of exceptions is not allowed")


def guarded_hasattr(obj: object, name: str) -> bool:
    try:
        guarded_getattr(obj, name)
    except AttributeError:
        return False
    return True


def guarded_getitem(obj: Any, key: Any) -> Any:
    return obj[key]


def guarded_iter(obj: Any) -> Iterator[Any]:
    """The ``_getiter_`` hook; every wrapper below iterates through it."""
    return iter(obj)


def apply(func: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    return func(*args, **kwargs)


class WriteGuard:
    """``_write_``: containers and instances of box-defined classes are writable."""

    _writable_types: frozenset[type] = frozenset(
        {
            dict,
            list,
            set,
            bytearray,
            collections.Counter,
            collections.OrderedDict,
            collections.defaultdict,
            collections.deque,
        }
    )

    def __init__(self) -> None:
        # Weak: a class defined inside the entry function must not outlive its call
        # (a strong set grew by one class per call until the worker ran out of memory).
        self.box_classes: weakref.WeakSet[type] = weakref.WeakSet()

    def __call__(self, obj: Any) -> Any:
        kind = type(obj)
        if kind in self._writable_types or kind in self.box_classes:
            return obj
        raise ForbiddenAccess(f"objects of type {kind.__name__!r} are read-only in a black box")

    def setattr(self, obj: Any, name: str, value: Any) -> None:
        if type(name) is not str or name.startswith("_"):
            raise ForbiddenAccess(f"setting attribute {name!r} is not allowed in a black box")
        setattr(self(obj), name, value)

    def delattr(self, obj: Any, name: str) -> None:
        if type(name) is not str or name.startswith("_"):
            raise ForbiddenAccess(f"deleting attribute {name!r} is not allowed in a black box")
        delattr(self(obj), name)

    def metaclass(self, name: str, bases: tuple[Any, ...], namespace: dict[str, Any]) -> type:
        """``__metaclass__``: plain classes only, and remember them as writable."""
        for base in bases:
            if not isinstance(base, type) or issubclass(base, type):
                raise ForbiddenAccess("a box class may only derive from ordinary classes")
        for key in namespace:
            if key.startswith("_") and key not in _CLASS_NAMESPACE_DUNDERS:
                raise ForbiddenAccess(f"class attribute {key!r} is not allowed in a black box")
        cls = type(name, bases, namespace)
        self.box_classes.add(cls)
        return cls


_INPLACE_OPS: Mapping[str, Callable[[Any, Any], Any]] = {
    "+=": operator.iadd,
    "-=": operator.isub,
    "*=": operator.imul,
    "/=": operator.itruediv,
    "//=": operator.ifloordiv,
    "%=": operator.imod,
    "**=": operator.ipow,
    "<<=": operator.ilshift,
    ">>=": operator.irshift,
    "&=": operator.iand,
    "|=": operator.ior,
    "^=": operator.ixor,
    "@=": operator.imatmul,
}


def inplacevar(op: str, target: Any, value: Any) -> Any:
    """``_inplacevar_``: ``x += y`` on a plain name (item/attr targets are refused at compile)."""
    func = _INPLACE_OPS.get(op)
    if func is None:
        raise ForbiddenAccess(f"in-place operator {op!r} is not allowed")
    return func(target, value)


class _TypeProxy:
    """Stands in for ``list``/``dict``/...: calls iterate via ``_getiter_``.

    ``isinstance``/``issubclass``/``==``/subclassing still see the real type, so
    ordinary code works; only ``type(x) is list`` differs (use ``==``).
    """

    __slots__ = ("_factory", "_real")

    def __init__(self, real: type, factory: Callable[..., Any]) -> None:
        object.__setattr__(self, "_real", real)
        object.__setattr__(self, "_factory", factory)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._factory(*args, **kwargs)

    def __instancecheck__(self, obj: object) -> bool:
        return isinstance(obj, self._real)

    def __subclasscheck__(self, cls: type) -> bool:
        return issubclass(cls, self._real)

    def __mro_entries__(self, bases: tuple[Any, ...]) -> tuple[type, ...]:
        return (self._real,)

    def __eq__(self, other: object) -> bool:
        return other is self or other is self._real

    def __hash__(self) -> int:
        return hash(self._real)

    def __getattr__(self, name: str) -> Any:
        # Unbound methods and class methods, e.g. dict.fromkeys, str.join.
        return guarded_getattr(self._real, name)

    def __setattr__(self, name: str, value: object) -> None:
        raise ForbiddenAccess("builtin types are read-only in a black box")

    def __repr__(self) -> str:
        return f"<class {self._real.__name__!r}>"


def _iterable_args(args: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(guarded_iter(a) for a in args)


def _g_list(iterable: Iterable[Any] = (), /) -> list[Any]:
    return list(guarded_iter(iterable))


def _g_tuple(iterable: Iterable[Any] = (), /) -> tuple[Any, ...]:
    return tuple(guarded_iter(iterable))


def _g_set(iterable: Iterable[Any] = (), /) -> set[Any]:
    return set(guarded_iter(iterable))


def _g_frozenset(iterable: Iterable[Any] = (), /) -> frozenset[Any]:
    return frozenset(guarded_iter(iterable))


def _g_dict(*args: Any, **kwargs: Any) -> dict[Any, Any]:
    if len(args) > 1:
        raise TypeError(f"dict expected at most 1 argument, got {len(args)}")
    if args and not isinstance(args[0], Mapping):
        return dict(guarded_iter(args[0]), **kwargs)
    return dict(*args, **kwargs)


def _g_bytes(*args: Any) -> bytes:
    if len(args) == 1 and not isinstance(args[0], (int, str, bytes, bytearray)):
        return bytes(guarded_iter(args[0]))
    return bytes(*args)


def _g_bytearray(*args: Any) -> bytearray:
    if len(args) == 1 and not isinstance(args[0], (int, str, bytes, bytearray)):
        return bytearray(guarded_iter(args[0]))
    return bytearray(*args)


def _g_sorted(iterable: Iterable[Any], /, *, key: Any = None, reverse: bool = False) -> list[Any]:
    return sorted(guarded_iter(iterable), key=key, reverse=reverse)


def _g_reversed(seq: Any, /) -> Iterator[Any]:
    return reversed(list(guarded_iter(seq)))


def _g_zip(*iterables: Any, strict: bool = False) -> Iterator[tuple[Any, ...]]:
    return zip(*_iterable_args(iterables), strict=strict)


def _g_map(func: Callable[..., Any], *iterables: Any) -> Iterator[Any]:
    return map(func, *_iterable_args(iterables))


def _g_filter(func: Any, iterable: Iterable[Any], /) -> Iterator[Any]:
    return filter(func, guarded_iter(iterable))


def _g_enumerate(iterable: Iterable[Any], start: int = 0) -> Iterator[tuple[int, Any]]:
    return enumerate(guarded_iter(iterable), start)


def _g_sum(iterable: Iterable[Any], /, start: Any = 0) -> Any:
    return sum(guarded_iter(iterable), start)


def _g_any(iterable: Iterable[Any], /) -> bool:
    return any(guarded_iter(iterable))


def _g_all(iterable: Iterable[Any], /) -> bool:
    return all(guarded_iter(iterable))


def _minmax(func: Callable[..., Any]) -> Callable[..., Any]:
    def guarded(*args: Any, **kwargs: Any) -> Any:
        if len(args) == 1:
            return func(guarded_iter(args[0]), **kwargs)
        return func(*args, **kwargs)

    guarded.__name__ = func.__name__
    return guarded


def _g_type(obj: object, /) -> type:
    """One-argument ``type`` that never hands out a metaclass (no ``type(n, b, d)``)."""
    kind = type(obj)
    if issubclass(kind, type):
        raise ForbiddenAccess("type() of a class is not available in a black box")
    return kind


def _forbidden(name: str) -> Callable[..., Any]:
    def refuse(*args: object, **kwargs: object) -> Any:
        raise ForbiddenAccess(f"{name}() is not available in a black box")

    refuse.__name__ = name
    return refuse


def make_builtins(write_guard: WriteGuard, modules: Mapping[str, CuratedModule]) -> dict[str, Any]:
    """The whitelist a box sees as its builtins."""
    names: dict[str, Any] = {k: v for k, v in safe_builtins.items() if not k.startswith("_")}
    names["__build_class__"] = builtins.__build_class__
    names["__import__"] = make_import_guard(modules)
    for name in _FORBIDDEN_BUILTINS:
        names[name] = _forbidden(name)
    names.update(
        {
            "all": _g_all,
            "any": _g_any,
            "ascii": ascii,
            "bin": bin,
            "bytearray": _TypeProxy(bytearray, _g_bytearray),
            "bytes": _TypeProxy(bytes, _g_bytes),
            "classmethod": classmethod,
            "delattr": write_guard.delattr,
            "dict": _TypeProxy(dict, _g_dict),
            "enumerate": _g_enumerate,
            "filter": _g_filter,
            "format": format,
            "frozenset": _TypeProxy(frozenset, _g_frozenset),
            "getattr": guarded_getattr,
            "hasattr": guarded_hasattr,
            "iter": iter,
            "list": _TypeProxy(list, _g_list),
            "map": _g_map,
            "max": _minmax(max),
            "min": _minmax(min),
            "next": next,
            "object": object,
            "property": property,
            "reversed": _g_reversed,
            "set": _TypeProxy(set, _g_set),
            "setattr": write_guard.setattr,
            "sorted": _g_sorted,
            "staticmethod": staticmethod,
            "StopIteration": StopIteration,
            "sum": _g_sum,
            "tuple": _TypeProxy(tuple, _g_tuple),
            "type": _g_type,
            "zip": _g_zip,
        }
    )
    return names


def make_globals(builtins_dict: dict[str, Any], write_guard: WriteGuard) -> dict[str, Any]:
    """Fresh module globals for one box: the hooks RestrictedPython's output calls."""
    return {
        "__builtins__": builtins_dict,
        "__name__": BOX_MODULE_NAME,
        "__metaclass__": write_guard.metaclass,
        "_getattr_": guarded_getattr,
        "_getitem_": guarded_getitem,
        "_getiter_": guarded_iter,
        "_iter_unpack_sequence_": guarded_iter_unpack_sequence,
        "_unpack_sequence_": guarded_unpack_sequence,
        "_write_": write_guard,
        "_inplacevar_": inplacevar,
        "_print_": PrintCollector,
        "_apply_": apply,
    }
