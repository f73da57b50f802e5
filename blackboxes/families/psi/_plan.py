"""PSI's fixed plan: times that spread over the domain, each prefix as evenly as it can.

The plan is the van der Corput order of [0, T_MAX] on the query grid: 10, 5, 15, 2.5,
12.5, 7.5, 17.5, ... s, so one query sits mid-domain and each further one halves the
widest gap. With one answer of a hard system, a mid-domain time predicts the held-out
times best (0.28 of them at hard 1@1 against 0.21 for a random time and 0.10 for the
time of most prior entropy, 1.6 s, on 30 boxes): the coarse grids' prior entropy is
saturated (every grid point answers differently at almost every time), so it cannot
rank times before the first answer.
"""

from __future__ import annotations

from functools import lru_cache

from blackboxes.families.psi._kind import T_MAX, T_STEP, TIMES

__all__ = ["spread_times"]


@lru_cache(maxsize=16)
def spread_times(steps: int) -> tuple[float, ...]:
    """The first ``steps`` times (at most 201) of the van der Corput order."""
    wanted = min(steps, len(TIMES))
    out: list[float] = []
    seen: set[int] = set()
    i = 1
    while len(out) < wanted:
        x, half, k = 0.0, 0.5, i
        while k:  # the bits of i, mirrored after the binary point
            x += half * (k & 1)
            k >>= 1
            half /= 2
        j = round(x * T_MAX / T_STEP)
        if j not in seen:
            seen.add(j)
            out.append(TIMES[j])
        i += 1
        if i > 1 << 16:  # every grid time is reached long before this
            out.extend(TIMES[j] for j in range(len(TIMES)) if j not in seen)
            break
    return tuple(out[:wanted])
