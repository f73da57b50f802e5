"""One game episode (GSI, DESIGN.md "Episode kinds"): a known game against a hidden,
fixed opponent strategy, over the K settings of one box (game lengths, deck sizes).

For each setting the agent plays T exploration games (``T@shot``: one turn is one whole
game), then ``shot`` evaluation games; the setting's score is the best evaluation game's
points over the exact optimum, the expected score of a best response to the true
strategy (computed by the dynamic programme of :mod:`blackboxes.games`, never listed),
clipped to [0, 1]. The episode's score is the mean over the settings. Beside the optimum
the record keeps the security value (the best score guaranteed without knowing the
opponent) and uniform random play's expected score, so "learned nothing" is visible.

Each round the agent names its action; an invalid reply plays the game's first legal
action instead (and says so), so the opponent always sees a move. The opponent's move
comes from the box's code in its sandbox worker (``blackbox(settings, history, u)``,
with round t's uniform ``u`` from ``rng_for(test_seed, "noise", k, phase, game, t)``);
a move that is not a legal opponent action is a box fault. Replies are hostile: text
over the limits of :mod:`oracle_bench.bounded` is an invalid reply with the reason.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import Any, Literal, Protocol

from blackboxes.games import (
    Game,
    GameError,
    Params,
    Strategy,
    best_response_value,
    expected_score,
    security_value,
    uniform_policy,
)
from blackboxes.store import Box
from evaluator.box_env import BoxEnvironment
from evaluator.conversation import agent_conversation
from evaluator.failures import BoxFailureError, FailureCause, cause_of
from evaluator.kinds.game.trajectory import (
    GameRoundRecord,
    GameTrajectory,
    PlayedGame,
    SettingRecord,
)
from evaluator.spec import TurnShot
from evaluator.usage import agent_llm_calls, totals_of
from oracle_bench.bounded import BoundsError, check_text, recordable_text
from oracle_bench.errors import UnknownNameError
from oracle_bench.rng import rng_for

__all__ = [
    "GameAgent",
    "GameAgentContext",
    "GameBriefing",
    "GameEpisodeContext",
    "GameFamily",
    "Phase",
    "RoundResult",
    "check_game_agent_name",
    "failed_game_trajectory",
    "game_agent_names",
    "game_intro",
    "make_game_agent",
    "normalised",
    "register_game_agent",
    "run_game_episode",
]

log = logging.getLogger(__name__)

Phase = Literal["explore", "evaluate"]
Context = Literal["reset", "keep"]


class GameFamily(Protocol):
    """What the protocol needs of a box's family."""

    @property
    def game(self) -> Game: ...

    @property
    def evaluation_settings(self) -> Sequence[Mapping[str, int]]: ...

    @property
    def test_items(self) -> int: ...

    def true_opponent(self, hidden: Any) -> tuple[Strategy, Params]:
        """The hidden strategy (owner-side: hidden.json), for the optimum only."""
        ...

    def agent_space(self, settings: Mapping[str, int]) -> Any:
        """The agents' prior over opponents (every kind of the box's level)."""
        ...


@dataclass(frozen=True)
class GameBriefing:
    intro: str
    settings: tuple[dict[str, int], ...]
    turns: int
    shots: int
    context: Context


@dataclass(frozen=True)
class RoundResult:
    round: int
    action: str
    """What was played (the stand-in for an invalid reply)."""
    opponent: str
    points: int
    note: str | None = None
    """Why the reply was invalid, when it was."""


class GameAgent(Protocol):
    """Plays a game episode. Every text it returns is hostile to the protocol."""

    def start(self, briefing: GameBriefing) -> None: ...

    def begin_setting(self, index: int, settings: Mapping[str, int], message: str) -> None: ...

    def begin_game(self, phase: Phase, number: int, message: str) -> None: ...

    def act(self, banner: str, legal: tuple[str, ...]) -> str:
        """The action for the next round."""
        ...

    def observe(self, result: RoundResult) -> None: ...

    def end_game(self, score: int, message: str) -> None: ...


@dataclass(frozen=True)
class GameAgentContext:
    """What a game agent is built with: the box's game and family (for its prior over
    opponents, never the hidden strategy), and its own random stream."""

    family: GameFamily
    level: str
    rng: Any


GameAgentFactory = Callable[[GameAgentContext], Any]
_REGISTRY: dict[str, GameAgentFactory] = {}
BUILTIN_AGENTS = ("adaptive", "fixed", "random")


def register_game_agent(name: str) -> Callable[[GameAgentFactory], GameAgentFactory]:
    def deco(factory: GameAgentFactory) -> GameAgentFactory:
        if name in _REGISTRY:
            raise ValueError(f"game agent {name!r} registered twice")
        _REGISTRY[name] = factory
        return factory

    return deco


def game_agent_names() -> list[str]:
    return sorted(set(BUILTIN_AGENTS) | set(_REGISTRY))


def check_game_agent_name(name: str) -> str:
    if name not in game_agent_names():
        raise UnknownNameError("game agent", name, game_agent_names())
    return name


