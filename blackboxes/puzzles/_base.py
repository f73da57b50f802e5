"""The contract of an interactive puzzle kind (ORACLE's IPI), its registry and version space.

A puzzle's rules are public and its secret is hidden: the agent sends probes, reads the
feedback, then states the answer. A :class:`PuzzleKind` holds everything about one kind of
puzzle given its JSON parameters: the finite secret set H (``answers``), the reference
feedback, its likelihood, parsing, the rules text and the baselines' probe pools and plan.

For most kinds the answer the agent states is the secret itself. Two kinds hide more than
is asked (bandit: the whole assignment of probabilities to arms, the answer is the best
arm; battleship_fleet: ships and decoy bombs, the answer is the ships): there ``solution``
maps a secret to the answer, and :class:`PuzzleSpace` reports the posterior over answers
(``solution_posterior``, ``map_solution``) besides the one over secrets.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

import numpy as np
import numpy.typing as npt

from blackboxes.families._base import t_info as _t_info
from oracle_bench.errors import FamilyError, UnknownNameError

if TYPE_CHECKING:
    from blackboxes.box import Level

__all__ = [  # noqa: RUF022 (plain sorted order, tests/test_layout.py)
    "DeterministicKind",
    "MAX_ANSWERS",
    "NoisyKind",
    "Params",
    "PuzzleError",
    "PuzzleKind",
    "PuzzleSpace",
    "get_puzzle",
    "params_key",
    "params_seed",
    "puzzle_names",
    "register_puzzle",
]

Params = Mapping[str, Any]
Codes = npt.NDArray[np.int64]
Floats = npt.NDArray[np.float64]
Index = npt.NDArray[np.intp]

MAX_ANSWERS = 300_000
"""Largest secret set a kind's parameters may give: every space is enumerated."""

PLAUSIBLE_CAP = 400
"""At most this many still-plausible answers are handed to ``candidate_probes``."""


class PuzzleError(FamilyError, ValueError):
    """A probe, an answer or parameters a puzzle refuses; one line saying what is expected."""


def params_key(params: object) -> str:
    """Canonical JSON of ``params``: the cache key of a kind's built tables."""
    if not isinstance(params, Mapping):
        raise PuzzleError(f"puzzle parameters must be a mapping, got {type(params).__name__}")
    try:
        return json.dumps(dict(params), sort_keys=True, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError, RecursionError) as err:
        raise PuzzleError(f"puzzle parameters are not plain JSON: {err}") from None


def params_seed(params: object, *parts: str) -> int:
    """A stable 64-bit seed from the parameters (Python's ``hash`` varies per process)."""
    payload = json.dumps([params_key(params), *parts])
    return int.from_bytes(hashlib.sha256(payload.encode()).digest()[:8], "big")


