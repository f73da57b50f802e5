"""Exact word counts on a product automaton, as big integers split into numpy limbs.

A counting step is ``v'[i] = sum over letters a of v[succ[a][i]]``: only additions, so a
count can be kept as ``sum_j limb[j] << (bits * j)`` with every limb taking the same step
on its own. Limbs are ``uint64`` and are normalised (carries moved up) only when the next
step could overflow, so between normalisations a step is one ``take`` per letter over the
live limbs, and the number of live limbs grows with the counts (one per ``bits`` bits),
not with the number of states or the horizon. The integers are exactly those of a
Python-int DP (tests/blackboxes/automata/test_limbs.py keeps one as the reference).
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

__all__ = ["counts_at"]

_TOP = (1 << 64) - 1
"""The largest value a limb can hold."""


def _payload_bits(k: int) -> int:
    """Bits a limb keeps after normalising; the rest is headroom for at least one step of
    ``k`` additions (several for small alphabets, so normalising stays rare)."""
    return min(56, 62 - k.bit_length())


def counts_at(
    succ: npt.NDArray[np.intp], init: npt.NDArray[np.bool_], steps: int, start: int
) -> list[int]:
    """``out[m] = v_m[start]`` for m = 0..steps, where ``v_0 = init`` and
    ``v_m[i] = sum_a v_{m-1}[succ[a][i]]``: the number of words of length m leading from
    ``start`` to a state where ``init`` is set, exactly."""
    k, n = succ.shape
    bits = _payload_bits(k)
    mask = np.uint64((1 << bits) - 1)
    shift = np.uint64(bits)
    # v_m <= k^m, so this many limbs hold any count once normalised, plus one spare
    # row for the carry out of the top limb.
    rows = math.ceil((steps * math.log2(max(k, 2)) + 2) / bits) + 2
    offsets = np.arange(rows, dtype=np.intp)[:, None] * n
    index = [(offsets + succ[a][None, :]).reshape(-1) for a in range(k)]
    by_live: dict[int, list[npt.NDArray[np.intp]]] = {}
    cur = np.zeros((rows, n), dtype=np.uint64)
    nxt = np.zeros((rows, n), dtype=np.uint64)
    cur_flat, nxt_flat = cur.reshape(-1), nxt.reshape(-1)
    cur[0] = init
    live = 1  # rows of cur in use; the others are zero
    bound = 1  # every live limb is <= bound
    history = [[int(cur[0, start])]]  # the start's limbs after each step
    for _ in range(steps):
        if bound * k > _TOP:
            live = _normalise(cur, live, mask, shift)
            bound = int(mask)
        take = by_live.get(live)
        if take is None:
            take = by_live[live] = [ix[: live * n] for ix in index]
        dst = nxt_flat[: live * n]
        cur_flat.take(take[0], out=dst, mode="clip")  # indices are in range: no check
        for ix in take[1:]:
            dst += cur_flat.take(ix, mode="clip")
        cur, nxt = nxt, cur
        cur_flat, nxt_flat = nxt_flat, cur_flat
        bound *= k
        history.append(cur[:live, start].tolist())
    out = []
    for limbs in history:
        value = 0
        for limb in reversed(limbs):
            value = (value << bits) + limb
        out.append(value)
    return out


def _normalise(limbs: npt.NDArray[np.uint64], live: int, mask: np.uint64, shift: np.uint64) -> int:
    """Move carries up in place so every limb is <= ``mask``; returns the new live count
    (one more when a carry leaves the top limb)."""
    for j in range(live):
        carry = limbs[j] >> shift
        limbs[j] &= mask
        limbs[j + 1] += carry
    return live + 1 if limbs[live].any() else live
