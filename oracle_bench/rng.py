"""Per-item random generators derived from a hash, never from ``seed + i``."""

from __future__ import annotations

import hashlib
import json
import random

__all__ = ["rng_for", "seed_for"]


def seed_for(seed: int, *parts: str | int) -> int:
    """A 64-bit seed from a stable hash of ``(seed, *parts)``.

    Hashing the whole tuple keeps streams independent: ``(1, "a", 2)`` and
    ``(2, "a", 1)`` share nothing, unlike ``seed + i`` schemes.
    """
    payload = json.dumps([seed, *parts], separators=(",", ":"), ensure_ascii=True)
    return int.from_bytes(hashlib.sha256(payload.encode()).digest()[:8], "big")


def rng_for(seed: int, *parts: str | int) -> random.Random:
    """A private ``random.Random`` for one item; the global ``random`` is never used."""
    return random.Random(seed_for(seed, *parts))
