"""How far a PSI box's code strays from its kind's trusted reference.

The box code is rendered from the kind's template and run in this process with
``round`` made the identity, so the deviation is the computation's own error before the
2-decimal rounding of the output (which adds at most half an output unit on top).
"""

from __future__ import annotations

import builtins
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from blackboxes.families import get_family
from blackboxes.families.psi import T_MAX
from blackboxes.families.psi._kinds import KINDS
from oracle_bench.rng import rng_for
from templates import render

__all__ = ["DIFF_TOL", "box_deviation", "unrounded_blackbox"]

DIFF_TOL = 0.002
"""Metres: the largest allowed gap between box code (before rounding) and reference, a
tenth of the answer's absolute tolerance (0.02 m)."""

FAMILY = get_family("PSI")


def _identity(value: float, digits: int | None = None) -> float:
    return value


def unrounded_blackbox(code: str) -> Callable[[float], dict[str, list[float]]]:
    """``blackbox`` of trusted, generated box code, with ``round`` a no-op."""
    names: dict[str, Any] = dict(vars(builtins))
    names["round"] = _identity
    env: dict[str, Any] = {"__builtins__": names, "__name__": "box"}
    exec(compile(code, "<box>", "exec"), env)  # our own rendered template, trusted
    return env["blackbox"]


def box_deviation(name: str, boxes: int, times: int, seed: int = 0) -> tuple[float, str]:
    """The largest |box - reference| (m) over ``boxes`` random rules of kind ``name`` at
    ``times`` uniform random times each in [0, T_MAX] (plus both ends), and where."""
    kind = KINDS[name]
    worst, where = 0.0, ""
    for b in range(boxes):
        rng = rng_for(seed, "differential", name, b)
        rule = FAMILY.sample_rule(rng, kind.level, name)
        template, context = FAMILY.code_template(rule)
        box = unrounded_blackbox(render(template, **context))
        ts: Sequence[float] = [0.0, T_MAX, *(rng.uniform(0.0, T_MAX) for _ in range(times))]
        params = {k: float(v) for k, v in rule.params.items()}
        expected = kind.reference(params, np.array(ts))
        names = sorted(context["objects"])
        got = np.array([[box(t)[o] for o in names] for t in ts], dtype=float)
        gap = np.abs(got - expected)
        gap = np.where(np.isnan(gap), math.inf, gap)
        i = int(np.argmax(gap.max(axis=(1, 2))))
        if float(gap[i].max()) > worst or not where:
            worst = max(worst, float(gap[i].max()))
            where = f"params={rule.params} t={ts[i]:.6f}"
    return worst, where
