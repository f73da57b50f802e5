"""Values across the served-episode wire: JSON that keeps Python's types, and refuses
anything it was not built for.

An agent plays a served box from the client while its episode's protocol runs on the
server: the calls between them carry the kinds' own values (frozen dataclasses such as
briefings and observations, pydantic records, tuples, enums, the protocol's exceptions).
:func:`encode` turns them into JSON that :func:`decode` turns back into equal values of the
same types, so an agent sees exactly what it would see locally. Objects that are neither
(the DFA kind's environment) travel as handles the receiver calls back through.

Decoding never imports or builds what the sender names unless it is a dataclass, a
pydantic model, an enum or an exception class defined in one of
:data:`ALLOWED_MODULES` (or a builtin exception): a hostile peer can make a decode fail,
not run code.
"""

from __future__ import annotations

import dataclasses
import enum
import importlib
import math
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import BaseModel, ValidationError

from oracle_bench.errors import RemoteProtocolError

__all__ = ["ALLOWED_MODULES", "MAX_DEPTH", "Handle", "decode", "encode", "qualname"]

ALLOWED_MODULES = (
    "evaluator.kinds.",
    "evaluator.usage",
    "evaluator.conversation",
    "evaluator.failures",
    "blackboxes.",
    "oracle_bench.errors",
    "providers.types",
    "sandbox.results",
)
MAX_DEPTH = 64
_TAGS = ("__t", "__d", "__s", "__fs", "__e", "__dc", "__m", "__x", "__h", "__f")


@dataclasses.dataclass(frozen=True)
class Handle:
    """An object passed by reference: its id, and which names are methods or properties."""

    id: str
    methods: tuple[str, ...]
    properties: tuple[str, ...]


def qualname(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


def _allowed(module: str) -> bool:
    return any(module == p.rstrip(".") or module.startswith(p) for p in ALLOWED_MODULES)


def _resolve(name: object, want: Callable[[type], bool]) -> type:
    if not isinstance(name, str) or name.count(":") != 1:
        raise RemoteProtocolError("a wire value names no class")
    module, _, qual = name.partition(":")
    builtin_exc = module == "builtins"
    if (
        not (builtin_exc or _allowed(module))
        or not qual.replace(".", "").replace("_", "a").isalnum()
    ):
        raise RemoteProtocolError(
            f"a wire value names a class outside the allowed modules: {name[:80]}"
        )
    try:
        obj: Any = importlib.import_module(module)
        for part in qual.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError):
        raise RemoteProtocolError(f"a wire value names an unknown class: {name[:80]}") from None
    if not isinstance(obj, type) or not want(obj):
        raise RemoteProtocolError(f"a wire value names a class of the wrong sort: {name[:80]}")
    if builtin_exc and not issubclass(obj, Exception):
        # Never SystemExit, KeyboardInterrupt or GeneratorExit from a peer.
        raise RemoteProtocolError(f"only builtin exceptions may be named: {name[:80]}")
    return obj


