"""Exact version space of the frequency-dependent shift: a substitution sigma and a step b.

Letter i of a query x becomes sigma(p_i) + b * r_i, where r_i (the number of earlier
occurrences of p_i in x) depends on x alone. For a known b the cipher is therefore a
substitution followed by a known shift per position, and an observation (x, y) is the
substitution observation (x, y - b * r): this space wraps ``SubstitutionSpace``.

State: the set B of steps still possible and ONE substitution state shared by all of
them. This is exact because B is either every step or a single one:
- an observation without a repeated letter has r = 0 everywhere, so it constrains sigma
  the same way for every b (B unchanged);
- an observation with a repeated letter fixes b: consecutive occurrences j < i of one
  letter give c_i - c_j = b (mod 26), so at most one b survives.
|C| = |B| * (26 - mapped)!.

Predictive for x. Without a repeated letter the output y = sigma(x) does not depend on b:
every b has the same substitution predictive, which is the mixture. With a repeated
letter, y reveals b, so the parts are disjoint and equally weighted (each has |C| / |B|
keys): H = log2 |B| + H_substitution, and P(y) = P_sub(y - b(y) * r) / |B|.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import cached_property

from blackboxes.families.eri._alphabet import ALPHABET
from blackboxes.families.eri._spaces import EMPTY, same_shape
from blackboxes.families.eri._substitution_space import SubstitutionSpace
from blackboxes.information import ENUMERATION_LIMIT, Predictive, TablePredictive, VersionSpace

__all__ = ["FrequencyShiftSpace", "repeat_counts"]

_IDX = {ch: i for i, ch in enumerate(ALPHABET)}
STEPS = tuple(range(1, 26))


def repeat_counts(x: str) -> list[int]:
    """Per letter of ``x`` (spaces skipped): how often that letter occurred before."""
    seen: dict[str, int] = {}
    out = []
    for ch in x:
        if ch != " ":
            out.append(seen.get(ch, 0))
            seen[ch] = out[-1] + 1
    return out


def _shift(x: str, y: str, counts: Sequence[int], step: int) -> str | None:
    """``y`` with letter i moved by ``step * counts[i]`` (None if ``y`` has a non-letter)."""
    out = []
    i = 0
    for ch in y:
        if ch == " ":
            out.append(" ")
            continue
        c = _IDX.get(ch)
        if c is None:
            return None
        out.append(ALPHABET[(c + step * counts[i]) % 26])
        i += 1
    return "".join(out)


def _step_of(x: str, y: str) -> int | None:
    """The step ``y`` reveals at the first repeated letter of ``x`` (None: no repeat, bad y)."""
    last: dict[str, str] = {}
    for p_ch, c_ch in zip(x, y, strict=True):
        if p_ch == " ":
            continue
        if c_ch not in _IDX:
            return None
        if p_ch in last:
            return (_IDX[c_ch] - _IDX[last[p_ch]]) % 26
        last[p_ch] = c_ch
    return None


class _FrequencyPredictive(Predictive):
    """Disjoint, equally weighted parts (one per step) for a query with a repeated letter."""

    def __init__(self, x: str, steps: tuple[int, ...], inner: Predictive) -> None:
        self._x = x
        self._steps = steps
        self._inner = inner
        self._counts = repeat_counts(x)

    @property
    def entropy(self) -> float:
        return self._inner.entropy + math.log2(len(self._steps))

    def _out(self, z: object, step: int) -> str:
        y = _shift(self._x, str(z), self._counts, step)
        return y if y is not None else ""

    def prob(self, y: object) -> float:
        if not isinstance(y, str) or not same_shape(self._x, y):
            return 0.0
        step = _step_of(self._x, y)
        if step not in self._steps:
            return 0.0
        z = _shift(self._x, y, self._counts, -step)
        return self._inner.prob(z) / len(self._steps) if z is not None else 0.0

    def top(self, k: int) -> list[object]:
        # Every output is equally likely: steps in increasing order, each in its
        # substitution predictive's order.
        out: list[object] = []
        for step in self._steps:
            if len(out) >= k:
                break
            out.extend(self._out(z, step) for z in self._inner.top(k - len(out)))
        return out

    def support(self, limit: int = ENUMERATION_LIMIT) -> dict[str, tuple[object, float]] | None:
        inner = self._inner.support(limit // len(self._steps))
        if inner is None:
            return None
        out: dict[str, tuple[object, float]] = {}
        for step in self._steps:
            for z, p in inner.values():
                y = self._out(z, step)
                out[y] = (y, p / len(self._steps))
        return out


class FrequencyShiftSpace(VersionSpace):
    """Keys (sigma, b) consistent with the history: possible steps and sigma's partial map."""

    def __init__(
        self, steps: tuple[int, ...] = STEPS, sub: SubstitutionSpace | None = None
    ) -> None:
        self.steps = steps
        self.sub = sub if sub is not None else SubstitutionSpace()
        self._memo: dict[str, Predictive] = {}

    @cached_property
    def count(self) -> int:
        return len(self.steps) * math.factorial(26 - self.sub.mapped)

    def log2_count(self) -> float:
        return math.log2(self.count)

    def observe(self, x: object, y: object) -> VersionSpace:
        if not isinstance(x, str) or not isinstance(y, str) or not same_shape(x, y):
            return EMPTY
        if any(ch != " " and ch not in _IDX for ch in x):
            return EMPTY
        counts = repeat_counts(x)
        steps = self.steps
        z: str | None = y
        if any(counts):
            step = _step_of(x, y)
            if step not in steps:
                return EMPTY
            steps = (step,)
            z = _shift(x, y, counts, -step)
        if z is None:
            return EMPTY
        sub = self.sub.observe(x, z)
        if not isinstance(sub, SubstitutionSpace):
            return EMPTY
        return FrequencyShiftSpace(steps, sub)

    def predictive(self, x: object) -> Predictive:
        if not isinstance(x, str) or any(ch != " " and ch not in _IDX for ch in x):
            return TablePredictive({})
        cached = self._memo.get(x)
        if cached is None:
            inner = self.sub.predictive(x)
            # Without a repeated letter every step gives sigma(x): the parts coincide.
            cached = _FrequencyPredictive(x, self.steps, inner) if any(repeat_counts(x)) else inner
            self._memo[x] = cached
        return cached

    def posterior(self) -> dict[int, float]:
        """Probability of each step given the history."""
        return {b: 1 / len(self.steps) for b in self.steps}