class PuzzleKind(ABC):
    """One kind of interactive puzzle; an instance is the kind plus its JSON parameters."""

    name: ClassVar[str]
    title: ClassVar[str]
    levels: ClassVar[tuple[Level, ...]]
    noisy: ClassVar[bool]
    shares_format: ClassVar[bool] = False
    """True when a probe is written like an answer (a guess): the candidate pools then
    include still-plausible answers, and ``solved_feedback`` is what guessing right says."""
    drawn: ClassVar[bool] = True
    """False for a kind no suite draws (a designed puzzle, which only a designer makes)."""

    # -- parameters ----------------------------------------------------------
    @abstractmethod
    def sample_params(self, rng: random.Random, level: Level) -> dict[str, Any]:
        """JSON-compatible parameters of one instance at ``level``."""

    def require_level(self, level: str) -> Level:
        """``level`` if this kind is offered at it."""
        for offered in self.levels:
            if level == offered:
                return offered
        raise PuzzleError(f"{self.name} has no level {level!r}; it offers {', '.join(self.levels)}")

    @abstractmethod
    def check_params(self, params: Params) -> None:
        """Raise PuzzleError unless ``params`` are parameters this kind can serve."""

    # -- secrets and answers -------------------------------------------------
    @abstractmethod
    def answers(self, params: Params) -> Sequence[str]:
        """H: every secret as a canonical string, in a fixed order."""

    def answer_count(self, params: Params) -> int:
        """|H| (kinds with a large H override this to avoid building the strings)."""
        return len(self.answers(params))

    def answer_at(self, params: Params, index: int) -> str:
        """The secret at ``index`` of ``answers``."""
        return self.answers(params)[index]

    def sample_answer(self, params: Params, rng: random.Random) -> str:
        """A secret drawn uniformly from H."""
        return self.answer_at(params, rng.randrange(self.answer_count(params)))

    def solution(self, params: Params, secret: str) -> str:
        """The answer the agent must state when the secret is ``secret`` (by default the
        secret itself)."""
        return secret

    def solution_classes(self, params: Params) -> tuple[Sequence[str], Index]:
        """The distinct answers, and for each secret the position of its answer among them."""
        return self.answers(params), np.arange(self.answer_count(params), dtype=np.intp)

    def solved_feedback(self, params: Params) -> str | None:
        """The feedback of a probe equal to the secret, for kinds whose probes are guesses."""
        return None

    def log2_h(self, params: Params) -> float:
        """log2 of the number of distinct answers the agent may have to state."""
        return math.log2(len(self.solution_classes(params)[0]))

    def t_info(self, params: Params) -> int:
        """ceil(log2|answers| / log2|Y|): ORACLE's lower bound on the probes needed.

        Counted over the distinct answers, not the secrets: bits about a decoy bomb or a
        losing arm's probability are not needed to answer (for the other kinds the two
        sets are one)."""
        bound = _t_info(self.log2_h(params), math.log2(self.feedback_size(params)))
        return 0 if bound is None else bound

    # -- feedback ------------------------------------------------------------
    @abstractmethod
    def feedback_size(self, params: Params) -> int:
        """|Y|: the most distinct feedback values one probe can return over H (exact)."""

    @abstractmethod
    def feedback_values(self, params: Params, probe: str) -> list[str]:
        """Every feedback string the rules allow for ``probe`` (a superset of what H gives)."""

    @abstractmethod
    def feedback(self, params: Params, secret: str, probe: str, u: float) -> str:
        """The reference feedback. ``u`` is uniform in [0, 1), drawn by the caller per probe:
        a noisy kind's only randomness; deterministic kinds ignore it."""

    @abstractmethod
    def likelihood(self, params: Params, secret: str, probe: str, feedback: str) -> float:
        """P(feedback | secret, probe)."""

    @abstractmethod
    def likelihoods(
        self, params: Params, probe: str, index: Index | None = None
    ) -> tuple[list[str], Floats]:
        """Feedback labels and the matrix P(label | secret) of shape (labels, secrets), over
        the secrets at ``index`` of H (all when None)."""

    # -- text ----------------------------------------------------------------
    @abstractmethod
    def parse_probe(self, params: Params, text: str) -> str:
        """The canonical probe; lenient about case, spaces and separators, strict about
        meaning; PuzzleError otherwise."""

    @abstractmethod
    def parse_answer(self, params: Params, text: str) -> str:
        """The canonical answer (the format of ``solution``). A well-formed answer that is
        no possible solution parses: it is a wrong answer, not an error."""

    @abstractmethod
    def rules_text(self, params: Params) -> str:
        """What the agent is told: the hidden answer, probe and feedback, noise, answer."""

    # -- baselines -----------------------------------------------------------
    @abstractmethod
    def candidate_probes(
        self,
        params: Params,
        rng: random.Random,
        limit: int,
        plausible: Sequence[str] = (),
    ) -> list[str]:
        """At most ``limit`` distinct canonical probes for a greedy search: all of them when
        few, else a sample drawn with ``rng``; ``plausible`` are still-plausible secrets
        (most probable first) that kinds may use to aim probes."""

    @abstractmethod
    def fixed_plan(self, params: Params, turns: int) -> list[str]:
        """``turns`` probes chosen without feedback (the same for every secret); the plan
        for fewer turns is a prefix of the plan for more."""

    # -- the box's code ------------------------------------------------------
    @abstractmethod
    def canonical_formats(self, params: Params) -> tuple[str, str]:
        """For the coder's spec: how the canonical secret and the canonical probe the box
        is called with are written, e.g. ("the digits, e.g. `0123`", "the digits")."""

    def measurement_triples(self, params: Params) -> list[tuple[str, str, float]]:
        """The (secret, probe, u) calls whose replies from a box's code complete the
        parameters of a puzzle only its code defines (a designed puzzle's feedback
        table); none for a kind with rules of its own."""
        return []

    def with_measurements(self, params: Params, replies: Sequence[object]) -> dict[str, Any]:
        """The parameters completed by the replies to :meth:`measurement_triples`, in
        order; PuzzleError when they make no valid puzzle."""
        return dict(params)

    def spec_params(self, params: Params) -> dict[str, Any]:
        """The parameters as the coder's spec quotes them (all of them by default; a
        designed puzzle leaves out the feedback table measured from a coder's code)."""
        return dict(params)

    def display_title(self, params: Params) -> str:
        """The puzzle's name in a box's intro (the kind's title; a designer's own)."""
        return self.title

    def noise_spec(self, params: Params) -> str:
        """For the coder's spec: the exact use of the caller's ``u`` (a noisy kind states
        its thresholds and what each range of u returns)."""
        return "The puzzle is deterministic: ignore u."

    def template_context(self, params: Params) -> dict[str, Any]:
        """The context of ``templates/code/ipi/<name>.py.j2``: the parameters, and any
        constants the kind's template takes ready-made (an alphabet, say)."""
        return dict(params)

    # -- the box's test inputs -----------------------------------------------
    def noise_cuts(self, params: Params) -> list[float]:
        """The u thresholds where the feedback may flip, computed with the same float
        operations as ``feedback`` (so that the differential test probes both sides);
        none for a deterministic kind."""
        return []

    def edge_probe_texts(self, params: Params, secret: str, rng: random.Random) -> list[str]:
        """Probe texts at the edges of ``secret``'s feedback, where an off-by-one in a
        box's code shows (the differential test's first inputs). The caller adds the
        secret itself first when ``shares_format``, and drops texts that do not parse."""
        return []

    def off_pool_probe(
        self, params: Params, rng: random.Random, secret: str | None = None
    ) -> str | None:
        """Now and then, a canonical probe that ``candidate_probes`` would never give (for
        random test queries); None to take one from the pools. The default is always None
        and draws nothing from ``rng``."""
        return None


