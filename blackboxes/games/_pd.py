"""The iterated prisoner's dilemma with the standard points T=5 > R=3 > P=1 > S=0."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from blackboxes.games._base import Game, GameState, Outcome, register_game

__all__ = ["PrisonersDilemma"]

COOPERATE = "cooperate"
DEFECT = "defect"
# (player, opponent) points per (player action, opponent action): already >= 0.
_POINTS = {
    (COOPERATE, COOPERATE): (3, 3),
    (COOPERATE, DEFECT): (0, 5),
    (DEFECT, COOPERATE): (5, 0),
    (DEFECT, DEFECT): (1, 1),
}


@register_game
class PrisonersDilemma(Game):
    """Iterated prisoner's dilemma: both cooperate 3 each, both defect 1 each, a lone
    defector 5 and the one it betrays 0."""

    name = "pd"
    title = "Iterated prisoner's dilemma"
    setting_ranges: ClassVar[Mapping[str, tuple[int, int]]] = {"rounds": (1, 50)}
    defaults: ClassVar[Mapping[str, int]] = {"rounds": 10}
    level_ranges: ClassVar[Mapping[str, Mapping[str, tuple[int, int]]]] = {
        "easy": {"rounds": (8, 12)},
        "hard": {"rounds": (10, 15)},
    }
    stateless = True
    max_round_points = 5
    order = (COOPERATE, DEFECT)

    def rules_text(self, settings: Mapping[str, int]) -> str:
        rounds = self.rounds(settings)
        return (
            f"{self.title}. You and your opponent play {rounds} rounds. In each round both "
            "choose `cooperate` or `defect` at the same time. If both cooperate, each scores "
            "3 points; if both defect, each scores 1 point; if one defects and the other "
            "cooperates, the defector scores 5 points and the cooperator 0 points. After each "
            "round you are told both actions and the points each side scored. Your score is "
            "the sum of your points."
        )

    def initial_state(self, settings: Mapping[str, int]) -> GameState:
        self.settings(settings)
        return ()

    def actions(self, state: GameState) -> tuple[str, ...]:
        return self.order

    def opp_actions(self, state: GameState) -> tuple[str, ...]:
        return self.order

    def alphabet(self, settings: Mapping[str, int]) -> tuple[str, ...]:
        return self.order

    def resolve(self, state: GameState, player_action: str, opp_action: str) -> Outcome:
        mine, theirs = _POINTS[player_action, opp_action]
        return Outcome(state, mine, theirs)

    def opp_point_values(self) -> tuple[int, ...]:
        return (1, 3, 5)