def encode(value: Any, handles: Callable[[Any], Handle] | None = None, depth: int = 0) -> Any:
    """``value`` as JSON-able data; objects of no known sort become handles through
    ``handles`` (none given: :class:`RemoteProtocolError`)."""
    if depth > MAX_DEPTH:
        raise RemoteProtocolError("a value is nested too deeply for the wire")

    def enc(v: Any) -> Any:
        return encode(v, handles, depth + 1)

    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, int) and not isinstance(value, enum.Enum):
        return int(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else {"__f": repr(value)}
    if isinstance(value, enum.Enum):
        return {"__e": qualname(type(value)), "v": enc(value.value)}
    if isinstance(value, list):
        return [enc(v) for v in value]
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        return {"__t": [enc(v) for v in value]}
    if isinstance(value, frozenset | set):
        items = sorted((enc(v) for v in value), key=repr)
        return {"__fs" if isinstance(value, frozenset) else "__s": items}
    if isinstance(value, Mapping) and not isinstance(value, BaseModel):
        if all(isinstance(k, str) and k not in _TAGS for k in value):
            return {k: enc(v) for k, v in value.items()}
        return {"__d": [[enc(k), enc(v)] for k, v in value.items()]}
    if isinstance(value, Handle):
        return {"__h": value.id, "m": list(value.methods), "p": list(value.properties)}
    if isinstance(value, BaseModel):
        return {"__m": qualname(type(value)), "j": value.model_dump_json()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: enc(getattr(value, f.name)) for f in dataclasses.fields(value) if f.init}
        return {"__dc": qualname(type(value)), "f": fields}
    if isinstance(value, BaseException):
        return {"__x": qualname(type(value)), "a": [enc(a) for a in value.args], "s": str(value)}
    if handles is not None:
        return encode(handles(value), None, depth + 1)
    raise RemoteProtocolError(f"a {type(value).__name__} cannot cross the wire")


def decode(data: Any, depth: int = 0) -> Any:
    """The value :func:`encode` made ``data`` from (handles stay :class:`Handle` values)."""
    if depth > MAX_DEPTH:
        raise RemoteProtocolError("a wire value is nested too deeply")

    def dec(v: Any) -> Any:
        return decode(v, depth + 1)

    if data is None or isinstance(data, bool | int | str):
        return data
    if isinstance(data, float):
        return data
    if isinstance(data, list):
        return [dec(v) for v in data]
    if not isinstance(data, dict):
        raise RemoteProtocolError(f"a wire value of type {type(data).__name__}")
    tag = next((t for t in _TAGS if t in data), None)
    try:
        if tag is None:
            return {k: dec(v) for k, v in data.items()}
        body = data[tag]
        if tag == "__t":
            return tuple(dec(v) for v in _list(body))
        if tag == "__s":
            return {dec(v) for v in _list(body)}
        if tag == "__fs":
            return frozenset(dec(v) for v in _list(body))
        if tag == "__d":
            return {_hashable(dec(_pair(p)[0])): dec(_pair(p)[1]) for p in _list(body)}
        if tag == "__f":
            if body not in ("nan", "inf", "-inf"):
                raise RemoteProtocolError("a wire float that is not nan or inf")
            return float(body)
        if tag == "__e":
            cls = _resolve(body, lambda c: issubclass(c, enum.Enum))
            return cls(dec(data.get("v")))
        if tag == "__m":
            model = _resolve(body, lambda c: issubclass(c, BaseModel))
            text = data.get("j")
            if not isinstance(text, str):
                raise RemoteProtocolError("a wire model without its JSON")
            return model.model_validate_json(text)  # type: ignore[attr-defined]
        if tag == "__dc":
            cls = _resolve(body, dataclasses.is_dataclass)
            fields = data.get("f")
            if not isinstance(fields, dict):
                raise RemoteProtocolError("a wire dataclass without its fields")
            return cls(**{str(k): dec(v) for k, v in fields.items()})
        if tag == "__x":
            exc_cls = _resolve(body, lambda c: issubclass(c, BaseException))
            args = [dec(a) for a in _list(data.get("a", []))]
            try:
                return exc_cls(*args)
            except Exception:
                return exc_cls(str(data.get("s", "")))
        if tag == "__h":
            methods = tuple(str(m) for m in _list(data.get("m", [])))
            properties = tuple(str(p) for p in _list(data.get("p", [])))
            return Handle(str(body), methods, properties)
    except RemoteProtocolError:
        raise
    except (TypeError, ValueError, ValidationError, RecursionError) as exc:
        raise RemoteProtocolError(f"a wire value does not decode: {str(exc)[:200]}") from None
    raise RemoteProtocolError("unreachable wire tag")  # pragma: no cover


def _list(value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise RemoteProtocolError("a wire value where a list belongs")
    return value


def _pair(value: Any) -> list[Any]:
    if not isinstance(value, list) or len(value) != 2:
        raise RemoteProtocolError("a wire mapping entry that is not a pair")
    return value


def _hashable(key: Any) -> Any:
    try:
        hash(key)
    except TypeError:
        raise RemoteProtocolError("a wire mapping key that is not hashable") from None
    return key