class DeterministicKind(PuzzleKind):
    """A kind whose feedback is a function of (secret, probe): likelihoods are 0 or 1.

    Feedback values are coded as small non-negative integers, one code per label, so that
    a version space counts them with ``np.bincount``."""

    noisy: ClassVar[bool] = False

    @abstractmethod
    def feedback_all(self, params: Params, probe: str, index: Index | None = None) -> Codes:
        """The feedback code of ``probe`` for every secret at ``index`` of H (all if None)."""

    @abstractmethod
    def feedback_label(self, params: Params, probe: str, code: int) -> str:
        """The feedback string of a code returned by ``feedback_all``."""

    @abstractmethod
    def feedback_code(self, params: Params, probe: str, feedback: str) -> int | None:
        """The code of a feedback string; None if it is no feedback of ``probe``."""

    def likelihood(self, params: Params, secret: str, probe: str, feedback: str) -> float:
        return 1.0 if self.feedback(params, secret, probe, 0.0) == feedback else 0.0

    def likelihoods(
        self, params: Params, probe: str, index: Index | None = None
    ) -> tuple[list[str], Floats]:
        codes = self.feedback_all(params, probe, index)
        values, inverse = np.unique(codes, return_inverse=True)
        matrix = np.zeros((len(values), len(codes)))
        matrix[inverse, np.arange(len(codes))] = 1.0
        return [self.feedback_label(params, probe, int(c)) for c in values], matrix

    def fixed_plan(self, params: Params, turns: int) -> list[str]:
        """Greedy on the prior: each probe maximises the entropy of the joint feedback of
        the plan so far, over a fixed sample of secrets (no feedback is ever read)."""
        rng = random.Random(params_seed(params, "fixed_plan"))
        n = self.answer_count(params)
        sample = np.sort(np.array(rng.sample(range(n), min(n, 2048)), dtype=np.intp))
        classes = np.zeros(len(sample), dtype=np.int64)
        plan: list[str] = []
        for _ in range(turns):
            best, best_entropy, best_classes = "", -1.0, classes
            for probe in self.candidate_probes(params, rng, 48):
                if probe in plan:
                    continue
                codes = self.feedback_all(params, probe, sample)
                _, joint = np.unique(classes * (int(codes.max()) + 1) + codes, return_inverse=True)
                entropy = _entropy(np.bincount(joint) / len(joint))
                if entropy > best_entropy + 1e-12:
                    best, best_entropy, best_classes = probe, entropy, joint.astype(np.int64)
            if not best:  # every candidate is in the plan already: repeat the plan
                if not plan:
                    return []
                best = plan[len(plan) % len(set(plan))]
            plan.append(best)
            classes = best_classes
        return plan


class NoisyKind(PuzzleKind):
    """A kind whose feedback depends on the caller's ``u`` as well (a lying balance)."""

    noisy: ClassVar[bool] = True

    def feedback_values(self, params: Params, probe: str) -> list[str]:
        return self.likelihoods(params, probe, np.zeros(0, dtype=np.intp))[0]


# -- registry -----------------------------------------------------------------------