def make_game_agent(name: str, ctx: GameAgentContext) -> GameAgent:
    check_game_agent_name(name)
    if name not in _REGISTRY:
        from evaluator.kinds.game import baselines  # noqa: F401 (registers the built-ins)
    agent: GameAgent = _REGISTRY[name](ctx)
    return agent


@dataclass(frozen=True)
class GameEpisodeContext:
    suite: str
    agent_name: str
    spec: TurnShot
    context: Context = "reset"
    seed: int = 0
    repetition: int = 0


@lru_cache(maxsize=256)
def _references(
    game: Game, settings: tuple[tuple[str, int], ...], strategy: Strategy, params: Params
) -> tuple[Fraction, float, Fraction]:
    """(optimum, security value, uniform play's expectation) of one setting: the same for
    every agent and repetition of a box, so computed once per process."""
    items = dict(settings)
    optimum = best_response_value(game, items, strategy, params)
    uniform = expected_score(game, items, strategy, params, uniform_policy(game))
    return optimum, security_value(game, items), uniform


def _settings_text(settings: Mapping[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(settings.items()))


def game_intro(box: Box, spec: TurnShot, settings: Sequence[Mapping[str, int]]) -> str:
    """The box's rules followed by the protocol."""
    listing = "; ".join(_settings_text(s) for s in settings)
    return (
        f"{box.info.task_intro.rstrip()}\n\n"
        f"You will play {len(settings)} setting(s) of this game ({listing}) against the same "
        f"opponent, which follows a fixed hidden strategy. In each setting you first play "
        f"{spec.turns} exploration game(s) to learn it, then {spec.shots} evaluation "
        "game(s); your best evaluation score, against the best score achievable against "
        "this opponent, is what counts."
    )


def normalised(best: int | None, optimum: Fraction) -> float | None:
    """best / optimum clipped to [0, 1] (1 when the optimum is 0)."""
    if best is None:
        return None
    if optimum <= 0:
        return 1.0
    return float(min(Fraction(1), max(Fraction(0), Fraction(best) / optimum)))


def _problem(text: object) -> str | None:
    if not isinstance(text, str):
        return f"your reply must be text, got {type(text).__name__}"
    try:
        check_text(text, "your reply")
    except BoundsError as exc:
        return str(exc)
    return None


@dataclass
class _Setting:
    index: int
    settings: dict[str, int]
    optimum: Fraction
    security: float
    uniform: Fraction
    exploration: list[PlayedGame] = field(default_factory=list)
    evaluation: list[PlayedGame] = field(default_factory=list)

    def record(self) -> SettingRecord:
        best = max((g.score for g in self.evaluation), default=None)
        return SettingRecord(
            index=self.index,
            settings=dict(self.settings),
            optimum=float(self.optimum),
            security=round(self.security, 9),
            uniform=float(self.uniform),
            exploration=list(self.exploration),
            evaluation=list(self.evaluation),
            best=best,
            normalised=normalised(best, self.optimum),
        )


@dataclass
class _Episode:
    box: Box
    family: GameFamily
    agent: GameAgent
    env: BoxEnvironment
    ctx: GameEpisodeContext
    intro: str = ""
    done: list[_Setting] = field(default_factory=list)
    current: _Setting | None = None

    @property
    def game(self) -> Game:
        return self.family.game

    def run(self) -> None:
        strategy, params = self.family.true_opponent(self.box.hidden)
        for k, raw in enumerate(self.family.evaluation_settings):
            settings = self.game.settings(raw)
            optimum, security, uniform = _references(
                self.game, tuple(sorted(settings.items())), strategy, params
            )
            setting = _Setting(k, settings, optimum, security, uniform)
            self.current = setting
            self.agent.begin_setting(
                k,
                settings,
                f"Setting {k + 1} of {self.family.test_items}: {_settings_text(settings)}.",
            )
            for g in range(self.ctx.spec.turns):
                setting.exploration.append(self.play(setting, "explore", g))
            for g in range(self.ctx.spec.shots):
                setting.evaluation.append(self.play(setting, "evaluate", g))
            self.done.append(setting)
            self.current = None

    def opponent_move(
        self, settings: Mapping[str, int], history: list[list[str]], u: float, state: Any
    ) -> str:
        result = self.env.call(dict(settings), [list(h) for h in history], u)
        if not result.ok:
            error = result.error
            shown = error.render() if error is not None else "unknown error"
            raise BoxFailureError(f"the box failed after {len(history)} round(s): {shown}")
        move = result.value
        if not isinstance(move, str) or move not in self.game.opp_actions(state):
            raise BoxFailureError(
                f"the box played {recordable_text(repr(move))[:80]} after {len(history)} "
                "round(s), not a legal opponent action"
            )
        return move

    def play(self, setting: _Setting, phase: Phase, number: int) -> PlayedGame:
        game, settings = self.game, setting.settings
        total = self.ctx.spec.turns if phase == "explore" else self.ctx.spec.shots
        kind = "exploration" if phase == "explore" else "evaluation"
        self.agent.begin_game(
            phase, number, f"{kind.capitalize()} game {number + 1} of {total} starts."
        )
        noise = rng_for(self.box.hidden.test_seed, "noise", setting.index, phase, number)
        state = game.initial_state(settings)
        history: list[list[str]] = []
        rounds: list[GameRoundRecord] = []
        n = game.rounds(settings)
        score = 0
        for t in range(1, n + 1):
            legal = game.actions(state)
            text: object = self.agent.act(
                f"<{kind} game {number + 1} of {total}, round {t} of {n}; your score so far "
                f"{score}>",
                legal,
            )
            problem = _problem(text)
            shown = recordable_text(text) if isinstance(text, str) else repr(text)[:200]
            action = legal[0]
            if problem is None:
                try:
                    action = game.parse_action(state, str(text))
                except GameError as exc:
                    problem = str(exc)
            theirs = self.opponent_move(settings, history, noise.random(), state)
            outcome = game.resolve(state, action, theirs)
            note = None if problem is None else f"invalid reply ({problem}): played {action}"
            rounds.append(
                GameRoundRecord(
                    round=t,
                    text=shown,
                    action=action,
                    opponent=theirs,
                    points=outcome.player_points,
                    error=problem,
                )
            )
            score += outcome.player_points
            self.agent.observe(RoundResult(t, action, theirs, outcome.player_points, note))
            history.append([action, theirs])
            state = outcome.state
        self.agent.end_game(score, f"The {kind} game is over: you scored {score}.")
        return PlayedGame(rounds=rounds, score=score)

    def trajectory(self, error: str | None, failure: FailureCause | None = None) -> Any:
        settings = [s.record() for s in self.done]
        if error is not None and self.current is not None:
            settings.append(self.current.record())
        calls = agent_llm_calls(self.agent)
        notes = getattr(self.agent, "notes", None)
        completed = error is None
        score = None
        if completed and settings:
            values = [s.normalised or 0.0 for s in settings]
            score = sum(values) / len(values)
        return GameTrajectory(
            **_header(self.box, self.family, self.ctx, self.intro),
            sandbox_layers=sorted(
                str(getattr(layer, "value", layer)) for layer in getattr(self.env, "layers", ())
            ),
            settings_played=settings,
            score=score,
            invalid_rounds=sum(
                r.error is not None
                for s in settings
                for g in (*s.exploration, *s.evaluation)
                for r in g.rounds
            ),
            agent_notes=list(notes()) if callable(notes) else [],
            llm_calls=calls,
            usage=totals_of(calls) if calls else None,
            conversation=agent_conversation(self.agent),
            status="completed" if completed else "failed",
            error=error,
            failure=failure,
        )


def _header(box: Box, family: GameFamily, ctx: GameEpisodeContext, intro: str) -> dict[str, Any]:
    return {
        "box_id": box.info.id,
        "box_digest": box.digest,
        "suite": ctx.suite,
        "family": box.info.family,
        "level": box.info.level,
        "rule_kind": box.facts.rule_kind,
        "game": family.game.name,
        "log2_h": box.facts.log2_h,
        "agent": ctx.agent_name,
        "turns": ctx.spec.turns,
        "shots": ctx.spec.shots,
        "context": ctx.context,
        "seed": ctx.seed,
        "repetition": ctx.repetition,
        "intro": intro,
    }


def run_game_episode(
    box: Box, family: GameFamily, agent: GameAgent, env: BoxEnvironment, ctx: GameEpisodeContext
) -> GameTrajectory:
    """Run one game episode and return its trajectory. A failure of the agent or the box is
    recorded (``status="failed"``, the settings so far kept), never raised."""
    episode = _Episode(box=box, family=family, agent=agent, env=env, ctx=ctx)
    settings = tuple(dict(family.game.settings(s)) for s in family.evaluation_settings)
    episode.intro = game_intro(box, ctx.spec, settings)
    try:
        agent.start(
            GameBriefing(
                intro=episode.intro,
                settings=settings,
                turns=ctx.spec.turns,
                shots=ctx.spec.shots,
                context=ctx.context,
            )
        )
        episode.run()
    except Exception as exc:
        message = f"{type(exc).__name__}: {exc}"
        cause = cause_of(exc)
        log.info("game episode %s/%s failed (%s): %s", box.info.id, ctx.agent_name, cause, message)
        return episode.trajectory(message, cause)
    result: GameTrajectory = episode.trajectory(None)
    return result


def failed_game_trajectory(
    box: Box, family: GameFamily, ctx: GameEpisodeContext, error: str, failure: FailureCause
) -> GameTrajectory:
    """The record of a game episode that could not start."""
    settings = tuple(dict(family.game.settings(s)) for s in family.evaluation_settings)
    return GameTrajectory(
        **_header(box, family, ctx, game_intro(box, ctx.spec, settings)),
        sandbox_layers=[],
        settings_played=[],
        score=None,
        invalid_rounds=0,
        status="failed",
        error=error,
        failure=failure,
    )
