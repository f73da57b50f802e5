"""Playing one game between a player and an opponent, with the caller's uniforms."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from blackboxes.games._base import Game, GameError, GameState
from blackboxes.games._strategy import History, Params, Strategy

__all__ = ["GameRecord", "Player", "Round", "play_game"]

Player = Callable[[int, GameState, History], str]
"""A player: (round index, game state, history so far) -> its action."""


@dataclass(frozen=True)
class Round:
    """One round as played."""

    player: str
    opponent: str
    player_points: int
    opp_points: int


@dataclass(frozen=True)
class GameRecord:
    """A whole game: its settings, its rounds and the player's score."""

    settings: tuple[tuple[str, int], ...]
    rounds: tuple[Round, ...]

    @property
    def score(self) -> int:
        """The player's total points."""
        return sum(r.player_points for r in self.rounds)

    @property
    def history(self) -> History:
        """The rounds as (player action, opponent action) pairs."""
        return tuple((r.player, r.opponent) for r in self.rounds)


def play_game(
    game: Game,
    settings: Mapping[str, int],
    strategy: Strategy,
    params: Params,
    player: Player,
    us: Sequence[float] | None = None,
) -> GameRecord:
    """Play one game; round t's opponent draws with ``us[t]`` (required when it
    randomises, ignored otherwise). An illegal player action raises :class:`GameError`."""
    opponent = strategy.bind(game, settings, params)
    rounds = game.rounds(settings)
    if opponent.mixed and (us is None or len(us) < rounds):
        raise GameError(f"a mixed opponent needs {rounds} uniforms, one per round")
    state = game.initial_state(settings)
    strat_state = opponent.initial()
    history: History = ()
    played = []
    for t in range(rounds):
        mine = player(t, state, history)
        if mine not in game.actions(state):
            raise GameError(f"round {t + 1}: {mine!r} is not a legal action for the player")
        theirs = opponent.act(strat_state, state, us[t] if us is not None else 0.0)
        out = game.resolve(state, mine, theirs)
        played.append(Round(mine, theirs, out.player_points, out.opp_points))
        strat_state = opponent.update(strat_state, mine, theirs)
        state = out.state
        history = (*history, (mine, theirs))
    return GameRecord(opponent.settings_items, tuple(played))
