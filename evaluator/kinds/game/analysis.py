"""A game trajectory (GSI) as the kind-independent :class:`EpisodeAnalysis`, and the
information its exploration gathered.

Steps are the rounds of the exploration games, setting after setting, game after game
(each step's ``note`` says where it was played); evaluation games are answers, one per
setting, scored on the scale of the record (best evaluation score over the optimum).

Information (:func:`game_information`) is measured, like the turn@shot kind's, over the
version space of the box's own strategy kind (:func:`blackboxes.games.version_space`,
uniform over the kind's parameters, enumerated at the first setting; parameters keep
their meaning across settings): a researcher's view, never the agents' (whose prior,
``GsiFamily.agent_space``, mixes every kind of the level). Every exploration round is
scored before its game is observed: the posterior predictive of the opponent's move
given the exploration games already observed and the rounds of the current game so far;
its entropy is the round's expected bits and ``-log2 P(observed move)`` its realised
bits. A finished exploration game is observed into the space, whatever the setting
(under ``context="reset"`` an agent forgets between settings, the measure does not);
evaluation games are never observed, so the information is the exploration's alone.

For a deterministic kind the space is a consistent set: a round's bits are the drop in
log2 of the consistent parameters, ``log2_consistent`` is that log2 count after the
round, the bits of an episode sum to at most log2|H|, and the measure is exact. For a
mixed (randomising) kind the space is a probabilistic model, posterior weights over the
parameters: ``-log2 P`` then also counts the opponent's own chance, so the bits are
surprisal rather than information about the strategy and may sum past log2|H|;
``log2_consistent`` is the posterior's entropy (log2 of its effective size) and
``info_exact`` is False.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from blackboxes.games import (
    ExplicitSpace,
    Game,
    GameError,
    StrategySpace,
    get_game,
    get_strategy,
    version_space,
)
from blackboxes.information import entropy_bits
from evaluator.analysis import AnswerView, EpisodeAnalysis, StepView, record_identity
from evaluator.kinds.game.trajectory import GameRoundRecord, GameTrajectory, SettingRecord
from oracle_bench.errors import UnknownNameError

__all__ = [
    "INVALID_KEY",
    "GameInformation",
    "RoundInformation",
    "analyse_game",
    "game_information",
    "round_key",
]

INVALID_KEY = "<invalid>"
"""The action part of the key of a reply that did not parse."""


def round_key(game: int, action: str | None) -> str:
    """``g<exploration game>:<action>``, the game counted over the whole episode from 0
    (``<invalid>`` for a reply that did not parse)."""
    return f"g{game}:{INVALID_KEY if action is None else action}"


@dataclass(frozen=True)
class RoundInformation:
    """Information of one exploration round, in bits (None: not measurable)."""

    expected: float | None
    realised: float | None
    log2_consistent: float | None


@dataclass(frozen=True)
class GameInformation:
    rounds: tuple[RoundInformation, ...]
    """One per exploration round of the record, in order."""
    log2_h: float
    """log2 of the kind's prior space (as the space counts it)."""
    exact: bool
    """False for a mixed kind (see the module's docstring)."""
    consistent: bool
    """False when an observed move was impossible under the space (a box or space bug)."""

    @property
    def realised_total(self) -> float | None:
        if not self.consistent:
            return None
        return sum(r.realised for r in self.rounds if r.realised is not None)


def _log2(p: Fraction) -> float:
    # Exact integers keep a tiny probability from underflowing a float.
    return math.log2(p.numerator) - math.log2(p.denominator)


def _spread(space: StrategySpace, mixed: bool) -> float | None:
    if mixed and isinstance(space, ExplicitSpace):
        return space.entropy_bits() if space.weights else None
    value = space.log2_count()
    return value if math.isfinite(value) else None


def _prior(traj: GameTrajectory) -> tuple[Game, StrategySpace, bool] | None:
    if traj.log2_h is None or not traj.settings_played:
        # A designed opponent (a machine) has no kind space to measure in.
        return None
    _, _, name = traj.rule_kind.partition("/")
    try:
        game = get_game(traj.game)
        strategy = get_strategy(name)
        space = version_space(game, strategy, game.settings(traj.settings_played[0].settings))
    except (UnknownNameError, GameError):
        return None
    return game, space, strategy.mixed


