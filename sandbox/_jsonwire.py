"""Strict JSON for the wire without the per-call set-up of ``json.dumps``/``json.loads``.

``json.dumps`` with options builds a ``JSONEncoder`` (and in it a C encoder) on every
call, and ``json.loads`` with a hook a ``JSONDecoder`` and its C scanner: on a short line
that set-up and the Python frames around it cost more than the JSON itself. Here the C
encoder is made directly (one per call: its circular-reference markers must start
empty) and the decoder's scanner is called directly. Outputs, and the inputs refused,
are exactly those of ``json.dumps(obj, allow_nan=False, separators=(",", ":"))`` and
``json.loads(data, parse_constant=...)``. Imported by the worker: standard library only.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from json import encoder as _encoder
from typing import Any

_ENCODER = json.JSONEncoder(allow_nan=False, separators=(",", ":"), ensure_ascii=True)
_encode_str = _encoder.encode_basestring_ascii
_PROBE = [{"a": [1, -0.0, 2.5e300, None, True]}, "é\ud83d\ude00\x00", {"1": {}}, 10**30]
_PROBE_JSON = (
    '[{"a":[1,-0.0,2.5e+300,null,true]},"\\u00e9\\ud83d\\ude00\\u0000",{"1":{}},'
    + "1"
    + "0" * 30
    + "]"
)


def _c_encoder() -> Callable[[Any], str] | None:
    """What ``JSONEncoder.encode`` runs for a non-string, without building an encoder;
    None unless this interpreter's C encoder (an internal) takes these arguments and
    encodes a probe as ``JSONEncoder.encode`` does."""
    make = getattr(_encoder, "c_make_encoder", None)
    if make is None:
        return None
    default = _ENCODER.default

    def encode(obj: Any) -> str:  # stands where JSONEncoder.encode stood
        return "".join(one_shot(obj))

    def one_shot(obj: Any) -> Any:  # where JSONEncoder.iterencode stood
        return make({}, default, _encode_str, None, ":", ",", False, False, False)(obj, 0)

    try:
        agrees = encode(_PROBE) == _PROBE_JSON
    except Exception:
        agrees = False
    return encode if agrees else None


_encode = _c_encoder() or _ENCODER.encode


def dumps_str(obj: Any) -> str:
    """``json.dumps(obj, allow_nan=False, separators=(",", ":"))``: compact, ASCII-only."""
    # Stands where json.dumps stood. The recursion limit counts Python frames, so the C
    # encoder is reached as many frames down as before (dumps, encode, iterencode): a
    # value nested right at the limit is encoded, or refused, exactly as it was.
    if isinstance(obj, str):
        return _encode_str(obj)
    return _encode(obj)


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"non-finite number {name} in JSON")


_DECODER = json.JSONDecoder(parse_constant=_refuse_constant)
_scan: Callable[[str, int], tuple[Any, int]] = _DECODER.scan_once  # type: ignore[attr-defined]
_NOT_WHOLE = object()


def loads(data: bytes | str) -> Any:
    """``json.loads(data)`` with NaN and Infinity refused (a ``ValueError``).

    Called at a shallow stack depth (the worker's call loop, the parent): at the
    recursion limit itself it may fail in another frame than ``json.loads`` would.
    """
    if isinstance(data, str):
        if data.startswith("\ufeff"):
            raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", data, 0)
        return _loads_text(data)
    # json.detect_encoding answers utf-8 for whatever opens with '{"' (no BOM, no NUL).
    encoding = "utf-8" if data.startswith(b'{"') else json.detect_encoding(data)
    return _loads_text(data.decode(encoding, "surrogatepass"))


# As in dumps_str, the scanner is reached as many frames down as json.loads reached it
# (loads, JSONDecoder.decode, raw_decode), and so is the decoder when it is needed.


def _loads_text(text: str) -> Any:  # stands where json.loads stood
    value = _scan_whole(text)
    if value is _NOT_WHOLE:
        # Leading or trailing whitespace, or no JSON document: the decoder's own verdict.
        return _DECODER.decode(text)
    return value


def _scan_whole(text: str) -> Any:  # where JSONDecoder.decode stood
    return _scan_from_start(text)


def _scan_from_start(text: str) -> Any:  # where JSONDecoder.raw_decode stood
    try:
        value, end = _scan(text, 0)
    except StopIteration:
        return _NOT_WHOLE
    return value if end == len(text) else _NOT_WHOLE
