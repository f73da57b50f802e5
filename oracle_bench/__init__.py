"""oracle-bench: shared base of the project (version, errors, deterministic helpers).

This is the one small package every layer may import; it imports none of them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from oracle_bench._lazy import lazy_exports
from oracle_bench._version import __version__

if TYPE_CHECKING:
    from oracle_bench.bounded import (
        BoundsError,
        Limits,
        check_text,
        check_value,
        decode_json,
        load_json,
        preview,
        recordable,
        recordable_text,
    )
    from oracle_bench.errors import OracleBenchError
    from oracle_bench.jsonio import atomic_write_text, canonical_json, sha256_hex
    from oracle_bench.rng import rng_for, seed_for
else:
    __getattr__, __dir__ = lazy_exports(
        __name__,
        {
            "oracle_bench.bounded": (
                "BoundsError",
                "Limits",
                "check_text",
                "check_value",
                "decode_json",
                "load_json",
                "preview",
                "recordable",
                "recordable_text",
            ),
            "oracle_bench.errors": ("OracleBenchError",),
            "oracle_bench.jsonio": ("atomic_write_text", "canonical_json", "sha256_hex"),
            "oracle_bench.rng": ("rng_for", "seed_for"),
        },
    )

__all__ = [
    "BoundsError",
    "Limits",
    "OracleBenchError",
    "__version__",
    "atomic_write_text",
    "canonical_json",
    "check_text",
    "check_value",
    "decode_json",
    "load_json",
    "preview",
    "recordable",
    "recordable_text",
    "rng_for",
    "seed_for",
    "sha256_hex",
]
