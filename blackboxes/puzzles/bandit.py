"""A multi-armed bandit: known success rates, hidden which arm has which; find the best."""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import numpy.typing as npt

from blackboxes.puzzles._base import (
    Floats,
    Index,
    NoisyKind,
    Params,
    PuzzleError,
    params_key,
    register_puzzle,
)
from blackboxes.puzzles._params import require_int_list, require_keys
from blackboxes.puzzles._text import bounded, single_int

if TYPE_CHECKING:
    from blackboxes.box import Level

__all__ = ["Bandit"]

_LABELS = ("0", "1")
_FILLERS = frozenset({"arm", "pull", "the", "best", "is", "it", "#", ".", "(", ")", "[", "]", ":"})


@dataclass(frozen=True)
class _Model:
    percents: tuple[int, ...]
    """The known success rates in percent, highest first (one per arm)."""

    @property
    def arms(self) -> int:
        return len(self.percents)

    @cached_property
    def table(self) -> npt.NDArray[np.int64]:
        """Row h: the success percent of each arm under secret h (distinct assignments of
        the rates to the arms, in lexicographic order)."""
        rows = sorted(set(itertools.permutations(self.percents)))
        return np.array(rows, dtype=np.int64)

    @cached_property
    def answers(self) -> list[str]:
        return [",".join(map(str, row)) for row in self.table.tolist()]

    @cached_property
    def best(self) -> npt.NDArray[np.intp]:
        return np.argmax(self.table, axis=1).astype(np.intp)


@register_puzzle
class Bandit(NoisyKind):
    """k arms with a known multiset of success rates, assigned by a hidden permutation; a
    probe pulls one arm (1 = success, drawn from ``u``); the answer is the best arm.

    The secrets are the distinct assignments; the answer is only their best arm, so a
    :class:`PuzzleSpace`'s ``solution_posterior`` (P(best arm)) is what a player answers
    from, and ``t_info`` counts the k arms, not the assignments."""

    name: ClassVar[str] = "bandit"
    title: ClassVar[str] = "Multi-armed bandit"
    levels: ClassVar[tuple[Level, ...]] = ("easy", "hard")

    def sample_params(self, rng: random.Random, level: Level) -> dict[str, Any]:
        if self.require_level(level) == "easy":
            best = rng.randrange(60, 86, 5)
            second = rng.randrange(15, best - 25, 5)
            third = rng.randrange(5, second, 5)
            return {"percents": [best, second, third]}
        arms = rng.choice([4, 5])
        best = rng.randrange(40, 66, 5)
        rest = [best - rng.choice([5, 10])]
        rest += [rng.randrange(10, rest[0] + 1, 5) for _ in range(arms - 2)]
        return {"percents": [best, *sorted(rest, reverse=True)]}

    def _model(self, params: Params) -> _Model:
        return _build(self, params_key(params))

    def validate(self, params: Params) -> _Model:
        require_keys(self.name, params, ("percents",))
        percents = require_int_list(self.name, params, "percents", 1, 99, (2, 6))
        if percents != sorted(percents, reverse=True) or percents[0] == percents[1]:
            raise PuzzleError(
                f"{self.name} parameter 'percents' must be highest first, with one best arm"
            )
        return _Model(tuple(percents))

    def check_params(self, params: Params) -> None:
        self._model(params)

    def answers(self, params: Params) -> Sequence[str]:
        return self._model(params).answers

    def solution(self, params: Params, secret: str) -> str:
        m = self._model(params)
        if secret not in m.answers:
            raise PuzzleError(f"{secret!r} is no assignment of {list(m.percents)} to arms")
        return f"arm {int(m.best[m.answers.index(secret)]) + 1}"

    def solution_classes(self, params: Params) -> tuple[Sequence[str], Index]:
        m = self._model(params)
        return [f"arm {a}" for a in range(1, m.arms + 1)], m.best

    def feedback_size(self, params: Params) -> int:
        self._model(params)
        return 2  # every rate is strictly between 0% and 100%

    def _arm(self, params: Params, text: str, what: str) -> int:
        arms = self._model(params).arms
        text = bounded(text, what)
        return single_int(text, 1, arms, f"an arm number from 1-{arms}, e.g. arm 2", _FILLERS)

    def parse_probe(self, params: Params, text: str) -> str:
        return f"arm {self._arm(params, text, 'a probe')}"

    def parse_answer(self, params: Params, text: str) -> str:
        return f"arm {self._arm(params, text, 'an answer')}"

    def _rate(self, params: Params, secret: str, probe: str) -> float:
        m = self._model(params)
        if secret not in m.answers:
            raise PuzzleError(f"{secret!r} is no assignment of {list(m.percents)} to arms")
        arm = self._arm(params, probe, "a probe")
        return int(secret.split(",")[arm - 1]) / 100

    def feedback(self, params: Params, secret: str, probe: str, u: float) -> str:
        if not 0.0 <= u < 1.0:
            raise PuzzleError(f"u must be in [0, 1), got {u!r}")
        return "1" if u < self._rate(params, secret, probe) else "0"

    def likelihood(self, params: Params, secret: str, probe: str, feedback: str) -> float:
        rate = self._rate(params, secret, probe)
        return rate if feedback == "1" else 1.0 - rate if feedback == "0" else 0.0

    def likelihoods(
        self, params: Params, probe: str, index: Index | None = None
    ) -> tuple[list[str], Floats]:
        m = self._model(params)
        arm = self._arm(params, probe, "a probe")
        table = m.table if index is None else m.table[index]
        rate = table[:, arm - 1] / 100
        return list(_LABELS), np.stack([1.0 - rate, rate])

    def rules_text(self, params: Params) -> str:
        m = self._model(params)
        rates = ", ".join(f"{p}%" for p in m.percents)
        return (
            f"A slot machine has {m.arms} arms, numbered 1-{m.arms}. Their chances of paying"
            f" out are {rates}, one chance per arm, but which arm has which is hidden (each"
            " assignment equally likely). The hidden answer is the arm with the highest"
            f" chance ({m.percents[0]}%).\n"
            f"Probe: pull one arm, e.g. `arm 2`.\n"
            "Feedback: `1` if it paid out, `0` if not.\n"
            "Noise: every pull is a fresh random draw: the arm pays out with its own chance,"
            " independently of earlier pulls.\n"
            "Answer: the best arm, e.g. `arm 2`."
        )

    def candidate_probes(
        self, params: Params, rng: random.Random, limit: int, plausible: Sequence[str] = ()
    ) -> list[str]:
        return [f"arm {a}" for a in range(1, self._model(params).arms + 1)][:limit]

    def fixed_plan(self, params: Params, turns: int) -> list[str]:
        """Every arm in turn, round after round."""
        arms = self._model(params).arms
        return [f"arm {t % arms + 1}" for t in range(turns)]

    def canonical_formats(self, params: Params) -> tuple[str, str]:
        return (
            "the arms' success percents in arm order, comma separated, e.g. `20,70,10`",
            "`arm <k>`, e.g. `arm 2`",
        )

    def noise_spec(self, params: Params) -> str:
        return "Return `1` if u < (the probed arm's percent) / 100, else `0`."

    def noise_cuts(self, params: Params) -> list[float]:
        # The same float operations as ``feedback``: each arm's percent / 100.
        return [p / 100 for p in self._model(params).percents]

    def edge_probe_texts(self, params: Params, secret: str, rng: random.Random) -> list[str]:
        return [f"arm {a}" for a in range(1, self._model(params).arms + 1)]


@lru_cache(maxsize=32)
def _build(kind: Bandit, key: str) -> _Model:
    return kind.validate(json.loads(key))