def _exploration(traj: GameTrajectory) -> list[tuple[SettingRecord, int, list[GameRoundRecord]]]:
    return [
        (s, g, list(played.rounds))
        for s in traj.settings_played
        for g, played in enumerate(s.exploration)
    ]


def game_information(traj: GameTrajectory) -> GameInformation | None:
    """Per exploration round, the expected and realised information over the box's own
    strategy kind (see the module's docstring); None when the record's kind has no space
    (a designed opponent, an unknown game or kind). A pure function of the record."""
    found = _prior(traj)
    if found is None:
        return None
    _, space, mixed = found
    log2_h = _spread(space, mixed)
    rows: list[RoundInformation] = []
    consistent = True
    for setting, _, rounds in _exploration(traj):
        settings = setting.settings
        history: list[tuple[str, str]] = []
        for r in rounds:
            pred = space.predictive(settings, tuple(history)) if consistent else {}
            p = pred.get(r.opponent, Fraction(0))
            if not p:
                consistent = False
                rows.append(RoundInformation(None, None, None))
                continue
            history.append((r.action, r.opponent))
            after = space.observe(settings, tuple(history))
            rows.append(
                RoundInformation(
                    expected=entropy_bits(float(q) for q in pred.values()),
                    realised=-_log2(p),
                    log2_consistent=_spread(after, mixed),
                )
            )
        if consistent:
            space = space.observe(settings, tuple(history))
    return GameInformation(
        rounds=tuple(rows),
        log2_h=log2_h if log2_h is not None else -math.inf,
        exact=not mixed,
        consistent=consistent,
    )


def _answer(s: SettingRecord) -> AnswerView:
    scores = ", ".join(str(g.score) for g in s.evaluation)
    return AnswerView(
        label=f"setting {s.index + 1}",
        given=f"best {s.best} (games: {scores})" if s.evaluation else "no evaluation game",
        expected=f"optimum {float(s.optimum):.4g}",
        correct=None,
        score=s.normalised,
        attempts=len(s.evaluation),
    )


def analyse_game(traj: GameTrajectory, kind_name: str = "game") -> EpisodeAnalysis:
    """``traj`` as an :class:`EpisodeAnalysis`: a pure function of the record and the
    game's trusted strategy spaces."""
    info = game_information(traj)
    steps: list[StepView] = []
    keys: list[str] = []
    for number, (setting, g, rounds) in enumerate(_exploration(traj)):
        for r in rounds:
            row = info.rounds[len(steps)] if info is not None else None
            note = f"setting {setting.index + 1}, exploration game {g + 1}, round {r.round}"
            if r.error is not None:
                note += f"; invalid reply ({r.error}): played {r.action}"
            steps.append(
                StepView(
                    index=len(steps) + 1,
                    action=f"play {r.action}",
                    result=f"opponent {r.opponent}, {r.points} point(s)",
                    valid=r.error is None,
                    bits=None if row is None else row.realised,
                    expected_bits=None if row is None else row.expected,
                    log2_consistent=None if row is None else row.log2_consistent,
                    note=note,
                )
            )
            keys.append(round_key(number, r.action if r.error is None else None))
    info_total = None
    if info is not None and info.consistent:
        info_total = sum(s.bits for s in steps if s.bits is not None)
    try:
        game: Game | None = get_game(traj.game)
    except UnknownNameError:
        game = None
    rounds_each = [
        game.rounds(game.settings(s.settings)) if game else 0 for s in traj.settings_played
    ]
    metrics: dict[str, float | None] = {
        "exploration_games": float(traj.queries_used),
        "exploration_rounds": float(len(steps)),
        "invalid_rounds": float(traj.invalid_rounds),
        "log2_consistent_final": (
            steps[-1].log2_consistent if steps and info is not None else None
        ),
    }
    context = "" if traj.context == "reset" else f" {traj.context}"
    return EpisodeAnalysis(
        **record_identity(traj),
        kind=kind_name,
        setting=f"{traj.turns}@{traj.shots}{context}",
        budget=traj.turns * sum(rounds_each) if game is not None else None,
        score=traj.score,
        log2_h=traj.log2_h,
        info_total=info_total,
        info_exact=info.exact if info is not None else True,
        query_keys=keys,
        steps=steps,
        answers=[_answer(s) for s in traj.settings_played],
        intro=traj.intro,
        metrics=metrics,
    )