_K = TypeVar("_K", bound="type[PuzzleKind]")
_REGISTRY: dict[str, PuzzleKind] = {}


def register_puzzle(cls: _K) -> _K:
    """Class decorator: register one instance of a puzzle kind under ``cls.name``."""
    if cls.name in _REGISTRY:
        raise ValueError(f"puzzle kind {cls.name!r} registered twice")
    _REGISTRY[cls.name] = cls()
    return cls


def get_puzzle(name: str) -> PuzzleKind:
    """The registered puzzle kind called ``name`` (case and ``-``/``_`` insensitive)."""
    kind = _REGISTRY.get(name.strip().lower().replace("-", "_"))
    if kind is None:
        raise UnknownNameError("puzzle kind", name, puzzle_names())
    return kind


def puzzle_names(level: Level | None = None, *, designed: bool = False) -> list[str]:
    """The kinds suites draw, sorted; with ``level``, only those offered at it; with
    ``designed``, the kinds only a designer makes as well."""
    return sorted(
        n
        for n, k in _REGISTRY.items()
        if (level is None or level in k.levels) and (k.drawn or designed)
    )


# -- version space ------------------------------------------------------------------


def _entropy(probs: Floats) -> float:
    """Shannon entropy in bits of a probability vector (zeros ignored)."""
    p = probs[probs > 0]
    return float(-(p * np.log2(p)).sum())


class PuzzleSpace:
    """The posterior over H for one instance, as float64 log-weights (uniform prior).

    Immutable: ``observe`` returns a new space. A deterministic kind's weights stay 0 or
    -inf (consistent or not); a noisy kind's move by the log-likelihood of each feedback.
    The true secret is never injected: observations of the true puzzle that empty the
    space mean a kind is wrong (``log2_count() == -inf``)."""

    def __init__(
        self, kind: PuzzleKind, params: Params, log_weights: npt.ArrayLike | None = None
    ) -> None:
        kind.check_params(params)
        n = kind.answer_count(params)
        weights = np.zeros(n) if log_weights is None else np.array(log_weights, dtype=np.float64)
        if weights.shape != (n,) or np.isnan(weights).any() or np.isposinf(weights).any():
            raise PuzzleError(f"log-weights must be {n} numbers, finite or -inf")
        weights.setflags(write=False)
        self.kind = kind
        # A private copy: a caller's later change to its dict cannot move this space.
        self.params: Params = json.loads(params_key(params))
        self._log_weights = weights
        self._alive: Index = np.flatnonzero(weights > -np.inf)
        # None asks a kind for all of H: its full tables, without a gathering copy.
        self._subset: Index | None = None if len(self._alive) == n else self._alive

    @property
    def log_weights(self) -> Floats:
        """Read-only log-weights over ``kind.answers(params)``."""
        return self._log_weights

    def _posterior(self) -> Floats:
        """The normalised posterior over the secrets at ``self._alive``."""
        if len(self._alive) == 0:
            return np.zeros(0)
        logw = self._log_weights[self._alive]
        w = np.exp(logw - logw.max())
        return w / w.sum()

    def posterior(self) -> Floats:
        """The normalised posterior over all of H (zeros where inconsistent)."""
        full = np.zeros(len(self._log_weights))
        full[self._alive] = self._posterior()
        return full

    def size(self) -> int:
        """The number of secrets with nonzero weight."""
        return len(self._alive)

    def log2_count(self) -> float:
        """log2 of the number of secrets with nonzero weight (-inf when none is left)."""
        return math.log2(len(self._alive)) if len(self._alive) else -math.inf

    def entropy(self) -> float:
        """Entropy in bits of the posterior over secrets."""
        return _entropy(self._posterior())

    def _table(self, probe: str) -> tuple[list[str], Floats]:
        """Labels and P(label | secret) over the consistent secrets."""
        return self.kind.likelihoods(self.params, probe, self._subset)

    def _mass(self, kind: DeterministicKind, probe: str) -> Floats:
        """Each feedback code's predictive mass (indexed by code)."""
        codes = kind.feedback_all(self.params, probe, self._subset)
        return np.bincount(codes, weights=self._posterior()).astype(np.float64)

    def predictive(self, probe: str) -> dict[str, float]:
        """P(feedback) for ``probe`` under the posterior (only feedback with mass)."""
        if len(self._alive) == 0:
            return {}
        if isinstance(self.kind, DeterministicKind):
            mass = self._mass(self.kind, probe)
            return {
                self.kind.feedback_label(self.params, probe, int(c)): float(mass[c])
                for c in np.flatnonzero(mass)
            }
        labels, matrix = self._table(probe)
        pred = matrix @ self._posterior()
        return {label: float(p) for label, p in zip(labels, pred, strict=True) if p > 0}

    def expected_information(self, probe: str) -> float:
        """Mutual information in bits between the secret and the feedback of ``probe``:
        the predictive entropy less the expected entropy of the noise (which is zero for
        a deterministic kind)."""
        if len(self._alive) == 0:
            return 0.0
        if isinstance(self.kind, DeterministicKind):
            return _entropy(self._mass(self.kind, probe))
        _, matrix = self._table(probe)
        post = self._posterior()
        noise = -np.where(matrix > 0, matrix * np.log2(np.where(matrix > 0, matrix, 1.0)), 0.0)
        return max(0.0, _entropy(matrix @ post) - float(noise.sum(axis=0) @ post))

    def observe(self, probe: str, feedback: str) -> PuzzleSpace:
        """The space after seeing ``feedback`` for ``probe``."""
        weights = self._log_weights.copy()
        if isinstance(self.kind, DeterministicKind):
            code = self.kind.feedback_code(self.params, probe, feedback)
            if code is None:
                raise PuzzleError(f"{feedback!r} is no feedback of probe {probe!r}")
            codes = self.kind.feedback_all(self.params, probe, self._subset)
            weights[self._alive[codes != code]] = -np.inf
        else:
            labels, matrix = self._table(probe)
            if feedback not in labels:
                raise PuzzleError(f"{feedback!r} is no feedback of probe {probe!r}")
            row = matrix[labels.index(feedback)]
            with np.errstate(divide="ignore"):
                weights[self._alive] += np.log(row)
        return PuzzleSpace(self.kind, self.params, weights)

    def realised_information(self, probe: str, feedback: str) -> float:
        """Bits gained by seeing ``feedback``: the drop in log2 count for a deterministic
        kind, the drop in posterior entropy for a noisy one (which can be negative)."""
        after = self.observe(probe, feedback)
        if self.kind.noisy:
            return self.entropy() - after.entropy()
        return self.log2_count() - after.log2_count()

    def map_answer(self) -> str:
        """The most probable secret (ties: the first in answer order)."""
        if len(self._alive) == 0:
            raise PuzzleError("the version space is empty: no secret fits the feedback")
        best = self._alive[int(np.argmax(self._log_weights[self._alive]))]
        return self.kind.answer_at(self.params, int(best))

    def consistent(self) -> list[str]:
        """Every secret with nonzero weight, in answer order."""
        return [self.kind.answer_at(self.params, int(i)) for i in self._alive]

    def solution_posterior(self) -> dict[str, float]:
        """P(answer) of each answer with mass: the posterior summed over the secrets that
        share an answer (bandit: over the assignments whose best arm it is)."""
        names, classes = self.kind.solution_classes(self.params)
        mass = np.bincount(classes[self._alive], weights=self._posterior(), minlength=len(names))
        return {names[int(i)]: float(mass[i]) for i in np.flatnonzero(mass)}

    def map_solution(self) -> str:
        """The most probable answer (ties: the first in solution order)."""
        names, classes = self.kind.solution_classes(self.params)
        if len(self._alive) == 0:
            raise PuzzleError("the version space is empty: no secret fits the feedback")
        mass = np.bincount(classes[self._alive], weights=self._posterior(), minlength=len(names))
        return names[int(np.argmax(mass))]

    def plausible(self, rng: random.Random, cap: int = PLAUSIBLE_CAP) -> list[str]:
        """Up to ``cap`` secrets, most probable first, ties in an order drawn by ``rng``."""
        alive = self._alive
        # A random subset first, so that equal weights (all of a deterministic space) are
        # not always cut to the same first secrets in answer order.
        order = np.array(rng.sample(range(len(alive)), min(len(alive), 4 * cap)), dtype=np.intp)
        picked = alive[order]
        ranked = picked[np.argsort(-self._log_weights[picked], kind="stable")][:cap]
        return [self.kind.answer_at(self.params, int(i)) for i in ranked]

    def candidates(self, rng: random.Random, limit: int) -> list[str]:
        """The kind's candidate probes, aimed with this space's plausible secrets."""
        return self.kind.candidate_probes(self.params, rng, limit, self.plausible(rng))

    def greedy_probe(self, candidates: Sequence[str]) -> str:
        """The candidate of most expected information (ties: the first)."""
        if not candidates:
            raise PuzzleError("no candidate probes to choose from")
        gains = [self.expected_information(c) for c in candidates]
        return candidates[int(np.argmax(np.round(gains, 12)))]
